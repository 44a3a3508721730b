"""The named things of a JavaScript or TypeScript module by kind, as `naming` judges them
(`naming_conventions.py` is the Python side; the kinds and conventions are the same).

Kinds in JS/TS:

- `class`: classes (declared, or a class expression's own name), and TypeScript's
  interfaces and enums, which the language's conventions name as classes;
- `function`: function declarations, a named function expression's own name, a
  variable bound to a function or arrow function (`const loadData = () => ...`), and a
  CommonJS export bound to one (`exports.loadData = async (req, res) => ...`,
  `module.exports.loadData = function () {...}`), the module's function by that name;
- `method`: a class's methods, getters and setters (`constructor` aside: the language
  imposes it); an object literal's keys are not judged (an API often imposes them);
- `argument`: parameters (with a default, rest parameters, TypeScript's parameter
  properties); destructured parameters name the caller's keys and are not judged;
- `variable`: `let`/`var`/`const` names, names an array pattern or a renaming object
  pattern (`{ id: userId }`) binds, loop variables (`for (const item of xs)`), `catch`
  parameters; a shorthand pattern (`{ id }`) repeats a key and is not judged;
- `constant`: a module-level `let`/`var`/`const` name spelt UPPER_CASE, or a
  module-level `const` bound to a literal (`const PORT = 3000`, `const port = 3000`);
- `attribute`: `this.x = ...` and class fields (`count = 0`, `#secret`);
- `type-variable`: TypeScript's type parameters (`<T>`);
- `type-alias`: TypeScript's `type Json = ...`.

A private name's `#` is not part of its spelling; nor are leading and trailing `$`
(`$el`, as leading `_` for Python) under a convention (a `pattern` sees the name whole).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

_CLASS_KINDS: Final = (
    "class_declaration",
    "abstract_class_declaration",
    "class",
    "interface_declaration",
    "enum_declaration",
)
_FUNCTION_VALUES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_LITERALS: Final = frozenset({"number", "string", "true", "false", "null", "undefined"})
_TOP: Final = frozenset({"program", "export_statement"})
_PARAMETER_LISTS: Final = frozenset({"formal_parameters"})
_EXPORTS: Final = frozenset({"exports", "module.exports"})


def named_js_things(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    """(kind, identifier node) for every name the module's code defines, by kind."""
    for node in module.nodes(*_CLASS_KINDS):
        name = node.field("name")
        if name is not None:
            yield "class", name
    for node in module.nodes("type_alias_declaration"):
        name = node.field("name")
        if name is not None:
            yield "type-alias", name
    for node in module.nodes("type_parameter"):
        name = node.field("name")
        if name is not None:
            yield "type-variable", name
    for node in module.nodes(
        "function_declaration", "generator_function_declaration", "function_expression"
    ):
        name = node.field("name")
        if name is not None:
            yield "function", name
    for node in module.nodes("method_definition"):
        parent = node.parent()
        name = node.field("name")
        if parent is None or parent.kind() != "class_body" or name is None:
            continue
        if name.text() != "constructor":
            yield "method", name
    yield from _parameters(module)
    yield from _declared(module)
    yield from _exported(module)
    yield from _patterns(module)
    yield from _attributes(module)


def js_spelling(name: str) -> str:
    """The spelling a convention judges: a private name's `#` and `$` at either end off."""
    core = name.lstrip("#").strip("$")
    return core or name


def _parameters(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    for params in module.nodes("formal_parameters"):
        for param in params.named_children():
            target = param
            if param.kind() in ("required_parameter", "optional_parameter"):
                found = param.field("pattern")
                if found is None:
                    continue
                target = found
            if target.kind() == "assignment_pattern":
                target = target.field("left") or target
            if target.kind() == "rest_pattern":
                inner = [c for c in target.named_children() if c.kind() == "identifier"]
                target = inner[0] if inner else target
            if target.kind() == "identifier":
                yield "argument", target


def _declared(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    """Names `let`/`var`/`const` declare as plain identifiers."""
    for declarator in module.nodes("variable_declarator"):
        name = declarator.field("name")
        if name is None or name.kind() != "identifier":
            continue
        value = declarator.field("value")
        value_kind = value.kind() if value is not None else None
        if value_kind in _FUNCTION_VALUES:
            yield "function", name
            continue
        if value_kind == "class":
            continue  # a class expression: judged as a class when it names itself
        declaration = declarator.parent()
        top = declaration is not None and _at_top(declaration)
        const = declaration is not None and any(
            child.kind() == "const" for child in declaration.children()
        )
        if top and (_upper(name.text()) or (const and _plain_literal(value))):
            yield "constant", name
        else:
            yield "variable", name
    for statement in module.nodes("for_in_statement"):
        left = statement.field("left")
        if left is not None and left.kind() == "identifier":
            yield "variable", left
    for clause in module.nodes("catch_clause"):
        param = clause.field("parameter")
        if param is not None and param.kind() == "identifier":
            yield "variable", param


def _exported(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    """CommonJS exports bound to a function (`exports.x = () => ...`): CommonJS's way to
    define a module's function, as `export function x` is an ES module's."""
    for assignment in module.nodes("assignment_expression"):
        left, right = assignment.field("left"), assignment.field("right")
        if left is None or right is None or left.kind() != "member_expression":
            continue
        target, prop = left.field("object"), left.field("property")
        if (
            target is not None
            and target.text() in _EXPORTS
            and prop is not None
            and prop.kind() == "property_identifier"
            and right.kind() in _FUNCTION_VALUES
        ):
            yield "function", prop


def _patterns(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    """Names destructuring binds (in declarations and loops, not parameters)."""
    for pattern in module.nodes("array_pattern", "object_pattern"):
        if _in_parameters(pattern):
            continue
        for child in pattern.named_children():
            target = child
            if child.kind() == "pair_pattern":
                target = child.field("value") or child
            elif child.kind() in ("rest_pattern", "object_assignment_pattern"):
                inner = [c for c in child.named_children() if c.kind() == "identifier"]
                target = inner[0] if inner else child
            elif child.kind() == "assignment_pattern":
                target = child.field("left") or child
            if target.kind() == "identifier":
                yield "variable", target


def _attributes(module: JsModule) -> Iterator[tuple[str, SgNode]]:
    for field in module.nodes("public_field_definition", "field_definition"):
        name = field.field("name") or field.field("property")
        if name is not None and name.is_leaf():
            yield "attribute", name
    for assignment in module.nodes("assignment_expression"):
        left = assignment.field("left")
        if left is None or left.kind() != "member_expression":
            continue
        target = left.field("object")
        prop = left.field("property")
        if target is not None and target.kind() == "this" and prop is not None:
            yield "attribute", prop


def _at_top(declaration: SgNode) -> bool:
    """Whether a declaration is at module level (an `export` around it or not)."""
    parent = declaration.parent()
    return (
        parent is not None
        and parent.kind() in _TOP
        and (parent.kind() == "program" or _at_top(parent))
    )


def _in_parameters(node: SgNode) -> bool:
    parent = node.parent()
    while parent is not None and parent.kind() in (
        "required_parameter",
        "optional_parameter",
        "assignment_pattern",
        "array_pattern",
        "object_pattern",
        "pair_pattern",
        "rest_pattern",
    ):
        parent = parent.parent()
    return parent is not None and parent.kind() in _PARAMETER_LISTS


def _plain_literal(value: SgNode | None) -> bool:
    """A literal, a template string without substitutions, or a negative number."""
    if value is None:
        return False
    if value.kind() == "template_string":
        return not any(c.kind() == "template_substitution" for c in value.children())
    if value.kind() == "unary_expression":
        operand = value.field("argument")
        return operand is not None and operand.kind() == "number"
    return value.kind() in _LITERALS


def _upper(name: str) -> bool:
    core = js_spelling(name).strip("_")
    return bool(core) and core.upper() == core and any(c.isalpha() for c in core)

"""What the `context` and `exemplar` checks read of JavaScript and TypeScript: code given in
an option, parsed in the language; the definitions a module makes at its top level (as
`context.top_level_signatures` reads Python's); the names its code uses; and code that is
class members alone (a method written for a given class), read as such.

Definitions: a `function` declaration, a `const`/`let`/`var` bound to a function or an
arrow function, `exports.f = function ...` (as `f`), a class (and a class expression bound
to a name) with its methods (`Class.method`, `constructor`, static and abstract ones too) and
its fields bound to a function (`handleClick = (event) => ...`, React's handlers), and
`Class.prototype.m = function ...` or `Class.m = function ...` (as `Class.m`), each
exported or not. A class's other fields (`this.x = ...` anywhere in it, `x = 1` in its
body) are its `fields`: reading them is using the class, as calling its methods is.

Uses: the names called (`f(...)`, `new Graph()`, `extends Graph`) and, as `.name`, the
members called or read (`graph.neighbours(...)`, `this.items`, `onClick={this.add}`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_functions import JsFunction
from pytest_codeif.checks.shared.js_signatures import js_params
from pytest_codeif.code.js_tree import JsModule, JsSyntaxError
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: The class members of code that is members alone are read in (a name no code has).
FRAGMENT_CLASS: Final = "__codeif_members__"
_FUNCTION_VALUES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_CLASS_KINDS: Final = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})
_FIELD_KINDS: Final = frozenset({"field_definition", "public_field_definition"})


def parse_js_option(source: str, option: str) -> JsModule | str:
    """JavaScript or TypeScript given in a task option, parsed (JavaScript's grammar
    first, then TypeScript's, then TSX's), or why it does not parse (the JavaScript
    reading's first error)."""
    first: str | None = None
    for language, suffix in (("javascript", "js"), ("typescript", "ts")):
        # A TypeScript option has no file name of its own: `JsModule` tries TSX too.
        text = SourceFile(f"{option}.{suffix}", source, Path(option), language=language)
        try:
            return JsModule(text)
        except JsSyntaxError as exc:
            first = first or f"line {exc.line}: {exc.what}"
        except Undecidable as exc:
            return exc.message
    return first or "invalid syntax"


@dataclass(frozen=True)
class JsDefinition:
    """A top-level definition: its parameters (None: a class), its line, and its code's
    tokens with comments and layout left out (`normal_form`): a copy of a given
    function is the given one repeated, not written anew."""

    params: tuple[str, ...] | None
    line: int
    form: str = ""


@dataclass
class JsDefinitions:
    """What a module defines at its top level, by name (`f`, `Class`, `Class.method`), and
    the fields of its classes (`Class.field`)."""

    symbols: dict[str, JsDefinition] = field(default_factory=dict)
    fields: set[str] = field(default_factory=set)

    def add(
        self, name: str, params: tuple[str, ...] | None, node: SgNode, module: JsModule
    ) -> None:
        form = "" if params is None else normal_form(node)
        self.symbols.setdefault(name, JsDefinition(params, module.line_of(node), form))


def normal_form(node: SgNode) -> str:
    """`node`'s tokens, comments and semicolons left out (JavaScript inserts those a
    line ends without), one space apart: the same code whatever its layout."""
    tokens: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind() == "comment":
            continue
        children = current.children()
        if not children and current.kind() != ";":
            tokens.append(current.text())
        stack.extend(reversed(children))
    return " ".join(tokens)


def param_names(module: JsModule, node: SgNode) -> tuple[str, ...]:
    """A function's parameter names as written, a rest parameter as `...name`."""
    params = js_params(JsFunction(module, node, None, None))
    # A destructured parameter as written, on one line: its layout is no part of it.
    names = (" ".join(p.name.split()) for p in params)
    return tuple(f"...{n}" if p.rest else n for p, n in zip(params, names, strict=True))


def _name_of(node: SgNode | None) -> str | None:
    return node.text() if node is not None and node.is_leaf() else None


def _member_key(member: SgNode) -> SgNode | None:
    return member.field("name") or member.field("property") or member.field("key")


def _read_class(module: JsModule, node: SgNode, name: str, out: JsDefinitions) -> None:
    out.add(name, None, node, module)
    body = node.field("body")
    if body is None:
        return
    for member in body.named_children():
        key = _name_of(_member_key(member))
        if key is None:
            continue
        if member.kind() in ("method_definition", "abstract_method_signature"):
            out.add(f"{name}.{key}", param_names(module, member), member, module)
        elif member.kind() in _FIELD_KINDS:
            value = member.field("value")
            if value is not None and value.kind() in _FUNCTION_VALUES:
                out.add(f"{name}.{key}", param_names(module, value), member, module)
            else:
                out.fields.add(f"{name}.{key.lstrip('#')}")
    for assigned in body.find_all(kind="assignment_expression"):
        target = assigned.field("left")
        if target is None or target.kind() != "member_expression":
            continue
        owner, prop = target.field("object"), target.field("property")
        if owner is not None and owner.kind() == "this" and prop is not None:
            out.fields.add(f"{name}.{prop.text().lstrip('#')}")


def _read_assignment(module: JsModule, node: SgNode, out: JsDefinitions) -> None:
    """`exports.f = function`, `module.exports.f = ...`, `C.prototype.m = ...`, `C.m = ...`."""
    target, value = node.field("left"), node.field("right")
    if target is None or value is None or target.kind() != "member_expression":
        return
    if value.kind() not in _FUNCTION_VALUES:
        return
    prop = _name_of(target.field("property"))
    parts = _chain(target.field("object"))
    if prop is None or parts is None:
        return
    if parts in (["exports"], ["module", "exports"]):
        out.add(prop, param_names(module, value), node, module)
    elif len(parts) == 1 or (len(parts) == 2 and parts[1] == "prototype"):
        out.add(f"{parts[0]}.{prop}", param_names(module, value), node, module)


def _chain(node: SgNode | None) -> list[str] | None:
    parts: list[str] = []
    while node is not None and node.kind() == "member_expression":
        prop = _name_of(node.field("property"))
        if prop is None:
            return None
        parts.append(prop)
        node = node.field("object")
    if node is None or node.kind() != "identifier":
        return None
    return [node.text(), *reversed(parts)]


def _top_statements(module: JsModule) -> Iterator[SgNode]:
    """The module's top-level statements, an `export`'s declaration in its place."""
    for statement in module.root.named_children():
        if statement.kind() == "export_statement":
            inner = statement.field("declaration") or statement.field("value")
            if inner is not None:
                yield inner
            continue
        yield statement


def js_definitions(module: JsModule) -> JsDefinitions:
    """What `module` defines at its top level (see the module docstring)."""
    out = JsDefinitions()
    for node in _top_statements(module):
        kind = node.kind()
        name = _name_of(node.field("name"))
        if kind in ("function_declaration", "generator_function_declaration") and name:
            out.add(name, param_names(module, node), node, module)
        elif kind in _CLASS_KINDS and name:
            _read_class(module, node, name, out)
        elif kind in _DECLARATIONS:
            for declarator in node.named_children():
                bound = _name_of(declarator.field("name"))
                value = declarator.field("value")
                if declarator.kind() != "variable_declarator" or bound is None or value is None:
                    continue
                if value.kind() in _FUNCTION_VALUES:
                    out.add(bound, param_names(module, value), declarator, module)
                elif value.kind() in _CLASS_KINDS:
                    _read_class(module, value, bound, out)
        elif kind == "expression_statement":
            inner = node.named_children()
            if inner and inner[0].kind() == "assignment_expression":
                _read_assignment(module, inner[0], out)
    return out


def js_uses(modules: Iterable[JsModule]) -> set[str]:
    """The names the code calls (`f`, `Graph` of `new Graph()` or `extends Graph`) and, as
    `.name`, the members it calls or reads (`.neighbours`, `.items`)."""
    used: set[str] = set()
    for module in modules:
        for node in module.nodes("call_expression", "new_expression"):
            callee = node.field("function") or node.field("constructor")
            if callee is not None and callee.kind() == "identifier":
                used.add(callee.text())
        for node in module.nodes("member_expression"):
            prop = node.field("property")
            if prop is not None and prop.is_leaf():
                used.add(f".{prop.text().lstrip('#')}")
        for node in module.nodes("class_heritage", "extends_clause"):
            for base in node.named_children():
                if base.kind() == "identifier":
                    used.add(base.text())
    return used


def read_as_members(source: SourceFile) -> JsModule | None:
    """`source` read as the members of a class (`FRAGMENT_CLASS`), for code that is
    methods alone, written to go inside a given class; None when it does not read so
    either. Its lines are the file's own: the class opens on its first line."""
    text = f"class {FRAGMENT_CLASS} {{ {source.text}\n}}\n"
    try:
        module = JsModule(SourceFile(source.relpath, text, source.origin, None, source.language))
    except Undecidable:
        return None
    body = module.root.named_children()
    if len(body) != 1 or body[0].kind() not in _CLASS_KINDS:
        return None
    return module

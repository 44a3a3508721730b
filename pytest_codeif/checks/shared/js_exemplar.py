"""What the `exemplar` check compares of JavaScript and TypeScript: the units a module
defines at its top level (functions, route handlers, classes), and the shape of one (its
parameters, its `try`/`catch`, how its `catch` blocks end; for a class, what it extends
and its methods' names).

Units, in document order: a function (declared, a `const` bound to a function or an
arrow function, `exports.f = function ...`), a handler (a function given to a call at the
top level: `router.post('/user', async (req, res) => {...})`, known by the call and its
first string argument, `router.post('/user')`), and a class (a React class component).

A `catch` block ends by `raise` (a `throw`), `respond` (passing the error on, or answering,
through what its function was given: `res.status(500).send(...)`, `next(err)`,
`callback(err)`, `reject(err)`, with or without `return`), `return` (another `return`), or
`other`. JavaScript's `catch` takes every error, so the types caught are not compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from pytest_codeif.checks.shared.js_code import literal
from pytest_codeif.checks.shared.js_context import param_names
from pytest_codeif.checks.shared.js_functions import FUNCTION_KINDS, js_functions
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

UnitKind = Literal["function", "handler", "class"]
_FUNCTION_VALUES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_CLASS_KINDS: Final = frozenset({"class_declaration", "abstract_class_declaration", "class"})
#: Definitions whose body is no part of the enclosing unit's shape (a callback's is).
_OWN_SHAPE: Final = frozenset(
    {*_CLASS_KINDS, "function_declaration", "generator_function_declaration", "method_definition"}
)
_LABEL: Final = 60


@dataclass(frozen=True)
class JsUnit:
    """A unit of a module: its kind, what it is called in messages (`label`), its own
    name (None: a handler), its node (a function's or a class's) and its line."""

    kind: UnitKind
    label: str
    name: str | None
    node: SgNode
    module: JsModule

    @property
    def line(self) -> int:
        return self.module.line_of(self.node)


@dataclass(frozen=True)
class JsShape:
    """What is compared between the example's unit and the new one."""

    params: tuple[str, ...]  # plain parameter names, every method's for a class
    has_try: bool
    handler_ends: frozenset[str]
    base: str | None = None  # a class: the last name of what it extends
    methods: tuple[str, ...] = ()  # a class: its methods' names, `constructor` aside


def _handler_label(module: JsModule, call: SgNode) -> str:
    callee = call.field("function")
    shown = module.snippet(callee, _LABEL) if callee is not None else "?"
    arguments = call.field("arguments")
    first = arguments.named_children()[0] if arguments and arguments.named_children() else None
    text = literal(first) if first is not None else None
    if text is None:
        return f"{shown}(...)"
    return f"{shown}({text[:_LABEL]!r}{'...' if len(text) > _LABEL else ''})"


def _handlers(module: JsModule, statement: SgNode) -> Iterator[JsUnit]:
    """The functions given to the calls of a top-level expression statement."""
    for call in statement.find_all(kind="call_expression"):
        arguments = call.field("arguments")
        if arguments is None:
            continue
        for argument in arguments.named_children():
            if argument.kind() in _FUNCTION_VALUES and _top_call(call, statement):
                yield JsUnit("handler", _handler_label(module, call), None, argument, module)


def _top_call(call: SgNode, statement: SgNode) -> bool:
    """Whether `call` is not inside a function of `statement` (a callback's own call)."""
    node = call.parent()
    while node is not None and node != statement:
        if node.kind() in FUNCTION_KINDS:
            return False
        node = node.parent()
    return True


def js_units(module: JsModule) -> list[JsUnit]:
    """The units of `module` in document order (see the module docstring)."""
    found: list[JsUnit] = []
    for statement in module.root.named_children():
        node = statement
        if node.kind() == "export_statement":
            node = node.field("declaration") or node.field("value") or node
        kind = node.kind()
        own = node.field("name")
        if kind in ("function_declaration", "generator_function_declaration") and own:
            found.append(JsUnit("function", own.text(), own.text(), node, module))
        elif kind in _CLASS_KINDS and own:
            found.append(JsUnit("class", own.text(), own.text(), node, module))
        elif kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children():
                bound, value = declarator.field("name"), declarator.field("value")
                if bound is None or value is None or bound.kind() != "identifier":
                    continue
                if value.kind() in _FUNCTION_VALUES:
                    found.append(JsUnit("function", bound.text(), bound.text(), value, module))
                elif value.kind() in _CLASS_KINDS:
                    found.append(JsUnit("class", bound.text(), bound.text(), value, module))
        elif kind == "expression_statement":
            found.extend(_assigned(module, node) or list(_handlers(module, node)))
    return found


def _assigned(module: JsModule, statement: SgNode) -> list[JsUnit]:
    """`exports.f = function ...` and `module.exports.f = ...`: the function `f`."""
    inner = statement.named_children()
    if not inner or inner[0].kind() != "assignment_expression":
        return []
    target, value = inner[0].field("left"), inner[0].field("right")
    if target is None or value is None or value.kind() not in _FUNCTION_VALUES:
        return []
    if target.kind() != "member_expression":
        return []
    prop = target.field("property")
    owner = target.field("object")
    if prop is None or owner is None or owner.text() not in ("exports", "module.exports"):
        return []
    return [JsUnit("function", prop.text(), prop.text(), value, module)]


def find_unit(modules: list[JsModule], name: str) -> JsUnit | None:
    """The unit, method (`Class.method`) or nested function called `name`."""
    for module in modules:
        for unit in js_units(module):
            if name in (unit.name, unit.label):
                return unit
    for module in modules:
        for function in js_functions(module):
            if name in (function.qualname, function.name):
                label = function.qualname or name
                return JsUnit("function", label, function.name, function.node, module)
    return None


def _root_name(node: SgNode | None) -> str | None:
    """The name a chain of calls and members starts from (`res` of `res.status(5).send()`)."""
    while node is not None:
        kind = node.kind()
        if kind == "identifier":
            return node.text()
        if kind == "call_expression":
            node = node.field("function")
        elif kind in ("member_expression", "await_expression", "parenthesized_expression"):
            inner = node.named_children()
            node = node.field("object") or (inner[0] if inner else None)
        else:
            return None
    return None


def _enclosing_params(module: JsModule, node: SgNode) -> set[str]:
    parent = node.parent()
    while parent is not None and parent.kind() not in FUNCTION_KINDS:
        parent = parent.parent()
    return set(param_names(module, parent)) if parent is not None else set()


def _ending(module: JsModule, handler: SgNode) -> str:
    body = handler.field("body")
    statements = body.named_children() if body is not None else []
    statements = [s for s in statements if s.kind() != "comment"]
    if not statements:
        return "other"
    last = statements[-1]
    kind = last.kind()
    if kind == "throw_statement":
        return "raise"
    if kind not in ("return_statement", "expression_statement"):
        return "other"
    inner = last.named_children()
    value = inner[0] if inner else None
    if value is not None and value.kind() == "await_expression":
        awaited = value.named_children()
        value = awaited[0] if awaited else None
    if value is not None and value.kind() == "call_expression":
        root = _root_name(value)
        if root is not None and root in _enclosing_params(module, handler):
            return "respond"
    return "return" if kind == "return_statement" else "other"


def _own_nodes(top: SgNode) -> Iterator[SgNode]:
    """The nodes of `top`'s body that are its own: nested named functions, methods and
    classes left out (a callback's nodes are its caller's)."""
    stack = list(reversed(top.children()))
    while stack:
        node = stack.pop()
        if node.kind() in _OWN_SHAPE:
            continue
        yield node
        stack.extend(reversed(node.children()))


def _plain(names: tuple[str, ...]) -> list[str]:
    return [n.removeprefix("...") for n in names if n.removeprefix("...").isidentifier()]


def shape_of(unit: JsUnit) -> JsShape:
    """The shape of `unit` (see the module docstring)."""
    module = unit.module
    if unit.kind != "class":
        parts = [unit.node]
        params = _plain(param_names(module, unit.node))
        base: str | None = None
        methods: tuple[str, ...] = ()
    else:
        body = unit.node.field("body")
        members = body.named_children() if body is not None else []
        parts, params, names = [], [], []
        for member in members:
            value = member.field("value")
            function = member if member.kind() == "method_definition" else value
            if function is None or function.kind() not in (*_FUNCTION_VALUES, "method_definition"):
                continue
            parts.append(function)
            params += _plain(param_names(module, function))
            key = member.field("name") or member.field("property")
            if key is not None and key.text() != "constructor":
                names.append(key.text().lstrip("#"))
        base, methods = _base(unit.node), tuple(names)
    has_try, ends = False, set()
    for part in parts:
        for node in _own_nodes(part):
            if node.kind() == "try_statement":
                has_try = True
                handler = node.field("handler")
                if handler is not None:
                    ends.add(_ending(module, handler))
    return JsShape(tuple(dict.fromkeys(params)), has_try, frozenset(ends), base, methods)


def _base(node: SgNode) -> str | None:
    for child in node.named_children():
        if child.kind() != "class_heritage":
            continue
        # TypeScript wraps the base in an `extends_clause` (a kind JavaScript lacks).
        clauses = [c for c in child.named_children() if c.kind() == "extends_clause"]
        for base in (clauses[0] if clauses else child).named_children():
            if base.kind() in ("identifier", "member_expression", "type_identifier"):
                return base.text().rsplit(".", 1)[-1]
    return None

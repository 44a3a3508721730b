"""The functions of JavaScript and TypeScript modules, by name, and which are recursive:
what `construct`, `comments` and `complexity` read of JS/TS code (`structure.py` and
`recursion.py` are their Python side).

A function is a `function` declaration or expression, a generator, an arrow function, or
a method (of a class, or of an object literal). Its name is its own (`function f`), the
variable or property it is bound to (`const f = () => ...`, `f: function () {}`), or the
method's; a method's qualified name is `Class.method`, a nested function's
`outer.inner`, as Python's `Class.method` and `outer.<locals>.inner` read without the
`<locals>` part. Anonymous functions (callbacks) have no name and are searched for no
name, yet belong to the code.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.base import CheckContext, Finding
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Node kinds that are functions.
FUNCTION_KINDS: Final = (
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",  # tree-sitter-javascript's older name for a function expression
    "generator_function",
    "arrow_function",
    "method_definition",
)
#: Node kinds whose name a definition inside them is qualified by.
_OWNER_KINDS: Final = (*FUNCTION_KINDS, "class_declaration", "class", "abstract_class_declaration")


@dataclass(frozen=True)
class JsFunction:
    """A function of a JS/TS module: its node, name (None: anonymous) and qualified name."""

    module: JsModule
    node: SgNode
    name: str | None
    qualname: str | None

    @property
    def line(self) -> int:
        return self.module.line_of(self.node)

    @property
    def body(self) -> SgNode | None:
        return self.node.field("body")

    @property
    def is_async(self) -> bool:
        return any(child.kind() == "async" for child in self.node.children())

    @property
    def is_generator(self) -> bool:
        kind = self.node.kind()
        if kind in ("generator_function_declaration", "generator_function"):
            return True
        return kind == "method_definition" and any(c.kind() == "*" for c in self.node.children())


def function_name(node: SgNode) -> str | None:
    """The name `node` (a function) goes by: its own, or what it is bound to."""
    own = node.field("name")
    if own is not None and node.kind() != "arrow_function":
        return own.text()
    parent = node.parent()
    if parent is None:
        return None
    kind = parent.kind()
    if kind == "variable_declarator":
        bound = parent.field("name")
        return bound.text() if bound is not None and bound.kind() == "identifier" else None
    if kind in ("pair", "public_field_definition", "field_definition"):
        key = parent.field("key") or parent.field("property") or parent.field("name")
        return key.text() if key is not None and key.is_leaf() else None
    if kind == "assignment_expression":
        left = parent.field("left")
        if left is not None and left.kind() == "identifier":
            return left.text()
        if left is not None and left.kind() == "member_expression":
            prop = left.field("property")
            return prop.text() if prop is not None else None
    return None


def _class_name(node: SgNode) -> str | None:
    own = node.field("name")
    if own is not None:
        return own.text()
    parent = node.parent()
    if parent is not None and parent.kind() == "variable_declarator":
        bound = parent.field("name")
        return bound.text() if bound is not None else None
    return None


def js_functions(module: JsModule) -> Iterator[JsFunction]:
    """Every function of `module` in document order, with its qualified name."""
    # Names of the enclosing definitions, kept by walking once with an explicit stack.
    stack: list[tuple[SgNode, tuple[str, ...]]] = [(module.root, ())]
    while stack:
        node, owners = stack.pop()
        kind = node.kind()
        inner = owners
        if kind in FUNCTION_KINDS:
            name = function_name(node)
            qualname = ".".join((*owners, name)) if name else None
            yield JsFunction(module, node, name, qualname)
            inner = (*owners, name or "<anonymous>")
        elif kind in _OWNER_KINDS:
            inner = (*owners, _class_name(node) or "<anonymous>")
        stack.extend((child, inner) for child in reversed(node.children()) if child.is_named())


def find_js_function(modules: list[JsModule], name: str) -> JsFunction | None:
    """The function called `name` (or `Class.method`, `outer.inner`), searched in every
    module: by qualified name first, then by its own name."""
    every = [f for module in modules for f in js_functions(module)]
    by_qualname = [f for f in every if f.qualname == name]
    if by_qualname:
        return by_qualname[0]
    if "." not in name:
        by_name = [f for f in every if f.name == name]
        return by_name[0] if by_name else None
    return None


def require_js_function(ctx: CheckContext, name: str, rule: str) -> JsFunction | Finding:
    """The function `name` of the JS/TS modules in scope, or a finding saying it is not
    defined (with those that are)."""
    modules = ctx.js_modules()
    found = find_js_function(modules, name)
    if found is not None:
        return found
    defined = sorted({f.qualname for m in modules for f in js_functions(m) if f.qualname})
    shown = ", ".join(defined[:10]) or "none"
    path = modules[0].relpath if modules else None
    return Finding(f"function `{name}` is not defined (functions found: {shown})", rule, path, 1)


def _callees(function: JsFunction, known: dict[str, JsFunction]) -> set[str]:
    """Qualified names of the known functions `function` calls directly: `f()` by name,
    `this.m()` as a method of its own class."""
    found: set[str] = set()
    body = function.body
    if body is None:
        return found
    owner = (
        function.qualname.rsplit(".", 1)[0]
        if function.qualname and "." in function.qualname
        else None
    )
    by_name: dict[str, list[str]] = {}
    for qualname, other in known.items():
        if other.name:
            by_name.setdefault(other.name, []).append(qualname)
    for call in body.find_all(kind="call_expression"):
        callee = call.field("function")
        if callee is None:
            continue
        if callee.kind() == "identifier":
            found.update(by_name.get(callee.text(), ()))
        elif callee.kind() == "member_expression" and owner is not None:
            target = callee.field("object")
            prop = callee.field("property")
            if target is not None and target.kind() == "this" and prop is not None:
                method = f"{owner}.{prop.text()}"
                if method in known:
                    found.add(method)
    return found


def recursive_js_functions(modules: list[JsModule]) -> dict[str, JsFunction]:
    """Named functions that call themselves, directly or through other functions."""
    known = {f.qualname: f for m in modules for f in js_functions(m) if f.qualname}
    graph = {name: _callees(function, known) for name, function in known.items()}
    recursive: dict[str, JsFunction] = {}
    for start, callees in graph.items():
        seen: set[str] = set()
        pending = list(callees)
        while pending:
            current = pending.pop()
            if current == start:
                recursive[start] = known[start]
                break
            if current not in seen:
                seen.add(current)
                pending.extend(graph.get(current, ()))
    return recursive


def own_nodes(function: JsFunction) -> Iterator[SgNode]:
    """The nodes of `function`'s body that are its own: nested functions (and classes)
    left out, as a decision point of a callback is the callback's."""
    body = function.body
    if body is None:
        return
    stack = [body]
    while stack:
        node = stack.pop()
        if node.kind() in _OWNER_KINDS:
            continue
        yield node
        stack.extend(reversed(node.children()))

"""A small language-neutral description of code, for recognisers whose evidence is the
shape of a few assignments (`described.py`): each assignment's target and value as
normalised text, the function it is in and whether it runs once per element, the
elements read out of containers, and what each name is bound to. One reader per
language builds it (libcst for Python, ast-grep for JavaScript and TypeScript); a
recogniser written on it reads both.

Texts are normalised so that the languages' spellings of one shape compare equal:
whitespace and comments dropped (one space between words), `this.` read as `self.`, a
map's `m.get(k)` (and Python's `m.get(k, default)`) read as `m[k]`. A name bound by a
loop or by an array method's callback is bound to `each(<what it iterates>)`; a loop
counter (`for (let i = 0; ...)`, `for i in range(...)`) to `count(...)`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    ITERATIONS,
    enclosing,
    flat,
    function_of,
    stores,
)
from pytest_codeif.checks.named_algorithm.recogniser import Code, Place
from pytest_codeif.checks.shared import js_algorithms_parts as js
from pytest_codeif.checks.shared.js_algorithms_parts import JsPlace
from pytest_codeif.checks.shared.js_functions import function_name
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: What a function that hashes does in its body (as normalised text).
HASHING: Final = re.compile(
    r"%|\^|\bMath\.imul\(|\.(?:charCodeAt|codePointAt)\(|\bord\(|\bhash\(|hashlib|mmh3|xxhash"
)
#: Longest text a substitution may build (hostile code can bind names to names).
_MAX_TEXT: Final = 2_000
_GET: Final = re.compile(r"\.get\(([^(),]*)(?:,[^()]*)?\)")


def normalised(text: str) -> str:
    """`text` as the description compares it (see the module docstring)."""
    text = re.sub(r"(?<![\w$.])this\.", "self.", text)
    text = re.sub(r"!(?=[\[.)\],;]|$)", "", text)  # TypeScript's non-null `x!`
    for _ in range(4):  # nested gets (`up.get(up.get(v)[k])`), innermost first
        text, changed = _GET.subn(r"[\1]", text)
        if not changed:
            break
    return text


@dataclass(frozen=True)
class Assignment:
    """`target op value`, in `function` (a key: the function's name and line), `iterated`
    when it runs once per element (in a loop or an iterating callback)."""

    target: str
    value: str
    op: str | None
    function: str
    iterated: bool
    at: Place | JsPlace
    line: int = 0


@dataclass(frozen=True)
class Read:
    """An element read out of a container (`bits[i]`, `self.up[v][k]`), not written."""

    text: str
    root: str
    function: str
    at: Place | JsPlace


@dataclass
class Facts:
    """The description of the code in scope."""

    assignments: list[Assignment] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)
    #: name -> [(function, value, line)]: what each name is bound to, where.
    bindings: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)
    #: Functions (by name) that hash: named so, or mixing a value's characters or bits
    #: (`%`, `^`, `charCodeAt`, `ord`, `Math.imul`, a hash library).
    hashers: set[str] = field(default_factory=set)

    def bind(self, name: str, function: str, value: str, line: int = 0) -> None:
        self.bindings.setdefault(name, []).append((function, value, line))

    def bound(self, name: str, function: str, line: int | None = None) -> list[str]:
        """What `name` is bound to: in `function` if it binds it there (by the last
        binding on or before `line`, when given), else anywhere."""
        every = self.bindings.get(name, [])
        own = [(value, at) for where, value, at in every if where == function]
        if own and line is not None:
            before = [(value, at) for value, at in own if at <= line]
            last = max((at for _, at in before), default=None)
            own = [(value, at) for value, at in before if at == last] or own
        return [value for value, _ in own] or [value for _, value, _ in every]

    def expand(self, text: str, function: str, depth: int = 2, line: int | None = None) -> str:
        """`text` with each name bound once (to one value) in `function` replaced by that
        value, `depth` times over: `up[prev][k-1]` with `prev = up[v][k-1]` reads as
        `up[up[v][k-1]][k-1]`. With `line`, a name bound several times is read by its
        binding last before that line."""
        for _ in range(depth):

            def swap(match: re.Match[str]) -> str:
                values = self.bound(match.group(0), function, line)
                return (
                    values[0]
                    if len(values) == 1 and not values[0].startswith(("each(", "count("))
                    else match.group(0)
                )

            # A name before `[`, `.` or `(` is a container, an object or a function.
            expanded = re.sub(r"(?<![\w$.])[A-Za-z_$][\w$]*(?![\w$(\[.])", swap, text)
            if expanded == text or len(expanded) > _MAX_TEXT:
                break
            text = expanded
        return text


def root_of(text: str) -> str:
    """The container a subscript text reads: `self.up` of `self.up[v][k]`."""
    return text.split("[", 1)[0]


# Python ---------------------------------------------------------------------------


def _python_function(module: ParsedModule, node: cst.CSTNode) -> str:
    function = function_of(module, node)
    if function is None:
        return "<module>"
    return f"{function.name.value}@{module.line_of(function)}"


def python_facts(code: Code) -> Facts:
    """The description of Python code in scope."""
    facts = Facts()
    for module, node in code.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign):
        _py_assignment(facts, module, node)
    for module, loop in code.nodes(cst.For, cst.CompFor):
        if not isinstance(loop, (cst.For, cst.CompFor)):
            continue
        iterated = flat(loop.iter)
        kind = "count" if iterated.startswith(("range(", "enumerate(")) else "each"
        for name in _names(loop.target):
            each = f"{kind}({normalised(iterated)})"
            facts.bind(name, _python_function(module, loop), each, module.line_of(loop))
    for _, definition in code.functions():
        if _hasher(definition.name.value, flat(definition.body)):
            facts.hashers.add(definition.name.value)
    targets = {id(s.target) for m, n in code.nodes(cst.Assign, cst.AugAssign) for s in stores(m, n)}
    for module, node in code.nodes(cst.Subscript):
        if id(node) not in targets:
            text = normalised(flat(node))
            function = _python_function(module, node)
            facts.reads.append(Read(text, root_of(text), function, (module, node)))
    return facts


def _py_assignment(facts: Facts, module: ParsedModule, node: cst.CSTNode) -> None:
    """One Python assignment statement's stores (a tuple's pairs apart), and the names
    they bind."""
    function = _python_function(module, node)
    iterated = bool(enclosing(module, node, ITERATIONS))
    line = module.line_of(node)
    for store in stores(module, node):
        if store.statement is not node:
            continue
        op = flat(store.op).strip() if store.op is not None else None
        pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = [(store.target, store.value)]
        if isinstance(store.target, (cst.Tuple, cst.List)) and isinstance(
            store.value, (cst.Tuple, cst.List)
        ):
            pairs = [
                (t.value, v.value)
                for t, v in zip(store.target.elements, store.value.elements, strict=False)
            ]
        for target, value in pairs:
            one = Assignment(
                normalised(flat(target)),
                normalised(flat(value)),
                op,
                function,
                iterated,
                (module, node),
                line,
            )
            facts.assignments.append(one)
            if isinstance(target, cst.Name) and op is None:
                facts.bind(target.value, function, one.value, line)


def _hasher(name: str, body: str) -> bool:
    """Whether a function named `name` with this body text hashes."""
    return "hash" in name.lower() or HASHING.search(body) is not None


def _names(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    return []


# JavaScript and TypeScript ---------------------------------------------------------


def _js_function(module: JsModule, node: SgNode) -> str:
    function = js.function_of(node)
    if function is None:
        return "<module>"
    return f"{function_name(function) or '<anonymous>'}@{module.line_of(function)}"


def js_facts(code: js.JsCode) -> Facts:
    """The description of JS/TS code in scope."""
    facts = Facts()
    for function in code.functions():
        body = function.body
        if (
            function.name
            and body is not None
            and _hasher(function.name, js.flat(function.module, body))
        ):
            facts.hashers.add(function.name)
    for module, scope in code.places:
        written = _js_assignments(facts, module, scope)
        _js_loop_bindings(facts, module, scope)
        _js_callback_bindings(facts, module, scope)
        _js_reads(facts, module, scope, written)
    return facts


def _js_assignments(facts: Facts, module: JsModule, scope: SgNode) -> set[SgNode]:
    """Every assignment, and the names it binds; the targets written."""
    written: set[SgNode] = set()
    for store in js.stores(module, scope):
        function = _js_function(module, store.statement)
        target = normalised(js.flat(module, store.target))
        value = normalised(js.flat(module, store.value)) if store.value is not None else ""
        iterated = js.in_iteration(store.statement)
        line = module.line_of(store.statement)
        facts.assignments.append(
            Assignment(target, value, store.op, function, iterated, (module, store.statement), line)
        )
        written.add(store.target)
        if store.target.kind() == "identifier" and store.op is None:
            declaration = store.statement.parent()
            loop = declaration.parent() if declaration is not None else None
            counted = loop is not None and loop.kind() == "for_statement"
            facts.bind(target, function, f"count({value})" if counted else value, line)
    return written


def _js_loop_bindings(facts: Facts, module: JsModule, scope: SgNode) -> None:
    """`for (const x of xs)`: x is each of xs."""
    for loop in module.nodes("for_in_statement", within=scope):
        left, right = loop.field("left"), loop.field("right")
        if left is None or right is None:
            continue
        function = _js_function(module, loop)
        each = f"each({normalised(js.flat(module, right))})"
        for name in module.nodes(
            "identifier", "shorthand_property_identifier_pattern", within=left
        ):
            facts.bind(name.text(), function, each, module.line_of(loop))


def _js_callback_bindings(facts: Facts, module: JsModule, scope: SgNode) -> None:
    """`xs.forEach((x) => ...)`: the callback's first parameter is each of xs."""
    for callback in module.nodes("arrow_function", "function_expression", "function", within=scope):
        if not js.iterating_callback(callback):
            continue
        arguments = callback.parent()
        call = arguments.parent() if arguments is not None else None
        callee = js.bare(call.field("function")) if call is not None else None
        receiver = callee.field("object") if callee is not None else None
        params = callback.field("parameters") or callback.field("parameter")
        if params is None or receiver is None:
            continue
        names = [params] if params.kind() == "identifier" else params.named_children()
        if names:
            first = names[0]
            text = js.flat(module, first.field("pattern") or first)
            each = f"each({normalised(js.flat(module, receiver))})"
            facts.bind(text, _js_function(module, callback), each, module.line_of(callback))


def _js_reads(facts: Facts, module: JsModule, scope: SgNode, written: set[SgNode]) -> None:
    """Every element read (`a[i][j]` whole, `m.get(k)`), not written."""
    for node in module.nodes("subscript_expression", within=scope):
        if node in written:
            continue
        parent = node.parent()
        if (
            parent is not None
            and parent.kind() == "subscript_expression"
            and parent.field("object") == node
        ):
            continue  # `a[i]` of `a[i][j]`: the whole read is its parent's
        text = normalised(js.flat(module, node))
        facts.reads.append(Read(text, root_of(text), _js_function(module, node), (module, node)))
    for call in module.nodes("call_expression", within=scope):
        if js.member_name(call) == "get" and js.arguments(call):
            text = normalised(js.flat(module, call))
            facts.reads.append(
                Read(text, root_of(text), _js_function(module, call), (module, call))
            )

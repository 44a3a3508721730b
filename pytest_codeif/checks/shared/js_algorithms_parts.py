"""What the algorithm checks (`named-algorithm`, `algorithm`) read of JavaScript and
TypeScript code, through ast-grep: the places in scope (`JsCode`), the text of an
expression as a shape (`flat`), loops and what they contain, assignments (`JsStore`),
swaps of two elements (`JsSwap`), functions and the calls they make to themselves. The
JS side of `named_algorithm/patterns.py`, with the same names where the idea is the
same, so a JS recogniser reads like its Python twin.

Everything here walks hostile code: node texts are read through `flat`, which reads at
most `_MAX_TEXT` characters of the file, and walks are ast-grep's own (native) searches.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_functions import FUNCTION_KINDS, JsFunction, js_functions
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: A node of a JS/TS module, where something was found (or missed).
JsPlace = tuple[JsModule, "SgNode"]

#: The loops of the language.
LOOP_KINDS: Final = ("for_statement", "for_in_statement", "while_statement", "do_statement")
#: Array methods whose callback runs once per element: an iteration as a loop is.
ITERATING_METHODS: Final = frozenset(
    {"forEach", "map", "filter", "reduce", "reduceRight", "every", "some", "flatMap", "from"}
)
#: Characters of one node's text read for a shape, at most (an expression is far shorter).
_MAX_TEXT: Final = 20_000
_COMMENTS: Final = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
#: A run of whitespace, with the word characters on either side (if any): see patterns.py.
_SPACE: Final = re.compile(r"(?:(?<=([\w$]))|(?<![\w$]))\s+(?:(?=([\w$]))|(?![\w$]))")
#: Wrappers TypeScript puts around an expression that change nothing at run time.
_TRANSPARENT: Final = (
    "parenthesized_expression",
    "as_expression",
    "non_null_expression",
    "satisfies_expression",
)


class JsCode:
    """The JS/TS code a recogniser judges: the places in scope (a function, or each
    module whole) and the check's options."""

    def __init__(
        self,
        places: Sequence[tuple[JsModule, SgNode | None]],
        *,
        function: str | None = None,
        allow_library: bool = False,
    ) -> None:
        self.places: list[JsPlace] = [(m, node or m.root) for m, node in places]
        self.function = function
        self.allow_library = allow_library

    def nodes(self, *kinds: str) -> list[JsPlace]:
        """The nodes of these kinds in scope, in document order."""
        return [(m, n) for m, scope in self.places for n in m.nodes(*kinds, within=scope)]

    def functions(self) -> list[JsFunction]:
        """Every function, arrow function and method in scope (the scoped one included)."""
        found: list[JsFunction] = []
        for module, scope in self.places:
            found.extend(f for f in js_functions(module) if _within(scope, f.node))
        return found


def _within(outer: SgNode, inner: SgNode) -> bool:
    a, b = outer.range(), inner.range()
    return a.start.index <= b.start.index and b.end.index <= a.end.index


def within(outer: SgNode, inner: SgNode) -> bool:
    """Whether `inner` is `outer` or lies below it."""
    return _within(outer, inner)


def text_of(module: JsModule, node: SgNode) -> str:
    """`node`'s source, at most `_MAX_TEXT` characters of it."""
    span = node.range()
    start, end = span.start.index, span.end.index
    return module.text[start : min(end, start + _MAX_TEXT)]


def flat(module: JsModule, node: SgNode | None) -> str:
    """The text of `node` without comments, whitespace or a final `;`, except one space
    between words (`(lo+hi)>>1`, `new Array(n)`), for comparing shapes."""
    if node is None:
        return ""
    text = _COMMENTS.sub("", text_of(module, node)).strip().rstrip(";")
    return _SPACE.sub(lambda m: " " if m.group(1) and m.group(2) else "", text)


def bare(node: SgNode | None) -> SgNode | None:
    """`node` without the parentheses and TypeScript casts around it."""
    while node is not None and node.kind() in _TRANSPARENT:
        inner = node.named_children()
        node = inner[0] if inner else None
    return node


def where(place: JsPlace) -> str:
    """ "line N" of a place, for evidence."""
    module, node = place
    return f"line {module.line_of(node)}"


def shown(module: JsModule, node: SgNode, limit: int = 60) -> str:
    """The code of `node` on one line, for evidence (cut at `limit` characters)."""
    return module.snippet(node, limit)


def is_loop(node: SgNode) -> bool:
    return node.kind() in LOOP_KINDS


def loops_in(module: JsModule, node: SgNode) -> list[SgNode]:
    """The loops below `node`, not counting `node` itself."""
    return [n for n in module.nodes(*LOOP_KINDS, within=node) if n != node]


def enclosing_loops(node: SgNode) -> list[SgNode]:
    """The loops that contain `node` (not `node` itself), innermost first, up to the
    function that holds it (a loop around a function's definition runs no iteration of
    its body)."""
    found: list[SgNode] = []
    for outer in node.ancestors():
        if outer.kind() in FUNCTION_KINDS:
            break
        if outer.kind() in LOOP_KINDS:
            found.append(outer)
    return found


def iterating_callback(function: SgNode) -> bool:
    """Whether `function` is the callback of an array method that calls it once per
    element (`xs.forEach(i => ...)`, `Array.from({length: k}, ...)`)."""
    arguments = function.parent()
    call = arguments.parent() if arguments is not None else None
    if call is None or call.kind() != "call_expression":
        return False
    return member_name(call) in ITERATING_METHODS


def in_iteration(node: SgNode) -> bool:
    """Whether `node` runs once per element: inside a loop of its function, or in the
    callback of an iterating array method."""
    for outer in node.ancestors():
        if outer.kind() in LOOP_KINDS:
            return True
        if outer.kind() in FUNCTION_KINDS:
            return iterating_callback(outer)
    return False


def function_of(node: SgNode) -> SgNode | None:
    """The innermost function (of any kind) holding `node`."""
    for outer in node.ancestors():
        if outer.kind() in FUNCTION_KINDS:
            return outer
    return None


def member_name(call: SgNode) -> str | None:
    """`m` for a call `x.m(...)` (or `x?.m(...)`), else None."""
    callee = bare(call.field("function"))
    if callee is None or callee.kind() != "member_expression":
        return None
    prop = callee.field("property")
    return prop.text() if prop is not None else None


def callee_name(call: SgNode) -> str | None:
    """`f` for `f(...)`, `m` for `x.m(...)`/`this.m(...)`: the name a call calls."""
    callee = bare(call.field("function"))
    if callee is None:
        return None
    if callee.kind() == "identifier":
        return callee.text()
    return member_name(call)


def arguments(call: SgNode) -> list[SgNode]:
    """The argument expressions of a call."""
    args = call.field("arguments")
    return args.named_children() if args is not None else []


def subscript_root(module: JsModule, node: SgNode | None) -> str | None:
    """The container a subscript chain reads: `a` for `a[i][j]`, `this.up` for
    `this.up[v][k]`; None when `node` is no subscript."""
    node = bare(node)
    if node is None or node.kind() != "subscript_expression":
        return None
    while node is not None and node.kind() == "subscript_expression":
        node = bare(node.field("object"))
    return flat(module, node) if node is not None else None


def last_index(module: JsModule, node: SgNode) -> str:
    """The last index of a subscript, as text: `j+1` for `a[j + 1]`."""
    node = bare(node) or node
    return flat(module, node.field("index")) if node.kind() == "subscript_expression" else ""


@dataclass(frozen=True)
class JsStore:
    """An assignment of `value` to `target`: `x = v`, `const x = v`, `x += v` (`op` is
    the operator, None for a plain `=`), `x++` (`op` "++", no value)."""

    target: SgNode
    value: SgNode | None
    statement: SgNode
    op: str | None = None


def stores(module: JsModule, node: SgNode) -> list[JsStore]:
    """Every assignment below `node`, in document order."""
    found: list[JsStore] = []
    kinds = (
        "assignment_expression",
        "augmented_assignment_expression",
        "variable_declarator",
        "update_expression",
    )
    for n in module.nodes(*kinds, within=node):
        kind = n.kind()
        if kind == "variable_declarator":
            name, value = n.field("name"), n.field("value")
            if name is not None and value is not None:
                found.append(JsStore(name, bare(value) or value, n))
        elif kind == "assignment_expression":
            left, right = n.field("left"), n.field("right")
            if left is not None and right is not None:
                found.append(JsStore(bare(left) or left, bare(right) or right, n))
        elif kind == "augmented_assignment_expression":
            left, right, op = n.field("left"), n.field("right"), n.field("operator")
            if left is not None and right is not None:
                operator = op.text() if op is not None else _operator_of(n)
                found.append(JsStore(bare(left) or left, bare(right) or right, n, operator))
        else:
            argument = n.field("argument")
            if argument is not None:
                operator = "++" if "++" in flat(module, n) else "--"
                found.append(JsStore(bare(argument) or argument, None, n, operator))
    return found


def _operator_of(node: SgNode) -> str:
    for child in node.children():
        if not child.is_named() and child.text().endswith("="):
            return child.text()
    return "="


def name_of(module: JsModule, node: SgNode) -> str | None:
    """The running variable a store writes: `cur`, `this.cur`, or `dp` for `dp[i]`."""
    while node.kind() == "subscript_expression":
        inner = bare(node.field("object"))
        if inner is None:
            return None
        node = inner
    text = flat(module, node)
    return text if re.fullmatch(r"[\w$.]+", text) else None


@dataclass(frozen=True)
class JsSwap:
    """Two elements of one container exchanged: `[a[i], a[j]] = [a[j], a[i]]`, through a
    temporary (`const t = a[i]; a[i] = a[j]; a[j] = t;`), or by a call of a helper that
    does one of those (`swap(a, i, j)`)."""

    statement: SgNode
    container: str
    first: str
    second: str


def swaps(module: JsModule, node: SgNode) -> list[JsSwap]:
    """Every swap of two elements of one container below `node`."""
    found = [
        s
        for n in module.nodes("assignment_expression", within=node)
        if (s := _destructuring(module, n))
    ]
    found.extend(_temp_swaps(module, node))
    found.extend(_helper_swaps(module, node))
    return sorted(found, key=lambda s: s.statement.range().start.index)


def _destructuring(module: JsModule, node: SgNode) -> JsSwap | None:
    left, right = node.field("left"), bare(node.field("right"))
    if left is None or right is None or left.kind() != "array_pattern" or right.kind() != "array":
        return None
    targets, values = left.named_children(), right.named_children()
    if len(targets) != 2 or len(values) != 2:
        return None
    if not all((bare(x) or x).kind() == "subscript_expression" for x in (*targets, *values)):
        return None
    roots = {subscript_root(module, x) for x in (*targets, *values)}
    if len(roots) != 1:
        return None
    if flat(module, targets[0]) != flat(module, values[1]):
        return None
    if flat(module, targets[1]) != flat(module, values[0]):
        return None
    return JsSwap(
        node, roots.pop() or "", last_index(module, targets[0]), last_index(module, targets[1])
    )


def _simple(module: JsModule, statement: SgNode) -> tuple[str, SgNode] | None:
    """(target text, value node) of `t = v;`, `const t = v;`, `let t = v;`."""
    kind = statement.kind()
    if kind == "expression_statement":
        inner = statement.named_children()
        if len(inner) == 1 and inner[0].kind() == "assignment_expression":
            left, right = inner[0].field("left"), inner[0].field("right")
            if left is not None and right is not None:
                return flat(module, left), bare(right) or right
    elif kind in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in statement.named_children() if c.kind() == "variable_declarator"]
        if len(declarators) == 1:
            name, value = declarators[0].field("name"), declarators[0].field("value")
            if name is not None and value is not None:
                return flat(module, name), bare(value) or value
    return None


def _temp_swaps(module: JsModule, node: SgNode) -> Iterator[JsSwap]:
    for block in module.nodes("statement_block", "program", within=node):
        statements = [(s, _simple(module, s)) for s in block.named_children()]
        for (_, a), (sb, b), (_, c) in zip(
            statements, statements[1:], statements[2:], strict=False
        ):
            if a is None or b is None or c is None:
                continue
            temp, first = a[0], a[1]
            if first.kind() != "subscript_expression" or b[1].kind() != "subscript_expression":
                continue
            if (
                b[0] == flat(module, first)
                and c[0] == flat(module, b[1])
                and flat(module, c[1]) == temp
                and subscript_root(module, first) == subscript_root(module, b[1])
            ):
                yield JsSwap(
                    sb,
                    subscript_root(module, first) or "",
                    last_index(module, first),
                    last_index(module, b[1]),
                )


#: Each module's swap helpers, found once (a module is read by several recognisers).
_HELPERS: weakref.WeakKeyDictionary[JsModule, dict[str, tuple[int, int, int]]] = (
    weakref.WeakKeyDictionary()
)


def _swap_helpers(module: JsModule) -> dict[str, tuple[int, int, int]]:
    """Functions of the module that swap two elements of a parameter, by name: the
    positions of (container, first index, second index) among their parameters."""
    known = _HELPERS.get(module)
    if known is not None:
        return known
    helpers: dict[str, tuple[int, int, int]] = {}
    _HELPERS[module] = helpers
    for function in js_functions(module):
        params = function.node.field("parameters")
        if function.name is None or params is None:
            continue
        names = [_param_name(module, p) for p in params.named_children()]
        body = function.body
        if body is None:
            continue
        for swap in swaps_without_helpers(module, body):
            try:
                helpers[function.name] = (
                    names.index(swap.container),
                    names.index(swap.first),
                    names.index(swap.second),
                )
            except ValueError:
                continue
    return helpers


def swaps_without_helpers(module: JsModule, node: SgNode) -> list[JsSwap]:
    """The swaps written out below `node` (destructuring or a temporary)."""
    found = [
        s
        for n in module.nodes("assignment_expression", within=node)
        if (s := _destructuring(module, n))
    ]
    found.extend(_temp_swaps(module, node))
    return found


def _param_name(module: JsModule, param: SgNode) -> str:
    """A parameter's name: `a` of `a`, `a: number[]`, `a = []`."""
    if param.kind() in ("required_parameter", "optional_parameter"):
        pattern = param.field("pattern")
        return flat(module, pattern) if pattern is not None else ""
    if param.kind() == "assignment_pattern":
        return flat(module, param.field("left"))
    return flat(module, param)


def _helper_swaps(module: JsModule, node: SgNode) -> Iterator[JsSwap]:
    helpers = _swap_helpers(module)
    if not helpers:
        return
    for call in module.nodes("call_expression", within=node):
        positions = helpers.get(callee_name(call) or "")
        args = arguments(call)
        if positions is None or max(positions) >= len(args):
            continue
        container, first, second = (flat(module, args[i]) for i in positions)
        yield JsSwap(call, container, first, second)


def self_calls(function: JsFunction) -> list[SgNode]:
    """The calls in `function`'s body to itself (`f(...)`, `this.f(...)`)."""
    body = function.body
    if body is None or function.name is None:
        return []
    found = []
    for call in function.module.nodes("call_expression", within=body):
        callee = bare(call.field("function"))
        if callee is None:
            continue
        if callee.kind() == "identifier" and callee.text() == function.name:
            found.append(call)
        elif callee.kind() == "member_expression" and member_name(call) == function.name:
            target = callee.field("object")
            if target is not None and target.kind() == "this":
                found.append(call)
    return found


def library_sort(code: JsCode) -> JsPlace | None:
    """A call of the language's sort (`xs.sort(...)`, `xs.toSorted(...)`)."""
    for module, call in code.nodes("call_expression"):
        if member_name(call) in ("sort", "toSorted"):
            return module, call
    return None

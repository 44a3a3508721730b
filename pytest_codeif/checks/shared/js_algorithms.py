"""The techniques of the `algorithm` check read in JavaScript and TypeScript code, by the
structure that makes each, as the check reads Python:

- `recursion`: a function that calls itself, directly or through others (`f()`,
  `this.m()`);
- `iteration-only`: loops (or array methods iterating a callback: `forEach`, `map`,
  `reduce`...) and no recursion;
- `memoisation`: a recursive function that looks results up in a container (`memo[n]`,
  `memo.has(n)`, `memo.get(n)`, `n in memo`) and stores them there (`memo[n] = v`,
  `memo.set(n, v)`);
- `dynamic-programming`: memoisation, or a table filled in a loop from its other
  entries (`dp[i] = dp[i - 1] + ...`; reading only the entry written is tallying);
- `binary-search`: a `while` loop or a recursive function halving a range
  (`Math.floor((lo + hi) / 2)`, `(lo + hi) >> 1`, `lo + ((hi - lo) >>> 1)`);
- `bfs`: a loop taking nodes from a queue's front (`queue.shift()`, `queue[head++]`)
  and keeping a visited record (`seen.add`, `seen.has`, `visited[v] = true`,
  `includes`);
- `dfs`: a recursive function keeping a visited record, or a loop popping a stack
  (`stack.pop()`) with one;
- `sorting`: the language's sort (`sort`, `toSorted`), or elements swapped in nested
  loops (a hand-written sort);
- `greedy`: sorts or pops a priority queue, then decides in a loop holding no other
  loop, without recursion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_algorithms_parts import (
    LOOP_KINDS,
    JsCode,
    arguments,
    bare,
    enclosing_loops,
    flat,
    iterating_callback,
    loops_in,
    member_name,
    stores,
    subscript_root,
    swaps,
    within,
)
from pytest_codeif.checks.shared.js_functions import FUNCTION_KINDS, JsFunction
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode


@dataclass(frozen=True)
class JsScope:
    """Where to look, and (found once per evaluation) which functions are recursive."""

    code: JsCode
    recursive: tuple[JsFunction, ...]

    def recursive_here(self) -> list[JsFunction]:
        """The recursive functions that lie in scope."""
        return [
            f
            for f in self.recursive
            for module, scope in self.code.places
            if f.module is module and within(scope, f.node)
        ]


def _nodes(scope: JsScope, *kinds: str) -> Iterator[tuple[JsModule, SgNode]]:
    yield from scope.code.nodes(*kinds)


def recursion(scope: JsScope) -> bool:
    """A function that calls itself, directly or through others."""
    return bool(scope.recursive_here())


def _iterates(scope: JsScope) -> bool:
    if any(True for _ in _nodes(scope, *LOOP_KINDS)):
        return True
    return any(iterating_callback(f) for _, f in _nodes(scope, *FUNCTION_KINDS))


def iteration_only(scope: JsScope) -> bool:
    """Loops (or iterating array methods), and no recursion."""
    return _iterates(scope) and not recursion(scope)


def _container_stores(module: JsModule, node: SgNode) -> list[tuple[str, str]]:
    """(container, written index text) of `c[k] = v` and `c.set(k, v)` below `node`."""
    found: list[tuple[str, str]] = []
    for store in stores(module, node):
        root = subscript_root(module, store.target)
        if root is not None and store.op in (None, "="):
            found.append((root, flat(module, store.target)[len(root) :]))
    for call in module.nodes("call_expression", within=node):
        args = arguments(call)
        if member_name(call) == "set" and len(args) == 2:
            callee = bare(call.field("function"))
            owner = callee.field("object") if callee is not None else None
            if owner is not None:
                found.append((flat(module, owner), f"[{flat(module, args[0])}]"))
    return found


def _looked_up(module: JsModule, node: SgNode, container: str) -> bool:
    """`container` read below `node`: `c[k]` (not written), `c.get(k)`, `c.has(k)`, `k in c`."""
    name = re.escape(container)
    if re.search(rf"(?<![\w$.]){name}\.(get|has)\(|\bin {name}(?![\w$])", flat(module, node)):
        return True
    targets = {s.target for s in stores(module, node)}
    return any(
        subscript_root(module, n) == container
        and n not in targets
        and not any(outer in targets for outer in n.ancestors())
        for n in module.nodes("subscript_expression", within=node)
    )


def memoisation(scope: JsScope) -> bool:
    """A recursive function that looks results up in a container and stores them there."""
    for function in scope.recursive_here():
        body = function.body
        if body is None:
            continue
        for container, _ in _container_stores(function.module, body):
            if _looked_up(function.module, body, container):
                return True
    return False


def _entry_reads(module: JsModule, node: SgNode, container: str) -> set[str]:
    """Index texts (`[i-1][w]`) of the entries of `container` read below `node`."""
    found: set[str] = set()
    for n in module.nodes("subscript_expression", within=node):
        parent = n.parent()
        if (
            parent is not None
            and parent.kind() == "subscript_expression"
            and parent.field("object") == n
        ):
            continue  # `dp[i]` of `dp[i][j]`: the whole read is its parent's
        if subscript_root(module, n) == container:
            found.add(flat(module, n)[len(container) :])
    for call in module.nodes("call_expression", within=node):
        args = arguments(call)
        callee = bare(call.field("function"))
        owner = callee.field("object") if callee is not None else None
        if (
            member_name(call) == "get"
            and args
            and owner is not None
            and flat(module, owner) == container
        ):
            found.add(f"[{flat(module, args[0])}]")
    return found


def dynamic_programming(scope: JsScope) -> bool:
    """Memoisation, or a table filled in a loop from its other entries (`dp[i][w] =
    Math.max(dp[i - 1][w], ...)`); reading only the entry written is tallying."""
    if memoisation(scope):
        return True
    for module, loop in _nodes(scope, *LOOP_KINDS):
        for container, written in _container_stores(module, loop):
            reads = _entry_reads(module, loop, container)
            # Only reads of a prefix of the written index (dp[i] while writing dp[i][j])
            # are the entry itself.
            if any(not written.startswith(r) for r in reads):
                return True
    return False


_HALVES: Final = re.compile(r"\)(?:/2|>>>?1)(?!\d)")


def binary_search(scope: JsScope) -> bool:
    """A `while` loop (or a recursive function) halving a range around a midpoint."""
    for module, loop in _nodes(scope, "while_statement", "do_statement"):
        if _HALVES.search(flat(module, loop)):
            return True
    return any(
        f.body is not None and _HALVES.search(flat(f.module, f.body))
        for f in scope.recursive_here()
    )


_VISITS: Final = re.compile(
    r"\.(add|has|includes)\(|\bin [\w$]|\[[^\]]+\]=(true|1)\b|if\(!?[\w$.]+\[[^\]]+\]\)"
)


def _visits(module: JsModule, node: SgNode) -> bool:
    """Keeps a visited record: `seen.add(x)`, `seen.has(x)`, `visited[x] = true`,
    `if (!visited[x])`."""
    return bool(_VISITS.search(flat(module, node)))


def _takes(module: JsModule, loop: SgNode, front: bool) -> bool:
    """The loop takes items from a queue's front (`shift()`, `q[head++]`) or, with
    front=False, from a stack's top (`pop()`)."""
    for call in module.nodes("call_expression", within=loop):
        name = member_name(call)
        if front and name in ("shift", "dequeue", "poll") and not arguments(call):
            return True
        if not front and name == "pop" and not arguments(call):
            return True
    return front and bool(re.search(r"\[[\w$.]+\+\+\]", flat(module, loop)))


def bfs(scope: JsScope) -> bool:
    """A loop that takes nodes from a queue's front and records what it visited."""
    return any(
        _takes(module, loop, True) and _visits(module, loop)
        for module, loop in _nodes(scope, "while_statement", "do_statement", "for_statement")
    )


def dfs(scope: JsScope) -> bool:
    """A recursive function that records visited nodes, or a loop over a stack."""
    for function in scope.recursive_here():
        if function.body is not None and _visits(function.module, function.body):
            return True
    return any(
        _takes(module, loop, False) and _visits(module, loop)
        for module, loop in _nodes(scope, "while_statement", "do_statement")
    )


def _sorts(scope: JsScope) -> bool:
    return any(
        member_name(call) in ("sort", "toSorted") for _, call in _nodes(scope, "call_expression")
    )


def _swaps(scope: JsScope) -> bool:
    """Elements swapped inside nested loops: a sort written by hand."""
    return any(
        len(enclosing_loops(swap.statement)) >= 2
        for module, place in scope.code.places
        for swap in swaps(module, place)
    )


def sorting(scope: JsScope) -> bool:
    """The language's sort, or element swaps in nested loops."""
    return _sorts(scope) or _swaps(scope)


def _pops_queue(scope: JsScope) -> bool:
    """A priority queue's smallest (or largest) entry taken in a loop."""
    names = ("dequeue", "extractMin", "extractMax", "poll", "popMin", "popMax", "heappop")
    return any(member_name(call) in names for _, call in _nodes(scope, "call_expression"))


def greedy(scope: JsScope) -> bool:
    """Orders the candidates (a sort or a priority queue) and then decides in loops
    without backtracking, as Python's reading: some loop holds no other loop, and
    nothing recurses."""
    if not (_sorts(scope) or _pops_queue(scope)) or recursion(scope):
        return False
    for module, loop in _nodes(scope, *LOOP_KINDS):
        if not loops_in(module, loop):
            return True
    return any(iterating_callback(f) for _, f in _nodes(scope, *FUNCTION_KINDS))


JS_ALGORITHMS: Final[dict[str, Callable[[JsScope], bool]]] = {
    "recursion": recursion,
    "iteration-only": iteration_only,
    "memoisation": memoisation,
    "dynamic-programming": dynamic_programming,
    "binary-search": binary_search,
    "bfs": bfs,
    "dfs": dfs,
    "sorting": sorting,
    "greedy": greedy,
}

"""Prim's algorithm read in JavaScript and TypeScript, by the parts of its Python twin
(`graphs.py`): one tree grown by the lightest edge leaving it. The language has no heap
of its own, so the lightest edge is taken from a hand-written queue (a method popping
it: `dequeue`, `extractMin`, `poll`, `pop`, `shift`...) or from a key array scanned for
its smallest entry (`minKey`), and the keys are lowered by an edge's own weight (`if
(w < key[v]) key[v] = w`), never by a distance summed along a path (Dijkstra)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.named_algorithm.js_sorts import exclusive
from pytest_codeif.checks.named_algorithm.recogniser import Judgement, found, missing
from pytest_codeif.checks.shared.js_algorithms_parts import (
    JsCode,
    JsPlace,
    arguments,
    bare,
    enclosing_loops,
    flat,
    iterating_callback,
    loops_in,
    member_name,
    self_calls,
    shown,
    stores,
    subscript_root,
    where,
    within,
)
from pytest_codeif.checks.shared.js_functions import JsFunction
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Methods of a hand-written priority queue that take its smallest entry out.
POPS: Final = frozenset(
    {
        "dequeue",
        "extractMin",
        "extract",
        "poll",
        "pop",
        "shift",
        "heappop",
        "popMin",
        "deleteMin",
        "removeMin",
        "remove",
        "next",
    }
)
#: Methods that put an entry in.
PUSHES: Final = frozenset({"enqueue", "push", "insert", "add", "heappush", "offer", "put"})
_LOOPS: Final = ("for_statement", "for_in_statement", "while_statement", "do_statement")


def _sums(code: JsCode) -> set[str]:
    """Names bound to a sum (`const alt = d + w`): a candidate distance along a path."""
    return {
        flat(module, store.target)
        for module, scope in code.places
        for store in stores(module, scope)
        if store.target.kind() == "identifier"
        and store.value is not None
        and store.op is None
        and "+" in flat(module, store.value).replace("++", "")
    }


def _summed(text: str, sums: set[str]) -> bool:
    """Whether an expression adds (a distance along a path), `++` aside, itself or
    through a name bound to a sum."""
    if "+" in text.replace("++", ""):
        return True
    return any(re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", text) for name in sums)


#: A test that a vertex is not in the tree yet: `!inMST[v]`, `!seen.has(v)`.
_OUTSIDE: Final = re.compile(r"!\(?[\w$.]+(?:\[[^\]]+\]|\.(?:has|includes)\()")


def _key_updates(code: JsCode, *, summed: bool) -> list[tuple[JsPlace, str]]:
    """(place, table) of each `if (... w < key[v] ...) { key[v] = ... }`: a comparison
    with an entry of a table the branch then writes; `summed` picks a candidate that adds
    (`dist[u] + w`, Dijkstra's) or one that does not (an edge's own weight, Prim's, which
    also tests that the vertex is outside the tree: `!inMST[v] && w < key[v]`)."""
    found_updates = []
    sums = _sums(code)
    for module, branch in code.nodes("if_statement"):
        test, body = branch.field("condition"), branch.field("consequence")
        if test is None or body is None:
            continue
        written = {
            subscript_root(module, s.target)
            for s in stores(module, body)
            if s.target.kind() == "subscript_expression"
        }
        for comparison in module.nodes("binary_expression", within=test):
            operator = comparison.field("operator")
            op = operator.text() if operator is not None else ""
            left, right = bare(comparison.field("left")), bare(comparison.field("right"))
            if left is None or right is None:
                continue
            if op in (">", ">="):
                left, right = right, left
            elif op not in ("<", "<="):
                continue
            table = subscript_root(module, right)
            if table is None or table not in written:
                continue
            if _summed(flat(module, left), sums) != summed:
                continue
            if summed or _OUTSIDE.search(flat(module, test)):
                found_updates.append(((module, branch), table))
    return found_updates


def _smallest_scan(code: JsCode) -> JsPlace | None:
    """A loop over the vertices outside the tree keeping the smallest key or its index:
    `if (!inMST[v] && key[v] < min) { min = key[v]; best = v; }`, `if (!inMST[v] && (u
    === -1 || key[v] < key[u])) u = v`."""
    for module, loop in code.nodes("for_statement"):
        variable = _loop_variable(module, loop)
        if variable is None:
            continue
        for branch in module.nodes("if_statement", within=loop):
            test = flat(module, branch.field("condition"))
            if not re.search(
                rf"\[{re.escape(variable)}\]<|>[\w$.]+\[{re.escape(variable)}\]", test
            ) or not _OUTSIDE.search(test):
                continue
            for store in stores(module, branch):
                value = flat(module, store.value) if store.value is not None else ""
                if store.op is None and (value == variable or value.endswith(f"[{variable}]")):
                    return module, loop
    return None


def _loop_variable(module: JsModule, loop: SgNode) -> str | None:
    """`v` of `for (let v = ...; ...)`."""
    init = loop.field("initializer")
    if init is None:
        return None
    for declarator in module.nodes("variable_declarator", within=init):
        name = declarator.field("name")
        return flat(module, name) if name is not None else None
    return None


def _popped(code: JsCode) -> list[tuple[JsModule, SgNode, str]]:
    """(module, call, queue) of each call in a loop taking an entry out of a queue."""
    found_pops = []
    for module, call in code.nodes("call_expression"):
        if member_name(call) not in POPS or not enclosing_loops(call):
            continue
        callee = bare(call.field("function"))
        queue = callee.field("object") if callee is not None else None
        if queue is not None:
            found_pops.append((module, call, flat(module, queue)))
    return found_pops


def _visits(module: JsModule, loop: SgNode) -> bool:
    """The loop skips vertices already in the tree: `visited.has(v)`, `inMST[v]`,
    `.includes(v)`."""
    text = flat(module, loop)
    return bool(re.search(r"\.(has|includes)\(|if\(!?[\w$.]+\[[^\]]+\]\)", text))


def _grown_from_queue(code: JsCode) -> JsPlace | None:
    """A loop popping the queue and skipping visited vertices, with entries pushed on
    the same queue by their own weight (no sum)."""
    sums = _sums(code)
    pushes = [
        (module, call)
        for module, call in code.nodes("call_expression")
        if member_name(call) in PUSHES
    ]
    for module, pop, queue in _popped(code):
        loop = enclosing_loops(pop)[-1]
        if not _visits(module, loop):
            continue
        for m, push in pushes:
            callee = bare(push.field("function"))
            target = callee.field("object") if callee is not None else None
            if target is None or flat(m, target) != queue:
                continue
            pushed = "".join(flat(m, a) for a in arguments(push))
            if pushed and not _summed(pushed, sums):
                return module, pop
    return None


def _kruskal(code: JsCode) -> JsPlace | None:
    """Edges sorted and joined with a `find` over parents: Kruskal."""
    sorts = [p for p in code.nodes("call_expression") if member_name(p[1]) == "sort"]
    finds = [
        f for f in code.functions() if f.name and re.fullmatch(r"find\w*", f.name, re.IGNORECASE)
    ]
    return sorts[0] if sorts and finds else None


def prim(code: JsCode) -> Judgement:
    """One tree grown from a start vertex: the lightest edge leaving it taken from a
    queue (or a key array scanned for its smallest key), vertices in the tree skipped."""
    grown = _grown_from_queue(code)
    if grown:
        return found(
            f"grows the tree by the lightest edge leaving it, popped from a queue ({where(grown)})",
            grown,
        )
    keys = _key_updates(code, summed=False)
    scan = _smallest_scan(code)
    if keys and (scan or _popped(code)):
        place = keys[0][0]
        return found(
            f"picks the vertex with the smallest key and lowers its neighbours' keys to the "
            f"edge weights (`{keys[0][1]}`, {where(place)})",
            place,
        )
    summed = _key_updates(code, summed=True)
    if summed:
        return missing(
            f"lowers distances summed along paths ({where(summed[0][0])}): that is Dijkstra, "
            "not Prim's lightest edge",
            summed[0][0],
        )
    kruskal = _kruskal(code)
    if kruskal:
        return missing(
            f"sorts the edges ({where(kruskal)}) and joins components with a find over "
            "parents: that is Kruskal, not Prim",
            kruskal,
        )
    if keys:
        return missing(
            f"lowers keys to edge weights ({where(keys[0][0])}) but never picks the vertex "
            "with the smallest key",
            keys[0][0],
        )
    return missing("no lightest edge leaving the tree taken from a queue or a key array")


def _takes(module: JsModule, loop: SgNode, *, front: bool) -> SgNode | None:
    """A call taking from a queue's front (`shift()`, `dequeue()`, `poll()`) or, with
    front=False, from a stack's top (`pop()`); a queue read through a moving head
    (`queue[head++]`) is a front too."""
    for call in module.nodes("call_expression", within=loop):
        name = member_name(call)
        if arguments(call):
            continue
        if (front and name in ("shift", "dequeue", "poll")) or (not front and name == "pop"):
            return call
    if front:
        text = flat(module, loop)
        for read in module.nodes("subscript_expression", within=loop):
            index, queue = read.field("index"), subscript_root(module, read)
            if (
                index is not None
                and queue is not None
                and re.fullmatch(r"[\w$.]+\+\+", flat(module, index))
                and f"{queue}.push(" in text  # the queue grows as it is read: no merge
            ):
                return read
    return None


def _pushes(module: JsModule, loop: SgNode) -> bool:
    """The loop queues (or stacks) the neighbours of what it took: a `push` in a loop
    (or `forEach`) over them, `push(...graph[u])`, or a child (`push(node.left)`)."""
    for call in module.nodes("call_expression", within=loop):
        if member_name(call) not in ("push", "unshift", "enqueue", "add", "offer"):
            continue
        args = arguments(call)
        inner = enclosing_loops(call)
        if (inner and inner[0] != loop) or in_iteration_callback(call, loop):
            return True
        if args and (
            args[0].kind() in ("member_expression", "subscript_expression", "spread_element")
        ):
            return True
    return False


def in_iteration_callback(node: SgNode, loop: SgNode) -> bool:
    """Whether `node` runs in an iterating callback (`forEach`) inside `loop`."""
    for outer in node.ancestors():
        if outer == loop:
            return False
        if outer.kind() in ("arrow_function", "function_expression", "function"):
            return iterating_callback(outer)
    return False


def _level_frontier(module: JsModule, loop: SgNode) -> bool:
    """`while (frontier.length) { const next = []; ...; frontier = next; }`."""
    if loop.kind() != "while_statement":
        return False
    test = re.sub(r"^\((.*)\)$", r"\1", flat(module, loop.field("condition")))
    frontier = re.fullmatch(r"([\w$]+)\.length(?:>0|!==0|!=0)?", test)
    if frontier is None:
        return False
    return any(
        flat(module, s.target) == frontier.group(1)
        and s.op is None
        and s.value is not None
        and s.value.kind() == "identifier"
        for s in stores(module, loop)
    )


def _bfs(code: JsCode) -> tuple[str, JsPlace] | None:
    relaxations = [place for place, _ in _key_updates(code, summed=True)]
    for module, loop in code.nodes("while_statement", "do_statement", "for_statement"):
        taken = _takes(module, loop, front=True)
        # A queue sorted as it is emptied, or whose loop relaxes distances summed along
        # paths, is a priority queue (Dijkstra's), not a FIFO one.
        ordered = any(
            member_name(c) == "sort" for c in module.nodes("call_expression", within=loop)
        ) or any(m is module and within(loop, node) for m, node in relaxations)
        if taken is not None and not ordered and _pushes(module, loop):
            return (
                f"takes nodes from the front of a queue (`{shown(module, taken)}`) and queues "
                "their neighbours",
                (module, loop),
            )
        if _level_frontier(module, loop) and (_pushes(module, loop) or loops_in(module, loop)):
            return (
                "expands the graph one level at a time (the next frontier built from this one)",
                (module, loop),
            )
    return None


def _recursive_walk(function: JsFunction) -> SgNode | None:
    """A self-call on each neighbour or child: inside a loop (or `forEach`) over them, or
    on two children in turn (`walk(node.left)`, `walk(node.right)`)."""
    calls = self_calls(function)
    for call in calls:
        if enclosing_loops(call) or in_iteration_callback(call, function.node):
            return call
    on_children = [
        call
        for call in calls
        if any(a.kind() in ("member_expression", "subscript_expression") for a in arguments(call))
    ]
    for i, first in enumerate(on_children):
        for second in on_children[i + 1 :]:
            # Both run (a traversal), not one or the other (a descent: a BST insert).
            if flat(function.module, first) != flat(function.module, second) and not exclusive(
                first, second
            ):
                return first
    return None


def _dfs(code: JsCode) -> tuple[str, JsPlace] | None:
    for function in code.functions():
        call = _recursive_walk(function)
        if call is not None:
            return (
                f"recurses into each neighbour (`{shown(function.module, call)}`)",
                (function.module, call),
            )
    for module, loop in code.nodes("while_statement", "do_statement"):
        taken = _takes(module, loop, front=False)
        if taken is not None and _pushes(module, loop):
            return (
                f"pops nodes from a stack (`{shown(module, taken)}`) and pushes their neighbours",
                (module, loop),
            )
    return None


def bfs(code: JsCode) -> Judgement:
    """A loop taking nodes from a queue's front and queueing their neighbours, or
    expanding level by level."""
    breadth = _bfs(code)
    if breadth:
        return found(f"{breadth[0]} ({where(breadth[1])})", breadth[1])
    depth = _dfs(code)
    if depth:
        return missing(
            f"no queue taken from the front: {depth[0]} ({where(depth[1])}), depth-first", depth[1]
        )
    return missing("no loop taking nodes from the front of a queue and queueing their neighbours")


def dfs(code: JsCode) -> Judgement:
    """Recursion into each neighbour or child, or a loop popping a stack and pushing
    neighbours."""
    depth = _dfs(code)
    if depth:
        return found(f"{depth[0]} ({where(depth[1])})", depth[1])
    breadth = _bfs(code)
    if breadth:
        return missing(
            f"no recursion or stack: {breadth[0]} ({where(breadth[1])}), breadth-first",
            breadth[1],
        )
    return missing("no recursion into neighbours and no loop over a stack")


#: Methods of a priority queue that take its smallest entry out (not a FIFO's `shift`).
PRIORITY_POPS: Final = frozenset(
    {"dequeue", "extractMin", "extract", "poll", "heappop", "popMin", "deleteMin", "removeMin"}
)


def _nearest(code: JsCode) -> JsPlace | None:
    """The nearest unsettled node picked each round: a priority queue's pop
    (`dequeue()`, `extractMin()`...), `shift()`/`pop()` of a queue the same loop sorts,
    or a scan for the smallest distance outside the settled set."""
    for module, call, _ in _popped(code):
        name = member_name(call)
        loop = enclosing_loops(call)[-1]
        sorted_here = any(
            member_name(c) == "sort" for c in module.nodes("call_expression", within=loop)
        )
        if name in PRIORITY_POPS or (name in ("shift", "pop") and sorted_here):
            return module, call
    return _smallest_scan(code)


def dijkstra(code: JsCode) -> Judgement:
    """The nearest unsettled node picked each round (a priority queue, a queue kept
    sorted, or a scan for the smallest distance) and the distances through it relaxed
    (`if (d + w < dist[v]) dist[v] = d + w`)."""
    nearest = _nearest(code)
    relax = _key_updates(code, summed=True)
    if nearest and relax:
        return found(
            f"picks the nearest node (`{shown(*nearest)}`, {where(nearest)}) and relaxes "
            f"distances through it ({where(relax[0][0])})",
            relax[0][0],
        )
    if relax:
        for module, loop in code.nodes("while_statement", "do_statement"):
            taken = _takes(module, loop, front=True)
            if taken is not None and within(loop, relax[0][0][1]):
                return missing(
                    f"relaxes distances ({where(relax[0][0])}) but takes nodes in FIFO order "
                    f"from a plain queue (`{shown(module, taken)}`, {where((module, taken))}), "
                    "not the nearest first",
                    (module, taken),
                )
        return missing(
            f"relaxes distances ({where(relax[0][0])}) but never picks the nearest node first "
            "(no priority queue or smallest-distance scan): that is Bellman-Ford's repeated "
            "relaxation",
            relax[0][0],
        )
    grown = _grown_from_queue(code)
    if grown:
        return missing(
            f"queues edges by their own weight ({where(grown)}), not distances summed along "
            "paths: that is Prim",
            grown,
        )
    keys = _key_updates(code, summed=False)
    if nearest and keys:
        return missing(
            f"lowers keys to single edge weights ({where(keys[0][0])}), not distances summed "
            "along paths: that is Prim",
            keys[0][0],
        )
    return missing(
        "no nearest node picked each round with the distances through it relaxed "
        "(if (dist[u] + w < dist[v]) dist[v] = dist[u] + w)"
    )

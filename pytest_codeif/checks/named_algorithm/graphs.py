"""Graph recognisers: breadth- and depth-first search, Dijkstra, Bellman-Ford,
Floyd-Warshall, topological sort (Kahn or depth-first), union-find, Kruskal, Prim."""

from __future__ import annotations

import re
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    LOOPS,
    bindings,
    calling,
    enclosing,
    flat,
    in_loop,
    loops_in,
    method,
    positional,
    root,
    self_calls,
    shown,
    stores,
    within,
)
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Example,
    Judgement,
    Place,
    Recogniser,
    found,
    missing,
    where,
)
from pytest_codeif.checks.named_algorithm.sorts import exclusive, library_sort
from pytest_codeif.code.cst import ParsedModule


def _pops(module: ParsedModule, loop: cst.CSTNode, *, front: bool) -> cst.Call | None:
    """A call taking from a queue's front (`popleft()`, `pop(0)`, `get()`) or, with
    front=False, from a stack's top (`pop()`)."""
    for call in module.nodes(cst.Call, within=loop):
        name, args = method(call), positional(call)
        takes = (
            name == "popleft"
            or (name in ("get", "get_nowait") and not args)  # Queue.get(), not dict.get(k)
            or (name == "pop" and len(args) == 1 and flat(args[0]) == "0")
            if front
            else name == "pop" and not call.args
        )
        if takes and isinstance(call, cst.Call):
            return call
    return None


def _pushes(module: ParsedModule, loop: cst.CSTNode) -> bool:
    """The loop queues (or stacks) the neighbours of what it took: an `append`/`put`
    inside a loop over them, `extend(graph[u])`, or a child (`append(node.left)`)."""
    for call in module.nodes(cst.Call, within=loop):
        name = method(call)
        if name not in ("append", "put", "extend", "appendleft", "put_nowait"):
            continue
        args = positional(call)
        if name == "extend" or [n for n in loops_in(module, loop) if within(module, n, call)]:
            return True
        if args and isinstance(args[0], (cst.Attribute, cst.Subscript)):
            return True
    return False


def _visits(module: ParsedModule, node: cst.CSTNode) -> bool:
    """A visited record: `seen.add(x)`, a test `x in seen`, or `seen[x] = True`."""
    if any(method(c) == "add" for c in module.nodes(cst.Call, within=node)):
        return True
    for comparison in module.nodes(cst.Comparison, within=node):
        if any(isinstance(t.operator, (cst.In, cst.NotIn)) for t in comparison.comparisons):
            return True
    return re.search(r"\]=True", flat(node)) is not None


def _level_frontier(module: ParsedModule, loop: cst.While) -> bool:
    """`while frontier: ... frontier = next_level` with the next level built in the loop."""
    name = re.sub(r"^len\((.*)\)$", r"\1", flat(loop.test))
    if not re.fullmatch(r"\w+", name):
        return False
    for store in stores(module, loop.body):
        if flat(store.target) == name and store.op is None:
            built = flat(store.value)
            if isinstance(store.value, cst.ListComp) or re.fullmatch(r"\w+", built):
                return True
    return False


def _bfs(code: Code) -> tuple[str, Place] | None:
    for module, loop in code.of(cst.While):
        taken = _pops(module, loop, front=True)
        if taken is not None and _pushes(module, loop):
            return (
                f"takes nodes from the front of a queue (`{shown(taken)}`) and queues their "
                "neighbours",
                (module, loop),
            )
        if (_level_frontier(module, loop) and _pushes(module, loop)) or (
            _level_frontier(module, loop) and loops_in(module, loop)
        ):
            return (
                "expands the graph one level at a time (the next frontier built from this one)",
                (module, loop),
            )
    return None


def _recursive_walk(module: ParsedModule, function: cst.FunctionDef) -> cst.Call | None:
    """A self-call on each neighbour or child: inside a `for` loop over them, or on two
    children in turn (`walk(node.left)`, `walk(node.right)`)."""
    calls = self_calls(module, function)
    for call in calls:
        if any(within(module, function.body, f) for f in enclosing(module, call, (cst.For,))):
            return call
    on_children = [
        call
        for call in calls
        if any(isinstance(a, (cst.Attribute, cst.Subscript)) for a in positional(call))
    ]
    for i, first in enumerate(on_children):
        for second in on_children[i + 1 :]:
            # Both run (a traversal), not one or the other (a descent: a BST insert).
            if flat(first) != flat(second) and not exclusive(module, function, first, second):
                return first
    return None


def _dfs(code: Code) -> tuple[str, Place] | None:
    for module, function in code.functions():
        call = _recursive_walk(module, function)
        if call is not None:
            return f"recurses into each neighbour (`{shown(call)}`)", (module, call)
    for module, loop in code.nodes(cst.While):
        taken = _pops(module, loop, front=False)
        if taken is not None and _pushes(module, loop):
            return f"pops nodes from a stack (`{shown(taken)}`) and pushes their neighbours", (
                module,
                loop,
            )
    return None


def bfs(code: Code) -> Judgement:
    """A loop taking nodes from a queue's front and queueing their neighbours, or
    expanding level by level."""
    found_bfs = _bfs(code)
    if found_bfs:
        return found(f"{found_bfs[0]} ({where(found_bfs[1])})", found_bfs[1])
    depth = _dfs(code)
    if depth:
        return missing(
            f"no queue taken from the front: {depth[0]} ({where(depth[1])}), depth-first", depth[1]
        )
    return missing("no loop taking nodes from the front of a queue and queueing their neighbours")


def dfs(code: Code) -> Judgement:
    """Recursion into each neighbour or child, or a loop popping a stack and pushing
    neighbours."""
    depth = _dfs(code)
    if depth:
        return found(f"{depth[0]} ({where(depth[1])})", depth[1])
    breadth = _bfs(code)
    if breadth:
        return missing(
            f"no recursion or stack: {breadth[0]} ({where(breadth[1])}), breadth-first", breadth[1]
        )
    return missing("no recursion into neighbours and no loop over a stack")


def _sums(code: Code) -> set[str]:
    """Names bound to a sum (`nd = d + w`): a candidate distance along a path."""
    return {
        name
        for m, n in code.nodes(cst.Assign)
        for s in stores(m, n)
        for name, value in bindings(s)
        if "+" in flat(value)
    }


def _relaxations(code: Code, *, summed: bool = True) -> list[tuple[Place, str, cst.CSTNode]]:
    """(place, table, candidate) of each `if d + w < dist[v]: dist[v] = d + w` (or
    `dist[v] = min(dist[v], d + w)`); with summed=False the candidate is a single edge
    weight (Prim's `w < key[v]`)."""
    found_relaxations: list[tuple[Place, str, cst.CSTNode]] = []
    sums = _sums(code)
    for module, branch in code.of(cst.If):
        test = branch.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            continue
        operator = test.comparisons[0].operator
        left, right = test.left, test.comparisons[0].comparator
        if isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)):
            left, right = right, left
        elif not isinstance(operator, (cst.LessThan, cst.LessThanEqual)):
            continue
        if ("+" in flat(left) or flat(left) in sums) != summed:
            continue
        if isinstance(right, cst.Subscript):
            table = flat(right.value)
        elif isinstance(right, cst.Call) and method(right) == "get":
            table = flat(right.func).rsplit(".", 1)[0]  # dist.get(v, inf)
        else:
            continue
        if any(
            isinstance(s.target, cst.Subscript) and flat(s.target.value) == table
            for s in stores(module, branch.body)
        ):
            found_relaxations.append(((module, branch), table, left))
    for module, node in code.nodes(cst.Assign):
        for store in stores(module, node):
            value, target = store.value, store.target
            if (
                isinstance(target, cst.Subscript)
                and isinstance(value, cst.Call)
                and flat(value.func) == "min"
                and flat(target) in [flat(a) for a in positional(value)]
                and summed == any("+" in flat(a) for a in positional(value))
            ):
                candidate = next(a for a in positional(value) if flat(a) != flat(target))
                place = (module, store.statement)
                found_relaxations.append((place, flat(target.value), candidate))
    return found_relaxations


def _relaxation(code: Code, *, summed: bool = True) -> Place | None:
    relaxations = _relaxations(code, summed=summed)
    return relaxations[0][0] if relaxations else None


def _rounds(loop: cst.CSTNode) -> bool:
    """A loop repeating a count of rounds (`for _ in range(n - 1)`) or until nothing
    changes (`while changed:`)."""
    if isinstance(loop, cst.For):
        counted = flat(loop.iter)
        return counted.startswith("range(") and (
            counted.endswith("-1)") or flat(loop.target) == "_"
        )
    return isinstance(loop, cst.While) and isinstance(loop.test, cst.Name)


def _nearest(code: Code) -> Place | None:
    """The nearest node picked: `heappop` in a loop, a PriorityQueue's `get()`, or
    `min(..., key=...)` in a loop."""
    pops = [p for p in calling(code, "heapq.heappop") if in_loop(*p)]
    if pops:
        return pops[0]
    queues = {
        flat(s.target)
        for m, n in code.nodes(cst.Assign)
        for s in stores(m, n)
        if isinstance(s.value, cst.Call) and m.qualified(s.value.func) & {"queue.PriorityQueue"}
    }
    for module, call in code.of(cst.Call):
        if (
            method(call) == "get"
            and flat(call.func).rsplit(".", 1)[0] in queues
            and in_loop(module, call)
        ):
            return module, call
        if flat(call.func) == "min" and any(a.keyword for a in call.args) and in_loop(module, call):
            return module, call
    return None


def dijkstra(code: Code) -> Judgement:
    """The nearest unsettled node picked each round (a heap, a priority queue, or
    `min(..., key=dist)`) and the distances through it relaxed (`if d + w < dist[v]`)."""
    nearest = _nearest(code)
    relax = _relaxation(code)
    if nearest and relax:
        return found(
            f"picks the nearest node (`{shown(nearest[1])}`, {where(nearest)}) and relaxes "
            f"distances through it (`{shown(relax[1], 40)}`, {where(relax)})",
            relax,
        )
    if relax:
        breadth = _bfs(code)
        if breadth:
            return missing(
                f"relaxes distances ({where(relax)}) but takes nodes in FIFO order from a plain "
                f"queue ({where(breadth[1])}), not the nearest first",
                breadth[1],
            )
        return missing(
            f"relaxes distances ({where(relax)}) but never picks the nearest node first (no "
            "heap or minimum): that is Bellman-Ford's repeated relaxation",
            relax,
        )
    if nearest:
        return missing(
            f"picks nodes from a heap ({where(nearest)}) but relaxes no distance (d + w < dist[v])",
            nearest,
        )
    return missing("no nearest-first selection (heap) with relaxation of distances")


def bellman_ford(code: Code) -> Judgement:
    """Every edge relaxed in a loop repeated for a count of rounds (`for _ in range(n -
    1)`), with no nearest-first selection."""
    relax = _relaxation(code)
    if relax is None:
        return missing("no relaxation of distances (if dist[u] + w < dist[v])")
    nearest = _nearest(code)
    if nearest:
        return missing(
            f"picks the nearest node first ({where(nearest)}): that is Dijkstra, not "
            "Bellman-Ford's rounds over every edge",
            nearest,
        )
    for (module, node), table, candidate in _relaxations(code):
        # Bellman-Ford relaxes an edge from its tail's own distance: dist[u] + w.
        if not re.search(rf"(?<![\w.]){re.escape(table)}\[[^\]]+\](?!\[)", flat(candidate)):
            continue
        loops = enclosing(module, node, LOOPS)
        if len(loops) >= 2 and _rounds(loops[0]):
            header = loops[0]
            shown_header = (
                f"for {shown(header.target)} in {shown(header.iter)}"
                if isinstance(header, cst.For)
                else f"while {shown(header.test)}"
                if isinstance(header, cst.While)
                else "a loop"
            )
            return found(
                f"relaxes every edge ({where((module, node))}) in rounds repeated by "
                f"`{shown_header}` ({where((module, header))})",
                (module, node),
            )
    return missing(
        f"relaxes distances ({where(relax)}) but not every edge from its tail's distance in "
        "rounds repeated n - 1 times (or until nothing changes)",
        relax,
    )


def floyd_warshall(code: Code) -> Judgement:
    """Three nested loops updating `d[i][j]` through `d[i][k] + d[k][j]`."""
    for module, node in code.nodes(cst.BinaryOperation):
        match = re.fullmatch(r"([\w.]+)\[(\w+)\]\[(\w+)\]\+\1\[\3\]\[(\w+)\]", flat(node))
        if match and len(enclosing(module, node, (cst.For,))) >= 3:
            return found(
                f"updates paths through an intermediate vertex `{shown(node)}` in three nested "
                f"loops ({where((module, node))})",
                (module, node),
            )
    return missing("no update d[i][j] through d[i][k] + d[k][j] in three nested loops")


def _kahn(code: Code) -> Place | None:
    """In-degrees lowered as nodes are removed (`indegree[v] -= 1`) and nodes queued
    when theirs reaches zero."""
    for module, node in code.of(cst.AugAssign):
        if not (isinstance(node.operator, cst.SubtractAssign) and flat(node.value) == "1"):
            continue
        if not isinstance(node.target, cst.Subscript) or not in_loop(module, node):
            continue
        table = flat(node.target.value)
        zero = [
            c
            for c in module.nodes(cst.Comparison)
            if re.fullmatch(
                rf"{re.escape(table)}\[[^\]]+\]==0|0=={re.escape(table)}\[[^\]]+\]", flat(c)
            )
        ]
        if zero:
            return module, node
    return None


def _postorder(code: Code) -> Place | None:
    """Depth-first post-order: a recursive function appending its node after the loop
    over its neighbours, the order reversed somewhere."""
    reversed_somewhere = any(
        re.search(r"\[::-1\]|reversed\(|\.reverse\(\)|\.insert\(0,|\.appendleft\(", flat(tree))
        for tree in {id(m): m.tree for m, _ in code.places}.values()
    )
    for module, function in code.functions():
        recursion = _recursive_walk(module, function)
        if recursion is None:
            continue
        loop = next(
            (f for f in enclosing(module, recursion, (cst.For,)) if within(module, function, f)),
            None,
        )
        if loop is None:
            continue
        after = [
            c
            for c in module.nodes(cst.Call, within=function.body)
            if method(c) in ("append", "insert", "appendleft")
            and not within(module, loop, c)
            and module.line_of(c) > module.line_of(loop)
        ]
        if after and reversed_somewhere:
            return module, after[0]
    return None


def topological_sort(code: Code) -> Judgement:
    """Kahn's algorithm (in-degrees lowered, zero-in-degree nodes queued) or a
    depth-first post-order reversed; `graphlib` only with `allow-library`."""
    kahn_place = _kahn(code)
    if kahn_place:
        return found(
            f"Kahn's algorithm: lowers in-degrees (`{shown(kahn_place[1])}`, "
            f"{where(kahn_place)}) and "
            "queues nodes whose in-degree reaches zero",
            kahn_place,
        )
    post = _postorder(code)
    if post:
        return found(
            f"appends each node after its descendants and reverses the order ({where(post)})", post
        )
    return _topological_library(
        code, "no in-degree count (Kahn) and no reversed depth-first post-order"
    )


def _topological_library(code: Code, gap: str) -> Judgement:
    library = calling(code, "graphlib.TopologicalSorter")
    if library:
        if code.allow_library:
            return found(f"uses graphlib.TopologicalSorter ({where(library[0])})", library[0])
        return missing(f"{gap}: uses graphlib.TopologicalSorter ({where(library[0])})", library[0])
    return missing(gap)


def kahn(code: Code) -> Judgement:
    """In-degrees counted and lowered as nodes are removed, nodes queued when theirs
    reaches zero."""
    kahn_place = _kahn(code)
    if kahn_place:
        return found(
            f"lowers in-degrees (`{shown(kahn_place[1])}`, {where(kahn_place)}) and queues nodes "
            "whose in-degree reaches zero",
            kahn_place,
        )
    post = _postorder(code)
    if post:
        return missing(
            f"no in-degrees: a depth-first post-order ({where(post)}), not Kahn's algorithm", post
        )
    return _topological_library(code, "no in-degrees lowered as nodes are removed")


def _finds(code: Code) -> dict[str, tuple[ParsedModule, cst.FunctionDef, str]]:
    """Functions that follow parent links to a root: name -> (module, function, parents)."""
    found_finds = {}
    for module, function in code.functions():
        params = [
            p for p in (n.name.value for n in function.params.params) if p not in ("self", "cls")
        ]
        if not params:
            continue
        x = params[0]
        text = flat(function.body)
        match = re.search(rf"([\w.]+)\[{x}\](?:!=|==){x}|{x}(?:!=|==)([\w.]+)\[{x}\]", text)
        if not match:
            continue
        parents = match.group(1) or match.group(2)
        follows = re.search(rf"{x}={re.escape(parents)}\[{x}\]", text) or any(
            flat(a) == f"{parents}[{x}]"
            for c in self_calls(module, function)
            for a in positional(c)
        )
        if follows:
            found_finds[function.name.value] = (module, function, parents)
    return found_finds


def _bound_from(code: Code, functions: set[str]) -> set[str]:
    """The names bound to the result of a call to one of `functions` (`ra = find(a)`)."""
    roots = set()
    for module, node in code.nodes(cst.Assign):
        for store in stores(module, node):
            for bound, value in bindings(store):
                if isinstance(value, cst.Call) and flat(value.func).split(".")[-1] in functions:
                    roots.add(bound)
    return roots


def union_find(code: Code) -> Judgement:
    """A `find` following parent links to the root (a loop or recursion on
    `parent[x]`), and a union linking one root under another (`parent[ra] = rb`)."""
    finds = _finds(code)
    for name, (module, function, parents) in finds.items():
        roots = _bound_from(code, {name})
        for m, node in code.nodes(cst.Assign):
            for store in stores(m, node):
                target = store.target
                if (
                    isinstance(target, cst.Subscript)
                    and flat(target.value).split(".")[-1] == parents.split(".")[-1]
                ):
                    index = flat(target.slice[0].slice)
                    if index in roots or f"{name}(" in index:
                        extras = []
                        if re.search(
                            rf"{re.escape(parents)}\[\w+\]=({name}|\w+\.{name})\(|{re.escape(parents)}\[{re.escape(parents)}\[",
                            flat(function.body),
                        ):
                            extras.append("path compression")
                        if re.search(r"rank|size", flat(m.tree)):
                            extras.append("union by rank or size")
                        extra = f" ({', '.join(extras)})" if extras else ""
                        return found(
                            f"`{name}` follows `{parents}` links to the root "
                            f"({where((module, function))}) "
                            f"and `{shown(store.statement)}` links two roots "
                            f"({where((m, store.statement))}){extra}",
                            (m, store.statement),
                        )
        return missing(
            f"`{name}` follows parent links ({where((module, function))}) but no union links one "
            "root under another",
            (module, function),
        )
    for module, loop in code.nodes(cst.For):
        for branch in module.nodes(cst.If, within=loop):
            if (
                isinstance(branch.test, cst.Comparison)
                and any(isinstance(s.target, cst.Subscript) for s in stores(module, branch.body))
                and re.fullmatch(r"[\w.]+\[\w+\]==\w+", flat(branch.test))
            ):
                return missing(
                    f"no parent links followed to a root: relabels every member in a loop "
                    f"({where((module, loop))}), that is quick-find",
                    (module, loop),
                )
    return missing("no find following parent links to a root (while parent[x] != x: x = parent[x])")


def kruskal(code: Code) -> Judgement:
    """Edges sorted by weight and taken in order when a union-find `find` shows their
    ends in different components."""
    finds = _finds(code)
    ordered = library_sort(code)
    if finds and ordered:
        roots = _bound_from(code, set(finds))
        for module, branch in code.of(cst.If):
            test = flat(branch.test)
            compares_roots = (
                sum(1 for r in roots if re.search(rf"(?<![\w.]){re.escape(r)}(?!\w)", test)) >= 2
            )
            if (any(f"{name}(" in test for name in finds) or compares_roots) and in_loop(
                module, branch
            ):
                return found(
                    f"sorts the edges ({where(ordered)}) and keeps an edge when "
                    f"`{shown(branch.test)}` "
                    f"({where((module, branch))})",
                    (module, branch),
                )
            if re.search(r"union\(", test) and in_loop(module, branch):
                return found(
                    f"sorts the edges ({where(ordered)}) and unions their ends "
                    f"({where((module, branch))})",
                    (module, branch),
                )
    grown = _prim(code)
    if grown:
        return missing(
            f"grows one tree from a start vertex with a heap ({where(grown)}): that is Prim", grown
        )
    if not finds:
        return missing("no union-find (find following parent links) over edges sorted by weight")
    return missing(
        "no loop over the edges sorted by weight, kept when find() shows different components"
    )


def _prim(code: Code) -> Place | None:
    """A heap of edges popped in a loop, visited vertices skipped, and edges pushed with
    their own weight (not a distance sum); or key updates `if w < key[v]`."""
    pops = [p for p in calling(code, "heapq.heappop") if in_loop(*p)]
    pushes = calling(code, "heapq.heappush")
    sums = _sums(code)  # pushed first, a sum is a path distance (Dijkstra)
    for module, pop in pops:
        loop = enclosing(module, pop, LOOPS)[-1]
        if not isinstance(loop, cst.While) or not _visits(module, loop):
            continue
        # A table written in the loop (dist[v] = ...) holds distances, not edge weights.
        tables = {
            root(s.target) for s in stores(module, loop) if isinstance(s.target, cst.Subscript)
        }
        for m, push in pushes:
            args = positional(push)
            pushed = args[1] if len(args) == 2 else None
            if (
                isinstance(pushed, cst.Tuple)
                and pushed.elements
                and "+" not in flat(pushed.elements[0].value)
                and flat(pushed.elements[0].value) not in sums
                and root(pushed.elements[0].value) not in tables
                and within(m, loop, push)
            ):
                return module, pop
    key = _relaxation(code, summed=False)
    if key and _nearest(code):
        return key
    return None


def prim(code: Code) -> Judgement:
    """One tree grown from a start vertex: the lightest edge leaving it taken from a heap
    (or a key array), vertices already in the tree skipped."""
    grown = _prim(code)
    if grown:
        return found(f"grows the tree by the lightest edge leaving it ({where(grown)})", grown)
    relax = _relaxation(code)
    if relax and _nearest(code):
        return missing(
            f"the heap holds distances summed along paths ({where(relax)}): that is Dijkstra, "
            "not Prim's lightest edge",
            relax,
        )
    if _finds(code):
        return missing(
            "joins components with union-find over sorted edges: that is Kruskal, not Prim"
        )
    return missing("no lightest edge leaving the tree taken from a heap or key array")


_GRAPH_BFS = """
from collections import deque

def reachable(graph, start):
    seen, queue = {start}, deque([start])
    while queue:
        node = queue.popleft()
        for nxt in graph[node]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen
"""
_GRAPH_DFS = """
def reachable(graph, node, seen=None):
    seen = set() if seen is None else seen
    seen.add(node)
    for nxt in graph[node]:
        if nxt not in seen:
            reachable(graph, nxt, seen)
    return seen
"""
_DIJKSTRA = """
import heapq

def shortest(graph, start):
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist.get(u, float("inf")):
            continue
        for v, w in graph[u]:
            if d + w < dist.get(v, float("inf")):
                dist[v] = d + w
                heapq.heappush(heap, (d + w, v))
    return dist
"""
_BELLMAN = """
def shortest(nodes, edges, start):
    dist = {n: float("inf") for n in nodes}
    dist[start] = 0
    for _ in range(len(nodes) - 1):
        for u, v, w in edges:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist
"""
_UNION_FIND = """
class DisjointSet:
    def __init__(self, n):
        self.parent = list(range(n))

    def find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb
"""
_KRUSKAL = """
def mst(n, edges):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    total = 0
    for w, u, v in sorted(edges):
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            total += w
    return total
"""
_PRIM = """
import heapq

def mst(graph, start):
    seen, total, heap = set(), 0, [(0, start)]
    while heap:
        w, u = heapq.heappop(heap)
        if u in seen:
            continue
        seen.add(u)
        total += w
        for v, weight in graph[u]:
            if v not in seen:
                heapq.heappush(heap, (weight, v))
    return total
"""
_KAHN = """
from collections import deque

def order(graph):
    indegree = {u: 0 for u in graph}
    for u in graph:
        for v in graph[u]:
            indegree[v] += 1
    queue = deque(u for u in graph if indegree[u] == 0)
    out = []
    while queue:
        u = queue.popleft()
        out.append(u)
        for v in graph[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                queue.append(v)
    return out
"""
_POSTORDER = """
def order(graph):
    seen, out = set(), []

    def visit(u):
        seen.add(u)
        for v in graph[u]:
            if v not in seen:
                visit(v)
        out.append(u)

    for u in graph:
        if u not in seen:
            visit(u)
    return out[::-1]
"""

RECOGNISERS: Final = (
    Recogniser(
        "bfs",
        "breadth-first search",
        "a loop taking nodes from a queue's front (`popleft()`, `pop(0)`, `get()`) and "
        "queueing their neighbours, or expanding one level (frontier) at a time",
        bfs,
        ("breadth first search", "breadth first", "bfs traversal", "level order traversal"),
        satisfied=(Example(_GRAPH_BFS),),
        violated=(Example(_GRAPH_DFS, "depth-first"),),
    ),
    Recogniser(
        "dfs",
        "depth-first search",
        "recursion into each neighbour or child (a self-call in the loop over neighbours, or "
        "on `node.left`), or a loop popping a stack's top and pushing neighbours",
        dfs,
        ("depth first search", "depth first", "dfs traversal"),
        satisfied=(
            Example(_GRAPH_DFS),
            Example(
                """
                def reachable(graph, start):
                    seen, stack = set(), [start]
                    while stack:
                        node = stack.pop()
                        if node not in seen:
                            seen.add(node)
                            stack.extend(graph[node])
                    return seen
                """
            ),
        ),
        violated=(Example(_GRAPH_BFS, "breadth-first"),),
    ),
    Recogniser(
        "dijkstra",
        "Dijkstra's algorithm",
        "the nearest unsettled node picked each round (`heappop`, a PriorityQueue's `get()`, "
        "or `min(..., key=dist)` in a loop) and distances relaxed through it (`if d + w < "
        "dist[v]: dist[v] = d + w`)",
        dijkstra,
        ("dijkstra shortest path", "dijkstras", "dijkstra shortest paths"),
        satisfied=(Example(_DIJKSTRA),),
        violated=(Example(_BELLMAN, "that is Bellman-Ford"),),
    ),
    Recogniser(
        "bellman-ford",
        "the Bellman-Ford algorithm",
        "distances relaxed over every edge in a loop repeated for a count of rounds "
        "(`for _ in range(n - 1)`)",
        bellman_ford,
        ("bellman ford", "bellman ford shortest path"),
        satisfied=(Example(_BELLMAN),),
        violated=(Example(_DIJKSTRA, "that is Dijkstra"),),
    ),
    Recogniser(
        "floyd-warshall",
        "the Floyd-Warshall algorithm",
        "three nested loops updating `d[i][j]` through `d[i][k] + d[k][j]`",
        floyd_warshall,
        ("floyd warshall", "all pairs shortest paths floyd", "floyd warshall shortest paths"),
        satisfied=(
            Example(
                """
                def all_pairs(d):
                    n = len(d)
                    for k in range(n):
                        for i in range(n):
                            for j in range(n):
                                d[i][j] = min(d[i][j], d[i][k] + d[k][j])
                    return d
                """
            ),
        ),
        violated=(Example(_DIJKSTRA, "no update d[i][j]"),),
    ),
    Recogniser(
        "topological-sort",
        "a topological sort",
        "Kahn's algorithm (in-degrees lowered as nodes are removed, nodes queued at zero) or a "
        "depth-first post-order, reversed; `graphlib` only with `allow-library`",
        topological_sort,
        ("topological sort", "topological sorting", "topological order", "toposort"),
        satisfied=(Example(_KAHN), Example(_POSTORDER)),
        violated=(
            Example(
                """
                import graphlib

                def order(graph):
                    return list(graphlib.TopologicalSorter(graph).static_order())
                """,
                "uses graphlib.TopologicalSorter",
            ),
        ),
    ),
    Recogniser(
        "kahn",
        "Kahn's algorithm",
        "in-degrees counted and lowered as nodes are removed, nodes queued when theirs "
        "reaches zero",
        kahn,
        ("kahn topological sort", "kahn algorithm topological"),
        satisfied=(Example(_KAHN),),
        violated=(Example(_POSTORDER, "a depth-first post-order"),),
    ),
    Recogniser(
        "union-find",
        "union-find",
        "a `find` following parent links to the root (a loop or recursion on `parent[x]`) and "
        "a union linking one root under another (`parent[ra] = rb`); relabelling every "
        "member (quick-find) is the near miss",
        union_find,
        (
            "union find",
            "disjoint set",
            "disjoint set union",
            "dsu",
            "disjoint sets",
            "union find data structure",
        ),
        satisfied=(Example(_UNION_FIND),),
        violated=(
            Example(
                """
                class Components:
                    def __init__(self, n):
                        self.label = list(range(n))

                    def union(self, a, b):
                        old, new = self.label[a], self.label[b]
                        for i in range(len(self.label)):
                            if self.label[i] == old:
                                self.label[i] = new
                """,
                "that is quick-find",
            ),
        ),
    ),
    Recogniser(
        "kruskal",
        "Kruskal's algorithm",
        "edges sorted by weight and kept when a union-find `find` shows their ends in "
        "different components",
        kruskal,
        ("kruskal mst", "kruskal minimum spanning tree", "kruskals"),
        satisfied=(Example(_KRUSKAL),),
        violated=(Example(_PRIM, "that is Prim"),),
    ),
    Recogniser(
        "prim",
        "Prim's algorithm",
        "one tree grown from a start vertex: the lightest edge leaving it popped from a heap "
        "(pushed with its own weight, not a summed distance), vertices in the tree skipped",
        prim,
        ("prim mst", "prim minimum spanning tree", "prims"),
        satisfied=(Example(_PRIM),),
        violated=(Example(_DIJKSTRA, "that is Dijkstra"), Example(_KRUSKAL, "that is Kruskal")),
    ),
)

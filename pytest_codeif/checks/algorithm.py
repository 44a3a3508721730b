"""The `algorithm` check: the code is built with a named algorithmic technique, as far as
its structure shows it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.js_algorithms import JS_ALGORITHMS, JsScope
from pytest_codeif.checks.shared.js_algorithms_parts import JsCode
from pytest_codeif.checks.shared.js_functions import (
    find_js_function,
    recursive_js_functions,
    require_js_function,
)
from pytest_codeif.checks.shared.recursion import recursive_functions
from pytest_codeif.checks.shared.structure import (
    code_of,
    find_function,
    require_forbid_schema,
    scopes,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

_RULE = "algorithm"
Places = list[tuple[ParsedModule, cst.CSTNode]]


@dataclass(frozen=True)
class Scope:
    """Where to look, and (found once per evaluation) which functions are recursive."""

    places: Places
    recursive: frozenset[int]  # ids of recursive FunctionDef nodes


_MEMO_DECORATORS: Final = frozenset({"functools.lru_cache", "functools.cache"})
_LOOPS = (cst.For, cst.While)


def _nodes(places: Places) -> Iterable[tuple[ParsedModule, cst.CSTNode]]:
    for module, scope in places:
        for node in module.walk(scope):
            yield module, node


def _calls(places: Places, names: frozenset[str]) -> bool:
    return any(
        isinstance(node, (cst.Call, cst.Decorator))
        and module.qualified(
            node.decorator.func
            if isinstance(node, cst.Decorator) and isinstance(node.decorator, cst.Call)
            else (node.decorator if isinstance(node, cst.Decorator) else node.func)
        )
        & names
        for module, node in _nodes(places)
    )


def _container(node: cst.BaseExpression) -> str | None:
    """`memo` for `memo[...]`, `dp[i][j]`, and `self.memo` for `self.memo[...]`."""
    return _root(node) if isinstance(node, cst.Subscript) else None


def _stores(places: Places) -> list[tuple[str, cst.Assign]]:
    """(container, assignment) for each `c[...] = value`."""
    found = []
    for _, node in _nodes(places):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                name = _container(target.target)
                if name:
                    found.append((name, node))
    return found


def _reads(module: ParsedModule, node: cst.CSTNode, name: str) -> bool:
    return any(
        isinstance(n, cst.Subscript) and _container(n) == name for n in module.walk(node)
    ) or any(
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "get"
        and cst.Module([]).code_for_node(n.func.value) == name
        for n in module.walk(node)
    )


def _membership_tests(places: Places) -> set[str]:
    """Containers tested with `in` / `not in` (`if n in memo`)."""
    found: set[str] = set()
    for _, node in _nodes(places):
        if isinstance(node, cst.Comparison):
            for comp in node.comparisons:
                if isinstance(comp.operator, (cst.In, cst.NotIn)):
                    found.add(cst.Module([]).code_for_node(comp.comparator))
    return found


def memoisation(scope: Scope) -> bool:
    """`@lru_cache`/`@cache`, or a recursive function that looks results up in a
    container (`if n in memo` / `memo.get`) and stores them (`memo[n] = ...`)."""
    places = scope.places
    if _calls(places, _MEMO_DECORATORS):
        return True
    recursive = scope.recursive
    looked_up = _membership_tests(places)
    for module, node in _nodes(places):
        if not (isinstance(node, cst.FunctionDef) and id(node) in recursive):
            continue
        own: Places = [(module, node)]
        for name, _ in _stores(own):
            if name in looked_up or _reads(module, node.body, name):
                return True
    return False


def _entry_reads(module: ParsedModule, scope: cst.CSTNode, name: str) -> set[str]:
    """Index texts (`[i - 1][w]`) of the entries of `name` read in `scope`
    (subscripts and `name.get(key)`)."""
    found: set[str] = set()
    for node in module.walk(scope):
        if isinstance(node, cst.Subscript) and _root(node) == name:
            found.add(code_of(node)[len(name) :].replace(" ", ""))
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "get"
            and node.args
            and code_of(node.func.value) == name
        ):
            found.add(f"[{code_of(node.args[0].value)}]".replace(" ", ""))
    return found


def dynamic_programming(scope: Scope) -> bool:
    """Memoisation, or a table filled in a loop from its other entries (`dp[i][w] =
    max(dp[i - 1][w], ...)`). Reading only the entry being written (`count[k] =
    count.get(k, 0) + 1`) is tallying, not dynamic programming."""
    places = scope.places
    if memoisation(scope):
        return True
    for module, node in _nodes(places):
        if not isinstance(node, _LOOPS):
            continue
        for name, store in _stores([(module, node)]):
            for target in store.targets:
                written = code_of(target.target)[len(name) :].replace(" ", "")
                reads = _entry_reads(module, node, name)
                # Only reads of a prefix of the written index (dp[i] while writing
                # dp[i][j]) are the entry itself.
                if any(not written.startswith(r) for r in reads):
                    return True
    return False


def _root(node: cst.BaseExpression) -> str | None:
    while isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return f"{node.value.value}.{node.attr.value}"
    return None


def _halves(node: cst.CSTNode) -> bool:
    """`(lo + hi) // 2`, `lo + (hi - lo) // 2`, `(lo + hi) >> 1`."""
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, (cst.FloorDivide, cst.RightShift))
        and isinstance(node.right, cst.Integer)
        and node.right.value in ("2", "1")
        and isinstance(node.left, cst.BinaryOperation)
    )


def binary_search(scope: Scope) -> bool:
    """`bisect` functions, or a loop (or recursion) that halves a range around a midpoint."""
    places = scope.places
    if _calls(
        places,
        frozenset(
            {
                f"bisect.{n}"
                for n in (
                    "bisect",
                    "bisect_left",
                    "bisect_right",
                    "insort",
                    "insort_left",
                    "insort_right",
                )
            }
        ),
    ):
        return True
    recursive = scope.recursive
    for module, node in _nodes(places):
        if (
            isinstance(node, cst.While)
            or (isinstance(node, cst.FunctionDef) and id(node) in recursive)
        ) and any(_halves(n) for n in module.walk(node)):
            return True
    return False


def _pops(module: ParsedModule, loop: cst.While, front: bool) -> bool:
    """The loop takes items from a queue's front (`popleft()`, `pop(0)`, `get()`) or,
    with front=False, from a stack's top (`pop()`)."""
    for node in module.walk(loop):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method, args = node.func.attr.value, node.args
            if front and (
                method in ("popleft", "get", "get_nowait")
                or (
                    method == "pop"
                    and len(args) == 1
                    and isinstance(args[0].value, cst.Integer)
                    and args[0].value.value == "0"
                )
                or module.qualified(node.func) & {"heapq.heappop"}
            ):
                return True
            if not front and method == "pop" and not args:
                return True
    return False


def _visits(module: ParsedModule, node: cst.CSTNode) -> bool:
    """Keeps a visited record: `seen.add(x)`, `seen[x] = True`, or tests `x in seen`."""
    for n in module.walk(node):
        if (
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "add"
        ):
            return True
        if isinstance(n, cst.Comparison) and any(
            isinstance(c.operator, (cst.In, cst.NotIn)) for c in n.comparisons
        ):
            return True
        if (
            isinstance(n, cst.Assign)
            and isinstance(n.targets[0].target, cst.Subscript)
            and isinstance(n.value, cst.Name)
            and n.value.value == "True"
        ):
            return True
    return False


def bfs(scope: Scope) -> bool:
    """A loop that takes nodes from a queue's front and records what it visited."""
    places = scope.places
    return any(
        isinstance(node, cst.While) and _pops(module, node, True) and _visits(module, node)
        for module, node in _nodes(places)
    )


def dfs(scope: Scope) -> bool:
    """A recursive function that records visited nodes, or a loop over a stack."""
    places = scope.places
    recursive = scope.recursive
    for module, node in _nodes(places):
        if isinstance(node, cst.FunctionDef) and id(node) in recursive and _visits(module, node):
            return True
        if isinstance(node, cst.While) and _pops(module, node, False) and _visits(module, node):
            return True
    return False


_SORTS = frozenset({"builtins.sorted", "heapq.nsmallest", "heapq.nlargest"})


def _sorts(places: Places) -> bool:
    return _calls(places, _SORTS) or any(
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "sort"
        for _, node in _nodes(places)
    )


def _swaps(places: Places) -> bool:
    """`a[i], a[j] = a[j], a[i]` inside nested loops: a sort written by hand."""
    for module, node in _nodes(places):
        if isinstance(node, _LOOPS):
            for inner in module.walk(node):
                if inner is not node and isinstance(inner, _LOOPS):
                    for n in module.walk(inner):
                        if (
                            isinstance(n, cst.Assign)
                            and isinstance(n.targets[0].target, cst.Tuple)
                            and all(
                                isinstance(e.value, cst.Subscript)
                                for e in n.targets[0].target.elements
                            )
                        ):
                            return True
    return False


def sorting(scope: Scope) -> bool:
    """Sorts: `sorted()`, `.sort()`, `heapq.nsmallest/nlargest`, or a hand-written sort
    (element swaps in nested loops)."""
    places = scope.places
    return _sorts(places) or _swaps(places)


def greedy(scope: Scope) -> bool:
    """Orders the candidates (sort or heap) and then decides in loops without
    backtracking: some loop holds no other loop, and nothing recurses. A loop inside the
    deciding loop (taking an item while it fits) is still greedy; recursion is search."""
    places = scope.places
    if not (_sorts(places) or _calls(places, frozenset({"heapq.heappop"}))):
        return False
    recursive = scope.recursive
    if any(id(scope) in recursive for _, scope in places):
        return False
    for module, node in _nodes(places):
        if isinstance(node, _LOOPS) and not any(
            n is not node and isinstance(n, _LOOPS) for n in module.walk(node)
        ):
            return True
    return False


def iteration_only(scope: Scope) -> bool:
    """Loops, and no recursion."""
    places = scope.places
    recursive = scope.recursive
    loops = any(isinstance(node, _LOOPS) for _, node in _nodes(places))
    return loops and not any(
        isinstance(node, cst.FunctionDef) and id(node) in recursive for _, node in _nodes(places)
    )


def recursion(scope: Scope) -> bool:
    """A function that calls itself, directly or through others."""
    places = scope.places
    recursive = scope.recursive
    return any(
        isinstance(node, cst.FunctionDef) and id(node) in recursive for _, node in _nodes(places)
    )


ALGORITHMS: Final[dict[str, Callable[[Scope], bool]]] = {
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


class AlgorithmCheck(Check):
    """The code uses an algorithmic technique, recognised from its structure.

    Why: "solve it with dynamic programming", "use binary search", "traverse it breadth
    first" ask for a technique. Each is recognised by the structure that makes it:
    recursion (direct or mutual); iteration-only (loops and no recursion); memoisation
    (`@lru_cache`/`@cache`, or a recursive function that looks results up in a
    container and stores them); dynamic-programming (memoisation, or a table filled in a
    loop from its own entries: `dp[i] = dp[i - 1] + ...`); binary-search (`bisect`, or
    a loop or recursion halving a range: `(lo + hi) // 2`); bfs (a loop taking nodes
    from a queue's front: `popleft()`, `pop(0)`, `get()`, and keeping a visited
    record); dfs (recursion or a loop popping a stack, with a visited record); sorting
    (`sorted`, `.sort()`, `heapq.nsmallest`, or swaps in nested loops); greedy (sorts or
    uses a heap, then decides in loops without backtracking: no recursion; a loop
    nested in the deciding loop, taking an item while it fits, is still greedy). An algorithm an
    instruction names (Miller-Rabin, Kadane, merge sort, Dijkstra, a B-tree...) is the
    `named-algorithm` check's business: it recognises each by the parts that make it.

    JavaScript and TypeScript code is read by the same structure, in the language's
    words (`shared/js_algorithms.py`): `memo.has(n)` / `memo.set(n, v)` for memoisation,
    `Math.floor((lo + hi) / 2)` or `(lo + hi) >> 1` for binary search, `queue.shift()`
    for a queue's front and `stack.pop()` for a stack's top, `sort()` / `toSorted()` for
    sorting, a hand-written priority queue's `dequeue()` / `extractMin()` for greedy;
    array methods iterating a callback (`forEach`, `map`, `reduce`) count as loops.

    Options: `require` (list of the names above), `forbid` (same), `function` (only
    look inside this function).

    Example:

        - check: algorithm
          function: lis
          require: [dynamic-programming]
          forbid: [recursion]
    """

    name = "algorithm"
    category = "Algorithm"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Build the code on the technique the task names, in the structure that makes it (a table "
        "filled from its own entries for dynamic programming, a halving range for binary search, "
        "a queue and a visited set for BFS), and remove the techniques it forbids."
    )
    options_schema: ClassVar[Mapping[str, Any]] = require_forbid_schema(list(ALGORITHMS))
    satisfied_by = (
        Sample(
            "def knap(ws, vs, cap):\n    dp = [[0] * (cap + 1) for _ in ws + [0]]\n"
            "    for i in range(1, len(ws) + 1):\n        for w in range(cap + 1):\n"
            "            dp[i][w] = dp[i - 1][w]\n            if ws[i - 1] <= w:\n"
            "                dp[i][w] = max(dp[i][w], dp[i - 1][w - ws[i - 1]] + vs[i - 1])\n"
            "    return dp[-1][cap]\n",
            {"require": ["dynamic-programming"]},
        ),
        Sample(
            "def lis(xs):\n    dp = [1] * len(xs)\n    for i in range(len(xs)):\n"
            "        for j in range(i):\n            if xs[j] < xs[i]:\n"
            "                dp[i] = max(dp[i], dp[j] + 1)\n    return max(dp, default=0)\n",
            {"require": ["dynamic-programming", "iteration-only"], "forbid": ["recursion"]},
        ),
        Sample(
            "def fib(n, memo={}):\n    if n in memo:\n        return memo[n]\n"
            "    memo[n] = n if n < 2 else fib(n - 1) + fib(n - 2)\n    return memo[n]\n",
            {"require": ["memoisation", "dynamic-programming", "recursion"]},
        ),
        Sample(
            "def find(xs, x):\n    lo, hi = 0, len(xs) - 1\n    while lo <= hi:\n"
            "        mid = (lo + hi) // 2\n        if xs[mid] < x:\n            lo = mid + 1\n"
            "        else:\n            hi = mid - 1\n    return lo\n",
            {"require": ["binary-search"]},
        ),
        Sample(
            "from collections import deque\n\ndef bfs(g, s):\n    seen = {s}\n"
            "    q = deque([s])\n    while q:\n        n = q.popleft()\n"
            "        for m in g[n]:\n            if m not in seen:\n"
            "                seen.add(m)\n                q.append(m)\n    return seen\n",
            {"require": ["bfs"], "forbid": ["dfs"]},
        ),
        Sample(
            "def pick(items, cap):\n    total = 0\n"
            "    for w in sorted(items):\n        if total + w <= cap:\n"
            "            total += w\n    return total\n",
            {"require": ["greedy", "sorting"]},
        ),
        # JavaScript and TypeScript, read by the same structure (`shared/js_algorithms.py`).
        Sample(
            """
            function pick(items, cap) {
              let total = 0;
              for (const w of [...items].sort((a, b) => a - b)) {
                if (total + w <= cap) total += w;
              }
              return total;
            }
            """,
            {"require": ["greedy", "sorting", "iteration-only"], "forbid": ["recursion"]},
            language="javascript",
        ),
        Sample(
            """
            export class Planner {
              plan(jobs: { gain: number; cost: number }[], budget: number): number {
                const ranked = jobs.toSorted((a, b) => b.gain / b.cost - a.gain / a.cost);
                let gained = 0;
                ranked.forEach((job) => {
                  if (job.cost <= budget) {
                    budget -= job.cost;
                    gained += job.gain;
                  }
                });
                return gained;
              }
            }
            """,
            {"require": ["greedy"], "function": "Planner.plan"},
            language="typescript",
        ),
        Sample(
            """
            const lis = (xs: number[]): number => {
              const dp: number[] = xs.map(() => 1);
              for (let i = 0; i < xs.length; i++) {
                for (let j = 0; j < i; j++) {
                  if (xs[j] < xs[i]) dp[i] = Math.max(dp[i], dp[j] + 1);
                }
              }
              return Math.max(0, ...dp);
            };
            """,
            {"require": ["dynamic-programming"], "forbid": ["recursion"]},
            language="typescript",
        ),
        Sample(
            """
            function fib(n, memo = new Map()) {
              if (memo.has(n)) return memo.get(n);
              const value = n < 2 ? n : fib(n - 1, memo) + fib(n - 2, memo);
              memo.set(n, value);
              return value;
            }
            """,
            {"require": ["memoisation", "dynamic-programming", "recursion"]},
            language="javascript",
        ),
        Sample(
            """
            function find(xs, x) {
              let lo = 0, hi = xs.length - 1;
              while (lo <= hi) {
                const mid = (lo + hi) >> 1;
                if (xs[mid] < x) lo = mid + 1;
                else hi = mid - 1;
              }
              return lo;
            }
            """,
            {"require": ["binary-search"]},
            language="javascript",
        ),
        Sample(
            """
            function reachable(graph, start) {
              const seen = new Set([start]);
              const queue = [start];
              while (queue.length > 0) {
                const node = queue.shift();
                for (const next of graph[node] ?? []) {
                  if (!seen.has(next)) {
                    seen.add(next);
                    queue.push(next);
                  }
                }
              }
              return seen;
            }
            """,
            {"require": ["bfs"], "forbid": ["dfs"]},
            language="javascript",
        ),
    )
    violated_by = (
        Sample(
            "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
            {"require": ["dynamic-programming"]},
        ),
        Sample(
            "def find(xs, x):\n    for i, v in enumerate(xs):\n        if v == x:\n"
            "            return i\n    return -1\n",
            {"require": ["binary-search"]},
        ),
        Sample(
            "def tally(words):\n    count = {}\n    for w in words:\n"
            "        count[w] = count.get(w, 0) + 1\n    return count\n",
            {"require": ["dynamic-programming"]},
        ),
        Sample(
            "def walk(g, n, seen=None):\n    seen = seen or set()\n    seen.add(n)\n"
            "    for m in g[n]:\n        if m not in seen:\n            walk(g, m, seen)\n"
            "    return seen\n",
            {"require": ["bfs"]},
        ),
        Sample(
            """
            function pick(items, cap) {
              let total = 0;
              for (const w of items) {
                if (total + w <= cap) total += w;
              }
              return total;
            }
            """,
            {"require": ["greedy"]},
            message="shows no greedy",
            language="javascript",
        ),
        Sample(
            """
            export function fib(n: number): number {
              return n < 2 ? n : fib(n - 1) + fib(n - 2);
            }
            """,
            {"require": ["dynamic-programming"], "forbid": ["recursion"]},
            message="uses recursion, which is forbidden",
            language="typescript",
        ),
        Sample(
            """
            function tally(words) {
              const count = {};
              for (const w of words) count[w] = (count[w] ?? 0) + 1;
              return count;
            }
            """,
            {"require": ["dynamic-programming"]},
            message="shows no dynamic-programming",
            language="javascript",
        ),
        Sample(
            """
            function walk(graph, node, seen = new Set()) {
              seen.add(node);
              for (const next of graph[node]) if (!seen.has(next)) walk(graph, next, seen);
              return seen;
            }
            """,
            {"require": ["bfs"]},
            message="shows no bfs",
            language="javascript",
        ),
    )

    def advise(self) -> str:
        where = f"`{self.options['function']}`" if self.options.get("function") else "the code"
        parts = []
        if self.options.get("require"):
            parts.append(f"use {listed(self.options['require'])} in {where}")
        if self.options.get("forbid"):
            parts.append(f"do not use {listed(self.options['forbid'], conjunction='or')}")
        return (
            f"{' and '.join(parts).capitalize()}, in the structure that makes each technique "
            "(a table filled from its own entries for dynamic programming, a halving range for "
            "binary search, a queue and a visited set for BFS)."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        function = self.options.get("function")
        python, js = ctx.modules(), ctx.js_modules()
        if js and (not python or (function and find_function(ctx, function) is None)):
            return self._evaluate_js(ctx, js)
        places = scopes(ctx, function, _RULE)
        if isinstance(places, Finding):
            return [places]
        recursive = frozenset(id(r.node) for r in recursive_functions(ctx).values())
        scope = Scope(places, recursive)
        # Python and JS/TS together (no function named): a technique shown in either counts.
        js_scope = self._js_scope(js, None) if js and not function else None

        def shows(name: str) -> bool:
            return ALGORITHMS[name](scope) or (
                js_scope is not None and JS_ALGORITHMS[name](js_scope)
            )

        module, node = places[0]
        line = module.line_of(node) if function else 1
        return self._findings(shows, module.relpath, line)

    def _js_scope(self, js: list[JsModule], found: tuple[JsModule, Any] | None) -> JsScope:
        places: list[tuple[JsModule, Any]] = [found] if found else [(m, None) for m in js]
        recursive = tuple(recursive_js_functions(js).values())
        return JsScope(JsCode(places, function=self.options.get("function")), recursive)

    def _evaluate_js(self, ctx: CheckContext, js: list[JsModule]) -> list[Finding]:
        """The check on JavaScript/TypeScript modules (`shared/js_algorithms.py`)."""
        function = self.options.get("function")
        line, found = 1, None
        if function:
            named = find_js_function(js, function)
            if named is None:
                missing = require_js_function(ctx, function, _RULE)
                return [missing] if isinstance(missing, Finding) else []
            line, found = named.line, (named.module, named.node)
        scope = self._js_scope(js, found)
        path = found[0].relpath if found else js[0].relpath
        return self._findings(lambda name: JS_ALGORITHMS[name](scope), path, line)

    def _findings(self, shows: Callable[[str], bool], path: str, line: int) -> list[Finding]:
        """A finding for each required technique not shown and each forbidden one shown."""
        function = self.options.get("function")
        where = f"`{function}`" if function else "the code"
        findings = [
            Finding(f"{where} shows no {name}, which is required", _RULE, path, line)
            for name in self.options.get("require", [])
            if not shows(name)
        ]
        findings += [
            Finding(f"{where} uses {name}, which is forbidden", _RULE, path, line)
            for name in self.options.get("forbid", [])
            if shows(name)
        ]
        return findings

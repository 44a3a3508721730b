"""Search recognisers: binary search, quickselect, Knuth-Morris-Pratt."""

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
    function_of,
    loops_in,
    method_calls,
    positional,
    self_calls,
    shown,
    stores,
)
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Example,
    Judgement,
    Recogniser,
    found,
    missing,
    where,
)
from pytest_codeif.checks.named_algorithm.sorts import library_sort, partitioning, recursion_sides
from pytest_codeif.code.cst import ParsedModule

_BISECT: Final = tuple(
    f"bisect.{name}"
    for name in ("bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right")
)


def midpoint(node: cst.CSTNode) -> bool:
    """`(lo + hi) // 2`, `lo + (hi - lo) // 2`, `(lo + hi) >> 1`."""
    if isinstance(node, cst.BinaryOperation):
        if (
            isinstance(node.operator, (cst.FloorDivide, cst.RightShift))
            and flat(node.right) in ("2", "1")
            and isinstance(node.left, cst.BinaryOperation)
            and isinstance(node.left.operator, (cst.Add, cst.Subtract))
        ):
            return True
        if isinstance(node.operator, cst.Add):
            return midpoint(node.left) or midpoint(node.right)
    return False


def _bounds_moved(module: ParsedModule, scope: cst.CSTNode, mid: str) -> cst.CSTNode | None:
    """`lo = mid + 1` / `hi = mid - 1` / `hi = mid` in scope, or a recursive call on
    `mid + 1` / `mid - 1`."""
    moved = {f"{mid}+1", f"{mid}-1", mid}
    for store in stores(module, scope):
        for name, value in bindings(store):
            if name != mid and flat(value) in moved:
                return store.statement
    function = function_of(module, scope) if not isinstance(scope, cst.FunctionDef) else scope
    if function is not None:
        for call in self_calls(module, function):
            if any(flat(a) in moved - {mid} for a in positional(call)):
                return call
    return None


def binary_search(code: Code) -> Judgement:
    """A midpoint `(lo + hi) // 2` taken in a loop (or a recursion), the element there
    compared, and a bound moved to the midpoint (`lo = mid + 1`, `hi = mid - 1`);
    `bisect` only with `allow-library`."""
    for module, node in code.nodes(cst.Assign, cst.AnnAssign):
        for store in stores(module, node):
            for mid, value in bindings(store):
                if not midpoint(value):
                    continue
                loops = enclosing(module, store.statement, (cst.While,))
                function = function_of(module, store.statement)
                scope: cst.CSTNode | None = loops[-1] if loops else None
                if scope is None and function is not None and self_calls(module, function):
                    scope = function
                if scope is None:
                    continue
                reads = [
                    s
                    for s in module.nodes(cst.Subscript, within=scope)
                    if flat(s.slice[0].slice) == mid
                ]
                moved = _bounds_moved(module, scope, mid)
                if reads and moved is not None:
                    return found(
                        f"halves the range at `{shown(store.statement)}` "
                        f"({where((module, store.statement))}) "
                        f"and moves a bound (`{shown(moved)}`, {where((module, moved))})",
                        (module, store.statement),
                    )
    library = calling(code, *_BISECT)
    if library:
        if code.allow_library:
            return found(f"calls {shown(library[0][1].func)} ({where(library[0])})", library[0])
        return missing(
            f"no halving loop: calls {shown(library[0][1].func)} ({where(library[0])}) instead of "
            "writing the search",
            library[0],
        )
    indexed = method_calls(code, "index", "find")
    if indexed:
        return missing(
            f"no halving of a range: `{shown(indexed[0][1])}` ({where(indexed[0])}) is a linear "
            "scan",
            indexed[0],
        )
    for module, loop in code.nodes(cst.For):
        if any(
            isinstance(c, cst.Comparison)
            and any(isinstance(t.operator, cst.Equal) for t in c.comparisons)
            for c in module.nodes(cst.Comparison, within=loop)
        ):
            return missing(
                f"no halving of a range: scans the elements one by one ({where((module, loop))}), "
                "a linear search",
                (module, loop),
            )
    return missing("no range halved at a midpoint (mid = (lo + hi) // 2) with a bound moved to it")


def quickselect(code: Code) -> Judgement:
    """Partition around a pivot and recursion (or a loop) into the one side holding
    the k-th element only."""
    one_side = recursion_sides(code, both=False)
    if one_side:
        return found(
            f"partitions around a pivot and recurses into one side only ({where(one_side)})",
            one_side,
        )
    partitioners = set(partitioning(code))
    for module, loop in code.nodes(cst.While):
        called = {flat(c.func).split(".")[-1] for c in module.nodes(cst.Call, within=loop)}
        if called & partitioners:
            moved = [
                s
                for s in stores(module, loop)
                if re.fullmatch(r"\w+[+-]1", flat(s.value)) and s.op is None
            ]
            if moved:
                return found(
                    f"partitions in a loop and narrows to one side (`{shown(moved[0].statement)}`, "
                    f"{where((module, loop))})",
                    (module, loop),
                )
    both = recursion_sides(code, both=True)
    if both:
        return missing(
            f"recurses on both sides of the pivot ({where(both)}): that is quicksort, which "
            "sorts everything",
            both,
        )
    heap = calling(code, "heapq.nsmallest", "heapq.nlargest", "heapq.heappop")
    if heap:
        return missing(
            f"no partition around a pivot: uses {shown(heap[0][1].func)} ({where(heap[0])}), a "
            "heap",
            heap[0],
        )
    library = library_sort(code)
    if library:
        return missing(
            f"no partition around a pivot: sorts everything with {shown(library[1])} "
            f"({where(library)})",
            library,
        )
    return missing("no partition around a pivot narrowing to the side holding the k-th element")


def _on_mismatch(module: ParsedModule, node: cst.CSTNode) -> bool:
    """`node` runs in a loop, under a test comparing two characters (`while j and p[i] !=
    p[j]`, `if text[i] == p[j]: ... else:`): a fall-back on a mismatch, not a walk up
    parent links (`node = parent[node]`)."""
    if not enclosing(module, node, LOOPS):
        return False
    for test_owner in enclosing(module, node, (cst.While, cst.If)):
        test = test_owner.test if isinstance(test_owner, (cst.While, cst.If)) else None
        if test is None:
            continue
        for comparison in module.nodes(cst.Comparison, within=test):
            sides = [comparison.left, *(c.comparator for c in comparison.comparisons)]
            if sum(isinstance(side, cst.Subscript) for side in sides) >= 2:
                return True
    return False


def kmp(code: Code) -> Judgement:
    """A failure (prefix) table built in a loop and used to fall back on a mismatch
    (`j = lps[j - 1]`) instead of restarting the comparison."""
    for module, node in code.nodes(cst.Assign):
        for store in stores(module, node):
            for name, value in bindings(store):
                if not (isinstance(value, cst.Subscript) and value.slice):
                    continue
                index = flat(value.slice[0].slice)
                table = flat(value.value)
                if index not in (f"{name}-1", name) or not _on_mismatch(module, store.statement):
                    continue
                written = [
                    s
                    for s in stores(module, module.tree)
                    if isinstance(s.target, cst.Subscript) and flat(s.target.value) == table
                ] + [
                    c for c in method_calls(code, "append") if flat(c[1].func) == f"{table}.append"
                ]
                if written:
                    return found(
                        f"falls back through the failure table `{table}` on a mismatch "
                        f"(`{shown(store.statement)}`, {where((module, store.statement))})",
                        (module, store.statement),
                    )
    library = method_calls(code, "find", "index", "count") + calling(
        code, "re.search", "re.finditer", "re.findall", "re.match"
    )
    if library:
        return missing(
            f"no failure table: calls {shown(library[0][1].func)} ({where(library[0])}) instead of "
            "writing the search",
            library[0],
        )
    for module, outer in code.nodes(cst.For, cst.While):
        if [n for n in loops_in(module, outer) if isinstance(n, LOOPS)] and re.search(
            r"\[\w+\+\w+\]", flat(outer)
        ):
            return missing(
                "no failure table: compares the pattern afresh at every position (nested "
                f"loops, {where((module, outer))}), a naive search",
                (module, outer),
            )
    return missing("no failure table falling back on a mismatch (j = lps[j - 1])")


RECOGNISERS: Final = (
    Recogniser(
        "binary-search",
        "binary search",
        "a midpoint `(lo + hi) // 2` taken in a loop or recursion, the element there read, "
        "and a bound moved to it (`lo = mid + 1`, `hi = mid - 1`); `bisect` only with "
        "`allow-library`; `.index()` or a scan is the near miss",
        binary_search,
        ("bisection search", "binary chop", "binary search algorithm"),
        satisfied=(
            Example(
                """
                def find(xs, x):
                    lo, hi = 0, len(xs) - 1
                    while lo <= hi:
                        mid = lo + (hi - lo) // 2
                        if xs[mid] == x:
                            return mid
                        if xs[mid] < x:
                            lo = mid + 1
                        else:
                            hi = mid - 1
                    return -1
                """
            ),
            Example(
                """
                def find(xs, x, lo=0, hi=None):
                    hi = len(xs) if hi is None else hi
                    if lo >= hi:
                        return -1
                    mid = (lo + hi) // 2
                    if xs[mid] == x:
                        return mid
                    if xs[mid] < x:
                        return find(xs, x, mid + 1, hi)
                    return find(xs, x, lo, mid)
                """
            ),
        ),
        violated=(
            Example(
                """
                def find(xs, x):
                    for i, v in enumerate(xs):
                        if v == x:
                            return i
                    return -1
                """,
                "a linear search",
            ),
            Example(
                "import bisect\n\ndef find(xs, x):\n    return bisect.bisect_left(xs, x)\n",
                "calls bisect.bisect_left",
            ),
        ),
    ),
    Recogniser(
        "quickselect",
        "quickselect",
        "partition around a pivot, then recursion (or a loop) into the one side holding the "
        "k-th element only; sorting everything or a heap is the near miss",
        quickselect,
        ("quick select", "hoare selection", "hoare's selection"),
        satisfied=(
            Example(
                """
                import random

                def kth_smallest(xs, k):
                    pivot = random.choice(xs)
                    less = [x for x in xs if x < pivot]
                    same = [x for x in xs if x == pivot]
                    if k < len(less):
                        return kth_smallest(less, k)
                    if k < len(less) + len(same):
                        return pivot
                    more = [x for x in xs if x > pivot]
                    return kth_smallest(more, k - len(less) - len(same))
                """
            ),
        ),
        violated=(
            Example(
                "def kth_smallest(xs, k):\n    return sorted(xs)[k]\n",
                "sorts everything",
            ),
        ),
    ),
    Recogniser(
        "kmp",
        "Knuth-Morris-Pratt",
        "a failure (prefix) table built in a loop and read to fall back on a mismatch "
        "(`j = lps[j - 1]`); `str.find`, `re` or comparing afresh at every position is the "
        "near miss",
        kmp,
        ("knuth morris pratt", "kmp search", "kmp string matching", "knuth morris pratt search"),
        satisfied=(
            Example(
                """
                def search(text, pattern):
                    lps, j = [0] * len(pattern), 0
                    for i in range(1, len(pattern)):
                        while j and pattern[i] != pattern[j]:
                            j = lps[j - 1]
                        if pattern[i] == pattern[j]:
                            j += 1
                        lps[i] = j
                    found, j = [], 0
                    for i, ch in enumerate(text):
                        while j and ch != pattern[j]:
                            j = lps[j - 1]
                        if ch == pattern[j]:
                            j += 1
                        if j == len(pattern):
                            found.append(i - j + 1)
                            j = lps[j - 1]
                    return found
                """
            ),
        ),
        violated=(
            Example(
                """
                def search(text, pattern):
                    hits = []
                    for i in range(len(text) - len(pattern) + 1):
                        j = 0
                        while j < len(pattern) and text[i + j] == pattern[j]:
                            j += 1
                        if j == len(pattern):
                            hits.append(i)
                    return hits
                """,
                "a naive search",
            ),
            Example(
                "def search(text, pattern):\n    return text.find(pattern)\n", "calls text.find"
            ),
        ),
    ),
)

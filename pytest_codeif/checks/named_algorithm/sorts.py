"""Sorting recognisers, each by the moves that make the sort: bubble, insertion,
selection, merge, quick, heap, counting and radix sort. A call to `sorted()` or
`.sort()` is never a named sort; it is named in the evidence when nothing else is found."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    LOOPS,
    Swap,
    bindings,
    calling,
    enclosing,
    flat,
    function_of,
    in_loop,
    loops_in,
    method,
    method_calls,
    positional,
    self_calls,
    shown,
    stores,
    swaps,
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
from pytest_codeif.code.cst import ParsedModule


def adjacent(first: str, second: str) -> bool:
    """Whether two index texts name neighbouring positions (`j` and `j+1`)."""
    return second in (f"{first}+1", f"{first}-1") or first in (f"{second}+1", f"{second}-1")


def library_sort(code: Code) -> Place | None:
    library = calling(code, "builtins.sorted", "heapq.nsmallest", "heapq.nlargest")
    library += method_calls(code, "sort")
    return library[0] if library else None


def _without(code: Code, title: str, what: str) -> Judgement:
    """The verdict when no `title` was found: `what` is what it is made of."""
    library = library_sort(code)
    if library:
        return missing(
            f"no {what}: calls {shown(library[1])} ({where(library)}) instead of writing {title}",
            library,
        )
    return missing(f"no {what}")


def _descends(module: ParsedModule, loop: cst.CSTNode) -> bool:
    """The loop walks downwards: `range(..., -1)` or `j -= 1` in a while loop."""
    if isinstance(loop, cst.For):
        return isinstance(loop.iter, cst.Call) and flat(loop.iter).endswith(",-1)")
    if isinstance(loop, cst.While):
        return any(isinstance(s.op, cst.SubtractAssign) for s in stores(module, loop.body))
    return False


def _inner_loops(module: ParsedModule, loop: cst.CSTNode) -> list[cst.CSTNode]:
    return [n for n in loops_in(module, loop) if isinstance(n, LOOPS)]


def _neighbour_swaps(code: Code) -> list[tuple[ParsedModule, cst.CSTNode, Swap]]:
    """(module, inner loop, swap) for each swap of neighbours inside nested loops."""
    found_swaps = []
    for module, outer in code.nodes(cst.For, cst.While):
        for inner in _inner_loops(module, outer):
            for swap in swaps(module, inner):
                if adjacent(swap.first, swap.second):
                    found_swaps.append((module, inner, swap))
    return found_swaps


def bubble_sort(code: Code) -> Judgement:
    """Nested loops whose inner pass walks upwards swapping out-of-order neighbours."""
    for module, inner, swap in _neighbour_swaps(code):
        if not _descends(module, inner):
            at: Place = (module, swap.statement)
            return found(f"passes swapping neighbours `{shown(swap.statement)}` ({where(at)})", at)
    for module, _, swap in _neighbour_swaps(code):
        at = (module, swap.statement)
        return missing(
            f"the neighbour swaps walk downwards ({where(at)}), moving one element into "
            "place: that is insertion sort",
            at,
        )
    selection = _selection(code)
    if selection:
        return missing(
            f"no passes swapping neighbours: {selection[0]} ({where(selection[1])}), "
            "that is selection sort",
            selection[1],
        )
    return _without(code, "bubble sort", "passes of nested loops swapping out-of-order neighbours")


def _shifts(code: Code) -> Place | None:
    """`a[j + 1] = a[j]` in a loop inside a loop: elements shifted to make room."""
    for module, outer in code.nodes(cst.For, cst.While):
        for inner in _inner_loops(module, outer):
            for store in stores(module, inner):
                target, value = store.target, store.value
                if (
                    store.op is None
                    and isinstance(target, cst.Subscript)
                    and isinstance(value, cst.Subscript)
                    and flat(target.value) == flat(value.value)
                    and flat(target.slice[0].slice) == f"{flat(value.slice[0].slice)}+1"
                ):
                    return module, store.statement
    return None


def insertion_sort(code: Code) -> Judgement:
    """Each element moved back into the sorted prefix: shifted (`a[j + 1] = a[j]`),
    swapped with its neighbour walking downwards, or inserted (`insort`, `insert(i, x)`
    after a scan) into a sorted list."""
    shift = _shifts(code)
    if shift:
        return found(
            f"shifts larger elements up one place (`{shown(shift[1])}`, {where(shift)})", shift
        )
    for module, inner, swap in _neighbour_swaps(code):
        if _descends(module, inner):
            at: Place = (module, swap.statement)
            return found(f"swaps each element down past larger neighbours ({where(at)})", at)
    insort = calling(code, "bisect.insort", "bisect.insort_left", "bisect.insort_right")
    insort = [p for p in insort if in_loop(*p)]
    if insort:
        return found(
            f"inserts each element into a sorted list with insort ({where(insort[0])})", insort[0]
        )
    for module, call in method_calls(code, "insert"):
        loops = enclosing(module, call, LOOPS)
        if loops and _inner_loops(module, loops[-1]):
            return found(
                f"scans for each element's place and inserts it ({where((module, call))})",
                (module, call),
            )
    bubbles = _neighbour_swaps(code)
    if bubbles:
        module, inner, swap = bubbles[0]
        return missing(
            f"no shifting into a sorted prefix: the neighbour swaps walk upwards in full "
            f"passes ({where((module, swap.statement))}), that is bubble sort",
            (module, swap.statement),
        )
    return _without(code, "insertion sort", "element moved back into a sorted prefix")


def _selection(code: Code) -> tuple[str, Place] | None:
    """The minimum's index tracked in an inner loop (`if a[j] < a[m]: m = j`), then a swap
    into place; `min()` of the rest swapped in; or `min` taken out and appended."""
    for module, outer in code.nodes(cst.For, cst.While):
        for inner in _inner_loops(module, outer):
            if not isinstance(inner, cst.For):
                continue
            j = flat(inner.target)
            tracked = {
                flat(s.target)
                for branch in module.nodes(cst.If, within=inner)
                for s in stores(module, branch.body)
                if flat(s.value) == j and isinstance(s.target, cst.Name)
            }
            for swap in swaps(module, outer):
                if within(module, inner, swap.statement):
                    continue
                if {swap.first, swap.second} & tracked:
                    return "tracks the minimum's index and swaps it into place", (
                        module,
                        swap.statement,
                    )
        for swap in swaps(module, outer):
            picked = {
                flat(s.target)
                for s in stores(module, outer)
                if re.search(r"\b(min|max)\(", flat(s.value))
            }
            if {swap.first, swap.second} & picked:
                return "swaps the minimum of the rest into place", (module, swap.statement)
        text = flat(outer)
        if (
            re.search(r"\b(min|max)\(", text)
            and re.search(r"\.(remove|pop)\(", text)
            and ".append(" in text
        ):
            return "takes the minimum out and appends it", (module, outer)
    return None


def selection_sort(code: Code) -> Judgement:
    """The minimum of the unsorted part found (an inner loop tracking its index, or
    `min()`) and swapped or moved into place, once per position."""
    selection = _selection(code)
    if selection:
        return found(f"{selection[0]} ({where(selection[1])})", selection[1])
    bubbles = _neighbour_swaps(code)
    if bubbles:
        module, _, swap = bubbles[0]
        return missing(
            "no minimum selected per position: swaps neighbours "
            f"({where((module, swap.statement))}), "
            "that is bubble or insertion sort",
            (module, swap.statement),
        )
    return _without(code, "selection sort", "minimum selected and swapped into place per position")


def _halves(node: cst.CSTNode) -> bool:
    text = flat(node)
    return "//2" in text or ">>1" in text


def _merges(code: Code) -> Place | None:
    """A loop taking the smaller head of two sequences (`if left[i] <= right[j]`), or
    `heapq.merge`."""
    for module, branch in code.of(cst.If):
        test = branch.test
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            continue
        left, right = test.left, test.comparisons[0].comparator
        if not (isinstance(left, cst.Subscript) and isinstance(right, cst.Subscript)):
            continue
        if flat(left.value) == flat(right.value) or not in_loop(module, branch):
            continue
        body = flat(branch.body)
        if ".append(" in body or ".pop(" in body or "]=" in body:
            return module, branch
    merged = calling(code, "heapq.merge")
    return merged[0] if merged else None


def _splits(code: Code) -> tuple[str, Place] | None:
    """Recursion on both halves split at the middle, or a bottom-up width doubling."""
    for module, function in code.functions():
        recursion = self_calls(module, function)
        if len(recursion) >= 2 and _halves(function.body):
            return "recursion on both halves", (module, function)
    for module, node in code.of(cst.AugAssign):
        doubles = (isinstance(node.operator, cst.MultiplyAssign) and flat(node.value) == "2") or (
            isinstance(node.operator, cst.LeftShiftAssign) and flat(node.value) == "1"
        )
        if doubles and in_loop(module, node):
            return "a run width doubled in a loop (bottom-up)", (module, node)
    return None


def merge_sort(code: Code) -> Judgement:
    """Recursion on both halves split at the middle (or bottom-up passes doubling a run
    width), and a merge taking the smaller head of two sorted runs."""
    split = _splits(code)
    merge = _merges(code)
    if split and merge:
        return found(
            f"{split[0]} ({where(split[1])}) and a merge taking the smaller head of two runs "
            f"({where(merge)})",
            merge,
        )
    if split:
        library = library_sort(code)
        if library:
            return missing(
                f"{split[0]} ({where(split[1])}), but the halves are combined with "
                f"{shown(library[1])} ({where(library)}), not merged",
                library,
            )
        pivot = _quick(code)
        if pivot:
            return missing(f"partitions around a pivot ({where(pivot)}): that is quicksort", pivot)
        return missing(f"{split[0]} ({where(split[1])}) but no merge of two sorted runs", split[1])
    return _without(code, "merge sort", "recursion on halves with a merge of two sorted runs")


def _pivots(module: ParsedModule, function: cst.FunctionDef) -> str | None:
    """A pivot of `function`: a name taken from the sequence (`a[hi]`, `random.choice`) or
    called pivot, compared with elements."""
    names = set()
    for store in stores(module, function.body):
        for name, bound in bindings(store):
            value = flat(bound)
            if "pivot" in name.lower() or re.fullmatch(
                r"[\w.]+\[[^\]:]+\]|random\.choice\(.+\)", value
            ):
                names.add(name)
    for comparison in module.nodes(cst.Comparison, within=function.body):
        sides = [comparison.left, *(c.comparator for c in comparison.comparisons)]
        for side in sides:
            if flat(side) in names and any(flat(s) not in names for s in sides):
                return flat(side)
    return None


def _branches(node: cst.If) -> list[cst.CSTNode]:
    found_branches: list[cst.CSTNode] = [node.body]
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        found_branches += _branches(orelse)
    elif isinstance(orelse, cst.Else):
        found_branches.append(orelse.body)
    return found_branches


def exclusive(
    module: ParsedModule, function: cst.FunctionDef, a: cst.CSTNode, b: cst.CSTNode
) -> bool:
    """Whether `a` and `b` never both run: they lie in different branches of one
    `if`/`elif`/`else` chain, or each is the whole value of a `return`."""
    returned = {id(r.value) for r in module.nodes(cst.Return, within=function)}
    if id(a) in returned and id(b) in returned:
        return True
    for branch in module.nodes(cst.If, within=function):
        parts = _branches(branch)
        holding = {i for i, part in enumerate(parts) for n in (a, b) if within(module, part, n)}
        where_a = [i for i, part in enumerate(parts) if within(module, part, a)]
        where_b = [i for i, part in enumerate(parts) if within(module, part, b)]
        if where_a and where_b and where_a != where_b and len(holding) == 2:
            return True
    return False


def partitioning(code: Code) -> dict[str, tuple[ParsedModule, cst.FunctionDef, str]]:
    """Functions (by name) that compare elements with a pivot."""
    found_functions = {}
    for module, function in code.functions():
        pivot = _pivots(module, function)
        if pivot:
            found_functions[function.name.value] = (module, function, pivot)
    return found_functions


def recursion_sides(code: Code, both: bool) -> Place | None:
    """A function partitioning around a pivot (itself or through a helper) and recursing
    on both sides (`both`) or on one side only."""
    partitioners = partitioning(code)
    for module, function in code.functions():
        recursion = self_calls(module, function)
        if not recursion:
            continue
        called = {flat(c.func).split(".")[-1] for c in module.nodes(cst.Call, within=function.body)}
        if function.name.value not in partitioners and not (called & set(partitioners)):
            continue
        pairs = [(a, b) for i, a in enumerate(recursion) for b in recursion[i + 1 :]]
        two_sides = any(not exclusive(module, function, a, b) for a, b in pairs)
        if two_sides == both:
            return module, function
    return None


def _quick(code: Code) -> Place | None:
    return recursion_sides(code, both=True)


def quicksort(code: Code) -> Judgement:
    """Partition around a pivot (compared with the elements, in the function or a
    helper) and recursion on both sides."""
    quick = _quick(code)
    if quick:
        return found(
            f"partitions around a pivot and recurses on both sides ({where(quick)})", quick
        )
    split = _splits(code)
    if split and _merges(code):
        return missing(
            f"no pivot: {split[0]} and a merge ({where(split[1])}): that is merge sort", split[1]
        )
    one_side = recursion_sides(code, both=False)
    if one_side:
        return missing(
            f"partitions around a pivot but recurses into one side only ({where(one_side)}): "
            "that is quickselect",
            one_side,
        )
    return _without(code, "quicksort", "partition around a pivot with recursion on both sides")


def sift_down(code: Code) -> Place | None:
    for module, node in code.nodes(cst.BinaryOperation):
        if re.fullmatch(r"2\*\w+\+[12]|\w+\*2\+[12]|\(\w+<<1\)\+[12]", flat(node)):
            return module, node
    return None


def _emitted(module: ParsedModule, pop: cst.CSTNode) -> bool:
    """The popped element goes to the output: appended, yielded, stored at a position,
    or the element of a comprehension (not taken apart to be worked on: Dijkstra, Huffman)."""
    for call in module.nodes(cst.Call):
        if method(call) == "append" and any(a is pop for a in positional(call)):
            return True
    for node in module.nodes(cst.ListComp, cst.GeneratorExp, cst.Yield):
        if getattr(node, "elt", None) is pop or getattr(node, "value", None) is pop:
            return True
    return any(
        s.value is pop and isinstance(s.target, cst.Subscript) for s in stores(module, module.tree)
    )


def heapsort(code: Code) -> Judgement:
    """A heap built and emptied in order: `heapify` (or `heappush` in a loop) and
    `heappop` in a loop; or a hand-written sift-down (children at 2i + 1, 2i + 2) with
    the root swapped to the end in a loop."""
    pops = [p for p in calling(code, "heapq.heappop") if in_loop(*p) and _emitted(*p)]
    built = calling(code, "heapq.heapify") + [
        p for p in calling(code, "heapq.heappush") if in_loop(*p)
    ]
    if pops and built:
        return found(
            f"builds a heap ({where(built[0])}) and pops it in order ({where(pops[0])})", pops[0]
        )
    sift = sift_down(code)
    if sift:
        for module, loop in code.nodes(cst.For, cst.While):
            for swap in swaps(module, loop):
                if "0" in (swap.first, swap.second):
                    at: Place = (module, swap.statement)
                    return found(
                        f"sifts down over children 2i + 1, 2i + 2 ({where(sift)}) and swaps the "
                        f"root to the end ({where(at)})",
                        at,
                    )
        return missing(
            f"a sift-down ({where(sift)}) but the root is never swapped to the end", sift
        )
    library = calling(code, "heapq.nsmallest", "heapq.nlargest")
    if library:
        return missing(
            f"no heap built and emptied: calls {shown(library[0][1])} ({where(library[0])})",
            library[0],
        )
    return _without(
        code, "heapsort", "heap built and emptied in order (heappop in a loop, or a sift-down)"
    )


def _tallies(module: ParsedModule, loop: cst.For) -> str | None:
    """`count[x] += 1` (or `count[x - low] += 1`) for the loop's element x: the counts."""
    element = flat(loop.target)
    for store in stores(module, loop.body):
        target = store.target
        if (
            isinstance(store.op, cst.AddAssign)
            and flat(store.value) == "1"
            and isinstance(target, cst.Subscript)
            and re.search(rf"(?<!\w){re.escape(element)}(?!\w)", flat(target.slice[0].slice))
        ):
            return flat(target.value)
    return None


def counting_sort(code: Code) -> Judgement:
    """Counts of each value tallied (`count[x] += 1`, or a Counter), then the output
    rebuilt by walking the range of values (or prefix sums of the counts), with no
    comparison sort."""
    counts: dict[str, Place] = {}
    for module, loop in code.of(cst.For):
        name = _tallies(module, loop)
        if name:
            counts[name] = (module, loop)
    for module, store in code.of(cst.Assign):
        if isinstance(store.value, cst.Call) and module.qualified(store.value.func) & {
            "collections.Counter"
        }:
            counts[flat(store.targets[0].target)] = (module, store)
    library = library_sort(code)
    for name, place in counts.items():
        module = place[0]
        scope = function_of(module, place[1]) or module.tree
        for loop in module.nodes(cst.For, within=scope):
            if loop is place[1]:
                continue
            iterated = flat(loop.iter)
            rebuilds = re.search(r"\.(append|extend)\(|\]=", flat(loop.body)) or re.search(
                rf"(?<!\w){re.escape(name)}\[\w+\]\+?=.*{re.escape(name)}\[", flat(loop.body)
            )
            if (name in iterated or iterated.startswith("range(")) and rebuilds:
                if library and within(module, scope, library[1]):
                    break
                return found(
                    f"tallies each value in `{name}` ({where(place)}) and rebuilds the output "
                    f"from the counts ({where((module, loop))})",
                    (module, loop),
                )
    if counts and library:
        return missing(
            f"counts values ({where(next(iter(counts.values())))}) but orders them with "
            f"{shown(library[1])} ({where(library)}): a comparison sort, not counting sort",
            library,
        )
    return _without(code, "counting sort", "counts of each value walked in value order")


def _digit(module: ParsedModule, node: cst.CSTNode) -> str | None:
    """`(x // exp) % 10` or `(x >> shift) & mask`: the place name it reads."""
    if not isinstance(node, cst.BinaryOperation):
        return None
    pairs = {cst.Modulo: cst.FloorDivide, cst.BitAnd: cst.RightShift}
    inner_type = pairs.get(type(node.operator))
    if inner_type is None:
        return None
    for inner in module.nodes(cst.BinaryOperation, within=node.left):
        if isinstance(inner.operator, inner_type) and not isinstance(inner.right, cst.Integer):
            return flat(inner.right)
    return None


def radix_sort(code: Code) -> Judgement:
    """Elements distributed by one digit at a time (`(x // exp) % 10`, `(x >> s) & m`),
    the digit's place growing from pass to pass (`exp *= 10`, `10 ** d`)."""
    library = library_sort(code)
    for module, node in code.nodes(cst.BinaryOperation):
        place = _digit(module, node)
        if place is None or (library and within(library[0], library[1], node)):
            continue  # a digit as a sort key: the sort is the library's
        name = re.sub(r"^\(|\)$", "", place)
        grows = any(
            flat(s.target) == name
            and isinstance(s.op, (cst.MultiplyAssign, cst.LeftShiftAssign, cst.AddAssign))
            for m, n in code.nodes(cst.AugAssign)
            for s in stores(m, n)
        ) or bool(re.fullmatch(r"\(?\w+\*\*\w+\)?", place))
        if grows:
            return found(
                f"takes one digit per pass (`{shown(node)}`, {where((module, node))}) with the "
                f"place `{name}` growing between passes",
                (module, node),
            )
    return _without(
        code, "radix sort", "distribution by one digit per pass (x // exp % 10, exp growing)"
    )


_PAIR = """
def sort(xs):
    return sorted(xs)
"""


def _sorts(
    name: str,
    title: str,
    summary: str,
    decide: Callable[[Code], Judgement],
    *,
    aliases: tuple[str, ...],
    good: tuple[Example, ...],
    bad: tuple[Example, ...],
) -> Recogniser:
    """A sort's recogniser; every sort also rejects a plain `sorted()`."""
    return Recogniser(
        name,
        title,
        summary,
        decide,
        aliases,
        good,
        (*bad, Example(_PAIR, "calls sorted(xs)")),
    )


_BUBBLE = """
def sort(xs):
    n = len(xs)
    for i in range(n):
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
    return xs
"""
_INSERTION = """
def sort(xs):
    for i in range(1, len(xs)):
        key, j = xs[i], i - 1
        while j >= 0 and xs[j] > key:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = key
    return xs
"""
_SELECTION = """
def sort(xs):
    for i in range(len(xs)):
        smallest = i
        for j in range(i + 1, len(xs)):
            if xs[j] < xs[smallest]:
                smallest = j
        xs[i], xs[smallest] = xs[smallest], xs[i]
    return xs
"""
_MERGE = """
def sort(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    left, right = sort(xs[:mid]), sort(xs[mid:])
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]
"""
_QUICK = """
def sort(xs):
    if len(xs) <= 1:
        return xs
    pivot = xs[len(xs) // 2]
    less = [x for x in xs if x < pivot]
    same = [x for x in xs if x == pivot]
    more = [x for x in xs if x > pivot]
    return sort(less) + same + sort(more)
"""

RECOGNISERS: Final = (
    _sorts(
        "bubble-sort",
        "bubble sort",
        "nested loops whose inner pass walks upwards swapping out-of-order neighbours "
        "(`a[j], a[j + 1] = a[j + 1], a[j]`)",
        bubble_sort,
        aliases=("bubblesort", "bubble sort algorithm"),
        good=(Example(_BUBBLE),),
        bad=(Example(_SELECTION, "that is selection sort"),),
    ),
    _sorts(
        "insertion-sort",
        "insertion sort",
        "each element moved back into the sorted prefix: shifted (`a[j + 1] = a[j]`), "
        "swapped down past larger neighbours, or inserted (`insort`, `insert(i, x)`)",
        insertion_sort,
        aliases=("insertionsort",),
        good=(
            Example(_INSERTION),
            Example(
                """
                def sort(xs):
                    for i in range(1, len(xs)):
                        j = i
                        while j > 0 and xs[j - 1] > xs[j]:
                            xs[j - 1], xs[j] = xs[j], xs[j - 1]
                            j -= 1
                    return xs
                """
            ),
        ),
        bad=(Example(_BUBBLE, "that is bubble sort"),),
    ),
    _sorts(
        "selection-sort",
        "selection sort",
        "the minimum of the unsorted part found (an inner loop tracking its index, or "
        "`min()`) and swapped or moved into place, once per position",
        selection_sort,
        aliases=("selectionsort",),
        good=(Example(_SELECTION),),
        bad=(Example(_BUBBLE, "that is bubble or insertion sort"),),
    ),
    _sorts(
        "merge-sort",
        "merge sort",
        "recursion on both halves split at the middle (or bottom-up passes doubling a "
        "width) and a merge taking the smaller head of two sorted runs",
        merge_sort,
        aliases=("mergesort", "top down merge sort", "bottom up merge sort"),
        good=(Example(_MERGE),),
        bad=(
            Example(
                """
                def sort(xs):
                    if len(xs) <= 1:
                        return xs
                    mid = len(xs) // 2
                    return sorted(sort(xs[:mid]) + sort(xs[mid:]))
                """,
                "are combined with sorted",
            ),
            Example(_QUICK, "that is quicksort"),
        ),
    ),
    _sorts(
        "quicksort",
        "quicksort",
        "partition around a pivot (an element compared with the others, in the function or a "
        "helper) and recursion on both sides",
        quicksort,
        aliases=("quick sort", "quick-sort", "partition exchange sort"),
        good=(
            Example(_QUICK),
            Example(
                """
                def sort(xs, lo=0, hi=None):
                    hi = len(xs) - 1 if hi is None else hi
                    if lo < hi:
                        p = partition(xs, lo, hi)
                        sort(xs, lo, p - 1)
                        sort(xs, p + 1, hi)
                    return xs

                def partition(xs, lo, hi):
                    pivot, i = xs[hi], lo
                    for j in range(lo, hi):
                        if xs[j] < pivot:
                            xs[i], xs[j] = xs[j], xs[i]
                            i += 1
                    xs[i], xs[hi] = xs[hi], xs[i]
                    return i
                """
            ),
        ),
        bad=(Example(_MERGE, "that is merge sort"),),
    ),
    _sorts(
        "heapsort",
        "heapsort",
        "a heap built and emptied in order (`heapify` or `heappush` in a loop, then "
        "`heappop` in a loop), or a hand-written sift-down (children 2i + 1, 2i + 2) with the "
        "root swapped to the end",
        heapsort,
        aliases=("heap sort", "heapsort algorithm"),
        good=(
            Example(
                """
                import heapq

                def sort(xs):
                    heap = list(xs)
                    heapq.heapify(heap)
                    return [heapq.heappop(heap) for _ in range(len(heap))]
                """
            ),
            Example(
                """
                def sort(xs):
                    n = len(xs)
                    for start in range(n // 2 - 1, -1, -1):
                        sift(xs, start, n)
                    for end in range(n - 1, 0, -1):
                        xs[0], xs[end] = xs[end], xs[0]
                        sift(xs, 0, end)
                    return xs

                def sift(xs, i, n):
                    while 2 * i + 1 < n:
                        child = 2 * i + 1
                        if child + 1 < n and xs[child + 1] > xs[child]:
                            child += 1
                        if xs[i] >= xs[child]:
                            return
                        xs[i], xs[child] = xs[child], xs[i]
                        i = child
                """
            ),
        ),
        bad=(
            Example(
                "import heapq\n\ndef sort(xs):\n    return heapq.nsmallest(len(xs), xs)\n",
                "calls heapq.nsmallest",
            ),
        ),
    ),
    _sorts(
        "counting-sort",
        "counting sort",
        "each value tallied (`count[x] += 1`, or a Counter), then the output rebuilt by "
        "walking the counts in value order (or their prefix sums), with no comparison sort",
        counting_sort,
        aliases=("countingsort", "count sort"),
        good=(
            Example(
                """
                def sort(xs):
                    low = min(xs)
                    count = [0] * (max(xs) - low + 1)
                    for x in xs:
                        count[x - low] += 1
                    out = []
                    for value, times in enumerate(count):
                        out.extend([value + low] * times)
                    return out
                """
            ),
        ),
        bad=(
            Example(
                """
                from collections import Counter

                def sort(xs):
                    count = Counter(xs)
                    out = []
                    for value in sorted(count):
                        out.extend([value] * count[value])
                    return out
                """,
                "a comparison sort, not counting sort",
            ),
        ),
    ),
    _sorts(
        "radix-sort",
        "radix sort",
        "one digit per pass (`(x // exp) % 10`, `(x >> shift) & mask`) with the digit's "
        "place growing between passes (`exp *= 10`, `10 ** d`)",
        radix_sort,
        aliases=("radixsort", "lsd radix sort"),
        good=(
            Example(
                """
                def sort(xs):
                    exp = 1
                    while xs and max(xs) // exp > 0:
                        buckets = [[] for _ in range(10)]
                        for x in xs:
                            buckets[(x // exp) % 10].append(x)
                        xs = [x for bucket in buckets for x in bucket]
                        exp *= 10
                    return xs
                """
            ),
        ),
        bad=(
            Example(
                """
                def sort(xs):
                    for d in range(len(str(max(xs)))):
                        xs = sorted(xs, key=lambda x: x // 10 ** d % 10)
                    return xs
                """,
                "calls sorted",
            ),
        ),
    ),
)

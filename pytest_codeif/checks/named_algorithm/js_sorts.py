"""The sorts read in JavaScript and TypeScript, by the same moves as their Python twins
(`sorts.py`): bubble sort's passes swapping neighbours, insertion sort's shifts into a
sorted prefix, selection sort's minimum swapped into place, merge sort's halves merged by
their smaller heads. The language's `sort()` is never a named sort; it is named in the
evidence when nothing else is found."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_codeif.checks.named_algorithm.recogniser import Judgement, found, missing
from pytest_codeif.checks.named_algorithm.sorts import adjacent
from pytest_codeif.checks.shared.js_algorithms_parts import (
    LOOP_KINDS,
    JsCode,
    JsPlace,
    JsSwap,
    callee_name,
    enclosing_loops,
    flat,
    in_iteration,
    library_sort,
    member_name,
    self_calls,
    shown,
    stores,
    subscript_root,
    swaps,
    where,
    within,
)
from pytest_codeif.checks.shared.js_functions import JsFunction
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode


def _without(code: JsCode, title: str, what: str) -> Judgement:
    """The verdict when no `title` was found: `what` is what it is made of."""
    library = library_sort(code)
    if library:
        module, call = library
        return missing(
            f"no {what}: calls `{shown(module, call)}` ({where(library)}) instead of writing "
            f"{title}",
            library,
        )
    return missing(f"no {what}")


def _descends(module: JsModule, loop: SgNode) -> bool:
    """The loop walks downwards: `j--` / `j -= 1` as its step, or in its body."""
    if loop.kind() == "for_statement":
        step = loop.field("increment")
        return step is not None and bool(re.search(r"--|-=", flat(module, step)))
    return any(s.op in ("--", "-=") for s in stores(module, loop))


def _neighbour_swaps(code: JsCode) -> list[tuple[JsModule, SgNode, JsSwap]]:
    """(module, inner loop, swap) for each swap of neighbours inside nested loops. Each
    swap is found once and climbs to its loops (deeply nested code costs no more)."""
    found_swaps = []
    for module, scope in code.places:
        for swap in swaps(module, scope):
            if not adjacent(swap.first, swap.second):
                continue
            loops = enclosing_loops(swap.statement)
            if len(loops) >= 2:
                found_swaps.append((module, loops[0], swap))
    return found_swaps


def bubble_sort(code: JsCode) -> Judgement:
    """Nested loops whose inner pass walks upwards swapping out-of-order neighbours."""
    for module, inner, swap in _neighbour_swaps(code):
        if not _descends(module, inner):
            at: JsPlace = (module, swap.statement)
            return found(
                f"passes swapping neighbours `{shown(module, swap.statement)}` ({where(at)})", at
            )
    for module, _, swap in _neighbour_swaps(code):
        at = (module, swap.statement)
        return missing(
            f"the neighbour swaps walk downwards ({where(at)}), moving one element into "
            "place: that is insertion sort",
            at,
        )
    shift = _shifts(code)
    if shift:
        return missing(
            f"no passes swapping neighbours: shifts larger elements up one place "
            f"({where(shift)}), that is insertion sort",
            shift,
        )
    selection = _selection(code)
    if selection:
        return missing(
            f"no passes swapping neighbours: {selection[0]} ({where(selection[1])}), "
            "that is selection sort",
            selection[1],
        )
    return _without(code, "bubble sort", "passes of nested loops swapping out-of-order neighbours")


def _shifts(code: JsCode) -> JsPlace | None:
    """`a[j + 1] = a[j]` in a loop inside a loop: elements shifted to make room."""
    for module, scope in code.places:
        for store in stores(module, scope):
            target, value = store.target, store.value
            if (
                store.op is None
                and value is not None
                and target.kind() == "subscript_expression"
                and value.kind() == "subscript_expression"
                and subscript_root(module, target) == subscript_root(module, value)
                and flat(module, target.field("index")) == f"{flat(module, value.field('index'))}+1"
                and len(enclosing_loops(store.statement)) >= 2
            ):
                return module, store.statement
    return None


def insertion_sort(code: JsCode) -> Judgement:
    """Each element moved back into the sorted prefix: shifted (`a[j + 1] = a[j]`) or
    swapped down past larger neighbours."""
    shift = _shifts(code)
    if shift:
        return found(
            f"shifts larger elements up one place (`{shown(*shift)}`, {where(shift)})", shift
        )
    for module, inner, swap in _neighbour_swaps(code):
        if _descends(module, inner):
            at: JsPlace = (module, swap.statement)
            return found(f"swaps each element down past larger neighbours ({where(at)})", at)
    bubbles = _neighbour_swaps(code)
    if bubbles:
        module, _, swap = bubbles[0]
        at = (module, swap.statement)
        return missing(
            f"no shifting into a sorted prefix: the neighbour swaps walk upwards in full "
            f"passes ({where(at)}), that is bubble sort",
            at,
        )
    return _without(code, "insertion sort", "element moved back into a sorted prefix")


def _loop_variable(module: JsModule, loop: SgNode) -> str | None:
    """`j` of `for (let j = ...; ...)`."""
    init = loop.field("initializer")
    if init is None:
        return None
    for declarator in module.nodes("variable_declarator", within=init):
        name = declarator.field("name")
        return flat(module, name) if name is not None else None
    for assignment in module.nodes("assignment_expression", within=init):
        return flat(module, assignment.field("left"))
    return None


def _selection(code: JsCode) -> tuple[str, JsPlace] | None:
    """The minimum's index tracked in an inner loop (`if (a[j] < a[m]) m = j`), then a
    swap into place in the loop around it; or the minimum taken out (`Math.min`,
    `splice`) and pushed."""
    for module, inner in code.nodes("for_statement"):
        around = enclosing_loops(inner)
        if not around:
            continue
        outer = around[0]
        j = _loop_variable(module, inner)
        tracked = {
            flat(module, s.target)
            for branch in module.nodes("if_statement", within=inner)
            for s in stores(module, branch)
            if s.op is None
            and s.value is not None
            and flat(module, s.value) == j
            and s.target.kind() == "identifier"
        }
        if not tracked:
            continue
        for swap in swaps(module, outer):
            if not within(inner, swap.statement) and {swap.first, swap.second} & tracked:
                return "tracks the minimum's index and swaps it into place", (
                    module,
                    swap.statement,
                )
    for module, outer in code.nodes(*LOOP_KINDS):
        text = flat(module, outer)
        if re.search(r"\bMath\.(min|max)\(", text) and ".splice(" in text and ".push(" in text:
            return "takes the minimum out and pushes it", (module, outer)
    return None


def selection_sort(code: JsCode) -> Judgement:
    """The minimum of the unsorted part found (an inner loop tracking its index) and
    swapped or moved into place, once per position."""
    selection = _selection(code)
    if selection:
        return found(f"{selection[0]} ({where(selection[1])})", selection[1])
    bubbles = _neighbour_swaps(code)
    if bubbles:
        module, _, swap = bubbles[0]
        at: JsPlace = (module, swap.statement)
        return missing(
            f"no minimum selected per position: swaps neighbours ({where(at)}), "
            "that is bubble or insertion sort",
            at,
        )
    return _without(code, "selection sort", "minimum selected and swapped into place per position")


_COMPARISONS = ("<", "<=", ">", ">=")


def _compares_two_runs(module: JsModule, test: SgNode) -> bool:
    """The test compares elements of two different arrays (`left[i].score >
    right[j].score`, `cmp(left[i], right[j]) <= 0`, `l[0] <= r[0]`)."""
    roots = {subscript_root(module, s) for s in module.nodes("subscript_expression", within=test)}
    roots.discard(None)
    return len(roots) >= 2 and any(
        op.text() in _COMPARISONS
        for comparison in module.nodes("binary_expression", within=test)
        for op in comparison.children()
        if not op.is_named()
    )


def _merges(code: JsCode) -> JsPlace | None:
    """A loop taking the smaller head of two sequences: an `if` in a loop comparing
    elements of two different arrays whose branch pushes or stores one of them, or a
    `cond ? l.shift() : r.shift()` pushed in a loop."""
    for module, branch in code.nodes("if_statement", "ternary_expression"):
        test = branch.field("condition")
        if test is None or not in_iteration(branch) or not _compares_two_runs(module, test):
            continue
        if branch.kind() == "ternary_expression":
            holder = branch.parent()
            call = holder.parent() if holder is not None else None
            pushed = holder is not None and holder.kind() == "arguments"
            if pushed and call is not None and member_name(call) == "push":
                return module, branch
            continue
        body = branch.field("consequence")
        text = flat(module, body) if body is not None else ""
        if ".push(" in text or "]=" in text:
            return module, branch
    return None


def _halves(text: str) -> bool:
    return bool(re.search(r"/2(?!\d)|>>>?1(?!\d)|\*0?\.5(?!\d)", text))


def _splits(code: JsCode) -> tuple[str, JsPlace] | None:
    """Recursion on both halves split at the middle, or a bottom-up width doubling."""
    for function in code.functions():
        body = function.body
        if body is None:
            continue
        if len(self_calls(function)) >= 2 and _halves(flat(function.module, body)):
            return "recursion on both halves", (function.module, function.node)
    for module, store in ((m, s) for m, scope in code.places for s in stores(m, scope)):
        value = flat(module, store.value) if store.value is not None else ""
        name = flat(module, store.target)
        doubles = (
            (store.op == "*=" and value == "2")
            or (store.op == "<<=" and value == "1")
            or (store.op is None and value in (f"{name}*2", f"2*{name}", f"{name}+{name}"))
        )
        if doubles and enclosing_loops(store.statement):
            return "a run width doubled in a loop (bottom-up)", (module, store.statement)
    return None


def _pivots(function: JsFunction) -> str | None:
    """A pivot of `function`: a name taken from the sequence (`a[hi]`, `xs[0]`) or called
    pivot, compared with elements (in the function or a callback of it: `xs.filter((x)
    => x < pivot)`)."""
    module, body = function.module, function.body
    if body is None:
        return None
    names = set()
    for store in stores(module, body):
        if store.target.kind() != "identifier" or store.op is not None or store.value is None:
            continue
        name, value = flat(module, store.target), flat(module, store.value)
        if "pivot" in name.lower() or re.fullmatch(r"[\w$.]+\[[^\]:]+\]", value):
            names.add(name)
    for comparison in module.nodes("binary_expression", within=body):
        operator = comparison.field("operator")
        if operator is None or operator.text() not in _COMPARISONS:
            continue
        sides = [flat(module, comparison.field("left")), flat(module, comparison.field("right"))]
        for side in sides:
            if side in names and any(other not in names for other in sides):
                return side
    return None


def exclusive(a: SgNode, b: SgNode) -> bool:
    """Whether two calls never both run: each is a `return`'s whole value, or they lie in
    the two branches of one `if`/`else` (or `?:`)."""

    def returned(node: SgNode) -> bool:
        parent = node.parent()
        return parent is not None and parent.kind() == "return_statement"

    if returned(a) and returned(b):
        return True
    for outer in a.ancestors():
        if outer.kind() not in ("if_statement", "ternary_expression") or not within(outer, b):
            continue
        first = outer.field("consequence")
        second = outer.field("alternative")
        if first is None or second is None:
            continue
        if (within(first, a) and within(second, b)) or (within(first, b) and within(second, a)):
            return True
    return False


def recursion_sides(code: JsCode, *, both: bool) -> JsPlace | None:
    """A function partitioning around a pivot (itself or through a helper it calls) and
    recursing on both sides (`both`) or on one side only."""
    partitioners = {f.name for f in code.functions() if f.name and _pivots(f)}
    for function in code.functions():
        recursion = self_calls(function)
        body = function.body
        if not recursion or body is None:
            continue
        called = {callee_name(c) for c in function.module.nodes("call_expression", within=body)}
        if function.name not in partitioners and not (called & partitioners):
            continue
        pairs = [(a, b) for i, a in enumerate(recursion) for b in recursion[i + 1 :]]
        if any(not exclusive(a, b) for a, b in pairs) == both:
            return function.module, function.node
    return None


def quicksort(code: JsCode) -> Judgement:
    """Partition around a pivot (compared with the elements, in the function or a
    helper) and recursion on both sides."""
    quick = recursion_sides(code, both=True)
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


def merge_sort(code: JsCode) -> Judgement:
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
                f"`{shown(*library)}` ({where(library)}), not merged",
                library,
            )
        return missing(f"{split[0]} ({where(split[1])}) but no merge of two sorted runs", split[1])
    pivot = recursion_sides(code, both=True)
    if pivot:
        return missing(f"partitions around a pivot ({where(pivot)}): that is quicksort", pivot)
    return _without(code, "merge sort", "recursion on halves with a merge of two sorted runs")

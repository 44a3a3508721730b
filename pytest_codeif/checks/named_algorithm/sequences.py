"""One-pass sequence recognisers: Kadane, Boyer-Moore voting, Fisher-Yates, Floyd's
cycle detection, two pointers, sliding window."""

from __future__ import annotations

import re
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    ITERATIONS,
    LOOPS,
    Store,
    calling,
    copy_of,
    enclosing,
    flat,
    function_of,
    loops_in,
    method_calls,
    parameters,
    positional,
    shown,
    stores,
    swaps,
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
from pytest_codeif.code.cst import ParsedModule, all_nodes


def refers(node: cst.CSTNode, name: str) -> bool:
    """Whether `node`'s text reads `name` (a name or `self.x`, also as `name[...]`)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", flat(node)) is not None


def _target(store: Store) -> str | None:
    """The running variable a store writes: `cur`, `self.cur`, or `dp` for `dp[i]`."""
    node = store.target
    while isinstance(node, cst.Subscript):
        node = node.value
    text = flat(node)
    return text if re.fullmatch(r"[\w.]+", text) else None


def _extends_or_restarts(store: Store, name: str) -> bool:
    """`cur = max(x, cur + x)`, `cur = max(0, cur + x)`, `cur = x if cur < 0 else cur + x`."""
    value = store.value
    options: list[cst.CSTNode] = []
    if isinstance(value, cst.Call) and flat(value.func) == "max":
        options = list(positional(value))
    elif isinstance(value, cst.IfExp):
        options = [value.body, value.orelse]
    if len(options) != 2:
        return False
    adds = [
        o
        for o in options
        if refers(o, name)
        and any(
            isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Add) for n in _walk(o)
        )
    ]
    return len(adds) == 1 and any(not refers(o, name) for o in options)


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    return all_nodes(node)


def _running(module: ParsedModule, loop: cst.CSTNode) -> tuple[str, Store] | None:
    """The running sum of a loop: extended or restarted in one assignment, or added to
    (`cur += x`) and reset elsewhere in the loop (`cur = 0`, `cur = max(cur, 0)`)."""
    body = stores(module, loop)
    for store in body:
        name = _target(store)
        if name and _extends_or_restarts(store, name):
            return name, store
    for store in body:
        name = _target(store)
        if not name:
            continue
        added = isinstance(store.op, cst.AddAssign) or (
            store.op is None
            and re.fullmatch(rf"{re.escape(name)}\+.+|.+\+{re.escape(name)}", flat(store.value))
        )
        if not added:
            continue
        resets = [
            s
            for s in body
            if s is not store
            and _target(s) == name
            and s.op is None
            and (not refers(s.value, name) or flat(s.value) in (f"max({name},0)", f"max(0,{name})"))
        ]
        if resets:
            return name, store
    return None


def _best(module: ParsedModule, scope: cst.CSTNode, running: str) -> cst.CSTNode | None:
    """`best = max(best, cur)`, or `if cur > best: best = cur`, or `max(dp)`."""
    for store in stores(module, scope):
        name = _target(store)
        if not name or name == running:
            continue
        value = store.value
        if isinstance(value, cst.Call) and flat(value.func) == "max":
            args = positional(value)
            if any(refers(a, running) for a in args) and any(refers(a, name) for a in args):
                return store.statement
        if flat(value).startswith(running) and refers(value, running):
            for test in module.nodes(cst.If, within=scope):
                text = flat(test.test)
                if (
                    refers(test.test, running)
                    and refers(test.test, name)
                    and (">" in text or "<" in text)
                    and any(s.statement is store.statement for s in stores(module, test.body))
                ):
                    found_test: cst.If = test
                    return found_test
    for call in module.nodes(cst.Call, within=scope):
        if flat(call.func) == "max" and [flat(a) for a in positional(call)] == [running]:
            found_call: cst.Call = call
            return found_call
    return None


def kadane(code: Code) -> Judgement:
    """One loop, not nested and with no loop inside, keeping a running sum that extends
    or restarts at each element and a running best."""
    nested: Place | None = None
    for module, loop in code.nodes(cst.For, cst.While):
        running = _running(module, loop)
        if running is None:
            continue
        scope = function_of(module, loop) or module.tree
        best = _best(module, scope, running[0])
        if best is None:
            continue
        if enclosing(module, loop, LOOPS) or loops_in(module, loop):
            nested = (module, loop)
            continue
        return found(
            f"one pass ({where((module, loop))}): `{shown(running[1].statement)}` extends or "
            f"restarts the running sum, `{shown(best)}` keeps the best",
            (module, loop),
        )
    if nested:
        return missing(
            "the running sum and best are kept inside nested loops "
            f"({where(nested)}): not a single pass",
            nested,
        )
    for module, loop in code.nodes(cst.For, cst.While):
        if any(isinstance(n, LOOPS) for n in loops_in(module, loop)):
            return missing(
                "no single loop keeping a running sum and a running best: tries every "
                f"subarray with nested loops ({where((module, loop))}), a brute force",
                (module, loop),
            )
    return missing(
        "no single loop keeping a running sum that restarts (cur = max(x, cur + x)) and a "
        "running best (best = max(best, cur))"
    )


def _zero_test(test: cst.CSTNode) -> str | None:
    """`count == 0`, `not count`, `count <= 0` -> "count"."""
    match = re.fullmatch(r"(\w+)(?:==0|<=0|<1)|0==(\w+)|not (\w+)", flat(test))
    if not match:
        return None
    return next(g for g in match.groups() if g)


def boyer_moore(code: Code) -> Judgement:
    """A loop keeping a candidate and a count: the candidate replaced when the count is
    zero, the count raised when the element equals it and lowered otherwise."""
    for module, loop in code.nodes(cst.For, cst.While):
        for branch in module.nodes(cst.If, within=loop):
            count = _zero_test(branch.test)
            if not count:
                continue
            candidates = [
                _target(s) for s in stores(module, branch.body) if _target(s) not in (None, count)
            ]
            counted = [
                s
                for s in stores(module, loop)
                if _target(s) == count
                and (
                    isinstance(s.op, (cst.AddAssign, cst.SubtractAssign))
                    or re.fullmatch(rf"{count}[+-]1|1 if .* else -1", flat(s.value))
                )
            ]
            if candidates and counted:
                candidate = candidates[0]
                return found(
                    f"candidate `{candidate}` taken when `{shown(branch.test)}` "
                    f"({where((module, branch))}), "
                    f"`{count}` raised or lowered as elements agree "
                    f"({where((module, counted[0].statement))})",
                    (module, loop),
                )
    counters = calling(code, "collections.Counter", "statistics.mode")
    if counters:
        return missing(
            f"no candidate and count: counts every value with {shown(counters[0][1].func)} "
            f"({where(counters[0])}), O(n) space, not the vote",
            counters[0],
        )
    tallies = [
        (m, s.statement)
        for m, node in code.nodes(cst.Assign, cst.AugAssign)
        for s in stores(m, node)
        if isinstance(s.target, cst.Subscript)
        and (isinstance(s.op, cst.AddAssign) or ".get(" in flat(s.value))
    ]
    if tallies:
        return missing(
            f"no candidate and count: tallies every value in a dict (`{shown(tallies[0][1])}`, "
            f"{where(tallies[0])}), O(n) space, not the vote",
            tallies[0],
        )
    return missing("no candidate replaced when its count falls to zero")


_RANDOM_INDEX: Final = (
    "random.randint",
    "random.randrange",
    "secrets.randbelow",
    "random.random",
    "random.choice",
)


def _bounds(call: cst.Call) -> tuple[str, str] | None:
    """The inclusive range (low, high) of the index a random call draws, as texts."""
    args = [flat(a) for a in positional(call)]
    func = flat(call.func).split(".")[-1]
    if func == "randint" and len(args) == 2:
        return args[0], args[1]
    if func in ("randrange", "randbelow") and len(args) == 1:
        return "0", _minus_one(args[0])
    if func == "randrange" and len(args) == 2:
        return args[0], _minus_one(args[1])
    return None


def _minus_one(text: str) -> str:
    if text.endswith("+1"):
        return text[:-2]
    return f"{text}-1"


def _drawn(
    module: ParsedModule, loop: cst.CSTNode, name: str
) -> tuple[cst.CSTNode, tuple[str, str] | None] | None:
    """Where the loop draws index `name` at random, with the drawn range when known."""
    for store in stores(module, loop):
        if flat(store.target) != name or store.op is not None:
            continue
        value = store.value
        for call in [value, *(_walk(value))]:
            if isinstance(call, cst.Call) and module.qualified(call.func) & set(_RANDOM_INDEX):
                bounds = _bounds(call)
                text = flat(value)
                scaled = re.fullmatch(r"int\(random\.random\(\)\*\(?([^()]+)\)?\)", text)
                if scaled:
                    bounds = ("0", _minus_one(scaled.group(1)))
                return store.statement, bounds
    return None


def fisher_yates(code: Code) -> Judgement:
    """A loop over positions that swaps each with one drawn at random from the part not
    yet fixed (`j = randint(0, i)` counting down, `randint(i, n - 1)` counting up), on the
    list itself (not a copy); `random.shuffle` on it only with `allow-library`."""
    problems: list[tuple[str, Place]] = []
    for module, loop in code.of(cst.For):
        i = flat(loop.target)
        for swap in swaps(module, loop.body):
            if i not in (swap.first, swap.second):
                continue
            j = swap.second if swap.first == i else swap.first
            drawn = _drawn(module, loop, j)
            if drawn is None:
                continue
            at: Place = (module, drawn[0])
            bounds = drawn[1]
            verdict = _shrinking(i, bounds)
            if verdict:
                problems.append((f"{verdict} (`{shown(drawn[0])}`, {where(at)})", at))
                continue
            copied = _copied(module, loop, swap.container)
            if copied:
                problems.append((copied, (module, swap.statement)))
                continue
            return found(
                f"swaps `{swap.container}[{i}]` with a position drawn from the part not yet "
                f"fixed (`{shown(drawn[0])}`, {where(at)}), in place",
                at,
            )
    if problems:
        return missing(problems[0][0], problems[0][1])
    library = calling(code, "random.shuffle")
    if library:
        module, call = library[0]
        args = positional(call)
        copied = _copied(module, call, flat(args[0])) if args else None
        if code.allow_library and not copied:
            return found(
                f"`{shown(call)}` shuffles the list in place ({where(library[0])})", library[0]
            )
        if copied:
            return missing(copied, library[0])
        return missing(
            f"no swap loop: calls random.shuffle ({where(library[0])}) instead of writing "
            "the Fisher-Yates loop",
            library[0],
        )
    sampled = calling(code, "random.sample")
    if sampled:
        return missing(
            f"random.sample ({where(sampled[0])}) returns a new list: no in-place swap loop",
            sampled[0],
        )
    return missing("no loop swapping each position with one drawn at random from the rest")


def _shrinking(i: str, bounds: tuple[str, str] | None) -> str | None:
    """Why the drawn range is not Fisher-Yates's, or None when it is."""
    if bounds is None:
        return None  # drawn some other way (`choice(range(i + 1))`): accepted
    low, high = bounds
    if (low == "0" and high == i) or (
        low == i and not re.search(rf"(?<!\w){re.escape(i)}(?!\w)", high)
    ):
        return None
    if (low == "0" and high == f"{i}-1") or low == f"{i}+1":
        return (
            "draws the other position strictly before (or after) i: that is Sattolo's "
            "algorithm, which yields only cyclic permutations"
        )
    if not re.search(rf"(?<!\w){re.escape(i)}(?!\w)", low + "," + high):
        return (
            "draws the other position from the whole list, not from the part not yet fixed: "
            "that shuffle is biased"
        )
    return None


def _copied(module: ParsedModule, node: cst.CSTNode, container: str) -> str | None:
    """Why shuffling `container` is not in place: it is a local copy of a parameter."""
    function = function_of(module, node)
    if function is None:
        return None
    params = parameters(function)
    if container in params or container.startswith("self."):
        return None
    for store in stores(module, function):
        if flat(store.target) == container and store.op is None:
            source = copy_of(store.value)
            if source in params:
                return (
                    f"shuffles `{container}`, a copy of the parameter `{source}` "
                    f"({where((module, store.statement))}), not the list in place"
                )
    return None


def floyd_cycle(code: Code) -> Judgement:
    """A slow pointer advanced one step and a fast one two steps in the same loop
    (`slow = slow.next`, `fast = fast.next.next`, or `f(f(x))`, `a[a[x]]`), compared."""
    for module, loop in code.nodes(cst.While, cst.For):
        moves = {flat(s.target): flat(s.value) for s in stores(module, loop) if s.op is None}
        slow = [
            t
            for t, v in moves.items()
            if re.fullmatch(rf"{re.escape(t)}\.\w+|\w+\({re.escape(t)}\)|\w+\[{re.escape(t)}\]", v)
        ]
        fast = [
            t
            for t, v in moves.items()
            if re.fullmatch(
                rf"{re.escape(t)}\.(\w+)\.\1|(\w+)\(\2\({re.escape(t)}\)\)|(\w+)\[\3\[{re.escape(t)}\]\]",
                v,
            )
        ]
        for s in slow:
            for f in fast:
                compared = any(
                    refers(c, s) and refers(c, f)
                    for c in module.nodes(
                        cst.Comparison, within=function_of(module, loop) or module.tree
                    )
                )
                if compared and s != f:
                    return found(
                        f"`{s}` moves one step and `{f}` two per iteration "
                        f"({where((module, loop))}), "
                        "until they meet",
                        (module, loop),
                    )
    added = method_calls(code, "add")
    if added:
        return missing(
            f"no slow and fast pointers: remembers visited nodes in a set (`{shown(added[0][1])}`, "
            f"{where(added[0])}), O(n) space, not Floyd's two pointers",
            added[0],
        )
    return missing("no slow pointer moving one step and fast pointer moving two in one loop")


def two_pointers(code: Code) -> Judgement:
    """Two indexes into one sequence moved in one loop: from both ends towards each other
    (`while left < right`, `left += 1`, `right -= 1`), or a slow write index behind a
    fast read index."""
    for module, loop in code.of(cst.While):
        match = re.fullmatch(r"(\w+)<=?(\w+)", flat(loop.test))
        if not match:
            continue
        low, high = match.groups()
        ups = _steps(module, loop, low, "+")
        downs = _steps(module, loop, high, "-")
        if ups and downs:
            return found(
                f"`{low}` and `{high}` move towards each other in one loop "
                f"({where((module, loop))})",
                (module, loop),
            )
    for module, scan in code.of(cst.For):
        fast = flat(scan.target)
        for store in stores(module, scan.body):
            target = store.target
            if isinstance(target, cst.Subscript) and fast in flat(store.value):
                slow = target.slice[0].slice
                slow_text = flat(slow)
                if (
                    slow_text != fast
                    and re.fullmatch(r"\w+", slow_text)
                    and _steps(module, scan, slow_text, "+")
                ):
                    return found(
                        f"a write index `{slow_text}` follows the read index `{fast}` "
                        f"({where((module, scan))})",
                        (module, scan),
                    )
    for module, outer in code.nodes(cst.For, cst.While):
        inner = [n for n in loops_in(module, outer) if isinstance(n, LOOPS)]
        if inner:
            return missing(
                f"no two indexes moving in one loop: checks every pair with nested loops "
                f"({where((module, outer))})",
                (module, outer),
            )
    return missing("no two indexes moving through one sequence in a single loop")


def _steps(module: ParsedModule, loop: cst.CSTNode, name: str, sign: str) -> bool:
    op = cst.AddAssign if sign == "+" else cst.SubtractAssign
    for store in stores(module, loop):
        if flat(store.target) != name:
            continue
        if isinstance(store.op, op):
            return True
        if store.op is None and re.fullmatch(rf"{name}\{sign}\w+", flat(store.value)):
            return True
    return False


def sliding_window(code: Code) -> Judgement:
    """A window moved along a sequence by adding the entering element and removing the
    leaving one in the same loop (`total += a[right]`, `total -= a[left]`; counts up and
    down; or `total += a[i] - a[i - k]`), or a deque of indexes trimmed at the front."""
    for module, loop in code.nodes(cst.For, cst.While):
        entering = {r for st in stores(module, loop) if (r := _window_change(st, "+"))}
        leaving = {r for st in stores(module, loop) if (r := _window_change(st, "-"))}
        window = sorted(entering & leaving)
        if window:
            return found(
                f"`{window[0]}` gains the entering element and loses the leaving one in one loop "
                f"({where((module, loop))})",
                (module, loop),
            )
        for store in stores(module, loop):
            if isinstance(store.op, cst.AddAssign) and re.fullmatch(
                r"\w+\[\w+\]-\w+\[\w+-\w+\]", flat(store.value)
            ):
                return found(
                    f"`{shown(store.statement)}` slides a fixed window ({where((module, loop))})",
                    (module, loop),
                )
        if _trimmed_window(module, loop):
            return found(
                "a deque window: appended at the back, trimmed at the front "
                f"({where((module, loop))})",
                (module, loop),
            )
    for module, call in code.of(cst.Call):
        if flat(call.func) in ("sum", "max", "min", "len", "set") and call.args:
            argument = call.args[0].value
            if (
                isinstance(argument, cst.Subscript)
                and isinstance(argument.slice[0].slice, cst.Slice)
                and enclosing(module, call, ITERATIONS)
            ):
                return missing(
                    f"no window carried from step to step: recomputes each window "
                    f"(`{shown(call)}`, {where((module, call))})",
                    (module, call),
                )
    return missing("no window updated by adding the entering element and removing the leaving one")


def _trimmed_window(module: ParsedModule, loop: cst.CSTNode) -> bool:
    """A deque appended to in the loop and trimmed at the front when its oldest entry
    leaves the window (`if dq[0] <= i - k: dq.popleft()`, `while len(dq) > k: ...`), not
    a queue worked through (BFS)."""
    appended = {
        flat(c.func)[: -len(".append")]
        for c in module.nodes(cst.Call, within=loop)
        if flat(c.func).endswith(".append")
    }
    for test_owner in module.nodes(cst.If, cst.While, within=loop):
        if test_owner is loop:
            continue
        test = flat(test_owner.test)
        body = flat(test_owner.body)
        for name in appended:
            window_test = f"{name}[0]" in test or f"len({name})" in test
            if window_test and f"{name}.popleft()" in body:
                return True
    return False


def _window_change(store: Store, sign: str) -> str | None:
    """The window a store changes by an element (`total += a[r]`, `counts[c] -= 1`,
    `seen[c] = seen.get(c, 0) + 1`), for `sign` "+" (entering) or "-" (leaving)."""
    name = _target(store)
    if name is None:
        return None
    op = cst.AddAssign if sign == "+" else cst.SubtractAssign
    by_element = isinstance(store.target, cst.Subscript) or isinstance(store.value, cst.Subscript)
    if isinstance(store.op, op) and by_element:
        return name
    if store.op is None and isinstance(store.target, cst.Subscript):
        value = flat(store.value)
        if refers(store.value, name) and re.search(rf"\{sign}1$", value):
            return name
    return None


RECOGNISERS: Final = (
    Recogniser(
        "kadane",
        "Kadane's algorithm",
        "one loop, neither nested nor holding another, with a running sum that extends or "
        "restarts (`cur = max(x, cur + x)`, or `cur += x` with a reset) and a running best "
        "(`best = max(best, cur)`)",
        kadane,
        (
            "kadane algorithm",
            "kadanes",
            "maximum subarray kadane",
            # The problem's name: Kadane's one pass is the algorithm instructions mean by it.
            "maximum subarray",
            "maximum subarray problem",
            "maximum subarray approach",
        ),
        satisfied=(
            Example(
                """
                def max_subarray(xs):
                    best = cur = xs[0]
                    for x in xs[1:]:
                        cur = max(x, cur + x)
                        best = max(best, cur)
                    return best
                """
            ),
            Example(
                """
                def max_subarray(xs):
                    best, cur = float("-inf"), 0
                    for x in xs:
                        cur += x
                        if cur > best:
                            best = cur
                        if cur < 0:
                            cur = 0
                    return best
                """
            ),
        ),
        violated=(
            Example(
                """
                def max_subarray(xs):
                    best = xs[0]
                    for i in range(len(xs)):
                        for j in range(i, len(xs)):
                            best = max(best, sum(xs[i:j + 1]))
                    return best
                """,
                "tries every subarray with nested loops",
            ),
        ),
    ),
    Recogniser(
        "boyer-moore-voting",
        "the Boyer-Moore majority vote",
        "one loop with a candidate replaced when the count is zero and the count raised or "
        "lowered as elements agree with it; counting every value (Counter, a dict) is not it",
        boyer_moore,
        (
            "boyer moore voting",
            "boyer moore majority vote",
            "boyer moore majority voting",
            "majority vote",
            "moore voting",
        ),
        satisfied=(
            Example(
                """
                def majority(xs):
                    candidate, count = None, 0
                    for x in xs:
                        if count == 0:
                            candidate = x
                        count += 1 if x == candidate else -1
                    return candidate
                """
            ),
        ),
        violated=(
            Example(
                """
                from collections import Counter

                def majority(xs):
                    return Counter(xs).most_common(1)[0][0]
                """,
                "counts every value",
            ),
        ),
    ),
    Recogniser(
        "fisher-yates",
        "the Fisher-Yates shuffle",
        "a loop swapping each position i with one drawn from the part not yet fixed "
        "(`randint(0, i)` counting down, `randint(i, n - 1)` counting up) on the list itself, "
        "not a copy; Sattolo's `randint(0, i - 1)` and the biased `randint(0, n - 1)` are "
        "near misses; `random.shuffle` of the list only with `allow-library`",
        fisher_yates,
        ("fisher yates shuffle", "knuth shuffle", "durstenfeld shuffle"),
        satisfied=(
            Example(
                """
                import random

                def shuffle(xs):
                    for i in range(len(xs) - 1, 0, -1):
                        j = random.randint(0, i)
                        xs[i], xs[j] = xs[j], xs[i]
                """
            ),
            Example(
                """
                import random

                def shuffle(xs):
                    n = len(xs)
                    for i in range(n - 1):
                        j = random.randrange(i, n)
                        xs[i], xs[j] = xs[j], xs[i]
                """
            ),
            Example(
                "import random\n\ndef shuffle(xs):\n    random.shuffle(xs)\n",
                options={"allow-library": True},
            ),
        ),
        violated=(
            Example(
                """
                import random

                def shuffle(xs):
                    for i in range(len(xs)):
                        j = random.randint(0, len(xs) - 1)
                        xs[i], xs[j] = xs[j], xs[i]
                """,
                "that shuffle is biased",
            ),
            Example(
                """
                import random

                def shuffle(xs):
                    out = list(xs)
                    for i in range(len(out) - 1, 0, -1):
                        j = random.randint(0, i)
                        out[i], out[j] = out[j], out[i]
                    return out
                """,
                "a copy of the parameter `xs`",
            ),
            Example(
                "import random\n\ndef shuffle(xs):\n    random.shuffle(xs)\n",
                "calls random.shuffle",
            ),
        ),
        generic=("in place shuffle", "in place shuffling", "shuffle in place", "random shuffle"),
    ),
    Recogniser(
        "floyd-cycle",
        "Floyd's cycle detection",
        "a slow pointer moved one step and a fast pointer two steps in the same loop "
        "(`slow.next`, `fast.next.next`; `f(f(x))`; `a[a[x]]`), compared; a visited set "
        "is the near miss",
        floyd_cycle,
        (
            "floyd cycle detection",
            "floyd cycle finding",
            "tortoise and hare",
            "floyd tortoise and hare",
            "floyd cycle",
        ),
        satisfied=(
            Example(
                """
                def has_cycle(head):
                    slow = fast = head
                    while fast and fast.next:
                        slow = slow.next
                        fast = fast.next.next
                        if slow is fast:
                            return True
                    return False
                """
            ),
        ),
        violated=(
            Example(
                """
                def has_cycle(head):
                    seen = set()
                    while head:
                        if id(head) in seen:
                            return True
                        seen.add(id(head))
                        head = head.next
                    return False
                """,
                "remembers visited nodes in a set",
            ),
        ),
    ),
    Recogniser(
        "two-pointers",
        "the two-pointer technique",
        "two indexes moved in one loop: from both ends towards each other (`while left < "
        "right`, `left += 1`, `right -= 1`) or a write index following a read index",
        two_pointers,
        ("two pointer", "two pointers technique", "two pointer technique"),
        satisfied=(
            Example(
                """
                def pair_sum(xs, target):
                    left, right = 0, len(xs) - 1
                    while left < right:
                        total = xs[left] + xs[right]
                        if total == target:
                            return left, right
                        if total < target:
                            left += 1
                        else:
                            right -= 1
                    return None
                """
            ),
        ),
        violated=(
            Example(
                """
                def pair_sum(xs, target):
                    for i in range(len(xs)):
                        for j in range(i + 1, len(xs)):
                            if xs[i] + xs[j] == target:
                                return i, j
                    return None
                """,
                "checks every pair with nested loops",
            ),
        ),
    ),
    Recogniser(
        "sliding-window",
        "a sliding window",
        "a window carried along a sequence: the entering element added and the leaving one "
        "removed in the same loop (`total += a[r]`, `total -= a[l]`, counts up and down, or "
        "`total += a[i] - a[i - k]`), or a deque of indexes trimmed at the front; "
        "recomputing `sum(a[i:i + k])` is the near miss",
        sliding_window,
        ("sliding window technique", "sliding windows"),
        satisfied=(
            Example(
                """
                def best_window(xs, k):
                    total = sum(xs[:k])
                    best = total
                    for i in range(k, len(xs)):
                        total += xs[i] - xs[i - k]
                        best = max(best, total)
                    return best
                """
            ),
            Example(
                """
                def longest_unique(s):
                    seen, left, best = {}, 0, 0
                    for right, ch in enumerate(s):
                        seen[ch] = seen.get(ch, 0) + 1
                        while seen[ch] > 1:
                            seen[s[left]] -= 1
                            left += 1
                        best = max(best, right - left + 1)
                    return best
                """
            ),
        ),
        violated=(
            Example(
                """
                def best_window(xs, k):
                    return max(sum(xs[i:i + k]) for i in range(len(xs) - k + 1))
                """,
                "recomputes each window",
            ),
        ),
    ),
)

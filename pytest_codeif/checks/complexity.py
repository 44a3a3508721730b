"""The `complexity` check: time or memory grows no faster than a required class,
measured by running the function on growing inputs in the sandbox."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared.structure import find_function, parameters, require_function
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.functional.growth import canonical, fit, within
from pytest_codeif.functional.input_inference import Case, NoTemplate, Plan, infer
from pytest_codeif.functional.measure import Request

_RULE = "complexity"
_NAMES: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
DEFAULT_SIZES = (1000, 2000, 4000, 8000, 16000)


def _show(cost: float, measure: str) -> str:
    if measure == "space":
        return f"{cost / 1024:.0f} KiB" if cost >= 1024 else f"{cost:.0f} B"
    return f"{cost * 1e6:.0f} µs" if cost < 1e-3 else f"{cost * 1e3:.1f} ms"


class ComplexityCheck(Check):
    """Time or memory grows no faster than a required class, measured on growing inputs.

    Why: "must run in O(n log n)" or "O(1) extra space" is about growth, which neither a
    linter nor a type checker sees. The function runs in the sandbox on inputs of each
    size, built by the task's `input` expression (in `n`, with `random` seeded by `n`;
    building is not measured): time is the best of three rounds of calls, memory the
    peak tracemalloc sees during one call (what the call allocates, inputs excluded;
    the call stack is not an allocation it sees, so deep recursion costs no space here).
    Neither figure is the code's word: the harness's supervisor, outside the process the
    code runs in, reads that process's CPU time from the kernel (the code can start no
    process to hide work in: a measured call that forks is an error), and accepts a
    memory peak only when it covers the kernel's count of the process's resident growth
    during the call (up to 4x plus 256 KiB of allocator slack; a patched counter is a
    `protocol` error). What is not caught: results the measured calls return are not
    checked (code that answers fast, and wrongly, when its inputs are large reads fast),
    work the code does while its inputs are copied (hooking `pickle` or `gc`) is not
    timed, memory the code made resident before the call and reuses is not seen growing,
    and a memoised function reads as its cache, since batches repeat the same inputs.

    Without `input`, the inputs are grown from the task's call cases (as BigO(Bench)
    does): the largest case of `function` that returned is the template, and each of its
    lists, strings, dicts, graphs, matrices and linked nodes grows to n elements drawn
    like the case's (same types, ranges, character classes; sorted or distinct when every
    case's is). An int is a size when no argument is a collection or text (`fib(10)`:
    n runs from 8 to 4096); beside a collection it is held at the case's value, or drawn
    from the collection when it is one of its elements (a search target); likewise a str.
    A matrix grows to n x n (n from 16 to 256); collections grow to 1,000-64,000
    elements. Steep code stops early (a size whose measurement would take over a third
    of the timeout is not started); of the sizes measured, the five largest are fitted
    (small ones cost about the timer's resolution, or fit in the processor's cache).
    `hold` and `scale` (parameter names) override the choice of what grows. The evidence
    says how each argument grew.

    The slope of log(cost) against log(n) estimates the polynomial degree; the check
    passes when it is at most the required class's degree plus one half. So measurement
    tells O(n) from O(n^2), not O(n) from O(n log n), and O(1) from O(n), not from
    O(log n). The evidence lists each size's cost and the slope. Costs near timer
    resolution (1 µs) or allocator slack (4 KiB) count as constant. If the larger sizes
    time out, the sizes measured (at least three) are fitted. Timing depends on the
    machine's load: a slope near a threshold can change between runs, so leave room
    (sizes spanning 16x or more, work of at least a millisecond at the largest size).
    A function the code does not define is a violation, as calling it fails a
    functional test.

    Options: `function` (required), `input` (a Python expression in `n` giving the
    positional arguments as a list, or `{args: [...], kwargs: {...}}`; without it the
    task's call cases are grown), `time` and/or `space` (a class: O(1), O(log n), O(n),
    O(n log n), O(n^2), O(n^2 log n), O(n^3), O(2^n)), `sizes` (at least three; default
    1000 to 16000, or the grown inputs' own), `hold` / `scale` (parameters to keep at
    the case's value / to grow, for grown inputs).

    JavaScript and TypeScript: growth is measured by running the code, and Node runs
    call cases but measures no growth: V8 compiles a function anew as it warms up and
    frees memory when its collector chooses, so neither a CPU time nor a heap figure per
    call is stable enough to fit a curve to without the wall-clock-sensitive sampling
    the Python side avoids. A `complexity` constraint on JS/TS files is an error at its
    `time` (or `space`) option, never a pass.

    Example:

        - check: complexity
          function: sort_items
          input: "[[random.random() for _ in range(n)]]"
          time: O(n log n)
    """

    name = "complexity"
    category = "Algorithm"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Use an algorithm and data structures of the required growth (a set or dict for "
        "lookups, sorting once instead of nested scans, no copies of the input)."
    )
    observes_calls = True  # without `input`, the call cases are the inputs' template
    measures = True
    _CLASS: ClassVar[Mapping[str, Any]] = {"type": "string", "minLength": 4}
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function"],
        "anyOf": [{"required": ["time"]}, {"required": ["space"]}],
        "properties": {
            "function": {"type": "string", "pattern": "^[A-Za-z_]\\w*$"},
            "input": {"type": "string", "minLength": 1},
            "time": _CLASS,
            "space": _CLASS,
            "sizes": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1},
                "minItems": 3,
                "uniqueItems": True,
            },
            "hold": _NAMES,
            "scale": _NAMES,
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "def total(xs):\n    return sum(xs)\n",
            {
                "function": "total",
                "input": "[list(range(n))]",
                "time": "O(n)",
                "space": "O(1)",
                # The default sizes: lists that stay in the CPU's caches. Past a few MB a
                # list's sum is bound by memory bandwidth, which busy neighbours share,
                # and on a loaded CI machine O(n) code read as O(n^2).
            },
        ),
        Sample(
            "def pairs(xs):\n    return sum(a * b for a in xs for b in xs)\n",
            {
                "function": "pairs",
                "input": "[list(range(n))]",
                "time": "O(n^2)",
                "sizes": [100, 200, 400, 800],
            },
        ),
        Sample(
            """
            from functools import lru_cache

            @lru_cache(maxsize=None)
            def fib(n):
                return n if n < 2 else fib(n - 1) + fib(n - 2)
            """,
            {"function": "fib", "time": "O(n)"},
            calls=[{"function": "fib", "args": [10]}],
        ),
        Sample(
            "def lookup(table, key):\n    return table.get(key)\n",
            {"function": "lookup", "time": "O(1)"},
            calls=[{"function": "lookup", "args": [{"a1": 1, "b2": 2, "c3": 3}, "b2"]}],
        ),
    )
    violated_by = (
        Sample(
            "def has_dup(xs):\n    return any(a == b for i, a in enumerate(xs)"
            " for b in xs[i + 1:])\n",
            {
                "function": "has_dup",
                "input": "[list(range(n))]",
                "time": "O(n)",
                "sizes": [200, 400, 800, 1600],
            },
        ),
        Sample(
            "def copy_all(xs):\n    return [x for x in xs]\n",
            {
                "function": "copy_all",
                "input": "[list(range(n))]",
                "space": "O(1)",
                # The default sizes: lists that stay in the CPU's caches. Past a few MB a
                # list's sum is bound by memory bandwidth, which busy neighbours share,
                # and on a loaded CI machine O(n) code read as O(n^2).
            },
        ),
        Sample(
            """
            def fib(n):
                return n if n < 2 else fib(n - 1) + fib(n - 2)
            """,
            {"function": "fib", "time": "O(n)"},
            calls=[{"function": "fib", "args": [10]}],
            message="inputs grown from case",
        ),
        Sample(
            """
            def sort_items(xs):
                xs = list(xs)
                for i in range(len(xs)):
                    for j in range(len(xs) - 1 - i):
                        if xs[j] > xs[j + 1]:
                            xs[j], xs[j + 1] = xs[j + 1], xs[j]
                return xs
            """,
            {"function": "sort_items", "time": "O(n log n)", "sizes": [250, 500, 1000, 2000]},
            calls=[{"function": "sort_items", "args": [[5, 3, 9, 1, 7]]}],
        ),
        # Each call changes its input: timed one call at a time on fresh inputs. With the
        # process clock (4 ms ticks under RLIMIT_CPU) every call read as 0 and this passed
        # as O(1). Each step scans the list (`min`), not only moves it (`pop(0)`, a memmove
        # of a few microseconds): under a loaded machine's noise a memmove's growth was
        # read as flat now and then, and the sample must prove the verdict every time.
        Sample(
            "def kth(heap, k):\n    for _ in range(k - 1):\n        heap.remove(min(heap))\n"
            "    return min(heap)\n",
            {"function": "kth", "time": "O(1)", "hold": ["k"]},
            calls=[{"function": "kth", "args": [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 9]}],
            message="like O(n)",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.required = {
            what: canonical(str(options[what])) for what in ("time", "space") if what in options
        }
        if "input" in options:
            try:
                compile(str(options["input"]), "<input>", "eval")
            except SyntaxError as exc:
                raise ValueError(f"`input` is not a Python expression: {exc.msg}") from None
        self.sizes = tuple(sorted(options["sizes"])) if "sizes" in options else None

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        if ctx.js_modules():
            measure = "time" if "time" in self.options else "space"
            raise Undecidable(
                "invalid-task",
                f"`{measure}` is measured by running the function on growing inputs, and "
                "the Node harness runs call cases but measures no growth (V8's tiering "
                "compiler and garbage-collected heap give no stable CPU or memory figure "
                "per call): no verdict",
                key_path=(measure,),
            )
        missing = _missing_function(ctx, self.options["function"])
        if missing is not None:
            return [missing]
        function = self.options["function"]
        plan = None if "input" in self.options else self._plan(ctx)
        findings: list[Finding] = []
        for measure, required in self.required.items():
            sizes, fit_last = self._sizes(plan, measure)
            request = Request(
                function,
                str(self.options.get("input", "")),
                sizes,
                measure,
                json.dumps(plan.description) if plan else "",
            )
            points = ctx.measure(request)
            fitted = points[-fit_last:] if fit_last else points
            measured = fit([p[0] for p in fitted], [p[1] for p in fitted], measure)
            shown = ", ".join(f"n={s}: {_show(c, measure)}" for s, c in points)
            evidence = (
                f"{measure} grows with slope {measured.slope:.2f}, like {measured.reads_as}; "
                f"required {required} ({shown})"
            )
            if plan is not None:
                evidence += f"; {plan.words}"
            if within(measured, required):
                ctx.notes.append(evidence)
            else:
                findings.append(Finding(evidence, _RULE))
        return findings

    def _sizes(self, plan: Plan | None, measure: str) -> tuple[tuple[int, ...], int | None]:
        """The sizes to run and how many of the largest measured to fit. Grown inputs
        measured for space start two halvings lower: tracemalloc slows steep code down
        several times, and with the smaller sizes it still gives three before the budget
        stops it (memory is exact: small sizes are no noisier than large ones)."""
        if self.sizes is not None:
            return self.sizes, None
        if plan is None:
            return DEFAULT_SIZES, None
        if measure == "space" and plan.sizes[0] >= 4:
            first = plan.sizes[0]
            return (first // 4, first // 2, *plan.sizes), plan.fit_last or len(plan.sizes)
        return plan.sizes, plan.fit_last

    def _plan(self, ctx: CheckContext) -> Plan:
        """Inputs grown from the call cases of the function that returned."""
        function = self.options["function"]
        ref = find_function(ctx, function)
        names = [p.name.value for p in parameters(ref.node.params)] if ref else []
        if names[:1] in (["self"], ["cls"]):
            names = names[1:]
        cases = [
            Case(case.label, case.args, case.kwargs)
            for case, result in ctx.observed()
            if case.function == function.rpartition(".")[2] and case.args_known and result.returned
        ]
        try:
            return infer(
                cases,
                names,
                hold=frozenset(self.options.get("hold", ())),
                scale=frozenset(self.options.get("scale", ())),
            )
        except NoTemplate as exc:
            raise Undecidable(
                "no-observations", f"no `input` to grow `{function}` on: {exc}"
            ) from None


def _missing_function(ctx: CheckContext, name: str) -> Finding | None:
    """A finding when the code defines no function `name` and binds the name in no
    other way either: the code's fault, not the checker's (measuring it would crash)."""
    found = require_function(ctx, name, _RULE)
    if not isinstance(found, Finding) or any(_binds(m, name) for m in ctx.modules()):
        return None  # bound some other way (`f = cache(g)`, an import): measuring decides
    return found


def _binds(module: ParsedModule, name: str) -> bool:
    """Whether `module` may bind `name` other than by `def`: a class, an import, an
    assignment anywhere, or a star import or `globals()` (which may bind anything)."""
    if name in module.names.imports or name in module.names.defined:
        return True
    if any(isinstance(node.names, cst.ImportStar) for node in module.nodes(cst.ImportFrom)):
        return True
    targets: list[cst.CSTNode] = [
        node.target for node in module.nodes(cst.AssignTarget, cst.AnnAssign, cst.For)
    ]
    targets += [node.target for node in module.nodes(cst.NamedExpr)]
    targets += [item.asname.name for item in module.nodes(cst.WithItem) if item.asname]
    bound = {n.value for t in targets for n in module.walk(t) if isinstance(n, cst.Name)}
    calls = {node.func.value for node in module.nodes(cst.Call) if isinstance(node.func, cst.Name)}
    return name in bound or bool(calls & {"globals", "exec", "setattr"})

"""The `complexity` check: time or memory grows no faster than a required class,
measured by running the function on growing inputs in the sandbox."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.structure import require_function
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.functional.growth import canonical, fit, within
from pytest_codeif.functional.measure import Request

_RULE = "complexity"
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
    peak tracemalloc sees during one call (what the call allocates, inputs excluded).
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

    Options: `function` (required), `input` (required: a Python expression in `n`
    giving the positional arguments as a list, or `{args: [...], kwargs: {...}}`),
    `time` and/or `space` (a class: O(1), O(log n), O(n), O(n log n), O(n^2),
    O(n^2 log n), O(n^3), O(2^n)), `sizes` (at least three, default 1000 to 16000).

    Example:

        - check: complexity
          function: sort_items
          input: "[[random.random() for _ in range(n)]]"
          time: O(n log n)
    """

    name = "complexity"
    category = "Algorithm"
    _CLASS: ClassVar[Mapping[str, Any]] = {"type": "string", "minLength": 4}
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function", "input"],
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
                "sizes": [20000, 40000, 80000, 160000],
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
                "sizes": [20000, 40000, 80000, 160000],
            },
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.required = {
            what: canonical(str(options[what])) for what in ("time", "space") if what in options
        }
        try:
            compile(str(options["input"]), "<input>", "eval")
        except SyntaxError as exc:
            raise ValueError(f"`input` is not a Python expression: {exc.msg}") from None
        self.sizes = tuple(sorted(options.get("sizes", DEFAULT_SIZES)))

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        missing = _missing_function(ctx, self.options["function"])
        if missing is not None:
            return [missing]
        findings: list[Finding] = []
        for measure, required in self.required.items():
            request = Request(self.options["function"], self.options["input"], self.sizes, measure)
            points = ctx.measure(request)
            sizes, costs = [p[0] for p in points], [p[1] for p in points]
            measured = fit(sizes, costs, measure)
            shown = ", ".join(f"n={s}: {_show(c, measure)}" for s, c in points)
            evidence = (
                f"{measure} grows with slope {measured.slope:.2f}, like {measured.reads_as}; "
                f"required {required} ({shown})"
            )
            if within(measured, required):
                ctx.notes.append(evidence)
            else:
                findings.append(Finding(evidence, _RULE))
        return findings


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

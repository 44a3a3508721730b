"""The `values` check: values a function returns, observed when its call cases run,
are of the stated type, range, precision and size."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared.js_functions import find_js_function
from pytest_codeif.checks.shared.js_signatures import js_params
from pytest_codeif.checks.shared.shapes import SHAPES, describe, type_name, value_has_shape
from pytest_codeif.checks.shared.structure import parameters, require_function
from pytest_codeif.functional.plain import (
    DEFAULT,
    Tolerance,
    Unsupported,
    decode,
    plain_equal,
    show,
    tolerance,
)
from pytest_codeif.safe_regex import PatternError, SubjectTooLong, compile_pattern

if TYPE_CHECKING:
    from pytest_codeif.outcome import CaseResult
    from pytest_codeif.spec import CallCase

_RULE = "values"
#: The `approx` option: the call cases' own form (see `functional.plain.tolerance`).
APPROX: Final = {
    "oneOf": [
        {"type": "number", "minimum": 0},
        {
            "type": "object",
            "minProperties": 1,
            "properties": {
                "rel": {"type": "number", "minimum": 0},
                "abs": {"type": "number", "minimum": 0},
            },
            "additionalProperties": False,
        },
    ],
    "x-message": "a tolerance: a number (absolute; 0 is exact) or {rel: R, abs: A}",
}
TYPES: Final = (
    "str",
    "int",
    "float",
    "number",
    "bool",
    "list",
    "tuple",
    "dict",
    "set",
    "none",
    *SHAPES,
)
_SCALAR: Final[dict[str, Any]] = {
    "type": {"enum": list(TYPES)},
    "min": {"type": "number"},
    "max": {"type": "number"},
    "decimals": {"type": "integer", "minimum": 0},
    "min-length": {"type": "integer", "minimum": 0},
    "max-length": {"type": "integer", "minimum": 0},
    "pattern": {"type": "string", "format": "regex"},
    "one-of": {"type": "array", "minItems": 1},
}
_INNERMOST: Final = {"type": "object", "properties": _SCALAR, "additionalProperties": False}
#: Specs nest three deep (a matrix's rows, and their cells): `items` of `items`.
_INNER: Final = {
    "type": "object",
    "properties": {**_SCALAR, "items": _INNERMOST, "keys": _INNERMOST},
    "additionalProperties": False,
}
SPEC: Final = {
    "type": "object",
    "minProperties": 1,
    "properties": {
        **_SCALAR,
        "items": _INNER,
        "keys": _INNER,
        "positions": {"type": "array", "items": _INNER, "minItems": 1},
        "leaves": _INNERMOST,
    },
    "additionalProperties": False,
}


def _is_type(value: Any, wanted: str) -> bool:
    if wanted in SHAPES:
        return value_has_shape(value, wanted) is not False
    actual = type_name(value)
    if wanted == "number":
        return actual in ("int", "float")
    return actual == wanted


def decimals(value: float) -> int:
    """Decimal places of the shortest repr of `value` (0.1 + 0.2 shows 17)."""
    exponent = Decimal(repr(value)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def violations(
    value: Any, spec: Mapping[str, Any], where: str, within: Tolerance = DEFAULT
) -> Iterator[str]:
    """What is wrong with `value` (decoded) under `spec`; `where` names it in messages.
    Floats meet a bound, an allowed value or a number of decimals within `within`."""
    wanted = spec.get("type")
    if isinstance(value, Unsupported) and not (wanted == "tree" and _is_type(value, wanted)):
        yield f"{where} is {value.what}, not plain data"
        return
    if wanted is not None and not _is_type(value, wanted):
        what = describe(value) if wanted in SHAPES else f"a {type_name(value)}"
        yield f"{where} is {what} ({show(value, 60)}), expected {wanted}"
        return
    yield from _scalar(value, spec, where, within)
    yield from _contents(value, spec, where, within)


def _scalar(value: Any, spec: Mapping[str, Any], where: str, within: Tolerance) -> Iterator[str]:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    # A float a rounding error past a bound meets it (100.00000000000001 is 100).
    if number and "min" in spec and value < spec["min"] and not within.close(value, spec["min"]):
        yield f"{where} = {value!r} is below the minimum {spec['min']}"
    if number and "max" in spec and value > spec["max"] and not within.close(value, spec["max"]):
        yield f"{where} = {value!r} is above the maximum {spec['max']}"
    if isinstance(value, float) and "decimals" in spec and not _has_decimals(value, spec, within):
        yield f"{where} = {value!r} has more than {spec['decimals']} decimal places"
    sized = isinstance(value, (str, list, tuple, dict))
    if sized and "min-length" in spec and len(value) < spec["min-length"]:
        yield f"{where} has {len(value)} items/characters, fewer than {spec['min-length']}"
    if sized and "max-length" in spec and len(value) > spec["max-length"]:
        yield f"{where} has {len(value)} items/characters, more than {spec['max-length']}"
    if isinstance(value, str) and "pattern" in spec and not _matches(spec["pattern"], value):
        yield f"{where} = {show(value, 60)} does not match {spec['pattern']!r}"
    if "one-of" in spec and not any(_same(value, v, within) for v in spec["one-of"]):
        yield f"{where} = {show(value, 60)} is not one of {spec['one-of']}"


def _has_decimals(value: float, spec: Mapping[str, Any], within: Tolerance) -> bool:
    """`value` has at most `decimals` places, or is within tolerance of a value that has
    (`0.1 + 0.2` shows 17 places but is 0.3 up to rounding)."""
    places = int(spec["decimals"])
    if decimals(value) <= places:
        return True
    try:
        return within.close(value, round(value, places))
    except (OverflowError, ValueError):  # inf or nan: no places to round to
        return False


def _same(value: Any, allowed: Any, within: Tolerance) -> bool:
    """An observed value is an allowed one: of the same type (2.0 is not the int 2), and
    equal, a float within the tolerance, a list item by item as call cases compare."""
    return type(value) is type(allowed) and plain_equal(value, allowed, within)


def _contents(value: Any, spec: Mapping[str, Any], where: str, within: Tolerance) -> Iterator[str]:
    if "items" in spec and isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        for index, item in enumerate(items):
            yield from violations(item, spec["items"], f"{where}[{index}]", within)
    if "keys" in spec and isinstance(value, dict):
        for key in value:
            yield from violations(key, spec["keys"], f"a key of {where}", within)
    if "positions" in spec and isinstance(value, (list, tuple)):
        positions = spec["positions"]
        if len(value) != len(positions):
            yield f"{where} has {len(value)} items, expected {len(positions)}"
        else:
            for index, (item, inner) in enumerate(zip(value, positions, strict=True)):
                yield from violations(item, inner, f"{where}[{index}]", within)
    if "leaves" in spec:
        for at, leaf in _leaves(value, where):
            yield from violations(leaf, spec["leaves"], at, within)


def _leaves(value: Any, where: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every scalar inside nested lists, tuples and dict values, with where it is."""
    if isinstance(value, dict) and depth < 32:
        for key, inner in value.items():
            yield from _leaves(inner, f"{where}[{key!r}]", depth + 1)
    elif isinstance(value, (list, tuple)) and depth < 32:
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{where}[{index}]", depth + 1)
    else:
        yield where, value


class ValuesCheck(Check):
    """Returned values, observed when the task's call cases run, meet a value spec.

    Why: "return the average rounded to two decimals", "a score between 0 and 100", "a
    tuple of (set, int, bool)" are promises about values, which annotations cannot show
    and which code without annotations still keeps or breaks. The check runs nothing of
    its own: it reads the values the task's call cases returned (the code runs once for
    the functional item and this check), decoded in the trusted process. Cases that
    raised are left to the functional item; with no returned value at all the check is
    undecidable (`no-observations`).

    Inputs: with `params` (parameter name to spec), no case whose arguments meet the
    specs may be rejected (the function handles its whole stated range): raising
    ValueError, AssertionError or an exception class of the code's own is rejecting it;
    any other exception (KeyError, IndexError...) is a crash the functional item reports,
    and with `reject-outside: true` every case with an argument outside its spec must
    raise (the function validates its inputs). The arguments come from the task's cases,
    so write cases inside and outside the range. `arguments` (a spec) does the same for
    every argument of the spec's `type` (every argument when it names none), for ranges
    stated without a parameter name ("integer inputs between 0 and 1000").

    JavaScript and TypeScript: the values Node's call cases return, read as plain data
    as their cases compare them (an array is a list, an object a dict, a Map a dict, a
    Set a set; a whole number is an int and any other a float, as JavaScript has one
    number type: `type: float` accepts both). Rejecting an input is throwing a
    `RangeError`, an `Error` or a class of the code's own (JavaScript's `TypeError`
    is a crash, as Python's is).

    Options: `returns` (a spec) and/or `params` or `arguments` with `function`;
    `function` (only cases calling it); `reject-outside` (bool); `approx` (how close a
    float must come to a bound, an allowed value or a number of decimals: by default
    within rounding, relative 1e-9 or absolute 1e-12, so `0.1 + 0.2` has 1 decimal and
    `100.00000000000001` is at most 100; a number is an absolute tolerance, 0 exact;
    `{rel: R, abs: A}` either, as for call cases). A spec
    has any of: `type` (str, int, float, number, bool, list, tuple, dict, set, none, or
    a shape: graph, matrix, tree, json-text, datetime-text, read as the `types` check
    reads them; `min-length`/`max-length` of a graph count its nodes, of a matrix its
    rows, whose `items` are its rows),
    `min`, `max`, `decimals` (at most this many decimal places), `min-length`,
    `max-length`, `pattern` (regex a string must match), `one-of` (allowed values), and
    for containers `items` (a spec for every element, or every value of a dict), `keys`
    (dict keys), `positions` (one spec per position, for fixed-size tuples), `leaves`
    (a spec for every scalar inside, however deeply nested).

    Example:

        - check: values
          function: average
          returns: {type: float, min: 0, max: 100, decimals: 2}
    """

    name = "values"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Interface Specification"
    advice = (
        "Make the function return values that meet the stated spec (type, range, decimals, "
        "length, allowed values) for every case, and where inputs outside the stated range must "
        "be rejected, raise an exception for them."
    )
    observes_calls = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [
            {"required": ["returns"]},
            {"required": ["params", "function"]},
            {"required": ["arguments", "function"]},
        ],
        "properties": {
            "returns": SPEC,
            "params": {"type": "object", "additionalProperties": SPEC, "minProperties": 1},
            "arguments": SPEC,
            "reject-outside": {"type": "boolean"},
            "function": {"type": "string", "minLength": 1},
            "approx": APPROX,
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "function grade(score) {\n  if (!(score >= 0 && score <= 100)) throw new RangeError"
            "(`${score}`);\n  return Math.floor(score / 10);\n}\n",
            {
                "function": "grade",
                "params": {"score": {"type": "int", "min": 0, "max": 100}},
                "reject-outside": True,
                "returns": {"type": "int", "min": 0, "max": 10},
            },
            calls=[{"function": "grade", "args": [100]}, {"function": "grade", "args": [-5]}],
            language="javascript",
        ),
        Sample(
            "def grade(score):\n    if not 0 <= score <= 100:\n        raise ValueError(score)\n"
            "    return score // 10\n",
            {
                "function": "grade",
                "params": {"score": {"type": "int", "min": 0, "max": 100}},
                "reject-outside": True,
            },
            calls=[{"function": "grade", "args": [100]}, {"function": "grade", "args": [-5]}],
        ),
        Sample(
            "def average(xs):\n    return round(sum(xs) / len(xs), 2)\n",
            {"returns": {"type": "float", "min": 0, "max": 100, "decimals": 2}},
            calls=[{"function": "average", "args": [[1, 2, 4]]}],
        ),
        Sample(
            "def stats(xs):\n    return set(xs), len(xs), bool(xs)\n",
            {
                "returns": {
                    "type": "tuple",
                    "positions": [{"type": "set"}, {"type": "int"}, {"type": "bool"}],
                }
            },
            calls=[{"function": "stats", "args": [[1, 1, 2]]}],
        ),
        Sample(
            "def rotate(m):\n    return [list(row) for row in zip(*m[::-1])]\n",
            {
                "function": "rotate",
                "arguments": {
                    "type": "matrix",
                    "min-length": 2,
                    "max-length": 10,
                    "items": {"min-length": 2, "max-length": 10, "items": {"type": "int"}},
                },
                "returns": {"type": "matrix"},
            },
            calls=[{"function": "rotate", "args": [[[1, 2], [3, 4]]]}],
        ),
        Sample(
            "import json\n\ndef report(totals):\n    return json.dumps({'total': sum(totals)})\n",
            {"returns": {"type": "json-text"}},
            calls=[{"function": "report", "args": [[1, 2]]}],
        ),
        Sample(  # 0.30000000000000004 is 0.3, with 1 decimal, up to rounding
            "def total(prices):\n    return sum(prices)\n",
            {"returns": {"type": "float", "decimals": 2, "max": 0.3, "one-of": [0.3, 0.6]}},
            calls=[{"function": "total", "args": [[0.1, 0.2]]}],
        ),
    )
    violated_by = (
        Sample(
            "exports.mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;\n",
            {"returns": {"type": "float", "decimals": 2}},
            calls=[{"function": "mean", "args": [[1, 2, 2]]}],
            message="decimal",
            language="javascript",
        ),
        Sample(
            "def count(start, end):\n    if end > 500:\n        raise ValueError(end)\n"
            "    return end - start\n",
            {"function": "count", "arguments": {"type": "int", "min": 0, "max": 1000}},
            calls=[{"function": "count", "args": [0, 1000]}],
            message="in range, but it raised",
        ),
        Sample(
            "def report(totals):\n    return str({'total': sum(totals)})\n",
            {"returns": {"type": "json-text"}},
            calls=[{"function": "report", "args": [[1, 2]]}],
            message="expected json-text",
        ),
        Sample(
            "def grade(score):\n    if score > 100:\n        raise ValueError('too high')\n"
            "    return score // 10\n",
            {
                "function": "grade",
                "params": {"score": {"min": 0, "max": 100}},
                "reject-outside": True,
            },
            calls=[{"function": "grade", "args": [100]}, {"function": "grade", "args": [-5]}],
        ),
        Sample(
            "def average(xs):\n    return sum(xs) / len(xs)\n",
            {"returns": {"type": "float", "decimals": 2}},
            calls=[{"function": "average", "args": [[1, 2, 4]]}],
        ),
        Sample(
            "def grade(x):\n    return x * 10\n",
            {"returns": {"type": "int", "min": 0, "max": 100}},
            calls=[{"function": "grade", "args": [5]}, {"function": "grade", "args": [50]}],
        ),
        Sample(  # `approx: 0` compares exactly: 0.30000000000000004 is not 0.3
            "def total(prices):\n    return sum(prices)\n",
            {"returns": {"one-of": [0.3, 0.6]}, "approx": 0},
            calls=[{"function": "total", "args": [[0.1, 0.2]]}],
            message="is not one of",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.within = tolerance(options.get("approx"))
        specs = [("returns", options.get("returns"))]
        specs += [(f"params.{k}", v) for k, v in (options.get("params") or {}).items()]
        specs += [("arguments", options.get("arguments"))]
        for where, spec in specs:
            for at, pattern in spec_patterns(spec, where):
                try:
                    compile_pattern(pattern)
                except PatternError as exc:
                    raise ValueError(f"{at}: {exc}") from None

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        function = self.options.get("function")
        observed = [
            (case, result)
            for case, result in ctx.observed()
            if function is None or case.function == function
        ]
        if not observed:
            scope = f" calling `{function}`" if function else ""
            raise Undecidable("invalid-task", f"the task has no call cases{scope} to observe")
        findings: list[Finding] = []
        if "params" in self.options or "arguments" in self.options:
            findings += self._inputs(ctx, observed)
        if "returns" in self.options:
            returned = [(case, result) for case, result in observed if result.returned]
            if not returned:
                raise Undecidable(
                    "no-observations", "no call case returned a value (each raised or crashed)"
                )
            findings += [
                _at(case, problem)
                for case, result in returned
                for problem in violations(
                    decode(result.value), self.options["returns"], "the result", self.within
                )
            ]
        return findings

    def _inputs(
        self, ctx: CheckContext, observed: list[tuple[CallCase, CaseResult]]
    ) -> list[Finding]:
        """Cases whose arguments meet the specs must return; with `reject-outside`,
        cases with an argument outside its spec must raise."""
        function = str(self.options.get("function"))
        js_function = find_js_function(ctx.js_modules(), function)
        if js_function is not None:
            names = [p.name for p in js_params(js_function)]
        else:
            ref = require_function(ctx, function, _RULE)
            if isinstance(ref, Finding):
                return [ref]
            names = [p.name.value for p in parameters(ref.node.params)]
            names = [n for n in names if n not in ("self", "cls")]
        findings: list[Finding] = []
        for case, result in observed:
            if not (result.returned or result.raised) or not case.args_known:
                continue  # crashed or timed out (the functional item reports it), or
                # an expression whose arguments are not literals: no way to bind them
            bound = dict(zip(names, case.args, strict=False)) | case.kwargs
            outside = [
                problem
                for name, spec in (self.options.get("params") or {}).items()
                if name in bound
                for problem in violations(bound[name], spec, f"`{name}`", self.within)
            ]
            outside += self._arguments(case, names)
            raised = _raised_text(result.message) if result.raised else ""
            if not outside and raised and _rejects(raised):
                findings.append(_at(case, f"the arguments are in range, but it raised {raised}"))
            elif outside and self.options.get("reject-outside") and result.returned:
                shown = show(decode(result.value), 60)
                findings.append(
                    _at(case, f"{outside[0]}, but it returned {shown} (expected it to raise)")
                )
        return findings

    def _arguments(self, case: CallCase, names: list[str]) -> list[str]:
        """What is wrong with the case's arguments of the `arguments` spec's type."""
        spec = self.options.get("arguments")
        if spec is None:
            return []
        wanted = spec.get("type")
        values = [
            (f"`{names[i]}`" if i < len(names) else f"argument {i + 1}", v)
            for i, v in enumerate(case.args)
        ]
        values += [(f"`{k}`", v) for k, v in case.kwargs.items()]
        return [
            problem
            for where, value in values
            if wanted is None or _is_type(value, wanted)
            for problem in violations(value, spec, where, self.within)
        ]


#: Builtin exceptions that reject an input on purpose; every other builtin one is a bug.
_REJECTIONS: Final = frozenset({"ValueError", "AssertionError"})
_BUILTIN_EXCEPTIONS: Final = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _raised_text(message: str) -> str:
    """`ValueError: ...` of a case's message: Python's cases say `raised`, Node's
    `threw`."""
    for said in ("but it raised ", "but it threw "):
        if said in message:
            return message.partition(said)[2]
    return ""


def _rejects(raised: str) -> bool:
    """Whether `ValueError: ...`-like text names an exception raised to reject an input:
    ValueError, AssertionError, or a class that is no builtin (the code's own)."""
    name = raised.partition(":")[0].strip().rpartition(".")[2]
    return name in _REJECTIONS or name not in _BUILTIN_EXCEPTIONS


def _at(case: CallCase, problem: str) -> Finding:
    return Finding(f"{case.label}: {problem}", _RULE, line=case.location.line, in_task_file=True)


def _matches(pattern: str, value: str) -> bool:
    """`value` (returned by the code: hostile) matches the task's `pattern`, in linear
    time; a value too long to look at cannot be judged."""
    try:
        return compile_pattern(pattern).fullmatch(value)
    except SubjectTooLong as exc:
        raise Undecidable("too-large", f"a returned string of {exc.length} characters") from None


def spec_patterns(spec: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every `pattern` in a value spec, with where it is (`returns.items.pattern`)."""
    if not isinstance(spec, Mapping):
        return
    if isinstance(spec.get("pattern"), str):
        yield f"{where}.pattern", spec["pattern"]
    for key in ("items", "keys", "leaves"):
        yield from spec_patterns(spec.get(key), f"{where}.{key}")
    for index, inner in enumerate(spec.get("positions") or ()):
        yield from spec_patterns(inner, f"{where}.positions[{index}]")

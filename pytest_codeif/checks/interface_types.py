"""The `types` check: a function's parameter and return types, read from its annotations,
or, where it has none, from the values observed when its call cases run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.annotations import normalize_annotation, type_matches
from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.signature import parameters
from pytest_codeif.checks.structure import code_of, require_function
from pytest_codeif.checks.values import type_name
from pytest_codeif.functional.plain import decode

_RULE = "types"
_NUMERIC = {"float": {"int", "float"}, "complex": {"int", "float", "complex"}}


def _parts(expected: str) -> tuple[str, list[str]]:
    """`tuple[set, int]` -> ("tuple", ["set", "int"]); `list[int]` -> ("list", ["int"])."""
    node = cst.parse_expression(expected)
    if isinstance(node, cst.Subscript):
        items = [code_of(e.slice.value) for e in node.slice if isinstance(e.slice, cst.Index)]
        return code_of(node.value), items
    return code_of(node), []


def value_is(value: Any, expected: str) -> bool:
    """Whether an observed (decoded) value is of the normalized type `expected`; for a
    `tuple[...]` each position is compared too. YAML has no tuple or set, so a list
    argument is not evidence for or against them (the caller skips those)."""
    base, items = _parts(expected)
    actual = type_name(value)
    if base == "None":
        return value is None
    if actual not in _NUMERIC.get(base, {base}):
        return False
    if base == "tuple" and items and items[-1] != "...":
        return len(value) == len(items) and all(
            value_is(v, i) for v, i in zip(value, items, strict=True)
        )
    return True


@dataclass
class _State:
    """What the comparisons share: the observations (read once) and what they found."""

    observed: Callable[[], list[tuple[Any, Any]]]
    findings: list[str]
    unknown: list[str]


class TypesCheck(Check):
    """A function takes and returns the stated types: by annotation, or by observation.

    Why: "write `stats(log: str) -> tuple[set, int, bool]`" is an interface promise. Read
    only from annotations (as MultiCodeIF's scripts do), correct code without annotations
    fails; so where a parameter or the return is annotated, the annotation decides (by
    meaning: `Tuple[Set[str], int]` is a `tuple[set, int]`), and where it is not, the
    values seen when the task's call cases run decide: a parameter takes a type when at
    least one case passing such a value returned (tests pass wrong types on purpose, so
    one bad argument proves nothing), and every returned value must be of the return
    type, with positions of a tuple compared one by one and an int accepted as a float.
    A list argument says nothing about tuple or set parameters (YAML has neither). With
    no annotation and nothing observed the check is undecidable (`no-observations`).

    Options: `function` (required), `param-types` (the types of all parameters but
    self/cls, in order; with `param-match: in-order`, types that occur among the
    parameters in this order, others allowed between), `param-type` (some parameter
    has this type), `returns` (the return type); at least one of the last three.

    Example:

        - check: types
          function: stats
          param-types: [str]
          returns: tuple[set, int, bool]
    """

    name = "types"
    category = "Interface Specification"
    observes_calls = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function"],
        "anyOf": [
            {"required": ["param-types"]},
            {"required": ["param-type"]},
            {"required": ["returns"]},
        ],
        "properties": {
            "function": {"type": "string", "minLength": 1},
            "param-types": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "param-type": {"type": "string"},
            "param-match": {"enum": ["exact", "in-order"]},
            "returns": {"type": "string"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "def stats(log):\n    words = log.split()\n"
            "    return set(words), len(words), bool(words)\n",
            {"function": "stats", "param-types": ["str"], "returns": "tuple[set, int, bool]"},
            calls=[{"function": "stats", "args": ["a b a"]}],
        ),
        Sample(
            "from typing import Set, Tuple\n\ndef stats(log: str) -> Tuple[Set[str], int]:\n"
            "    return set(), 0\n",
            {"function": "stats", "param-types": ["str"], "returns": "tuple[set, int]"},
        ),
        Sample(
            "def page(items: list, number: int, size: int) -> list:\n    return items\n",
            {"function": "page", "param-types": ["int", "int"], "param-match": "in-order"},
        ),
        Sample(
            "def filter_data(records, criteria):\n    return [r for r in records if criteria]\n",
            {"function": "filter_data", "param-type": "dict"},
            calls=[
                {"function": "filter_data", "args": [[{"a": 1}], {"a": 1}]},
                {"function": "filter_data", "args": [[], 2.5]},
            ],
        ),
    )
    violated_by = (
        Sample(
            "def stats(log):\n    words = log.split()\n    return [len(words), words]\n",
            {"function": "stats", "returns": "tuple[int, list]"},
            calls=[{"function": "stats", "args": ["a b"]}],
        ),
        Sample(
            "def mean(xs: list) -> str:\n    return str(sum(xs) / len(xs))\n",
            {"function": "mean", "param-types": ["list"], "returns": "float"},
        ),
        Sample(
            "def mean(xs, scale):\n    return sum(xs) * scale\n",
            {"function": "mean", "param-types": ["list"]},
        ),
        Sample(
            "def page(number: int, items: list) -> list:\n    return items\n",
            {"function": "page", "param-types": ["int", "int"], "param-match": "in-order"},
        ),
        Sample(
            "def count(limit):\n    return list(range(int(limit)))\n",
            {"function": "count", "param-type": "int"},
            calls=[{"function": "count", "args": ["5"]}],
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.param_types = [normalize_annotation(t) for t in options.get("param-types", [])]
        self.param_type = (
            normalize_annotation(options["param-type"]) if "param-type" in options else None
        )
        self.returns = normalize_annotation(options["returns"]) if "returns" in options else None

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        ref = require_function(ctx, self.options["function"], _RULE)
        if isinstance(ref, Finding):
            return [ref]
        params = [p for p in parameters(ref.node.params) if p.name.value not in ("self", "cls")]
        findings: list[str] = []
        unknown: list[str] = []

        @cache  # the functional run is read only if an unannotated type needs it
        def observed() -> list[tuple[Any, Any]]:
            try:
                return [
                    (case, decode(result.value))
                    for case, result in ctx.observed()
                    if result.returned and case.function == ref.node.name.value
                ]
            except Undecidable:
                return []

        state = _State(observed, findings, unknown)
        if self.param_types and self.options.get("param-match") == "in-order":
            self._in_order(state, params)
        elif self.param_types:
            if len(params) != len(self.param_types):
                shown = ", ".join(p.name.value for p in params)
                findings.append(
                    f"takes {len(params)} parameters ({shown}), expected "
                    f"{len(self.param_types)} ({', '.join(self.options['param-types'])})"
                )
            else:
                for index, (param, expected) in enumerate(
                    zip(params, self.param_types, strict=True)
                ):
                    self._param(state, param, index, expected)
        if self.param_type is not None:
            self._any_param(state, params, self.param_type)
        if self.returns is not None:
            self._return(state, ref.node, self.returns)
        if unknown and not findings:
            raise Undecidable(
                "no-observations",
                f"{', '.join(unknown)} of `{ref.qualname}`: no annotation, and no call case "
                "that returned shows the type",
            )
        return [
            Finding(f"`{ref.qualname}` {m}", _RULE, ref.module.relpath, ref.line) for m in findings
        ]

    @staticmethod
    def _judge_param(state: _State, param: cst.Param, index: int, expected: str) -> tuple[str, str]:
        """("match" | "mismatch" | "unknown", why) for one parameter."""
        name = param.name.value
        if param.annotation is not None:
            actual = normalize_annotation(param.annotation.annotation)
            if type_matches(actual, expected):
                return "match", ""
            return "mismatch", f"parameter `{name}` is annotated `{actual}`, expected `{expected}`"
        seen = []
        for case, _ in state.observed():
            value = (
                case.kwargs[name]
                if name in case.kwargs
                else (case.args[index] if index < len(case.args) else None)
            )
            if value is None or (
                isinstance(value, list) and _parts(expected)[0] in ("tuple", "set")
            ):
                continue
            seen.append(value)
        if not seen:
            return "unknown", f"parameter `{name}`"
        # The tests choose the arguments (some on purpose of the wrong type): the function
        # takes the type when at least one call with such a value returned.
        if any(value_is(v, expected) for v in seen):
            return "match", ""
        kinds = sorted({type_name(v) for v in seen})
        return "mismatch", (
            f"parameter `{name}` (unannotated) returned only for {'/'.join(kinds)} "
            f"arguments, never for `{expected}`"
        )

    def _param(self, state: _State, param: cst.Param, index: int, expected: str) -> None:
        verdict, why = self._judge_param(state, param, index, expected)
        if verdict == "mismatch":
            state.findings.append(why)
        elif verdict == "unknown":
            state.unknown.append(why)

    def _in_order(self, state: _State, params: list[cst.Param]) -> None:
        """The listed types occur among the parameters in this order (others may come
        between): greedy matching, taking the first parameter that matches each type."""
        start = 0
        for expected in self.param_types:
            for index in range(start, len(params)):
                verdict, why = self._judge_param(state, params[index], index, expected)
                if verdict == "unknown":
                    state.unknown.append(why)
                    return
                if verdict == "match":
                    start = index + 1
                    break
            else:
                shown = ", ".join(p.name.value for p in params) or "none"
                wanted = ", ".join(self.options["param-types"])
                state.findings.append(
                    f"has no parameters of types ({wanted}) in this order (parameters: {shown})"
                )
                return

    def _any_param(self, state: _State, params: list[cst.Param], expected: str) -> None:
        judged = [self._judge_param(state, p, i, expected) for i, p in enumerate(params)]
        if any(v == "match" for v, _ in judged):
            return
        unknown = [why for v, why in judged if v == "unknown"]
        if unknown:
            state.unknown.extend(unknown)
        else:
            shown = ", ".join(p.name.value for p in params) or "none"
            state.findings.append(f"has no parameter of type `{expected}` (parameters: {shown})")

    @staticmethod
    def _return(state: _State, node: cst.FunctionDef, expected: str) -> None:
        observed, findings, unknown = state.observed, state.findings, state.unknown
        if node.returns is not None:
            actual = normalize_annotation(node.returns.annotation)
            if not type_matches(actual, expected):
                findings.append(f"returns `{actual}` by its annotation, expected `{expected}`")
            return
        values = [value for _, value in observed()]
        if not values:
            unknown.append("the return type")
            return
        wrong = [v for v in values if not value_is(v, expected)]
        if wrong:
            shown = type_name(wrong[0])
            if shown == "tuple":
                shown = "tuple[" + ", ".join(type_name(v) for v in wrong[0]) + "]"
            findings.append(f"returned a {shown} (no return annotation), expected `{expected}`")

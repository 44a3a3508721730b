"""The `types` check on JavaScript and TypeScript functions: TypeScript's annotations
decide where they are written (compared by meaning, `shared/ts_types.py`), and where
they are not (JavaScript, or an unannotated TypeScript parameter) the values Node's call
cases passed and returned, as for Python: a parameter takes a type when at least one
case passing such a value returned, and every returned value must be of the return
type. JavaScript has one number type: a whole number is an int and any other a float,
and `number` (or `float`) accepts both. A shape (`graph`, `matrix`...) is judged by
the values alone. An unannotated TypeScript parameter with a literal default has the
default's type (`min = 1` is a number), as the compiler reads it. Python's third way,
reading the code's uses, is not made for JS/TS: with neither annotation nor observation
the check is undecidable (`no-observations`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_codeif.checks.base import CheckContext, Finding
from pytest_codeif.checks.shared.js_functions import JsFunction
from pytest_codeif.checks.shared.js_signatures import JsParam, js_params, js_returns
from pytest_codeif.checks.shared.shapes import is_shape, type_name
from pytest_codeif.checks.shared.ts_types import (
    PYTHON_OF,
    TsType,
    from_node,
    from_text,
    matches,
)
from pytest_codeif.functional.plain import decode
from pytest_codeif.outcome import Undecidable

_RULE = "types"
ValueIs = Callable[[Any, str], bool]


def python_type(expected: str) -> str:
    """The Python type observed values are judged by: a shape or a Python spelling as
    it is, a TypeScript one by its kind (`number[]` is a list, `Map<K, V>` a dict)."""
    if is_shape(expected):
        return expected
    kind = from_text(expected)
    if kind.kind == "|":
        return " | ".join(PYTHON_OF.get(a.kind, a.kind) for a in kind.args)
    if kind.kind == "number" and expected.strip() in ("int", "float"):
        return expected.strip()
    return PYTHON_OF.get(kind.kind, kind.kind)


class JsTypes:
    """One function's types judged (see the module doc)."""

    def __init__(self, ctx: CheckContext, function: JsFunction, value_is: ValueIs) -> None:
        self.ctx = ctx
        self.function = function
        self.value_is = value_is
        self.params = js_params(function)
        self.findings: list[str] = []
        self.unknown: list[str] = []
        self._observed: list[tuple[Any, Any]] | None = None
        #: Why the last parameter judged is not a match.
        self._why = ""

    def observed(self) -> list[tuple[Any, Any]]:
        """(case, returned value) of the cases calling the function and returning."""
        if self._observed is None:
            try:
                self._observed = [
                    (case, decode(result.value))
                    for case, result in self.ctx.observed()
                    if result.returned and case.function == self.function.name
                ]
            except Undecidable:
                self._observed = []
        return self._observed

    def judge_param(self, index: int, param: JsParam, expected: str) -> str:
        """ "match", "mismatch" (with a finding kept) or "unknown"."""
        inferred = _inferred(param) if self.function.module.language == "typescript" else None
        if inferred is not None and not is_shape(expected):
            if matches(inferred, from_text(expected)):
                return "match"
            self._why = (
                f"parameter `{param.name}` is a {inferred} by its default, expected `{expected}`"
            )
            return "mismatch"
        if param.annotation is not None and not is_shape(expected):
            if matches(from_node(param.annotation), from_text(expected)):
                return "match"
            self._why = (
                f"parameter `{param.name}` is annotated `{param.annotation_text}`, "
                f"expected `{expected}`"
            )
            return "mismatch"
        seen = [
            case.args[index]
            for case, _ in self.observed()
            if case.args_known and index < len(case.args)
        ]
        if not seen:
            self._why = f"parameter `{param.name}`"
            return "unknown"
        wanted = python_type(expected)
        if any(self.value_is(v, wanted) for v in seen):
            return "match"
        kinds = " / ".join(sorted({type_name(v) for v in seen}))
        self._why = (
            f"parameter `{param.name}` (unannotated) returned only for {kinds} arguments, "
            f"never for `{expected}`"
        )
        return "mismatch"

    def param(self, index: int, param: JsParam, expected: str) -> None:
        verdict = self.judge_param(index, param, expected)
        if verdict == "mismatch":
            self.findings.append(self._why)
        elif verdict == "unknown":
            self.unknown.append(self._why)

    def returns(self, expected: str) -> None:
        annotation = js_returns(self.function)
        if annotation is not None and not is_shape(expected):
            if not matches(from_node(annotation), from_text(expected), returned=True):
                self.findings.append(
                    f"returns `{annotation.text()}` by its annotation, expected `{expected}`"
                )
            return
        values = [value for _, value in self.observed()]
        if not values:
            self.unknown.append("the return type")
            return
        wanted = python_type(expected)
        wrong = [v for v in values if not self.value_is(v, wanted)]
        if wrong:
            self.findings.append(
                f"returned a {type_name(wrong[0])} (no return annotation), expected `{expected}`"
            )

    def in_order(self, expected: list[str]) -> None:
        start = 0
        for wanted in expected:
            for index in range(start, len(self.params)):
                verdict = self.judge_param(index, self.params[index], wanted)
                if verdict == "unknown":
                    self.unknown.append(self._why)
                    return
                if verdict == "match":
                    start = index + 1
                    break
            else:
                shown = ", ".join(p.name for p in self.params) or "none"
                self.findings.append(
                    f"has no parameters of types ({', '.join(expected)}) in this order "
                    f"(parameters: {shown})"
                )
                return

    def any_param(self, expected: str) -> None:
        verdicts = []
        whys = []
        for index, param in enumerate(self.params):
            verdicts.append(self.judge_param(index, param, expected))
            whys.append(self._why if verdicts[-1] != "match" else "")
        if "match" in verdicts:
            return
        unknown = [w for v, w in zip(verdicts, whys, strict=True) if v == "unknown"]
        if unknown:
            self.unknown.extend(unknown)
        else:
            shown = ", ".join(p.name for p in self.params) or "none"
            self.findings.append(f"has no parameter of type `{expected}` (parameters: {shown})")


_LITERALS = {"number": "number", "string": "string", "true": "boolean", "false": "boolean"}


def _inferred(param: JsParam) -> TsType | None:
    """The type TypeScript gives an unannotated parameter from its literal default
    (`min = 1` is a number)."""
    if param.annotation is not None or param.default_value is None:
        return None
    kind = _LITERALS.get(param.default_value.kind())
    return TsType(kind) if kind is not None else None


def evaluate_js(
    options: dict[str, Any], ctx: CheckContext, function: JsFunction, value_is: ValueIs
) -> list[Finding]:
    """The `types` check's findings for a JS/TS function (see the module doc)."""
    judge = JsTypes(ctx, function, value_is)
    types = list(options.get("param-types", []))
    if types and options.get("param-match") == "in-order":
        judge.in_order(types)
    elif types:
        if len(judge.params) != len(types):
            shown = ", ".join(p.name for p in judge.params)
            judge.findings.append(
                f"takes {len(judge.params)} parameters ({shown}), expected "
                f"{len(types)} ({', '.join(types)})"
            )
        else:
            for index, (param, expected) in enumerate(zip(judge.params, types, strict=True)):
                judge.param(index, param, expected)
    if "param-type" in options:
        judge.any_param(str(options["param-type"]))
    if "returns" in options:
        judge.returns(str(options["returns"]))
    name = function.qualname or function.name or "<anonymous>"
    if judge.unknown and not judge.findings:
        raise Undecidable(
            "no-observations",
            f"{'; '.join(judge.unknown)} of `{name}`: no annotation and no call case that "
            "returned shows the type",
        )
    return [
        Finding(f"`{name}` {m}", _RULE, function.module.relpath, function.line)
        for m in judge.findings
    ]

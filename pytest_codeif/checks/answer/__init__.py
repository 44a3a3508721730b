"""The `answer` check: one step of an answer task (PACIFIC) answered right, read from
the response's `[ANSWER][i] literal [\\ANSWER]` tags, strictly and loosely."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from pytest_codeif.checks.answer.literal import (
    AnswerValue,
    Reading,
    equal,
    read_literal,
    read_loose,
    read_strict,
    type_name,
)
from pytest_codeif.checks.answer.tags import Tagged, loose_answers, strict_answers
from pytest_codeif.checks.base import Finding, ResponseCheck, ResponseJudgement, Sample

#: Characters of an answer kept in records and messages (answers are hostile text).
MAX_GOT: Final = 200
Reason = Literal["missing", "unparsable", "type-mismatch", "duplicate", "wrong"]


@dataclass(frozen=True)
class StepJudgement:
    """One reading's judgement of a step: satisfied, or violated and why."""

    reason: Reason | None
    got: str | None
    line: int | None
    message: str

    def entry(self) -> dict[str, object]:
        """As a record's `AnswerJudgement`."""
        status = "satisfied" if self.reason is None else "violated"
        return {"status": status, "reason": self.reason, "got": self.got}


class AnswerCheck(ResponseCheck):
    """One step of a chained answer task is answered right: the response gives step
    `step` as `[ANSWER][step] literal [\\ANSWER]`, and the literal has the type and value
    of `expected`.

    Why: PACIFIC-style benchmarks ask a model to trace a chain of small instructions and
    give every intermediate result; each result is judged by rule, never by a model. A
    task's `answers:` key writes one such constraint per step; they may also be written
    by hand.

    Two readings are made and both recorded (IFEval's strict and loose accuracy):

    - strict: exactly the tags `[ANSWER][i]` and `[\\ANSWER]`; the literal an int as
      digits, a float as a decimal, a string quoted ("JSON" or 'Python'); one answer per
      step;
    - loose: also `[/ANSWER]`, spaces and any case in the tags, a tag left open (to the
      end of its line), unquoted strings, quoted numbers, an integral float for an int,
      backticks, and the last of several answers.

    `verdict` (default `strict`) says which reading decides the outcome. A step not
    right is violated with its reason as the finding's rule: `missing` (no answer),
    `unparsable` (not a literal), `type-mismatch` (a literal of another type: `"49"` for
    49, unless `coerce: true`), `duplicate` (answered more than once, strict only) or
    `wrong` (expected and got). None of these is an error: a model's malformed answer is
    its failure, counted apart in the answer figures. Floats are equal within rounding
    (relative 1e-9).

    Options:

    - `step` (required): the step's number, from 1;
    - `expected` (required): an int, float or string; its YAML type is the literal's;
    - `instruction`: the instruction's name, for the per-instruction figures;
    - `steps`: how many steps the task has;
    - `verdict`: `strict` (default) or `loose`;
    - `coerce`: take a literal of another type that converts (default false).

    Example (what a task's `answers:` step writes):

    ```yaml
    - check: answer
      step: 2
      expected: XLIX
      instruction: to_roman
    ```
    """

    name: ClassVar[str] = "answer"
    category: ClassVar[str] = "Answer"
    advice: ClassVar[str] = (
        "Give every step's result on its own, as `[ANSWER][i] literal [\\ANSWER]`: an int "
        "as digits, a string in double quotes, once per step."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["step", "expected"],
        "properties": {
            "step": {"type": "integer", "minimum": 1, "maximum": 999_999},
            "expected": {"type": ["integer", "number", "string"]},
            "instruction": {"type": "string", "minLength": 1, "maxLength": 200},
            "steps": {"type": "integer", "minimum": 1, "maximum": 999_999},
            "verdict": {"enum": ["strict", "loose"]},
            "coerce": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by: ClassVar[tuple[Sample, ...]] = (
        Sample("[ANSWER][1] 49 [\\ANSWER]", options={"step": 1, "expected": 49}),
        Sample(
            'Step one: [ANSWER][1] 49 [\\ANSWER]\nStep two: [ANSWER][2] "XLIX" [\\ANSWER]',
            options={"step": 2, "expected": "XLIX"},
        ),
        Sample("[ANSWER][1] 0.30000000000000004 [\\ANSWER]", options={"step": 1, "expected": 0.3}),
        Sample(
            "[answer][1] XLIX [/answer]",
            options={"step": 1, "expected": "XLIX", "verdict": "loose"},
        ),
        Sample('[ANSWER][1] "49" [\\ANSWER]', options={"step": 1, "expected": 49, "coerce": True}),
    )
    violated_by: ClassVar[tuple[Sample, ...]] = (
        Sample(
            "[ANSWER][1] 49 [\\ANSWER]",
            options={"step": 2, "expected": 5},
            message="step 2: no answer",
        ),
        Sample(
            "[ANSWER][1] 48 [\\ANSWER]",
            options={"step": 1, "expected": 49},
            message="expected 49, got 48",
            line=1,
        ),
        Sample(
            'first\n[ANSWER][1] "49" [\\ANSWER]',
            options={"step": 1, "expected": 49},
            message="expected an int, got a string '49'",
            line=2,
        ),
        Sample(
            "[ANSWER][1] XLIX [\\ANSWER]",
            options={"step": 1, "expected": "XLIX"},
            message="not a literal",
        ),
        Sample(
            "[ANSWER][1] 49 [\\ANSWER] [ANSWER][1] 49 [\\ANSWER]",
            options={"step": 1, "expected": 49},
            message="answered 2 times",
        ),
        Sample(
            "[ANSWER][1] 49 [/ANSWER]",
            options={"step": 1, "expected": 49},
            message="no closing tag",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.step: int = options["step"]
        self.expected: AnswerValue = options["expected"]
        if isinstance(self.expected, float) and not math.isfinite(self.expected):
            raise ValueError(f"`expected` is {self.expected}: no answer can be equal to it")
        self.instruction: str | None = options.get("instruction")
        self.steps: int | None = options.get("steps")
        self.verdict: Literal["strict", "loose"] = options.get("verdict", "strict")
        self.coerce: bool = options.get("coerce", False)

    def advise(self) -> str:
        return (
            f"Give step {self.step}'s result once, as `[ANSWER][{self.step}] literal "
            f"[\\ANSWER]`, written as {_a(type_name(self.expected))} literal"
            + (" (a string in double quotes)." if isinstance(self.expected, str) else ".")
        )

    def judge(self, response: str) -> ResponseJudgement:
        strict = self._strict(strict_answers(response).get(self.step, []), response)
        loose = self._loose(loose_answers(response).get(self.step, []), response)
        deciding, other = (strict, loose) if self.verdict == "strict" else (loose, strict)
        findings = []
        if deciding.reason is not None:
            message = deciding.message
            if other.reason != deciding.reason:
                reading = "loose" if self.verdict == "strict" else "strict"
                said = "satisfied" if other.reason is None else other.reason
                message += f" (the {reading} reading: {said})"
            findings.append(Finding(message, deciding.reason, line=deciding.line))
        entry: dict[str, object] = {
            "step": self.step,
            "steps": self.steps if self.steps is not None else self.step,
            "instruction": self.instruction,
            "expected": self.expected,
            "strict": strict.entry(),
            "loose": loose.entry(),
            "verdict": self.verdict,
        }
        return ResponseJudgement(findings, {"answer": entry})

    def _strict(self, tagged: list[Tagged], response: str) -> StepJudgement:
        if not tagged:
            return self._missing("strict")
        first = tagged[0]
        line = _line_of(response, first.offset)
        if len(tagged) > 1:
            return StepJudgement(
                "duplicate",
                _shown(first.text),
                line,
                f"{self._what()}: answered {len(tagged)} times; give one answer per step",
            )
        if first.text is None:
            return StepJudgement(
                "unparsable",
                None,
                line,
                f"{self._what()}: the answer has no closing tag `[\\ANSWER]` before the next "
                "answer or the end",
            )
        return self._read(read_strict(first.text, self.expected, coerce=self.coerce), first, line)

    def _loose(self, tagged: list[Tagged], response: str) -> StepJudgement:
        if not tagged:
            return self._missing("loose")
        last = tagged[-1]
        text = last.text or ""
        return self._read(read_loose(text, self.expected), last, _line_of(response, last.offset))

    def _read(self, reading: Reading, tagged: Tagged, line: int) -> StepJudgement:
        got = _shown(tagged.text)
        want = _a(type_name(self.expected))
        if reading.problem == "unparsable":
            message = f"{self._what()}: {_quoted(got)} is not a literal ({want} expected)"
            return StepJudgement("unparsable", got, line, message)
        if reading.problem == "type-mismatch":
            given = read_literal(tagged.text or "")
            what = "a literal" if given is None else f"{_a(type_name(given))} {_value(given)}"
            message = f"{self._what()}: expected {want}, got {what}"
            return StepJudgement("type-mismatch", got, line, message)
        if reading.value is not None and equal(reading.value, self.expected):
            return StepJudgement(None, got, line, "")
        shown = _quoted(got) if reading.value is None else _value(reading.value)
        message = f"{self._what()}: expected {self.expected!r}, got {shown}"
        return StepJudgement("wrong", got, line, message)

    def _missing(self, reading: str) -> StepJudgement:
        tag = f"[ANSWER][{self.step}] ... [\\ANSWER]"
        return StepJudgement(
            "missing", None, None, f"{self._what()}: no answer `{tag}` ({reading} reading)"
        )

    def _what(self) -> str:
        named = f" ({self.instruction})" if self.instruction else ""
        return f"step {self.step}{named}"


def _line_of(text: str, offset: int) -> int:
    """The 1-based line of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1


def _shown(text: str | None) -> str | None:
    """An answer's text, bounded for records and messages."""
    if text is None:
        return None
    return text if len(text) <= MAX_GOT else text[:MAX_GOT] + "..."


def _quoted(text: str | None) -> str:
    """Hostile text in a message: as a Python literal, so nothing in it is a control."""
    return repr(text if text is not None else "")


def _value(value: AnswerValue) -> str:
    """A value read from an answer, as a bounded Python literal."""
    shown = repr(value)
    return shown if len(shown) <= MAX_GOT else shown[:MAX_GOT] + "..."


def _a(type_named: str) -> str:
    """`an int`, `a float`, `a string`."""
    return {"int": "an int", "float": "a float"}.get(type_named, "a string")

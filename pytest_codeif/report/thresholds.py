"""Thresholds, what users call the CI gate: `--codeif-fail-under=[SCOPE:]RATE` and
`--codeif-max-violations=N`.

A threshold turns the run into a gate: violated constraints no longer fail the session on
their own (their items still fail, and every report shows them); the thresholds decide.
Without a threshold every violation fails the run, so a threshold that only added to that
could never be missed by a passing run: tolerating some violations is what a gate is for.
Anything else still fails the run: a failing functional test, an undecidable constraint,
an invalid task file, a lost item, any other test's failure, a run stopped early.

Scopes: `constraints` (the default: satisfied / all constraint outcomes, errors
included, the summary's constraint-level rate) and `tasks` (tasks with every constraint
satisfied / all tasks). A rate is a fraction (`0.9`) or a percentage (`90%`). With no
outcome in its scope, a rate threshold is missed: a gate that saw nothing did not pass;
unless what it did not see was skipped by `--codeif-changed-since` (no change in the
scope of any constraint): then there was nothing to judge, and the threshold is met.
Skipped constraints are in no rate's denominator; the result's line counts them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pytest_codeif.report.figures.summary import Summary, Tally

Scope = Literal["constraints", "tasks"]
SCOPES: Final[dict[str, Scope]] = {"constraints": "constraints", "tasks": "tasks"}
_SCOPE_TEXT: Final = {"constraints": "constraint rate", "tasks": "task rate (all constraints)"}


@dataclass(frozen=True)
class RateThreshold:
    """The least satisfaction rate of one scope, a fraction in [0, 1]."""

    scope: Scope
    rate: float


@dataclass(frozen=True)
class Thresholds:
    """Every threshold of the run; inactive when none is given. (What users call the CI
    gate; `gate/` is the changed-code filter and the baseline.)"""

    rates: tuple[RateThreshold, ...] = ()
    max_violations: int | None = None

    @property
    def active(self) -> bool:
        return bool(self.rates) or self.max_violations is not None


@dataclass(frozen=True)
class ThresholdResult:
    """One threshold judged: met or not, and the line that says so (not a constraint's
    `outcome.Verdict`)."""

    passed: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "text": self.text}


@dataclass
class ThresholdsOutcome:
    """The thresholds judged, and what the session's exit status became."""

    results: list[ThresholdResult] = field(default_factory=list)
    tolerated: int = 0  # violated constraints that no longer fail the session
    others: int = 0  # failures the gate does not excuse

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def lines(self) -> list[str]:
        """The summary lines: each threshold, then the outcome and the exit status."""
        lines = [f"{'pass' if r.passed else 'FAIL'} {r.text}" for r in self.results]
        if not self.passed:
            lines.append("codeif gate FAILED: exit status 1 (tests failed)")
            return lines
        tolerated = f"{self.tolerated} violated constraint{'s' if self.tolerated != 1 else ''}"
        if self.others:
            many = self.others != 1
            failures = f"{self.others} other failure{'s fail' if many else ' fails'}"
            lines.append(f"codeif gate passed, but {failures} the run: exit status 1")
        else:
            lines.append(f"codeif gate passed: {tolerated} tolerated, exit status 0")
        return lines


def parse_rate(text: str) -> RateThreshold:
    """`[constraints:|tasks:]RATE`, RATE a fraction (`0.9`) or a percentage (`90%`)."""
    scope_text, sep, value = text.strip().rpartition(":")
    name = scope_text.strip() if sep else "constraints"
    scope = SCOPES.get(name)
    if scope is None:
        raise ValueError(
            f"--codeif-fail-under: unknown scope {name!r} in {text!r} "
            f"(use {' or '.join(SCOPES)}, e.g. tasks:0.8)"
        )
    value = value.strip()
    try:
        rate = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise ValueError(
            f"--codeif-fail-under: {value!r} is not a rate (a fraction such as 0.9, or 90%)"
        ) from None
    if not 0 <= rate <= 1:
        raise ValueError(
            f"--codeif-fail-under: {value!r} is out of range: a fraction from 0 to 1, "
            "or a percentage from 0% to 100%"
        )
    return RateThreshold(scope, rate)


def parse_thresholds(fail_under: Iterable[str], max_violations: str | int | None) -> Thresholds:
    """The thresholds from the options' values; ValueError says what is wrong."""
    rates: dict[str, RateThreshold] = {}
    for text in fail_under:
        threshold = parse_rate(text)
        if threshold.scope in rates:
            raise ValueError(f"--codeif-fail-under: scope {threshold.scope!r} given twice")
        rates[threshold.scope] = threshold
    limit: int | None = None
    if max_violations is not None and str(max_violations).strip() != "":
        try:
            limit = int(str(max_violations).strip())
        except ValueError:
            raise ValueError(
                f"--codeif-max-violations: {max_violations!r} is not a whole number"
            ) from None
        if limit < 0:
            raise ValueError(f"--codeif-max-violations: {limit} is negative")
    ordered = tuple(rates[s] for s in SCOPES if s in rates)
    return Thresholds(ordered, limit)


def _percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def _judge_rate(threshold: RateThreshold, tally: Tally) -> ThresholdResult:
    what = _SCOPE_TEXT[threshold.scope]
    required = _percent(threshold.rate)
    skipped = f"; {tally.skipped} skipped" if tally.skipped else ""
    if tally.rate is None and tally.skipped:
        return ThresholdResult(
            True, f"{what}: no outcomes to rate ({tally.skipped} skipped: nothing changed)"
        )
    if tally.rate is None:
        return ThresholdResult(False, f"{what}: no outcomes to rate, {required} required")
    shown = f"{_percent(tally.rate)} ({tally.satisfied}/{tally.total}{skipped})"
    if tally.rate >= threshold.rate:
        return ThresholdResult(True, f"{what} {shown} reaches the required {required}")
    return ThresholdResult(False, f"{what} {shown} is under the required {required}")


def judge(thresholds: Thresholds, summary: Summary) -> list[ThresholdResult]:
    """Each of `thresholds` against the run's figures."""
    tallies = {"constraints": summary.constraints, "tasks": summary.tasks_all}
    results = [_judge_rate(t, tallies[t.scope]) for t in thresholds.rates]
    if thresholds.max_violations is not None:
        violated = summary.constraints.violated
        limit = thresholds.max_violations
        counted = f"{violated} violated constraint{'s' if violated != 1 else ''}"
        if violated <= limit:
            results.append(ThresholdResult(True, f"{counted}, at most {limit} allowed"))
        else:
            results.append(ThresholdResult(False, f"{counted}, more than the {limit} allowed"))
    return results

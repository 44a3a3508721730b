"""The assertion pass rate (Constraint Decay's A%): of the assertions of tasks' functional
tests, how many passed.

Every functional case is one assertion (a Newman assertion is one case); a task's
record counts them as `assertions: {passed, total}` (`report/records.py`; a report
written before records carried it: its cases). Two ways to sum tasks, both given:

- `rate`, pooled: every task's passed summed over every task's total; a task weighs by
  its number of assertions;
- `mean_task_rate`: the mean of each task's own rate; every task weighs the same (a task
  with no assertion has no rate and is left out of the mean, unless its tests failed:
  every Newman script threw before asserting, a rate of 0).

And two counts of passed: as run, and `strict`, where a task with any constraint not
satisfied (violated, or undecidable) counts as none of its assertions passed
(Constraint Decay's rule: a failed structural check zeroes the run; a constraint the
tool could not judge was not shown to be satisfied, as in every other rate). Constraints
the CI gate skipped were not judged and zero nothing.

By level, a task counts under its highest constraint level, as in the decay table. The
sums are exact (the mean as a fraction until it is shown), so the figures are the same
whatever order records arrive in (pytest-xdist).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pytest_codeif.records import FunctionalEntry, OutcomeRecord


@dataclass
class AssertionRate:
    """Passed and total assertions of some tasks, and the sum of their own rates."""

    tasks: int = 0  # tasks with at least one assertion (those the mean is over)
    passed: int = 0
    total: int = 0
    rates: Fraction = field(default_factory=Fraction)

    def add(self, passed: int, total: int, *, failed: bool = False) -> None:
        """One task's assertions; a `failed` task with none (every Newman script threw
        before asserting) weighs in the mean as 0, never as no task at all."""
        self.passed += passed
        self.total += total
        if total > 0:
            self.tasks += 1
            self.rates += Fraction(passed, total)
        elif failed:
            self.tasks += 1

    @property
    def rate(self) -> float | None:
        """Pooled: all passed / all assertions."""
        return self.passed / self.total if self.total else None

    @property
    def mean_task_rate(self) -> float | None:
        """The mean of the tasks' own rates."""
        return float(self.rates / self.tasks) if self.tasks else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "passed": self.passed,
            "total": self.total,
            "rate": self.rate,
            "mean_task_rate": self.mean_task_rate,
        }


@dataclass
class AssertionRow:
    """The assertion figures of some tasks, as run and strict."""

    run: AssertionRate = field(default_factory=AssertionRate)
    strict: AssertionRate = field(default_factory=AssertionRate)

    def to_dict(self) -> dict[str, Any]:
        return {**self.run.to_dict(), "strict": self.strict.to_dict()}


@dataclass
class Assertions:
    """The figures of every task with functional tests, and by the task's highest level."""

    overall: AssertionRow = field(default_factory=AssertionRow)
    by_level: dict[int, AssertionRow] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """Some task has an assertion: worth a line."""
        return self.overall.run.total > 0

    def add_task(self, records: Iterable[OutcomeRecord]) -> None:
        """Count the task of `records` (all of one task's outcome records), if it has
        functional tests."""
        task = list(records)
        functional = [
            counts(r) for r in task if r["kind"] == "functional" and r["status"] != "skipped"
        ]
        if not functional:
            return
        passed = sum(found[0] for found in functional)
        total = sum(found[1] for found in functional)
        failed = any(
            r["kind"] == "functional" and r["status"] not in ("satisfied", "skipped") for r in task
        )
        judged = [r for r in task if r["kind"] == "constraint" and r["status"] != "skipped"]
        zeroed = any(r["status"] != "satisfied" for r in judged)
        rows = [self.overall]
        levels = [lvl for r in judged if (lvl := _level(r)) is not None]
        if levels:
            rows.append(self.by_level.setdefault(max(levels), AssertionRow()))
        for row in rows:
            row.run.add(passed, total, failed=failed)
            row.strict.add(0 if zeroed else passed, total, failed=failed or zeroed)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's `summary.assertions`."""
        by_level = {str(k): self.by_level[k].to_dict() for k in sorted(self.by_level)}
        return {**self.overall.to_dict(), "by_level": by_level}


def counts(record: FunctionalEntry) -> tuple[int, int]:
    """(passed, total) assertions of a functional record: its `assertions`, or, in a
    report written before records carried them, its cases."""
    found = record.get("assertions")
    if isinstance(found, dict):
        return int(found.get("passed", 0)), int(found.get("total", 0))
    cases = record.get("cases") or []
    return sum(c.get("status") == "passed" for c in cases), len(cases)


def _level(record: OutcomeRecord) -> int | None:
    value = record.get("level")
    return value if isinstance(value, int) and not isinstance(value, bool) else None

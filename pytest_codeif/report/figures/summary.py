"""Aggregate outcome records into satisfaction figures: the summary as plain data.

Rates divide satisfied by all outcomes, errors included: a constraint the tool could not
judge was not shown to be satisfied. Errors are also counted apart, by kind. Constraints
skipped by the CI gate (`--codeif-changed-since`: no change in their scope) were not
judged at all: they are counted apart and are in no rate's denominator.

The constraint rate is given two ways: pooled (`constraints`, micro: satisfied of all
judged constraints; MultiCodeIF's SSR) and as the mean of each task's own share
(`constraints_macro`; PACIFIC's instruction-level accuracy). Answer tasks add their own
figures (`answers.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_codeif.records import GateEntry, OutcomeRecord, Record
from pytest_codeif.report.figures.answers import AnswerFigures, answer_figures
from pytest_codeif.report.figures.assertions import Assertions
from pytest_codeif.report.figures.means import TaskMean


@dataclass
class Tally:
    """Satisfied / violated / error counts of a group of outcomes; skipped ones (not
    judged) are counted apart, outside `total`."""

    satisfied: int = 0
    violated: int = 0
    errors: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.satisfied + self.violated + self.errors

    @property
    def rate(self) -> float | None:
        return self.satisfied / self.total if self.total else None

    def add(self, status: str) -> None:
        if status == "satisfied":
            self.satisfied += 1
        elif status == "violated":
            self.violated += 1
        elif status == "skipped":
            self.skipped += 1
        else:
            self.errors += 1

    def to_dict(self) -> dict[str, Any]:
        found = {
            "satisfied": self.satisfied,
            "violated": self.violated,
            "errors": self.errors,
            "total": self.total,
            "rate": self.rate,
        }
        if self.skipped:  # only under --codeif-changed-since
            found["skipped"] = self.skipped
        return found


@dataclass
class GateFigures:
    """What the CI gate's filters left out (`gate/`): findings outside the changed code,
    findings the baseline absorbed (or recorded, when writing it), and recorded findings
    no longer found. Summed from each record's `gate` entry."""

    outside_changes: int = 0
    absorbed: int = 0
    recorded: int = 0
    disappeared: int = 0
    baseline: bool = False  # a baseline was read or written
    changed_only: bool = False  # --codeif-changed-since

    def add(self, gate: GateEntry) -> None:
        found = len(gate.get("absorbed") or [])
        if gate.get("baseline") == "write":
            self.recorded += found
        else:
            self.absorbed += found
        self.baseline = self.baseline or "baseline" in gate
        self.changed_only = self.changed_only or "outside_changes" in gate or "skipped" in gate
        self.outside_changes += gate.get("outside_changes") or 0
        self.disappeared += gate.get("disappeared") or 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "outside_changes": self.outside_changes,
            "baseline_absorbed": self.absorbed,
            "baseline_recorded": self.recorded,
            "baseline_disappeared": self.disappeared,
        }


@dataclass
class Summary:
    """Every figure the terminal section and the JSON report show."""

    constraints: Tally = field(default_factory=Tally)  # micro: of all constraints
    constraints_macro: TaskMean = field(default_factory=TaskMean)  # mean of tasks' shares
    by_check: dict[str, Tally] = field(default_factory=dict)
    by_category: dict[str, Tally] = field(default_factory=dict)
    by_level: dict[int, Tally] = field(default_factory=dict)
    tasks_all: Tally = field(default_factory=Tally)  # all constraints satisfied (HSR)
    tasks_strict: Tally = field(default_factory=Tally)  # ...and all functional tests
    by_count: dict[int, Tally] = field(default_factory=dict)  # task rate by constraint count
    functional: Tally = field(default_factory=Tally)
    cases_passed: int = 0
    cases_total: int = 0
    assertions: Assertions = field(default_factory=Assertions)  # A%, see assertions.py
    errors_by_kind: dict[str, int] = field(default_factory=dict)
    invalid: int = 0
    lost: int = 0  # items whose verdict never arrived (crashed worker)
    cached: int = 0  # verdicts reused from an earlier run
    gate: GateFigures | None = None  # with --codeif-changed-since or --codeif-baseline
    answers: AnswerFigures | None = None  # where some outcome is an `answer` check's

    def to_dict(self) -> dict[str, Any]:
        return {
            "constraints": self.constraints.to_dict(),
            "constraints_macro": self.constraints_macro.to_dict(),
            "by_check": {k: v.to_dict() for k, v in sorted(self.by_check.items())},
            "by_category": {k: v.to_dict() for k, v in sorted(self.by_category.items())},
            "by_level": {str(k): v.to_dict() for k, v in sorted(self.by_level.items())},
            "tasks_all_constraints": self.tasks_all.to_dict(),
            "tasks_strict": self.tasks_strict.to_dict(),
            "tasks_by_constraint_count": {
                str(k): v.to_dict() for k, v in sorted(self.by_count.items())
            },
            "functional": self.functional.to_dict(),
            "functional_cases": {"passed": self.cases_passed, "total": self.cases_total},
            "assertions": self.assertions.to_dict(),
            "errors_by_kind": dict(sorted(self.errors_by_kind.items())),
            "invalid_tasks": self.invalid,
            "lost_items": self.lost,
            **({"gate": self.gate.to_dict()} if self.gate is not None else {}),
            **({"answers": self.answers.to_dict()} if self.answers is not None else {}),
        }


def summarize(records: Iterable[Record]) -> Summary:
    """Aggregate records (in any order: the result does not depend on it)."""
    summary = Summary()
    tasks: dict[tuple[str, str], list[OutcomeRecord]] = {}
    for record in records:
        if record["status"] == "error":
            kind = str(record.get("error_kind") or "unknown")
            summary.errors_by_kind[kind] = summary.errors_by_kind.get(kind, 0) + 1
        if record["kind"] == "invalid":
            summary.invalid += 1
            continue
        if record["kind"] == "lost":
            summary.lost += 1
            continue
        summary.cached += bool(record.get("cached"))
        gate = record.get("gate")
        if isinstance(gate, dict):
            summary.gate = summary.gate or GateFigures()
            summary.gate.add(gate)
        tasks.setdefault((record["file"], record["task"]), []).append(record)
        if record["kind"] == "functional":
            summary.functional.add(record["status"])
            summary.cases_passed += int(record.get("cases_passed", 0))
            summary.cases_total += len(record.get("cases", []))
            continue
        summary.constraints.add(record["status"])
        summary.by_check.setdefault(record["check"], Tally()).add(record["status"])
        summary.by_category.setdefault(record["category"], Tally()).add(record["status"])
        level = record.get("level")
        if level is not None:
            summary.by_level.setdefault(int(level), Tally()).add(record["status"])
    for task_records in tasks.values():
        _task_level(summary, task_records)
        summary.assertions.add_task(task_records)
    summary.answers = answer_figures(r for part in tasks.values() for r in part)
    return summary


def _task_level(summary: Summary, records: list[OutcomeRecord]) -> None:
    judged = [r for r in records if r["status"] != "skipped"]
    constraints = [r for r in judged if r["kind"] == "constraint"]
    functional = [r for r in judged if r["kind"] == "functional"]
    statuses: list[str] = [r["status"] for r in constraints]
    if constraints:
        satisfied = sum(s == "satisfied" for s in statuses)
        summary.constraints_macro.add(satisfied, len(constraints))
        status = _combine(statuses)
        summary.tasks_all.add(status)
        summary.by_count.setdefault(len(constraints), Tally()).add(status)
    elif len(judged) < len(records):  # every constraint skipped
        summary.tasks_all.add("skipped")
    if judged:
        summary.tasks_strict.add(_combine(statuses + [r["status"] for r in functional]))
    else:
        summary.tasks_strict.add("skipped")


def _combine(statuses: list[str]) -> str:
    """A task is satisfied when every part is; any violation outranks an error."""
    if all(s == "satisfied" for s in statuses):
        return "satisfied"
    return "violated" if "violated" in statuses else "error"

"""Constraint decay: how satisfaction falls as constraints stack up, by level and by the
number of constraints a task asks for (MultiCodeIF: 54.5% at one level, 18.8% at four).

Pure functions over outcome records. Each row gives two rates:

- `constraints`: of the constraints in the row, how many are satisfied (SSR);
- `tasks`: of the tasks in the row, how many satisfy all their constraints (HSR).

By level, a constraint counts under its own `level` and a task under its highest level
(a level-2 step of a chain carries the constraints of levels 0, 1 and 2). By number of
constraints, both count under the task's `constraints_in_task` (how many it declares,
whichever of them a `-k` selected). Errors count as not satisfied, as in the summary;
constraints the CI gate skipped, and the steps of answer tasks, are not counted at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pytest_codeif.records import Record
from pytest_codeif.report.figures.answers import ANSWER_CHECK
from pytest_codeif.report.figures.summary import Tally


@dataclass
class DecayRow:
    """Satisfaction of the constraints and of the tasks at one level or count."""

    constraints: Tally = field(default_factory=Tally)
    tasks: Tally = field(default_factory=Tally)

    def to_dict(self) -> dict[str, Any]:
        return {"constraints": self.constraints.to_dict(), "tasks": self.tasks.to_dict()}


@dataclass
class Decay:
    """Rows by level and by number of constraints in the task, keys ascending."""

    by_level: dict[int, DecayRow] = field(default_factory=dict)
    by_count: dict[int, DecayRow] = field(default_factory=dict)

    @property
    def shown(self) -> bool:
        """Worth a table: the data has levels, or tasks with different counts."""
        return bool(self.by_level) or len(self.by_count) > 1

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's `summary.decay` (keys as strings, as JSON needs)."""
        return {
            "by_level": {str(k): row.to_dict() for k, row in self.by_level.items()},
            "by_constraint_count": {str(k): row.to_dict() for k, row in self.by_count.items()},
        }


def task_status(statuses: Iterable[str]) -> str:
    """A task is satisfied when every constraint is; any violation outranks an error."""
    seen = list(statuses)
    if all(s == "satisfied" for s in seen):
        return "satisfied"
    return "violated" if "violated" in seen else "error"


def _constraints_by_task(records: Iterable[Record]) -> dict[tuple[str, str], list[Record]]:
    """Judged constraints by task (one the CI gate skipped was not judged: left out).
    The steps of answer tasks are not constraints stacked on code: their chains have
    figures of their own (by step, by difficulty: `answers.py`), so they are left out."""
    tasks: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        if (
            record.get("kind") == "constraint"
            and record.get("status") != "skipped"
            and record.get("check") != ANSWER_CHECK
        ):
            tasks.setdefault((str(record["file"]), str(record["task"])), []).append(record)
    return tasks


def _level(record: Record) -> int | None:
    value = record.get("level")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def decay(records: Iterable[Record]) -> Decay:
    """The decay rows of `records` (any order: the result does not depend on it)."""
    by_level: dict[int, DecayRow] = {}
    by_count: dict[int, DecayRow] = {}
    for constraints in _constraints_by_task(records).values():
        status = task_status(r["status"] for r in constraints)
        declared = constraints[0].get("constraints_in_task")
        count = declared if isinstance(declared, int) and declared > 0 else len(constraints)
        row = by_count.setdefault(count, DecayRow())
        row.tasks.add(status)
        levels = [lvl for lvl in map(_level, constraints) if lvl is not None]
        if levels:
            by_level.setdefault(max(levels), DecayRow()).tasks.add(status)
        for record in constraints:
            row.constraints.add(record["status"])
            level = _level(record)
            if level is not None:
                by_level.setdefault(level, DecayRow()).constraints.add(record["status"])
    return Decay(dict(sorted(by_level.items())), dict(sorted(by_count.items())))

"""The summary as data: aggregation rules, independent of record order."""

from __future__ import annotations

import random

from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.terminal import render


def constraint(
    task: str,
    status: str,
    check: str = "ruff",
    category: str = "Code Quality",
    level: int | None = None,
    kind_: str | None = None,
) -> dict:
    return {
        "kind": "constraint",
        "nodeid": f"f::{task}::{check}-{random.random()}",
        "file": "f",
        "task": task,
        "status": status,
        "check": check,
        "category": category,
        "level": level,
        "error_kind": kind_,
    }


def functional(task: str, status: str, passed: int, total: int) -> dict:
    cases = [{"status": "passed"}] * passed + [{"status": "failed"}] * (total - passed)
    return {
        "kind": "functional",
        "nodeid": f"f::{task}::tests",
        "file": "f",
        "task": task,
        "status": status,
        "cases": cases,
        "cases_passed": passed,
        "error_kind": None,
    }


RECORDS = [
    constraint("a", "satisfied", "ruff", level=0),
    constraint("a", "satisfied", "mypy", level=1),
    functional("a", "violated", 1, 2),
    constraint("b", "violated", "ruff", level=0),
    constraint("b", "error", "mypy", level=1, kind_="timeout"),
    constraint("c", "satisfied", "calls", "Environment"),
    functional("c", "satisfied", 3, 3),
    {
        "kind": "invalid",
        "nodeid": "g::x",
        "file": "g",
        "task": "x",
        "status": "error",
        "error_kind": "invalid-task",
    },
]


def test_rates_and_counts() -> None:
    s = summarize(RECORDS)
    assert (s.constraints.satisfied, s.constraints.violated, s.constraints.errors) == (3, 1, 1)
    assert s.constraints.rate == 3 / 5
    assert s.by_check["ruff"].to_dict() == {
        "satisfied": 1,
        "violated": 1,
        "errors": 0,
        "total": 2,
        "rate": 0.5,
    }
    assert s.by_category["Environment"].satisfied == 1
    assert (s.by_level[0].satisfied, s.by_level[1].errors) == (1, 1)
    # a: all constraints satisfied but a functional case failed; b: violated; c: everything
    assert (s.tasks_all.satisfied, s.tasks_all.total) == (2, 3)
    assert (s.tasks_strict.satisfied, s.tasks_strict.total) == (1, 3)
    assert s.by_count[2].satisfied == 1 and s.by_count[1].satisfied == 1
    assert (s.functional.satisfied, s.functional.violated) == (1, 1)
    assert (s.cases_passed, s.cases_total) == (4, 5)
    assert s.errors_by_kind == {"timeout": 1, "invalid-task": 1}
    assert s.invalid == 1


def test_a_violation_outranks_an_error_at_task_level() -> None:
    s = summarize(RECORDS)
    assert s.tasks_all.violated == 1 and s.tasks_all.errors == 0


def test_order_does_not_matter() -> None:
    shuffled = RECORDS[:]
    random.Random(4).shuffle(shuffled)
    assert summarize(shuffled).to_dict() == summarize(RECORDS).to_dict()


def test_empty_groups_have_no_rate() -> None:
    s = summarize([])
    assert s.constraints.rate is None
    assert "    -" in render(s)[1]


def test_rendered_lines_fit_80_columns() -> None:
    long = [constraint("a", "satisfied", "x" * 120, "y" * 120)]
    lines = render(summarize(RECORDS + long))
    assert all(len(line) <= 80 for line in lines)
    assert any(line.startswith("  xxxxx") and "..." in line for line in lines)
    assert "errors by kind: invalid-task 1, timeout 1" in lines

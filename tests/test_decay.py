"""Constraint decay as data: rates by level and by the number of constraints per task."""

from __future__ import annotations

import random

from pytest_codeif.report.figures.decay import decay, task_status
from pytest_codeif.report.terminal import decay_lines


def constraint(
    task: str, status: str, level: int | None = None, declared: int | None = None
) -> dict:
    record = {
        "kind": "constraint",
        "nodeid": f"f::{task}::{random.random()}",
        "file": "f",
        "task": task,
        "status": status,
        "level": level,
    }
    if declared is not None:
        record["constraints_in_task"] = declared
    return record


# A chain of three levels, each step carrying the constraints of the steps before it.
CHAIN = [
    constraint("s0", "satisfied", 0, 1),
    constraint("s1", "satisfied", 0, 2),
    constraint("s1", "violated", 1, 2),
    constraint("s2", "satisfied", 0, 3),
    constraint("s2", "satisfied", 1, 3),
    constraint("s2", "error", 2, 3),
    {
        "kind": "functional",
        "nodeid": "f::s0::tests",
        "file": "f",
        "task": "s0",
        "status": "violated",
    },
]


def test_by_level_counts_constraints_at_their_level_and_tasks_at_their_highest() -> None:
    found = decay(CHAIN)
    assert list(found.by_level) == [0, 1, 2]
    level0, level1, level2 = (found.by_level[k] for k in (0, 1, 2))
    assert (level0.constraints.satisfied, level0.constraints.total) == (3, 3)
    assert (level1.constraints.satisfied, level1.constraints.total) == (1, 2)
    assert (level2.constraints.errors, level2.constraints.total) == (1, 1)
    # s0 (all met) is the level-0 task, s1 (violated) level 1, s2 (an error) level 2.
    assert (level0.tasks.satisfied, level0.tasks.total) == (1, 1)
    assert (level1.tasks.violated, level1.tasks.total) == (1, 1)
    assert (level2.tasks.errors, level2.tasks.total) == (1, 1)
    # Functional tests are no constraint: s0's failing test leaves its level-0 row alone.
    assert found.by_count[1].tasks.rate == 1.0


def test_by_count_uses_the_declared_count_and_the_order_never_matters() -> None:
    found = decay(CHAIN)
    assert {n: (r.constraints.rate, r.tasks.rate) for n, r in found.by_count.items()} == {
        1: (1.0, 1.0),
        2: (0.5, 0.0),
        3: (2 / 3, 0.0),
    }
    shuffled = CHAIN[:]
    random.Random(3).shuffle(shuffled)
    assert decay(shuffled).to_dict() == found.to_dict()
    # Only one constraint of a two-constraint task selected (-k): still a task of two.
    only = decay([constraint("t", "satisfied", declared=2)])
    assert list(only.by_count) == [2]


def test_skipped_constraints_are_not_judged_and_tasks_without_levels_have_none() -> None:
    records = [
        constraint("a", "skipped", declared=2),
        constraint("a", "satisfied", declared=2),
        constraint("b", "violated", declared=1),
    ]
    found = decay(records)
    assert found.by_level == {}
    assert found.by_count[2].constraints.total == 1
    assert found.by_count[2].tasks.satisfied == 1
    assert task_status(["satisfied", "error", "violated"]) == "violated"
    assert task_status(["satisfied", "error"]) == "error"


def test_table_only_when_there_are_levels_or_several_counts() -> None:
    same = [constraint("a", "satisfied", declared=1), constraint("b", "violated", declared=1)]
    assert not decay(same).shown
    assert decay_lines(decay(same)) == []
    lines = decay_lines(decay(CHAIN))
    assert lines[0].split() == [
        "constraint",
        "decay",
        "constraints",
        "satisfied",
        "tasks:",
        "all",
        "satisfied",
    ]
    assert lines[1].split() == ["level", "0", "3/3", "100.0%", "1/1", "100.0%"]
    assert lines[3].split() == ["level", "2", "0/1", "0.0%", "0/1", "0.0%"]
    assert lines[-1].split() == ["3", "constraints", "per", "task", "2/3", "66.7%", "0/1", "0.0%"]
    assert all(len(line) <= 80 for line in lines)
    assert decay(CHAIN).to_dict()["by_constraint_count"]["2"]["tasks"]["violated"] == 1

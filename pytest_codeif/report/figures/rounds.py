"""Feedback rounds: what each round fixed and what it broke, constraint by constraint.

A constraint of a task in one round is paired with the same constraint of the same task
(the base task id, without the response label), model and sample in the round before;
task files are not compared, since a benchmark often keeps each round in a file of its
own. Rounds are ordered naturally (`R2` before `R10`); a record without the key is
round `(none)` and is left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pytest_codeif.records import Record
from pytest_codeif.report.figures.groups import NO_GROUP, base_task, group_of, natural_order

Pair = tuple[str, str, str, str]  # base task, model, sample, constraint


@dataclass(frozen=True)
class Transition:
    """From one round to the next: constraints fixed, broken, and judged in both."""

    before: str
    after: str
    fixed: int
    broke: int
    compared: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.before,
            "to": self.after,
            "fixed": self.fixed,
            "broke": self.broke,
            "compared": self.compared,
        }


def transitions(records: Iterable[Record], key: str) -> list[Transition]:
    """Each consecutive pair of rounds with what changed between them."""
    by_round: dict[str, dict[Pair, str]] = {}
    for record in records:
        if record["kind"] != "constraint":
            continue
        round_ = group_of(record, key)
        if round_ == NO_GROUP:
            continue
        metadata = record.get("metadata") or {}
        pair = (
            base_task(str(record["task"])),
            str(metadata.get("model", "")),
            str(metadata.get("sample", "")),
            str(record["constraint"]),
        )
        by_round.setdefault(round_, {})[pair] = str(record["status"])
    order = sorted(by_round, key=natural_order)
    found: list[Transition] = []
    for before, after in itertools.pairwise(order):
        old, new = by_round[before], by_round[after]
        both = old.keys() & new.keys()
        fixed = sum(old[p] != "satisfied" and new[p] == "satisfied" for p in both)
        broke = sum(old[p] == "satisfied" and new[p] != "satisfied" for p in both)
        found.append(Transition(before, after, fixed, broke, len(both)))
    return found

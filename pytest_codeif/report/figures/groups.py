"""Side by side: every summary figure per group of a metadata key (`--codeif-group-by`),
with pass@k and satisfaction@k where a task has several samples per group.

pass@k and satisfaction@k use the unbiased estimator of Chen et al. (2021): of n samples
of a task, c correct, the chance that at least one of k drawn without replacement is
correct is 1 - C(n-c, k) / C(n, k); a task counts for k only when it has n >= k samples,
and the figure is the mean over those tasks. A sample is correct for pass@k when its
functional tests pass, for satisfaction@k when all its constraints are satisfied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Final

from pytest_codeif.records import Record, is_outcome
from pytest_codeif.report.figures.summary import Summary, summarize

#: A record whose metadata lacks the key falls in this group.
NO_GROUP: Final = "(none)"
KS: Final = (1, 5, 10)
_RESPONSE: Final = re.compile(r"\[[^\[\]]*\]$")


def group_named(metadata: Mapping[str, object] | None, key: str) -> str:
    """The group of a task of `metadata`."""
    value = (metadata or {}).get(key)
    return NO_GROUP if value is None else str(value)


def group_of(record: Record, key: str) -> str:
    """The group of `record`'s task (lost and invalid items have no metadata)."""
    return group_named(record.get("metadata") if is_outcome(record) else None, key)


def natural_order(name: str) -> list[Any]:
    """Sort key: `round 2` before `round 10`."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate that one of k samples of n, c of them correct, is correct."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass
class Group:
    """One group's summary and its @k figures (k -> mean estimate, None: no task has k)."""

    summary: Summary
    pass_at: dict[int, float | None] = field(default_factory=dict)
    satisfaction_at: dict[int, float | None] = field(default_factory=dict)
    samples: int = 0  # most samples any one task has in this group

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary.to_dict(),
            "samples_per_task": self.samples,
            "pass_at_k": {str(k): v for k, v in self.pass_at.items()},
            "satisfaction_at_k": {str(k): v for k, v in self.satisfaction_at.items()},
        }


def base_task(task_id: str) -> str:
    """`fib[gpt-4o-s2]` -> `fib`: the task a response answers."""
    return _RESPONSE.sub("", task_id)


def _at_k(
    records: Sequence[Record],
) -> tuple[dict[int, float | None], dict[int, float | None], int]:
    """(pass@k, satisfaction@k, most samples of a task) over `records` of one group."""
    samples: dict[tuple[str, str], dict[str, list[Record]]] = {}
    for record in records:
        if record["kind"] not in ("constraint", "functional"):
            continue
        task = (record["file"], base_task(str(record["task"])))
        samples.setdefault(task, {}).setdefault(str(record["task"]), []).append(record)
    passing: list[tuple[int, int]] = []  # (n, c) per task with functional tests
    satisfying: list[tuple[int, int]] = []  # (n, c) per task with constraints
    for responses in samples.values():
        functional = [
            [r for r in parts if r["kind"] == "functional"] for parts in responses.values()
        ]
        if all(functional):
            ok = sum(all(r["status"] == "satisfied" for r in f) for f in functional)
            passing.append((len(functional), ok))
        constraints = [
            [r for r in parts if r["kind"] == "constraint"] for parts in responses.values()
        ]
        if all(constraints):
            ok = sum(all(r["status"] == "satisfied" for r in c) for c in constraints)
            satisfying.append((len(constraints), ok))
    most = max((len(r) for r in samples.values()), default=0)
    return _means(passing), _means(satisfying), most


def _means(counts: list[tuple[int, int]]) -> dict[int, float | None]:
    figures: dict[int, float | None] = {}
    for k in KS:
        usable = [pass_at_k(n, c, k) for n, c in counts if n >= k]
        figures[k] = sum(usable) / len(usable) if usable else None
    return figures


def by_group(records: Iterable[Record], key: str) -> dict[str, Group]:
    """Each group's figures, groups in natural order (`(none)` last)."""
    split: dict[str, list[Record]] = {}
    for record in records:
        if record["kind"] in ("constraint", "functional", "invalid", "lost"):
            split.setdefault(group_of(record, key), []).append(record)
    groups: dict[str, Group] = {}
    for name in sorted(split, key=lambda g: (g == NO_GROUP, natural_order(g))):
        pass_at, satisfaction_at, most = _at_k(split[name])
        groups[name] = Group(summarize(split[name]), pass_at, satisfaction_at, most)
    return groups


def to_dict(key: str, groups: dict[str, Group]) -> dict[str, Any]:
    """The JSON report's `groups` section."""
    return {"key": key, "groups": {name: group.to_dict() for name, group in groups.items()}}

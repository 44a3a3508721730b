"""Side by side: every summary figure per group of a metadata key (`--codeif-group-by`),
with pass@k and satisfaction@k where a task has several samples per group.

pass@k and satisfaction@k use the unbiased estimator of Chen et al. (2021): of n samples
of a task, c correct, the chance that at least one of k drawn without replacement is
correct is 1 - C(n-c, k) / C(n, k); the figure is the mean over tasks. A sample is
correct for pass@k when its functional tests pass, for satisfaction@k when all its
constraints are satisfied.

Which tasks a k is averaged over is the figure's rule (`AtK`, `--codeif-k-rule`):
`every-task`, the default, is the harnesses' own (human-eval, evalplus and BigCodeBench
print pass@k only when every task has n >= k), so a k that some task has fewer samples
for is not given, and a note says why; `tasks-with-k` averages over the tasks that have
n >= k, and a note says over how many. The ks are `--codeif-k` (default 1, 5, 10).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, Final

from pytest_codeif.records import Record, is_outcome
from pytest_codeif.report.figures.summary import Summary, summarize

#: A record whose metadata lacks the key falls in this group.
NO_GROUP: Final = "(none)"
KS: Final = (1, 5, 10)
#: What each rule means, as the reports say it.
RULES: Final[dict[str, str]] = {
    "every-task": (
        "mean over every task of the group; a k is given only when every task has at "
        "least k samples (the rule of human-eval, evalplus and BigCodeBench)"
    ),
    "tasks-with-k": (
        "mean over the tasks of the group that have at least k samples "
        "(--codeif-k-rule=tasks-with-k; not comparable with the harnesses' figures)"
    ),
}
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


@dataclass(frozen=True)
class AtK:
    """Which @k figures to give (`ks`) and which tasks each is averaged over (`rule`)."""

    ks: tuple[int, ...] = KS
    rule: str = "every-task"  # one of RULES

    def to_dict(self) -> dict[str, Any]:
        return {"ks": list(self.ks), "rule": self.rule, "means": RULES[self.rule]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> AtK:
        """The figures a JSON report's `groups.at_k` names (a report without: defaults)."""
        if not data:
            return cls()
        rule = "tasks-with-k" if data.get("rule") == "tasks-with-k" else "every-task"
        return cls(tuple(int(k) for k in data.get("ks", KS)), rule)


@dataclass
class Group:
    """One group's summary and its @k figures (k -> mean estimate, None: not given), with
    a note per figure the reader should know about (`pass@10` -> why it is not given, or
    which tasks it is over)."""

    summary: Summary
    pass_at: dict[int, float | None] = field(default_factory=dict)
    satisfaction_at: dict[int, float | None] = field(default_factory=dict)
    samples: int = 0  # most samples any one task has in this group
    notes: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary.to_dict(),
            "samples_per_task": self.samples,
            "pass_at_k": {str(k): v for k, v in self.pass_at.items()},
            "satisfaction_at_k": {str(k): v for k, v in self.satisfaction_at.items()},
            "at_k_notes": dict(self.notes),
        }


def base_task(task_id: str) -> str:
    """`fib[gpt-4o-s2]` -> `fib`: the task a response answers."""
    return _RESPONSE.sub("", task_id)


def _at_k(records: Sequence[Record], at_k: AtK) -> Group:
    """A group (without its summary) holding the @k figures of `records` of one group."""
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
    group = Group(Summary(), samples=max((len(r) for r in samples.values()), default=0))
    group.pass_at = _means(passing, at_k, "pass", group.notes)
    group.satisfaction_at = _means(satisfying, at_k, "satisfaction", group.notes)
    return group


def _means(
    counts: list[tuple[int, int]], at_k: AtK, name: str, notes: dict[str, str]
) -> dict[int, float | None]:
    """Each k's mean estimate over `counts` ((n, c) per task) by the rule of `at_k`,
    None where it is not given; `notes` gets why, or which tasks a figure is over."""
    figures: dict[int, float | None] = {}
    for k in at_k.ks:
        usable = [pass_at_k(n, c, k) for n, c in counts if n >= k]
        short = len(counts) - len(usable)
        given = bool(usable) and (short == 0 or at_k.rule == "tasks-with-k")
        figures[k] = sum(usable) / len(usable) if given else None
        if not counts or not short:
            continue
        fewest = min(n for n, _ in counts)
        if not usable:
            why = f"every task has fewer than {k} samples (most: {max(n for n, _ in counts)})"
        elif given:
            why = f"over {len(usable)} of {len(counts)} tasks (those with at least {k} samples)"
        else:
            why = f"{short} of {len(counts)} tasks have fewer than {k} samples (fewest: {fewest})"
        notes[f"{name}@{k}"] = why
    return figures


def ks_of(groups: Mapping[str, Group]) -> list[int]:
    """Every k the groups have a figure entry for, ascending."""
    return sorted({k for g in groups.values() for k in (*g.pass_at, *g.satisfaction_at)})


def at_k_notes(groups: Mapping[str, Group], at_k: AtK, width: int) -> list[str]:
    """The rule the groups' @k figures follow and the groups' notes, as lines of at most
    `width` columns (a note shared by figures or by groups said once); nothing where no
    task has several samples."""
    if max((g.samples for g in groups.values()), default=0) < 2:
        return []
    said: dict[tuple[str, str], list[str]] = {}  # (figures, why) -> the groups
    for name, group in groups.items():
        figures_of: dict[str, list[str]] = {}
        for figure, why in group.notes.items():
            figures_of.setdefault(why, []).append(figure)
        for why, named in figures_of.items():
            said.setdefault((", ".join(named), why), []).append(name)
    lines = textwrap.wrap(f"pass@k, satisfaction@k: {RULES[at_k.rule]}.", width)
    for (figures, why), names in said.items():
        who = "every group" if len(names) == len(groups) > 1 else ", ".join(names)
        verb = "" if why.startswith("over ") else "not given: "
        lines += textwrap.wrap(
            f"{who}: {figures} {verb}{why}",
            width,
            initial_indent="  ",
            subsequent_indent="    ",
        )
    return lines


def by_group(records: Iterable[Record], key: str, at_k: AtK | None = None) -> dict[str, Group]:
    """Each group's figures (@k as `at_k` says), groups in natural order (`(none)` last)."""
    split: dict[str, list[Record]] = {}
    for record in records:
        if record["kind"] in ("constraint", "functional", "invalid", "lost"):
            split.setdefault(group_of(record, key), []).append(record)
    groups: dict[str, Group] = {}
    for name in sorted(split, key=lambda g: (g == NO_GROUP, natural_order(g))):
        group = _at_k(split[name], at_k or AtK())
        group.summary = summarize(split[name])
        groups[name] = group
    return groups


def to_dict(key: str, groups: dict[str, Group], at_k: AtK | None = None) -> dict[str, Any]:
    """The JSON report's `groups` section."""
    return {
        "key": key,
        "at_k": (at_k or AtK()).to_dict(),
        "groups": {name: group.to_dict() for name, group in groups.items()},
    }

"""The figures of answer tasks (PACIFIC, SIFO): a model answers each step of a chain of
instructions, and every step is one constraint record of the `answer` check.

From records alone, each figure twice, side by side as IFEval does: by the strict parse
of the answers and by the loose one (each record's `answer.strict` and `answer.loose`
judgement; the record's own `status` is the one its task chose as verdict):

- prompt-level accuracy: tasks whose every step is satisfied, of the tasks;
- instruction-level accuracy, micro (satisfied steps of all steps) and macro (PACIFIC's:
  the mean over tasks of each task's share of satisfied steps);
- first-failure depth (SIFO's): per task, how many consecutive steps from step 1 are
  satisfied; its mean and its distribution;
- what a step that is not satisfied is: `missing`, `invalid` (`unparsable`,
  `type-mismatch`, `duplicate`) or `wrong`, counted apart (PACIFIC's error-rate figure),
  and `undecided` for an outcome the tool could not reach (status `error`: an unreadable
  response file); none of them is the summary's error but the last;
- accuracy per step position and per instruction (`answer.instruction`);
- a difficulty table keyed by the tasks' metadata `instructions` x `length`, where tasks
  have both keys.

A record the CI gate skipped was not judged: it is left out. Everything read from a record
is checked for its type (a report may be old or edited), and names are bounded. Sums are
exact, so the figures do not depend on the order records arrive in (pytest-xdist).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal, NamedTuple, cast

from pytest_codeif.records import Record
from pytest_codeif.report.figures.means import TaskMean

#: The check whose records are answers.
ANSWER_CHECK: Final = "answer"
Mode = Literal["strict", "loose"]
MODES: Final[tuple[Mode, Mode]] = ("strict", "loose")
#: Why a step is not satisfied, as a judgement's `reason` says (records.AnswerReason).
INVALID_REASONS: Final = ("unparsable", "type-mismatch", "duplicate")
REASONS: Final = ("missing", *INVALID_REASONS, "wrong")
#: The classes of a step not satisfied, in the order reports show them.
OUTCOMES: Final = ("missing", "invalid", "wrong", "undecided")
#: The metadata keys of the difficulty table (PACIFIC's two difficulty controls).
DIFFICULTY_KEYS: Final = ("instructions", "length")
#: Longest instruction name or metadata value kept (names come from task files).
MAX_NAME: Final = 80
MAX_KEY: Final = 40
_STEP_ID: Final = re.compile(r"step-([0-9]{1,6})$")

#: A difficulty key's value: an integer as given, anything else as bounded text.
Key = int | str


class Judged(NamedTuple):
    """One step in one mode: satisfied, else the class and the reason it is not (a
    named tuple: one is made per record and mode, many thousands per summary)."""

    satisfied: bool
    outcome: str  # "satisfied" or one of OUTCOMES
    reason: str | None  # one of REASONS when violated


class Step(NamedTuple):
    """One answer record, read: where it is in its chain and its two judgements."""

    position: int | None
    instruction: str | None
    strict: Judged
    loose: Judged
    nodeid: str

    def judged(self, mode: Mode) -> Judged:
        return self.strict if mode == "strict" else self.loose


@dataclass
class Count:
    """Satisfied of some steps (or tasks)."""

    satisfied: int = 0
    total: int = 0

    def add(self, satisfied: bool) -> None:
        self.total += 1
        self.satisfied += satisfied

    @property
    def rate(self) -> float | None:
        return self.satisfied / self.total if self.total else None

    def to_dict(self) -> dict[str, Any]:
        return {"satisfied": self.satisfied, "total": self.total, "rate": self.rate}


@dataclass
class Accuracy:
    """Every figure of some answer tasks in one mode (strict or loose)."""

    prompt: Count = field(default_factory=Count)  # tasks with every step satisfied
    steps: Count = field(default_factory=Count)  # micro instruction-level accuracy
    macro: TaskMean = field(default_factory=TaskMean)  # PACIFIC's instruction-level
    depths: dict[int, int] = field(default_factory=dict)  # first-failure depth -> tasks
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))

    @property
    def tasks(self) -> int:
        return self.prompt.total

    @property
    def depth_mean(self) -> float | None:
        """The mean first-failure depth (exact until shown)."""
        if not self.tasks:
            return None
        return float(Fraction(sum(d * n for d, n in self.depths.items()), self.tasks))

    def add_task(self, steps: list[Step], mode: Mode) -> None:
        """Count one task of `steps` (in chain order)."""
        judged = [step.judged(mode) for step in steps]
        satisfied = sum(j.satisfied for j in judged)
        self.prompt.add(bool(judged) and satisfied == len(judged))
        self.macro.add(satisfied, len(judged))
        self.steps.satisfied += satisfied
        self.steps.total += len(judged)
        for found in judged:
            if not found.satisfied:
                self.outcomes[found.outcome] += 1
                if found.reason is not None:
                    self.reasons[found.reason] += 1
        depth = first_failure_depth(steps, mode)
        self.depths[depth] = self.depths.get(depth, 0) + 1

    def distribution(self) -> dict[int, int]:
        """Tasks by first-failure depth, every depth from 0 to the deepest seen."""
        deepest = max(self.depths, default=-1)
        return {d: self.depths.get(d, 0) for d in range(deepest + 1)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "prompt_level": self.prompt.to_dict(),
            "steps": self.steps.to_dict(),
            "macro": self.macro.to_dict(),
            "first_failure_depth": {
                "mean": self.depth_mean,
                "distribution": {str(d): n for d, n in self.distribution().items()},
            },
            "not_satisfied": dict(self.outcomes),
            "reasons": dict(self.reasons),
        }


@dataclass
class Both:
    """A figure by the strict parse and by the loose one."""

    strict: Accuracy = field(default_factory=Accuracy)
    loose: Accuracy = field(default_factory=Accuracy)

    def of(self, mode: Mode) -> Accuracy:
        return self.strict if mode == "strict" else self.loose

    def add_task(self, steps: list[Step]) -> None:
        for mode in MODES:
            self.of(mode).add_task(steps, mode)

    def to_dict(self) -> dict[str, Any]:
        return {"strict": self.strict.to_dict(), "loose": self.loose.to_dict()}


@dataclass
class StepCounts:
    """Satisfied steps of one position or one instruction, strict and loose."""

    strict: Count = field(default_factory=Count)
    loose: Count = field(default_factory=Count)

    def of(self, mode: Mode) -> Count:
        return self.strict if mode == "strict" else self.loose

    def add(self, step: Step) -> None:
        self.strict.add(step.strict.satisfied)
        self.loose.add(step.loose.satisfied)

    def to_dict(self) -> dict[str, Any]:
        return {"strict": self.strict.to_dict(), "loose": self.loose.to_dict()}


@dataclass
class AnswerFigures:
    """The answer tasks' figures (see the module's docstring)."""

    overall: Both = field(default_factory=Both)
    by_step: dict[int, StepCounts] = field(default_factory=dict)
    by_instruction: dict[str, StepCounts] = field(default_factory=dict)
    difficulty: dict[tuple[Key, Key], Both] = field(default_factory=dict)

    @property
    def tasks(self) -> int:
        return self.overall.strict.tasks

    @property
    def steps(self) -> int:
        return self.overall.strict.steps.total

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's `summary.answers`."""
        first, second = DIFFICULTY_KEYS
        return {
            "tasks": self.tasks,
            "steps": self.steps,
            **self.overall.to_dict(),
            "by_step": {str(k): v.to_dict() for k, v in self.by_step.items()},
            "by_instruction": {k: v.to_dict() for k, v in self.by_instruction.items()},
            "difficulty": [
                {first: a, second: b, **cell.to_dict()} for (a, b), cell in self.difficulty.items()
            ],
        }


def is_answer(record: Record) -> bool:
    """An outcome of the `answer` check that was judged (not skipped by the CI gate)."""
    return (
        record["kind"] == "constraint"
        and record.get("check") == ANSWER_CHECK
        and record["status"] != "skipped"
    )


def answer_figures(records: Iterable[Record]) -> AnswerFigures | None:
    """The figures of the answer records among `records` (any order); None when there
    is none."""
    tasks: dict[tuple[str, str], list[Step]] = {}
    metadata: dict[tuple[str, str], Mapping[str, object]] = {}
    for record in records:
        if record["kind"] != "constraint" or not is_answer(record):
            continue  # the first test narrows the type for `metadata` below
        key = (str(record["file"]), str(record["task"]))
        tasks.setdefault(key, []).append(read_step(record))
        metadata.setdefault(key, record.get("metadata") or {})
    if not tasks:
        return None
    found = AnswerFigures()
    by_step: dict[int, StepCounts] = {}
    by_instruction: dict[str, StepCounts] = {}
    difficulty: dict[tuple[Key, Key], Both] = {}
    for key in sorted(tasks):
        steps = in_chain_order(tasks[key])
        found.overall.add_task(steps)
        cell = difficulty_of(metadata[key])
        if cell is not None:
            difficulty.setdefault(cell, Both()).add_task(steps)
        for step in steps:
            if step.position is not None:
                by_step.setdefault(step.position, StepCounts()).add(step)
            if step.instruction is not None:
                by_instruction.setdefault(step.instruction, StepCounts()).add(step)
    found.by_step = dict(sorted(by_step.items()))
    found.by_instruction = dict(sorted(by_instruction.items()))
    found.difficulty = {k: difficulty[k] for k in sorted(difficulty, key=_cell_order)}
    return found


def first_failure_depth(steps: list[Step], mode: Mode) -> int:
    """SIFO's depth: how many steps from step 1 on are satisfied before the first that
    is not (a step absent from the records, or out of place, ends the run too: it was
    not shown to be satisfied)."""
    depth = 0
    for expected, step in enumerate(steps, start=1):
        if step.position != expected or not step.judged(mode).satisfied:
            break
        depth += 1
    return depth


def in_chain_order(steps: list[Step]) -> list[Step]:
    """Steps by position (unknown ones last), then node id: deterministic."""
    return sorted(steps, key=lambda s: (s.position is None, s.position or 0, s.nodeid))


# -- reading a record ------------------------------------------------------------------


def read_step(record: Record) -> Step:
    """The step an answer record is; a record without an `answer` entry (an outcome that
    could not be reached, or an older report) is judged by its status alike in both
    modes. Records are plain dicts (JSON's, or built here): `dict`, not the slower
    `Mapping`, is what is checked for."""
    plain = cast("Mapping[str, object]", record)
    answer = plain.get("answer")
    entry: Mapping[str, object] = answer if isinstance(answer, dict) else {}
    options = plain.get("options")
    given: Mapping[str, object] = options if isinstance(options, dict) else {}
    status = str(plain.get("status"))
    return Step(
        position=_position(entry, given, plain.get("constraint")),
        instruction=_name(entry.get("instruction", given.get("instruction"))),
        strict=judged(entry.get("strict"), status),
        loose=judged(entry.get("loose"), status),
        nodeid=str(plain.get("nodeid", "")),
    )


def judged(judgement: object, status: str) -> Judged:
    """One mode's judgement of a step. An outcome that could not be reached (`error`) is
    `undecided` whatever the entry says; a violated step without a known reason is
    `wrong`."""
    if status == "error":
        return _UNDECIDED
    if isinstance(judgement, dict) and judgement.get("status") in ("satisfied", "violated"):
        status = str(judgement["status"])
        reason = judgement.get("reason")
    else:
        reason = None
    if status == "satisfied":
        return _SATISFIED
    return _VIOLATED.get(reason, _VIOLATED["wrong"]) if isinstance(reason, str) else _WRONG


_SATISFIED: Final = Judged(True, "satisfied", None)
_UNDECIDED: Final = Judged(False, "undecided", None)
_VIOLATED: Final = {
    reason: Judged(False, "invalid" if reason in INVALID_REASONS else reason, reason)
    for reason in REASONS
}
_WRONG: Final = _VIOLATED["wrong"]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _position(
    entry: Mapping[str, object], options: Mapping[str, object], constraint: object
) -> int | None:
    """The step's 1-based position: the entry's, else the constraint's `step` option,
    else its id `step-N`."""
    for value in (entry.get("step"), options.get("step")):
        if (found := _int(value)) is not None and found >= 1:
            return found
    match = _STEP_ID.search(str(constraint or ""))
    return int(match.group(1)) if match and int(match.group(1)) >= 1 else None


def _name(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return value if len(value) <= MAX_NAME else value[: MAX_NAME - 1] + "…"


def difficulty_of(metadata: Mapping[str, object]) -> tuple[Key, Key] | None:
    """The task's difficulty cell, (instructions, length); None unless it has both."""
    found = [_key(metadata.get(name)) for name in DIFFICULTY_KEYS]
    first, second = found
    return None if first is None or second is None else (first, second)


def _key(value: object) -> Key | None:
    if value is None:
        return None
    if (number := _int(value)) is not None:
        return number
    text = str(value)
    return text if len(text) <= MAX_KEY else text[: MAX_KEY - 1] + "…"


def _cell_order(cell: tuple[Key, Key]) -> tuple[tuple[int, int, str], ...]:
    """Numbers ascending, then text: `3 x 10` after `3 x 5`."""
    return tuple((0, v, "") if isinstance(v, int) else (1, 0, v) for v in cell)

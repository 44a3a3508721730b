"""Outcome types every layer shares: a finding, a verdict, a test case's result.

This module sits at the bottom of the package and imports only the standard library,
so the code layer, the sandbox, the checks and the engine can all speak of verdicts
without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["satisfied", "violated", "error"]

#: Kinds of "could not decide"; counted apart in every summary.
ErrorKind = Literal[
    "no-code",
    "syntax-error",
    "timeout",
    "checker-failure",
    "invalid-task",
    "missing-file",
    "crash",
    "too-large",
    "no-observations",
    "missing-module",
    "protocol",
    "missing-tool",
]

CaseStatus = Literal["passed", "failed", "error"]


class Undecidable(Exception):
    """The check cannot reach a verdict (no code, syntax error, tool crash...)."""

    def __init__(
        self, kind: ErrorKind, message: str, *, key_path: tuple[str | int, ...] = ()
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        #: For an `invalid-task` error about one option: its key path inside the
        #: constraint (`("containers", 0)`), so the engine can name its task-file line.
        self.key_path = key_path


@dataclass(frozen=True)
class Finding:
    """One piece of evidence that a constraint is violated.

    `path` is relative to the code unit's root (e.g. ``solution.py``); the engine maps it,
    and `line`, back to where the code really came from (a YAML line, a response line).
    """

    message: str
    rule: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    #: `line` is a line of the task file itself (e.g. a test case's), not of the code.
    in_task_file: bool = False
    #: For a finding about a chain of imports: (path, line) of every import on it, in
    #: order; the gate counts the finding when any of them changed.
    links: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Evidence:
    """A finding located where the user can see it (task file line, real file line).

    `path`, `line` and `column` are in the file the user wrote: the task file for inline
    code and responses, the response's own file, or the real source file; `column` only
    where `line` is the code's own line. `code_path`, `code_line` and `code_column` are
    the same place in the code under evaluation (the extracted code, for a response);
    None when the finding is not in the code (a failed test case of the task file).
    """

    path: str
    line: int | None
    rule: str
    message: str
    column: int | None = None
    code_path: str | None = None
    code_line: int | None = None
    code_column: int | None = None
    #: Every link of a chain of imports, located as `path` and `line` are (see
    #: `Finding.links`).
    links: tuple[tuple[str, int | None], ...] = ()

    def __post_init__(self) -> None:
        # Read back from JSON (the verdict cache), the links are lists.
        object.__setattr__(self, "links", tuple((str(p), line) for p, line in self.links))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: [{self.rule}] {self.message}"
        if len(self.links) > 1:
            shown = ", ".join(f"{p}:{line}" if line else p for p, line in self.links)
            text += f" [links: {shown}]"
        return text


@dataclass(frozen=True)
class Verdict:
    """Satisfied, violated (with evidence) or error (with its kind and a reason)."""

    status: Status
    evidence: tuple[Evidence, ...] = ()
    error_kind: ErrorKind | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    cached: bool = False  # reused from an earlier run (see engine/verdict_cache.py)
    #: Plain JSON data a check gives its outcome's record beyond the findings (an answer
    #: step's strict and loose readings: `records.AnswerEntry`), by record key.
    details: dict[str, object] | None = None


@dataclass(frozen=True)
class CaseResult:
    """One functional test case's outcome; `line` is the case's line in the task file."""

    label: str
    status: CaseStatus
    message: str
    line: int
    #: For a call case that returned: the harness's tagged encoding of the value (plain
    #: JSON, decoded with `functional.plain.decode`), kept for checks that judge values.
    value: Any = None
    returned: bool = False
    raised: bool = False  # the call raised an exception (not a crash or a timeout)
    #: One assertion of the task's pass rate; False for a failure that is none (a Newman
    #: test script that threw, a Newman run's own failure), set where it is read, never
    #: from a label the code's output may shape.
    assertion: bool = True


@dataclass(frozen=True)
class FunctionalOutcome:
    """The functional verdict of a task, with each case's result."""

    verdict: Verdict
    cases: tuple[CaseResult, ...]

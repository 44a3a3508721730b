"""A verdict and its evidence, as checks and functional tests reach them."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_codeif.checks.base import ErrorKind, Status


@dataclass(frozen=True)
class Evidence:
    """A finding located where the user can see it (task file line, real file line)."""

    path: str
    line: int | None
    rule: str
    message: str
    column: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class Verdict:
    """Satisfied, violated (with evidence) or error (with its kind and a reason)."""

    status: Status
    evidence: tuple[Evidence, ...] = ()
    error_kind: ErrorKind | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    cached: bool = False  # reused from an earlier run (see verdict_cache.py)

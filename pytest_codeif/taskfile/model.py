"""The task model: what a task file says, validated and with locations kept.

The plain parts (where the code is, the test cases) live in `pytest_codeif.spec`, below
the checks; a task and its constraints, which hold configured checks, live here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_codeif.checks.base import Check
from pytest_codeif.code.scope import EVERYTHING, Scope
from pytest_codeif.errors import Location
from pytest_codeif.spec import Behaviour, CallCase, CodeSpec, PytestCase


@dataclass(frozen=True)
class ConstraintSpec:
    """One constraint: a configured check plus the labels reports group it by."""

    id: str
    check: Check
    category: str
    level: int | None
    message: str | None
    location: Location
    #: Which files the constraint is about (its `files` / `modules` keys...).
    scope: Scope = EVERYTHING

    @property
    def check_name(self) -> str:
        return self.check.name


@dataclass(frozen=True)
class Task:
    """One task: the code under evaluation, its constraints and its functional tests."""

    id: str
    path: Path
    location: Location
    code: CodeSpec
    instruction: str | None = None
    module: str | None = None
    timeout: float = 10.0
    metadata: dict[str, Any] = field(default_factory=dict)
    constraints: tuple[ConstraintSpec, ...] = ()
    calls: tuple[CallCase, ...] = ()
    pytest_files: tuple[PytestCase, ...] = ()
    #: A service, its database, and the cases judged by running the code (requests,
    #: command lines, Newman collections; the `pytest:` files too when there is a service).
    behaviour: Behaviour | None = None

    @property
    def has_tests(self) -> bool:
        behaves = self.behaviour is not None and bool(self.behaviour.cases)
        return bool(self.calls or self.pytest_files or behaves)


__all__ = ["CallCase", "CodeSpec", "ConstraintSpec", "PytestCase", "Task"]

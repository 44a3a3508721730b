"""The task model: what a task file says, validated and with locations kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_codeif.checks.base import Check
from pytest_codeif.errors import Location
from pytest_codeif.taskfile.yamlload import NodeMark

SourceKind = Literal["code", "file", "directory", "response"]


@dataclass(frozen=True)
class CodeSpec:
    """Where the code under evaluation comes from, as the task file states it."""

    kind: SourceKind
    value: str
    location: Location
    mark: NodeMark | None  # the YAML node of inline code or a response, for line mapping


@dataclass(frozen=True)
class ConstraintSpec:
    """One constraint: a configured check plus the labels reports group it by."""

    id: str
    check: Check
    category: str
    level: int | None
    message: str | None
    location: Location

    @property
    def check_name(self) -> str:
        return self.check.name


@dataclass(frozen=True)
class CallCase:
    """Call a function (or evaluate an expression) and compare the plain-data result."""

    label: str
    location: Location
    expression: str | None = None
    function: str | None = None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    expect: Any = None
    raises: str | None = None
    approx: float | None = None


@dataclass(frozen=True)
class PytestCase:
    """A pytest file run against the code."""

    label: str
    path: Path
    location: Location


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

    @property
    def has_tests(self) -> bool:
        return bool(self.calls or self.pytest_files)

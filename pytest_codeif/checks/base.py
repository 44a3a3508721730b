"""What a check is: a class with a name, a category, an options schema and proof samples.

A check never runs tools itself: it asks its `CheckContext` for the parsed modules or for
ruff's and mypy's diagnostics, so the engine can parse each file once and batch each tool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

if TYPE_CHECKING:
    from pytest_codeif.engine.context import CheckContext
    from pytest_codeif.engine.tools import ToolConfig

#: The MultiCodeIF taxonomy; a constraint may name any category, these are the defaults.
CATEGORIES: Final = (
    "Interface Specification",
    "Environment",
    "Data Structure",
    "Algorithm",
    "Coding Style",
    "Code Quality",
    "Scenario",
    "Code Context",
    "Exemplar",
)

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
]


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


@dataclass(frozen=True)
class Sample:
    """Code that satisfies or violates a check with the given options.

    `code` is one module's source, or a mapping of relative path to source for a project.
    """

    code: str | Mapping[str, str]
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Call cases to run (`function`, `args`, `kwargs`), for checks that judge values
    #: observed when the code runs.
    calls: Sequence[Mapping[str, Any]] = ()


class Undecidable(Exception):
    """The check cannot reach a verdict (no code, syntax error, tool crash...)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message


class Check:
    """Base class of every check. Subclasses set the class attributes and `evaluate`.

    The subclass docstring is the user documentation (the README's list of checks is
    generated from it): first line what it checks, then why, its options and an example.
    """

    name: ClassVar[str]
    category: ClassVar[str]
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    satisfied_by: ClassVar[Sequence[Sample]] = ()
    violated_by: ClassVar[Sequence[Sample]] = ()
    #: The check judges values observed when the task's call cases run, so its verdict
    #: depends on those cases too (the verdict cache keys on them).
    observes_calls: ClassVar[bool] = False

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options: Mapping[str, Any] = options

    def tool_configs(self) -> Iterable[ToolConfig]:
        """The tool runs this check will ask for, so the engine can batch them ahead."""
        return ()

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        """Return the findings; none means satisfied. Raise `Undecidable` when unsure."""
        raise NotImplementedError

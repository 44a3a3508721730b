"""Plain parts of a task: where its code comes from and its functional test cases.

Plain data with locations, below the checks and the functional runner, so that both can
read cases without importing the task model (which holds configured checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_codeif.errors import Location

SourceKind = Literal["code", "file", "directory", "response", "response-file", "responses"]

#: Extensions of a `file:` read as Python source; any other file is a model response.
PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")


@dataclass(frozen=True)
class NodeMark:
    """Where a YAML node starts, and how its scalar text was written."""

    line: int  # 1-based
    column: int  # 1-based
    style: str | None  # "|" or ">" for block scalars, quotes for flow, None for plain


@dataclass(frozen=True)
class CodeSpec:
    """Where the code under evaluation comes from, as the task file states it."""

    kind: SourceKind
    value: str
    location: Location
    mark: NodeMark | None  # the YAML node of inline code or a response, for line mapping
    #: For a directory: gitignore-style patterns of files to leave out (task `exclude`).
    exclude: tuple[str, ...] = ()
    #: For text given inline elsewhere than the task file (a JSONL record of `responses`):
    #: that file, which evidence then names.
    origin: Path | None = None


@dataclass(frozen=True)
class CallCase:
    """Call a function (or evaluate an expression) and compare the plain-data result.

    For an expression whose outermost call is a plain name (`sq(3)`), `function` names
    that function, so checks of observed values count the case as one of its calls;
    `args` and `kwargs` hold the call's arguments when all are literals (`args_known`).
    The expression is what runs.
    """

    label: str
    location: Location
    expression: str | None = None
    function: str | None = None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    expect: Any = None
    raises: str | None = None
    approx: float | None = None
    args_known: bool = True


@dataclass(frozen=True)
class PytestCase:
    """A pytest file run against the code."""

    label: str
    path: Path
    location: Location

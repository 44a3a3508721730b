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
    #: The task's `language:` (a `languages.py` name): what inline code and a response's
    #: fences are read as. None: inline code is Python, a response's language is found
    #: from its fences (`extract.response_language`), files by their suffixes.
    language: str | None = None


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
    #: The task's tolerance (`functional.plain.tolerance` reads it): a number or {rel, abs}.
    approx: float | dict[str, float] | None = None
    args_known: bool = True


@dataclass(frozen=True)
class PytestCase:
    """A pytest file run against the code."""

    label: str
    path: Path
    location: Location


# Behaviour: a service, its database, and cases judged by what the running code does.

Ready = str  # an HTTP path ("/api/health-check") or "tcp"


@dataclass(frozen=True)
class ServiceSpec:
    """How to start the code as a service: the command (run from a writable copy of the
    code), the port it listens on, how to tell it is ready, and for how long to wait."""

    argv: tuple[str, ...]
    port: int
    ready: Ready
    timeout: float
    env: tuple[tuple[str, str], ...]
    location: Location

    @property
    def url(self) -> str:
        """The base URL tests reach the service at (`CODEIF_SERVICE_URL`)."""
        return f"http://127.0.0.1:{self.port}"


DatabaseKind = Literal["postgres", "sqlite"]


@dataclass(frozen=True)
class DatabaseSpec:
    """A database started for the task inside its sandbox (PostgreSQL), reachable as host
    `postgres` with these credentials; `sqlite` starts nothing."""

    kind: DatabaseKind
    location: Location
    name: str = "conduit"
    user: str = "user"
    password: str = "password"  # noqa: S105 - the benchmark's default, a throwaway database
    port: int = 5432

    @property
    def url(self) -> str | None:
        """The `DATABASE_URL` given to the service and the tests (None for sqlite)."""
        if self.kind != "postgres":
            return None
        return f"postgresql://{self.user}:{self.password}@postgres:{self.port}/{self.name}"


@dataclass(frozen=True)
class TextExpectation:
    """What a program's output or a written file must be: `exact` text, text it
    `contains`, a `regex` it matches (searched, linear-time engine), or, for a file,
    `exists: false`."""

    exact: str | None = None
    contains: str | None = None
    regex: str | None = None
    absent: bool = False


@dataclass(frozen=True)
class HttpCase:
    """One request to the service and what its response must be; `capture` names values
    of the response's JSON (by path) that later requests use as `${name}`."""

    label: str
    location: Location
    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    json: Any = None
    has_json: bool = False
    body: str | None = None
    status: int | None = None
    json_subset: Any = None
    has_json_subset: bool = False
    paths: tuple[tuple[str, Any], ...] = ()
    expect_headers: tuple[tuple[str, str], ...] = ()
    capture: tuple[tuple[str, str], ...] = ()
    timeout: float | None = None


@dataclass(frozen=True)
class CliCase:
    """One run of the program on the command line (from a fresh writable copy of the code)
    and what it must print, exit with, and write."""

    label: str
    location: Location
    argv: tuple[str, ...]
    stdin: str | None = None
    stdout: TextExpectation | None = None
    stderr: TextExpectation | None = None
    exit: int = 0
    files: tuple[tuple[str, TextExpectation], ...] = ()
    timeout: float | None = None


@dataclass(frozen=True)
class NewmanCase:
    """A Postman collection run by Newman against the service; each of its assertions
    is one case."""

    label: str
    location: Location
    collection: Path
    variables: tuple[tuple[str, str], ...] = ()
    timeout: float = 300.0


BehaviourCase = HttpCase | CliCase | NewmanCase | PytestCase


@dataclass(frozen=True)
class Behaviour:
    """What a task judges by running its code as a program or a service: the service,
    its database, and the cases in file order (captures flow from one request to the
    next). A `pytest:` file is one of them when the task has a service."""

    service: ServiceSpec | None
    database: DatabaseSpec | None
    cases: tuple[BehaviourCase, ...]

"""A task's behaviour, read from its mapping: the `service`, its `databases`, and the
test cases judged by running the code (HTTP requests, command lines, Newman
collections). The schema has checked each value's shape; what it cannot say (a pattern
RE2 refuses, a case that needs a service the task does not start, a capture used before
any request sets it) is said here, at its key path."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from pytest_codeif.errors import Location
from pytest_codeif.safe_regex import validate_pattern
from pytest_codeif.spec import (
    Behaviour,
    BehaviourCase,
    CliCase,
    DatabaseSpec,
    HttpCase,
    NewmanCase,
    PytestCase,
    ServiceSpec,
    TextExpectation,
)
from pytest_codeif.taskfile.yamlload import KeyPath

#: `${name}` in request paths, headers, bodies, Newman variables and service env.
VARIABLE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Names every case may use: set before any case runs.
GIVEN_NAMES: Final = frozenset({"CODEIF_SERVICE_URL", "DATABASE_URL"})
#: Seconds a service may take to become ready, unless the task says.
SERVICE_TIMEOUT: Final = 60.0
#: A path into a JSON document: `user.token`, `articles[0].slug`, `[2]`.
JSON_PATH: Final = re.compile(r"(?:[A-Za-z_$][\w$-]*|\[\d+\])(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*")
_PATH_TYPES: Final = ("string", "number", "integer", "boolean", "null", "array", "object")
#: Keys that say a test case is judged by behaviour rather than by a call.
BEHAVIOUR_KEYS: Final = ("request", "run", "newman")

Problem = Callable[[KeyPath, str], None]
At = Callable[..., Location]
Existing = Callable[[str, KeyPath], Path | None]


def command(value: str | list[str]) -> tuple[str, ...]:
    """A command as argv: a string runs through /bin/sh."""
    return ("/bin/sh", "-c", value) if isinstance(value, str) else tuple(value)


def _strings(raw: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """A mapping of scalars as (name, text) pairs; YAML booleans as true/false."""
    if not raw:
        return ()
    return tuple((str(k), _text(v)) for k, v in raw.items())


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class BehaviourReader:
    """Reads the behaviour parts of one task, reporting problems through `problem`."""

    def __init__(self, problem: Problem, at: At, existing: Existing) -> None:
        self.problem = problem
        self.at = at
        self.existing = existing

    def service(self, raw: Mapping[str, Any]) -> ServiceSpec | None:
        """The task's service; None when it has none or its shape is wrong (the
        schema's problems say how: nothing here may guess at a value)."""
        given = raw.get("service")
        if not isinstance(given, Mapping) or not _service_shaped(given):
            return None
        env = _strings(given.get("env"))
        self._names_known(("service", "env"), [v for _, v in env], set())
        return ServiceSpec(
            argv=command(given["run"]),
            port=int(given["port"]),
            ready=str(given.get("ready", "/")),
            timeout=float(given.get("timeout", SERVICE_TIMEOUT)),
            env=env,
            location=self.at("service"),
        )

    def database(self, raw: Mapping[str, Any]) -> DatabaseSpec | None:
        kinds = raw.get("databases")
        settings = raw.get("database")
        if settings is not None and kinds != ["postgres"]:
            self.problem(
                ("database",), "`database` names PostgreSQL's; add `databases: [postgres]`"
            )
            return None
        if not isinstance(kinds, list) or kinds != ["postgres"]:
            return None
        given = settings if isinstance(settings, Mapping) else {}
        if not all(isinstance(given.get(k, ""), str) for k in ("name", "user", "password")):
            return None  # the schema's problems say which
        return DatabaseSpec(
            "postgres",
            self.at("databases"),
            name=str(given.get("name", "conduit")),
            user=str(given.get("user", "user")),
            password=str(given.get("password", "password")),
        )

    def case(self, i: int, raw: Mapping[str, Any], captured: set[str]) -> BehaviourCase | None:
        """Test case `i` (a mapping with one of BEHAVIOUR_KEYS), or None after saying why
        it cannot be used; `captured` gains the names its request captures."""
        if "request" in raw:
            return self._http(i, raw, captured)
        if "run" in raw:
            return self._cli(i, raw)
        return self._newman(i, raw)

    def _http(self, i: int, raw: Mapping[str, Any], captured: set[str]) -> HttpCase | None:
        request, expect = raw["request"], raw.get("expect", {})
        method = str(request.get("method", "GET"))
        label = str(raw.get("name", f"{method} {request['path']}"))
        ok = self._names_known(("tests", i, "request"), _texts_of(request), captured)
        paths: list[tuple[str, Any]] = []
        for path, wanted in (expect.get("paths") or {}).items():
            ok = self._json_path(("tests", i, "expect", "paths", path), str(path)) and ok
            ok = self._path_expectation(("tests", i, "expect", "paths", path), wanted) and ok
            paths.append((str(path), wanted))
        capture = _strings(raw.get("capture"))
        for name, path in capture:
            if name in GIVEN_NAMES:
                self.problem(("tests", i, "capture", name), f"`{name}` is set by pytest-codeif")
                ok = False
            ok = self._json_path(("tests", i, "capture", name), path) and ok
        captured.update(name for name, _ in capture)
        if not ok:
            return None
        return HttpCase(
            label,
            self.at("tests", i),
            method=method,
            path=str(request["path"]),
            headers=_strings(request.get("headers")),
            json=request.get("json"),
            has_json="json" in request,
            body=request.get("body"),
            status=expect.get("status"),
            json_subset=expect.get("json"),
            has_json_subset="json" in expect,
            paths=tuple(paths),
            expect_headers=_strings(expect.get("headers")),
            capture=capture,
            timeout=raw.get("timeout"),
        )

    def _cli(self, i: int, raw: Mapping[str, Any]) -> CliCase | None:
        argv = command(raw["run"])
        label = str(raw.get("name", raw["run"] if isinstance(raw["run"], str) else " ".join(argv)))
        ok = True
        expectations: dict[str, TextExpectation | None] = {}
        for stream in ("stdout", "stderr"):
            good, expectations[stream] = self._text_expectation(
                ("tests", i, stream), raw.get(stream)
            )
            ok = ok and good
        files: list[tuple[str, TextExpectation]] = []
        for name, wanted in (raw.get("files") or {}).items():
            where: KeyPath = ("tests", i, "files", name)
            if not _relative(str(name)):
                self.problem(where, "a file the program writes, relative to its folder")
                ok = False
                continue
            good, expected = self._text_expectation(where, wanted)
            if expected is not None:
                files.append((str(name), expected))
            ok = ok and good
        if not ok:
            return None
        return CliCase(
            label,
            self.at("tests", i),
            argv=argv,
            stdin=raw.get("stdin"),
            stdout=expectations["stdout"],
            stderr=expectations["stderr"],
            exit=int(raw.get("exit", 0)),
            files=tuple(files),
            timeout=raw.get("timeout"),
        )

    def _newman(self, i: int, raw: Mapping[str, Any]) -> NewmanCase | None:
        path = self.existing(str(raw["newman"]), ("tests", i, "newman"))
        variables = _strings(raw.get("variables"))
        known = self._names_known(("tests", i, "variables"), [v for _, v in variables], set())
        if path is None or not known:
            return None
        extra = {"timeout": float(raw["timeout"])} if "timeout" in raw else {}
        return NewmanCase(
            str(raw.get("name", raw["newman"])),
            self.at("tests", i),
            collection=path,
            variables=variables,
            **extra,
        )

    def _text_expectation(self, where: KeyPath, raw: Any) -> tuple[bool, TextExpectation | None]:
        """Whether `raw` can be used (a problem is said when not), and the expectation it
        says (None when absent)."""
        if raw is None:
            return True, None
        if isinstance(raw, str):
            return True, TextExpectation(exact=raw)
        if raw.get("exists") is False:
            return True, TextExpectation(absent=True)
        if "regex" in raw:
            problem = validate_pattern(str(raw["regex"]))
            if problem is not None:
                self.problem((*where, "regex"), problem)
                return False, None
        return True, TextExpectation(
            exact=raw.get("exact"), contains=raw.get("contains"), regex=raw.get("regex")
        )

    def _json_path(self, where: KeyPath, path: str) -> bool:
        if JSON_PATH.fullmatch(path):
            return True
        self.problem(where, f"`{path}` is not a path into JSON (`user.token`, `items[0].id`)")
        return False

    def _path_expectation(self, where: KeyPath, wanted: Any) -> bool:
        """A path's expectation: a plain value, or exactly one of {type}, {exists: false},
        {length: N} (a mapping with other keys is a value to compare)."""
        if not isinstance(wanted, Mapping) or len(wanted) != 1:
            return True
        ((key, value),) = wanted.items()
        if key == "type" and value not in _PATH_TYPES:
            allowed = ", ".join(_PATH_TYPES)
            self.problem((*where, "type"), f"expected one of {allowed}, got {value!r}")
            return False
        if key == "exists" and value is not False:
            self.problem((*where, "exists"), "only `exists: false` is said (a value implies it)")
            return False
        if key == "length" and (type(value) is not int or value < 0):
            self.problem((*where, "length"), "expected a length (an integer >= 0)")
            return False
        return True

    def _names_known(self, where: KeyPath, texts: list[str], captured: set[str]) -> bool:
        """Whether every `${name}` in `texts` is given or captured by an earlier request."""
        for text in texts:
            for name in VARIABLE.findall(text):
                if name not in GIVEN_NAMES and name not in captured:
                    self.problem(
                        where,
                        f"`${{{name}}}` is neither {' nor '.join(sorted(GIVEN_NAMES))} "
                        "nor captured by an earlier request (`capture:`)",
                    )
                    return False
        return True


def _service_shaped(given: Mapping[str, Any]) -> bool:
    """Whether each of a service's values has the type the schema asks (the schema's
    problems are recorded; the service is built only when they are none of these)."""
    run, port, timeout = given.get("run"), given.get("port"), given.get("timeout", 1)
    env, ready = given.get("env", {}), given.get("ready", "/")
    command_ok = (isinstance(run, str) and run != "") or (
        isinstance(run, list) and bool(run) and all(isinstance(a, str) for a in run)
    )
    return (
        command_ok
        and type(port) is int
        and 0 < port < 65536
        and isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and isinstance(env, Mapping)
        and all(isinstance(v, str | int | float | bool) for v in env.values())
        and isinstance(ready, str)
    )


def _texts_of(value: Any) -> list[str]:
    """Every string in a request (path, header values, JSON strings, body)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _texts_of(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts_of(v)]
    return []


def _relative(name: str) -> bool:
    path = Path(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts


def behaviour_of(
    service: ServiceSpec | None,
    database: DatabaseSpec | None,
    ordered: list[BehaviourCase],
) -> Behaviour | None:
    """The task's behaviour, when it has any. `ordered` holds the behaviour cases and the
    `pytest:` files in file order: with a service or a database, the files run beside
    it (they need its network) and stay among the cases; else they run on their own."""
    with_network = service is not None or database is not None
    cases = tuple(c for c in ordered if with_network or not isinstance(c, PytestCase))
    if not with_network and not cases:
        return None
    return Behaviour(service, database, cases)

"""Turn a loaded task file into `Task` objects, one located error per bad task.

A bad task does not spoil the file: the good tasks beside it are returned and run.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_codeif.checks.base import Check
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.errors import TaskFileError
from pytest_codeif.spec import CallCase, CodeSpec, PytestCase, SourceKind
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.schema import (
    CONSTRAINT_KEYS,
    constraint_schema,
    describe_error,
    file_schema,
    first_error,
    task_schema,
)
from pytest_codeif.taskfile.yamlload import KeyPath, LoadedYaml

#: Node name of a task's functional-tests item; no constraint may take it.
FUNCTIONAL_ITEM = "tests"

_FILE_SCHEMA = file_schema({})
_TASK_SCHEMA = task_schema(constraint_schema())


@dataclass
class ParsedFile:
    """The valid tasks of a file, and an error (with a label) for each invalid one."""

    tasks: list[Task] = field(default_factory=list)
    errors: list[tuple[str, TaskFileError]] = field(default_factory=list)


def parse_task_file(
    loaded: LoadedYaml, registry: CheckRegistry, root: Path | None = None
) -> ParsedFile:
    """Validate `loaded` and build its tasks; file-level problems raise `TaskFileError`.

    With `root` (pytest's rootdir), every path a task names must lie inside it, symlinks
    resolved: a task file from elsewhere cannot point the tools at the host's files.
    """
    if loaded.data is None:
        raise TaskFileError(loaded.location(()), "the file is empty; expected a `tasks:` list")
    _raise_first(loaded, (), _FILE_SCHEMA, loaded.data)
    parsed = ParsedFile()
    seen: dict[str, int] = {}
    built: dict[tuple[str, str], Check] = {}
    for index, raw in enumerate(loaded.data["tasks"]):
        label = raw.get("id") if isinstance(raw, Mapping) else None
        label = str(label) if isinstance(label, str) and label else f"tasks[{index}]"
        try:
            task = _TaskBuilder(loaded, registry, index, root, built).build(raw)
            if task.id in seen:
                raise TaskFileError(
                    loaded.location(("tasks", index, "id")),
                    f"duplicate task id {task.id!r} (first used by tasks[{seen[task.id]}])",
                )
            seen[task.id] = index
            parsed.tasks.append(task)
        except TaskFileError as exc:
            if label in seen or any(lbl == label for lbl, _ in parsed.errors):
                label = f"tasks[{index}]"
            parsed.errors.append((label, exc))
    return parsed


def _raise_first(loaded: LoadedYaml, base: KeyPath, schema: Mapping[str, Any], value: Any) -> None:
    error = first_error(schema, value)
    if error is not None:
        rel, message = describe_error(error)
        raise TaskFileError(loaded.location((*base, *rel)), message)


class _TaskBuilder:
    """Builds one task from its validated mapping; every failure is a located error."""

    def __init__(
        self,
        loaded: LoadedYaml,
        registry: CheckRegistry,
        index: int,
        root: Path | None,
        built: dict[tuple[str, str], Check],
    ) -> None:
        self.built = built
        self.loaded = loaded
        self.registry = registry
        self.root = root.resolve() if root is not None else None
        self.base: KeyPath = ("tasks", index)
        self.folder = loaded.path.parent

    def at(self, *rel: str | int) -> Any:
        return self.loaded.location((*self.base, *rel))

    def build(self, raw: Any) -> Task:
        _raise_first(self.loaded, self.base, _TASK_SCHEMA, raw)
        kinds: tuple[SourceKind, ...] = ("code", "file", "directory", "response", "response-file")
        kind = next(k for k in kinds if k in raw)
        code = CodeSpec(kind, raw[kind], self.at(kind), self.loaded.marks.get((*self.base, kind)))
        if kind in ("file", "directory", "response-file"):
            self._existing_path(raw[kind], (kind,), want_dir=kind == "directory")
        entry = raw.get("entry-point")
        if not raw.get("constraints") and not raw.get("tests"):
            raise TaskFileError(
                self.at(), "the task has no `constraints` and no `tests`: nothing to check"
            )
        return Task(
            id=raw["id"],
            path=self.loaded.path,
            location=self.at(),
            code=code,
            instruction=raw.get("instruction"),
            module=raw.get("module"),
            timeout=float(raw.get("timeout", 10.0)),
            metadata=dict(raw.get("metadata", {})),
            constraints=self._constraints(raw.get("constraints", [])),
            calls=tuple(
                self._call(i, case, entry)
                for i, case in enumerate(raw.get("tests", []))
                if "pytest" not in case
            ),
            pytest_files=tuple(
                PytestCase(
                    case.get("name", case["pytest"]),
                    self._existing_path(case["pytest"], ("tests", i, "pytest"), want_dir=False),
                    self.at("tests", i),
                )
                for i, case in enumerate(raw.get("tests", []))
                if "pytest" in case
            ),
        )

    def _existing_path(self, value: str, rel: tuple[str | int, ...], *, want_dir: bool) -> Path:
        path = (self.folder / value).resolve()
        if self.root is not None and not path.is_relative_to(self.root):
            raise TaskFileError(
                self.at(*rel),
                f"{value!r} leads to {path}, outside the test root {self.root}; "
                "task files may only name code and tests inside it",
            )
        if want_dir and not path.is_dir():
            raise TaskFileError(self.at(*rel), f"expected a directory, but {path} is not one")
        if not want_dir and not path.is_file():
            raise TaskFileError(self.at(*rel), f"expected a file, but {path} does not exist")
        return path

    def _constraints(self, raws: list[Any]) -> tuple[ConstraintSpec, ...]:
        explicit: dict[str, int] = {}
        for j, raw in enumerate(raws):
            if raw.get("id") == FUNCTIONAL_ITEM:
                raise TaskFileError(
                    self.at("constraints", j, "id"),
                    f"the constraint id {FUNCTIONAL_ITEM!r} is reserved for the functional tests",
                )
            if "id" in raw and raw["id"] in explicit:
                raise TaskFileError(
                    self.at("constraints", j, "id"),
                    f"duplicate constraint id {raw['id']!r} "
                    f"(first used by constraints[{explicit[raw['id']]}])",
                )
            if "id" in raw:
                explicit[raw["id"]] = j
        specs: list[ConstraintSpec] = []
        counts: dict[str, int] = {}
        for j, raw in enumerate(raws):
            spec = self._constraint(j, raw)
            if "id" not in raw:
                # Default ids are the check name; a repeated check gets -2, -3... in file order.
                counts[spec.id] = counts.get(spec.id, 0) + 1
                new_id = spec.id if counts[spec.id] == 1 else f"{spec.id}-{counts[spec.id]}"
                while new_id in explicit:
                    new_id += "-auto"
                spec = dataclasses.replace(spec, id=new_id)
            specs.append(spec)
        return tuple(specs)

    def _constraint(self, j: int, raw: Mapping[str, Any]) -> ConstraintSpec:
        name = raw["check"]
        check_cls = self.registry.get(name)
        if check_cls is None:
            hint = self.registry.suggest(name)
            did = f"did you mean {hint!r}? " if hint else ""
            known = ", ".join(c.name for c in self.registry)
            raise TaskFileError(
                self.at("constraints", j, "check"),
                f"unknown check {name!r}; {did}known checks: {known}",
            )
        # Suites repeat the same constraint over thousands of tasks: a constraint already
        # validated and built is reused (checks are immutable once built).
        key = (name, json.dumps(raw, sort_keys=True, default=repr))
        check = self.built.get(key)
        if check is None:
            _raise_first(
                self.loaded,
                (*self.base, "constraints", j),
                constraint_schema(check_cls.options_schema),
                raw,
            )
            options = {k: v for k, v in raw.items() if k not in CONSTRAINT_KEYS}
            try:
                check = check_cls(options)
            except (ValueError, TypeError) as exc:
                raise TaskFileError(
                    self.at("constraints", j), f"invalid options for check {name!r}: {exc}"
                ) from None
            self.built[key] = check
        return ConstraintSpec(
            id=raw.get("id", name),
            check=check,
            category=raw.get("category", check_cls.category),
            level=raw.get("level"),
            message=raw.get("message"),
            location=self.at("constraints", j),
        )

    def _call(self, i: int, raw: Mapping[str, Any], entry: str | None) -> CallCase:
        loc = self.at("tests", i)
        if "expect" not in raw and "expected_output" not in raw and "raises" not in raw:
            raise TaskFileError(
                loc, "a call case needs `expect` (or `expected_output`) or `raises`"
            )
        if "call" in raw:
            try:
                tree = ast.parse(raw["call"], mode="eval")
            except SyntaxError as exc:
                raise TaskFileError(
                    self.at("tests", i, "call"),
                    f"`call` must be a Python expression: {exc.msg}",
                ) from None
            function, args, kwargs, known = _called(tree.body)
            return CallCase(
                raw.get("name", raw["call"]),
                loc,
                expression=raw["call"],
                function=function,
                args=args,
                kwargs=kwargs,
                args_known=known,
                expect=raw.get("expect"),
                raises=raw.get("raises"),
                approx=raw.get("approx"),
            )
        function = raw.get("function", entry)
        if function is None:
            raise TaskFileError(
                loc, "a case with args needs `function`, or the task needs `entry-point`"
            )
        given = raw.get("input", raw)
        args, kwargs = list(given.get("args", [])), dict(given.get("kwargs", {}))
        shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        return CallCase(
            raw.get("name", f"{function}({shown})"),
            loc,
            function=function,
            args=args,
            kwargs=kwargs,
            expect=raw.get("expect", raw.get("expected_output")),
            raises=raw.get("raises"),
            approx=raw.get("approx"),
        )


def _called(node: ast.expr) -> tuple[str | None, list[Any], dict[str, Any], bool]:
    """The function an expression calls at its outermost level (`sq(3)` calls `sq`), with
    its arguments when all are literals; (None, [], {}, False) for anything else."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None, [], {}, False
    try:
        args = [ast.literal_eval(arg) for arg in node.args]
        kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return node.func.id, [], {}, False
    starred = any(isinstance(a, ast.Starred) for a in node.args)
    if starred or any(kw.arg is None for kw in node.keywords):
        return node.func.id, [], {}, False
    return node.func.id, args, kwargs, True

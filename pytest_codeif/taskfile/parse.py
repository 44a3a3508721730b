"""Turn a loaded task file into `Task` objects, with every problem of a bad task located.

A bad task does not spoil the file: the good tasks beside it are returned and run. Each
bad task gives one error, `TaskProblems`, that lists all its problems (schema errors at
every key path, unknown checks, bad options, missing paths, bad test cases).
"""

from __future__ import annotations

import ast
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from jsonschema.protocols import Validator

from pytest_codeif.checks.base import Check
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.code.languages import JS_FAMILY, language_of_file
from pytest_codeif.code.scope import Scope, ScopePatternError, scope_from
from pytest_codeif.errors import TaskFileError
from pytest_codeif.spec import (
    Behaviour,
    BehaviourCase,
    CallCase,
    CodeSpec,
    PytestCase,
    SourceKind,
)
from pytest_codeif.taskfile.behaviour import BEHAVIOUR_KEYS, BehaviourReader, behaviour_of
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.responses import (
    ResponseFiles,
    UnreadRecord,
    entries_of,
    responses_of,
)
from pytest_codeif.taskfile.schema import (
    CONSTRAINT_KEYS,
    SchemaMemo,
    case_schema,
    constraint_schema,
    file_schema,
    make_validator,
    task_schema,
)
from pytest_codeif.taskfile.yamlload import KeyPath, LoadedYaml

#: Node name of a task's functional-tests item; no constraint may take it.
FUNCTIONAL_ITEM = "tests"
#: The check each step of a task's `answers` is a constraint of.
ANSWER_CHECK = "answer"

_SOURCES: Final[tuple[SourceKind, ...]] = (
    "code",
    "file",
    "directory",
    "response",
    "response-file",
    "responses",
)
# The file and each task are validated for their own keys only; each constraint and each
# test case is validated on its own, so a bad one never hides the problems of the others.
_FILE: Final = make_validator(file_schema({}))
_TASK: Final = make_validator(task_schema({}, {}))
_CONSTRAINT: Final = make_validator(constraint_schema())
_CASE: Final = make_validator(case_schema())


class TaskProblems(TaskFileError):
    """Every problem of one task (or of a file), most relevant first: those of the task
    itself (its keys, its id, its source) before those of its constraints and test
    cases, each group in file order, each problem said once. Reads as its first problem
    wherever a single `TaskFileError` is expected."""

    def __init__(self, problems: Sequence[TaskFileError]) -> None:
        unique = {(p.location.line, p.location.key_path, p.message): p for p in problems}
        ordered = sorted(unique.values(), key=_relevance)
        super().__init__(ordered[0].location, ordered[0].message)
        self.problems: tuple[TaskFileError, ...] = tuple(ordered)


def _relevance(problem: TaskFileError) -> tuple[bool, int]:
    # ("tasks", 0, "constrants") is about the task; ("tasks", 0, "constraints", 2) is not.
    return len(problem.location.key_path) > 3, problem.location.line


@dataclass
class ParsedFile:
    """The valid tasks of a file, and an error (with a label) for each invalid one."""

    tasks: list[Task] = field(default_factory=list)
    errors: list[tuple[str, TaskFileError]] = field(default_factory=list)
    #: JSONL records naming a task none of this file's tasks reading them is, and the
    #: task ids its tasks asked each JSONL file for (`collection/unread.py` joins files).
    unread: list[UnreadRecord] = field(default_factory=list)
    wanted: dict[Path, set[str]] = field(default_factory=dict)


def parse_task_file(
    loaded: LoadedYaml,
    registry: CheckRegistry,
    root: Path | None = None,
    memo: SchemaMemo | None = None,
) -> ParsedFile:
    """Validate `loaded` and build its tasks; problems of the file itself raise
    `TaskProblems` (or `TaskFileError`), each bad task is one error of the result.

    With `root` (pytest's rootdir), every path a task names must lie inside it, symlinks
    resolved: a task file from elsewhere cannot point the tools at the host's files.
    `memo` records the schema problems found (or replays those of an earlier parse of
    the same bytes); everything else (paths, responses, checks) is decided afresh.
    """
    memo = memo if memo is not None else SchemaMemo()
    if loaded.data is None:
        raise TaskFileError(loaded.location(()), "the file is empty; expected a `tasks:` list")
    found = memo.problems(_FILE, loaded.data)
    if found:
        raise TaskProblems(
            [
                TaskFileError(
                    (loaded.key_location if p.at_key else loaded.location)(p.path), p.message
                )
                for p in found
            ]
        )
    parsed = ParsedFile()
    context = _FileContext(loaded, registry, root.resolve() if root is not None else None, memo)
    first_use: dict[str, int] = {}
    labels: set[str] = set()  # node names taken by error items
    for index, raw in enumerate(loaded.data["tasks"]):
        builder = _TaskBuilder(context, index)
        task_id = raw.get("id") if isinstance(raw, Mapping) else None
        label = task_id if isinstance(task_id, str) and task_id else f"tasks[{index}]"
        if isinstance(task_id, str) and task_id in first_use:
            builder.problem(
                ("id",),
                f"duplicate task id `{task_id}` (first used by tasks[{first_use[task_id]}]); "
                "give each task its own id",
            )
            label = f"tasks[{index}]"
        elif isinstance(task_id, str):
            first_use[task_id] = index
        try:
            task = builder.build(raw)
        except TaskFileError as exc:
            label = f"tasks[{index}]" if label in labels else label
            labels.add(label)
            parsed.errors.append((label, exc))
            continue
        if task.code.kind != "responses":
            parsed.tasks.append(task)
            continue
        responses, problems = builder.responses(task, raw)
        parsed.tasks += responses
        for problem in problems:
            # Named for where the problem is: a record's file and line, or the task's key.
            at = problem.location
            name = f"{label}[{at.path.name}:{at.line}]" if at.path != loaded.path else label
            while name in labels:
                name += "+"
            labels.add(name)
            parsed.errors.append((name, problem))
    parsed.unread = context.response_files.unread()
    parsed.wanted = context.response_files.wanted
    return parsed


@dataclass
class _FileContext:
    """What every task of one file shares: the file, the checks, and what was built."""

    loaded: LoadedYaml
    registry: CheckRegistry
    root: Path | None
    memo: SchemaMemo
    #: Suites repeat the same constraint over thousands of tasks: a constraint already
    #: validated and built is reused (checks are immutable once built).
    built: dict[tuple[str, str], Check] = field(default_factory=dict)
    scopes: dict[tuple[str, str], Scope] = field(default_factory=dict)
    validators: dict[type[Check], Validator] = field(default_factory=dict)
    #: JSONL files of responses, read once however many tasks read them.
    response_files: ResponseFiles = field(default_factory=ResponseFiles)

    def validator(self, check_cls: type[Check]) -> Validator:
        """The validator of a constraint of `check_cls`: common keys and its options."""
        if check_cls not in self.validators:
            schema = constraint_schema(check_cls.options_schema)
            self.validators[check_cls] = make_validator(schema)
        return self.validators[check_cls]


class _TaskBuilder:
    """Builds one task from its mapping; every problem is recorded with its location,
    and the task is built only when there is none."""

    def __init__(self, context: _FileContext, index: int) -> None:
        self.context = context
        self.loaded = context.loaded
        self.base: KeyPath = ("tasks", index)
        self.folder = context.loaded.path.parent
        self.problems: list[TaskFileError] = []

    def at(self, *rel: str | int) -> Any:
        return self.loaded.location((*self.base, *rel))

    def problem(self, rel: KeyPath, message: str, *, at_key: bool = False) -> None:
        """Record a problem at `rel` (a key path inside the task); `at_key`: on the line
        of the key itself rather than of its value."""
        where = (*self.base, *rel)
        location = self.loaded.key_location(where) if at_key else self.loaded.location(where)
        self.problems.append(TaskFileError(location, message))

    def valid(self, validator: Validator, rel: KeyPath, value: Any) -> bool:
        """Record every schema problem of `value` (found at `rel`); True if none."""
        found = self.context.memo.problems(validator, value, (*self.base, *rel))
        for problem in found:
            self.problem((*rel, *problem.path), problem.message, at_key=problem.at_key)
        return not found

    def build(self, raw: Any) -> Task:
        if not self.valid(_TASK, (), raw) and not isinstance(raw, Mapping):
            raise TaskProblems(self.problems)
        code = self._code(raw)
        entry = raw.get("entry-point")
        constraints = self._constraints(raw.get("constraints"))
        constraints += self._answers(raw.get("answers"), {c.id for c in constraints})
        calls, pytest_files, behaviour = self._tests(
            raw, raw.get("tests"), entry if isinstance(entry, str) else None
        )
        if behaviour is not None and (behaviour.service or behaviour.database):
            pytest_files = ()  # they run beside the service (see `behaviour_of`)
            if not behaviour.cases and not self.problems:  # (not for cases dropped)
                started = "service" if behaviour.service else "databases"
                self.problem(
                    (started,),
                    f"`{started}` is started for the task's `tests`, and it has none that "
                    "run beside it (`request`, `newman`, `run` or `pytest` cases)",
                )
        tested = calls or pytest_files or (behaviour is not None and behaviour.cases)
        if not self.problems and not constraints and not tested:
            self.problem((), "the task has no `constraints` and no `tests`: nothing to check")
        if self.problems or code is None:
            raise TaskProblems(self.problems)
        return Task(
            id=raw["id"],
            path=self.loaded.path,
            location=self.at(),
            code=code,
            instruction=raw.get("instruction"),
            module=raw.get("module"),
            timeout=float(raw.get("timeout", 10.0)),
            metadata=dict(raw.get("metadata", {})),
            constraints=constraints,
            calls=calls,
            pytest_files=pytest_files,
            behaviour=behaviour,
        )

    def responses(
        self, template: Task, raw: Mapping[str, Any]
    ) -> tuple[list[Task], list[TaskFileError]]:
        """The tasks of a `responses` task, one per response (`fib[gpt-4o-s2]`), each
        with the response's metadata over the task's own; and every problem met."""
        found, problems = responses_of(
            template.id,
            entries_of(raw["responses"]),
            self.folder,
            self.context.response_files,
            prefix=raw.get("prefix"),
            where=self.at("responses"),
            root=self.context.root,
        )
        tasks = [
            dataclasses.replace(
                template,
                id=f"{template.id}[{response.label}]",
                code=dataclasses.replace(response.code, language=template.code.language),
                metadata={**template.metadata, **response.metadata},
            )
            for response in found
        ]
        return tasks, problems

    def _code(self, raw: Mapping[str, Any]) -> CodeSpec | None:
        """Where the code is, or None (the schema's problems say why)."""
        given = [kind for kind in _SOURCES if kind in raw]
        if len(given) != 1:
            return None
        kind = given[0]
        if kind == "responses":  # each response is read apart (`responses`)
            if "exclude" in raw:
                self.problem(("exclude",), "`exclude` leaves files out of a `directory`")
                return None
            language = raw.get("language") if isinstance(raw.get("language"), str) else None
            return CodeSpec("responses", "", self.at(kind), None, language=language)
        if "prefix" in raw:
            self.problem(("prefix",), "`prefix` is the code `responses` continue; give them")
        if not isinstance(raw[kind], str):
            return None
        named = kind in ("file", "directory", "response-file")
        if named and self._existing_path(raw[kind], (kind,), want_dir=kind == "directory") is None:
            return None
        exclude = tuple(raw.get("exclude", ()))
        if exclude and kind != "directory":
            self.problem(
                ("exclude",), "`exclude` leaves files out of a `directory`; this task has none"
            )
            return None
        mark = self.loaded.mark((*self.base, kind))
        language = self._language(raw, kind)
        return CodeSpec(kind, raw[kind], self.at(kind), mark, exclude, language=language)

    def _language(self, raw: Mapping[str, Any], kind: SourceKind) -> str | None:
        """The task's `language:`, for code with no file name of its own; a problem when
        it contradicts a source file's own suffix or names the language of a project
        (whose files are in the languages of their suffixes)."""
        given = raw.get("language")
        if not isinstance(given, str):
            return None
        if kind == "directory":
            self.problem(
                ("language",),
                "a `directory`'s files are read in the languages of their suffixes; "
                "`language` is for inline `code` and responses",
            )
            return None
        written_in = language_of_file(raw[kind]) if kind == "file" else None
        if written_in is not None and written_in.name != given:
            self.problem(
                ("language",),
                f"`file` {raw[kind]!r} is {written_in.name} source by its suffix, not {given}",
            )
            return None
        return given

    def _existing_path(self, value: str, rel: KeyPath, *, want_dir: bool) -> Path | None:
        """The path `value` names, or None after recording why it cannot be used."""
        path = (self.folder / value).resolve()
        root = self.context.root
        if root is not None and not path.is_relative_to(root):
            self.problem(
                rel,
                f"{value!r} leads to {path}, outside the test root {root}; "
                "task files may only name code and tests inside it",
            )
        elif want_dir and not path.is_dir():
            self.problem(rel, f"expected a directory, but {path} is not one")
        elif not want_dir and not path.is_file():
            self.problem(rel, f"expected a file, but {path} does not exist")
        else:
            return path
        return None

    def _constraints(self, raws: Any) -> tuple[ConstraintSpec, ...]:
        if not isinstance(raws, list):
            return ()  # the schema's problem says so
        explicit: dict[str, int] = {}
        for j, raw in enumerate(raws):
            given = raw.get("id") if isinstance(raw, Mapping) else None
            if not isinstance(given, str):
                continue
            if given == FUNCTIONAL_ITEM:
                self.problem(
                    ("constraints", j, "id"),
                    f"the constraint id `{FUNCTIONAL_ITEM}` is reserved for the functional "
                    "tests; choose another id",
                )
            elif given in explicit:
                self.problem(
                    ("constraints", j, "id"),
                    f"duplicate constraint id `{given}` (first used by "
                    f"constraints[{explicit[given]}]); give each constraint its own id",
                )
            else:
                explicit[given] = j
        specs: list[ConstraintSpec] = []
        counts: dict[str, int] = {}
        for j, raw in enumerate(raws):
            spec = self._constraint(j, raw)
            if spec is None:
                continue
            if "id" not in raw:
                # Default ids are the check name; a repeated check gets -2, -3... in file order.
                counts[spec.id] = counts.get(spec.id, 0) + 1
                new_id = spec.id if counts[spec.id] == 1 else f"{spec.id}-{counts[spec.id]}"
                while new_id in explicit:
                    new_id += "-auto"
                spec = dataclasses.replace(spec, id=new_id)
            specs.append(spec)
        return tuple(specs)

    def _constraint(self, j: int, raw: Any) -> ConstraintSpec | None:
        """Constraint `j`, or None after recording its problems."""
        rel: KeyPath = ("constraints", j)
        name = raw.get("check") if isinstance(raw, Mapping) else None
        check_cls = self.context.registry.get(name) if isinstance(name, str) else None
        if check_cls is None or not isinstance(name, str):
            if isinstance(name, str):
                self._unknown_check(j, name)
            self.valid(_CONSTRAINT, rel, raw)  # no check to validate the options against
            return None
        key = (name, json.dumps(raw, sort_keys=True, default=repr))
        check = self.context.built.get(key)
        if check is None:
            if not self.valid(self.context.validator(check_cls), rel, raw):
                return None
            options = {k: v for k, v in raw.items() if k not in CONSTRAINT_KEYS}
            try:
                check = check_cls(options)
            except (ValueError, TypeError) as exc:
                self.problem(rel, f"invalid options for check `{name}`: {exc}")
                return None
            self.context.built[key] = check
        scope = self.context.scopes.get(key)
        if scope is None:
            try:
                scope = scope_from(raw)
            except ScopePatternError as exc:
                self.problem(rel, f"invalid scope: {exc}")
                return None
            self.context.scopes[key] = scope
        return ConstraintSpec(
            id=raw.get("id", name),
            check=check,
            category=raw.get("category", check_cls.category),
            level=raw.get("level"),
            message=raw.get("message"),
            location=self.at(*rel),
            scope=scope,
        )

    def _answers(self, raw: Any, taken: set[str]) -> tuple[ConstraintSpec, ...]:
        """A constraint of the `answer` check per step of `answers` (`step-1`...)."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("steps"), list):
            return ()  # the schema's problem says so
        check_cls = self.context.registry.get(ANSWER_CHECK)
        if check_cls is None:
            self.problem(("answers",), f"`answers` needs the `{ANSWER_CHECK}` check")
            return ()
        steps = raw["steps"]
        shared = {key: raw[key] for key in ("verdict", "coerce") if key in raw}
        specs: list[ConstraintSpec] = []
        for i, step in enumerate(steps):
            if not isinstance(step, Mapping) or "expected" not in step:
                continue
            options = {"step": i + 1, "steps": len(steps), **shared, **step}
            spec_id = f"step-{i + 1}"
            if spec_id in taken:
                self.problem(
                    ("answers", "steps", i),
                    f"the id `{spec_id}` of this step is a constraint's id too; rename it",
                )
                continue
            key = (ANSWER_CHECK, json.dumps(options, sort_keys=True))
            check = self.context.built.get(key)
            if check is None:
                check = self.context.built[key] = check_cls(options)
            specs.append(
                ConstraintSpec(
                    id=spec_id,
                    check=check,
                    category=check_cls.category,
                    level=None,
                    message=None,
                    location=self.at("answers", "steps", i),
                )
            )
        return tuple(specs)

    def _unknown_check(self, j: int, name: str) -> None:
        registry = self.context.registry
        hint = registry.suggest(name)
        known = ", ".join(c.name for c in registry)
        did = f"; did you mean `{hint}`?" if hint else ""
        self.problem(
            ("constraints", j, "check"), f"unknown check `{name}` (known checks: {known}){did}"
        )

    def _tests(
        self, task: Mapping[str, Any], raws: Any, entry: str | None
    ) -> tuple[tuple[CallCase, ...], tuple[PytestCase, ...], Behaviour | None]:
        """The call cases, the `pytest:` files, and the behaviour (service, database and
        the cases judged by running the code), each case in file order."""
        reader = BehaviourReader(
            self.problem,
            self.at,
            lambda value, rel: self._existing_path(value, rel, want_dir=False),
        )
        service, database = reader.service(task), reader.database(task)
        calls: list[CallCase] = []
        pytest_files: list[PytestCase] = []
        ordered: list[BehaviourCase] = []
        captured: set[str] = set()
        for i, raw in enumerate(raws if isinstance(raws, list) else []):
            if not self.valid(_CASE, ("tests", i), raw):
                continue
            beside = service is not None or database is not None
            if "pytest" in raw and beside and self._in_code(task, str(raw["pytest"])):
                self.problem(
                    ("tests", i, "pytest"),
                    "a test file run beside the service lies inside the code under "
                    "evaluation (`directory`), which could rewrite it: keep it outside",
                )
            elif "pytest" in raw:
                path = self._existing_path(raw["pytest"], ("tests", i, "pytest"), want_dir=False)
                if path is not None:
                    label = raw.get("name", raw["pytest"])
                    pytest_files.append(PytestCase(label, path, self.at("tests", i)))
                    ordered.append(pytest_files[-1])
            elif "newman" in raw and self._in_code(task, str(raw["newman"])):
                self.problem(
                    ("tests", i, "newman"),
                    "the collection lies inside the code under evaluation (`directory`), "
                    "which could rewrite the tests that judge it: keep it outside",
                )
            elif any(key in raw for key in BEHAVIOUR_KEYS):
                # (A service given but wrong is said by the schema's problems.)
                unserved = service is None and "service" not in task
                if unserved and ("request" in raw or "newman" in raw):
                    kind = "request" if "request" in raw else "newman"
                    self.problem(
                        ("tests", i, kind),
                        f"a `{kind}` case reaches a service: give the task a `service` "
                        "(`run`, `port`, `ready`)",
                    )
                    continue
                found = reader.case(i, raw, captured)
                if found is not None:
                    ordered.append(found)
            else:
                case = self._call(i, raw, entry, js=self._js_code(task))
                if case is not None:
                    calls.append(case)
        behaviour = behaviour_of(service, database, ordered)
        return tuple(calls), tuple(pytest_files), behaviour

    def _in_code(self, task: Mapping[str, Any], value: str) -> bool:
        """Whether the file `value` names lies in the task's `directory`."""
        directory = task.get("directory")
        if not isinstance(directory, str):
            return False
        return (self.folder / value).resolve().is_relative_to((self.folder / directory).resolve())

    def _js_code(self, task: Mapping[str, Any]) -> bool | None:
        """Whether the task's code is JavaScript or TypeScript as far as the task file
        tells before the code is read: its `language`, its `file`'s suffix, or a
        `directory` holding a package.json (a Node project); None when it cannot tell (a
        response, a directory). Its `call` expressions are JavaScript then, run by
        Node.js."""
        given = task.get("language")
        if isinstance(given, str):
            return given in JS_FAMILY
        file, directory = task.get("file"), task.get("directory")
        if isinstance(file, str):
            written_in = language_of_file(file)
            return None if written_in is None else written_in.name in JS_FAMILY
        if isinstance(directory, str):
            return (self.folder / directory / "package.json").is_file() or None
        return False if isinstance(task.get("code"), str) else None

    def _call(
        self, i: int, raw: Mapping[str, Any], entry: str | None, *, js: bool | None = False
    ) -> CallCase | None:
        """Call case `i`, or None after recording its problem; `js`: the task's code is
        JavaScript or TypeScript, whose `call` need not read as Python (None: not known
        before the code is read)."""
        loc = self.at("tests", i)
        if "expect" not in raw and "expected_output" not in raw and "raises" not in raw:
            self.problem(
                ("tests", i), "a call case needs `expect` (or `expected_output`) or `raises`"
            )
            return None
        if "call" in raw:
            try:
                tree = ast.parse(raw["call"], mode="eval")
            except SyntaxError as exc:
                if js:  # JavaScript, evaluated as it is by Node (see functional/node_calls.py)
                    return CallCase(
                        raw.get("name", raw["call"]),
                        loc,
                        expression=raw["call"],
                        args_known=False,
                        expect=raw.get("expect"),
                        raises=raw.get("raises"),
                        approx=raw.get("approx"),
                    )
                hint = "" if js is False else " (JavaScript code? give the task `language`)"
                self.problem(
                    ("tests", i, "call"), f"`call` must be a Python expression: {exc.msg}{hint}"
                )
                return None
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
            self.problem(
                ("tests", i), "a case with args needs `function`, or the task needs `entry-point`"
            )
            return None
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

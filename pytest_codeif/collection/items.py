"""Where a task file becomes pytest nodes: file -> task -> one item per constraint, plus
one item for the task's functional tests. A bad file or task becomes one error item.
With `--codeif-items=task` (see `settings.py`) a task holds one `TaskItem` instead,
deciding all of it and recording each constraint's outcome as its own item would.

Verdicts are reached in `setup` (so "could not decide" is reported by pytest as an
error, counted apart from failures) and turned into a failure in `runtest`.

Code under evaluation is never collected by the host (`is_evaluated_code`, for the
plugin's `pytest_ignore_collect`): before pytest enters the first folder of its
arguments, every task file under them is read (each once: `TaskFile` takes the result)
and the paths its tasks' code comes from are kept.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import advice_of
from pytest_codeif.code.response_text import response_text
from pytest_codeif.errors import Location, TaskFileError, format_key_path
from pytest_codeif.gate.apply import apply_gate, skip_reason
from pytest_codeif.gate.session import gate_state
from pytest_codeif.outcome import FunctionalOutcome, Undecidable, Verdict
from pytest_codeif.records import ConstraintRecord, FunctionalRecord, OutcomeT, Problem, Record
from pytest_codeif.report.records import (
    constraint_record,
    functional_record,
    invalid_record,
    skipped_record,
    with_code,
)
from pytest_codeif.report.task_code import code_entry, response_entry
from pytest_codeif.settings import TASK_ITEMS, settings_of
from pytest_codeif.state import get_state
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.parse import FUNCTIONAL_ITEM, ParsedFile, TaskProblems
from pytest_codeif.taskfile.responses import paths_named, sources
from pytest_codeif.taskfile.yamlload import load_yaml_bytes, read_task_bytes

INVALID_FILE_ITEM = "invalid-task-file"
#: The name of a task's one item under `--codeif-items=task` (`file::task::all`).
TASK_ITEM = "all"
FILE_LABEL = "(file)"
#: An invalid task's error lists at most this many problems, then says how many more.
MAX_SHOWN = 20
#: Tasks whose code a record of this process already carried (see `_with_code`).
CODE_SENT = pytest.StashKey[set[tuple[str, str]]]()


# pytest types `fail.Exception` as an attribute of the `fail` function, which mypy reads
# as Any; it is the public name of pytest's Failed exception.
class CodeifOutcome(pytest.fail.Exception):  # type: ignore[misc, name-defined]
    """Raised by items to report a violation or an undecidable check; its text is the
    whole user-facing report. As a `pytest.fail` exception without a trace, pytest shows
    the text alone and never formats a traceback (which cost ~9 ms per item)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, pytrace=False)
        self.text = text


class TaskFile(pytest.File):
    """A `*.codeif.yaml` file."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        try:
            parsed = _read(self.config, self.path)
        except TaskFileError as exc:
            yield InvalidTaskItem.from_parent(
                self, name=INVALID_FILE_ITEM, label=FILE_LABEL, error=exc
            )
            return
        except Exception as exc:  # noqa: BLE001 - one file must never stop the session
            error = TaskFileError(
                Location(self.path, 1, ()),
                f"pytest-codeif failed reading this file ({type(exc).__name__}: {exc}); "
                "this is a bug in pytest-codeif, please report it with the file",
            )
            yield InvalidTaskItem.from_parent(
                self, name=INVALID_FILE_ITEM, label=FILE_LABEL, error=error
            )
            return
        nodes: list[tuple[int, pytest.Item | pytest.Collector]] = []
        for task in parsed.tasks:
            nodes.append((task.location.line, TaskNode.from_parent(self, name=task.id, task=task)))
        for label, error in parsed.errors:
            item = InvalidTaskItem.from_parent(self, name=label, label=label, error=error)
            nodes.append((error.location.line, item))
        for _, node in sorted(nodes, key=lambda pair: pair[0]):
            yield node


class TaskNode(pytest.Collector):
    """One task: its constraints and its functional tests."""

    def __init__(self, *, task: Task, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        # Select by metadata: `-k gpt-4o` (values are keywords of every item of the task)
        # and `-m "codeif(model='gpt-4o')"` (plain values are the marker's arguments).
        plain = {
            key: value
            for key, value in task.metadata.items()
            if key.isidentifier() and isinstance(value, (str, int, float, bool))
        }
        self.extra_keyword_matches.update(str(value) for value in plain.values())
        if plain:
            self.add_marker(pytest.mark.codeif(**plain))

    def collect(self) -> Iterator[pytest.Item]:
        if settings_of(self.config).items == TASK_ITEMS:
            if self.task.constraints or self.task.has_tests:
                yield TaskItem.from_parent(self, name=TASK_ITEM, task=self.task)
            return
        for constraint in self.task.constraints:
            yield ConstraintItem.from_parent(
                self, name=constraint.id, task=self.task, constraint=constraint
            )
        if self.task.has_tests:
            yield FunctionalItem.from_parent(self, name=FUNCTIONAL_ITEM, task=self.task)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.task.location.line - 1, f"task {self.task.id}"


class CodeifItem(pytest.Item):
    """Common behaviour: verdict in setup, failure in runtest, a record for the report.

    Subclasses judge in `judge`; `setup` runs it so that anything unexpected it raises
    (a bug of ours) is this item's located error, never pytest's INTERNALERROR.
    """

    record: Record | None = None
    verdict: Verdict
    #: Why the item is not judged (`--codeif-changed-since`: no change in its scope).
    skipped_because: str | None = None

    def _display_file(self) -> str:
        return get_state(self.config).engine.display(self.path)

    def setup(self) -> None:
        try:
            self.judge()
        except Exception as exc:
            # pytest's outcomes (`CodeifOutcome`, a skip) are BaseExceptions: not caught.
            raise CodeifOutcome(bug_text(exc)) from exc

    def judge(self) -> None:
        """Reach this item's verdict (raising `CodeifOutcome` for an error)."""

    def _repr_failure_py(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> Any:
        """pytest's text of an exception in this item's setup or teardown; where pytest
        cannot format it (CI met a traceback frame with no line number, Python 3.11,
        twice), the exception's type, message and frames as `bug_text` reads them,
        never an INTERNALERROR that ends the session."""
        try:
            return super()._repr_failure_py(excinfo, style)
        except Exception as exc:  # noqa: BLE001 - pytest's formatter failed, not the item
            value = excinfo.value
            frames = bug_text(value).split("\n")[1:] if isinstance(value, Exception) else []
            said = f"(pytest could not format this traceback: {type(exc).__name__}: {exc})"
            return "\n".join([f"{type(value).__name__}: {value}", *frames, said])

    def _decide(self, verdict: Verdict, record: Record, what: str) -> None:
        self.record = record
        self.verdict = verdict
        # junitxml writes user_properties as <property> elements of the testcase.
        self.user_properties += _status_properties(verdict)
        if verdict.status == "error":
            raise CodeifOutcome(_undecided_text(verdict, what))

    def outcome_records(self) -> list[Record]:
        """The records this item's decisive report carries to the reporter (one per
        outcome: `report.records.records_of` reads them back)."""
        return [] if self.record is None else [self.record]

    def _with_code(self, task: Task, record: OutcomeT) -> OutcomeT:
        """The first record of a task this process reports carries the task's code for the
        JSON report: once per task and process (not per constraint), so records stay small
        on their way from pytest-xdist workers."""
        sent = self.config.stash.setdefault(CODE_SENT, set())
        key = (record["file"], task.id)
        if key in sent:
            return record
        sent.add(key)
        engine = get_state(self.config).engine
        try:
            unit = engine.unit(task)
        except Undecidable:
            if any(c.check.reads_response for c in task.constraints):
                # An answer task: the response itself is what its outcomes judged.
                try:
                    response = response_text(task.code, task.path)
                except Undecidable:
                    return record
                return with_code(record, response_entry(task.code, response, engine.display))
            return record  # no code to carry; the records say why
        return with_code(record, code_entry(task.code, unit, engine.display))

    def _judge_constraint(
        self, nodeid: str, task: Task, constraint: ConstraintSpec
    ) -> tuple[Verdict, ConstraintRecord, str | None]:
        """One constraint's verdict (after the gate) and its record under `nodeid`, or
        why it is skipped; the one path every constraint outcome is reached by, whether
        it has its own item or shares its task's."""
        engine = get_state(self.config).engine
        gate = gate_state(self.config)
        skipped = None if gate is None else skip_reason(gate, engine, task, constraint)
        if skipped is not None:
            unjudged = Verdict("satisfied")
            record = constraint_record(nodeid, self._display_file(), task, constraint, unjudged)
            return unjudged, skipped_record(record, skipped), skipped
        verdict = engine.evaluate(task, constraint)
        record = constraint_record(
            nodeid, self._display_file(), task, constraint, verdict, root=self.config.rootpath
        )
        if gate is not None:
            verdict, record = apply_gate(gate, verdict, record, task=task, constraint=constraint)
        return verdict, self._with_code(task, record), None

    def _judge_functional(
        self, nodeid: str, task: Task
    ) -> tuple[FunctionalOutcome, FunctionalRecord]:
        """The outcome of a task's functional tests and its record under `nodeid`."""
        outcome = get_state(self.config).pool.outcome(task)
        record = functional_record(
            nodeid, self._display_file(), task, outcome, root=self.config.rootpath
        )
        return outcome, self._with_code(task, record)

    def runtest(self) -> None:
        if self.skipped_because is not None:
            # Skipped here, not in setup, so that the record travels with the report;
            # the skip is shown at the item's task-file line, not at this line.
            raise pytest.skip.Exception(self.skipped_because, _use_item_location=True)
        if self.verdict.status == "violated":
            raise CodeifOutcome(self.violation_text())

    def violation_text(self) -> str:
        return "\n".join(str(e) for e in self.verdict.evidence)


class ConstraintItem(CodeifItem):
    """One constraint of one task."""

    def __init__(self, *, task: Task, constraint: ConstraintSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.constraint = constraint
        self.add_marker("codeif")
        self.extra_keyword_matches.update({constraint.check_name, constraint.category})
        self.user_properties.append(("codeif_check", constraint.check_name))
        self.user_properties.append(("codeif_category", constraint.category))
        if constraint.level is not None:
            self.user_properties.append(("codeif_level", constraint.level))

    def judge(self) -> None:
        verdict, record, self.skipped_because = self._judge_constraint(
            self.nodeid, self.task, self.constraint
        )
        if self.skipped_because is not None:
            self.record = record
            self.user_properties.append(("codeif_status", "skipped"))
            return
        self._decide(verdict, record, _constraint_what(self.constraint))

    def violation_text(self) -> str:
        return _constraint_violation(self.constraint, self.verdict)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.constraint.location.line - 1, f"{self.task.id}::{self.constraint.id}"


class FunctionalItem(CodeifItem):
    """The functional tests of one task (call cases and pytest files)."""

    def __init__(self, *, task: Task, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.add_marker("codeif")
        self.extra_keyword_matches.add("functional")

    def judge(self) -> None:
        self.outcome, record = self._judge_functional(self.nodeid, self.task)
        self._decide(self.outcome.verdict, record, FUNCTIONAL_WHAT)

    def violation_text(self) -> str:
        return _functional_violation(self.outcome)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.task.location.line - 1, f"{self.task.id}::{FUNCTIONAL_ITEM}"


class TaskItem(CodeifItem):
    """All of one task (one response of a `responses` task) under `--codeif-items=task`:
    each constraint and the functional tests reached by the same code as their own
    items, and recorded under the node ids those items would have, so every report reads
    as in the default mode while pytest pays for one item per task. An undecidable
    outcome makes it an error, else a violated one a failure; its text has one section
    per outcome that is not satisfied, each as that outcome's own item would show it."""

    def __init__(self, *, task: Task, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.add_marker("codeif")
        # `-k` by what names a constraint item selects the tasks holding such a
        # constraint: a task is decided whole, never one constraint of it.
        words = {"functional"} if task.has_tests else set()
        for constraint in task.constraints:
            words.update((constraint.id, constraint.check_name, constraint.category))
        self.extra_keyword_matches.update(words)
        self.records: list[Record] = []
        #: (status, text) of each outcome that is neither satisfied nor skipped.
        self.sections: list[tuple[str, str]] = []

    def judge(self) -> None:
        # `file::task`: where the node id of each outcome's own item would start.
        base = self.nodeid.rpartition("::")[0]
        skips: list[str] = []
        for constraint in self.task.constraints:
            verdict, record, skipped = self._judge_constraint(
                f"{base}::{constraint.id}", self.task, constraint
            )
            self.records.append(record)
            # junitxml: each outcome's properties as its own item's, after its name.
            self.user_properties += _constraint_properties(constraint)
            if skipped is not None:
                skips.append(skipped)
                self.user_properties.append(("codeif_status", "skipped"))
                continue
            self.user_properties += _status_properties(verdict)
            what = _constraint_what(constraint)
            if verdict.status == "error":
                self.sections.append(("error", _undecided_text(verdict, what)))
            elif verdict.status == "violated":
                self.sections.append(("violated", _constraint_violation(constraint, verdict)))
        if self.task.has_tests:
            outcome, tests = self._judge_functional(f"{base}::{FUNCTIONAL_ITEM}", self.task)
            self.records.append(tests)
            self.user_properties.append(("codeif_constraint", FUNCTIONAL_ITEM))
            self.user_properties += _status_properties(outcome.verdict)
            if outcome.verdict.status == "error":
                self.sections.append(("error", _undecided_text(outcome.verdict, FUNCTIONAL_WHAT)))
            elif outcome.verdict.status == "violated":
                self.sections.append(("violated", _functional_violation(outcome)))
        if skips and len(skips) == len(self.records):
            # Nothing of the task is judged: skipped, as each of its own items would be.
            self.skipped_because = "; ".join(dict.fromkeys(skips))
        if any(status == "error" for status, _ in self.sections):
            raise CodeifOutcome(self._text())

    def runtest(self) -> None:
        if self.skipped_because is not None:
            raise pytest.skip.Exception(self.skipped_because, _use_item_location=True)
        if self.sections:
            raise CodeifOutcome(self._text())

    def _text(self) -> str:
        """A first line counting what is wrong (pytest's short summary shows it), then
        one section per outcome."""
        errors = sum(status == "error" for status, _ in self.sections)
        violated = len(self.sections) - errors
        counts = [f"{violated} violated"] if violated else []
        counts += [f"{errors} could not be decided"] if errors else []
        head = f"task {self.task.id!r}: {', '.join(counts)} (of {len(self.records)} outcomes)"
        return "\n\n".join([head, *(text for _, text in self.sections)])

    def outcome_records(self) -> list[Record]:
        return self.records

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.task.location.line - 1, f"task {self.task.id}"


class InvalidTaskItem(CodeifItem):
    """Stands for a task file, or a task, that could not be read: one error listing
    every problem found in it (the first MAX_SHOWN of them), each with file:line."""

    def __init__(self, *, label: str, error: TaskFileError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label = label
        self.error = error

    def judge(self) -> None:
        shown = self._display_file()
        problems = self.error.problems if isinstance(self.error, TaskProblems) else (self.error,)
        listed: list[Problem] = [
            {
                "line": p.location.line,
                "key_path": format_key_path(p.location.key_path),
                "error": p.message,
            }
            for p in problems
        ]
        # A problem in a file the task reads (a JSONL file of responses).
        other = None
        if len(problems) == 1 and self.error.location.path != self.path:
            other = get_state(self.config).engine.display(self.error.location.path)
            listed[0]["file"] = other
        self.record = invalid_record(self.nodeid, shown, self.label, self.error, listed)
        self.user_properties += [("codeif_status", "error"), ("codeif_error_kind", "invalid-task")]
        if other is not None:
            raise CodeifOutcome(
                f"invalid responses: {other}:{self.error.location.line}: {self.error.message}"
            )
        if len(problems) == 1:
            raise CodeifOutcome(f"invalid task file {_where(shown, problems[0])}")
        whose = "the file" if self.label == FILE_LABEL else f"task {self.label!r}"
        lines = [f"invalid task file {shown}: {len(problems)} problems in {whose}:"]
        lines += [f"  {_where(shown, p)}" for p in problems[:MAX_SHOWN]]
        if len(problems) > MAX_SHOWN:
            lines.append(f"  ... and {len(problems) - MAX_SHOWN} more")
        raise CodeifOutcome("\n".join(lines))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.error.location.line - 1, f"invalid task: {self.label}"


def _where(shown: str, problem: TaskFileError) -> str:
    """`file:line: at key.path: message`."""
    loc = problem.location
    return f"{shown}:{loc.line}: at {format_key_path(loc.key_path)}: {problem.message}"


FUNCTIONAL_WHAT = "the functional tests"
#: How many of a bug's innermost frames its error names.
BUG_FRAMES = 6


def bug_text(exc: Exception) -> str:
    """An unexpected exception of ours, as an item's error: what it was and where it
    was raised (file:line of the innermost frames, read so that a frame with no line
    number, which pytest's own formatter cannot show, is shown as `?`)."""
    frames: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        line = tb.tb_lineno if tb.tb_lineno is not None else tb.tb_frame.f_lineno
        code = tb.tb_frame.f_code
        frames.append(f"  {code.co_filename}:{line if line is not None else '?'} in {code.co_name}")
        tb = tb.tb_next
    lines = [
        f"pytest-codeif failed judging this item ({type(exc).__name__}: {exc}); "
        "this is a bug in pytest-codeif, please report it with the task file",
        *frames[-BUG_FRAMES:],
    ]
    return "\n".join(lines)


def _status_properties(verdict: Verdict) -> list[tuple[str, object]]:
    """junitxml properties of one outcome: its status, and why it is undecidable."""
    found: list[tuple[str, object]] = [("codeif_status", verdict.status)]
    if verdict.error_kind:
        found.append(("codeif_error_kind", verdict.error_kind))
    return found


def _constraint_properties(constraint: ConstraintSpec) -> list[tuple[str, object]]:
    """junitxml properties naming a constraint's outcome among its task's."""
    found: list[tuple[str, object]] = [
        ("codeif_constraint", constraint.id),
        ("codeif_check", constraint.check_name),
        ("codeif_category", constraint.category),
    ]
    if constraint.level is not None:
        found.append(("codeif_level", constraint.level))
    return found


def _constraint_what(constraint: ConstraintSpec) -> str:
    return f"constraint {constraint.id!r} (check {constraint.check_name})"


def _undecided_text(verdict: Verdict, what: str) -> str:
    return f"{what} could not be decided ({verdict.error_kind}): {verdict.error}"


def _constraint_violation(constraint: ConstraintSpec, verdict: Verdict) -> str:
    """What a violated constraint's item shows: the findings, notes, what to do."""
    lines = [f"constraint {constraint.id!r} violated (check {constraint.check_name}):"]
    lines += [f"  {e}" for e in verdict.evidence]
    lines += [f"note: {n}" for n in verdict.notes]
    # The constraint's own words, else the check's advice: a report reader is never
    # left with findings and no next step.
    lines.append(f"what to do: {constraint.message or advice_of(constraint.check)}")
    return "\n".join(lines)


def _functional_violation(outcome: FunctionalOutcome) -> str:
    """What a task's failing functional tests show: each failed case (and a service's
    log, which is evidence but not a case)."""
    failed = sum(1 for case in outcome.cases if case.status == "failed")
    total = len(outcome.cases)
    lines = [f"{failed} of {total} functional test case{'s' if total != 1 else ''} failed:"]
    return "\n".join(lines + [f"  {e}" for e in outcome.verdict.evidence])


#: Each task file's parse (or the error it raised), read once per process.
PARSED = pytest.StashKey[dict[Path, "ParsedFile | Exception"]]()
#: The paths code under evaluation comes from, found before collection enters a folder.
EVALUATED = pytest.StashKey["EvaluatedPaths"]()
#: The keys of a task's code naming a path, relative to the task file.
_PATH_KEYS = ("directory", "file", "response-file", "responses")


def parsed_files(config: pytest.Config) -> list[ParsedFile]:
    """Every task file this process read and parsed."""
    return [p for p in config.stash.get(PARSED, {}).values() if isinstance(p, ParsedFile)]


def _read(config: pytest.Config, path: Path) -> ParsedFile:
    """The parse of the task file at `path`, read once per process."""
    memo = config.stash.setdefault(PARSED, {})
    found = memo.get(path)
    if found is None:
        try:
            found = get_state(config).taskfiles.read(path, config.rootpath)
        except Exception as exc:  # noqa: BLE001 - raised again to the collector, below
            found = exc
        memo[path] = found
    if isinstance(found, Exception):
        raise found
    return found


@dataclass
class EvaluatedPaths:
    """Where code under evaluation lives: folders (everything under them) and files,
    absolute, both as named and with symlinks resolved; and the task files read, with
    their folders, which pytest must still reach (`directory: .` names the task file's
    own folder)."""

    paths: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)

    def add(self, path: Path) -> None:
        self.paths.add(os.path.normpath(path))
        self.paths.add(os.path.realpath(path))

    def keep(self, task_file: Path) -> None:
        text = os.path.normpath(task_file)
        while text not in self.kept:
            self.kept.add(text)
            text = os.path.dirname(text)

    def covers(self, path: Path) -> bool:
        """Whether `path` is one of the paths or lies under one (and is not kept)."""
        text = os.path.normpath(path)
        if text in self.kept:
            return False
        while True:
            if text in self.paths:
                return True
            parent = os.path.dirname(text)
            if parent == text:
                return False
            text = parent


def is_evaluated_code(path: Path, config: pytest.Config) -> bool:
    """Whether `path` is (or is inside) code under evaluation named by a task file under
    the session's arguments: pytest must neither collect it nor load its conftest.py."""
    evaluated = config.stash.get(EVALUATED, None)
    if evaluated is None:
        evaluated = config.stash[EVALUATED] = _evaluated_paths(config)
    return evaluated.covers(path)


def _evaluated_paths(config: pytest.Config) -> EvaluatedPaths:
    """The code paths of every task file under the arguments. Shallower files first:
    one inside a code folder another names is code itself (planted, perhaps): never
    read, so it can neither widen what is kept out nor be collected."""
    evaluated = EvaluatedPaths()
    for path in sorted(_task_files(config), key=lambda p: (len(p.parts), p)):
        if evaluated.covers(path):
            continue
        evaluated.keep(path)
        for code in _code_paths(config, path):
            evaluated.add(code)
    return evaluated


def _task_files(config: pytest.Config) -> set[Path]:
    """The task files under the session's arguments, found as pytest would walk them
    (norecursedirs, virtual environments and `__pycache__` left out)."""
    settings = settings_of(config)
    patterns = settings.patterns
    skipped = [*settings.norecursedirs, "__pycache__"]
    in_venvs = settings.collect_in_virtualenv
    found: set[Path] = set()
    for arg in config.args:
        start = config.invocation_params.dir / str(arg).split("::")[0]
        if start.is_file():
            if any(fnmatch.fnmatch(start.name, p) for p in patterns):
                found.add(start.absolute())
            continue
        for folder, dirs, files in os.walk(start.absolute()):
            dirs[:] = [
                d
                for d in dirs
                if not any(fnmatch.fnmatch(d, p) for p in skipped)
                and (in_venvs or not os.path.exists(os.path.join(folder, d, "pyvenv.cfg")))
            ]
            found.update(
                Path(folder, name)
                for name in files
                if any(fnmatch.fnmatch(name, p) for p in patterns)
            )
    return found


def _code_paths(config: pytest.Config, path: Path) -> list[Path]:
    """The paths the tasks of the task file at `path` take their code from; for a file
    with an invalid task (whose code is not built), also every path its tasks name."""
    try:
        parsed: ParsedFile | None = _read(config, path)
    except Exception:  # noqa: BLE001 - the collector reports it; its raw paths still count
        parsed = None
    found: list[Path] = []
    for task in parsed.tasks if parsed is not None else ():
        code = task.code
        if code.origin is not None:  # a JSONL file of responses
            found.append(code.origin)
        if code.kind in ("directory", "file", "response-file"):
            named = path.parent / code.value
            found.append(named)
            # One of a folder of responses (its path absolute): the folder is theirs.
            if Path(code.value).is_absolute() and named.parent != path.parent:
                found.append(named.parent)
    if parsed is None or parsed.errors:
        found += _raw_code_paths(path)
    return found


def _raw_code_paths(path: Path) -> list[Path]:
    """Every path the tasks of the file at `path` name as their code, read from the
    YAML alone (no task is built: the file or a task is invalid)."""
    try:
        data = load_yaml_bytes(path, read_task_bytes(path)).data
    except (TaskFileError, OSError):
        return []
    tasks = data.get("tasks") if isinstance(data, dict) else None
    found: list[Path] = []
    for task in tasks if isinstance(tasks, list) else ():
        for key in _PATH_KEYS if isinstance(task, dict) else ():
            value = task.get(key)
            # `responses` may be a mapping ({path: ..., task-id: ...}) or a list of entries.
            for named in paths_named(value) if key == "responses" else [value]:
                if isinstance(named, str) and named:
                    found.append(path.parent / named)
                    if key == "responses":
                        found += sources(path.parent, named)
    return found

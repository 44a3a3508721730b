"""Where a task file becomes pytest nodes: file -> task -> one item per constraint, plus
one item for the task's functional tests. A bad file or task becomes one error item.

Verdicts are reached in `setup` (so "could not decide" is reported by pytest as an
error, counted apart from failures) and turned into a failure in `runtest`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_codeif.errors import Location, TaskFileError, format_key_path
from pytest_codeif.gate.apply import apply_gate, mark_skipped, skip_reason
from pytest_codeif.gate.session import gate_state
from pytest_codeif.outcome import FunctionalOutcome, Undecidable, Verdict
from pytest_codeif.report.records import (
    Record,
    constraint_record,
    functional_record,
    invalid_record,
)
from pytest_codeif.report.task_code import code_entry
from pytest_codeif.state import get_state
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.parse import FUNCTIONAL_ITEM, TaskProblems

INVALID_FILE_ITEM = "invalid-task-file"
FILE_LABEL = "(file)"
#: An invalid task's error lists at most this many problems, then says how many more.
MAX_SHOWN = 20
#: Tasks whose code a record of this process already carried (see `_attach_code`).
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
        state = get_state(self.config)
        try:
            parsed = state.taskfiles.read(self.path, self.config.rootpath)
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
        for constraint in self.task.constraints:
            yield ConstraintItem.from_parent(
                self, name=constraint.id, task=self.task, constraint=constraint
            )
        if self.task.has_tests:
            yield FunctionalItem.from_parent(self, name=FUNCTIONAL_ITEM, task=self.task)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.task.location.line - 1, f"task {self.task.id}"


class CodeifItem(pytest.Item):
    """Common behaviour: verdict in setup, failure in runtest, a record for the report."""

    record: Record | None = None
    verdict: Verdict
    #: Why the item is not judged (`--codeif-changed-since`: no change in its scope).
    skipped_because: str | None = None

    def _display_file(self) -> str:
        return get_state(self.config).engine.display(self.path)

    def _decide(self, verdict: Verdict, record: Record, what: str) -> None:
        self.record = record
        self.verdict = verdict
        # junitxml writes user_properties as <property> elements of the testcase.
        self.user_properties.append(("codeif_status", verdict.status))
        if verdict.error_kind:
            self.user_properties.append(("codeif_error_kind", verdict.error_kind))
        if verdict.status == "error":
            raise CodeifOutcome(
                f"{what} could not be decided ({verdict.error_kind}): {verdict.error}"
            )

    def _attach_code(self, task: Task, record: Record) -> None:
        """The first record of a task this process reports carries the task's code for the
        JSON report: once per task and process (not per constraint), so records stay small
        on their way from pytest-xdist workers."""
        sent = self.config.stash.setdefault(CODE_SENT, set())
        key = (str(record["file"]), task.id)
        if key in sent:
            return
        sent.add(key)
        engine = get_state(self.config).engine
        try:
            unit = engine.unit(task)
        except Undecidable:
            return  # no code to carry; the records say why
        record["code"] = code_entry(task.code, unit, engine.display)

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

    def setup(self) -> None:
        engine = get_state(self.config).engine
        gate = gate_state(self.config)
        if gate is not None:
            self.skipped_because = skip_reason(gate, engine, self.task, self.constraint)
        if self.skipped_because is not None:
            self.record = constraint_record(
                self.nodeid, self._display_file(), self.task, self.constraint, Verdict("satisfied")
            )
            mark_skipped(self.record, self.skipped_because)
            self.user_properties.append(("codeif_status", "skipped"))
            return
        verdict = engine.evaluate(self.task, self.constraint)
        record = constraint_record(
            self.nodeid,
            self._display_file(),
            self.task,
            self.constraint,
            verdict,
            root=self.config.rootpath,
        )
        if gate is not None:
            verdict = apply_gate(gate, verdict, record)
        self._attach_code(self.task, record)
        self._decide(
            verdict,
            record,
            f"constraint {self.constraint.id!r} (check {self.constraint.check_name})",
        )

    def violation_text(self) -> str:
        lines = [
            f"constraint {self.constraint.id!r} violated (check {self.constraint.check_name}):"
        ]
        lines += [f"  {e}" for e in self.verdict.evidence]
        lines += [f"note: {n}" for n in self.verdict.notes]
        if self.constraint.message:
            lines.append(f"what to do: {self.constraint.message}")
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.constraint.location.line - 1, f"{self.task.id}::{self.constraint.id}"


class FunctionalItem(CodeifItem):
    """The functional tests of one task (call cases and pytest files)."""

    def __init__(self, *, task: Task, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.add_marker("codeif")
        self.extra_keyword_matches.add("functional")

    def setup(self) -> None:
        state = get_state(self.config)
        self.outcome: FunctionalOutcome = state.pool.outcome(self.task)
        record = functional_record(
            self.nodeid, self._display_file(), self.task, self.outcome, root=self.config.rootpath
        )
        self._attach_code(self.task, record)
        self._decide(self.outcome.verdict, record, "the functional tests")

    def violation_text(self) -> str:
        failed = len(self.verdict.evidence)
        total = len(self.outcome.cases)
        lines = [f"{failed} of {total} functional test case{'s' if total != 1 else ''} failed:"]
        return "\n".join(lines + [f"  {e}" for e in self.verdict.evidence])

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, self.task.location.line - 1, f"{self.task.id}::{FUNCTIONAL_ITEM}"


class InvalidTaskItem(CodeifItem):
    """Stands for a task file, or a task, that could not be read: one error listing
    every problem found in it (the first MAX_SHOWN of them), each with file:line."""

    def __init__(self, *, label: str, error: TaskFileError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label = label
        self.error = error

    def setup(self) -> None:
        shown = self._display_file()
        problems = self.error.problems if isinstance(self.error, TaskProblems) else (self.error,)
        self.record = invalid_record(self.nodeid, shown, self.label, self.error)
        self.user_properties += [("codeif_status", "error"), ("codeif_error_kind", "invalid-task")]
        self.record["problems"] = [
            {
                "line": p.location.line,
                "key_path": format_key_path(p.location.key_path),
                "error": p.message,
            }
            for p in problems
        ]
        if len(problems) == 1 and self.error.location.path != self.path:
            # A problem in a file the task reads (a JSONL file of responses).
            other = get_state(self.config).engine.display(self.error.location.path)
            self.record["problems"][0]["file"] = other
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

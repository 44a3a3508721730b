"""Outcome records: one plain dict per item, the only thing that travels on reports.

Plain built-in types only, so pytest-xdist can carry them from workers to the controller.
"""

from __future__ import annotations

from typing import Any

from pytest_codeif.errors import TaskFileError, format_key_path
from pytest_codeif.outcome import Evidence, FunctionalOutcome, Verdict
from pytest_codeif.taskfile.model import ConstraintSpec, Task

Record = dict[str, Any]


def _evidence(items: tuple[Evidence, ...]) -> list[dict[str, Any]]:
    return [
        {"path": e.path, "line": e.line, "column": e.column, "rule": e.rule, "message": e.message}
        for e in items
    ]


def _base(nodeid: str, file: str, task: Task, verdict: Verdict) -> Record:
    return {
        "nodeid": nodeid,
        "file": file,
        "task": task.id,
        "metadata": task.metadata,
        "status": verdict.status,
        "error_kind": verdict.error_kind,
        "error": verdict.error,
        "evidence": _evidence(verdict.evidence),
        "notes": list(verdict.notes),
        "cached": verdict.cached,
    }


def constraint_record(
    nodeid: str, file: str, task: Task, constraint: ConstraintSpec, verdict: Verdict
) -> Record:
    """The record of one constraint item."""
    return {
        "kind": "constraint",
        **_base(nodeid, file, task, verdict),
        "constraint": constraint.id,
        "check": constraint.check_name,
        "category": constraint.category,
        "level": constraint.level,
        "options": dict(constraint.check.options),
        "message": constraint.message,
        "constraints_in_task": len(task.constraints),
        "has_tests": task.has_tests,
    }


def functional_record(nodeid: str, file: str, task: Task, outcome: FunctionalOutcome) -> Record:
    """The record of a task's functional-tests item."""
    cases = [
        {"label": c.label, "status": c.status, "message": c.message, "line": c.line}
        for c in outcome.cases
    ]
    return {
        "kind": "functional",
        **_base(nodeid, file, task, outcome.verdict),
        "cases": cases,
        "cases_passed": sum(c["status"] == "passed" for c in cases),
        "constraints_in_task": len(task.constraints),
        "has_tests": True,
    }


def lost_record(nodeid: str, reason: str) -> Record:
    """An item whose verdict never arrived (its pytest-xdist worker crashed)."""
    parts = nodeid.split("::")
    return {
        "kind": "lost",
        "nodeid": nodeid,
        "file": parts[0],
        "task": parts[1] if len(parts) > 1 else "",
        "status": "error",
        "error_kind": "crash",
        "error": f"no verdict: {reason}",
    }


def invalid_record(nodeid: str, file: str, label: str, error: TaskFileError) -> Record:
    """The record of a task file, or one task in it, that could not be read."""
    return {
        "kind": "invalid",
        "nodeid": nodeid,
        "file": file,
        "task": label,
        "status": "error",
        "error_kind": "invalid-task",
        "error": error.message,
        "line": error.location.line,
        "key_path": format_key_path(error.location.key_path),
    }

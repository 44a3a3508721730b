"""Outcome records built from verdicts: one per outcome, the only thing that travels on
reports (their shape: `pytest_codeif/records.py`).

Plain built-in types only, so pytest-xdist can carry them from workers to the controller.
Messages are kept exact (the JSON report is data) but capped (`safe_text.capped`): code
under evaluation writes many of them, and some would be megabytes. A record is never
changed once built: `skipped_record`, `with_gate` and `with_code` return new ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, NotRequired, TypedDict, cast

from pytest_codeif.checks.base import advice_of
from pytest_codeif.errors import TaskFileError, format_key_path
from pytest_codeif.outcome import CaseResult, ErrorKind, Evidence, FunctionalOutcome, Verdict
from pytest_codeif.records import (
    AnswerEntry,
    AssertionCount,
    CaseEntry,
    CodeEntry,
    ConstraintRecord,
    EvidenceEntry,
    FunctionalRecord,
    GateEntry,
    InvalidRecord,
    LostRecord,
    OutcomeT,
    Plain,
    Problem,
    Record,
    RecordStatus,
)
from pytest_codeif.report.expected_cases import assertion_total
from pytest_codeif.report.fingerprints import evidence_fingerprints
from pytest_codeif.report.safe_text import capped
from pytest_codeif.taskfile.model import ConstraintSpec, Task

#: The `check` and `constraint` that findings of a task's functional tests are filed
#: under (in fingerprints and SARIF rule ids): they belong to no check.
FUNCTIONAL_SCOPE = ("functional", "tests")
#: What to do about failing functional tests (records' `advice`, as a check's for its
#: constraints).
FUNCTIONAL_ADVICE: Final = (
    "Fix the code so that each failing case gives the expected result; the case's line in "
    "the task file shows the call and what it expects."
)
#: Longest task instruction a record carries (each outcome of the task carries it, for
#: feedback): a prompt is a few hundred characters, a pasted document is cut.
MAX_INSTRUCTION_CHARS: Final = 4_000


def _instruction(task: Task) -> str | None:
    text = task.instruction
    if text is None or len(text) <= MAX_INSTRUCTION_CHARS:
        return text
    return f"{text[:MAX_INSTRUCTION_CHARS]}... ({len(text)} characters in all)"


def _evidence(
    items: tuple[Evidence, ...], scope: tuple[str, ...], root: Path | None
) -> list[EvidenceEntry]:
    """Evidence as plain dicts; with `root` (pytest's rootdir), each carries the stable
    `fingerprint` of its finding (see `fingerprints.py`), read here where the files are."""
    prints = evidence_fingerprints(scope, items, root) if root is not None and items else None
    found: list[EvidenceEntry] = []
    for index, e in enumerate(items):
        entry: EvidenceEntry = {
            "path": e.path,
            "line": e.line,
            "column": e.column,
            "rule": e.rule,
            "message": capped(e.message),
            "code_path": e.code_path,
            "code_line": e.code_line,
            "code_column": e.code_column,
        }
        if e.links:
            entry["links"] = [{"path": path, "line": line} for path, line in e.links]
        if prints is not None:
            entry["fingerprint"] = prints[index]
        found.append(entry)
    return found


class _Common(TypedDict):
    """The keys every outcome record starts with, in the order the report shows them."""

    nodeid: str
    file: str
    task: str
    metadata: Plain
    instruction: str | None
    status: RecordStatus
    error_kind: ErrorKind | None
    error: str | None
    evidence: list[EvidenceEntry]
    notes: list[str]
    cached: bool
    gate: NotRequired[GateEntry]  # never here: added by the gate (`with_gate`)
    code: NotRequired[CodeEntry]  # never here: added by the collector (`with_code`)


def _base(
    nodeid: str,
    file: str,
    task: Task,
    verdict: Verdict,
    *,
    scope: tuple[str, str],
    root: Path | None,
) -> _Common:
    return {
        "nodeid": nodeid,
        "file": file,
        "task": task.id,
        "metadata": task.metadata,
        "instruction": _instruction(task),
        "status": verdict.status,
        "error_kind": verdict.error_kind,
        "error": None if verdict.error is None else capped(verdict.error),
        "evidence": _evidence(verdict.evidence, (file, task.id, *scope), root),
        "notes": [capped(n) for n in verdict.notes],
        "cached": verdict.cached,
    }


def constraint_record(
    nodeid: str,
    file: str,
    task: Task,
    constraint: ConstraintSpec,
    verdict: Verdict,
    *,
    root: Path | None = None,
) -> ConstraintRecord:
    """The record of one constraint item; `line` is the constraint's line in the task
    file (where an annotation of an undecidable verdict points)."""
    scope = (constraint.check_name, constraint.id)
    return {
        "kind": "constraint",
        **_base(nodeid, file, task, verdict, scope=scope, root=root),
        "line": constraint.location.line,
        "constraint": constraint.id,
        "check": constraint.check_name,
        "category": constraint.category,
        "level": constraint.level,
        "options": dict(constraint.check.options),
        "message": constraint.message,
        # What to do: the constraint's own message, else the check's advice.
        "advice": constraint.message or advice_of(constraint.check),
        "constraints_in_task": len(task.constraints),
        "has_tests": task.has_tests,
        **_answered(verdict),
    }


class _Answered(TypedDict):
    """The answer step's readings, when the constraint's check gave them."""

    answer: NotRequired[AnswerEntry]


def _answered(verdict: Verdict) -> _Answered:
    answer = (verdict.details or {}).get("answer")
    if answer is None:
        return {}
    # Built by an answer check (`checks/answer`) in `AnswerEntry`'s shape.
    return {"answer": cast(AnswerEntry, answer)}


def functional_record(
    nodeid: str, file: str, task: Task, outcome: FunctionalOutcome, *, root: Path | None = None
) -> FunctionalRecord:
    """The record of a task's functional-tests item; `line` is the task's line."""
    cases: list[CaseEntry] = [_case_entry(c) for c in outcome.cases]
    return {
        "kind": "functional",
        **_base(nodeid, file, task, outcome.verdict, scope=FUNCTIONAL_SCOPE, root=root),
        "line": task.location.line,
        "cases": cases,
        "cases_passed": sum(c["status"] == "passed" for c in cases),
        "assertions": assertion_count(task, cases),
        "advice": FUNCTIONAL_ADVICE,
        "constraints_in_task": len(task.constraints),
        "has_tests": True,
    }


def _case_entry(case: CaseResult) -> CaseEntry:
    entry: CaseEntry = {
        "label": case.label,
        "status": case.status,
        "message": capped(case.message),
        "line": case.line,
    }
    if not case.assertion:
        entry["assertion"] = False
    return entry


def assertion_count(task: Task, cases: list[CaseEntry]) -> AssertionCount:
    """A task's assertions: each case is one, and a case of the task file that never ran
    counts every assertion it was to give, none passed (see `expected_cases`)."""
    passed = sum(c["status"] == "passed" for c in cases)
    return {"passed": passed, "total": assertion_total(task, cases)}


def skipped_record(record: ConstraintRecord, reason: str) -> ConstraintRecord:
    """The record of a constraint the CI gate does not judge (`reason`: why)."""
    return {
        **record,
        "status": "skipped",
        "evidence": [],
        "notes": [reason],
        "gate": {"skipped": reason},
    }


def with_gate(
    record: ConstraintRecord,
    gate: GateEntry,
    *,
    judged: tuple[RecordStatus, list[EvidenceEntry], list[str]] | None = None,
) -> ConstraintRecord:
    """`record` with what the CI gate did (`gate`, left out when empty) and, when the
    gate changed the outcome, its `judged` status, evidence and notes."""
    found: ConstraintRecord = {**record, "gate": gate} if gate else {**record}
    if judged is None:
        return found
    status, evidence, notes = judged
    # Keys the record holds keep their place: the report's key order does not change.
    return {**found, "status": status, "evidence": evidence, "notes": notes}


def with_code(record: OutcomeT, code: CodeEntry) -> OutcomeT:
    """`record` carrying its task's code (one record per task and process does)."""
    return {**record, "code": code}


def records_of(report: object) -> list[Record]:
    """The records a test report carries (`codeif_records`, set where the item's
    verdict is reached): one for an item of one outcome, one per outcome of a task's
    item under `--codeif-items=task`, none for any other report."""
    found = getattr(report, "codeif_records", None)
    if not isinstance(found, list):
        return []
    # Set by this plugin alone (`pytest_runtest_makereport`, the gate's items): records.
    return [cast("Record", record) for record in found if isinstance(record, dict)]


def tolerable(records: list[Record]) -> bool:
    """Whether a failed report fails only for violated constraints (what a passing
    `--codeif-fail-under` / `--codeif-max-violations` gate excuses), not for an
    undecidable outcome or failing functional tests."""
    failing = [r for r in records if r["status"] in ("violated", "error")]
    return bool(failing) and all(
        r["kind"] == "constraint" and r["status"] == "violated" for r in failing
    )


def lost_record(nodeid: str, reason: str) -> LostRecord:
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


def invalid_record(
    nodeid: str, file: str, label: str, error: TaskFileError, problems: list[Problem]
) -> InvalidRecord:
    """The record of a task file, or one task in it, that could not be read; `problems`:
    every problem found in it, `error` the first."""
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
        "problems": problems,
    }

"""The outcome record's shape: one typed dict per kind, the only thing that travels on
reports (from pytest-xdist workers to the controller) and every report is built from.

TypedDicts, not classes: at run time a record is a plain dict of built-in types, so it
crosses pytest-xdist and `json.dumps` as it is. The JSON report lists each outcome under
its task (`TaskEntry`) as its record without the task's keys (`ConstraintEntry`,
`FunctionalEntry`; see `report/json_report.py`). The shape is the public
`report/report.schema.json`: a key the schema requires is required here, any other is
`NotRequired`, as a report written by an older version may lack it (readers use `.get`).
`tests/test_record_types.py` holds the two to each other. Records are built in
`report/records.py` and never changed after: the gate and the collector make new ones.
"""

# No `from __future__ import annotations` here: on Python 3.11 it hides `NotRequired` from
# the TypedDicts' `__required_keys__`, which the schema test compares.
from typing import Literal, NotRequired, TypedDict, TypeGuard, TypeVar, final

from pytest_codeif.outcome import CaseStatus, ErrorKind

#: An outcome's status in a record: a verdict's, or `skipped` (not judged by the CI gate).
RecordStatus = Literal["satisfied", "violated", "error", "skipped"]
#: Plain JSON data copied from a task file (a task's `metadata`, a constraint's options).
Plain = dict[str, object]


@final
class Link(TypedDict):
    """One import of a chain or cycle, located as its finding is."""

    path: str
    line: int | None


@final
class EvidenceEntry(TypedDict):
    """A finding as records carry it (schema: `evidence`)."""

    path: str
    line: int | None
    column: NotRequired[int | None]
    rule: str
    message: str
    code_path: NotRequired[str | None]
    code_line: NotRequired[int | None]
    code_column: NotRequired[int | None]
    links: NotRequired[list[Link]]
    fingerprint: NotRequired[str]


@final
class CaseEntry(TypedDict):
    """One functional test case's result; `assertion` is written (false) only for a
    failure that is no assertion of the pass rate (a Newman script that threw)."""

    label: str
    status: CaseStatus
    message: str
    line: int
    assertion: NotRequired[bool]


@final
class AssertionCount(TypedDict):
    """A task's assertions (schema: `assertions`): every functional case is one (a
    Newman assertion is one case), so `total` is the number of cases; for tests that
    could not run at all, the number of cases the task expected, none passed."""

    passed: int
    total: int


@final
class GateEntry(TypedDict, total=False):
    """What the CI gate's filters did to one constraint (`gate/apply.py`)."""

    skipped: str
    outside_changes: int
    baseline: Literal["read", "write"]
    absorbed: list[EvidenceEntry]
    disappeared: int


@final
class TextCode(TypedDict):
    """A task's code as text (inline code, a response), with where its lines came from."""

    kind: str
    origin: str
    origin_line: int | None
    path: str
    text: str
    lines: list[list[int]] | None
    lines_in: Literal["origin", "response"] | None
    lines_total: int
    lines_shown: int
    note: NotRequired[str]


@final
class PathsCode(TypedDict):
    """A task's code on disk (`file:`, `directory:`), named by its paths."""

    kind: str
    paths: list[str]
    paths_total: int


CodeEntry = TextCode | PathsCode


#: Why an answer step is not right (`checks/answer`): none of these is an error.
AnswerReason = Literal["missing", "unparsable", "type-mismatch", "duplicate", "wrong"]


@final
class AnswerJudgement(TypedDict):
    """One reading (strict or loose) of an answer step."""

    status: Literal["satisfied", "violated"]
    reason: AnswerReason | None
    #: The answer's text as given (bounded; hostile), None when there is none.
    got: str | None


@final
class AnswerEntry(TypedDict):
    """An answer step's outcome (schema: `answer`): both readings, and which decided."""

    step: int
    steps: int
    instruction: str | None
    expected: int | float | str
    strict: AnswerJudgement
    loose: AnswerJudgement
    verdict: Literal["strict", "loose"]


class _OutcomeEntry(TypedDict):
    """What a constraint's and a functional outcome's entries share (schema: `outcome`)."""

    nodeid: str
    instruction: NotRequired[str | None]
    status: RecordStatus
    error_kind: ErrorKind | None
    error: str | None
    evidence: list[EvidenceEntry]
    notes: NotRequired[list[str]]
    cached: NotRequired[bool]
    line: NotRequired[int]
    advice: NotRequired[str]
    constraints_in_task: NotRequired[int]
    has_tests: NotRequired[bool]
    gate: NotRequired[GateEntry]


class ConstraintEntry(_OutcomeEntry):
    """One constraint's outcome as the JSON report lists it under its task."""

    kind: Literal["constraint"]
    constraint: NotRequired[str]
    check: NotRequired[str]
    category: NotRequired[str]
    level: NotRequired[int | None]
    options: NotRequired[Plain]
    message: NotRequired[str | None]
    answer: NotRequired[AnswerEntry]


class FunctionalEntry(_OutcomeEntry):
    """The outcome of a task's functional tests (call cases and pytest files) as the JSON
    report gives it under its task."""

    kind: Literal["functional"]
    cases: NotRequired[list[CaseEntry]]
    cases_passed: NotRequired[int]
    assertions: NotRequired[AssertionCount]  # this version writes it always


class _TaskKeys(TypedDict):
    """What an outcome record carries of its task (the JSON report's task entry: `file`,
    `id`, `metadata`, `code`); one record of a task carries its code."""

    file: str
    task: str
    metadata: Plain
    code: NotRequired[CodeEntry]


@final
class TaskEntry(TypedDict):
    """A task in the JSON report (schema: `task`): its outcomes' entries under it."""

    file: str
    id: str
    metadata: Plain
    code: NotRequired[CodeEntry | None]  # this version writes it always
    constraints: list[ConstraintEntry]
    functional: FunctionalEntry | None


@final
class ConstraintRecord(ConstraintEntry, _TaskKeys):
    """One constraint's outcome, with its task's keys."""


@final
class FunctionalRecord(FunctionalEntry, _TaskKeys):
    """The outcome of a task's functional tests, with its task's keys."""


@final
class LostRecord(TypedDict):
    """An item whose verdict never arrived (schema: `lost`)."""

    kind: Literal["lost"]
    nodeid: str
    file: str
    task: str
    status: Literal["error"]
    error_kind: Literal["crash"]
    error: str


@final
class Problem(TypedDict):
    """One problem of a task file; `file` when it is in another file (JSONL responses)."""

    line: int
    key_path: str
    error: str
    file: NotRequired[str]


@final
class InvalidRecord(TypedDict):
    """A task file, or a task, that could not be read (schema: `invalid`)."""

    kind: Literal["invalid"]
    nodeid: str
    file: str
    task: str
    status: Literal["error"]
    error_kind: Literal["invalid-task"]
    error: str
    line: int
    key_path: str
    problems: NotRequired[list[Problem]]


#: A judged (or skipped) outcome: what the summary's rates are made of.
OutcomeRecord = ConstraintRecord | FunctionalRecord
#: Any record a report carries.
Record = ConstraintRecord | FunctionalRecord | LostRecord | InvalidRecord
#: Either kind of outcome record, the same kind out as in.
OutcomeT = TypeVar("OutcomeT", ConstraintRecord, FunctionalRecord)


def is_outcome(record: Record) -> TypeGuard[OutcomeRecord]:
    """The record is a constraint's or functional tests' outcome (not lost or invalid)."""
    return record["kind"] in ("constraint", "functional")


def line_of(record: Record) -> int | None:
    """The task-file line a record points at: its constraint's, task's or problem's
    (None for a lost item, or a record read from a report that gave none)."""
    if record["kind"] == "lost":
        return None
    return record.get("line")

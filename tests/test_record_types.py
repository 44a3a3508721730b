"""The outcome records' types (`pytest_codeif/records.py`) hold to the public
`report.schema.json`: each TypedDict has the keys the schema gives its kind, required where
the schema requires them; and records of every kind, built by real runs, validate against
the schema and carry only their type's keys (the schema's outcome allows other keys, so
the types are what keeps a stray one out)."""

from __future__ import annotations

import json
import shutil
import typing
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif import records
from pytest_codeif.report import json_report
from pytest_codeif.report.json_report import SCHEMA_PATH
from pytest_codeif.report.records import records_of
from tests.test_changed_since import git, isolate_git

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
DEFS: dict[str, Any] = SCHEMA["$defs"]
OUTCOME: dict[str, Any] = DEFS["outcome"]
#: Keys an outcome record carries for its task; the report keeps them in the task entry
#: (`record` key -> the task entry's key).
TASK_KEYS = {"file": "file", "task": "id", "metadata": "metadata", "code": "code"}
#: (record, the JSON report's entry of it) of each kind of outcome.
OUTCOME_TYPES: tuple[tuple[Any, Any], ...] = (
    (records.ConstraintRecord, records.ConstraintEntry),
    (records.FunctionalRecord, records.FunctionalEntry),
)


def keys(kind: Any) -> set[str]:
    return set(kind.__required_keys__) | set(kind.__optional_keys__)


def literals(kind: Any, key: str) -> set[str]:
    """The values a Literal-typed key of a TypedDict may take."""
    found: set[str] = set()
    for arg in typing.get_args(typing.get_type_hints(kind)[key]) or (kind,):
        found.update(typing.get_args(arg) or (arg,))
    return {value for value in found if isinstance(value, str)}


# -- the types against the schema -------------------------------------------------------


def test_outcome_entries_have_the_schemas_outcome_keys() -> None:
    for _, entry in OUTCOME_TYPES:
        assert keys(entry) <= OUTCOME["properties"].keys(), entry.__name__
        assert set(entry.__required_keys__) == set(OUTCOME["required"])
    both = keys(records.ConstraintEntry) | keys(records.FunctionalEntry)
    assert both == OUTCOME["properties"].keys()
    kinds = literals(records.ConstraintEntry, "kind") | literals(records.FunctionalEntry, "kind")
    assert kinds == set(OUTCOME["properties"]["kind"]["enum"])


def test_an_outcome_record_is_its_entry_with_its_tasks_keys() -> None:
    task = DEFS["task"]
    for record, entry in OUTCOME_TYPES:
        assert keys(record) - keys(entry) == TASK_KEYS.keys()
        assert {TASK_KEYS[key] for key in TASK_KEYS} <= task["properties"].keys()
        required = {key for key, name in TASK_KEYS.items() if name in task["required"]}
        assert set(record.__required_keys__) == set(entry.__required_keys__) | required
        assert "code" in record.__optional_keys__  # one record of a task carries it


def test_statuses_are_the_schemas() -> None:
    assert set(typing.get_args(records.RecordStatus)) == set(DEFS["status"]["enum"])
    assert literals(records.CaseEntry, "status") == set(
        OUTCOME["properties"]["cases"]["items"]["properties"]["status"]["enum"]
    )


@pytest.mark.parametrize(
    ("kind", "schema"),
    [
        (records.EvidenceEntry, DEFS["evidence"]),
        (records.Link, DEFS["evidence"]["properties"]["links"]["items"]),
        (records.CaseEntry, OUTCOME["properties"]["cases"]["items"]),
        (records.AssertionCount, OUTCOME["properties"]["assertions"]),
        (records.GateEntry, OUTCOME["properties"]["gate"]),
        (records.TextCode, DEFS["code"]["oneOf"][0]),
        (records.PathsCode, DEFS["code"]["oneOf"][1]),
        (records.InvalidRecord, DEFS["invalid"]),
        (records.TaskEntry, DEFS["task"]),
        (records.Problem, DEFS["invalid"]["properties"]["problems"]["items"]),
        (records.AnswerEntry, OUTCOME["properties"]["answer"]),
        (records.AnswerJudgement, DEFS["answer_judgement"]),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_each_part_has_the_schemas_keys(kind: Any, schema: dict[str, Any]) -> None:
    assert keys(kind) == schema["properties"].keys()
    assert set(kind.__required_keys__) == set(schema.get("required", []))


def test_a_lost_record_has_the_schemas_keys() -> None:
    lost = SCHEMA["properties"]["lost"]["items"]
    assert keys(records.LostRecord) == set(lost["required"])
    assert set(records.LostRecord.__required_keys__) == set(lost["required"])
    for key in ("kind", "status", "error_kind"):
        assert literals(records.LostRecord, key) == {lost["properties"][key]["const"]}
    invalid = DEFS["invalid"]["properties"]
    for key in ("kind", "status", "error_kind"):
        assert literals(records.InvalidRecord, key) == {invalid[key]["const"]}


def test_gate_baseline_modes_are_the_schemas() -> None:
    enum = OUTCOME["properties"]["gate"]["properties"]["baseline"]["enum"]
    assert literals(records.GateEntry, "baseline") == set(enum)


# -- records built by real runs -----------------------------------------------------------

TASKS = """
tasks:
  - id: fib
    code: |
      def fib(n):
          return n if n < 2 else fib(n - 1) + fib(n - 2)
    tests:
      - {call: "fib(5)", expect: 5}
      - {call: "fib(6)", expect: 9}
    constraints:
      - {check: construct, require: [recursion]}
      - {check: construct, id: no-recursion, forbid: [recursion], level: 2}
  - id: crashes
    code: "x = 1\\n"
    constraints:
      - {check: construct, forbid: [loop]}
  - id: on-disk
    file: app.py
    constraints:
      - {check: construct, forbid: [loop]}
  - id: unparsable
    code: "def f(:\n"
    constraints:
      - {check: construct, forbid: [loop]}
"""

BAD = """
tasks:
  - id: bad
    code: "x = 1\\n"
    constraints:
      - {check: no-such-check}
"""

#: A failure without a record: what a crashed pytest-xdist worker leaves (a lost item).
CRASH = """
def pytest_runtest_setup(item):
    if "::crashes::" in item.nodeid:
        raise RuntimeError("the worker died")
"""


class Gathered:
    """Every record the test reports of a run carry, as built where the verdict is."""

    def __init__(self) -> None:
        self.records: list[records.Record] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.records += records_of(report)


def type_of(record: dict[str, Any]) -> Any:
    return {
        "constraint": records.ConstraintRecord,
        "functional": records.FunctionalRecord,
        "lost": records.LostRecord,
        "invalid": records.InvalidRecord,
    }[record["kind"]]


def assert_typed(record: dict[str, Any]) -> None:
    """`record` has its type's required keys and no other than its type's, and so do its
    findings, cases and gate entry."""
    kind = type_of(record)
    assert kind.__required_keys__ <= record.keys() <= keys(kind), record
    for finding in [*record.get("evidence", []), *record.get("gate", {}).get("absorbed", [])]:
        evidence = records.EvidenceEntry
        assert evidence.__required_keys__ <= finding.keys() <= keys(evidence), finding
    for case in record.get("cases", []):
        assert records.CaseEntry.__required_keys__ <= case.keys() <= keys(records.CaseEntry)
    if "assertions" in record:
        assert record["assertions"].keys() == keys(records.AssertionCount)
    assert record.get("gate", {}).keys() <= keys(records.GateEntry)
    for problem in record.get("problems", []):
        assert records.Problem.__required_keys__ <= problem.keys() <= keys(records.Problem)


def validate(record: dict[str, Any]) -> None:
    """`record` against its kind's schema (an outcome without its task's keys)."""
    if record["kind"] == "lost":
        jsonschema.validate(record, SCHEMA["properties"]["lost"]["items"])
        return
    if record["kind"] == "invalid":
        jsonschema.validate(record, {**DEFS["invalid"], "$defs": DEFS})
        return
    body = {k: v for k, v in record.items() if k not in TASK_KEYS}
    jsonschema.validate(body, {**OUTCOME, "$defs": DEFS})
    if "code" in record:
        jsonschema.validate(record["code"], {**DEFS["code"], "$defs": DEFS})


def run(pytester: pytest.Pytester, *args: str) -> tuple[list[records.Record], dict[str, Any]]:
    """The records a plain run's reports carried, and its JSON report (validated)."""
    gathered = Gathered()
    pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=out/r.json", *args,
        plugins=[gathered],
    )  # fmt: skip
    report = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, SCHEMA)
    return gathered.records, report


def test_records_of_every_kind_hold_to_the_schema_and_their_types(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS, u=BAD)
    (pytester.path / "app.py").write_text("for x in range(3):\n    print(x)\n")
    pytester.makeconftest(CRASH)
    built, report = run(pytester)
    recorded, written = run(pytester, "--codeif-baseline=b.json", "--codeif-baseline-write")
    every = [*built, *recorded, *json_report.records_of(report), *json_report.records_of(written)]
    for record in every:
        validate(dict(record))
        assert_typed(dict(record))
    for task in [*report["tasks"], *written["tasks"]]:
        assert task.keys() == keys(records.TaskEntry)
        entries = [(e, records.ConstraintEntry) for e in task["constraints"]]
        if task["functional"] is not None:
            entries.append((task["functional"], records.FunctionalEntry))
        for entry, kind in entries:
            assert kind.__required_keys__ <= entry.keys() <= keys(kind), entry
    seen = {(r["kind"], r["status"]) for r in every}
    assert seen >= {
        ("constraint", "satisfied"),
        ("constraint", "violated"),
        ("constraint", "error"),
        ("functional", "violated"),
        ("invalid", "error"),
        ("lost", "error"),
    }
    assert any("code" in r for r in built), "no record carried its task's code"
    # This version writes every functional record's assertions (the schema leaves them
    # out of `required`: a report written before them is still a report).
    functional = [r for r in every if r["kind"] == "functional"]
    assert functional and all("assertions" in r for r in functional)
    gates = [r.get("gate") for r in recorded if r["kind"] == "constraint"]
    assert any(g and g.get("absorbed") for g in gates), "no finding was recorded"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_skipped_record_holds_to_the_schema_and_its_type(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo: Path = isolate_git(pytester, monkeypatch)
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: on-disk\n    file: app.py\n"
        "    constraints:\n      - {check: construct, forbid: [loop]}\n",
    )
    (repo / "app.py").write_text("x = 1\n")
    (repo / ".gitignore").write_text("out/\n.pytest_cache/\n__pycache__/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "all of it")
    built, report = run(pytester, "--codeif-changed-since=main")
    assert [r["status"] for r in built] == ["skipped"]
    for record in [*built, *report["tasks"][0]["constraints"]]:
        assert_typed({"file": "t.codeif.yaml", "task": "on-disk", "metadata": {}, **record})
        validate(dict(record))
    assert built[0].get("gate", {}).get("skipped")

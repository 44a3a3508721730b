"""The SARIF log: valid against the official OASIS schema, with one rule per
check/constraint, a result per finding at its file and line in the repository, and
fingerprints that survive lines inserted above a finding."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from jsonschema.validators import validator_for

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.outcome import Evidence
from pytest_codeif.report.fingerprints import evidence_fingerprints
from pytest_codeif.report.sarif import FINGERPRINT_KEY, SRCROOT, build_sarif
from tests.conftest import FIXTURES, CodeifRunner

SCHEMA_PATH = FIXTURES / "sarif" / "sarif-schema-2.1.0.json"

SOLUTION = "import os\n\n\ndef area(w, h):\n    return w * h\n"

TASKS = """
tasks:
  - id: real-file
    file: pkg/solution.py
    constraints:
      - check: ruff
        id: unused
        select: [F401]
        message: Remove the imports you do not use.
      - {check: construct, forbid: [lambda]}
  - id: inline
    code: |
      def total(xs):
          s = 0
          for x in xs:
              s += x
          return s
    constraints:
      - {check: construct, id: no-loop, forbid: [loop], category: Scenario}
    tests:
      - {call: 'total([1, 2])', expect: 4}
  - id: broken
    code: |
      def f(:
          pass
    constraints:
      - {check: construct, id: no-loop, forbid: [loop]}
"""


def validate(log: dict[str, Any]) -> None:
    """Validate with the draft the schema declares (draft-04), and with draft-07."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    declared = validator_for(schema)
    assert declared is jsonschema.Draft4Validator
    declared.check_schema(schema)
    declared(schema, format_checker=declared.FORMAT_CHECKER).validate(log)
    jsonschema.Draft7Validator(schema).validate(log)


def write_suite(pytester: pytest.Pytester) -> None:
    (pytester.path / "pkg").mkdir()
    (pytester.path / "pkg" / "solution.py").write_text(SOLUTION)
    pytester.makefile(".codeif.yaml", tasks=TASKS)


def read_log(pytester: pytest.Pytester, name: str = "out/codeif.sarif") -> dict[str, Any]:
    log: dict[str, Any] = json.loads((pytester.path / name).read_text(encoding="utf-8"))
    return log


def test_schema_copy_is_the_official_errata_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    # The schema rejects what it should: a log with no runs is not SARIF.
    with pytest.raises(jsonschema.ValidationError):
        validate({"version": "2.1.0"})


def test_sarif_log_rules_results_and_notifications(run_codeif: CodeifRunner) -> None:
    pytester = run_codeif.pytester
    write_suite(pytester)
    result = run_codeif("--codeif-sarif=out/codeif.sarif")
    result.assert_outcomes(passed=1, failed=3, errors=1)
    result.stdout.fnmatch_lines(["codeif: SARIF report written to *codeif.sarif"])
    log = read_log(pytester)
    validate(log)

    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pytest-codeif"
    assert driver["version"]
    assert driver["informationUri"].startswith("https://")
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert list(rules) == [
        "construct/construct",
        "construct/no-loop",
        "functional/tests",
        "ruff/unused",
    ]
    ruff_doc = inspect.cleandoc(builtin_registry().get("ruff").__doc__ or "")
    unused = rules["ruff/unused"]
    assert unused["shortDescription"]["text"] == ruff_doc.splitlines()[0]
    assert unused["fullDescription"]["text"].startswith(ruff_doc.splitlines()[0])
    assert "Options:" not in unused["fullDescription"]["text"]
    assert "What to do: Remove the imports you do not use." in unused["help"]["text"]
    assert "Options:" in unused["help"]["text"]
    assert unused["defaultConfiguration"]["level"] == "error"
    assert "Scenario" in rules["construct/no-loop"]["properties"]["tags"]

    results = run["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert [r["ruleId"] for r in results] == [
        "construct/no-loop",
        "functional/tests",
        "ruff/unused",
    ]
    for r in results:
        assert r["level"] == "error"
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert FINGERPRINT_KEY in r["partialFingerprints"]
    # A directory or file task's finding points at the real file, not the task file.
    unused_result = by_rule["ruff/unused"]
    location = unused_result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/solution.py", "uriBaseId": SRCROOT}
    assert location["region"]["startLine"] == 1
    assert unused_result["message"]["text"].startswith("[F401] `os` imported but unused")
    assert "What to do: Remove the imports you do not use." in unused_result["message"]["text"]
    assert unused_result["properties"]["nodeid"] == "tasks.codeif.yaml::real-file::unused"
    # Inline code: the task file's line holding the loop.
    loop = by_rule["construct/no-loop"]["locations"][0]["physicalLocation"]
    assert loop["artifactLocation"]["uri"] == "tasks.codeif.yaml"
    assert loop["region"]["startLine"] == 14
    functional = by_rule["functional/tests"]["locations"][0]["physicalLocation"]
    assert functional["artifactLocation"]["uri"] == "tasks.codeif.yaml"
    assert functional["region"]["startLine"] == 20  # the failing case
    root = run["originalUriBaseIds"][SRCROOT]["uri"]
    assert root == pytester.path.resolve().as_uri() + "/"

    # The undecidable constraint is a notification, not a result, pointing at its line.
    invocation = run["invocations"][0]
    assert invocation["exitCode"] == 1
    assert invocation["executionSuccessful"] is True
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "warning"
    assert note["descriptor"]["id"] == "syntax-error"
    assert note["associatedRule"]["id"] == "construct/no-loop"
    assert "could not be decided (syntax-error)" in note["message"]["text"]
    place = note["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == "tasks.codeif.yaml"
    assert place["region"]["startLine"] == 26  # the constraint
    assert run["properties"]["summary"]["constraints"]["violated"] == 2


def _fingerprints(log: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {
        r["properties"]["nodeid"]: (
            r["partialFingerprints"][FINGERPRINT_KEY],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in log["runs"][0]["results"]
    }


def test_fingerprints_survive_lines_inserted_above(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    args = ("--codeif", "-p", "no:cacheprovider", "--codeif-sarif=out/codeif.sarif")
    pytester.runpytest(*args)
    before = _fingerprints(read_log(pytester))

    solution = pytester.path / "pkg" / "solution.py"
    solution.write_text('"""A module docstring, added above the finding."""\n' + SOLUTION)
    tasks = pytester.path / "tasks.codeif.yaml"
    text = tasks.read_text()
    inserted = text.replace("      def total(xs):\n", "      # a comment\n      def total(xs):\n")
    assert inserted != text
    tasks.write_text(inserted)
    pytester.runpytest(*args)
    after = _fingerprints(read_log(pytester))

    for nodeid in ("tasks.codeif.yaml::real-file::unused", "tasks.codeif.yaml::inline::no-loop"):
        assert after[nodeid][1] == before[nodeid][1] + 1  # the line moved...
        assert after[nodeid][0] == before[nodeid][0]  # ...the fingerprint did not

    # A different finding line is a different finding.
    solution.write_text(SOLUTION.replace("import os", "import sys"))
    pytester.runpytest(*args)
    changed = _fingerprints(read_log(pytester))
    unused = "tasks.codeif.yaml::real-file::unused"
    assert changed[unused][0] != before[unused][0]


def test_fingerprints_tell_identical_lines_apart(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nimport os\n  import   os\n")
    evidence = [Evidence("a.py", n, "F401", f"line {n}") for n in (1, 2, 3)]
    first, second, third = evidence_fingerprints(
        ("t.yaml", "t", "ruff", "ruff"), evidence, tmp_path
    )
    assert len({first, second, third}) == 3  # same text: told apart by order
    # Whitespace does not count, the message does not count, the order does.
    moved = [Evidence("a.py", 3, "F401", "other text"), Evidence("a.py", 1, "F401", "x")]
    assert evidence_fingerprints(("t.yaml", "t", "ruff", "ruff"), moved, tmp_path) == [
        first,
        second,
    ]
    other_scope = evidence_fingerprints(("t.yaml", "t", "ruff", "other"), evidence[:1], tmp_path)
    assert other_scope != [first]


def test_sarif_paths_are_relative_to_the_repository_root(pytester: pytest.Pytester) -> None:
    """rootdir in a sub-folder of a git repository: URIs still start at the repository."""
    (pytester.path / ".git").mkdir()
    sub = pytester.path / "sub"
    sub.mkdir()
    (sub / "pytest.ini").write_text("[pytest]\ncodeif_sarif = reports/codeif.sarif\n")
    (sub / "pkg").mkdir()
    (sub / "pkg" / "solution.py").write_text(SOLUTION)
    (sub / "t.codeif.yaml").write_text(
        "tasks:\n  - id: t\n    file: pkg/solution.py\n    constraints:\n"
        "      - {check: ruff, select: [F401]}\n"
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "sub")
    result.assert_outcomes(failed=1)
    log = read_log(pytester, "sub/reports/codeif.sarif")  # ini path: relative to rootdir
    validate(log)
    (only,) = log["runs"][0]["results"]
    artifact = only["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "sub/pkg/solution.py", "uriBaseId": SRCROOT}
    assert log["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"] == (
        pytester.path.resolve().as_uri() + "/"
    )


def test_build_sarif_outside_the_repository_and_lost_items(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    outside = tmp_path / "elsewhere" / "x.py"
    records = [
        {
            "kind": "constraint",
            "nodeid": "t.codeif.yaml::t::c",
            "file": "t.codeif.yaml",
            "task": "t",
            "status": "violated",
            "evidence": [
                {"path": str(outside), "line": 3, "column": 5, "rule": "c1", "message": "m"}
            ],
            "check": "custom",
            "constraint": "c",
            "category": "Code Quality",
            "message": None,
            "line": 4,
        },
        {
            "kind": "lost",
            "nodeid": "t.codeif.yaml::t::d",
            "file": "t.codeif.yaml",
            "task": "t",
            "status": "error",
            "error_kind": "crash",
            "error": "no verdict: worker crashed",
        },
    ]
    log = build_sarif(
        records,
        docs={},
        rootdir=repo,
        root=repo,
        version="0.0.0",
        exit_status=1,
        complete=False,
    )
    validate(log)
    run = log["runs"][0]
    (only,) = run["results"]
    physical = only["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": outside.as_uri()}
    assert physical["region"] == {"startLine": 3, "startColumn": 5}
    assert "partialFingerprints" not in only  # the record carried none
    assert run["tool"]["driver"]["rules"][0]["shortDescription"]["text"]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (lost,) = invocation["toolExecutionNotifications"]
    assert (lost["level"], lost["descriptor"]["id"]) == ("error", "crash")
    assert "associatedRule" not in lost

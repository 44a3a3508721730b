"""`--codeif-baseline=FILE` and `--codeif-baseline-write`: the findings a repository
already has are recorded once and accepted after; matching survives lines inserted above
a finding and renamed neighbours, counts identical findings, and tells which recorded
findings disappeared; plain runs and pytest-xdist runs agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.gate.baseline import Baseline, Entry, document, merged
from tests.conftest import FIXTURES, CodeifRunner
from tests.test_changed_since import (
    GITIGNORE,
    REPORT,
    edit,
    git,
    isolate_git,
    outcomes,
    read_report,
)
from tests.test_sarif import validate

BASELINE = "codeif-baseline.json"
READ = f"--codeif-baseline={BASELINE}"
WRITE = (READ, "--codeif-baseline-write")
#: The fixture's findings: a print in api.py, helpers.py, old.py, services.py; db.load
#: without annotations.
RECORDED = 5


def copy_fixture(pytester: pytest.Pytester) -> Path:
    shutil.copytree(FIXTURES / "gate", pytester.path, dirs_exist_ok=True)
    return pytester.path


def baseline_of(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / BASELINE).read_text())
    return data


def test_write_then_read_absorbs_everything(run_codeif: CodeifRunner) -> None:
    pytester = run_codeif.pytester
    repo = copy_fixture(pytester)
    plain = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    plain.assert_outcomes(passed=1, failed=2)

    written = run_codeif(*WRITE)
    written.assert_outcomes(passed=3)  # recording accepts: the run exits 0
    assert written.ret == pytest.ExitCode.OK
    written.stdout.fnmatch_lines(
        [
            f"codeif: recording every finding into the baseline {BASELINE}",
            f"codeif: baseline written to *{BASELINE}: {RECORDED} findings",
            f"baseline: {RECORDED} findings recorded",
        ]
    )
    text = (repo / BASELINE).read_text()
    data = json.loads(text)
    assert data["format"] == "pytest-codeif baseline"
    assert data["version"] == 1
    findings = data["findings"]
    assert [(f["constraint"], f["path"]) for f in findings] == [
        ("db-typed", "app/db.py"),
        ("no-print", "app/api.py"),
        ("no-print", "app/helpers.py"),
        ("no-print", "app/old.py"),
        ("no-print", "app/services.py"),
    ]
    assert findings[0] == {
        "task_file": "gate.codeif.yaml",
        "task": "app",
        "check": "public-api",
        "constraint": "db-typed",
        "path": "app/db.py",
        "fingerprint": findings[0]["fingerprint"],
        "rule": "public-api",
        "message": "public function `app.db.load` lacks annotations: parameter `key`, "
        "the return type",
    }
    assert list(findings[0]) == list(Entry.__dataclass_fields__)  # a fixed key order
    assert text.endswith("}\n")
    # Stable: a second write of the same findings changes no byte.
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", *WRITE)
    assert (repo / BASELINE).read_text() == text

    read = run_codeif(READ, REPORT)
    read.assert_outcomes(passed=3)
    assert read.ret == pytest.ExitCode.OK
    read.stdout.fnmatch_lines(
        [
            f"codeif: baseline {BASELINE}: {RECORDED} recorded findings accepted",
            f"baseline: {RECORDED} findings absorbed, 0 recorded findings no longer found",
        ]
    )
    report = read_report(repo)
    assert report["summary"]["gate"] == {
        "outside_changes": 0,
        "baseline_absorbed": RECORDED,
        "baseline_recorded": 0,
        "baseline_disappeared": 0,
    }
    assert outcomes(report) == {
        "layers": ("satisfied", []),
        "no-print": ("satisfied", []),
        "db-typed": ("satisfied", []),
    }


def shift_and_rename(repo: Path) -> None:
    """Unrelated edits: lines inserted above every finding, a neighbouring function
    renamed, a finding's line re-indented differently."""
    for name in ("api.py", "services.py", "db.py", "helpers.py"):
        edit(repo / "app" / name, '"""\n', '"""\n\nimport logging\n\nLOG = logging.getLogger()\n')
    edit(repo / "app" / "services.py", "def count(", "def number_of(")
    edit(repo / "app" / "api.py", "    print(total(xs))", "    print( total(xs) )")


def test_unrelated_edits_new_and_disappeared_findings(run_codeif: CodeifRunner) -> None:
    pytester = run_codeif.pytester
    repo = copy_fixture(pytester)
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", *WRITE)
    shift_and_rename(repo)
    same = run_codeif(READ)
    same.assert_outcomes(passed=3)
    same.stdout.fnmatch_lines([f"baseline: {RECORDED} findings absorbed, 0 recorded *"])

    # One finding more (db.py), one fewer (helpers.py).
    db = repo / "app" / "db.py"
    db.write_text(db.read_text() + '\n\ndef noisy() -> None:\n    print("new")\n')
    edit(repo / "app" / "helpers.py", 'print("helper")', "LOG.info('helper')")
    result = run_codeif(READ, REPORT, "--codeif-sarif=out/r.sarif")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "constraint 'no-print' violated (check pattern):",
            '  app/db.py:13: [[]pattern[]] `print("new")` matches the pattern `print(...)`',
            f"note: 3 findings accepted by the baseline {BASELINE}",
            f"note: 1 finding recorded in the baseline {BASELINE} no longer found (rewrite it "
            "with --codeif-baseline-write to drop them)",
        ]
    )
    result.stdout.fnmatch_lines(
        [f"baseline: {RECORDED - 1} findings absorbed, 1 recorded finding no longer found"]
    )
    report = read_report(repo)
    assert outcomes(report)["no-print"] == ("violated", [("app/db.py", 13)])
    (task,) = report["tasks"]
    no_print = next(c for c in task["constraints"] if c["constraint"] == "no-print")
    assert no_print["gate"]["baseline"] == "read"
    assert no_print["gate"]["disappeared"] == 1
    assert sorted(e["path"] for e in no_print["gate"]["absorbed"]) == [
        "app/api.py",
        "app/old.py",
        "app/services.py",
    ]
    sarif = json.loads((repo / "out" / "r.sarif").read_text())
    validate(sarif)
    states = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["baselineState"],
            [s["kind"] for s in r.get("suppressions", [])],
        )
        for r in sarif["runs"][0]["results"]
    ]
    assert sorted(states) == [
        ("app/api.py", "unchanged", ["external"]),
        ("app/db.py", "new", []),
        ("app/db.py", "unchanged", ["external"]),
        ("app/old.py", "unchanged", ["external"]),
        ("app/services.py", "unchanged", ["external"]),
    ]


def test_identical_findings_are_counted(pytester: pytest.Pytester) -> None:
    """A finding recorded once absorbs one finding of today: a copy of its line is new."""
    repo = copy_fixture(pytester)
    args = ("--codeif", "-p", "no:cacheprovider")
    pytester.runpytest(*args, *WRITE)
    edit(repo / "app" / "api.py", "    print(total(xs))\n", "    print(total(xs))\n" * 2)
    result = pytester.runpytest(*args, READ, REPORT)
    result.assert_outcomes(passed=2, failed=1)
    assert outcomes(read_report(repo))["no-print"] == ("violated", [("app/api.py", 8)])

    entry = Entry("t.yaml", "t", "pattern", "p", "a.py", "f1", "pattern", "print")
    baseline = Baseline([entry])
    key = entry.constraint_key
    assert baseline.match(key, [("a.py", "f1"), ("a.py", "f1")]) == ([True, False], 0)
    assert baseline.match(key, [("b.py", "f1"), ("a.py", None)]) == ([False, False], 1)
    assert baseline.match(("t.yaml", "t", "pattern", "other"), [("a.py", "f1")]) == ([False], 0)
    twice = Baseline([entry, entry])
    assert twice.match(key, [("a.py", "f1")]) == ([True], 1)


def test_deselected_constraints_neither_disappear_nor_are_dropped(
    pytester: pytest.Pytester,
) -> None:
    repo = copy_fixture(pytester)
    args = ("--codeif", "-p", "no:cacheprovider")
    pytester.runpytest(*args, *WRITE)
    edit(repo / "app" / "db.py", "def load(key):", "def load(key: int) -> int:")
    only = pytester.runpytest(*args, READ, "-k", "no-print")
    only.assert_outcomes(passed=1)
    only.stdout.fnmatch_lines(
        ["baseline: 4 findings absorbed, 0 recorded findings no longer found"]
    )
    every = pytester.runpytest(*args, READ)
    every.assert_outcomes(passed=3)
    every.stdout.fnmatch_lines(
        ["baseline: 4 findings absorbed, 1 recorded finding no longer found"]
    )

    # Rewriting with -k keeps what the deselected constraint recorded; a full rewrite
    # drops the finding that is gone.
    partial = pytester.runpytest(*args, *WRITE, "-k", "no-print")
    partial.stdout.fnmatch_lines(
        [f"codeif: baseline written to *: {RECORDED} findings, 1 kept from constraints that *"]
    )
    assert [f["constraint"] for f in baseline_of(repo)["findings"]].count("db-typed") == 1
    pytester.runpytest(*args, *WRITE)
    assert [f["constraint"] for f in baseline_of(repo)["findings"]].count("db-typed") == 0


def test_merged_and_document_are_sorted() -> None:
    old = [
        Entry("t.yaml", "t", "c", "kept", "a.py", "1", "r", "m"),
        Entry("t.yaml", "t", "c", "ran", "a.py", "2", "r", "m"),
    ]
    new = [Entry("t.yaml", "t", "c", "ran", "a.py", "0", "r", "m")]
    result = merged(old, new, {("t.yaml", "t", "c", "ran")})
    assert [(e.constraint, e.fingerprint) for e in result] == [("kept", "1"), ("ran", "0")]
    assert [f["fingerprint"] for f in document(reversed(result))["findings"]] == ["1", "0"]


def test_ini_options(pytester: pytest.Pytester) -> None:
    """`codeif_baseline` in the ini file, relative to the rootdir."""
    repo = copy_fixture(pytester)
    (repo / "sub").mkdir()
    pytester.makeini("[pytest]\ncodeif_baseline = sub/base.json\n")
    args = ("--codeif", "-p", "no:cacheprovider")
    pytester.runpytest(*args, "--codeif-baseline-write").assert_outcomes(passed=3)
    assert (repo / "sub" / "base.json").is_file()
    pytester.runpytest(*args).assert_outcomes(passed=3)


@pytest.mark.parametrize(
    ("content", "args", "expected"),
    [
        (None, (READ,), f"*baseline *{BASELINE} does not exist: record today's findings *"),
        ("{\n  oops", (READ,), f"*baseline *{BASELINE}:2:3: not JSON: *"),
        ("[]", (READ,), "*: expected a JSON object at the top"),
        ('{"format": "x"}', (READ,), "*: `format` is not 'pytest-codeif baseline'*"),
        (
            '{"format": "pytest-codeif baseline", "version": 9, "findings": []}',
            (READ,),
            "*: version 9 is not 1, the version this pytest-codeif reads*",
        ),
        (
            '{"format": "pytest-codeif baseline", "version": 1, "findings": [{"task": 1}]}',
            (READ,),
            "*: findings[[]0[]].task_file: expected a string",
        ),
        (
            '{"format": "pytest-codeif baseline", "version": 1, "findings": [], "x": 1}',
            (READ,),
            "*: unknown key 'x' at the top",
        ),
        (None, ("--codeif-baseline-write",), "*--codeif-baseline-write needs --codeif-baseline=*"),
        (
            None,
            (*WRITE, "--codeif-changed-since=main"),
            "*--codeif-baseline-write records the findings of all the code, and cannot be *",
        ),
    ],
)
def test_one_clear_error(
    pytester: pytest.Pytester, content: str | None, args: tuple[str, ...], expected: str
) -> None:
    repo = copy_fixture(pytester)
    if content is not None:
        (repo / BASELINE).write_text(content)
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-codeif: {expected}"])
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert len([line for line in output.splitlines() if line.startswith("ERROR")]) == 1


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_changed_code_and_baseline_report_exactly_the_last_change(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository with history and a committed baseline: judged against main, only
    the violations the branch introduced are reported, however far its edits moved the
    old ones, whether whole files or changed lines count."""
    isolate_git(pytester, monkeypatch)
    repo = copy_fixture(pytester)
    (repo / ".gitignore").write_text(GITIGNORE)
    args = ("--codeif", "-p", "no:cacheprovider")
    pytester.runpytest(*args, *WRITE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the repository and its baseline")
    git(repo, "checkout", "-q", "-b", "feature")
    shift_and_rename(repo)
    services = repo / "app" / "services.py"
    edit(
        services, "from app.db import load\n", "from app.db import load\nfrom app.api import show\n"
    )
    services.write_text(services.read_text() + '\n\ndef shout() -> None:\n    print("shout")\n')
    git(repo, "commit", "-q", "-a", "-m", "the agent's change")
    expected = {
        "layers": ("violated", [("app/services.py", 8)]),
        "no-print": ("violated", [("app/services.py", 21)]),
        "db-typed": ("satisfied", []),
    }
    for extra in ((), ("--codeif-changed-lines",)):
        result = pytester.runpytest(*args, "--codeif-changed-since=main", READ, REPORT, *extra)
        result.assert_outcomes(passed=1, failed=2)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert outcomes(read_report(repo)) == expected

"""Issue 22.9: displayed paths are normalised, feedback says the rule's message once, no
"skipped: 0" line, report files get the mode ordinary files get, `codeif feedback` on a
file that is not a report is one clear error, and `codeif --version` exists."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from pytest_codeif.report.feedback import write_text
from pytest_codeif.report.figures.summary import GateFigures, Summary
from pytest_codeif.report.json_report import write_atomically
from pytest_codeif.report.terminal import gate_lines
from tests.test_changed_since import git, isolate_git

ONE_RULE = """\
tasks:
  - id: t
    code: |
      def loadData():
          return 1
    constraints:
      - check: naming
        function: snake_case
        message: Name functions in snake_case, as PEP 8 does.
"""
MESSAGE = "Name functions in snake_case, as PEP 8 does."


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_writes_respect_the_umask(tmp_path: Path, umask_022: None) -> None:
    write_atomically(tmp_path / "r.json", {"a": 1})
    write_text(tmp_path / "fb.md", "text\n")
    assert mode(tmp_path / "r.json") == 0o644
    assert mode(tmp_path / "fb.md") == 0o644
    os.umask(0o077)
    write_atomically(tmp_path / "private.json", {})
    assert mode(tmp_path / "private.json") == 0o600


def test_an_existing_file_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "baseline.json"
    target.write_text("{}")
    target.chmod(0o664)
    write_atomically(target, {"b": 2})
    assert mode(target) == 0o664 and json.loads(target.read_text()) == {"b": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["baseline.json"]  # no temporary left


def test_report_sarif_feedback_and_baseline_files_are_0644(
    pytester: pytest.Pytester, umask_022: None
) -> None:
    pytester.makefile(".codeif.yaml", rules=ONE_RULE)
    outputs = ("--codeif-report=r.json", "--codeif-sarif=r.sarif", "--codeif-feedback=fb.md")
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", *outputs)
    pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "--codeif-baseline=b.json", "--codeif-baseline-write"
    )
    for name in ("r.json", "r.sarif", "fb.md", "b.json"):
        assert mode(pytester.path / name) == 0o644, name


def test_paths_are_shown_normalised(pytester: pytest.Pytester) -> None:
    (pytester.path / "gunicorn.conf.py").write_text("def onStarting(server):\n    pass\n")
    (pytester.path / "bad").mkdir()
    (pytester.path / "bad" / "rules.codeif.yaml").write_text(
        "tasks:\n  - id: conf\n    directory: ..\n    constraints:\n"
        "      - check: naming\n        function: snake_case\n"
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*gunicorn.conf.py:1: [[]naming] function `onStarting`*"])
    assert "bad/../" not in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    (evidence,) = report["tasks"][0]["constraints"][0]["evidence"]
    assert evidence["path"] == "gunicorn.conf.py"


def test_feedback_says_the_message_once(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", rules=ONE_RULE)
    pytester.runpytest(
        "--codeif",
        "-p",
        "no:cacheprovider",
        "--codeif-feedback=fb.md",
        "--codeif-feedback=fb.jsonl",
    )
    (entry,) = [json.loads(line) for line in (pytester.path / "fb.jsonl").read_text().splitlines()]
    text = entry["text"]
    assert text.count(MESSAGE) == 1, text
    assert f"What to do: {MESSAGE}" in text
    assert "Asked: Identifiers of each kind follow a naming convention" in text
    assert (pytester.path / "fb.md").read_text().count("as PEP 8 does.") == 1  # escaped `_`


def test_no_skipped_line_when_nothing_was_skipped(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = isolate_git(pytester, monkeypatch)
    (repo / "app").mkdir()
    (repo / "app" / "mod.py").write_text("def load_data():\n    return 1\n")
    (repo / "rules.codeif.yaml").write_text(
        "tasks:\n  - id: app\n    directory: app\n    constraints:\n"
        "      - check: naming\n        function: snake_case\n"
    )
    (repo / ".gitignore").write_text("runpytest-*/\n__pycache__/\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app" / "mod.py").write_text("def load_data():\n    return 2\n")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-changed-since=main")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["not counted: 0 findings outside the changed code"])
    assert "skipped:" not in result.stdout.str()


def test_summary_gate_lines_omit_nothing_skipped() -> None:
    summary = Summary(gate=GateFigures(changed_only=True))
    assert not any(line.startswith("skipped") for line in gate_lines(summary))
    summary.constraints.skipped = 2
    assert "skipped: 2 constraints, no changed file in scope" in gate_lines(summary)


def codeif(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_codeif.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("not json at all\n", "not JSON: Expecting value at line 1, column 1"),
        ("\xff\xfe", "not UTF-8 text"),
        ('{"version": "2.1.0", "runs": [' + '{"x": 1}, ' * 500 + "{}]}", "$: "),
    ],
)
def test_feedback_on_a_file_that_is_not_a_report(tmp_path: Path, content: str, why: str) -> None:
    (tmp_path / "notes.txt").write_bytes(content.encode("latin-1"))
    done = codeif(tmp_path, "feedback", "notes.txt", "-o", "next.md")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"codeif feedback: notes.txt: not a pytest-codeif JSON report ({why}")
    assert len(line) < 250
    assert not (tmp_path / "next.md").exists()


def test_codeif_version(tmp_path: Path) -> None:
    done = codeif(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"codeif {version('pytest-codeif')}"

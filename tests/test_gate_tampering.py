"""A gate judges a change with rules the change cannot edit (`gate/pinned.py`).

On a real repository built here with git, with a committed rule file and baseline, the
workflow's gate step (`examples/ci/codeif-gate.yml`, run as written) judges a branch: a
clean change passes; a violating change fails, and no tampering of the branch (a
conftest.py emptying the items or setting the exit status, `addopts = -p no:codeif` in
pyproject.toml or pytest.ini, an edited rule file, a re-recorded baseline) makes it
pass. Each tampering is itself a finding (in the failures, the feedback, SARIF and the
annotations), which the baseline does not absorb and a threshold does not excuse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif.cli import gate_arguments, main
from pytest_codeif.report.json_report import SCHEMA_PATH
from tests.conftest import EXAMPLES
from tests.test_ci_example import git, shell, step

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

RULES = """\
tasks:
  - id: repo
    directory: app
    constraints:
      - {id: no-os, check: imports, forbid: [os], message: Use pathlib instead of os.}
"""
PYPROJECT = '[project]\nname = "shop"\nversion = "1.0"\ndependencies = []\n'
VIOLATION = {"app/new.py": "import os\n\n\ndef here() -> str:\n    return os.getcwd()\n"}
CLEAN = {"app/new.py": "from pathlib import Path\n\n\ndef here() -> Path:\n    return Path()\n"}
EMPTY_ITEMS = "def pytest_collection_modifyitems(items):\n    items.clear()\n"
EXIT_ZERO = (
    "import pytest\n\n\n@pytest.hookimpl(trylast=True)\n"
    "def pytest_sessionfinish(session):\n    session.exitstatus = 0\n"
)
NO_CODEIF_INI = "[pytest]\naddopts = -p no:codeif\n"
NO_CODEIF_TOML = PYPROJECT + '\n[tool.pytest.ini_options]\naddopts = "-p no:codeif"\n'


@pytest.fixture(autouse=True)
def fresh_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)


def record_baseline(repo: Path) -> None:
    """examples/ci/README.md's first step, as written."""
    notes = (EXAMPLES / "ci" / "README.md").read_text(encoding="utf-8")
    record = next(
        line.strip()
        for line in notes.splitlines()
        if line.strip().startswith("codeif gate") and "--codeif-baseline-write" in line
    )
    done = shell(repo, record)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`main`: a package with a legacy violation, the rules, and the baseline that
    accepts the legacy one."""
    repo = tmp_path_factory.mktemp("base") / "repo"
    repo.mkdir()
    env = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        (repo / "rules.codeif.yaml").write_text(RULES)
        (repo / "pyproject.toml").write_text(PYPROJECT)
        (repo / ".gitignore").write_text("codeif-out/\n.pytest_cache/\n__pycache__/\n")
        (repo / "app").mkdir()
        (repo / "app" / "__init__.py").write_text("")
        (repo / "app" / "legacy.py").write_text("import os\n\nHOME = os.sep\n")
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "the repository")
        record_baseline(repo)
        git(repo, "add", ".codeif-baseline.json")
        git(repo, "commit", "-q", "-m", "the baseline")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return repo


def branch(base: Path, tmp_path: Path, files: dict[str, str]) -> Path:
    """A clone of `main` with the branch `feature` committing `files`."""
    repo = tmp_path / "repo"
    shutil.copytree(base, repo)
    git(repo, "checkout", "-q", "-b", "feature")
    for name, text in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the agent's change")
    return repo


def run_gate(repo: Path, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The workflow's gate step as written (`origin/main` is `main` in this clone)."""
    script = step("Run the gate")["run"] + "".join(f" {arg}" for arg in extra)
    return shell(repo, script, CODEIF_BASE="main", **env)


def findings(repo: Path) -> set[tuple[str, str, int | None]]:
    """(constraint, file, line) of every finding that counts, from the JSON report."""
    report: dict[str, Any] = json.loads((repo / "codeif-out" / "report.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    return {
        (c["constraint"], e["path"], e["line"])
        for task in report["tasks"]
        for c in task["constraints"]
        for e in c["evidence"]
    }


def sarif_results(repo: Path) -> set[tuple[str, str, str | None]]:
    sarif = json.loads((repo / "codeif-out" / "codeif.sarif").read_text())
    return {
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r.get("baselineState"),
        )
        for r in sarif["runs"][0]["results"]
    }


def test_a_clean_change_passes(base_repo: Path, tmp_path: Path) -> None:
    repo = branch(base_repo, tmp_path, CLEAN)
    done = run_gate(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert findings(repo) == set()
    # The merge base's rules judged it, and nothing protected changed.
    assert "rules and baseline as the merge base holds them" in done.stdout
    assert "0 protected files changed" in done.stdout
    assert "WARNING" not in done.stdout


def test_a_clean_change_to_the_projects_metadata_passes(base_repo: Path, tmp_path: Path) -> None:
    """pyproject.toml is more than pytest's configuration: a new dependency is no
    tampering."""
    pyproject = PYPROJECT.replace("dependencies = []", 'dependencies = ["attrs"]')
    repo = branch(base_repo, tmp_path, {**CLEAN, "pyproject.toml": pyproject})
    done = run_gate(repo)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_violating_change_fails(base_repo: Path, tmp_path: Path) -> None:
    repo = branch(base_repo, tmp_path, VIOLATION)
    done = run_gate(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("no-os", "app/new.py", 1)}


TAMPERING = {
    "conftest-empties-items": ({"conftest.py": EMPTY_ITEMS}, "conftest", "conftest.py", 1),
    "conftest-exit-status-0": ({"conftest.py": EXIT_ZERO}, "conftest", "conftest.py", 1),
    "pyproject-addopts": ({"pyproject.toml": NO_CODEIF_TOML}, "config", "pyproject.toml", 6),
    "pytest-ini-addopts": ({"pytest.ini": NO_CODEIF_INI}, "config", "pytest.ini", 1),
    "rules-edited": (
        {"rules.codeif.yaml": RULES.replace("forbid: [os]", "forbid: [sys]")},
        "rules",
        "rules.codeif.yaml",
        5,
    ),
}


@pytest.mark.parametrize("name", list(TAMPERING))
def test_tampering_cannot_make_a_violating_change_pass(
    base_repo: Path, tmp_path: Path, name: str
) -> None:
    files, kind, path, line = TAMPERING[name]
    repo = branch(base_repo, tmp_path, {**VIOLATION, **files})
    done = run_gate(repo, GITHUB_ACTIONS="true")
    assert done.returncode == 1, done.stdout + done.stderr
    constraint = f"protected-{kind}"
    # The violation is judged by the merge base's rules, and the tampering is reported.
    assert findings(repo) == {("no-os", "app/new.py", 1), (constraint, path, line)}
    assert f"FAILED {path}::codeif-gate::{constraint}" in done.stdout
    assert "A person must review" in done.stdout
    assert sarif_results(repo) == {
        ("imports/no-os", "app/new.py", "new"),
        (f"gate/{constraint}", path, None),
    }
    assert f"::error file={path},line={line},title=codeif gate/{constraint} violated" in done.stdout
    feedback = [
        json.loads(x) for x in (repo / "codeif-out" / "feedback.jsonl").read_text().split("\n") if x
    ]
    assert {v["constraint"] for entry in feedback for v in entry["violations"]} == {
        "no-os",
        constraint,
    }


def test_modules_of_the_checkout_do_not_shadow_the_gates(base_repo: Path, tmp_path: Path) -> None:
    """`python -m` puts the current folder first on sys.path: not for the gate."""
    stop = "raise SystemExit(0)\n"
    repo = branch(base_repo, tmp_path, {**VIOLATION, "yaml.py": stop, "pytest.py": stop})
    done = run_gate(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("no-os", "app/new.py", 1)}


def test_a_re_recorded_baseline_accepts_nothing_new(base_repo: Path, tmp_path: Path) -> None:
    """The branch records its own violation into the baseline: the gate reads the
    baseline as the merge base holds it, and reports the edit; with the baseline in use,
    SARIF marks the edit `new` (never absorbed)."""
    repo = branch(base_repo, tmp_path, VIOLATION)
    record_baseline(repo)
    assert "app/new.py" in (repo / ".codeif-baseline.json").read_text()
    git(repo, "commit", "-q", "-a", "-m", "accept it")
    done = run_gate(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    found = findings(repo)
    assert ("no-os", "app/new.py", 1) in found
    assert {f[0] for f in found} == {"no-os", "protected-baseline"}
    [(_, path, _)] = [f for f in found if f[0] == "protected-baseline"]
    assert path == ".codeif-baseline.json"
    assert "the baseline .codeif-baseline.json was changed since main" in done.stdout


def test_a_conftest_beside_the_task_file_cannot_change_the_verdict(
    base_repo: Path, tmp_path: Path
) -> None:
    """Rules in a folder of their own, and the branch adds a conftest.py there."""
    shutil.copytree(base_repo, tmp_path / "base")
    base = tmp_path / "base"
    (base / "gate").mkdir()
    (base / "gate" / "rules.codeif.yaml").write_text(
        RULES.replace("directory: app", "directory: ../app")
    )
    git(base, "add", "-A")
    git(base, "commit", "-q", "-m", "rules in a folder")
    repo = branch(base, tmp_path / "b", {**VIOLATION, "gate/conftest.py": EXIT_ZERO + EMPTY_ITEMS})
    done = shell(
        repo,
        "codeif gate gate/rules.codeif.yaml --codeif-changed-since=main "
        "--codeif-report=codeif-out/report.json",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert {(c, os.path.normpath(p), line) for c, p, line in findings(repo)} == {
        ("no-os", "app/new.py", 1),
        ("protected-conftest", "gate/conftest.py", 1),
    }


def test_a_threshold_does_not_excuse_tampering(base_repo: Path, tmp_path: Path) -> None:
    repo = branch(base_repo, tmp_path, {**VIOLATION, "conftest.py": EMPTY_ITEMS})
    done = run_gate(repo, "--codeif-max-violations=5")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "codeif gate passed, but 1 other failure fails the run: exit status 1" in done.stdout


def test_an_unprotected_gate_run_is_told_so(base_repo: Path, tmp_path: Path) -> None:
    """The pre-`codeif gate` command: the conftest.py wins (it ran before the plugin),
    but the plugin still reports it and says what the invocation lacks."""
    repo = branch(base_repo, tmp_path, {**VIOLATION, "conftest.py": EMPTY_ITEMS})
    done = shell(
        repo,
        "python -m pytest --codeif rules.codeif.yaml --codeif-changed-since=main "
        "--codeif-baseline=.codeif-baseline.json --codeif-annotations",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED conftest.py::codeif-gate::protected-conftest" in done.stdout
    assert "WARNING: the change under judgement can switch this gate off" in done.stdout
    assert "it imports conftest.py files (no --noconftest)" in done.stdout
    assert "note: this run is not protected" in done.stdout
    assert "::warning title=codeif gate is not protected::" in done.stdout


def test_codeif_gate_refuses_what_would_undo_its_protection(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gate", "rules.codeif.yaml"]) == 4
    assert "give --codeif-changed-since=REF" in capsys.readouterr().err
    for undo in ("-c", "-cpytest.ini", "--config-file=x", "--rootdir=/", "--confcutdir=.."):
        assert isinstance(gate_arguments([undo, "--codeif-changed-since=main"]), str), undo
    argv = gate_arguments(["rules.codeif.yaml", "--codeif-changed-since", "origin/main"])
    assert isinstance(argv, list)
    assert argv[: argv.index("--codeif") + 1] == [
        "-p", "no:cacheprovider", "-p", "no:python", "-p", "no:doctest", "--noconftest",
        "-c", os.devnull, "--rootdir=.", "-p", "codeif", "--codeif",
    ]  # fmt: skip
    assert main(["gate", "--help"]) == 0
    assert "--noconftest" in capsys.readouterr().out
    assert sys.executable  # the console script runs in this interpreter's folder


def test_only_the_pytest_section_of_a_shared_configuration_file_counts() -> None:
    from pytest_codeif.gate.changes import parse_statuses
    from pytest_codeif.gate.pinned import _section

    assert parse_statuses(b"M\0a b.py\0D\0conftest.py\0A\0x/pytest.ini\0") == {
        "a b.py": "M",
        "conftest.py": "D",
        "x/pytest.ini": "A",
    }
    toml = b'[project]\nname = "x"\n'
    assert _section("pyproject.toml", toml) is None
    assert _section("pyproject.toml", toml + b'[tool.pytest.ini_options]\naddopts = "-x"\n') == {
        "ini_options": {"addopts": "-x"}
    }
    assert _section("pyproject.toml", b"[tool.pytest]\naddopts = ['-p', 'no:codeif']\n")
    assert _section("pyproject.toml", b"[[broken") == ("unreadable", b"[[broken")
    assert _section("tox.ini", b"[tox]\nenv_list = py\n") is None
    assert _section("tox.ini", b"[pytest]\naddopts = -p no:codeif\n") == {"addopts": "-p no:codeif"}
    assert _section("setup.cfg", b"[tool:pytest]\naddopts = -p no:codeif\n")
    assert _section("setup.cfg", b"[metadata]\nname = x\n") is None


def sarif_lines(repo: Path) -> dict[str, int | None]:
    """Each SARIF result's rule and start line."""
    sarif = json.loads((repo / "codeif-out" / "codeif.sarif").read_text())
    return {
        r["ruleId"]: r["locations"][0]["physicalLocation"].get("region", {}).get("startLine")
        for r in sarif["runs"][0]["results"]
    }


def feedback_constraints(repo: Path) -> set[str]:
    lines = (repo / "codeif-out" / "feedback.jsonl").read_text().split("\n")
    return {v["constraint"] for x in lines if x for v in json.loads(x)["violations"]}


def test_a_deleted_rule_file_still_judges_the_change(base_repo: Path, tmp_path: Path) -> None:
    """The branch deletes the rule file the gate names: pytest would refuse the missing
    argument (exit 4, nothing judged); the gate reads it as the merge base holds it, and
    the deletion is a finding on its line 1."""
    repo = branch(base_repo, tmp_path, VIOLATION)
    git(repo, "rm", "-q", "rules.codeif.yaml")
    git(repo, "commit", "-q", "-m", "no more rules")
    done = run_gate(repo, GITHUB_ACTIONS="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "file or directory not found" not in done.stdout + done.stderr
    assert findings(repo) == {
        ("no-os", "app/new.py", 1),
        ("protected-rules", "rules.codeif.yaml", 1),
    }
    assert "FAILED rules.codeif.yaml::codeif-gate::protected-rules" in done.stdout
    assert "the task file rules.codeif.yaml was deleted since main" in done.stdout
    assert sarif_lines(repo) == {"imports/no-os": 1, "gate/protected-rules": 1}
    assert "::error file=rules.codeif.yaml,line=1,title=codeif gate/protected-rules" in done.stdout
    assert feedback_constraints(repo) == {"no-os", "protected-rules"}


def test_a_rule_file_deleted_among_other_arguments(base_repo: Path, tmp_path: Path) -> None:
    """Named with another argument, and under pytest-xdist: each worker collects it."""
    repo = branch(base_repo, tmp_path, VIOLATION)
    (repo / "more.codeif.yaml").write_text(RULES.replace("id: repo", "id: more"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more rules")
    git(repo, "rm", "-q", "rules.codeif.yaml")
    git(repo, "commit", "-q", "-m", "no more rules")
    done = shell(
        repo,
        "codeif gate rules.codeif.yaml more.codeif.yaml --codeif-changed-since=main "
        "--codeif-report=codeif-out/report.json -n 2",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    # more.codeif.yaml was added by the change: it holds no task of the merge base's.
    assert findings(repo) == {
        ("no-os", "app/new.py", 1),
        ("protected-rules", "more.codeif.yaml", 1),
        ("protected-rules", "rules.codeif.yaml", 1),
    }


def test_a_rule_removed_from_the_rule_file_is_a_finding_on_a_line(
    base_repo: Path, tmp_path: Path
) -> None:
    """An edit that only removes lines adds none: the finding is placed where they were
    removed (the line they followed), so SARIF has a startLine and the annotation a line."""
    more = (
        "  - id: more\n    directory: app\n    constraints:\n"
        "      - {id: no-sys, check: imports, forbid: [sys]}\n"
    )
    base = branch(base_repo, tmp_path / "base", {"rules.codeif.yaml": RULES + more})
    git(base, "branch", "-q", "-f", "main", "HEAD")
    git(base, "checkout", "-q", "main")
    git(base, "branch", "-q", "-D", "feature")
    repo = branch(base, tmp_path / "b", {**VIOLATION, "rules.codeif.yaml": RULES})
    done = run_gate(repo, GITHUB_ACTIONS="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {
        ("no-os", "app/new.py", 1),
        ("protected-rules", "rules.codeif.yaml", 5),
    }
    assert sarif_lines(repo) == {"imports/no-os": 1, "gate/protected-rules": 5}
    assert "::error file=rules.codeif.yaml,line=5,title=codeif gate/protected-rules" in done.stdout


def test_the_first_changed_line_of_a_diff() -> None:
    from pytest_codeif.gate.changes import first_hunk_line

    head = b"diff --git a/r.yaml b/r.yaml\n--- a/r.yaml\n+++ b/r.yaml\n"
    assert first_hunk_line(head + b"@@ -3 +3 @@\n-a\n+b\n@@ -9,0 +10,2 @@\n+c\n+d\n") == 3
    assert first_hunk_line(head + b"@@ -6,4 +5,0 @@\n-x\n-y\n-z\n-w\n") == 5
    assert first_hunk_line(head + b"@@ -1,2 +0,0 @@\n-x\n-y\n") == 1  # removed at the top
    assert first_hunk_line(b"diff --git a/x b/x\nold mode 100644\nnew mode 100755\n") == 1
    assert first_hunk_line(b"") == 1

"""The CI example cannot rot: `examples/ci/codeif-gate.yml` parses, does what its notes
say, uses only options the plugin has, and its gate command runs as written on a real
git repository with a base branch and a baseline; `.pre-commit-hooks.yaml` carries what
pre-commit requires and its hook runs."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO

WORKFLOW = EXAMPLES / "ci" / "codeif-gate.yml"
HOOKS = REPO / ".pre-commit-hooks.yaml"
#: The keys pre-commit requires of a hook in `.pre-commit-hooks.yaml`, and the languages
#: it knows (pre-commit's `clientlib.py` and docs).
HOOK_REQUIRED = ("id", "name", "entry", "language")
HOOK_LANGUAGES = {
    "conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang",
    "haskell", "julia", "lua", "node", "perl", "pygrep", "python", "r", "ruby", "rust",
    "swift", "script", "system", "unsupported", "unsupported_script",
}  # fmt: skip
_OPTION = re.compile(r"--codeif-[a-z-]+")


def workflow() -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def steps() -> list[dict[str, Any]]:
    jobs = workflow()["jobs"]
    assert list(jobs) == ["gate"]
    found: list[dict[str, Any]] = jobs["gate"]["steps"]
    return found


def step(name: str) -> dict[str, Any]:
    return next(s for s in steps() if s.get("name") == name)


def uses(action: str) -> dict[str, Any]:
    return next(s for s in steps() if str(s.get("uses", "")).startswith(action + "@"))


def gate_command() -> list[str]:
    """The gate step's command, split as the shell splits it (variables left as is)."""
    return shlex.split(step("Run the gate")["run"])


def hooks() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def pytest_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return done.stdout


def test_the_workflow_runs_the_gate_on_pull_requests_against_the_base_branch() -> None:
    data = workflow()
    # PyYAML reads the key `on` as YAML 1.1's boolean true.
    assert "pull_request" in data.get("on", data.get(True))
    assert data["permissions"]["security-events"] == "write"
    assert data["permissions"]["contents"] == "read"
    assert uses("actions/checkout")["with"]["fetch-depth"] == 0
    gate = step("Run the gate")
    assert gate["env"]["CODEIF_BASE"] == "origin/${{ github.base_ref }}"
    command = gate_command()
    assert command[:2] == ["codeif", "gate"]  # protected from the change: test_gate_tampering
    assert "--codeif-changed-since=$CODEIF_BASE" in command
    assert "--codeif-baseline=.codeif-baseline.json" in command
    assert any(arg.startswith("--junitxml=") for arg in command)


def test_sarif_is_uploaded_and_the_feedback_is_the_job_summary() -> None:
    command = gate_command()
    sarif = next(a.split("=", 1)[1] for a in command if a.startswith("--codeif-sarif="))
    upload = uses("github/codeql-action/upload-sarif")
    assert upload["with"]["sarif_file"] == sarif
    assert "always()" in upload["if"]
    feedback = [a.split("=", 1)[1] for a in command if a.startswith("--codeif-feedback=")]
    markdown = [path for path in feedback if not path.endswith(".jsonl")]
    assert markdown and any(path.endswith(".jsonl") for path in feedback)
    summary = step("Feedback as the job summary")
    assert summary["if"] == "always()"
    assert f'cat {markdown[0]} >> "$GITHUB_STEP_SUMMARY"' in summary["run"]


def test_every_codeif_option_of_the_examples_exists(pytest_help: str) -> None:
    texts = [WORKFLOW.read_text(encoding="utf-8"), HOOKS.read_text(encoding="utf-8")]
    texts.append((EXAMPLES / "ci" / "README.md").read_text(encoding="utf-8"))
    used = {option for text in texts for option in _OPTION.findall(text)}
    assert {"--codeif-changed-since", "--codeif-sarif", "--codeif-feedback"} <= used
    known = set(_OPTION.findall(pytest_help))
    assert used <= known, f"options the plugin does not have: {sorted(used - known)}"


def test_the_pre_commit_hook_has_what_pre_commit_requires() -> None:
    [hook] = hooks()
    for key in HOOK_REQUIRED:
        assert isinstance(hook.get(key), str) and hook[key], key
    assert hook["id"] == "codeif"
    assert hook["language"] == "python" and hook["language"] in HOOK_LANGUAGES
    assert hook["pass_filenames"] is False
    assert shlex.split(hook["entry"])[:2] == ["pytest", "--codeif"]
    assert all(isinstance(arg, str) for arg in hook["args"])
    assert hook["args"][0].endswith(".codeif.yaml")
    allowed = {
        *HOOK_REQUIRED, "alias", "files", "exclude", "types", "types_or", "exclude_types",
        "additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames",
        "description", "language_version", "log_file", "minimum_pre_commit_version",
        "require_serial", "stages", "verbose",
    }  # fmt: skip
    assert set(hook) <= allowed


def test_the_pre_commit_hook_runs_as_written(pytester: pytest.Pytester) -> None:
    """pre-commit runs `entry` with `args` appended, from the repository's root."""
    [hook] = hooks()
    (pytester.path / hook["args"][0]).write_text(
        "tasks:\n  - id: repo\n    directory: app\n    constraints:\n"
        "      - {check: imports, forbid: [os], message: Use pathlib.}\n"
    )
    (pytester.path / "app").mkdir()
    (pytester.path / "app" / "main.py").write_text("import os\n")
    argv = [*shlex.split(hook["entry"]), *hook["args"], "-p", "no:cacheprovider"]
    assert argv[0] == "pytest"
    result = pytester.run(sys.executable, "-m", *argv)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*app/main.py:1: [[]imports[]] imports `os`*", "*1 failed*"])


# -- the gate command, run as written on a repository with history -------------------

GIT = ("-c", "user.name=ci example", "-c", "user.email=ci@codeif.invalid")
GIT += ("-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null")
RULES = """
tasks:
  - id: repo
    directory: app
    constraints:
      - {id: no-os, check: imports, forbid: [os], message: Use pathlib instead of os.}
      - {id: no-print, check: pattern, pattern: print(...)}
      - {id: layers, check: layers, layers: [app.api, app.db], files: [api.py, db.py]}
"""


def git(repo: Path, *args: str) -> None:
    done = subprocess.run(
        ["git", "-C", str(repo), *GIT, *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def shell(repo: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A workflow step's script, as Actions runs it (bash), with `python` this Python."""
    python = shlex.quote(str(Path(sys.executable).parent))
    environment = {**os.environ, **env}
    return subprocess.run(
        ["bash", "-c", f"export PATH={python}:$PATH\n{script}"],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_gate_step_runs_as_written(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(pytester.path.parent))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    repo = pytester.path
    (repo / "rules.codeif.yaml").write_text(RULES)
    (repo / ".gitignore").write_text("codeif-out/\n.pytest_cache/\n__pycache__/\n")
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("")
    (repo / "app" / "legacy.py").write_text('import os\n\nprint("old")\n')
    (repo / "app" / "api.py").write_text("def show() -> None:\n    pass\n")
    (repo / "app" / "db.py").write_text("def load() -> None:\n    pass\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the repository as it was")
    # The README's first step: record the baseline, and commit it.
    notes = (EXAMPLES / "ci" / "README.md").read_text(encoding="utf-8")
    record = next(
        line.strip()
        for line in notes.splitlines()
        if line.strip().startswith("codeif gate") and "--codeif-baseline-write" in line
    )
    done = shell(repo, record)
    assert done.returncode == 0, done.stdout + done.stderr
    git(repo, "add", ".codeif-baseline.json")
    git(repo, "commit", "-q", "-m", "the baseline")

    # The agent's change, on a branch: a new module printing and importing os.
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app" / "new.py").write_text('import os\n\n\ndef hello() -> None:\n    print("hi")\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the agent's change")

    # The workflow's gate step, as written; `origin/main` is `main` in this clone.
    gate = shell(repo, step("Run the gate")["run"], CODEIF_BASE="main")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    out = repo / "codeif-out"
    for name in ("codeif.sarif", "feedback.md", "feedback.jsonl", "report.json", "junit.xml"):
        assert (out / name).is_file(), name

    # Only the change counts: the legacy module's findings are absorbed or unchanged.
    [entry] = [json.loads(line) for line in (out / "feedback.jsonl").read_text().splitlines()]
    found = {
        (v["constraint"], f["path"], f["line"]) for v in entry["violations"] for f in v["findings"]
    }
    assert found == {("no-os", "app/new.py", 1), ("no-print", "app/new.py", 5)}
    # `layers` is judged though none of its files changed: an import contract's chain
    # may run through any changed module (new.py here), and it keeps.
    assert entry["counts"]["skipped"] == 0
    assert entry["counts"]["satisfied"] == 1
    no_os = next(v for v in entry["violations"] if v["constraint"] == "no-os")
    assert no_os["what_to_do"] == "Use pathlib instead of os."

    # The job-summary step appends the Markdown feedback.
    summary = repo / "summary.md"
    summary.write_text("earlier steps' summary\n")
    done = shell(repo, step("Feedback as the job summary")["run"], GITHUB_STEP_SUMMARY=str(summary))
    assert done.returncode == 0, done.stderr
    text = summary.read_text()
    assert text.startswith("earlier steps' summary\n**pytest-codeif:** 2 constraints violated")
    assert "`app/new.py:1`" in text and "legacy" not in text
    sarif = json.loads((out / "codeif.sarif").read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
        if r.get("baselineState") == "new"
    }
    assert uris == {"app/new.py"}

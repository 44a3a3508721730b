"""`--codeif-changed-since=REF` and `--codeif-changed-lines`: on real git repositories
(built here with git), only the findings in the code changed since the merge base with
REF count, constraints whose scope holds no changed file are skipped with the reason,
and a folder that is not a repository or an unknown ref is one clear error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.gate.changes import (
    GitError,
    find_changes,
    parse_name_status,
    parse_patch,
    unquote_path,
)
from pytest_codeif.report.json_report import SCHEMA_PATH
from tests.conftest import FIXTURES, CodeifRunner
from tests.test_sarif import validate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: Every commit made here: a fixed identity, no signing, no hooks of the user's.
_GIT_CONFIG = (
    "-c",
    "user.name=codeif tests",
    "-c",
    "user.email=tests@codeif.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.hooksPath=/dev/null",
)
#: What the tests' runs write in the repository, which is not code under evaluation.
GITIGNORE = "out/\nrunpytest-*/\n.pytest_cache/\n__pycache__/\n"
REPORT = "--codeif-report=out/r.json"


def git(repo: Path, *args: str) -> str:
    """Run git in `repo`; the test fails with git's message if git does."""
    done = subprocess.run(
        ["git", "-C", str(repo), *_GIT_CONFIG, *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture
def git_env(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The pytester folder, where git runs as on a fresh machine (`isolate_git`)."""
    return isolate_git(pytester, monkeypatch)


def isolate_git(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Git as on a fresh machine: no user or system configuration, no repository above
    the pytester folder, nothing inherited from a git hook running this suite."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(pytester.path.parent))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        monkeypatch.delenv(name, raising=False)
    return pytester.path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def commit_fixture(repo: Path) -> None:
    """fixtures/gate committed on `main`: its findings are the repository's past."""
    shutil.copytree(FIXTURES / "gate", repo, dirs_exist_ok=True)
    (repo / ".gitignore").write_text(GITIGNORE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the repository as it was")


def change_on_a_branch(repo: Path) -> None:
    """On branch `feature`: a commit breaking `layers` and `no-print` on new lines of
    services.py (whose old `print` stays on an unchanged line), renaming helpers.py
    (its old `print` with it) and deleting old.py; then a staged new file, an unstaged
    change and an untracked file, each with a `print`. db.py, api.py: untouched."""
    git(repo, "checkout", "-q", "-b", "feature")
    services = repo / "app" / "services.py"
    edit(
        services, "from app.db import load\n", "from app.api import show\nfrom app.db import load\n"
    )
    services.write_text(
        services.read_text() + '\n\ndef shout(xs: list[int]) -> None:\n    print("shout", xs)\n'
    )
    git(repo, "mv", "app/helpers.py", "app/tools.py")
    git(repo, "rm", "-q", "app/old.py")
    git(repo, "commit", "-q", "-a", "-m", "the agent's change")
    (repo / "app" / "staged.py").write_text('print("staged")\n')
    git(repo, "add", "app/staged.py")
    (repo / "app" / "__init__.py").write_text('print("unstaged")\n')
    (repo / "app" / "extra.py").write_text('"""Untracked."""\n\nprint("untracked")\n')


def read_report(repo: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads((repo / "out" / "r.json").read_text())
    import jsonschema

    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    return report


def outcomes(report: dict[str, Any]) -> dict[str, tuple[str, list[tuple[str, int | None]]]]:
    """Each constraint's status and the (file, line) of every finding that counts."""
    (task,) = report["tasks"]
    return {
        c["constraint"]: (c["status"], [(e["path"], e["line"]) for e in c["evidence"]])
        for c in task["constraints"]
    }


def merge_base(repo: Path) -> str:
    return git(repo, "merge-base", "main", "HEAD").strip()[:7]


def test_only_the_changed_files_count(run_codeif: CodeifRunner, git_env: Path) -> None:
    repo = git_env
    commit_fixture(repo)
    change_on_a_branch(repo)
    result = run_codeif("--codeif-changed-since=main", REPORT, "--codeif-sarif=out/r.sarif", "-rs")
    result.assert_outcomes(failed=2, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    base = merge_base(repo)
    reason = f"no file in this constraint's scope changed since main (merge base {base})"
    result.stdout.fnmatch_lines(
        [
            f"SKIPPED [1] gate.codeif.yaml:16: {reason}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "note: 1 finding outside the files changed since main (merge base *) not counted",
            "skipped: 1 constraint, no changed file in scope",
            "not counted: 1 finding outside the changed code",
        ]
    )
    report = read_report(repo)
    # The untouched api.py's print does not count; the changed files' all do (the old
    # print of services.py and of the renamed tools.py included); old.py is deleted.
    assert outcomes(report) == {
        "layers": ("violated", [("app/services.py", 3)]),
        "no-print": (
            "violated",
            [
                ("app/__init__.py", 1),
                ("app/extra.py", 3),
                ("app/services.py", 8),
                ("app/services.py", 17),
                ("app/staged.py", 1),
                ("app/tools.py", 5),
            ],
        ),
        "db-typed": ("skipped", []),
    }
    (task,) = report["tasks"]
    skipped = next(c for c in task["constraints"] if c["constraint"] == "db-typed")
    assert skipped["gate"] == {"skipped": reason}
    summary = report["summary"]
    assert summary["constraints"] == {
        "satisfied": 0,
        "violated": 2,
        "errors": 0,
        "total": 2,
        "rate": 0.0,
        "skipped": 1,
    }
    assert summary["by_check"]["public-api"]["skipped"] == 1
    assert summary["by_check"]["public-api"]["rate"] is None
    assert summary["gate"]["outside_changes"] == 1
    sarif = json.loads((repo / "out" / "r.sarif").read_text())
    validate(sarif)
    located = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in sarif["runs"][0]["results"]
    ]
    assert located == [("app/services.py", 3)] + outcomes(report)["no-print"][1]


def test_only_the_changed_lines_count(pytester: pytest.Pytester, git_env: Path) -> None:
    repo = git_env
    commit_fixture(repo)
    change_on_a_branch(repo)
    result = pytester.runpytest(
        "--codeif",
        "-p",
        "no:cacheprovider",
        "--codeif-changed-since=main",
        "--codeif-changed-lines",
        REPORT,
    )
    result.assert_outcomes(failed=2, skipped=1)
    result.stdout.fnmatch_lines(
        ["note: 2 findings outside the lines changed since main (merge base *) not counted"]
    )
    # Exactly what the change added: services.py's new lines, and every line of the
    # staged, unstaged and untracked files, and of the renamed tools.py (no rename
    # detection: a file moved into the judged code brings every line); not the old
    # prints that moved within services.py.
    assert outcomes(read_report(repo)) == {
        "layers": ("violated", [("app/services.py", 3)]),
        "no-print": (
            "violated",
            [
                ("app/__init__.py", 1),
                ("app/extra.py", 3),
                ("app/services.py", 17),
                ("app/staged.py", 1),
                ("app/tools.py", 5),
            ],
        ),
        "db-typed": ("skipped", []),
    }


def test_findings_outside_the_change_do_not_fail(pytester: pytest.Pytester, git_env: Path) -> None:
    """A change to services.py that breaks nothing: its old print, on an unchanged line,
    no longer makes no-print violated; the verdict says what it did not count."""
    repo = git_env
    commit_fixture(repo)
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo / "app" / "services.py", "return len(xs)", "return len(list(xs))")
    git(repo, "commit", "-q", "-a", "-m", "harmless")
    args = ("--codeif", "-p", "no:cacheprovider", "--codeif-changed-since=main", REPORT)
    lines = pytester.runpytest(*args, "--codeif-changed-lines", "--codeif-fail-under=1.0")
    lines.assert_outcomes(passed=2, skipped=1)
    assert lines.ret == pytest.ExitCode.OK
    lines.stdout.fnmatch_lines(
        ["pass constraint rate 100.0% (2/2; 1 skipped) reaches the required 100.0%"]
    )
    found = outcomes(read_report(repo))
    assert found["no-print"] == ("satisfied", [])
    (task,) = read_report(repo)["tasks"]
    no_print = next(c for c in task["constraints"] if c["constraint"] == "no-print")
    # api.py, helpers.py and old.py did not change; services.py's print is on an old line.
    assert no_print["notes"] == [
        f"4 findings outside the lines changed since main (merge base {merge_base(repo)}) "
        "not counted"
    ]
    assert no_print["gate"] == {"outside_changes": 4}
    # Whole files: services.py changed, so its old print counts again.
    files = pytester.runpytest(*args)
    files.assert_outcomes(passed=1, failed=1, skipped=1)
    assert outcomes(read_report(repo))["no-print"] == ("violated", [("app/services.py", 7)])


def test_nothing_changed_in_any_scope(pytester: pytest.Pytester, git_env: Path) -> None:
    """Only a README changed: every constraint is skipped, none is counted, the run
    passes, and so does a rate threshold (there was nothing to judge)."""
    repo = git_env
    commit_fixture(repo)
    git(repo, "checkout", "-q", "-b", "docs")
    (repo / "README.md").write_text("# docs only\n")
    result = pytester.runpytest(
        "--codeif",
        "-p",
        "no:cacheprovider",
        "--codeif-changed-since=main",
        REPORT,
        "--codeif-fail-under=tasks:0.9",
    )
    result.assert_outcomes(skipped=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "skipped: 3 constraints, no changed file in scope",
            "pass task rate (all constraints): no outcomes to rate (1 skipped: nothing changed)",
            "codeif gate passed*",
        ]
    )
    summary = read_report(repo)["summary"]
    assert summary["constraints"]["total"] == 0
    assert summary["constraints"]["skipped"] == 3
    assert summary["tasks_all_constraints"] == {
        "satisfied": 0,
        "violated": 0,
        "errors": 0,
        "total": 0,
        "rate": None,
        "skipped": 1,
    }
    assert summary["tasks_strict"]["skipped"] == 1


INLINE = """
tasks:
  - id: inline
    code: |
      def f(xs):
          print(xs)
          return xs
    constraints:
      - {check: pattern, id: no-print, pattern: print(...)}
"""


def test_inline_code_counts_the_task_files_changed_lines(
    pytester: pytest.Pytester, git_env: Path
) -> None:
    """Inline code lives in the task file: its findings are placed at the task file's
    lines, which are what changed (or not)."""
    repo = git_env
    pytester.makefile(".codeif.yaml", tasks=INLINE)
    (repo / ".gitignore").write_text(GITIGNORE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "inline")
    edit(repo / "tasks.codeif.yaml", "      return xs\n", "      print('again')\n      return xs\n")
    args = ("--codeif", "-p", "no:cacheprovider", "--codeif-changed-since=HEAD", REPORT)
    lines = pytester.runpytest(*args, "--codeif-changed-lines")
    lines.assert_outcomes(failed=1)
    assert outcomes(read_report(repo)) == {"no-print": ("violated", [("tasks.codeif.yaml", 6)])}
    files = pytester.runpytest(*args)
    files.assert_outcomes(failed=1)
    assert outcomes(read_report(repo)) == {
        "no-print": ("violated", [("tasks.codeif.yaml", 5), ("tasks.codeif.yaml", 6)])
    }


def test_rootdir_below_the_repository_root(pytester: pytest.Pytester, git_env: Path) -> None:
    """Report paths are relative to pytest's rootdir (a sub-folder here), git's to the
    repository's root: they are compared as the same files."""
    repo = git_env
    sub = repo / "sub"
    shutil.copytree(FIXTURES / "gate", sub)
    (sub / "pytest.ini").write_text("[pytest]\n")
    (repo / ".gitignore").write_text(GITIGNORE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (sub / "app" / "extra.py").write_text('print("new")\n')
    result = pytester.runpytest(
        "--codeif",
        "-p",
        "no:cacheprovider",
        "--codeif-changed-since=main",
        REPORT,
        "sub",
    )
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    assert outcomes(read_report(repo))["no-print"] == ("violated", [("app/extra.py", 1)])


@pytest.mark.parametrize(
    ("setup", "args", "expected"),
    [
        (
            "none",
            ("--codeif-changed-since=main",),
            "ERROR: pytest-codeif: --codeif-changed-since=main: * is not inside a git "
            "repository (fatal: not a git repository*",
        ),
        (
            "repo",
            ("--codeif-changed-since=origin/nope",),
            "ERROR: pytest-codeif: --codeif-changed-since=origin/nope: unknown git ref "
            "'origin/nope' in *: name a branch, tag or commit*",
        ),
        (
            "repo",
            ("--codeif-changed-since=--output=x",),
            "ERROR: pytest-codeif: --codeif-changed-since=--output=x: '--output=x' is not a "
            "git ref*",
        ),
        (
            "orphan",
            ("--codeif-changed-since=main",),
            "ERROR: pytest-codeif: --codeif-changed-since=main: 'main' and HEAD have no "
            "common ancestor in * (a shallow clone?*",
        ),
        (
            "repo",
            ("--codeif-changed-lines",),
            "ERROR: pytest-codeif: --codeif-changed-lines needs --codeif-changed-since=REF",
        ),
    ],
)
def test_one_clear_error(
    pytester: pytest.Pytester, git_env: Path, setup: str, args: tuple[str, ...], expected: str
) -> None:
    repo = git_env
    shutil.copytree(FIXTURES / "gate", repo, dirs_exist_ok=True)
    if setup != "none":
        commit_fixture_in_place(repo)
    if setup == "orphan":
        git(repo, "checkout", "-q", "--orphan", "unrelated")
        git(repo, "commit", "-q", "-m", "no common history")
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert len([line for line in output.splitlines() if line.startswith("ERROR")]) == 1


def commit_fixture_in_place(repo: Path) -> None:
    (repo / ".gitignore").write_text(GITIGNORE)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")


def test_git_missing_is_one_clear_error(pytester: pytest.Pytester, git_env: Path) -> None:
    shutil.copytree(FIXTURES / "gate", git_env, dirs_exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", str(git_env / "no-such-folder"))
        result = pytester.runpytest(
            "--codeif", "-p", "no:cacheprovider", "--codeif-changed-since=main"
        )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: pytest-codeif: --codeif-changed-since=main: git is not installed here*"]
    )


def test_awkward_file_names_renames_and_deletions(git_env: Path) -> None:
    """Names with spaces, tabs, quotes and non-ASCII letters; a renamed file with a space;
    a deleted file; a content line that looks like a patch header."""
    repo = git_env
    names = ["with space.py", 'tab\tand "quote".py', "café.py", "gone.py", "moved from.py"]
    body = {name: "".join(f"{name[:3]}_{i} = {i}\n" for i in range(8)) for name in names}
    for name in names:
        (repo / name).write_text(body[name])
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for name in names[:3]:
        (repo / name).write_text(body[name] + "++ c\n")  # `+++ c` in the patch
    git(repo, "rm", "-q", "gone.py")
    git(repo, "mv", "moved from.py", "moved to.py")
    (repo / "moved to.py").write_text(body["moved from.py"].replace("= 1\n", "= 100\n"))
    (repo / "new file.py").write_text("x = 1\n")
    changes = find_changes(repo, "main", lines=True)
    assert changes.files == {
        "with space.py",
        'tab\tand "quote".py',
        "café.py",
        "moved to.py",
        "new file.py",
    }
    assert changes.untracked == {"new file.py"}
    # No rename detection: the moved file is new, every line of it changed.
    assert changes.lines == {
        "with space.py": frozenset({9}),
        'tab\tand "quote".py': frozenset({9}),
        "café.py": frozenset({9}),
        "moved to.py": frozenset(range(1, 9)),
    }
    assert changes.has_line("moved to.py", 2)
    assert changes.has_line("moved to.py", 1)
    assert changes.has_line("new file.py", 99)  # an untracked file: every line
    assert changes.has_line("café.py", None)  # no line: its file changed
    assert not changes.has_file("gone.py")
    assert not changes.has_file("../elsewhere.py")
    assert changes.has_file(repo / "with space.py")
    with pytest.raises(GitError, match="unknown git ref"):
        find_changes(repo, "nope")


def test_patch_parsing() -> None:
    patch = b"\n".join(
        [
            b"diff --git a/x.py b/x.py",
            b"index 1..2 100644",
            b"--- a/x.py",
            b"+++ b/x.py",
            b"@@ -1,2 +1,3 @@ def f():",
            b"-old",
            b"-old",
            b"+++ new, not a header",
            b"+new",
            b"+new",
            b"\\ No newline at end of file",
            b"@@ -10 +11,0 @@",
            b"-deleted only",
            b"@@ -20,0 +21 @@",
            b"+added",
            b'diff --git "a/sp ace\\303\\251.py" "b/sp ace\\303\\251.py"',
            b'+++ "b/sp ace\\303\\251.py"\t',
            b"@@ -0,0 +1 @@",
            b"+x",
            b"diff --git a/sp ace.py b/sp ace.py",
            b"+++ b/sp ace.py\t",
            b"@@ -1 +1 @@",
            b"-a",
            b"+b",
            b"diff --git a/gone.py b/gone.py",
            b"--- a/gone.py",
            b"+++ /dev/null",
            b"@@ -1 +0,0 @@",
            b"-gone",
            b"",
        ]
    )
    assert parse_patch(patch) == {"x.py": {1, 2, 3, 21}, "sp aceé.py": {1}, "sp ace.py": {1}}
    assert unquote_path(b'"a\\tb\\"c\\\\d\\101"') == b'a\tb"c\\dA'
    assert unquote_path(b"plain") == b"plain"
    status = b"M\0a.py\0R087\0old.py\0new name.py\0D\0gone.py\0C100\0src.py\0copy.py\0A\0added.py\0"
    assert parse_name_status(status) == {"a.py", "new name.py", "copy.py", "added.py"}

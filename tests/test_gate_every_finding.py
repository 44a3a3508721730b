"""Under the gate, every finding a check makes is sorted by changed code and baseline,
however many there are (#22): a check never stops at a number of findings nor puts a
summary finding ("10 more matches not shown") in place of the rest, which the baseline
would absorb while a new finding hid behind it. Built on real git repositories with
many legacy violations and a committed baseline; the change adds one more."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_changed_since import GITIGNORE, REPORT, git, isolate_git, outcomes, read_report

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BASELINE = "codeif-baseline.json"
READ = f"--codeif-baseline={BASELINE}"
ARGS = ("--codeif", "-p", "no:cacheprovider")
LEGACY = 60

RULES = """\
tasks:
  - id: app
    directory: app
    constraints:
      - {id: no-print, check: pattern, pattern: print(...), message: Log instead.}
      - {id: few-comments, check: comments, max-comments: 0, message: No comments.}
      - {id: kw-only, check: pattern, pattern: "def $F(*, ...): ...", message: Positional.}
"""
#: The repository's past: LEGACY prints, each with a comment, none keyword-only.
LEGACY_CODE = "".join(f"print({i})  # legacy {i}\n" for i in range(LEGACY)) + (
    "\n\ndef b(x: int) -> int:\n    return x\n"
)


def repository(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`main`: the legacy code, the rules and the baseline recorded from them."""
    repo = isolate_git(pytester, monkeypatch)
    (repo / ".gitignore").write_text(GITIGNORE)
    (repo / "rules.codeif.yaml").write_text(RULES)
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("")
    (repo / "app" / "legacy.py").write_text(LEGACY_CODE)
    written = pytester.runpytest(*ARGS, READ, "--codeif-baseline-write")
    assert written.ret == pytest.ExitCode.OK, written.stdout.str()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the repository and its baseline")
    return repo


def test_legacy_findings_are_all_recorded_and_all_absorbed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(pytester, monkeypatch)
    text = (repo / BASELINE).read_text()
    assert "not shown" not in text
    assert text.count('"constraint": "no-print"') == LEGACY
    assert text.count('"constraint": "few-comments"') == LEGACY
    assert '"constraint": "kw-only"' not in text  # `def b(x: int)` has no keyword-only one
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app" / "legacy.py").write_text(LEGACY_CODE + "\nVALUE = 1\n")
    git(repo, "commit", "-q", "-a", "-m", "an innocent change")
    result = pytester.runpytest(*ARGS, "--codeif-changed-since=main", READ)
    result.assert_outcomes(passed=3)


@pytest.mark.parametrize("where", ["app/zz_new.py", "app/legacy.py"])
def test_one_more_match_past_many_fails_the_gate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    repo = repository(pytester, monkeypatch)
    git(repo, "checkout", "-q", "-b", "feature")
    target = repo / where
    before = target.read_text() if target.exists() else ""
    target.write_text(before + 'print("new")  # new\n\n\ndef c(*, x: int) -> int:\n    return x\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the agent's change")
    line = before.count("\n") + 1
    for extra in ((), ("--codeif-changed-lines",)):
        result = pytester.runpytest(*ARGS, "--codeif-changed-since=main", READ, REPORT, *extra)
        result.assert_outcomes(failed=3)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert outcomes(read_report(repo)) == {
            "no-print": ("violated", [(where, line)]),
            "few-comments": ("violated", [(where, line)]),
            "kw-only": ("violated", [(where, line + 3)]),
        }

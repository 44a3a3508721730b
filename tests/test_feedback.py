"""`--codeif-feedback` and `codeif feedback`: per task, what was asked, what was found,
where (in the code's own files and lines) and what to do, as Markdown for a person and
JSONL for a program; the same with and without pytest-xdist, and from a saved report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import advice_of
from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.records import Record
from pytest_codeif.report.feedback import (
    MAX_MD_FINDINGS,
    MAX_MD_ITEMS,
    code_lines,
    code_span,
    entries,
    feedback_format,
    file_lines,
    inline,
    options_summary,
    render,
)
from pytest_codeif.report.records import FUNCTIONAL_ADVICE
from tests.conftest import CodeifRunner

SOLUTION = "import os\n\n\ndef area(w, h):\n    return w * h\n"

TASKS = """
tasks:
  - id: inline
    instruction: Write fib(n) recursively, without loops.
    metadata: {model: gpt-4o, sample: 0, round: 0}
    code: |
      def fib(n):
          a, b = 0, 1
          for _ in range(n):
              a, b = b, a + b
          return a
    constraints:
      - {check: construct, id: recursive, function: fib, require: [recursion]}
      - {check: naming, function: snake_case}
    tests:
      - {call: fib(10), expect: 56}
  - id: answer
    response: |
      Sure! Here is the code:

      ```python
      def total(xs):
          s = 0
          for x in xs:
              s += x
          return s
      ```
    constraints:
      - {check: construct, id: no-loop, forbid: [loop]}
  - id: project
    directory: pkg
    constraints:
      - check: ruff
        id: unused
        select: [F401]
        message: Remove the imports you do not use.
      - {check: imports, forbid: [os]}
  - id: broken
    code: |
      def f(:
          pass
    constraints:
      - {check: construct, id: no-loop, forbid: [loop]}
  - id: fine
    code: "x = 1\\n"
    constraints:
      - {check: construct, forbid: [loop]}
"""

OUTPUTS = ("--codeif-feedback=out/fb.md", "--codeif-feedback=out/fb.jsonl")


def write_suite(pytester: pytest.Pytester) -> None:
    (pytester.path / "pkg").mkdir()
    (pytester.path / "pkg" / "solution.py").write_text(SOLUTION)
    pytester.makefile(".codeif.yaml", tasks=TASKS)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def outcomes(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every constraint and functional outcome of a JSON report, with its task."""
    found = []
    for task in report["tasks"]:
        items = [*task["constraints"], *([task["functional"]] if task["functional"] else [])]
        found += [{**item, "task": task["id"], "file": task["file"]} for item in items]
    return found


def test_feedback_names_every_violation_with_file_line_and_what_to_do(
    run_codeif: CodeifRunner,
) -> None:
    pytester = run_codeif.pytester
    write_suite(pytester)
    result = run_codeif(*OUTPUTS, "--codeif-report=out/r.json")
    result.assert_outcomes(passed=2, failed=5, errors=1)
    result.stdout.fnmatch_lines(["codeif: feedback (markdown) written to *fb.md"])
    found = read_jsonl(pytester.path / "out" / "fb.jsonl")
    report = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))

    # One object per task with something to fix, in order; the satisfied task is absent.
    assert [e["task"] for e in found] == ["answer", "broken", "inline", "project"]
    items = {i["nodeid"]: i for e in found for i in [*e["violations"], *e["undecided"]]}
    for outcome in outcomes(report):
        if outcome["status"] == "satisfied":
            assert outcome["nodeid"] not in items
            continue
        item = items[outcome["nodeid"]]
        assert item["status"] == outcome["status"]
        assert item["what_to_do"]
        if outcome["status"] == "violated":
            # Every finding is named, with a file and a line.
            assert len(item["findings"]) == len(outcome["evidence"]) > 0
            for finding in item["findings"]:
                assert finding["path"] and finding["line"], finding
                assert finding["message"]

    # A directory task: the project's own file and line, and the line's text.
    project = next(e for e in found if e["task"] == "project")
    unused, imports = project["violations"]
    [finding] = unused["findings"]
    assert (finding["path"], finding["line"], finding["in_project_file"]) == (
        "pkg/solution.py",
        1,
        True,
    )
    assert finding["source"] == "import os"
    assert unused["what_to_do"] == "Remove the imports you do not use."  # the message
    forbid_os = advice_of(builtin_registry().get("imports")({"forbid": ["os"]}))  # type: ignore[misc]
    assert imports["what_to_do"] == forbid_os  # no message: the check's advice
    assert "`os`" in imports["what_to_do"]

    # A model response: the line in the extracted code, and the task file's line.
    answer = next(e for e in found if e["task"] == "answer")
    [loop] = answer["violations"][0]["findings"]
    assert (loop["code_path"], loop["code_line"], loop["path"]) == (
        "solution.py",
        3,
        "tasks.codeif.yaml",
    )
    assert loop["line"] == 23 and loop["source"] == "    for x in xs:"
    assert "line 3 of your code: the code uses loop" in answer["text"]

    # What was asked: the constraint, the instruction and the metadata; the functional
    # tests' failure last, with the failing case's line.
    inline_task = next(e for e in found if e["task"] == "inline")
    assert inline_task["instruction"] == "Write fib(n) recursively, without loops."
    assert inline_task["metadata"] == {"model": "gpt-4o", "sample": 0, "round": 0}
    assert inline_task["counts"] == {
        "constraints": 2,
        "satisfied": 1,
        "violated": 1,
        "undecided": 0,
        "skipped": 0,
        "functional": "violated",
    }
    recursive, tests = inline_task["violations"]
    assert recursive["asked"] == "construct with function: fib; require: [recursion]"
    assert (recursive["task_file"], recursive["task_line"]) == ("tasks.codeif.yaml", 12)
    assert tests["kind"] == "functional" and tests["what_to_do"] == FUNCTIONAL_ADVICE
    assert tests["findings"][0]["line"] == 15  # the case `fib(10)`
    assert "fib(10)" in tests["findings"][0]["message"]

    # Undecided: why, and what would let it be decided.
    [syntax] = next(e for e in found if e["task"] == "broken")["undecided"]
    assert syntax["error_kind"] == "syntax-error"
    assert syntax["what_to_do"].startswith("Fix the syntax error")

    markdown = (pytester.path / "out" / "fb.md").read_text(encoding="utf-8")
    first = markdown.splitlines()[0]
    assert first == (
        "**pytest-codeif:** 4 constraints violated and 1 undecided in 4 of 5 tasks "
        "(2 of 7 constraints satisfied); functional tests failing in 1 task."
    )
    for where in (
        "`pkg/solution.py:1`: `os` imported but unused — `import os`",
        "`solution.py:3` (at `tasks.codeif.yaml:23`): the code uses loop",
        "`tasks.codeif.yaml:15`: fib(10)",
        "**what to do:** Remove the imports you do not use.",
        "**what to do:** Fix the syntax error",
        "> Write fib(n) recursively, without loops.",
        "model `gpt-4o` · sample `0` · round `0`",
    ):
        assert where in markdown, where
    assert markdown.count("**what to do:**") == 6


def test_feedback_is_the_same_with_and_without_xdist(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    texts = []
    for mode in (("-n", "0"), ("-n", "2")):
        result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", *OUTPUTS, *mode)
        result.assert_outcomes(passed=2, failed=5, errors=1)
        out = pytester.path / "out"
        texts.append(((out / "fb.md").read_text(), (out / "fb.jsonl").read_text()))
    assert texts[0] == texts[1]


def codeif_cli(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`codeif ARGS...` in the pytester directory, as a user runs it."""
    return pytester.run(sys.executable, "-m", "pytest_codeif.cli", *args)


def test_codeif_feedback_from_a_saved_report(pytester: pytest.Pytester) -> None:
    write_suite(pytester)
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", *OUTPUTS, "--codeif-report=r.json")
    result = codeif_cli(pytester, "feedback", "r.json", "-o", "next/next.jsonl")
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(
        ["codeif feedback: 4 violated and 1 undecided constraints; 4 tasks to fix -> *"]
    )
    out = pytester.path / "out"
    # The same writer, fed from the saved report: the same feedback.
    assert (pytester.path / "next" / "next.jsonl").read_text() == (out / "fb.jsonl").read_text()
    assert codeif_cli(pytester, "feedback", "r.json", "-o", "next.md").ret == 0
    assert (pytester.path / "next.md").read_text() == (out / "fb.md").read_text()
    # An entry per violated constraint, each with what to do.
    found = read_jsonl(pytester.path / "next" / "next.jsonl")
    violated = [v for e in found for v in e["violations"] if v["kind"] == "constraint"]
    assert len(violated) == 4 and all(v["what_to_do"] for v in violated)


def test_codeif_feedback_fills_advice_into_an_older_report(pytester: pytest.Pytester) -> None:
    """A report written before records carried `advice` still gets the check's advice."""
    write_suite(pytester)
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    for task in report["tasks"]:
        for outcome in task["constraints"]:
            outcome.pop("advice")
    (pytester.path / "old.json").write_text(json.dumps(report))
    assert codeif_cli(pytester, "feedback", "old.json", "-o", "old.jsonl").ret == 0
    found = read_jsonl(pytester.path / "old.jsonl")
    project = next(e for e in found if e["task"] == "project")
    assert project["violations"][1]["what_to_do"].startswith("Remove every import of `os`")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json at all", "bad.json: not a pytest-codeif JSON report (not JSON: Expecting"),
        ('{"version": "2.1.0", "runs": []}', "bad.json: not a pytest-codeif JSON report ($:"),
        ("[1, 2]", "bad.json: not a pytest-codeif JSON report"),
        ('{"tasks": "x"}', "bad.json: not a pytest-codeif JSON report"),
        ("[" * 100_000, "bad.json: not a pytest-codeif JSON report (JSON nested too deeply"),
    ],
)
def test_bad_report_input_is_one_clear_error(
    pytester: pytest.Pytester, content: str, says: str
) -> None:
    (pytester.path / "bad.json").write_text(content)
    result = codeif_cli(pytester, "feedback", "bad.json", "-o", "next.jsonl")
    assert result.ret == 2
    err = result.stderr.str()
    assert f"codeif feedback: {says}" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (pytester.path / "next.jsonl").exists()


def test_missing_or_unreadable_report(pytester: pytest.Pytester) -> None:
    for target in ("nowhere.json", "."):
        result = codeif_cli(pytester, "feedback", target, "-o", "next.md")
        assert result.ret == 2
        assert "codeif feedback: cannot read" in result.stderr.str()
        assert "Traceback" not in result.stderr.str()


def test_ini_feedback_path_is_relative_to_the_rootdir_and_paths_to_the_repository(
    pytester: pytest.Pytester,
) -> None:
    """rootdir in a sub-folder of a git repository: files are named from the repository."""
    (pytester.path / ".git").mkdir()
    sub = pytester.path / "sub"
    (sub / "pkg").mkdir(parents=True)
    (sub / "pytest.ini").write_text("[pytest]\ncodeif_feedback = reports/fb.jsonl\n")
    (sub / "pkg" / "solution.py").write_text(SOLUTION)
    (sub / "t.codeif.yaml").write_text(
        "tasks:\n  - id: t\n    directory: pkg\n    constraints:\n"
        "      - {check: ruff, select: [F401]}\n"
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "sub")
    result.assert_outcomes(failed=1)
    [entry] = read_jsonl(sub / "reports" / "fb.jsonl")
    assert entry["file"] == "sub/t.codeif.yaml"
    [finding] = entry["violations"][0]["findings"]
    assert (finding["path"], finding["line"], finding["source"]) == (
        "sub/pkg/solution.py",
        1,
        "import os",
    )
    assert "sub/pkg/solution.py:1: `os` imported but unused" in entry["text"]


def test_all_satisfied(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: ok\n    code: 'x = 1'\n    constraints:\n"
        "      - {check: construct, forbid: [loop]}\n",
    )
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", *OUTPUTS).assert_outcomes(passed=1)
    assert (pytester.path / "out" / "fb.jsonl").read_text() == ""
    assert (pytester.path / "out" / "fb.md").read_text() == (
        "**pytest-codeif:** every constraint judged is satisfied (1 of 1 in 1 task).\n"
    )


# -- the writer on records -------------------------------------------------------------


def record(nodeid: str, status: str, **extra: Any) -> Record:
    task = nodeid.split("::")[1]
    base: Record = {
        "kind": "constraint",
        "nodeid": nodeid,
        "file": "t.codeif.yaml",
        "task": task,
        "metadata": {},
        "instruction": None,
        "status": status,
        "error_kind": None,
        "error": None,
        "evidence": [],
        "line": 3,
        "constraint": "c",
        "check": "pattern",
        "category": "Code Quality",
        "level": None,
        "options": {"pattern": "print(...)"},
        "message": None,
        "advice": "Do not print.",
    }
    return {**base, **extra}


def evidence(message: str, line: int = 4) -> dict[str, Any]:
    return {
        "path": "t.codeif.yaml",
        "line": line,
        "column": None,
        "rule": "pattern",
        "message": message,
        "code_path": "solution.py",
        "code_line": line - 3,
        "code_column": None,
    }


def test_markdown_escapes_what_the_code_says() -> None:
    hostile = "[click](https://evil.example) <img src=x onerror=1> @octocat **bold** `ok`"
    records = [record("t.codeif.yaml::a::c", "violated", evidence=[evidence(hostile)])]
    markdown = render(records, "markdown")
    # Every bracket and angle bracket is escaped: no link, no HTML tag.
    assert not re.search(r"(?<!\\)[<\[\]]", markdown), markdown
    assert "\\<img" in markdown and "\\[click\\](https" in markdown
    assert "@octocat" not in markdown and "@\u200boctocat" in markdown
    assert "\\*\\*bold\\*\\*" in markdown
    assert "`ok`" in markdown  # the message's own code span stays code
    # The JSONL keeps the message as it is: a program escapes for its own output.
    [entry] = entries(records)
    assert entry["violations"][0]["findings"][0]["message"] == hostile


def test_code_spans_hold_any_backticks() -> None:
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"
    assert inline("use `x``y` here") == "use ```x``y``` here"
    assert inline("unbalanced ` tick") == "unbalanced \\` tick"
    assert inline("line\nbreak") == "line break"


def test_markdown_caps_findings_and_skips_what_was_not_judged() -> None:
    many = [evidence(f"print #{i}", line=i + 4) for i in range(MAX_MD_FINDINGS + 5)]
    records = [
        record("t.codeif.yaml::a::c", "violated", evidence=many),
        record("t.codeif.yaml::b::c", "skipped"),
        record("t.codeif.yaml::c::c", "satisfied"),
    ]
    markdown = render(records, "markdown")
    assert "... and 5 more findings" in markdown
    assert "print \\#14" not in markdown
    assert "`b`" not in markdown  # skipped: not a task with something to fix
    assert markdown.splitlines()[0] == (
        "**pytest-codeif:** 1 constraint violated in 1 of 3 tasks (1 of 2 constraints "
        "satisfied); 1 skipped (no change in their scope)."
    )
    # The JSONL lists every finding.
    [entry] = entries(records)
    assert len(entry["violations"][0]["findings"]) == MAX_MD_FINDINGS + 5


def test_markdown_caps_the_items_of_a_task() -> None:
    records = [
        record(f"t.codeif.yaml::a::c{i:02d}", "violated", constraint=f"c{i:02d}", line=i)
        for i in range(MAX_MD_ITEMS + 3)
    ]
    markdown = render(records, "markdown")
    assert markdown.count("**what to do:**") == MAX_MD_ITEMS
    assert "- ... and 3 more items to fix" in markdown
    [entry] = entries(records)
    assert len(entry["violations"]) == MAX_MD_ITEMS + 3


def test_format_is_chosen_by_suffix() -> None:
    assert feedback_format("out/next.jsonl") == "jsonl"
    assert feedback_format(Path("NEXT.JSONL")) == "jsonl"
    assert feedback_format("summary.md") == "markdown"
    assert feedback_format("feedback.txt") == "markdown"


def test_feedback_cli_is_documented(pytester: pytest.Pytester) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_codeif.cli", "feedback", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "JSONL" in result.stdout and "Exit status" in result.stdout.replace("\n", " ")


def test_a_pattern_rules_examples_are_not_part_of_what_is_asked() -> None:
    """The team's example code is not sent to the model, and does not crowd the rule
    out of the 200-character summary even when written before `pattern:`."""
    examples = {"match": ["secret_team_code(" + "x" * 300 + ")"], "no-match": ["ok()"]}
    options = {"examples": examples, "pattern": "print(...)"}
    records = [record("t.codeif.yaml::a::c", "violated", options=options)]
    [entry] = entries(records)
    [item] = entry["violations"]
    assert item["asked"] == "pattern with pattern: print(...)"
    assert "secret_team_code" not in entry["text"]
    assert options_summary({"examples": examples}) == ""


@pytest.mark.parametrize("separator", ["\x1c", "\x1d", "\x1e", "\x0b", "\x0c", "\x85", "\u2028"])
def test_the_source_line_quoted_is_the_findings_line(separator: str, tmp_path: Path) -> None:
    """Lines are counted at "\\n" alone, as findings count them: a separator that
    `str.splitlines` also splits at (in a comment of hostile code) does not shift the
    line quoted, neither of inline code nor of a project file read from disk."""
    text = f"# a{separator}b\r\nx = 1\r\nprint(x)\n"
    origin = {"kind": "code", "origin": "t.codeif.yaml", "origin_line": 3, "path": "solution.py"}
    code = {**origin, "text": text, "lines": None, "lines_in": None}
    found = evidence("print() called", line=6)  # code_line 3 of solution.py
    [entry] = entries([record("t.codeif.yaml::a::c", "violated", evidence=[found], code=code)])
    assert entry["violations"][0]["findings"][0]["source"] == "print(x)"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "solution.py").write_text(text, encoding="utf-8", newline="")
    on_disk = {
        **evidence("print() called"),
        "path": "pkg/solution.py",
        "line": 3,
        "code_path": "solution.py",
        "code_line": 3,
    }
    paths = {"kind": "directory", "paths": ["pkg/solution.py"], "paths_total": 1}
    [entry] = entries(
        [record("t.codeif.yaml::a::c", "violated", evidence=[on_disk], code=paths)],
        lines_of=file_lines(tmp_path),
    )
    [finding] = entry["violations"][0]["findings"]
    assert finding["in_project_file"] is True
    assert finding["source"] == "print(x)"
    assert code_lines(text) == [f"# a{separator}b", "x = 1", "print(x)", ""]

"""Text from code under evaluation is data in every output (issue 21: injection, flood).

`fixtures/hostile_output` holds code whose exception messages, exception class names and
returned values carry terminal escapes, bidi overrides and GitHub workflow commands; the
run adds code whose ruff finding quotes a name of 1.5 million characters. Neither the
terminal, junitxml, SARIF, annotations, the Markdown feedback nor the HTML report may
carry a raw control character or a line the GitHub runner would take as a command, and
each stays small; the JSON report keeps the text exact, but capped."""

from __future__ import annotations

import contextlib
import json
import re
from importlib.util import find_spec

import pytest

from pytest_codeif.report.html import build_page
from pytest_codeif.report.safe_text import MAX_FAILURE, MAX_MESSAGE, capped, safe_text
from tests.conftest import FIXTURES, CodeifRunner, copy_into

# Imported before any pytester run, which restores sys.modules after it: matplotlib's
# compiled parts (numpy's) cannot be imported a second time in one process.
with contextlib.suppress(ImportError):  # without the `report` extra, no HTML is checked
    import matplotlib.figure  # noqa: F401

HOSTILE_OUTPUT = FIXTURES / "hostile_output"
FLOOD_NAME_CHARS = 1_500_000
#: Generous bounds: every output of this run is a few kB, save what the flood adds.
MAX_OUTPUT_CHARS = 2 * MAX_FAILURE + 100_000
#: The only workflow commands allowed: the plugin's own annotations.
OWN_ANNOTATION = re.compile(r"::(error|warning) file=(injection\.codeif\.yaml|name_flood\.py),")
FLOOD_TASK = """\
tasks:
  - id: name-flood
    file: name_flood.py
    constraints:
      - check: ruff
        select: [F821]
"""

INJECTION = (
    "boom\n::error file=app.py,line=1::forged\n  \t::add-mask::hunter2\n"
    "::stop-commands::pwned\n\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"
    "\rCR\x9b31m\u202eevil\u202c\x00\x7f\x85::error::after NEL\u2028::x\n##[error]legacy\n"
    "x ##vso[task.setvariable variable=pass]true"
)


def unsafe(text: str) -> list[str]:
    """What in `text` a terminal or the GitHub runner would obey: control and format
    characters, lines that are workflow commands (but the plugin's annotations)."""
    found = sorted({repr(c) for c in text if not c.isprintable() and c not in "\n\t"})
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("::") and not OWN_ANNOTATION.match(stripped):
            found.append(line[:120])
        if "##[" in line or "##vso[" in line:
            found.append(line[:120])
    return found


# -- the shared function -----------------------------------------------------------------


def test_controls_are_shown_as_escapes_and_commands_broken() -> None:
    shown = safe_text(INJECTION)
    assert unsafe(shown) == []
    assert shown.split("\n") == [
        "boom",
        "\\::error file=app.py,line=1::forged",
        "  \t\\::add-mask::hunter2",
        "\\::stop-commands::pwned",
        "\\x1b[2J\\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07\\rCR\\x9b31m"
        "\\u202eevil\\u202c\\x00\\x7f\\x85::error::after NEL\\u2028::x",
        "##\\[error]legacy",
        "x ##\\vso[task.setvariable variable=pass]true",
    ]


def test_ordinary_text_is_left_as_it_is() -> None:
    text = "constraint 'c' violated (check ruff):\n  a.py:3: [F401] `os` imported — é 中 😀\tok"
    assert safe_text(text) == text


def test_a_flood_is_cut_with_a_note_of_what_was_left_out() -> None:
    shown = safe_text("A" * 8_000_000)
    assert len(shown) <= MAX_MESSAGE
    assert shown.startswith("A" * 1000)
    left = int(re.search(r"… ([\d,]+) more characters not shown$", shown)[1].replace(",", ""))
    assert left + shown.count("A") == 8_000_000


def test_escapes_count_against_the_limit() -> None:
    shown = safe_text("\x1b" * 1000, 200)
    assert len(shown) <= 200
    assert shown.endswith(f" … {1000 - shown.count('x1b'):,} more characters not shown")


@pytest.mark.parametrize("text", [INJECTION, "x" * 50_000, "\x1b" * 3_000, "::a\n" * 3_000])
def test_safe_text_is_idempotent(text: str) -> None:
    once = safe_text(text)
    assert safe_text(once) == once


def test_capped_keeps_text_exact() -> None:
    assert capped(INJECTION) == INJECTION
    cut = capped("\x1b" * 20_000)
    assert len(cut) <= MAX_MESSAGE
    assert cut.startswith("\x1b" * 9_000)
    assert cut.endswith("more characters not shown")


# -- every output of a run ------------------------------------------------------------------


def hostile_project(pytester: pytest.Pytester) -> None:
    """The fixture's tasks, and one whose code names a variable of 1.5 million
    characters (ruff's finding quotes it)."""
    for source in HOSTILE_OUTPUT.iterdir():
        copy_into(pytester, source)
    pytester.makefile(".codeif.yaml", flood=FLOOD_TASK)
    name = "n" * FLOOD_NAME_CHARS
    (pytester.path / "name_flood.py").write_text(f"def f():\n    return {name}\n")


def test_every_output_shows_code_text_as_data(run_codeif: CodeifRunner) -> None:
    pytester = run_codeif.pytester
    hostile_project(pytester)
    result = run_codeif(
        "-rA",
        "--junitxml=junit.xml",
        "--codeif-sarif=codeif.sarif",
        "--codeif-annotations",
        "--codeif-feedback=feedback.md",
        "--codeif-report=report.json",
    )
    result.assert_outcomes(failed=8)  # verdicts are those of the code, whatever it says

    outputs = {"terminal": "\n".join(result.outlines + result.errlines)}
    for path in ("junit.xml", "codeif.sarif", "feedback.md"):
        outputs[path] = (pytester.path / path).read_text(encoding="utf-8")
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    if find_spec("matplotlib") is not None:
        outputs["html"] = build_page(report, root=pytester.path)
    problems = {
        where: [f"{len(text):,} characters", *unsafe(text)[:3]]
        for where, text in outputs.items()
        if unsafe(text) or len(text) >= MAX_OUTPUT_CHARS
    }
    assert problems == {}
    terminal = outputs["terminal"]
    assert "\\::add-mask::hunter2" in terminal  # shown, as data
    assert "\\x1b[2J" in terminal
    assert "more characters not shown" in terminal
    assert "more characters not shown" in outputs["junit.xml"]
    assert sum(line.startswith("::error file=") for line in result.outlines) == 8

    # The JSON report is data: exact, but capped.
    tasks = {task["id"]: task for task in report["tasks"]}
    raised = tasks["raises-injection"]["functional"]["cases"][0]["message"]
    assert "\x1b[2J" in raised and "\n::add-mask::hunter2" in raised
    (flood,) = tasks["name-flood"]["constraints"][0]["evidence"]
    assert len(flood["message"]) <= MAX_MESSAGE
    assert flood["message"].endswith("more characters not shown")
    assert len(json.dumps(report)) < MAX_OUTPUT_CHARS


def test_jsonl_feedback_is_exact_but_capped(pytester: pytest.Pytester) -> None:
    hostile_project(pytester)
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-feedback=f.jsonl")
    text = (pytester.path / "f.jsonl").read_text(encoding="utf-8")
    assert unsafe(text) == []  # JSON escapes, read back exact
    entries = [json.loads(line) for line in text.splitlines()]
    messages = [f["message"] for e in entries for i in e["violations"] for f in i["findings"]]
    assert any("\x1b[2J" in m and "\n::add-mask::" in m for m in messages)
    assert all(len(m) <= MAX_MESSAGE for m in messages)
    assert any(m.endswith("more characters not shown") for m in messages)
    assert len(text) < MAX_OUTPUT_CHARS

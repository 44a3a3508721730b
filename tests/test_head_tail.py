"""`text.head_tail`: long output keeps its first and its last characters around a line
saying how many were cut; and the functional runner's failure messages use it, so a
server's traceback keeps both what was run and what went wrong."""

from __future__ import annotations

import json
import re

import pytest

from pytest_codeif.text import head_tail

MARKER = re.compile(r"\n\[\.\.\. (\d+) characters? cut \.\.\.\]\n")


def parts(text: str) -> tuple[str, int, str]:
    """(head, characters cut, tail) of a cut text."""
    found = MARKER.search(text)
    assert found is not None, text
    return text[: found.start()], int(found.group(1)), text[found.end() :]


@pytest.mark.parametrize("limit", [5, 6, 100])
def test_short_text_is_kept_exact(limit: int) -> None:
    assert head_tail("hello", limit) == "hello"
    assert head_tail("", limit) == ""


def test_long_text_keeps_both_ends_and_says_how_much_was_cut() -> None:
    text = "Traceback (most recent call last):\n" + "x" * 1000 + "\nKeyError: 'user'"
    head, cut, tail = parts(head_tail(text, 40))
    assert head == text[:20] and tail == text[-20:]
    assert cut == len(text) - 40
    assert text.startswith(head) and text.endswith(tail)


def test_an_odd_limit_gives_the_head_the_extra_character() -> None:
    head, cut, tail = parts(head_tail("abcdefghij", 5))
    assert (head, cut, tail) == ("abc", 5, "ij")


def test_one_character_cut_is_said_in_the_singular() -> None:
    assert head_tail("abcde", 4) == "ab\n[... 1 character cut ...]\nde"


def test_a_limit_of_zero_or_less_keeps_only_the_note() -> None:
    assert head_tail("abc", 0) == "\n[... 3 characters cut ...]\n"
    assert head_tail("abc", -5) == "\n[... 3 characters cut ...]\n"


PAIR = "\ud83d\ude00"  # U+1F600 as two UTF-16 halves (what `surrogatepass` decodes to)


@pytest.mark.parametrize("limit", range(0, 12))
def test_a_surrogate_pair_is_never_parted(limit: int) -> None:
    text = f"a{PAIR}b{PAIR}{PAIR}c{PAIR}d"
    found = head_tail(text, limit)
    if found == text:
        return
    head, cut, tail = parts(found)
    assert not head.endswith("\ud83d")
    assert not tail.startswith("\ude00")
    assert len(head) + cut + len(tail) == len(text)
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) <= limit


def test_the_same_text_gives_the_same_result() -> None:
    text = "".join(chr(32 + (i * 7919) % 20000) for i in range(5000))
    assert head_tail(text, 300) == head_tail(text, 300)
    assert len(head_tail(text, 300)) < 400


def test_a_process_that_ends_early_is_reported_with_both_ends_of_its_stderr(
    pytester: pytest.Pytester,
) -> None:
    """Code that dies before answering (a server's start-up traceback, say) is reported
    with the first and the last characters of what it wrote to stderr."""
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: t
            code: |
              import os, sys
              sys.stderr.write("START-" + "y" * 3000 + "-END")
              sys.stderr.flush()
              os._exit(3)
            tests:
              - {call: "f()", expect: 1}
        """,
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    result.assert_outcomes(errors=1)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    (case,) = report["tasks"][0]["functional"]["cases"]
    message = case["message"]
    assert "exit code 3" in message
    stderr = message.split("stderr: ", 1)[1]
    head, cut, tail = parts(stderr)
    assert head.startswith("START-") and tail.endswith("-END")
    assert len(head) + len(tail) == 300 and cut == len("START-") + 3000 + len("-END") - 300


def test_the_html_page_shows_both_ends_of_a_long_failure_and_error() -> None:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    from pytest_codeif.report.html import build_page
    from pytest_codeif.report.json_report import build_report

    long = "START-" + "y" * 5000 + "-END"
    common = {"file": "t.codeif.yaml", "metadata": {}, "notes": [], "error_kind": None}
    failed = {
        **common,
        "kind": "functional",
        "nodeid": "t.codeif.yaml::a::tests",
        "task": "a",
        "status": "violated",
        "error": None,
        "evidence": [{"path": "t.codeif.yaml", "line": 3, "rule": "test", "message": long}],
        "cases": [{"label": "c", "status": "failed", "message": long, "line": 3}],
    }
    crashed = {
        **common,
        "kind": "functional",
        "nodeid": "t.codeif.yaml::b::tests",
        "task": "b",
        "status": "error",
        "error_kind": "crash",
        "error": long,
        "evidence": [],
        "cases": [],
    }
    page = build_page(build_report([failed, crashed], complete=True, exit_status=1, versions={}))
    tests = page[page.index('<section id="tests">') : page.index('<section id="errors">')]
    errors = page[page.index('<section id="errors">') :]
    for shown in (tests, errors):
        assert "START-" in shown and "-END" in shown and "characters cut ...]" in shown

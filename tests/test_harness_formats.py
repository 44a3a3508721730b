"""Samples kept the way each harness writes them (fixtures/harness) are read as they are:
human-eval's gzip-compressed JSONL, evalplus's `TASK_ID/N.py` folder, BigCodeBench's
per-model files with its calibrated code prompt; and each run gives the pass@k the
harness itself prints for the same samples."""

from __future__ import annotations

import gzip
import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif.errors import Location
from pytest_codeif.report.json_report import SCHEMA_PATH
from pytest_codeif.taskfile.responses import (
    CALIBRATION_STUB,
    Entry,
    ResponseFiles,
    responses_of,
)
from pytest_codeif.taskfile.responses_read import read_jsonl
from tests.conftest import FIXTURES, CodeifRunner, copy_into

HARNESS = FIXTURES / "harness"
RUN = ("--codeif", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")
WHERE = Location(Path("t.codeif.yaml"), 3, ("tasks", 0, "responses"))

#: Which samples of each task pass, in sample order, as the fixtures were written.
HUMAN_EVAL = {"add": [True, False, True, False, False], "neg": [False, False, True, False, False]}
EVALPLUS = {"add": [True, True, False, True, False], "neg": [True, False, False]}
BIGCODEBENCH = {
    "toy-a": {"root": [True, True, False], "count": [True, False, True]},
    "toy-b": {"root": [False, True, False], "count": [False, False, True]},
}


def harness_pass_at_k(samples: dict[str, list[bool]], ks: list[int]) -> dict[int, float]:
    """pass@k as human-eval, evalplus and BigCodeBench print it: each task's
    `estimate_pass_at_k` (1 - prod(1 - k / arange(n - c + 1, n + 1))), averaged over the
    tasks, for the ks every task has at least k samples for (`(total >= k).all()`)."""

    def estimator(n: int, c: int, k: int) -> float:
        if n - c < k:
            return 1.0
        return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))

    fewest = min(len(passed) for passed in samples.values())
    return {
        k: sum(estimator(len(p), sum(p), k) for p in samples.values()) / len(samples)
        for k in ks
        if fewest >= k
    }


def _report(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    return report


def _passed(report: dict[str, Any]) -> dict[str, dict[str, list[bool]]]:
    """Per model, per task: whether each sample's tests passed, in sample order."""
    found: dict[str, dict[str, dict[int, bool]]] = {}
    for task in report["tasks"]:
        base = task["id"].split("[", 1)[0]
        samples = found.setdefault(task["metadata"]["model"], {}).setdefault(base, {})
        samples[task["metadata"]["sample"]] = task["functional"]["status"] == "satisfied"
    return {
        model: {t: [s[i] for i in sorted(s)] for t, s in tasks.items()}
        for model, tasks in found.items()
    }


def _given(group: dict[str, Any]) -> dict[int, float]:
    return {int(k): v for k, v in group["pass_at_k"].items() if v is not None}


def test_human_eval_gzip_samples_give_its_pass_at_k(run_codeif: CodeifRunner) -> None:
    copy_into(run_codeif.pytester, HARNESS / "human-eval")
    result = run_codeif("--codeif-group-by=model", "--codeif-k=1,2,5,10", "--codeif-report=r.json")
    result.assert_outcomes(passed=3, failed=7)
    report = _report(run_codeif.pytester.path / "r.json")
    assert _passed(report) == {"toy-model": HUMAN_EVAL}
    [group] = report["groups"]["groups"].values()
    expected = harness_pass_at_k(HUMAN_EVAL, [1, 2, 5, 10])
    assert expected == pytest.approx({1: 0.3, 2: 0.55, 5: 1.0})  # (0.4 + 0.2) / 2, ...
    assert _given(group) == pytest.approx(expected)
    assert group["pass_at_k"]["10"] is None
    assert group["at_k_notes"] == {"pass@10": "every task has fewer than 10 samples (most: 5)"}
    assert report["groups"]["at_k"]["rule"] == "every-task"


def test_a_folder_of_gzip_files_is_read_as_jsonl(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: sq\n    responses: samples\n    tests:\n"
        "      - call: sq(3)\n        expect: 9\n",
    )
    folder = pytester.path / "samples"
    folder.mkdir()
    for model, body in (("m1", "x * x"), ("m2", "x + x")):
        line = json.dumps({"task_id": "sq", "model": model, "solution": _sq(body)}) + "\n"
        (folder / f"{model}.jsonl.gz").write_bytes(gzip.compress(line.encode(), mtime=0))
    result = pytester.runpytest_subprocess(*RUN, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["PASSED t.codeif.yaml::sq[[]m1-s0[]]::tests", "FAILED *m2-s0*"])


def _sq(body: str) -> str:
    return f"def sq(x):\n    return {body}\n"


def test_gzip_and_plain_files_read_the_same(tmp_path: Path) -> None:
    lines = b'{"task_id": "a", "code": "x = 1"}\n\n{"task_id": "b", "code": "x = 2"}\n'
    (tmp_path / "s.jsonl").write_bytes(lines)
    (tmp_path / "s.jsonl.gz").write_bytes(gzip.compress(lines))
    plain = read_jsonl(tmp_path / "s.jsonl")
    assert plain == read_jsonl(tmp_path / "s.jsonl.gz")
    assert [line for line, _ in plain[0]] == [1, 3]


def test_a_gzip_bomb_is_a_located_error_read_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb") as stream:  # 64 MiB of spaces, a few kB on disk
        for _ in range(64):
            stream.write(b" " * (1 << 20))
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        records, [error] = read_jsonl(path, limit=4 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert records == []
    assert error.location.line == 1
    assert error.message.startswith("decompresses to more than 4 MiB (a gzip bomb")
    assert peak < 16 << 20  # what is held stays near the bound, never the 64 MiB


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not gzip at all\n", "not a readable gzip file"),
        (gzip.compress(b'{"code": "x = 1"}\n' * 50)[:-30], "not a readable gzip file"),
        (gzip.compress(b'{"code": "\xff"}\n'), "not valid UTF-8"),
    ],
    ids=["not-gzip", "truncated", "not-utf8"],
)
def test_a_broken_gzip_file_is_one_located_error(
    pytester: pytest.Pytester, data: bytes, reason: str
) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: sq\n    responses: s.jsonl.gz\n    tests:\n"
        "      - call: sq(3)\n        expect: 9\n",
    )
    (pytester.path / "s.jsonl.gz").write_bytes(data)
    result = pytester.runpytest_subprocess(*RUN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*s.jsonl.gz:1: {reason}*"])


def test_evalplus_folder_layout_follows_the_harness_rule(pytester: pytest.Pytester) -> None:
    copy_into(pytester, HARNESS / "evalplus")
    result = pytester.runpytest_subprocess(
        *RUN, "-rA", "--codeif-group-by=model", "--codeif-k=1,3,5", "--codeif-report=r.json"
    )
    result.assert_outcomes(passed=4, failed=4)
    # Sample numbers are the files' names: toy-model/Toy_0/3.py is add's sample 3.
    result.stdout.fnmatch_lines(
        ["PASSED evalplus/tasks.codeif.yaml::add[[]toy-model-s3[]]::tests"], consecutive=False
    )
    report = _report(pytester.path / "r.json")
    assert _passed(report) == {"toy-model": EVALPLUS}
    tasks = {t["id"]: t for t in report["tasks"]}
    assert tasks["add[toy-model-s3]"]["metadata"] == {
        "model": "toy-model",
        "response": "Toy_0/3.py",
        "sample": 3,
    }
    [group] = report["groups"]["groups"].values()
    expected = harness_pass_at_k(EVALPLUS, [1, 3, 5])
    assert set(expected) == {1, 3}  # neg has 3 samples: evalplus prints no pass@5
    assert _given(group) == pytest.approx(expected)
    assert group["at_k_notes"] == {
        "pass@5": "1 of 2 tasks have fewer than 5 samples (fewest: 3)",
    }
    result.stdout.fnmatch_lines(
        [
            "pass@k, satisfaction@k: mean over every task of the group; a k is given only",
            "when every task has at least k samples (the rule of human-eval, evalplus and",
            "BigCodeBench).",
            "  toy-model: pass@5 not given: 1 of 2 tasks have fewer than 5 samples (fewest:",
            "    3)",
        ]
    )


def test_the_other_rule_says_which_tasks_it_is_over(pytester: pytest.Pytester) -> None:
    copy_into(pytester, HARNESS / "evalplus")
    result = pytester.runpytest_subprocess(
        *RUN,
        "--codeif-group-by=model",
        "--codeif-k=5",
        "--codeif-k-rule=tasks-with-k",
        "--codeif-report=r.json",
    )
    [group] = _report(pytester.path / "r.json")["groups"]["groups"].values()
    assert group["pass_at_k"] == {"5": 1.0}  # add only: n=5, c=3, so any 5 hold a pass
    assert group["at_k_notes"] == {"pass@5": "over 1 of 2 tasks (those with at least 5 samples)"}
    result.stdout.fnmatch_lines(
        [
            "pass@k, satisfaction@k: mean over the tasks of the group that have at least k",
            "  toy-model: pass@5 over 1 of 2 tasks (those with at least 5 samples)",
        ]
    )


def test_evalplus_folder_names_are_task_ids_written_as_the_harness_does(
    tmp_path: Path,
) -> None:
    # An id holding `_` of its own still finds its folder (`/` -> `_`, never read back).
    for folder, text in (("My_set_7", "a = 1\n"), ("My_set_8", "a = 2\n"), ("loose", "")):
        (tmp_path / "samples" / folder).mkdir(parents=True)
        (tmp_path / "samples" / folder / "0.py").write_text(text)
    (tmp_path / "samples" / "My_set_7" / "notes.txt").write_text("not a sample")
    # What the harnesses write beside the task folders once they evaluated them is no sample.
    (tmp_path / "samples" / "eval_results.json").write_text("{}")
    cache = ResponseFiles()
    found, errors = responses_of(
        "My_set/7", [Entry("samples")], tmp_path, cache, prefix=None, where=WHERE
    )
    assert errors == []
    assert [(r.label, Path(r.code.value).parent.name) for r in found] == [("s0", "My_set_7")]
    found, [error] = responses_of(
        "My_set/9", [Entry("samples")], tmp_path, cache, prefix=None, where=WHERE
    )
    assert found == []
    assert error.message.startswith("no response to task 'My_set/9' in samples/My_set_9/*.py")


def test_bigcodebench_files_per_model_are_calibrated(pytester: pytest.Pytester) -> None:
    copy_into(pytester, HARNESS / "bigcodebench")
    result = pytester.runpytest_subprocess(
        *RUN, "--codeif-group-by=model", "--codeif-k=1,2,3,5", "--codeif-report=r.json"
    )
    result.assert_outcomes(passed=6, failed=6)
    report = _report(pytester.path / "r.json")
    assert _passed(report) == BIGCODEBENCH
    # The raw output is text, not a label: only the plain fields are metadata.
    assert {tuple(sorted(t["metadata"])) for t in report["tasks"]} == {("model", "sample")}
    groups = report["groups"]["groups"]
    for model, samples in BIGCODEBENCH.items():
        assert _given(groups[model]) == pytest.approx(harness_pass_at_k(samples, [1, 2, 3, 5]))
    assert _given(groups["toy-a"]) == pytest.approx({1: 2 / 3, 2: 1.0, 3: 1.0})


def test_calibration_is_bigcodebenchs_own(tmp_path: Path) -> None:
    """evaluate.py: `solution = sample["solution"] if "solution" in sample else
    complete_prompt + sample["completion"]`, then `code_prompt + "\\n    pass\\n" +
    solution` when calibrated (its default)."""
    (tmp_path / "s.jsonl").write_text(
        json.dumps({"task_id": "T/0", "solution": "def f():\n    return 1\n"})
        + "\n"
        + json.dumps({"task_id": "T/0", "completion": "    return 2\n"})
        + "\n"
    )
    entry = Entry("s.jsonl", "T/0", code_prompt="import os\ndef f():\n")
    found, errors = responses_of(
        "t", [entry], tmp_path, ResponseFiles(), prefix="def f():\n    '''doc'''\n", where=WHERE
    )
    assert errors == []
    assert CALIBRATION_STUB == "\n    pass\n"
    assert [r.code.value for r in found] == [
        "import os\ndef f():\n\n    pass\ndef f():\n    return 1\n",
        "import os\ndef f():\n\n    pass\ndef f():\n    '''doc'''\n    return 2\n",
    ]


def test_a_raw_response_cannot_be_calibrated(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text(json.dumps({"response": "```python\nx = 1\n```"}) + "\n")
    entry = Entry("s.jsonl", code_prompt="import os\n")
    found, [error] = responses_of("t", [entry], tmp_path, ResponseFiles(), prefix=None, where=WHERE)
    assert found == []
    assert (error.location.path.name, error.location.line) == ("s.jsonl", 1)
    assert "sanitise the responses first" in error.message


def test_entry_metadata_goes_to_every_record_and_the_record_wins(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text(
        '{"code": "x = 1"}\n{"code": "x = 2", "model": "named-in-record"}\n'
    )
    entry = Entry("s.jsonl", metadata={"model": "gpt-4o", "temperature": 0.8})
    found, errors = responses_of("t", [entry], tmp_path, ResponseFiles(), prefix=None, where=WHERE)
    assert errors == []
    assert [(r.label, r.metadata) for r in found] == [
        ("gpt-4o-s0", {"model": "gpt-4o", "temperature": 0.8, "sample": 0}),
        ("named-in-record-s0", {"model": "named-in-record", "temperature": 0.8, "sample": 0}),
    ]


def test_responses_outside_the_test_root_are_refused(tmp_path: Path) -> None:
    inside, outside = tmp_path / "root", tmp_path / "elsewhere"
    (outside / "T_0").mkdir(parents=True)
    (outside / "T_0" / "0.py").write_text("x = 1\n")
    inside.mkdir()
    (inside / "link").symlink_to(outside, target_is_directory=True)
    found, [error] = responses_of(
        "T/0", [Entry("link")], inside, ResponseFiles(), prefix=None, where=WHERE, root=inside
    )
    assert found == []
    assert "is outside the test root" in error.message

"""Aggregation is the same plain, with -n 0 and with -n 2 (pytest-xdist); tasks are split
whole among the workers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, FIXTURES, CodeifRunner


def summary_section(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "codeif: constraint satisfaction" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    # Where each run wrote its report differs by run; the rest must not.
    return [line for line in lines[start:end] if "report written to" not in line]


def comparable(report: dict, root: Path) -> dict:
    """The report without what may differ between runs: its date, the folder it ran in,
    and measured timings (the `complexity` check's costs and slopes; the verdicts
    themselves must agree)."""
    report = dict(report)
    report.pop("created")
    text = json.dumps(report, ensure_ascii=False).replace(str(root), "<root>")
    text = re.sub(r"slope -?[\d.]+", "slope #", text)
    text = re.sub(r"n=(\d+): [\d.]+ (µs|ms|B|KiB)", r"n=\1: #", text)
    return json.loads(text)


Observed = tuple[dict[str, int], list[str], dict[str, Any]]


@pytest.fixture(scope="session")
def plain_runs() -> dict[str, Observed]:
    """What a plain run observed, kept for the session: each mode is compared with it, and
    it is taken once per pytest process (by the `plain` case, or the first that needs it)."""
    return {}


def test_same_outcomes_summary_and_report_as_a_plain_run(
    run_codeif: CodeifRunner, plain_runs: dict[str, Observed]
) -> None:
    pytester = run_codeif.pytester
    shutil.copytree(EXAMPLES, pytester.path / "examples")
    shutil.copytree(FIXTURES / "functional", pytester.path / "fixtures" / "functional")
    shutil.copytree(FIXTURES / "bad", pytester.path / "fixtures" / "bad")

    def observe(run: CodeifRunner, name: str) -> Observed:
        result = run("-rA", f"--codeif-report={name}.json", subprocess=True)
        report = json.loads((pytester.path / f"{name}.json").read_text())
        return result.parseoutcomes(), summary_section(result), comparable(report, pytester.path)

    observed = observe(run_codeif, run_codeif.mode)
    if run_codeif.mode == "plain":
        # Compared with itself the plain case would prove nothing: its reference is a
        # second plain run (same input, same verdicts), kept for the other modes too.
        plain_runs.setdefault("plain", observe(CodeifRunner(pytester, "plain"), "again"))
    elif "plain" not in plain_runs:
        plain_runs["plain"] = observe(CodeifRunner(pytester, "plain"), "plain")
    outcomes, summary, report = plain_runs["plain"]
    assert outcomes["failed"] >= 10 and outcomes["errors"] >= 10 and outcomes["passed"] >= 10
    assert observed[0] == outcomes
    assert observed[1] == summary
    assert observed[2] == report


def test_split_by_task_keeps_tasks_whole_and_blocks_even() -> None:
    from pytest_codeif.collection.xdist_scheduling import split_by_task

    collection = [f"f.yaml::t{t}::c{c}" for t in range(10) for c in range(3)]
    blocks = split_by_task(collection, 2)
    assert [len(b) for b in blocks] == [15, 15]
    for block in blocks:
        tasks = {collection[i].rsplit("::", 1)[0] for i in block}
        for other in blocks:
            if other is not block:
                assert not tasks & {collection[i].rsplit("::", 1)[0] for i in other}
    assert split_by_task(collection[:3], 4) == [[0, 1, 2]]


def test_each_task_runs_on_one_worker(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLES, pytester.path / "examples")
    result = pytester.runpytest_subprocess(
        "--codeif", "-p", "no:cacheprovider", "-n", "2", "-v", "examples"
    )
    workers: dict[str, set[str]] = {}
    for line in result.outlines:
        found = re.match(r"\[(gw\d+)\] .*? (examples/\S+?)::(\S+)\s*$", line)
        if found:
            task = found.group(2) + "::" + found.group(3).rsplit("::", 1)[0]
            workers.setdefault(task, set()).add(found.group(1))
    # 7 code tasks, 2 JavaScript answers, and the PACIFIC example's 4 tasks x 2 models
    assert len(workers) == 17, result.outlines
    assert all(len(ids) == 1 for ids in workers.values()), workers
    assert {w for ids in workers.values() for w in ids} == {"gw0", "gw1"}

"""An interrupted run, or a crashed pytest-xdist worker, still leaves a complete report of
what finished, marked incomplete."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_codeif.report.json_report import SCHEMA_PATH

TASKS = """
tasks:
  - id: first
    code: "x = 1\\n"
    constraints:
      - {check: construct, forbid: [loop]}
  - id: stop-here
    code: "x = 1\\n"
    constraints:
      - {check: construct, forbid: [loop]}
  - id: last
    code: "x = 1\\n"
    constraints:
      - {check: construct, forbid: [loop]}
"""


def load(pytester: pytest.Pytester) -> dict:
    report = json.loads((pytester.path / "r.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    return report


def test_keyboard_interrupt_leaves_an_incomplete_report(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makeconftest(
        """
        def pytest_runtest_setup(item):
            if "stop-here" in item.nodeid:
                raise KeyboardInterrupt
        """
    )
    result = pytester.runpytest_subprocess("--codeif", "--codeif-report=r.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = load(pytester)
    assert report["complete"] is False
    assert [task["id"] for task in report["tasks"]] == ["first"]


def test_a_crashed_worker_is_reported_not_dropped(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makeconftest(
        """
        import os

        def pytest_runtest_setup(item):
            if "stop-here" in item.nodeid:
                os._exit(3)
        """
    )
    result = pytester.runpytest_subprocess("--codeif", "-n", "2", "--codeif-report=r.json")
    result.stdout.fnmatch_lines(["lost: 1 items never reported a verdict (crashed worker)"])
    report = load(pytester)
    assert report["complete"] is False
    assert [lost["nodeid"] for lost in report["lost"]] == ["t.codeif.yaml::stop-here::construct"]
    assert sorted(task["id"] for task in report["tasks"]) == ["first", "last"]

"""The verdict cache: an unchanged suite reuses verdicts; any change decides afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TASKS = """
tasks:
  - id: a
    code: |
      import os
      def f(x):
          return x
    constraints:
      - {check: ruff, select: [F401]}
      - {check: construct, forbid: [loop]}
    tests:
      - {call: f(1), expect: 1}
  - id: slow
    timeout: 0.5
    code: |
      import time
      def f():
          time.sleep(30)
    tests:
      - {call: f(), expect: 1}
"""


def cached_ids(pytester: pytest.Pytester) -> dict[str, bool]:
    report = json.loads((pytester.path / "r.json").read_text())
    found = {}
    for task in report["tasks"]:
        for outcome in [*task["constraints"], task["functional"]]:
            if outcome:
                found[outcome["nodeid"].split("::", 1)[1]] = outcome["cached"]
    return found


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--codeif", "--codeif-report=r.json", *args)


def test_an_unchanged_suite_reuses_verdicts(pytester: pytest.Pytester) -> None:
    path = pytester.makefile(".codeif.yaml", t=TASKS)
    first = run(pytester)
    first.assert_outcomes(passed=2, failed=1, errors=1)
    assert not any(cached_ids(pytester).values())

    second = run(pytester)
    second.assert_outcomes(passed=2, failed=1, errors=1)
    second.stdout.fnmatch_lines(["verdicts reused from the cache: 4"])
    assert cached_ids(pytester) == {
        "a::ruff": True,
        "a::construct": True,
        "a::tests": True,
        "slow::tests": True,  # a timeout is kept, with the timeout in its key
    }

    # A longer timeout decides that task's run afresh (and times out again).
    Path(path).write_text(TASKS.replace("timeout: 0.5", "timeout: 0.6"))
    run(pytester).assert_outcomes(passed=2, failed=1, errors=1)
    assert cached_ids(pytester)["slow::tests"] is False

    # Changing the code decides that task afresh.
    Path(path).write_text(TASKS.replace("return x", "return x + 0"))
    run(pytester)
    assert not any(cached_ids(pytester).values())


@pytest.mark.parametrize("flag", ["--codeif-no-cache", "--cache-clear"])
def test_the_cache_can_be_bypassed(pytester: pytest.Pytester, flag: str) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    run(pytester)
    result = run(pytester, flag)
    result.assert_outcomes(passed=2, failed=1, errors=1)
    assert not any(cached_ids(pytester).values())


CONFTEST = """
import libcst as cst
from pytest_codeif import Check, Finding, Sample

class NoGlobals(Check):
    name = "no-globals"
    category = "Code Quality"
    satisfied_by = (Sample("x = 1\\n"),)
    violated_by = (Sample("def f():\\n    global x\\n"),)

    def evaluate(self, ctx):
        for module in ctx.modules():
            for node in module.walk():
                if isinstance(node, cst.Global) and {verdict}:
                    yield Finding("global statement", "no-globals", module.source.relpath,
                                  module.line_of(node))

def pytest_codeif_register_checks(registry):
    registry.register(NoGlobals)
"""


def test_editing_a_conftest_check_decides_afresh(pytester: pytest.Pytester) -> None:
    """The key holds the check's own source, wherever it was registered from."""
    pytester.makeconftest(CONFTEST.format(verdict="True"))
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: g\n    code: |\n      def f():\n          global x\n"
        "    constraints:\n      - {check: no-globals}\n",
    )
    run(pytester).assert_outcomes(failed=1)
    run(pytester).assert_outcomes(failed=1)
    assert cached_ids(pytester) == {"g::no-globals": True}

    pytester.makeconftest(CONFTEST.format(verdict="False"))  # the check now lets it pass
    run(pytester).assert_outcomes(passed=1)
    assert cached_ids(pytester) == {"g::no-globals": False}

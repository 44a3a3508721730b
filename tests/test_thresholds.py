"""The CI gate: `--codeif-fail-under` and `--codeif-max-violations` decide the exit status
(violated constraints alone no longer do), with a summary line per threshold."""

from __future__ import annotations

import json

import pytest

from pytest_codeif.report.figures.summary import Summary, Tally
from pytest_codeif.report.thresholds import (
    RateThreshold,
    Thresholds,
    judge,
    parse_rate,
    parse_thresholds,
)
from tests.conftest import CodeifRunner

# Two tasks, four constraints: `good` satisfies both of its own, `mixed` violates one.
TASKS = """
tasks:
  - id: good
    code: |
      def f(xs):
          return [x for x in xs]
    constraints:
      - {check: construct, require: [comprehension]}
      - {check: construct, id: no-loop, forbid: [loop]}
  - id: mixed
    code: |
      def g(xs):
          for x in xs:
              yield x
    constraints:
      - {check: construct, require: [generator]}
      - {check: construct, id: no-loop, forbid: [loop]}
"""


def test_parse_rates_and_gate() -> None:
    assert parse_rate("0.9") == RateThreshold("constraints", 0.9)
    assert parse_rate("90%") == RateThreshold("constraints", 0.9)
    assert parse_rate("tasks:0.8") == RateThreshold("tasks", 0.8)
    assert parse_rate(" constraints : 1 ") == RateThreshold("constraints", 1.0)
    for bad, said in [
        ("task:0.8", "unknown scope 'task'"),
        ("1.5", "out of range"),
        ("nan", "out of range"),
        ("-1%", "out of range"),
        ("ninety", "is not a rate"),
    ]:
        with pytest.raises(ValueError, match=said):
            parse_rate(bad)
    thresholds = parse_thresholds(["tasks:0.5", "0.7"], "3")
    assert thresholds == Thresholds(
        (RateThreshold("constraints", 0.7), RateThreshold("tasks", 0.5)), max_violations=3
    )
    assert thresholds.active
    assert not parse_thresholds([], None).active
    assert not parse_thresholds([], "").active
    assert parse_thresholds([], 0).max_violations == 0
    with pytest.raises(ValueError, match="given twice"):
        parse_thresholds(["0.5", "constraints:0.6"], None)
    with pytest.raises(ValueError, match="negative"):
        parse_thresholds([], "-1")
    with pytest.raises(ValueError, match="whole number"):
        parse_thresholds([], "many")


def test_judge() -> None:
    summary = Summary(constraints=Tally(satisfied=9, violated=1), tasks_all=Tally(satisfied=1))
    thresholds = Thresholds((RateThreshold("constraints", 0.9), RateThreshold("tasks", 1.0)), 0)
    results = judge(thresholds, summary)
    assert [v.passed for v in results] == [True, True, False]
    assert results[0].text == ("constraint rate 90.0% (9/10) reaches the required 90.0%")
    assert results[2].text == "1 violated constraint, more than the 0 allowed"
    empty = judge(Thresholds((RateThreshold("constraints", 0.1),)), Summary())
    assert [v.passed for v in empty] == [False]
    assert "no outcomes to rate" in empty[0].text


def test_gate_passes_and_fails(run_codeif: CodeifRunner) -> None:
    run_codeif.pytester.makefile(".codeif.yaml", t=TASKS)

    plain = run_codeif()
    plain.assert_outcomes(passed=3, failed=1)
    assert plain.ret == pytest.ExitCode.TESTS_FAILED
    assert "codeif gate" not in plain.stdout.str()

    passing = run_codeif("--codeif-fail-under=0.75", "--codeif-report=r.json")
    passing.assert_outcomes(passed=3, failed=1)  # the item still fails...
    assert passing.ret == pytest.ExitCode.OK  # ...but the gate decides the exit status
    passing.stdout.fnmatch_lines(
        [
            "pass constraint rate 75.0% (3/4) reaches the required 75.0%",
            "codeif gate passed: 1 violated constraint tolerated, exit status 0",
        ]
    )
    report = json.loads((run_codeif.pytester.path / "r.json").read_text())
    assert report["exit_status"] == 0

    failing = run_codeif("--codeif-fail-under=80%", "--codeif-fail-under=tasks:0.5")
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(
        [
            "FAIL constraint rate 75.0% (3/4) is under the required 80.0%",
            "pass task rate (all constraints) 50.0% (1/2) reaches the required 50.0%",
            "codeif gate FAILED: exit status 1 (tests failed)",
        ]
    )

    allowed = run_codeif("--codeif-max-violations=1")
    assert allowed.ret == pytest.ExitCode.OK
    allowed.stdout.fnmatch_lines(["pass 1 violated constraint, at most 1 allowed"])
    exceeded = run_codeif("--codeif-max-violations=0")
    assert exceeded.ret == pytest.ExitCode.TESTS_FAILED
    exceeded.stdout.fnmatch_lines(
        ["FAIL 1 violated constraint, more than the 0 allowed", "codeif gate FAILED*"]
    )


def test_a_passing_run_that_misses_a_threshold_fails(pytester: pytest.Pytester) -> None:
    """All items pass, but there is no constraint outcome to rate: the gate fails."""
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: only-tests
            code: "def f(): return 1"
            tests:
              - {call: 'f()', expect: 1}
        """,
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-fail-under=0.5")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL constraint rate: no outcomes to rate, 50.0% required",
            "codeif gate FAILED: exit status 1 (tests failed)",
        ]
    )


def test_the_gate_excuses_violations_only(pytester: pytest.Pytester) -> None:
    """A failing regular test, an undecidable constraint or a failing functional test
    still fail a run whose gate passed; -x stops before the gate is judged."""
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makepyfile(test_other="def test_fails():\n    assert False\n")
    args = ("--codeif", "-p", "no:cacheprovider", "--codeif-fail-under=0.5")
    other = pytester.runpytest(*args)
    other.assert_outcomes(passed=3, failed=2)
    assert other.ret == pytest.ExitCode.TESTS_FAILED
    other.stdout.fnmatch_lines(
        ["codeif gate passed, but 1 other failure fails the run: exit status 1"]
    )
    (pytester.path / "test_other.py").unlink()

    pytester.makefile(
        ".codeif.yaml",
        u="""
        tasks:
          - id: broken
            code: "def f(:"
            constraints:
              - {check: construct, forbid: [loop]}
          - id: wrong
            code: "def f(): return 2"
            tests:
              - {call: 'f()', expect: 1}
        """,
    )
    errors = pytester.runpytest(*args)
    errors.assert_outcomes(passed=3, failed=2, errors=1)
    assert errors.ret == pytest.ExitCode.TESTS_FAILED
    errors.stdout.fnmatch_lines(
        ["codeif gate passed, but 2 other failures fail the run: exit status 1"]
    )

    stopped = pytester.runpytest(*args, "-x", "t.codeif.yaml")
    assert stopped.ret == pytest.ExitCode.TESTS_FAILED
    stopped.stdout.fnmatch_lines(["codeif gate not judged: the run stopped early"])


def test_ini_thresholds_and_bad_values(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makeini("[pytest]\ncodeif_fail_under = tasks:0.6\ncodeif_max_violations = 5\n")
    from_ini = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    assert from_ini.ret == pytest.ExitCode.TESTS_FAILED
    from_ini.stdout.fnmatch_lines(
        [
            "FAIL task rate (all constraints) 50.0% (1/2) is under the required 60.0%",
            "pass 1 violated constraint, at most 5 allowed",
        ]
    )
    # The command line replaces the ini value.
    overridden = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-fail-under=0.5")
    assert overridden.ret == pytest.ExitCode.OK
    for bad in (
        "--codeif-fail-under=task:0.5",
        "--codeif-fail-under=2",
        "--codeif-max-violations=-1",
    ):
        result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", bad)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*pytest-codeif: --codeif-*"])

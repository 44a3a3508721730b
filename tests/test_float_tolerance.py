"""Floats compare within rounding by default, in call cases and in the `values` check;
`approx` changes the tolerance (a number is absolute, 0 is exact, `{rel, abs}` either)."""

from __future__ import annotations

import math
import textwrap
from typing import Any

import pytest

from pytest_codeif.functional.plain import DEFAULT_ABS, DEFAULT_REL, plain_equal, tolerance


@pytest.mark.parametrize(
    ("actual", "expected", "approx", "equal"),
    [
        # the default: rounding noise passes, a real difference fails
        (-5.933333333333334, -5.933333333333333, None, True),
        (0.1 + 0.2, 0.3, None, True),
        (math.sin(math.pi), 0.0, None, True),  # 1.2e-16: the absolute part near zero
        (1.0, 1.001, None, False),
        (1e-9, 0.0, None, False),  # far above rounding near zero
        (2, 2.0, None, True),
        (3, 4, None, False),
        (2**60 + 1, 2**60, None, False),  # ints compare exactly by default
        (10**400, 1.0, None, False),  # too large for a float: never close
        (float("nan"), float("nan"), None, True),
        (float("nan"), 1.0, None, False),
        (math.inf, math.inf, None, True),
        (math.inf, -math.inf, None, False),
        ([0.1 + 0.2, {"a": 0.7 + 0.1}], [0.3, {"a": 0.8}], None, True),
        (True, 1, None, False),  # booleans are no numbers here, tolerance or not
        # a number: an absolute tolerance, as `approx` has always meant; 0 is exact
        (1.0, 1.001, 0.01, True),
        (1.0, 1.001, 0.0001, False),
        (0.1 + 0.2, 0.3, 0, False),
        (-5.933333333333334, -5.933333333333333, 0, False),
        (float("nan"), float("nan"), 0, True),
        (101, 100, 2, True),  # a tolerance the task gives applies to ints too
        (1e12 + 1, 1e12, 1e-6, False),  # absolute only: no relative part added
        # a mapping: within either part
        (1e12 + 1, 1e12, {"rel": 1e-9}, True),
        (0.5, 0.0, {"abs": 0.6}, True),
        (1.1, 1.0, {"rel": 0.05, "abs": 0.01}, False),
    ],
)
def test_numbers_compare_within_the_tolerance(
    actual: Any, expected: Any, approx: Any, equal: bool
) -> None:
    assert plain_equal(actual, expected, approx) is equal


def test_the_default_is_rounding_level() -> None:
    default = tolerance(None)
    assert (default.rel, default.abs, default.floats_only) == (DEFAULT_REL, DEFAULT_ABS, True)
    assert (DEFAULT_REL, DEFAULT_ABS) == (1e-9, 1e-12)
    assert tolerance(0.5).rel == 0.0
    assert not tolerance(0.5).floats_only


TASKS = """\
tasks:
  - id: floats
    code: |
      def mean(xs):
          return sum(xs) / len(xs)
      def third():
          return 0.1 + 0.2
    tests:
      - {call: "mean([-8.9, -5.9, -3.0])", expect: -5.933333333333333}
      - {call: third(), expect: 0.3}
      - {name: exact, call: third(), expect: 0.3, approx: 0}
      - {name: too-far, call: third(), expect: 0.301}
      - {name: wide, call: third(), expect: 0.301, approx: 0.01}
      - name: relative
        call: "mean([1e12, 1e12 + 2])"
        expect: 1000000000000.5
        approx: {rel: 1.0e-9}
"""


def test_call_cases_compare_floats_within_rounding(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", tasks=TASKS)
    result = pytester.runpytest("--codeif", "-rA", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "2 of 6 functional test cases failed:",
            "*exact: expected 0.3, got 0.30000000000000004",
            "*too-far: expected 0.301, got 0.30000000000000004",
        ]
    )
    assert "mean([-8.9" not in result.stdout.str().split("functional test cases failed")[1]


VALUES = """\
tasks:
  - id: money
    code: |
      def total(prices):
          return sum(prices)
    tests:
      - {call: "total([0.1, 0.2])", expect: 0.3}
    constraints:
      - id: rounded
        check: values
        returns: {type: float, decimals: 2, max: 0.3, one-of: [0.3, 0.6]}
      - id: exact
        check: values
        returns: {decimals: 2}
        approx: 0
      - id: too-many-places
        check: values
        returns: {decimals: 1}
        approx: {abs: 0.00001}
"""


def test_values_meet_bounds_and_decimals_within_rounding(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", tasks=VALUES)
    result = pytester.runpytest("--codeif", "-rA", "-p", "no:randomly")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["*: the result = 0.30000000000000004 has more than 2 decimal places"]
    )
    outcomes = {
        line.split()[1].rsplit("::", 1)[-1]: line.split()[0]
        for line in result.outlines
        if line.startswith(("PASSED ", "FAILED "))
    }
    assert outcomes == {
        "tests": "PASSED",
        "rounded": "PASSED",
        "exact": "FAILED",
        "too-many-places": "PASSED",
    }


def test_a_malformed_tolerance_is_refused_where_it_is_written(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        tasks=textwrap.dedent(
            """\
            tasks:
              - id: t
                code: "def f():\\n    return 1.0\\n"
                tests:
                  - {call: f(), expect: 1.0, approx: {relative: 0.1}}
            """
        ),
    )
    result = pytester.runpytest("--codeif", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*tests[[]0[]].approx*"])
    assert result.ret != 0

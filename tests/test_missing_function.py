"""A function the code does not define is the code's fault: a violation of `complexity`
(as of the structural checks that name a function), a failure of a functional test,
never an error of the checker."""

from __future__ import annotations

import pytest

TASKS = """
tasks:
  - id: missing
    code: |
      def total(xs):
          return sum(xs)
    constraints:
      - check: complexity
        function: totl
        input: "[list(range(n))]"
        time: O(n)
      - check: signature
        function: totl
        params: [xs]
    tests:
      - call: totl([1, 2])
        expect: 3
  - id: bound-by-assignment
    code: |
      def _total(xs):
          return sum(xs)

      total = _total
    constraints:
      - check: complexity
        function: total
        input: "[list(range(n))]"
        time: O(n)
        sizes: [20000, 40000, 80000, 160000]
"""


def test_a_missing_function_is_a_violation_like_a_failing_call(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*constraint 'complexity' violated (check complexity):",
            "  t.codeif.yaml:*: [[]complexity[]] function `totl` is not defined"
            " (functions found: total)",
        ],
        consecutive=True,
    )
    result.stdout.fnmatch_lines(
        ["*[[]signature[]] function `totl` is not defined (functions found: total)"]
    )
    result.stdout.fnmatch_lines(["*totl([[]1, 2[]]): expected 3, but it raised NameError*"])
    assert "could not be decided" not in result.stdout.str()
    result.stdout.fnmatch_lines(["PASSED t.codeif.yaml::bound-by-assignment::complexity"])

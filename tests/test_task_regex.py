"""A task's regex meets text that hostile code controls (returned strings, its names):
it is matched in linear time, and a pattern the engine cannot take is a located error."""

from __future__ import annotations

import json

import pytest

TASKS = r"""
tasks:
  - id: backtrack
    code: |
      def f():
          return "a" * 40 + "!"

      def aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_():
          pass
    constraints:
      - check: values
        function: f
        returns: {pattern: '^(a+)+$'}
      - check: naming
        function: {pattern: '^(a+)+$'}
    tests:
      - {call: f(), expect: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}
  - id: backreference
    code: 'x = 1'
    constraints:
      - check: values
        returns: {items: {pattern: '(a)\1'}}
  - id: lookahead
    code: 'x = 1'
    constraints:
      - check: naming
        variable: {pattern: '(?=x)x'}
"""


def test_catastrophic_patterns_end_and_bad_ones_are_located(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    # Python's `re` takes hours on both constraints of `backtrack` (2**40 and 2**76 ways
    # to split the a's); a linear-time engine answers at once.
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    (task,) = [t for t in report["tasks"] if t["id"] == "backtrack"]
    by_check = {c["check"]: c for c in task["constraints"]}
    assert {k: c["status"] for k, c in by_check.items()} == {
        "values": "violated",
        "naming": "violated",
    }
    assert "does not match '^(a+)+$'" in by_check["values"]["evidence"][0]["message"]
    assert len(by_check["naming"]["evidence"]) == 2  # `f` and the long name
    result.stdout.fnmatch_lines(
        [
            "*t.codeif.yaml:*tasks[[]1[]].constraints[[]0[]]*returns.items.pattern*"
            "backreferences*not supported*",
            "*t.codeif.yaml:*tasks[[]2[]].constraints[[]0[]]*variable.pattern*lookahead*",
        ]
    )
    result.assert_outcomes(failed=2, passed=1, errors=2)

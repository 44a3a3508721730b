"""Checks of observed values (`values`, `types`) read the task's functional run: they work
when only they are selected, and their cached verdicts follow changes to the call cases."""

from __future__ import annotations

import json

import pytest

TASK = """
tasks:
  - id: avg
    code: |
      def average(xs):
          return round(sum(xs) / len(xs), {digits})
    entry-point: average
    constraints:
      - check: values
        returns: {{type: float, decimals: 2}}
      - check: types
        function: average
        param-types: [list]
        returns: float
    tests:
      - args: [[1, 2, 4]]
        expect: 2.33
"""


def statuses(pytester: pytest.Pytester) -> dict[str, str]:
    report = json.loads((pytester.path / "r.json").read_text())
    return {c["check"]: c["status"] for t in report["tasks"] for c in t["constraints"]}


def test_selected_alone_they_still_observe(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASK.format(digits=3))
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-k", "values")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(["*t.codeif.yaml:*: [[]values[]] *has more than 2 decimal places*"])


def cached(pytester: pytest.Pytester) -> list[bool]:
    report = json.loads((pytester.path / "r.json").read_text())
    return [c["cached"] for t in report["tasks"] for c in t["constraints"]]


def test_verdicts_follow_the_call_cases(pytester: pytest.Pytester) -> None:
    # Three decimals: the case's 2.333 breaks `values` (at most 2).
    task = TASK.format(digits=3).replace("expect: 2.33", "expect: 2.333")
    pytester.makefile(".codeif.yaml", t=task)
    result = pytester.runpytest("--codeif", "--codeif-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    assert statuses(pytester) == {"values": "violated", "types": "satisfied"}
    pytester.runpytest("--codeif", "--codeif-report=r.json")
    assert cached(pytester) == [True, True]
    # Only the call case changes (same code): it returns 1.5, which meets the spec, so
    # nothing may be reused and the verdict of `values` turns.
    other = task.replace("[[1, 2, 4]]", "[[1, 2]]").replace("expect: 2.333", "expect: 1.5")
    pytester.makefile(".codeif.yaml", t=other)
    result = pytester.runpytest("--codeif", "--codeif-report=r.json")
    result.assert_outcomes(passed=3)
    assert cached(pytester) == [False, False]
    assert statuses(pytester) == {"values": "satisfied", "types": "satisfied"}


def test_unannotated_return_judged_by_what_it_returned(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
tasks:
  - id: stats
    code: |
      def stats(words):
          return [len(words), set(words)]
    constraints:
      - check: types
        function: stats
        returns: tuple[int, set]
    tests:
      - function: stats
        args: [[a, b]]
        expect: [2, [a, b]]
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["*returned a list (no return annotation), expected `tuple[[]int, set[]]`*"]
    )


CALL_CASES = """
tasks:
  - id: sq
    code: |
      def sq(x):
          return x * x
    constraints:
      - check: values
        function: sq
        returns: {type: int, max: 50}
      - check: values
        id: inputs
        function: sq
        params: {x: {type: int, min: 0}}
      - check: types
        function: sq
        param-types: [int]
        returns: int
    tests:
      - call: sq(3)
        expect: 9
      - call: sq(x=-8)
        expect: 64
      - call: sq(len([1, 2]))
        expect: 4
"""


def test_call_expressions_count_as_cases_of_their_function(pytester: pytest.Pytester) -> None:
    """`call: sq(3)` is a case of `sq` (the README's own form), for `values` and `types`."""
    pytester.makefile(".codeif.yaml", t=CALL_CASES)
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {c["constraint"]: c for t in report["tasks"] for c in t["constraints"]}
    assert {k: c["status"] for k, c in by_id.items()} == {
        "values": "violated",  # sq(x=-8) returned 64 > 50
        "inputs": "satisfied",  # -8 is outside x >= 0, and no reject-outside asked
        "types": "satisfied",
    }
    assert "64" in json.dumps(by_id["values"]["evidence"])
    result.assert_outcomes(passed=3, failed=1)

"""The `complexity` check: growth measured in the sandbox, fitted in the trusted process."""

from __future__ import annotations

import pytest

from pytest_codeif.functional.growth import canonical, fit, within

TASKS = """
tasks:
  - id: sorts
    code: |
      def builtin_sort(xs):
          return sorted(xs)

      def selection_sort(xs):
          xs = list(xs)
          for i in range(len(xs)):
              j = min(range(i, len(xs)), key=xs.__getitem__)
              xs[i], xs[j] = xs[j], xs[i]
          return xs

      def broken(xs):
          raise RuntimeError("no")
    constraints:
      - check: complexity
        id: fast
        function: builtin_sort
        input: "[[random.random() for _ in range(n)]]"
        time: O(n log n)
        sizes: [4000, 8000, 16000, 32000]
      - check: complexity
        id: slow
        function: selection_sort
        input: "[[random.random() for _ in range(n)]]"
        time: O(n log n)
        sizes: [100, 200, 400, 800]
      - check: complexity
        id: crashes
        function: broken
        input: "[list(range(n))]"
        time: O(n)
  - id: bad
    code: "def f(xs):\n    return xs\n"
    constraints:
      - check: complexity
        function: f
        input: "[[]]"
        time: O(fast)
"""


def test_measured_growth_decides(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=1, errors=2)
    for line in (
        "*[[]complexity[]] time grows with slope *, like O(n^2); required O(n log n) (n=100: *",
        "*measuring `broken` at n=1000: RuntimeError: no*",
        "*'O(fast)' is not a complexity class this check knows*",
    ):
        result.stdout.fnmatch_lines([line])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("O(N log N)", "O(n log n)"),
        ("O(n*log(n))", "O(n log n)"),
        ("O(n²)", "O(n^2)"),
        ("O(1)", "O(1)"),
        ("o(2^n)", "O(2^n)"),
    ],
)
def test_class_names_are_read_leniently(text: str, expected: str) -> None:
    assert canonical(text) == expected


def test_fit_reads_degrees_not_log_factors() -> None:
    sizes = [1000, 2000, 4000, 8000, 16000]
    n_log_n = [s * (s.bit_length()) * 1e-8 for s in sizes]
    quadratic = [s * s * 1e-9 for s in sizes]
    assert within(fit(sizes, n_log_n, "time"), "O(n)")  # a log factor is within tolerance
    assert not within(fit(sizes, quadratic, "time"), "O(n log n)")
    assert fit(sizes, [10.0] * 5, "space").reads_as == "O(1) or O(log n)"

"""Edges of the library's checks that samples cannot show: notes and undecidable kinds."""

from __future__ import annotations

import json

import pytest


def outcomes(pytester: pytest.Pytester, text: str) -> dict[str, dict]:
    pytester.makefile(".codeif.yaml", t=text)
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    return {c["constraint"]: c for t in report["tasks"] for c in t["constraints"]}


def test_python_versions_ruff_does_not_know_are_judged_by_the_nearest(
    pytester: pytest.Pytester,
) -> None:
    found = outcomes(
        pytester,
        """
tasks:
  - id: t
    code: "import tomllib\\n"
    constraints:
      - {check: python-version, id: future, version: "3.99"}
      - {check: python-version, id: old, version: "3.2"}
""",
    )
    assert found["future"]["status"] == "satisfied"
    assert "nearest version ruff knows" in found["future"]["notes"][0]
    assert found["old"]["status"] == "violated"  # tomllib needs 3.11
    assert "nearest version ruff knows" in found["old"]["notes"][0]


def test_a_measurement_that_never_ends_is_a_timeout(pytester: pytest.Pytester) -> None:
    found = outcomes(
        pytester,
        """
tasks:
  - id: t
    timeout: 2
    code: |
      def spin(xs):
          while True:
              pass
    constraints:
      - {check: complexity, function: spin, input: "[list(range(n))]", time: O(n)}
""",
    )
    assert found["complexity"]["status"] == "error"
    assert found["complexity"]["error_kind"] == "timeout"

"""Messages the held-out review of issue #27 found unclear on Node backends: a check that
reads no JS/TS asked of a whole JavaScript project named an empty scope, `(...) scope ()
holds none`."""

from __future__ import annotations

import pytest

TASK = """
tasks:
  - id: node-app
    directory: app/
    constraints:
      - check: ruff
        select: [E]
      - check: ruff
        id: scoped
        select: [E]
        files: ["src/**"]
"""


def test_a_python_check_on_a_javascript_project_names_no_empty_scope(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".codeif.yaml", rules=TASK)
    src = pytester.path / "app" / "src"
    src.mkdir(parents=True)
    (src / "server.js").write_text("const express = require('express');\nexpress().listen(3000);\n")
    result = pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-rA")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["*check 'ruff' judges python code, and the code is written in javascript"]
    )
    result.stdout.fnmatch_lines(
        [
            "*check 'ruff' judges python code, and the constraint's scope (files: src/**)"
            " holds none: the code is written in javascript"
        ]
    )
    assert "scope ()" not in result.stdout.str()

"""Code nested deeper than libcst's recursive passes go is an error of size, located and
without a traceback: hundreds of implicitly concatenated strings parse, but libcst's
position pass recurses once per string."""

from __future__ import annotations

import json

import pytest


def test_deeply_nested_code_is_too_large_not_a_crash(pytester: pytest.Pytester) -> None:
    strings = " ".join(f'"s{i}"' for i in range(700))
    code = f"badName = 1\nx = ({strings})\n"
    pytester.makefile(
        ".codeif.yaml",
        t=f"tasks:\n  - id: deep\n    code: {json.dumps(code)}\n    constraints:\n"
        "      - check: naming\n        variable: snake_case\n",
    )
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*(too-large): solution.py: nested too deeply to locate*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*RecursionError*")

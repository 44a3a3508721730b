"""Issue 22.10: pytest marks every module of an installed plugin's distribution for
assertion rewriting, and a rewritten module is compiled from source on every run under
PYTHONDONTWRITEBYTECODE. The plugin's modules hold no assert and are imported as Python
imports them (`pytest_codeif._PlainImports`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pytest_codeif

PACKAGE = Path(pytest_codeif.__file__).parent

CONFTEST = """
import sys


def pytest_terminal_summary(terminalreporter):
    loaded = [name for name in list(sys.modules) if name.startswith("pytest_codeif")]
    rewritten = sorted(
        name
        for name in loaded
        if type(getattr(sys.modules[name], "__loader__", None)).__name__
        == "AssertionRewritingHook"
    )
    terminalreporter.write_line(f"codeif modules loaded: {len(loaded)}")
    terminalreporter.write_line(f"codeif modules rewritten: {rewritten}")
"""


def test_the_package_holds_no_assert() -> None:
    """Nothing is lost by keeping the modules out of rewriting; an `assert` is no way to
    check anything in them either (python -O drops it)."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def test_plugin_modules_are_not_rewritten(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    pytester.makeconftest(CONFTEST)
    pytester.makefile(
        ".codeif.yaml",
        one="tasks:\n  - id: t\n    code: |\n      def load_data():\n          return 1\n"
        "    constraints:\n      - check: naming\n        function: snake_case\n",
    )
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    lines = result.stdout.lines
    (loaded,) = [x for x in lines if x.startswith("codeif modules loaded:")]
    assert int(loaded.rsplit(" ", 1)[1]) > 20  # the collection, checks and report ran
    # The package's __init__ alone is imported through pytest's hook, before it can
    # step aside (and not even that from an editable install).
    (rewritten,) = [x for x in lines if x.startswith("codeif modules rewritten:")]
    assert rewritten in (
        "codeif modules rewritten: []",
        "codeif modules rewritten: ['pytest_codeif']",
    )

"""Code or a pattern nested far deeper than Python accepts is an error, never a crash:
libcst's native parser overflows its stack (a segmentation fault that ends pytest and
loses every verdict) on 1,500 nested brackets, thousands of unary operators or lambdas.
Python's parser refuses such code, and is asked before libcst wherever it has not
decided already (projects of 32 files or more, where ruff screens the syntax)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEEP = {
    "brackets": "x = " + "[" * 1500 + "]" * 1500 + "\n",
    "unary": "x = " + "-" * 20_000 + "1\n",
    "lambdas": "x = " + "lambda: " * 5000 + "1\n",
}

TASK = """\
tasks:
  - id: big
    directory: proj
    constraints:
      - check: pattern
        pattern: print(...)
"""


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_a_deep_file_in_a_screened_project_is_a_syntax_error(
    pytester: pytest.Pytester, kind: str
) -> None:
    proj = pytester.path / "proj"
    proj.mkdir()
    for i in range(31):  # with deep.py, 32 files: ruff screens the syntax
        (proj / f"m{i}.py").write_text(f"x = {i}\n")
    (proj / "deep.py").write_text(DEEP[kind])
    pytester.makefile(".codeif.yaml", rules=TASK)
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    assert result.ret == 1, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*(syntax-error)*deep.py*"])
    assert "Segmentation fault" not in result.stderr.str()


def test_a_deeply_nested_pattern_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    code = tmp_path / "ok.py"
    code.write_text("print(1)\n")
    pattern = "(" * 1999 + "x" + ")" * 1999
    done = subprocess.run(
        [sys.executable, "-m", "pytest_codeif.cli", "pattern", pattern, str(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "nested at most 60 deep" in done.stderr
    assert "Traceback" not in done.stderr


def test_codeif_pattern_on_a_deep_file_says_so(tmp_path: Path) -> None:
    deep = tmp_path / "deep.py"
    deep.write_text(DEEP["brackets"])
    done = subprocess.run(
        [sys.executable, "-m", "pytest_codeif.cli", "pattern", "print(...)", str(deep)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "too many nested parentheses" in done.stderr
    assert "Traceback" not in done.stderr

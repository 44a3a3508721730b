"""Syntax errors on large projects: ruff screens, Python decides (`engine/syntax_check.py`).

Every case compares the screened verdicts with Python's own parser on each file alone,
so a disagreement between the two parsers shows up as a failure here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codeif.code.unit import SourceFile
from pytest_codeif.engine import syntax_check
from pytest_codeif.engine.syntax_check import SCREEN_FROM, python_syntax_error, syntax_errors

GOOD = "def f(x):\n    return x + 1\n"
BROKEN = {
    "unclosed.py": "def f(:\n    pass\n",
    "indent.py": "def f():\n    x = 1\n     y = 2\n",
    "fstring.py": 'x = f"{1!}"\n',
    "nul.py": "x = 1\x00\n",
    "newer.py": "type Alias = int\n",  # a 3.12 statement: an error on older interpreters
    "match_kw.py": "match = 1\nmatch match:\n    case 1:\n        pass\n",  # valid since 3.10
    "bom.py": "\ufeffx = 1\n",  # read as the loader reads: the BOM is no character
    "double_bom.py": "\ufeff\ufeffx = 1\n",
    "lone_surrogate.py": 'x = "\udcff"\n',
    "pyi_stub.pyi": "def f(x: int) -> int: ...\n",
    "return_at_top.py": "return 5\n",  # the compiler's error, not the parser's: accepted
}


def _display(path: Path) -> str:
    return path.name


def _project(tmp_path: Path, extra: dict[str, str]) -> list[SourceFile]:
    files = {
        f"pkg/build/m{i}.py": GOOD for i in range(SCREEN_FROM)
    }  # `build`: ruff's default exclude
    files.update({f"pkg/{name}": text for name, text in extra.items()})
    sources = []
    for relpath, text in files.items():
        path = tmp_path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        # As `code/unit.py` reads a file: one leading BOM is dropped.
        read = path.read_bytes().decode("utf-8-sig", errors="surrogatepass")
        sources.append(SourceFile(relpath, read, path))
    return sources


def _messages(found: list[object]) -> list[str | None]:
    return [None if e is None else str(e) for e in found]


def test_screened_verdicts_are_pythons_own(tmp_path: Path) -> None:
    files = _project(tmp_path, BROKEN)
    screened = syntax_errors(files, _display, tmp_path)
    alone = [python_syntax_error(f, _display) for f in files]
    assert _messages(screened) == _messages(alone)
    by_name = {f.relpath.split("/")[-1]: e for f, e in zip(files, screened, strict=True)}
    assert by_name["unclosed.py"] is not None and by_name["indent.py"] is not None
    assert by_name["m0.py"] is None and by_name["pyi_stub.pyi"] is None


def test_inline_code_is_screened_from_a_copy(tmp_path: Path) -> None:
    task = tmp_path / "t.codeif.yaml"
    task.write_text("tasks: []\n", encoding="utf-8")
    lines = tuple(range(10, 13))
    files = [SourceFile(f"m{i}.py", GOOD, task, lines) for i in range(SCREEN_FROM)]
    files.append(SourceFile("bad.py", "def f(:\n", task, lines))
    found = syntax_errors(files, _display, tmp_path)
    assert found[:-1] == [None] * SCREEN_FROM
    assert str(found[-1]).startswith("t.codeif.yaml:10: ")  # the task file's own line


def test_python_decides_when_ruff_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_ruff() -> str:
        raise OSError("no ruff here")

    monkeypatch.setattr(syntax_check, "ruff_binary", no_ruff)
    files = _project(tmp_path, {"unclosed.py": BROKEN["unclosed.py"]})
    found = syntax_errors(files, _display, tmp_path)
    assert sum(e is not None for e in found) == 1


def test_a_ruff_false_alarm_is_overruled_by_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _project(tmp_path, {})
    everything = {str(f.origin) for f in files}
    monkeypatch.setattr(syntax_check, "_ruff_flagged", lambda *args: everything)
    assert syntax_errors(files, _display, tmp_path) == [None] * len(files)


def test_a_project_with_a_syntax_error_is_undecidable_end_to_end(
    pytester: pytest.Pytester,
) -> None:
    for i in range(SCREEN_FROM + 5):
        pytester.makepyfile(**{f"app/m{i}": f"import app.m{(i + 1) % 40}\n"})
    pytester.makepyfile(**{"app/__init__": "", "app/broken": "def f(:\n    pass\n"})
    pytester.makefile(
        ".codeif.yaml",
        t="tasks:\n  - id: app\n    directory: app\n    constraints:\n"
        "      - check: acyclic\n        ancestors: [app]\n",
    )
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*(syntax-error)*broken.py:1: *"])

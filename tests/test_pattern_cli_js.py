"""`codeif pattern` on JavaScript and TypeScript: a file is matched in its suffix's
language, by the rule's ast-grep form (`--language` for a pattern that is JS/TS's alone),
folders list their source files as a `directory:` unit does (node_modules skipped), and a
file the rule cannot read in its language is an error (exit 2), never "no match"."""

from __future__ import annotations

import sys

import pytest


def codeif(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`codeif ARGS...` in the pytester directory, in a process of its own."""
    return pytester.run(sys.executable, "-m", "pytest_codeif.cli", *args)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.path.joinpath("web").mkdir()
    pytester.path.joinpath("web/app.js").write_text(
        'const a = 1;\nconsole.log("x", a);\nfunction f() {\n  console.log(a);\n}\n'
    )
    pytester.path.joinpath("web/types.ts").write_text("export const n: number = 1;\neval(n);\n")
    pytester.path.joinpath("tool.py").write_text('print(1)\neval("1")\n')
    vendored = pytester.path.joinpath("web/node_modules/q")
    vendored.mkdir(parents=True)
    vendored.joinpath("index.js").write_text("console.log(1);\n")
    return pytester


def test_a_js_pattern_matches_the_js_files_of_a_folder(project: pytest.Pytester) -> None:
    result = codeif(project, "pattern", "--language", "javascript", "console.log($$$A)", ".")
    assert result.ret == 0, result.stderr.str()
    assert result.outlines == [
        'web/app.js:2:1: console.log("x", a)',
        "web/app.js:4:3: console.log(a)",
    ]


def test_a_pattern_of_both_languages_matches_each_file_in_its_own(
    project: pytest.Pytester,
) -> None:
    result = codeif(project, "pattern", "eval($X)", ".")
    assert result.ret == 0, result.stderr.str()
    assert result.outlines == ['tool.py:2:1: eval("1")', "web/types.ts:2:1: eval(n)"]


def test_a_file_the_rule_cannot_read_is_an_error(project: pytest.Pytester) -> None:
    result = codeif(project, "pattern", "--language", "python", "print($X)", "web/app.js")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*web/app.js: a javascript file, and the rule is Python's*"])
    result = codeif(project, "pattern", "--language", "javascript", "eval($X)", "tool.py")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*tool.py: not a javascript file (by its suffix)*"])


def test_a_js_syntax_error_is_said_at_its_line(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("bad.js").write_text("const a = ;\n")
    result = codeif(pytester, "pattern", "--language", "javascript", "a", "bad.js")
    assert result.ret == 2
    result.stderr.fnmatch_lines(["*bad.js:1: *"])

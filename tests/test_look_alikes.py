"""Look-alike identifiers (fixtures/hostile_names): Python folds identifiers to NFKC
when it compiles, so a fullwidth `os` is `os`; every check reads names that way, and the
verdict notes each look-alike it read."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import libcst as cst
import pytest

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.import_statements import scan_statements, statements_of_tree
from pytest_codeif.code.unit import SourceFile
from tests.conftest import FIXTURES

NOTE = "Python reads identifiers in NFKC form"


def test_each_look_alike_is_read_as_python_reads_it(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES / "hostile_names", pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=5, passed=1)
    yaml = "look_alikes.codeif.yaml"
    result.stdout.fnmatch_lines(
        [
            f"*{yaml}:6: [[]imports[]] imports `os`, but `os` is forbidden",
            f"note: {yaml}:6: `\uff4fs` is `os`: {NOTE}",
            f"*{yaml}:16: [[]calls[]] calls `eval`, which is forbidden",
            f"note: {yaml}:16: `\uff45val` is `eval`: {NOTE}",
            f"*{yaml}:22: [[]construct[]] `fact` uses recursion, which is forbidden",
            f"note: {yaml}:23: `\uff46act` is `fact`: {NOTE}",
            f"*{yaml}:30: [[]naming[]] function `loadData` does not follow the pattern*",
            f"note: {yaml}:30: `load\uff24ata` is `loadData`: {NOTE}",
            f"*{yaml}:38: [[]pattern[]] `exec(source)` matches the pattern `$F(...)`",
            f"note: {yaml}:38: `\uff45xec` is `exec`: {NOTE}",
        ],
        consecutive=False,
    )
    # A name that only looks foreign is snake_case all the same.
    result.stdout.no_fnmatch_line("*naming-snake-case::naming - *")


def parsed(code: str) -> ParsedModule:
    return ParsedModule(SourceFile("solution.py", code, Path("solution.py")))


def test_only_identifiers_fold_and_positions_are_the_written_code_s() -> None:
    module = parsed(
        "x = '\uff4fs'  # \uff45val\ny = \uff45val(\uff4fs.getcwd(), \uff4bey=1) + zz\n"
    )
    assert [(a.written, a.read) for a in module.look_alikes] == [
        ("\uff45val", "eval"),
        ("\uff4fs", "os"),
        ("\uff4bey", "key"),
    ]
    assert module.tree.code.splitlines()[0] == "x = '\uff4fs'  # \uff45val"  # never strings
    zz = next(n for n in module.nodes(cst.Name) if n.value == "zz")
    assert (module.positions[zz].start.line, module.positions[zz].start.column) == (2, 31)
    call = module.nodes(cst.Call)[0]
    assert module.qualified(call) == {"builtins.eval"}


def test_ascii_and_plain_unicode_code_is_not_rebuilt() -> None:
    for code in ("import os\n", "caf\u00e9 = 'd\u00e9j\u00e0 vu'\n"):
        module = parsed(code)
        assert module.look_alikes == ()
        assert module.tree.code == code


def test_a_deep_expression_with_a_look_alike_folds_without_recursion() -> None:
    module = parsed("x = \uff59" + " + \uff59" * 3000 + "\n")
    assert len(module.look_alikes) == 3001
    assert {n.value for n in module.nodes(cst.Name)} == {"x", "y"}


def test_scanned_imports_read_names_as_ast_does() -> None:
    code = (
        "import \uff4fs, \uff53ys as \uff53\n"
        "from \uff43ollections import \uff44eque\n"
        "if \uff34YPE_CHECKING:\n"
        "    import \uff54yping\n"
        "def f():\n"
        "    import e\u0301x\n"
    )
    scanned = scan_statements(code)
    assert scanned == statements_of_tree(ast.parse(code))
    assert [s.names for s in scanned] == [("os", "sys"), ("deque",), ("typing",), ("\u00e9x",)]
    assert scanned[2].type_checking


def test_a_string_annotation_is_code_python_reads_too() -> None:
    from pytest_codeif.checks.shared.annotations import normalize_annotation

    assert normalize_annotation('"\uff2cist[\uff49nt]"') == "list[int]"
    assert normalize_annotation("'\uff4fs'") == "os"  # evaluated, so a name after all

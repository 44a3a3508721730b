"""Task files in, pytest outcomes and the summary out: the examples and small suites."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from pytest_codeif.report.json_report import SCHEMA_PATH
from tests.conftest import CodeifRunner


def test_examples_outcomes_summary_and_report(run_codeif: CodeifRunner, examples: Path) -> None:
    result = run_codeif("examples", "--codeif-report=out/report.json")
    result.assert_outcomes(passed=43, failed=23)
    # Under -n 2 the failures of different tasks come in the order the workers finish.
    result.stdout.fnmatch_lines(
        [
            "*fib-loop::recursive*",
            "*fib.codeif.yaml:57: [[]construct[]] `fib` uses no recursion, which is required",
            "what to do: Decorate fib with @functools.lru_cache instead of a hand-made cache.",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*project/shop/routes.py:1: [[]imports[]] imports `sqlite3`, but*forbidden"]
    )
    result.stdout.fnmatch_lines(
        [
            "*= codeif: constraint satisfaction =*",
            "by check * satisfied * rate * violated * errors",
            "  calls * 1/2 * 50.0% * 1 * 0",
            "  constraints * 37/60 * 61.7% * 23 * 0",
            "  tasks: all constraints * 8/16 * 50.0% * 8 * 0",
            "  tasks: strict (+ functional tests) * 9/17 * 52.9% * 8 * 0",
            "  functional tests * 6/6 * 100.0% * 0 * 0",
        ]
    )
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "codeif: constraint satisfaction" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary info" in line)
    assert end - start > 10
    # The tables fit 80 columns; a file path (the report's) is printed whole.
    table = [line for line in lines[start:end] if "written to" not in line]
    assert all(len(line) <= 80 for line in table)

    report = json.loads((run_codeif.pytester.path / "out" / "report.json").read_text())
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    assert report["complete"] is True
    assert set(report["tool_versions"]) >= {"ruff", "mypy", "libcst", "pytest-codeif"}
    by_id = {task["id"]: task for task in report["tasks"]}
    assert by_id["fib-memo"]["metadata"] == {"model": "example-model-a", "source": "quickstart"}
    loop = {c["constraint"]: c for c in by_id["fib-loop"]["constraints"]}
    assert loop["recursive"]["status"] == "violated"
    assert loop["recursive"]["evidence"][0]["line"] == 57
    assert loop["ruff"]["status"] == "satisfied"
    assert by_id["shop"]["functional"]["cases_passed"] == 3
    assert report["summary"]["constraints"]["total"] == 60
    # The PACIFIC example: 8 answers of 3 steps, the generator's reference and a small model.
    answers = report["summary"]["answers"]
    assert answers["strict"]["prompt_level"] == {"satisfied": 5, "total": 8, "rate": 0.625}
    assert answers["loose"]["prompt_level"]["satisfied"] == 6
    assert answers["strict"]["not_satisfied"] == {
        "missing": 1,
        "invalid": 4,
        "wrong": 1,
        "undecided": 0,
    }


def test_without_codeif_nothing_is_collected(pytester: pytest.Pytester, examples: Path) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "examples")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "codeif:" not in result.stdout.str()
    assert "constraint satisfaction" not in result.stdout.str()


def test_node_ids_select_with_k_and_lf(pytester: pytest.Pytester, examples: Path) -> None:
    result = pytester.runpytest("--codeif", "examples", "-k", "fib-loop and mypy", "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*fib.codeif.yaml::fib-loop::mypy FAILED*"])
    rerun = pytester.runpytest("--codeif", "examples", "--lf", "-v")
    rerun.assert_outcomes(failed=1)


def test_junitxml_carries_evidence(pytester: pytest.Pytester, examples: Path) -> None:
    pytester.runpytest("--codeif", "examples", "--junitxml=junit.xml")
    root = ElementTree.parse(pytester.path / "junit.xml").getroot()
    # junitxml names an item `file::a::b` as classname `file.a`, name `b`.
    case = next(
        c
        for c in root.iter("testcase")
        if c.get("classname", "").endswith("fib.codeif.yaml.fib-loop")
        and c.get("name") == "recursive"
    )
    failure = case.find("failure")
    assert failure is not None
    assert "uses no recursion, which is required" in (failure.text or "")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["codeif_check"] == "construct"


def test_inline_code_lines_map_to_yaml(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        lines="""
        tasks:
          - id: t
            code: |
              import os


              def f(x):
                  while x:
                      x -= 1
                  return x
            constraints:
              - check: construct
                forbid: [loop]
              - check: ruff
                select: [F401]
        """,
    )
    result = pytester.runpytest("--codeif")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*lines.codeif.yaml:8: [[]construct[]] the code uses loop, which is forbidden",
            "*lines.codeif.yaml:4: [[]F401[]] `os` imported but unused",
        ]
    )


def test_file_unit_reports_the_real_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(solution="def f(x):\n    return eval(x)\n")
    pytester.makefile(
        ".codeif.yaml",
        task="""
        tasks:
          - id: t
            file: solution.py
            constraints:
              - check: calls
                forbid: [eval]
            tests:
              - call: f("1 + 1")
                expect: 2
        """,
    )
    result = pytester.runpytest("--codeif")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*solution.py:2: [[]calls[]] calls `eval`, which is forbidden"])


def test_errors_are_counted_apart(run_codeif: CodeifRunner) -> None:
    run_codeif.pytester.makefile(
        ".codeif.yaml",
        errs="""
        tasks:
          - id: no-code
            response: I cannot help with that.
            constraints:
              - check: construct
                forbid: [loop]
          - id: syntax
            code: |
              def f(:
                  pass
            constraints:
              - check: construct
                forbid: [loop]
              - check: ruff
                select: [E]
            tests:
              - call: f()
                expect: 1
          - id: good
            code: "x = 1\\n"
            constraints:
              - check: construct
                forbid: [loop]
        """,
    )
    result = run_codeif("-rE")
    result.assert_outcomes(passed=1, errors=4)
    result.stdout.fnmatch_lines(
        [
            "*could not be decided (no-code): the response holds no Python code*",
            "*could not be decided (syntax-error)*",
            "  constraints * 1/4 * 25.0% * 0 * 3",
            "errors by kind: no-code 1, syntax-error 3",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_levels_and_constraint_counts_are_reported(run_codeif: CodeifRunner) -> None:
    run_codeif.pytester.makefile(
        ".codeif.yaml",
        levels="""
        tasks:
          - id: one
            code: "xs = [x for x in range(3)]\\n"
            constraints:
              - {check: construct, require: [comprehension], level: 0}
          - id: two
            code: "xs = [x for x in range(3)]\\n"
            constraints:
              - {check: construct, require: [comprehension], level: 0}
              - {check: construct, forbid: [comprehension], level: 1}
        """,
    )
    result = run_codeif()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "constraint decay * constraints satisfied * tasks: all satisfied",
            "  level 0 * 2/2 * 100.0% * 1/1 * 100.0%",
            "  level 1 * 0/1 * 0.0% * 0/1 * 0.0%",
            "  1 constraint per task * 1/1 * 100.0% * 1/1 * 100.0%",
            "  2 constraints per task * 1/2 * 50.0% * 0/1 * 0.0%",
        ]
    )


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pytest_codeif.plugin\n"
        "print(sorted(m for m in ('libcst', 'yaml', 'jsonschema',"
        " 'pytest_codeif.collection.items') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_project_findings_name_their_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "proj" / "app").mkdir(parents=True)
    (pytester.path / "proj" / "app" / "__init__.py").write_text("")
    (pytester.path / "proj" / "app" / "core.py").write_text(
        "def area(w: int, h: int) -> int:\n    return w * h\n"
    )
    (pytester.path / "proj" / "app" / "api.py").write_text(
        "import os\nfrom app.core import area\n\n\ndef size() -> str:\n    return area(2, 3)\n"
    )
    (pytester.path / "proj" / "mypy.ini").write_text("[mypy]\nignore_errors = True\n")
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: proj
            directory: proj
            module: app.core
            constraints:
              - check: mypy
              - check: ruff
                select: [F401]
              - check: signature
                function: area
                params: [w, h]
            tests:
              - {call: 'area(2, 3)', expect: 6}
        """,
    )
    result = pytester.runpytest("--codeif")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*proj/app/api.py:6: [[]return-value[]] Incompatible return value type*",
            "*proj/app/api.py:1: [[]F401[]] `os` imported but unused",
        ],
        consecutive=False,
    )


def test_code_warnings_do_not_break_checks_under_w_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: t
            code: |
              import re
              PATTERN = re.compile("\\s+")
              def pair() -> (int, str):
                  return 1, "a"
            constraints:
              - check: construct
                forbid: [loop]
              - check: mypy
              - check: ruff
                select: [W605]
        """,
    )
    result = pytester.runpytest_subprocess("--codeif", "-W", "error", "-rf")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["FAILED t.codeif.yaml::t::mypy - constraint 'mypy' violated*"])
    result.stdout.fnmatch_lines(
        ["*t.codeif.yaml:6: [[]syntax[]] Syntax error in type annotation*", "*[[]W605[]]*"],
        consecutive=False,
    )

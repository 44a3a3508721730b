"""GitHub Actions annotations (escaped workflow commands, printed once by the controller)
and the properties junitxml writes for every item."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest

from pytest_codeif.report.annotations import (
    annotation_lines,
    command,
    enabled,
    escape_data,
    escape_property,
)
from tests.conftest import CodeifRunner

# `%`, `:` and `,` in a file name and in the constraint's message; a line break too.
TASKS = """
tasks:
  - id: t
    file: "odd,name:100%.py"
    constraints:
      - check: construct
        id: recursive
        function: fib
        require: [recursion]
        message: "Call fib from fib: 100%, really.\\nNo loops."
      - {check: ruff, select: [F401]}
  - id: broken
    code: |
      def f(:
          pass
    constraints:
      - {check: construct, forbid: [loop]}
"""
CODE = (
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
)


def write_suite(pytester: pytest.Pytester) -> None:
    (pytester.path / "odd,name:100%.py").write_text(CODE)
    pytester.makefile(".codeif.yaml", t=TASKS)


def test_escaping_follows_githubs_rules() -> None:
    assert escape_data("a%b\r\nc: d, e") == "a%25b%0D%0Ac: d, e"
    assert escape_property("a%b\r\nc: d, e") == "a%25b%0D%0Ac%3A d%2C e"
    assert command("error", "m: 1,2", file="a,b.py", line=3, title="x: y") == (
        "::error file=a%2Cb.py,line=3,title=x%3A y::m: 1,2"
    )
    assert command("warning", "no properties") == "::warning::no properties"


def test_enabled_under_github_actions_or_when_asked() -> None:
    assert enabled("auto", {"GITHUB_ACTIONS": "true"})
    assert not enabled("auto", {})
    assert not enabled("auto", {"GITHUB_ACTIONS": "false"})
    assert enabled("always", {})
    assert not enabled("never", {"GITHUB_ACTIONS": "true"})


def test_annotations_printed_once_and_escaped(
    run_codeif: CodeifRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    write_suite(run_codeif.pytester)
    result = run_codeif()
    result.assert_outcomes(passed=1, failed=1, errors=1)
    error = (
        "::error file=odd%2Cname%3A100%25.py,line=1,"
        "title=codeif construct/recursive violated (t)"
        "::`fib` uses no recursion, which is required"
        "%0AWhat to do: Call fib from fib: 100%25, really.%0ANo loops."
    )
    warning = (
        "::warning file=t.codeif.yaml,line=16,"
        "title=codeif construct/construct could not be decided (broken)"
        "::constraint 'construct' (check construct) could not be decided (syntax-error): "
    )
    commands = [line for line in result.outlines if line.startswith("::")]
    assert len(commands) == 2  # one violation, one undecidable: once each, not per worker
    # In node-id order: `t.codeif.yaml::broken::...` comes first.
    assert commands[0].startswith(warning)
    assert commands[1] == error


def test_annotations_off_by_default_and_on_request(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_suite(pytester)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    quiet = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    assert not [line for line in quiet.outlines if line.startswith("::")]
    asked = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-annotations")
    assert len([line for line in asked.outlines if line.startswith("::error ")]) == 1
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    refused = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-no-annotations")
    assert not [line for line in refused.outlines if line.startswith("::")]
    bad = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-o", "codeif_annotations=x")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_annotations_are_capped_per_level() -> None:
    records = [
        {
            "kind": "constraint",
            "nodeid": f"t.codeif.yaml::t::c{i}",
            "file": "t.codeif.yaml",
            "task": "t",
            "status": "violated",
            "check": "construct",
            "constraint": f"c{i}",
            "message": None,
            "line": 3,
            "evidence": [{"path": "a.py", "line": i + 1, "rule": "construct", "message": "m"}],
        }
        for i in range(5)
    ]
    lines = annotation_lines(records, rootdir=Path("/r"), root=Path("/r"), limit=3)
    assert len(lines) == 4
    assert lines[0] == "::error file=a.py,line=1,title=codeif construct/c0 violated (t)::m"
    assert lines[-1].startswith("codeif: 2 errors not annotated (at most 3 per level")


def test_junitxml_properties(run_codeif: CodeifRunner) -> None:
    run_codeif.pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: ok
            code: |
              def f(x):
                  return [y for y in x]
            constraints:
              - {check: construct, require: [comprehension], level: 2}
              - {check: construct, id: no-comp, forbid: [comprehension], category: Scenario}
          - id: broken
            code: "def f(:"
            constraints:
              - {check: construct, forbid: [loop]}
        """,
    )
    run_codeif("--junitxml=junit.xml")
    root = ElementTree.parse(run_codeif.pytester.path / "junit.xml").getroot()
    properties = {
        f"{case.get('classname')}.{case.get('name')}": {
            p.get("name"): p.get("value") for p in case.iter("property")
        }
        for case in root.iter("testcase")
    }
    assert properties["t.codeif.yaml.ok.construct"] == {
        "codeif_check": "construct",
        "codeif_category": "Algorithm",
        "codeif_level": "2",
        "codeif_status": "satisfied",
    }
    assert properties["t.codeif.yaml.ok.no-comp"] == {
        "codeif_check": "construct",
        "codeif_category": "Scenario",
        "codeif_status": "violated",
    }
    assert properties["t.codeif.yaml.broken.construct"] == {
        "codeif_check": "construct",
        "codeif_category": "Algorithm",
        "codeif_status": "error",
        "codeif_error_kind": "syntax-error",
    }


def test_invalid_task_files_and_lost_items_are_errors() -> None:
    records = [
        {
            "kind": "invalid",
            "nodeid": "bad.codeif.yaml::invalid-task-file",
            "file": "bad.codeif.yaml",
            "task": "(file)",
            "status": "error",
            "error_kind": "invalid-task",
            "error": "unknown key 'constrains'",
            "line": 4,
        },
        {
            "kind": "lost",
            "nodeid": "t.codeif.yaml::t::c",
            "file": "t.codeif.yaml",
            "task": "t",
            "status": "error",
            "error_kind": "crash",
            "error": "no verdict: worker 'gw1' crashed",
        },
    ]
    assert annotation_lines(records, rootdir=Path("/r/sub"), root=Path("/r")) == [
        "::error file=sub/bad.codeif.yaml,line=4,title=codeif%3A invalid-task"
        "::invalid task file: unknown key 'constrains'",
        "::error file=sub/t.codeif.yaml,title=codeif%3A crash::no verdict: worker 'gw1' crashed",
    ]

"""Functional tests: results compared as plain data in the pytest process; forgeries
and crashes never pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, FIXTURES


@pytest.fixture
def functional(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(FIXTURES / "functional", pytester.path / "fixtures" / "functional")
    shutil.copytree(EXAMPLES, pytester.path / "examples")
    return pytester


def outcomes_by_node(result: pytest.RunResult) -> dict[str, str]:
    found = {}
    for line in result.outlines:
        for word in ("PASSED", "FAILED", "ERROR"):
            if line.startswith(word + " "):
                found[line.split()[1]] = word
    return found


def test_forgeries_never_pass(functional: pytest.Pytester) -> None:
    result = functional.runpytest("--codeif", "-rA", "fixtures/functional/forgeries.codeif.yaml")
    outcomes = outcomes_by_node(result)
    assert len(outcomes) == 10
    assert "PASSED" not in outcomes.values()
    node = "fixtures/functional/forgeries.codeif.yaml::{}::tests"
    assert outcomes[node.format("always-equal")] == "FAILED"
    assert outcomes[node.format("int-subclass")] == "FAILED"
    assert outcomes[node.format("exit-at-import")] == "ERROR"
    assert outcomes[node.format("loops-forever")] == "ERROR"
    assert outcomes[node.format("pytest-file-exits-early")] == "ERROR"
    result.stdout.fnmatch_lines(
        [
            "*(crash): answer(): the process ended (exit code 0) before this case reported*",
            "*(timeout): answer(): timed out after 2 s*",
            "*(crash): checks/answer_checks.py::test_answer: the process ended (exit code 0)*",
            "*answer(): expected 42, but it returned solution.Anything, which is not plain data*",
            "*answer(): expected 42, but it returned solution.Sly, which is not plain data*",
            "*answer(): expected 42, but it raised SystemExit: 0",
            "*answer(): expected 42, got 41",
            "*answer(): expected 42, but it raised KeyboardInterrupt*",
            "*answer(): expected 42, got 0",
        ],
        consecutive=False,
    )


def test_plain_data_comparison(functional: pytest.Pytester) -> None:
    result = functional.runpytest("--codeif", "-rA", "fixtures/functional/plain_data.codeif.yaml")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "4 of 4 functional test cases failed:",
            "*value('bool'): expected 1, got True",
            "*value('float'): expected 2.4, got 2.5",
            "*value('none'): expected KeyError to be raised, but it returned None",
            "*value('missing'): expected 0, but it raised KeyError: 'missing'",
            "  test cases passed: 11/15",
        ]
    )


def test_a_failing_pytest_file_fails_with_its_message(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".py", behaviour="from solution import f\n\ndef test_f():\n    assert f() == 2\n"
    )
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: t
            code: "def f():\\n    return 1\\n"
            tests:
              - pytest: behaviour.py
        """,
    )
    result = pytester.runpytest("--codeif")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*behaviour.py::test_f: failed: *assert 1 == 2*"])


def test_the_environment_is_scrubbed(pytester: pytest.Pytester, monkeypatch) -> None:
    monkeypatch.setenv("CODEIF_TEST_SECRET", "hunter2")
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: t
            code: "import os\\n\\ndef secret():\\n    return os.environ.get('CODEIF_TEST_SECRET')"
            tests:
              - {call: secret(), expect: null}
        """,
    )
    pytester.runpytest("--codeif").assert_outcomes(passed=1)


def test_string_hashes_are_the_same_in_every_run(pytester: pytest.Pytester) -> None:
    """Sets and hashes of strings must not depend on the run: PYTHONHASHSEED=0 holds."""
    seeded = subprocess.run(
        [sys.executable, "-c", "print(hash('reading')); print(list({'x', 'y', 'z'}))"],
        env={"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    code = (
        "def h():\\n    return hash('reading')\\n\\n"
        "def order():\\n    return str(list({'x', 'y', 'z'}))"
    )
    pytester.makefile(
        ".codeif.yaml",
        t=f"""
        tasks:
          - id: t
            code: "{code}"
            tests:
              - {{call: h(), expect: {seeded[0]}}}
              - {{call: order(), expect: "{seeded[1]}"}}
        """,
    )
    for _ in range(3):
        pytester.runpytest("--codeif", "--codeif-no-cache").assert_outcomes(passed=1)


def test_a_module_not_installed_is_an_error_not_a_failure(pytester: pytest.Pytester) -> None:
    """Code importing a package the environment lacks cannot be judged: its cases are
    errors naming the module. A module that is installed (`json`) but reported missing by
    the code itself, and code failing its own import otherwise, still fail."""
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: needs-package
            code: "import codeif_no_such_package\\n\\ndef f():\\n    return 1\\n"
            tests:
              - {call: f(), expect: 1}
          - id: fakes-a-missing-module
            code: "raise ModuleNotFoundError('x', name='json')\\ndef f():\\n    return 1"
            tests:
              - {call: f(), expect: 1}
          - id: breaks-its-import
            code: "raise ValueError('broken')\\n\\ndef f():\\n    return 1\\n"
            tests:
              - {call: f(), expect: 1}
        """,
    )
    result = pytester.runpytest("--codeif", "-rA", "--codeif-report=r.json")
    result.assert_outcomes(failed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*(missing-module): f(): missing module `codeif_no_such_package`: importing "
            "`solution` needs it*",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text())
    kinds = {t["id"]: t["functional"]["error_kind"] for t in report["tasks"]}
    assert kinds == {
        "needs-package": "missing-module",
        "fakes-a-missing-module": None,
        "breaks-its-import": None,
    }

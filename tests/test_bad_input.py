"""Bad task files: one located error each, and the good tasks beside them still run."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES, copy_into

# file -> the lines its errors must show (file:line, key path, what was expected)
EXPECTED = {
    "invalid_yaml.codeif.yaml": [
        "*invalid_yaml.codeif.yaml:5: at (top level): invalid YAML: did not find expected*"
    ],
    "unknown_key.codeif.yaml": [
        "*unknown_key.codeif.yaml:11: at tasks[[]0[]].tests[[]0[]].expcet: unknown key 'expcet'"
        " (did you mean 'expect'?)*"
    ],
    "unknown_check.codeif.yaml": [
        "*unknown_check.codeif.yaml:7: at tasks[[]0[]].constraints[[]0[]].check: unknown check"
        " 'construt'; did you mean 'construct'?*"
    ],
    "bad_options.codeif.yaml": [
        "*bad_options.codeif.yaml:8: at tasks[[]0[]].constraints[[]0[]].require[[]0[]]: got a"
        " string ('recursoin') (did you mean 'recursion'?)*",
        "*bad_options.codeif.yaml:15: at tasks[[]1[]].constraints[[]0[]].requires: unknown key"
        " 'requires' (did you mean 'require'?)*",
        "*bad_options.codeif.yaml:21: *invalid options for check 'ruff': 'C9O1' selects no ruff"
        " rule; did you mean 'C901'?",
    ],
    "missing_path.codeif.yaml": [
        "*missing_path.codeif.yaml:3: at tasks[[]0[]].file: expected a file, but *does_not_exist.py"
        " does not exist",
        "*missing_path.codeif.yaml:8: at tasks[[]1[]].directory: expected a directory*",
    ],
    "duplicates.codeif.yaml": [
        "*duplicates.codeif.yaml:4: at tasks[[]0[]].code: duplicate key 'code' (first given on"
        " line 3)"
    ],
    "duplicate_id.codeif.yaml": [
        "*duplicate_id.codeif.yaml:7: at tasks[[]1[]].id: duplicate task id 'same-id'*",
        "*duplicate_id.codeif.yaml:19: at tasks[[]2[]].constraints[[]1[]].id: duplicate"
        " constraint id 'shape'*",
    ],
    "wrong_shape.codeif.yaml": [
        "*wrong_shape.codeif.yaml:2: at tasks[[]0[]]: give exactly one of `code`, `file`,*",
        "*wrong_shape.codeif.yaml:8: at tasks[[]1[]].constraints: expected a list, got a mapping*",
        "*wrong_shape.codeif.yaml:14: at tasks[[]2[]].constraints[[]0[]].level: expected an"
        " integer, got a string ('high')",
        "*wrong_shape.codeif.yaml:18: at tasks[[]3[]].tests[[]0[]].call: `call` must be a Python"
        " expression: *",
    ],
    "not_a_mapping.codeif.yaml": [
        "*not_a_mapping.codeif.yaml:1: at (top level): expected a mapping*"
    ],
    "empty.codeif.yaml": ["*empty.codeif.yaml:1: *the file is empty; expected a `tasks:` list"],
}
ERRORS = {"bad_options.codeif.yaml": 3, "missing_path.codeif.yaml": 2, "wrong_shape.codeif.yaml": 4}
PASSING = {"bad_options.codeif.yaml": 1, "duplicate_id.codeif.yaml": 1}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_bad_file_gets_located_errors(pytester: pytest.Pytester, name: str) -> None:
    copy_into(pytester, FIXTURES / "bad" / name)
    result = pytester.runpytest("--codeif", "-rE", "-p", "no:cacheprovider")
    result.assert_outcomes(
        errors=ERRORS.get(name, 1 if name != "duplicate_id.codeif.yaml" else 2),
        passed=PASSING.get(name, 0),
    )
    result.stdout.fnmatch_lines(EXPECTED[name], consecutive=False)
    assert "Traceback" not in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str()


def test_good_files_run_beside_bad_ones(pytester: pytest.Pytester) -> None:
    for path in sorted((FIXTURES / "bad").iterdir()):
        copy_into(pytester, path)
    copy_into(pytester, FIXTURES / "good" / "tiny.codeif.yaml")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert (
        outcomes["passed"] == 4
    )  # tiny (constraint + tests), bad_options' and duplicate_id's good task
    assert outcomes["errors"] == 17
    result.stdout.fnmatch_lines(["invalid task files or tasks: 17 (see the errors above)"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_broken_third_party_check_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_codeif import Check

        class NoCategory(Check):
            name = "no-category"

        def pytest_codeif_register_checks(registry):
            registry.register(NoCategory)
        """
    )
    copy_into(pytester, FIXTURES / "good" / "tiny.codeif.yaml")
    result = pytester.runpytest("--codeif")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*cannot register a check: *NoCategory: `category` must be a string*"]
    )

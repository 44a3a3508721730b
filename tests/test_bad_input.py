"""Bad task files: one error item per bad task, listing every problem in it, each located
and said plainly; the good tasks beside them still run. A task file pytest does not
collect says why."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.conftest import FIXTURES, REPO, copy_into

REPORT_SCHEMA = REPO / "pytest_codeif" / "report" / "report.schema.json"

# file -> the lines its errors must show (file:line, key path, what was expected)
EXPECTED = {
    "invalid_yaml.codeif.yaml": [
        "*invalid_yaml.codeif.yaml:5: at (top level): invalid YAML: did not find expected*"
    ],
    "unknown_key.codeif.yaml": [
        "*unknown_key.codeif.yaml:11: at tasks[[]0[]].tests[[]0[]].expcet: unknown key `expcet`"
        " (allowed: approx, call, expect, name, raises); did you mean `expect`?"
    ],
    "unknown_check.codeif.yaml": [
        "*unknown_check.codeif.yaml:7: at tasks[[]0[]].constraints[[]0[]].check: unknown check"
        " `construt` (known checks: *, construct, *); did you mean `construct`?"
    ],
    "bad_options.codeif.yaml": [
        "*bad_options.codeif.yaml:8: at tasks[[]0[]].constraints[[]0[]].require[[]0[]]:"
        " `recursoin` is not one of recursion, *; did you mean `recursion`?",
        "*bad_options.codeif.yaml:15: at tasks[[]1[]].constraints[[]0[]].requires: unknown key"
        " `requires` (allowed: *category, check, *forbid, *); did you mean `require`?",
        "*bad_options.codeif.yaml:21: *invalid options for check `ruff`: 'C9O1' selects no ruff"
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
        "*duplicate_id.codeif.yaml:7: at tasks[[]1[]].id: duplicate task id `same-id`*",
        "*duplicate_id.codeif.yaml:19: at tasks[[]2[]].constraints[[]1[]].id: duplicate"
        " constraint id `shape`*",
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


def _constraint_error(pytester: pytest.Pytester, constraint: str) -> pytest.RunResult:
    """Run a one-task file whose only constraint is `constraint` (its later lines
    indented by 8 spaces), which must give the task its one error."""
    pytester.makefile(
        ".codeif.yaml",
        t=f"""
tasks:
  - id: t
    code: "def f(x):\\n    return x\\n"
    constraints:
      - {constraint.strip()}
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    return result


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        (
            "check: naming\n        function: snakecase",
            "constraints[[]0[]].function: `snakecase` is not one of snake_case, camelCase,"
            " PascalCase, UPPER_CASE (or a {pattern: ...} mapping); did you mean `snake_case`?",
        ),
        (
            "check: context\n        symbols: [f]\n        mode: preserv",
            "constraints[[]0[]].mode: `preserv` is not one of preserve, reuse;"
            " did you mean `preserve`?",
        ),
        (
            "check: types\n        function: f\n        returns: int\n        param-match: exakt",
            "constraints[[]0[]].param-match: `exakt` is not one of exact, in-order;"
            " did you mean `exact`?",
        ),
        (
            "check: framework\n        framework: flsk",
            "constraints[[]0[]].framework: `flsk` is not one of aiohttp, *, unittest;"
            " did you mean `flask`?",
        ),
        (
            "check: values\n        returns: {type: strr}",
            "constraints[[]0[]].returns.type: `strr` is not one of str, int, float, *;"
            " did you mean `str`?",
        ),
        (
            "check: ruff\n        select: [D]\n        convention: gogle",
            "constraints[[]0[]].convention: `gogle` is not one of google, numpy, pep257;"
            " did you mean `google`?",
        ),
        (
            "check: construct\n        forbid: [lop]",
            "constraints[[]0[]].forbid[[]0[]]: `lop` is not one of recursion, *;"
            " did you mean `loop`?",
        ),
        (
            "check: naming\n        function: 3",
            "constraints[[]0[]].function: expected one of snake_case, camelCase, PascalCase,"
            " UPPER_CASE or a {pattern: ...} mapping, got an integer (3)",
        ),
    ],
    ids=["naming", "context", "types", "framework", "values", "ruff", "construct", "not-a-str"],
)
def test_an_enum_typo_names_the_allowed_values(
    pytester: pytest.Pytester, constraint: str, expected: str
) -> None:
    result = _constraint_error(pytester, constraint)
    result.stdout.fnmatch_lines([f"invalid task file t.codeif.yaml:*: at tasks[[]0[]].{expected}"])
    assert "is not valid under any of the given schemas" not in result.stdout.str()


@pytest.mark.parametrize(
    ("constraint", "expected"),
    [
        ("check: construct", "give at least one of `require` or `forbid`"),
        (
            "check: complexity\n        function: f\n        input: '[n]'",
            "give at least one of `time` or `space`",
        ),
        ("check: framework", "give exactly one of `framework` or `imports`"),
        (
            "check: framework\n        imports: [flask]",
            "give at least one of `subclass`, `decorator` or `call`",
        ),
        ("check: naming", "give at least one of `class`, `function`, *"),
    ],
    ids=["construct", "complexity", "framework", "framework-imports", "naming"],
)
def test_options_that_need_one_of_several_keys_say_which(
    pytester: pytest.Pytester, constraint: str, expected: str
) -> None:
    """The options schema's own anyOf/oneOf/minProperties hold (they were ignored: a
    `complexity` with neither `time` nor `space` was satisfied by anything)."""
    result = _constraint_error(pytester, constraint)
    result.stdout.fnmatch_lines([f"*:5: at tasks[[]0[]].constraints[[]0[]]: {expected}"])


def test_a_version_other_than_1_says_what_is_expected(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t="version: 2\ntasks: []\n")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["invalid task file t.codeif.yaml:1: at version: expected `1`, got `2`"]
    )


def test_a_top_level_task_key_is_named_with_its_near_miss(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t="task:\n  - id: x\n    code: 'x = 1'\n")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "invalid task file t.codeif.yaml:1: at task: unknown key `task` at the top level"
            " (allowed: tasks, version); did you mean `tasks`?"
        ]
    )
    assert "missing required key" not in result.stdout.str()  # the same mistake, said once


UNKNOWN_KEYS = """\
tasks:
  - id: x
    code: "def f():\\n    return 1\\n"
    entry-piont: f
    constraints:
      - check: naming
        function:
          patern: "^f$"
        levle: 1
    tests:
      - call: f()
        expcet: 1
"""


def test_unknown_keys_are_named_at_every_level(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=UNKNOWN_KEYS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "invalid task file t.codeif.yaml: 4 problems in task 'x':",
            "  t.codeif.yaml:4: at tasks[[]0[]].entry-piont: unknown key `entry-piont` (allowed:"
            " answers, code, constraints, *); did you mean `entry-point`?",
            "  t.codeif.yaml:8: at tasks[[]0[]].constraints[[]0[]].function.patern: unknown key"
            " `patern` (allowed: pattern); did you mean `pattern`?",
            "  t.codeif.yaml:9: at tasks[[]0[]].constraints[[]0[]].levle: unknown key `levle`"
            " (allowed: argument, attribute, category, *); did you mean `level`?",
            "  t.codeif.yaml:12: at tasks[[]0[]].tests[[]0[]].expcet: unknown key `expcet`"
            " (allowed: approx, call, expect, name, raises); did you mean `expect`?",
        ],
        consecutive=True,
    )
    assert "missing required key" not in result.stdout.str()


MANY_PROBLEMS = """\
tasks:
  - id: good-before
    code: "def f():\\n    return 1\\n"
    constraints:
      - check: construct
        forbid: [loop]
  - id: many
    code: "def f():\\n    return 1\\n"
    response: "f = 1"
    timeout: 0
    constraints:
      - check: construct
        require: [recursoin]
      - check: construt
      - check: naming
        function: snakecase
      - check: ruff
        select: [C9O1]
      - check: construct
        id: tests
        forbid: [loop]
      - check: construct
        require: [recursoin]
    tests:
      - call: "f("
        expect: 1
      - call: f()
        expcet: 1
      - call: f()
      - pytest: missing_checks.py
  - id: good-after
    code: "def f():\\n    return 1\\n"
    tests:
      - call: f()
        expect: 1
"""


def test_every_problem_of_a_task_is_listed_in_its_one_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=MANY_PROBLEMS)
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "-rE", "--codeif-report=report.json"
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "invalid task file t.codeif.yaml: 12 problems in task 'many':",
            # The task's own problems first...
            "  t.codeif.yaml:7: at tasks[[]1[]]: give exactly one of `code`, `file`, *",
            "  t.codeif.yaml:10: at tasks[[]1[]].timeout: expected a number more than 0, got `0`",
            # ...then its constraints' and test cases', in file order.
            "  t.codeif.yaml:13: at tasks[[]1[]].constraints[[]0[]].require[[]0[]]: `recursoin`*",
            "  t.codeif.yaml:14: at tasks[[]1[]].constraints[[]1[]].check: unknown check"
            " `construt`*",
            "  t.codeif.yaml:16: at tasks[[]1[]].constraints[[]2[]].function: `snakecase`*",
            "  t.codeif.yaml:17: at tasks[[]1[]].constraints[[]3[]]: invalid options for check"
            " `ruff`: 'C9O1'*",
            "  t.codeif.yaml:20: at tasks[[]1[]].constraints[[]4[]].id: the constraint id"
            " `tests` is reserved*",
            "  t.codeif.yaml:23: at tasks[[]1[]].constraints[[]5[]].require[[]0[]]: `recursoin`*",
            "  t.codeif.yaml:25: at tasks[[]1[]].tests[[]0[]].call: `call` must be a Python"
            " expression: *",
            "  t.codeif.yaml:28: at tasks[[]1[]].tests[[]1[]].expcet: unknown key `expcet`*",
            "  t.codeif.yaml:29: at tasks[[]1[]].tests[[]2[]]: a call case needs `expect`*",
            "  t.codeif.yaml:30: at tasks[[]1[]].tests[[]3[]].pytest: expected a file, but"
            " *missing_checks.py does not exist",
        ],
        consecutive=True,
    )
    # One error item per bad task, with the task's id as before; the good ones run.
    result.stdout.fnmatch_lines(["ERROR t.codeif.yaml::many - invalid task file t.codeif.yaml:*"])
    report = json.loads((pytester.path / "report.json").read_text())
    jsonschema.validate(report, json.loads(REPORT_SCHEMA.read_text()))
    (invalid,) = report["invalid"]
    assert invalid["key_path"] == "tasks[1]" and invalid["line"] == 7
    assert len(invalid["problems"]) == 12
    assert invalid["problems"][-1]["key_path"] == "tasks[1].tests[3].pytest"


def test_a_long_list_of_problems_is_cut(pytester: pytest.Pytester) -> None:
    constraints = "".join(
        f"      - check: construct\n        forbid: [lop{i}]\n" for i in range(25)
    )
    tasks = f'tasks:\n  - id: t\n    code: "x = 1"\n    constraints:\n{constraints}'
    pytester.makefile(".codeif.yaml", t=tasks)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "invalid task file t.codeif.yaml: 25 problems in task 't':",
            "  t.codeif.yaml:6: at tasks[[]0[]].constraints[[]0[]].forbid[[]0[]]: `lop0`*",
            "  t.codeif.yaml:44: at tasks[[]0[]].constraints[[]19[]].forbid[[]0[]]: `lop19`*",
            "  ... and 5 more",
        ]
    )
    assert "lop20" not in result.stdout.str()


GOOD_TASKS = """\
tasks:
  - id: t
    code: "x = 1"
    constraints:
      - check: construct
        forbid: [loop]
"""


def test_a_task_file_named_without_codeif_says_to_add_it(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", tasks=GOOD_TASKS)
    result = pytester.runpytest("tasks.codeif.yaml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: not found: *tasks.codeif.yaml",
            "tasks.codeif.yaml is a pytest-codeif task file: add --codeif to collect it",
        ],
        consecutive=True,
    )


@pytest.mark.parametrize("ini", [None, "*.tasks.yaml"])
def test_a_yaml_file_the_patterns_miss_says_so(pytester: pytest.Pytester, ini: str | None) -> None:
    if ini is not None:
        pytester.makeini(f"[pytest]\ncodeif_patterns = {ini}\n")
    pytester.makefile(".yaml", answers=GOOD_TASKS)
    result = pytester.runpytest("--codeif", "answers.yaml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    patterns = ini or "*.codeif.yaml, *.codeif.yml"
    result.stderr.fnmatch_lines(
        [
            "ERROR: not found: *answers.yaml",
            f"answers.yaml does not match codeif_patterns ({patterns}): rename it to match,"
            " or add a pattern to the codeif_patterns ini option",
        ],
        consecutive=True,
    )


def test_other_not_found_errors_are_left_as_pytest_says_them(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", tasks=GOOD_TASKS)
    pytester.makepyfile(test_plain="def test_a():\n    pass\n")
    result = pytester.runpytest("--codeif", "tasks.codeif.yaml::nope", "test_plain.py::nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: not found: *tasks.codeif.yaml::nope", "(no match in*"])
    assert "codeif_patterns" not in result.stderr.str()
    assert "add --codeif" not in result.stderr.str()

"""Generated files match the code, and the README's examples work."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
import yaml

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.docs import TASK_SCHEMA_PATH, readme_with_checks, task_schema_text
from tests.conftest import EXAMPLES, REPO

README = REPO / "README.md"


def test_shipped_task_schema_is_current() -> None:
    assert TASK_SCHEMA_PATH.read_text() == task_schema_text(builtin_registry()), (
        "run `python -m pytest_codeif.docs`"
    )


def test_readme_check_list_is_current() -> None:
    text = README.read_text()
    assert readme_with_checks(text, builtin_registry()) == text, (
        "run `python -m pytest_codeif.docs`"
    )


def test_shipped_schema_accepts_the_examples_and_rejects_typos() -> None:
    schema = json.loads(TASK_SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for path in EXAMPLES.rglob("*.codeif.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    bad = {"tasks": [{"id": "t", "code": "x", "constraints": [{"check": "ruff", "selct": ["E"]}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_readme_task_file_example_runs(pytester: pytest.Pytester) -> None:
    block = re.search(r"^```yaml\n(.*?)^```$", README.read_text(), re.S | re.M)
    assert block is not None
    pytester.makefile(".codeif.yaml", readme=block.group(1))
    pytester.mkdir("checks")
    (pytester.path / "checks" / "fib_checks.py").write_text(
        "from solution import fib\n\ndef test_fib():\n    assert fib(12) == 144\n"
    )
    result = pytester.runpytest("--codeif", "-v")
    result.assert_outcomes(passed=5)


def test_readme_gives_exactly_two_commands() -> None:
    text = README.read_text()
    quick = text[text.index("## Quick start") : text.index("## Task files")]
    commands = re.findall(r"```sh\n(.*?)```", quick, re.S)
    assert len(commands) == 2
    assert "pytest --codeif examples/" in commands[0]
    assert commands[1].strip() == "bash .ci/run"

"""The task-file reference, from the schema the loader validates against
(`pytest_codeif.taskfile.schema`): every key of a file, a task, a constraint and a test
case, with what it accepts. Written from the same pieces the shipped
`task.schema.json` is built from, so the page and the validator cannot disagree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_codeif.docs.schema_text import key_rules, keys_table, names
from pytest_codeif.taskfile.schema import case_schema, constraint_schema, file_schema, task_schema

PATH: Final = "reference/task-file.md"

_INTRO: Final = """# Task-file reference

Generated from the JSON Schema that every task file is validated against (shipped as
`pytest_codeif/taskfile/task.schema.json` for editors: see [Task files](../task-files.md)).
Unknown keys are refused at every level, with "did you mean" for near misses.
"""


def taskfile_page() -> str:
    """The whole reference page."""
    constraint = constraint_schema()
    task = task_schema(constraint)
    parts = [
        _INTRO,
        "## The file\n",
        _linked(keys_table(file_schema(task))),
        "## Tasks\n",
        "Each entry of `tasks`.\n",
        _linked(keys_table(task)),
        f"Give exactly one of {names([k for b in task['oneOf'] for k in b['required']])}: "
        "where the code under evaluation comes from.\n",
        "## Constraints\n",
        "Each entry of a task's `constraints` is one pytest item. These keys are shared by "
        "every check; every other key is an option of the check named by `check`, listed "
        "on [that check's page](../checks/index.md).\n",
        keys_table(constraint),
        *_rules(constraint),
        "## Test cases\n",
        "Each entry of a task's `tests` takes one of these forms; all together they are "
        "one more pytest item, `tests`.\n",
    ]
    for form in case_schema()["oneOf"]:
        parts += [f"### {_form_title(form)}\n", keys_table(form)]
    return "\n".join(parts).rstrip() + "\n"


def _linked(table: str) -> str:
    """`table` with the lists of tasks, constraints and test cases linked to their
    sections."""
    sections = {"tasks": "tasks", "constraints": "constraints", "tests": "test-cases"}
    for key, section in sections.items():
        for shown in (f"`{key}`", f"`{key}` (required)"):
            linked = f"| {shown} | list of [{key}](#{section}) |"
            table = table.replace(f"| {shown} | list of mapping |", linked)
    return table


def _rules(schema: Mapping[str, Any]) -> list[str]:
    rules = key_rules(schema)
    return ["\n".join(rules) + "\n"] if rules else []


def _form_title(form: Mapping[str, Any]) -> str:
    keys = form.get("x-branch-keys", [])
    return f"With {names(keys)}" if keys else "Other"

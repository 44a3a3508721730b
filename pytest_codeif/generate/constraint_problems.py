"""Base problems for `codeif generate constraints`: a JSONL file, one problem a line,
in one of three shapes (told apart line by line):

- human-eval: `task_id`, `prompt` (a signature and docstring), `canonical_solution`
  (the body that completes it), `test` (`def check(candidate): ...`), `entry_point`;
- MBPP: `task_id`, `text` (or `prompt`, as the sanitized set names it), `code`,
  `test_list` (assert lines), with `test_setup_code` or `test_imports` when present;
- plain: `id`, `prompt`, `solution` (a reference solution) and `tests` (call cases as a
  task file's `tests:` entries), with `entry_point` when the tests need one.

A line that is none of these, or whose fields have the wrong types, is an error at its
file and line saying what was expected; the other lines are still read.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pytest_codeif.generate.constraint_tests import (
    ProblemTests,
    called_function,
    from_assert_lines,
    from_human_eval,
    top_level_functions,
)

Shape = Literal["human-eval", "mbpp", "plain"]

#: The fields each shape reads (said to the user, so they know what was taken).
FIELDS_READ: Final[Mapping[str, tuple[str, ...]]] = {
    "human-eval": ("task_id", "prompt", "canonical_solution", "test", "entry_point"),
    "mbpp": ("task_id", "text|prompt", "code", "test_list", "test_setup_code|test_imports"),
    "plain": ("id", "prompt", "solution", "tests", "entry_point"),
}
_EXPECTED: Final = (
    "expected a JSON object in one of three shapes: human-eval {task_id, prompt, "
    "canonical_solution, test, entry_point}, MBPP {task_id, text, code, test_list} or "
    "plain {id, prompt, solution, tests}"
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.\-]+")
_IDENTIFIER: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class BaseProblem:
    """One base problem: what the model is asked, a reference that solves it (the
    witness), the function its tests call, and the tests."""

    id: str
    #: `id` made a task-file id (`HumanEval/0` -> `HumanEval-0`), unique in the file.
    key: str
    shape: Shape
    #: The base prompt shown to a model, before the constraints' wordings.
    prompt: str
    reference: str
    entry_point: str | None
    tests: ProblemTests
    line: int


@dataclass(frozen=True)
class BadLine:
    """A line that gave no problem, and why."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class Problems:
    """What a JSONL file gave: its problems in file order, its bad lines, and how many
    lines of each shape were read."""

    problems: list[BaseProblem] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    shapes: Counter[str] = field(default_factory=Counter)


class _Bad(Exception):
    """A line's problem, said as the error message."""


def _text(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise _Bad(f"`{name}` must be non-empty text, got {got}")
    return value.replace("\r\n", "\n")


def _id(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value) == "":
        raise _Bad(f"`{name}` must be text or an integer")
    return str(value)


def _entry(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _IDENTIFIER.match(value):
        raise _Bad("`entry_point` must be a Python identifier")
    return value


def fenced(code: str) -> str:
    """`code` as a Markdown Python block, its fence longer than any run of backticks
    inside it (a prompt's code, a reference given as a model's response)."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{code.rstrip()}\n{fence}"


def shape_of(record: Mapping[str, Any]) -> Shape | None:
    """The shape whose distinctive fields `record` has."""
    if "canonical_solution" in record:
        return "human-eval"
    if "test_list" in record:
        return "mbpp"
    if "solution" in record and "tests" in record:
        return "plain"
    return None


def _human_eval(record: Mapping[str, Any]) -> tuple[str, str, str, str | None, ProblemTests]:
    prompt = _text(record, "prompt")
    entry = _entry(record.get("entry_point"))
    if entry is None:
        raise _Bad("`entry_point` is missing: human-eval names the function its test calls")
    reference = prompt + _text(record, "canonical_solution")
    try:
        tests = from_human_eval(_text(record, "test"), entry)
    except ValueError as exc:
        raise _Bad(str(exc)) from None
    shown = (
        "Complete the following Python function. Answer with the whole function, and the "
        "imports it needs, in one Python code block.\n\n" + fenced(prompt)
    )
    return _id(record, "task_id"), shown, reference, entry, tests


def _mbpp(record: Mapping[str, Any]) -> tuple[str, str, str, str | None, ProblemTests]:
    text = _text(record, "text" if "text" in record else "prompt")
    reference = _text(record, "code")
    lines = record.get("test_list")
    if not isinstance(lines, list) or not lines or not all(isinstance(t, str) for t in lines):
        raise _Bad("`test_list` must be a non-empty list of assert lines")
    setup = record.get("test_setup_code") or ""
    imports = record.get("test_imports") or []
    if not isinstance(setup, str) or not isinstance(imports, list):
        raise _Bad("`test_setup_code` must be text and `test_imports` a list of lines")
    setup = "\n".join([*map(str, imports), setup])
    entry = _entry(record.get("entry_point")) or called_function(
        lines, top_level_functions(reference)
    )
    try:
        tests = from_assert_lines(lines, entry, setup)
    except ValueError as exc:
        raise _Bad(str(exc)) from None
    shown = (
        f"{text.strip()}\n\nYour code should pass these tests:\n\n"
        + fenced("\n".join(line.strip() for line in lines))
        + "\n\nAnswer with the code in one Python code block."
    )
    return f"mbpp-{_id(record, 'task_id')}", shown, reference, entry, tests


def _plain(record: Mapping[str, Any]) -> tuple[str, str, str, str | None, ProblemTests]:
    cases = record.get("tests")
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise _Bad("`tests` must be a list of call cases (objects such as {call, expect})")
    entry = _entry(record.get("entry_point", record.get("entry-point")))
    tests = ProblemTests(cases=tuple(dict(case) for case in cases))
    return _id(record, "id"), _text(record, "prompt"), _text(record, "solution"), entry, tests


_READERS: Final = {"human-eval": _human_eval, "mbpp": _mbpp, "plain": _plain}


def read_problems(path: Path, shown: str | None = None) -> Problems:
    """The problems of the JSONL file at `path` (named `shown` in messages); an
    unreadable file is `OSError` or `UnicodeDecodeError`, for the caller to say."""
    name = shown or str(path)
    found = Problems()
    keys: dict[str, int] = {}
    text = path.read_bytes().decode("utf-8-sig")
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:
            found.bad.append(BadLine(name, number, f"not valid JSON ({exc}); {_EXPECTED}"))
            continue
        shape = shape_of(record) if isinstance(record, dict) else None
        if shape is None:
            keys_shown = ", ".join(sorted(record)[:12]) if isinstance(record, dict) else "none"
            found.bad.append(BadLine(name, number, f"{_EXPECTED}; got keys: {keys_shown}"))
            continue
        try:
            problem_id, prompt, reference, entry, tests = _READERS[shape](record)
        except _Bad as exc:
            found.bad.append(BadLine(name, number, f"{shape} problem: {exc}"))
            continue
        # A task id: [A-Za-z0-9_.-], not starting with `-` or `.`.
        key = _UNSAFE.sub("-", problem_id).strip("-.") or "problem"
        if key in keys:
            message = f"problem id {problem_id!r} is already given at line {keys[key]}"
            found.bad.append(BadLine(name, number, message))
            continue
        keys[key] = number
        found.shapes[shape] += 1
        found.problems.append(
            BaseProblem(problem_id, key, shape, prompt, reference, entry, tests, number)
        )
    return found


def fields_read(shapes: Sequence[str]) -> str:
    """Which fields each shape read, for the summary: `human-eval: task_id, ...`."""
    return "; ".join(f"{shape}: {', '.join(FIELDS_READ[shape])}" for shape in shapes)

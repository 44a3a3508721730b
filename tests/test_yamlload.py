"""The YAML loader: positions kept, hostile documents refused with located errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_codeif.errors import TaskFileError
from pytest_codeif.taskfile.yamlload import load_task_yaml


def load(tmp_path: Path, text: str | bytes):
    path = tmp_path / "t.codeif.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return load_task_yaml(path)


def test_marks_follow_key_paths(tmp_path: Path) -> None:
    loaded = load(tmp_path, "tasks:\n  - id: a\n    code: |\n      x = 1\n")
    assert loaded.data == {"tasks": [{"id": "a", "code": "x = 1\n"}]}
    mark = loaded.marks[("tasks", 0, "code")]
    assert (mark.line, mark.style) == (3, "|")
    assert loaded.location(("tasks", 0, "nope")).line == 2


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (b"tasks:\n  - id: \xff\n", 2, "not valid UTF-8"),
        ("tasks:\n  - id: a\x00\n", 2, "NUL byte"),
        ("a: 1\na: 2\n", 2, "duplicate key 'a' (first given on line 1)"),
        ("base: &b {x: 1}\nderived:\n  <<: *b\n", 3, "merge keys"),
        ("tasks:\n\t- id: a\n", 2, "invalid YAML"),
        ("[" * 500 + "]" * 500, 1, "nesting deeper than"),
        ("a: 1\nb: !!int abc\n", 2, "invalid value: 'abc' is not a valid int"),
        ("tasks:\n  - {id: a, x: [{y: !!bool maybe}]}\n", 2, "'maybe' is not a valid bool"),
    ],
)
def test_hostile_documents_get_located_errors(
    tmp_path: Path, text: str | bytes, line: int, fragment: str
) -> None:
    with pytest.raises(TaskFileError) as info:
        load(tmp_path, text)
    assert info.value.location.line == line
    assert fragment in info.value.message


def test_alias_bomb_is_bounded(tmp_path: Path) -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(TaskFileError, match="alias bomb"):
        load(tmp_path, "\n".join(lines) + "\n")


# The file is rewritten for each example, so sharing tmp_path between examples is fine.
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.sampled_from(list("tasks:-id &*[]{}|>\n\t'\"#1x")), max_size=120))
def test_loader_only_ever_raises_task_file_errors(tmp_path: Path, text: str) -> None:
    try:
        load(tmp_path, text)
    except TaskFileError as exc:
        assert exc.location.line >= 1


def test_dates_stay_text_so_reports_stay_json(tmp_path: Path) -> None:
    loaded = load(tmp_path, "metadata: {when: 2025-07-01, blob: !!binary aGk=}\n")
    assert loaded.data == {"metadata": {"when": "2025-07-01", "blob": "aGk="}}


def test_a_large_file_without_aliases_loads(tmp_path: Path) -> None:
    text = "items:\n" + "".join(f"  - {{a: {i}, b: [x, y]}}\n" for i in range(60_000))
    loaded = load(tmp_path, text)
    assert len(loaded.data["items"]) == 60_000  # 360,000 nodes, none through an alias


def test_one_anchor_shared_by_many_tasks_is_not_a_bomb(tmp_path: Path) -> None:
    text = "shared: &c [{check: ruff, select: [E, W]}, {check: mypy}]\ntasks:\n"
    text += "".join(f"  - {{id: t{i}, code: x, constraints: *c}}\n" for i in range(20_000))
    loaded = load(tmp_path, text)
    assert loaded.data["tasks"][-1]["constraints"][1] == {"check": "mypy"}


def test_deep_positions_are_those_of_a_full_walk(tmp_path: Path) -> None:
    text = "tasks:\n  - id: a\n    tests:\n      - input:\n          args:\n            - 1\n"
    loaded = load(tmp_path, text)
    assert max(len(path) for path in loaded.marks) == 4  # kept: what a valid file needs
    assert loaded.location(("tasks", 0, "tests", 0, "input", "args", 0)).line == 6
    assert loaded.key_location(("tasks", 0, "tests", 0, "input", "args")).line == 5
    assert loaded.location(("tasks", 0, "tests", 0, "input", "nope")).line == 5
    assert loaded.mark(("tasks", 0, "tests", 0, "input")) is not None

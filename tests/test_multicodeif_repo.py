"""`codeif import multicodeif REPO`: a checkout of the MultiCodeIF repository, read as it
is (fixtures/multicodeif_repo: the project's own tasks in the repository's layout), gives
the task files `import_multicodeif` writes from the converted tasks.jsonl and
responses/<model>.jsonl; what is left out is listed with the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.cli import main
from pytest_codeif.importers.multicodeif import ImportResult, import_multicodeif
from pytest_codeif.importers.multicodeif_language import Language, language_of
from pytest_codeif.importers.multicodeif_repo import import_repository
from tests.conftest import FIXTURES

REPO = FIXTURES / "multicodeif_repo"
#: The fixture's Python tasks (the Rust one and the one naming no language are left out).
PYTHON = [
    "algorithm_time_complexity/1",
    "code_convention_naming_convention/1",
    "example/1",
    "input_output_output_order/1",
    "syntax_library/1",
]


def _converted(folder: Path) -> tuple[Path, list[Path]]:
    """The fixture as the corpus converts the repository: tasks.jsonl (key
    `<type>/<id>`, tests from testcase/), responses/<model>.jsonl and
    self_repair/R<k>-<model>.jsonl (each record's last turn), Python tasks only."""
    tasks: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    repaired: list[dict[str, Any]] = []
    for path in sorted((REPO / "dataset/instructions/single_level").glob("*.json")):
        tests = json.loads((REPO / "dataset/instructions/testcase" / path.name).read_text())
        for task, with_tests in zip(json.loads(path.read_text()), tests, strict=True):
            key = f"{path.stem}/{task['id']}"
            if key in PYTHON:
                record = {"key": key, "type_file": path.stem, **task}
                record.setdefault("constraint", None)
                tasks.append(
                    record | ({"tests": with_tests["tests"]} if with_tests["tests"] else {})
                )
    for setting, into in (("single_level", answers), ("self_repair/R1", repaired)):
        for path in sorted((REPO / "results" / setting / "model-a").glob("*.json")):
            if "20241231" in path.name:  # the older run
                continue
            kind = path.name.split("_model-a")[0]
            for record in json.loads(path.read_text()):
                key = f"{kind}/{record['id']}"
                if key in PYTHON or key == "example/9":
                    answer = {"key": key, "model": "model-a", "response": record["response"][-1][1]}
                    into.append(answer | ({"round": "R1"} if into is repaired else {}))
    files = {
        "tasks.jsonl": tasks,
        "responses/model-a.jsonl": answers,
        "self_repair/R1-model-a.jsonl": repaired,
    }
    for name, records in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder / "tasks.jsonl", [
        folder / "responses/model-a.jsonl",
        folder / "self_repair/R1-model-a.jsonl",
    ]


def _tasks(path: Path) -> list[dict[str, Any]]:
    """The file's tasks, `metadata.responses` (the file each came from) left out."""
    tasks: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["tasks"]
    for task in tasks:
        task["metadata"].pop("responses")
    return tasks


def _notes(result: ImportResult) -> list[tuple[str, str, str]]:
    return sorted((u["key"], u.get("model", ""), u["reason"]) for u in result.unmapped)


def test_the_repository_gives_the_task_files_of_the_converted_data(tmp_path: Path) -> None:
    tasks_path, responses = _converted(tmp_path / "converted")
    expected = import_multicodeif(tasks_path, responses, tmp_path / "from-jsonl")
    found = import_repository(REPO, tmp_path / "from-repo")
    assert [p.name for p in found.files] == ["model-a.codeif.yaml", "R1-model-a.codeif.yaml"]
    assert sorted(p.name for p in expected.files) == sorted(p.name for p in found.files)
    for path in found.files:
        mine = _tasks(path)
        theirs = {t["id"]: t for t in _tasks(tmp_path / "from-jsonl" / path.name)}
        assert {t["id"]: t for t in mine} == theirs
    assert (found.tasks, found.constraints) == (expected.tasks, expected.constraints) == (5, 5)
    # Every note on a mapped record is the same; the checkout adds what it left out.
    mapped = [u for u in found.unmapped if "model" in u]
    assert sorted((u["key"], u["reason"]) for u in mapped) == sorted(
        (u["key"], u["reason"]) for u in expected.unmapped if "model" in u
    )


def test_each_task_names_its_results_file_and_round(tmp_path: Path) -> None:
    import_repository(REPO, tmp_path)
    document = yaml.safe_load((tmp_path / "model-a.codeif.yaml").read_text(encoding="utf-8"))
    # Tasks in the order of their types, then of the results files; the complexity task
    # has nothing to check (no tests to time) and is listed instead.
    assert [t["metadata"]["key"] for t in document["tasks"]] == sorted(PYTHON)[1:]
    library = next(t for t in document["tasks"] if t["metadata"]["key"] == "syntax_library/1")
    assert library["metadata"]["responses"] == (
        "results/single_level/model-a/syntax_library_model-a-Instruct_20250101_120000.json"
    )
    assert library["metadata"]["model"] == "model-a"  # the folder's name, not the file's
    assert library["metadata"]["round"] == "R0"
    assert "Counter" in library["response"]  # the newest run's answer, its last turn
    [repaired] = yaml.safe_load((tmp_path / "R1-model-a.codeif.yaml").read_text())["tasks"]
    assert repaired["metadata"]["round"] == "R1"
    assert "addItem" in repaired["response"]


def test_what_is_left_out_is_listed_once_with_the_reason(tmp_path: Path) -> None:
    result = import_repository(REPO, tmp_path)
    left = {(u["file"], u.get("key"), u["reason"]) for u in result.unmapped if "model" not in u}
    instructions = "dataset/instructions/single_level"
    results = "results/single_level/model-a"
    assert left == {
        (
            f"{instructions}/syntax_library.json",
            "syntax_library/2",
            "written in 'Rust' (read from its answer); language not supported yet",
        ),
        (
            f"{instructions}/code_convention_naming_convention.json",
            "code_convention_naming_convention/2",
            "names no language (in its answer, prompt's code block or prompt); language not "
            "supported yet",
        ),
        (
            f"{results}/syntax_library_model-a-Instruct_20241231_090000.json",
            None,
            "an older run of the same type and model "
            f"({results}/syntax_library_model-a-Instruct_20250101_120000.json is read)",
        ),
        (
            f"{results}/example_model-a-Instruct_20250101_122000.json:2",
            "example/9",
            "no task record with this key",
        ),
    }


def test_the_command_reads_a_checkout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert (
        main(["import", "multicodeif", str(REPO), "--setting", "single_level", "-o", str(out)]) == 0
    )
    assert sorted(p.name for p in out.iterdir()) == ["model-a.codeif.yaml", "unmapped.jsonl"]
    printed = capsys.readouterr().out
    assert "codeif import: 4 tasks" in printed  # round 0 only
    assert "written in ... (read from its answer); language not supported yet" in printed
    listed = [json.loads(line) for line in (out / "unmapped.jsonl").read_text().splitlines()]
    assert any(item["key"] == "syntax_library/2" for item in listed)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["tasks.jsonl"], "give the responses files after"),
        (["."], "is not a MultiCodeIF checkout"),
    ],
)
def test_the_command_says_what_is_missing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.jsonl").write_text("")
    assert main(["import", "multicodeif", *arguments, "-o", "out"]) == 2
    assert message in capsys.readouterr().err


def test_imported_checkout_runs(pytester: pytest.Pytester) -> None:
    import_repository(REPO, pytester.path / "imported")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "imported")
    result.assert_outcomes(passed=7, failed=1)  # round 0 named a method in snake_case; R1 fixed it


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"answer": "python;Collections", "prompt": "Write a Rust program"}, ("Python", "answer")),
        ({"answer": "Cpp;vector", "prompt": ""}, ("C++", "answer")),
        (
            {"answer": "```python\nx = 1\n```", "prompt": "Mirror this:\n```java\nclass A {}\n```"},
            ("Java", "prompt's code block"),
        ),
        ({"answer": "O(n)", "prompt": "Write a C++ function in O(n)."}, ("C++", "prompt")),
        ({"answer": "O(n)", "prompt": "Use JavaScript, not Java."}, ("JavaScript", "prompt")),
        ({"answer": "O(1)", "prompt": "Let's go: write it in Go."}, ("Go", "prompt")),
        ({"answer": "```python\nx = 1\n```", "prompt": "Build a service."}, (None, "")),
    ],
)
def test_a_tasks_language_is_read_from_the_task(
    record: dict[str, str], expected: tuple[str | None, str]
) -> None:
    assert language_of(record) == Language(*expected)

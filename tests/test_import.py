"""`codeif import multicodeif`: records become task files that run, with every record
that cannot be mapped listed (never dropped), and the benchmark's key kept for joining."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pytest_codeif.cli import main
from pytest_codeif.importers.entry_choice import named_function
from pytest_codeif.importers.multicodeif import Unmapped, map_constraint
from tests.conftest import CORPUS, FIXTURES

SOURCE = FIXTURES / "multicodeif"


def run_import(out: Path) -> tuple[dict, list[dict]]:
    code = main(
        [
            "import",
            "multicodeif",
            str(SOURCE / "tasks.jsonl"),
            str(SOURCE / "responses" / "model-a.jsonl"),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    document = yaml.safe_load((out / "model-a.codeif.yaml").read_text())
    unmapped = [json.loads(line) for line in (out / "unmapped.jsonl").read_text().splitlines()]
    return document, unmapped


def test_records_map_to_checks_and_the_rest_is_listed(tmp_path: Path, capsys) -> None:
    document, unmapped = run_import(tmp_path)
    tasks = {t["metadata"]["key"]: t for t in document["tasks"]}
    assert tasks["syntax_library/1"]["constraints"][0] | {"id": None} == {
        "id": None,
        "check": "imports",
        "require": ["Collections"],
        "category": "Environment",
    }
    assert tasks["syntax_library/1"]["entry-point"] == "word_count"
    order = tasks["input_output_output_order/2"]["constraints"][0]
    assert (order["check"], order["returns"]) == ("types", "tuple[int, float]")
    naming = tasks["code_convention_naming_convention/3"]["constraints"][0]
    assert naming == {
        "id": "naming",
        "check": "naming",
        "class": "PascalCase",
        "function": "camelCase",
        "category": "Coding Style",
    }
    exemplar = tasks["example/8"]["constraints"][0]
    assert (exemplar["function"], exemplar["example-function"]) == ("safe_divide", "safe_add")
    assert tasks["example/8"]["metadata"]["model"] == "model-a"
    reasons = {(u["key"], u["reason"].split(" ")[0]) for u in unmapped}
    assert ("code_convention_naming_convention/3", "variable:") in reasons  # kebab-case part
    assert ("code_convention_brace_block_formatting/4", "brace") in reasons
    assert ("algorithm_time_complexity/5", "complexity") in reasons
    assert ("situation/7", "scenario") in reasons  # read for what it names: print
    assert ("mystery_type/9", "unknown") in reasons
    assert ("not_in_tasks/10", "no") in reasons
    # A record with nothing to check is listed, not written as a task that cannot run.
    assert "code_convention_brace_block_formatting/4" not in tasks
    assert any(u["reason"] == "task not written: nothing to check" for u in unmapped)
    printed = capsys.readouterr().out
    assert "not mapped" in printed and "brace style ... is not Allman, K&R or 1TBS" in printed


def test_imported_tasks_run_and_join_back(pytester: pytest.Pytester) -> None:
    run_import(pytester.path / "imported")
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json", "imported"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    verdicts = {
        (t["metadata"]["key"], c["check"]): c["status"]
        for t in report["tasks"]
        for c in t["constraints"]
    }
    assert verdicts[("syntax_library/1", "imports")] == "satisfied"  # case-insensitive
    assert verdicts[("input_output_output_order/2", "types")] == "satisfied"  # observed
    assert verdicts[("code_convention_naming_convention/3", "naming")] == "satisfied"
    assert verdicts[("data_structure_operation/6", "data-structure")] == "violated"  # no popleft
    assert verdicts[("example/8", "exemplar")] == "satisfied"
    assert verdicts[("situation/7", "calls")] == "satisfied"  # the scenario says print
    assert not report["invalid"], report["invalid"]
    result.assert_outcomes(passed=8, failed=1)  # the deque is never popped from the left


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"type_file": "input_output_input_type", "answer": "python;f;Hypergraph"}, "type 'Hyp"),
        ({"type_file": "input_output_input_range", "answer": "python;f;int;odd"}, "has none"),
        ({"type_file": "syntax_framework", "answer": "python;bottle;"}, "framework 'bottle'"),
        ({"type_file": "algorithm_type", "answer": "Huffman coding"}, "algorithm 'Huffman"),
        ({"type_file": "data_structure_size", "answer": "python;dict"}, "the answer"),
    ],
)
def test_unmappable_answers_say_why(record: dict, reason: str) -> None:
    with pytest.raises(Unmapped, match=reason):
        map_constraint({"prompt": "", **record}, None)


def test_complexity_shapes_and_ranges_map_to_checks() -> None:
    def mapped(entry: str | None = "f", **record: object) -> list[dict]:
        return map_constraint({"prompt": "", "tests": [{}], **record}, entry).constraints

    # A "space" record whose prompt asks for time: both are measured; `k` is held.
    kth = mapped(
        type_file="algorithm_space_complexity",
        answer="O(k)",
        prompt="Find the k-th smallest with a time complexity of O(k).",
    )
    time_and_space = {"time": "O(1)", "space": "O(1)"}
    assert kth == [{"check": "complexity", "function": "f", **time_and_space, "hold": ["k"]}]
    with pytest.raises(Unmapped, match="complexity class 'O"):
        mapped(type_file="algorithm_time_complexity", answer="O(n!)")
    with pytest.raises(Unmapped, match="needs tests and a function"):
        mapped(None, type_file="algorithm_time_complexity", answer="O(n)")
    order = mapped(type_file="input_output_input_order", answer="python;dfs;[graph,node,none]")
    assert order[0]["param-types"] == ["graph"]
    matrix = mapped(
        type_file="input_output_input_range",
        answer="python;m;matrix;matrix dimensions between 2x2 and 10x10, cell values between "
        "-100 and 100",
    )
    assert matrix[0]["arguments"] == {
        "type": "matrix",
        "min-length": 2,
        "max-length": 10,
        "items": {"min-length": 2, "max-length": 10, "items": {"min": -100.0, "max": 100.0}},
    }
    ints = mapped(
        type_file="input_output_input_range", answer="p;f;integer;integer value between 0 and 9"
    )
    assert ints[0]["arguments"] == {"type": "int", "min": 0.0, "max": 9.0}


def test_function_names_come_from_the_prompt() -> None:
    assert named_function("Create a function named `load_rows` that reads") == "load_rows"
    assert named_function("Write `a()` like `b()` below", exclude={"a"}) == "b"
    assert named_function("Write a script that prints.") is None


def test_a_broken_records_file_is_an_error_with_its_line(tmp_path: Path, capsys) -> None:
    tasks = tmp_path / "tasks.jsonl"
    shutil.copyfile(SOURCE / "tasks.jsonl", tasks)
    with tasks.open("a") as f:
        f.write("{not json\n")
    code = main(["import", "multicodeif", str(tasks), str(tasks), "-o", str(tmp_path / "o")])
    assert code == 2
    assert f"{tasks}:10: not JSON" in capsys.readouterr().err


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus absent")
def test_the_whole_corpus_converts(tmp_path: Path) -> None:
    responses = sorted(str(p) for p in (CORPUS / "responses").glob("*.jsonl"))
    assert (
        main(
            ["import", "multicodeif", str(CORPUS / "tasks.jsonl"), *responses, "-o", str(tmp_path)]
        )
        == 0
    )
    written = 0
    for path in tmp_path.glob("*.codeif.yaml"):
        written += len(yaml.safe_load(path.read_text())["tasks"])
    unmapped = (tmp_path / "unmapped.jsonl").read_text().splitlines()
    skipped = sum(1 for line in unmapped if "task not written" in line)
    assert written + skipped == 2118


@pytest.mark.parametrize(
    ("answer", "style"),
    [("python;Allman", "allman"), ("python;K&R", "k&r"), ("python;1TBS", "1tbs")],
)
def test_brace_styles_map_to_the_python_reading(answer: str, style: str) -> None:
    record = {"type_file": "code_convention_brace_block_formatting", "answer": answer}
    mapped = map_constraint({"prompt": "", **record}, None)
    assert mapped.constraints == [{"check": "brace-style", "style": style}]


def test_a_scenario_maps_to_what_its_prompt_names() -> None:
    prompt = (
        "You are a beginner. Define a base class `Vehicle` and derived classes `Car` and "
        "`Truck`, and a function called `show_all` that prints each one. Store them in a "
        "SQLite database with SQLAlchemy, and include comments explaining each part."
    )
    mapped = map_constraint({"type_file": "situation", "prompt": prompt, "answer": ""}, None)
    assert mapped.constraints == [
        {
            "check": "defines",
            "functions": ["show_all"],
            "classes": ["Vehicle", "Car", "Truck"],
            "bases": {"Car": ["Vehicle"], "Truck": ["Vehicle"]},
        },
        {"check": "imports", "require-any": ["sqlalchemy", "flask_sqlalchemy"]},
        {"check": "comments", "function-start": "either", "top-level": True},
        {"check": "calls", "require": ["print"]},
    ]
    assert "persona" in mapped.left_out[0]
    with pytest.raises(Unmapped, match="names no function, class, library"):
        map_constraint(
            {"type_file": "situation", "prompt": "You are a student.", "answer": ""}, None
        )

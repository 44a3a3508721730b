"""`codeif import multicodeif` on JavaScript and TypeScript records (issue 27): each task
says its `language`, its record maps to the checks' JS/TS meanings, its tests become Node
call cases where JavaScript can take them, and what has no check is listed with why; other
languages are left out as not supported yet. The corpus's JS/TS records (../shared,
skipped when absent) stay mapped at least as well as measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.importers.multicodeif import build_task, import_multicodeif
from tests.conftest import CORPUS


def _record(type_file: str, answer: str, **more: Any) -> dict[str, Any]:
    return {
        "key": f"{type_file}/1",
        "type_file": type_file,
        "category": type_file.split("_", maxsplit=1)[0],
        "language": "JavaScript",
        "prompt": "Write a JavaScript function `totalOf(xs)` that adds the numbers.",
        "answer": answer,
        **more,
    }


_JS = "```javascript\nconst totalOf = (xs) => xs.reduce((a, b) => a + b, 0);\n```\n"


def test_a_javascript_task_says_its_language_and_maps_its_record() -> None:
    tests = [{"name": "three", "input": {"args": [[1, 2, 3]], "kwargs": {}}, "expected_output": 6}]
    task, notes = build_task(
        _record("syntax_advanced_syntax", "javascript;Arrow Functions", tests=tests), "m", _JS
    )
    assert task["language"] == "javascript"
    assert [(c["check"], c["require"]) for c in task["constraints"]] == [
        ("construct", ["arrow-function"])
    ]
    assert task["entry-point"] == "totalOf"
    assert task["tests"] == [
        {"name": "three", "input": {"args": [[1, 2, 3]]}, "expected_output": 6}
    ]
    assert notes == []


@pytest.mark.parametrize(
    ("type_file", "answer", "expected"),
    [
        (
            "syntax_library",
            "javascript;socket.io",
            {"require-any": ["socket.io", "socket.io-client"]},
        ),
        (
            "syntax_library",
            "TypeScript;nestjs",
            {"require-any": ["@nestjs/common", "@nestjs/core"]},
        ),
        # A library's own package or any of its scope's (`@tsoa/runtime` is tsoa's).
        ("syntax_library", "TypeScript;tsoa", {"require-any": ["tsoa", "@tsoa"]}),
        ("syntax_function", "javascript;JSON.stringify", {"require": ["JSON.stringify"]}),
        ("syntax_language_type", "javascript", {"check": "language", "language": "javascript"}),
        ("code_convention_brace_block_formatting", "javascript;K&R", {"style": "k&r"}),
        (
            "code_convention_indentation_spacing",
            "JavaScript;spaces:2;no spacing",
            {"check": "indentation", "indent": 2, "spacing": "unspaced"},
        ),
        ("code_convention_indentation_spacing", "JavaScript;tabs;spacing", {"indent": "tabs"}),
        (
            "syntax_framework",
            "javascript;node.js express;\nFramework Description: x",
            {"framework": "express"},
        ),
        (
            "code_convention_naming_convention",
            "javascript;class:PascalCase,function:camelCase",
            {"class": "PascalCase", "function": "camelCase"},
        ),
        (
            "code_convention_declaration_style",
            "javascript;- **Declaration Style Type** : disallowTypeInference\n- no var",
            {"select": ["noVar"]},
        ),
    ],
)
def test_records_map_to_the_checks_javascript_meanings(
    type_file: str, answer: str, expected: dict[str, Any]
) -> None:
    task, _ = build_task(_record(type_file, answer), "m", _JS)
    (constraint,) = task["constraints"]
    assert {k: constraint[k] for k in expected} == expected


def test_what_has_no_javascript_check_is_listed_with_why() -> None:
    for type_file, answer, why in [
        (
            "code_convention_declaration_style",
            "javascript;- **Declaration Style Type** : descriptiveNames",
            "reads Python only",
        ),
        ("syntax_language_type", "coffeescript", "language not supported yet"),
        ("code_convention_naming_convention", "javascript;variable:kebab-case", "kebab-case"),
    ]:
        task, notes = build_task(_record(type_file, answer), "m", _JS)
        assert "constraints" not in task
        assert any(why in note for note in notes), notes


def test_kwargs_tests_are_no_javascript_calls_and_say_so() -> None:
    tests = [{"input": {"args": [], "kwargs": {"method": "GET"}}, "expected_output": 1}]
    task, notes = build_task(_record("syntax_library", "javascript;axios", tests=tests), "m", _JS)
    assert "tests" not in task
    assert any("keyword arguments" in note for note in notes)


def test_a_javascript_task_answered_in_typescript_is_read_as_typescript() -> None:
    answer = "```ts\nexport const totalOf = (xs: number[]): number => xs.length;\n```\n"
    task, notes = build_task(_record("syntax_library", "javascript;zod"), "m", answer)
    assert task["language"] == "typescript"
    assert any("written in typescript" in note for note in notes)


def test_other_languages_are_not_supported_yet() -> None:
    record = {**_record("syntax_library", "Rust;serde"), "language": "Rust"}
    task, notes = build_task(record, "m", "```rust\nfn main() {}\n```")
    assert "constraints" not in task and "language" not in task
    assert notes == ["written in 'Rust': language not supported yet"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus absent")
def test_the_corpus_javascript_and_typescript_records_stay_mapped(tmp_path: Path) -> None:
    """Measured when every JS/TS record kind but CoffeeScript got its reading: 835 of the
    972 JS/TS responses (85.9%) get a constraint, the issue's target being 85%. What
    stays unmapped is listed, with why (declaration styles with no lint rule, scenarios
    naming nothing a check decides, complexity without tests, CoffeeScript)."""
    folder = CORPUS / "all-languages"
    lines = (folder / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    js = {r["key"] for r in records if r.get("language") in ("JavaScript", "TypeScript")}
    result = import_multicodeif(
        folder / "tasks.jsonl", sorted((folder / "responses").glob("*.jsonl")), tmp_path
    )
    mapped = [
        task
        for path in result.files
        for task in yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["tasks"]
        if task["metadata"]["key"] in js and task.get("constraints")
    ]
    total = len(js) * 6
    assert total == 972
    assert all(task["language"] in ("javascript", "typescript") for task in mapped)
    assert len(mapped) / total >= 0.85, f"{len(mapped)} of {total} mapped"

"""Real model output: the 2,118 MultiCodeIF responses (../shared, skipped when absent)
run through `pytest --codeif`; every response gets a verdict and none crashes a check."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import yaml

from tests.conftest import CORPUS

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus absent")


def corpus_tasks() -> list[dict]:
    tasks = []
    for path in sorted((CORPUS / "responses").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            tasks.append(
                {
                    "id": f"{record['model']}--{record['key'].replace('/', '-')}",
                    "response": record["response"],
                    "metadata": {"model": record["model"], "key": record["key"]},
                    "constraints": [
                        {"check": "ruff", "select": ["F82"]},
                        {"check": "construct", "forbid": ["global"]},
                        {"check": "calls", "forbid": ["eval", "exec"]},
                    ],
                }
            )
    return tasks


def test_every_real_response_gets_a_verdict(pytester: pytest.Pytester) -> None:
    tasks = corpus_tasks()
    assert len(tasks) == 2118
    pytester.makefile(".codeif.yaml", corpus=yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    pytester.runpytest("--codeif", "-q", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = [c for task in report["tasks"] for c in task["constraints"]]
    assert len(report["tasks"]) == 2118 and len(outcomes) == 3 * 2118
    kinds = Counter(c["error_kind"] for c in outcomes if c["status"] == "error")
    assert set(kinds) <= {"no-code", "syntax-error"}, kinds
    by_id = {task["id"]: task for task in tasks}
    for task in report["tasks"]:
        first = task["constraints"][0]
        if "```python" in by_id[task["id"]]["response"]:
            assert first["error_kind"] != "no-code", task["id"]
        # One parse decides syntax for every check of a task: the three agree.
        assert len({c["error_kind"] for c in task["constraints"]}) == 1 or all(
            c["status"] != "error" for c in task["constraints"]
        )
    # Every eval/exec finding points at a line holding that call.
    for task in report["tasks"]:
        for outcome in task["constraints"]:
            if outcome["constraint"] == "calls" and outcome["status"] == "violated":
                assert any(w in by_id[task["id"]]["response"] for w in ("eval(", "exec("))


def test_language_version_and_comment_records_map_to_what_their_prompts_ask() -> None:
    """Every language-version and comment-style record of the corpus maps (none left to a
    judge), and most language-version prompts ask to *use* the version's features."""
    from pytest_codeif.importers.entry_choice import named_function
    from pytest_codeif.importers.multicodeif import map_constraint

    records = [
        json.loads(line) for line in (CORPUS / "tasks.jsonl").read_text("utf-8").splitlines()
    ]
    kinds = ("syntax_language_version", "code_convention_comment_formatting")
    mapped = {
        record["key"]: map_constraint(record, named_function(record["prompt"])).constraints
        for record in records
        if record["type_file"] in kinds
    }
    versions = [c for key, cs in mapped.items() if "version" in key for c in cs]
    assert versions and all(c["check"] == "python-version" and "version" in c for c in versions)
    asking = [c for c in versions if "uses" in c or "features" in c]
    assert len(asking) > len(versions) / 2, versions
    styles = [c for key, cs in mapped.items() if "comment" in key for c in cs]
    assert styles and all(c["check"] == "comments" for c in styles)


def test_interface_range_and_complexity_records_map() -> None:
    """Every interface record maps (shapes such as graph and matrix included), every
    input range with tests, and every complexity record whose tests call a function the
    prompt names."""
    from pytest_codeif.importers.multicodeif import Unmapped, map_constraint, named_function

    records = [
        json.loads(line) for line in (CORPUS / "tasks.jsonl").read_text("utf-8").splitlines()
    ]
    kinds = ("input_type", "input_order", "output_type", "output_order")
    for record in records:
        kind, entry = record["type_file"], named_function(record["prompt"])
        if kind.startswith("input_output_") and kind.endswith(kinds):
            assert map_constraint(record, entry).constraints, record["key"]
        elif kind == "input_output_input_range" and record.get("tests"):
            [check] = map_constraint(record, entry).constraints
            assert check["check"] == "values" and "arguments" in check, record["key"]
        elif kind.endswith("_complexity") and record.get("tests") and entry:
            try:
                [check] = map_constraint(record, entry).constraints
            except Unmapped as exc:
                raise AssertionError(f"{record['key']}: {exc}") from None
            assert check["check"] == "complexity" and check["function"] == entry

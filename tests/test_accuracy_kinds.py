"""Verdict accuracy, per kind of constraint once judged wrong (issue 26): MultiCodeIF-shaped
records with responses of our own (fixtures/accuracy/), imported by `codeif import
multicodeif` and run by `pytest --codeif`; each response gets the verdict it is written
to get, for the reason it states."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.importers.multicodeif import import_multicodeif
from tests.conftest import FIXTURES

KINDS = sorted((FIXTURES / "accuracy").glob("*.yaml"))


def _records(source: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Task records and responses from a fixture: one record per response (a task of
    the importer holds one response), keyed `<type_file>/<name>-<n>`."""
    tasks: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for task in yaml.safe_load(source.read_text(encoding="utf-8"))["tasks"]:
        record = {k: v for k, v in task.items() if k not in ("name", "responses")}
        for number, response in enumerate(task["responses"], 1):
            key = f"{task['type_file']}/{task['name']}-{number}"
            tasks.append({**record, "key": key})
            responses.append(
                {
                    "key": key,
                    "model": "fixture",
                    "response": response["response"],
                    "expected": response["expected"],
                    "why": response["why"],
                }
            )
    return tasks, responses


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("source", KINDS, ids=lambda p: p.stem)
def test_each_response_gets_its_verdict(pytester: pytest.Pytester, source: Path) -> None:
    tasks, responses = _records(source)
    folder = pytester.path
    imported = import_multicodeif(
        _write(folder / "tasks.jsonl", tasks),
        [_write(folder / "fixture.jsonl", responses)],
        folder / "out",
    )
    assert imported.tasks == len(responses), imported.unmapped
    report = folder / "report.json"
    pytester.runpytest("--codeif", f"--codeif-report={report}", "-p", "no:randomly", "out")
    verdicts = {
        task["metadata"]["key"]: [c["status"] for c in task["constraints"]]
        for task in json.loads(report.read_text(encoding="utf-8"))["tasks"]
    }
    wrong = []
    for response in responses:
        statuses = verdicts[response["key"]]
        got = next((s for s in ("error", "violated") if s in statuses), "satisfied")
        if got != response["expected"]:
            expected, why = response["expected"], response["why"]
            wrong.append(f"{response['key']}: {got}, expected {expected}: {why}")
    assert wrong == []

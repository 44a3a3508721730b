"""Verdict accuracy on JavaScript and TypeScript records (issue 27): MultiCodeIF-shaped
records with responses of our own (fixtures/accuracy_js/), imported by `codeif import
multicodeif` and run by `pytest --codeif`; each response gets the verdict it is written to
get, for the reason it states."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.importers.multicodeif import import_multicodeif
from tests.conftest import FIXTURES

KINDS = sorted((FIXTURES / "accuracy_js").glob("*.yaml"))

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None
    or (not os.environ.get("CODEIF_NODE_TOOLS") and shutil.which("biome") is None),
    reason="Node.js or Biome (CODEIF_NODE_TOOLS) not installed",
)


def _records(source: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Task records and responses of a fixture, one record per response."""
    tasks: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for task in yaml.safe_load(source.read_text(encoding="utf-8"))["tasks"]:
        record = {k: v for k, v in task.items() if k not in ("name", "responses")}
        for number, response in enumerate(task["responses"], 1):
            key = f"{task['type_file']}/{task['name']}-{number}"
            tasks.append({**record, "key": key})
            responses.append({"key": key, "model": "fixture", **response})
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
    written = json.loads(report.read_text(encoding="utf-8"))["tasks"]
    verdicts = {t["metadata"]["key"]: [c["status"] for c in t["constraints"]] for t in written}
    languages = {t["metadata"]["key"]: t["code"]["path"] for t in written}
    wrong = []
    for response in responses:
        statuses = verdicts[response["key"]]
        got = next((s for s in ("error", "violated") if s in statuses), "satisfied")
        if got != response["expected"]:
            expected, why = response["expected"], response["why"]
            wrong.append(f"{response['key']}: {got}, expected {expected}: {why}")
    assert wrong == []
    # Every response was read in its task's language, never as Python.
    assert all(path.endswith((".js", ".ts")) for path in languages.values()), languages

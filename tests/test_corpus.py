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

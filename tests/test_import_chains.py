"""`codeif import multicodeif-chains`: each level of a chain is a task whose constraints
stack the constraints of every level up to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pytest_codeif.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"

CHAIN = [
    {"key": "ml/1", "chain": 7, "level": 0, "prompt": "Use a list.", "answer": "python;list"},
    {"key": "ml/2", "chain": 7, "level": 1, "prompt": "At most 3.", "answer": "python;list;3"},
    {
        "key": "ml/3",
        "chain": 7,
        "level": 2,
        "prompt": "Only append.",
        "answer": "python;list;['append']",
    },
]
CODE = "```python\ndef cart():\n    items = []\n    items.append(1)\n    return items\n```"


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_levels_stack_their_constraints(tmp_path: Path, pytester: pytest.Pytester) -> None:
    tasks = _jsonl(tmp_path / "multi_level_tasks.jsonl", CHAIN)
    answers = _jsonl(
        tmp_path / "m.jsonl", [{"key": r["key"], "model": "m", "response": CODE} for r in CHAIN]
    )
    out = pytester.path / "chains"
    assert main(["import", "multicodeif-chains", str(tasks), str(answers), "-o", str(out)]) == 0
    written = yaml.safe_load((out / "chains-m.codeif.yaml").read_text())
    levels = {t["id"]: t["constraints"] for t in written["tasks"]}
    assert [len(levels[f"ml-{n}"]) for n in (1, 2, 3)] == [1, 2, 3]
    assert {c["level"] for c in levels["ml-3"]} == {2}
    assert levels["ml-3"][2]["operations"] == ["append"]
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", str(out))
    result.stdout.fnmatch_lines(["constraint decay*", "  level 0 *", "  level 2 *"])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the MultiCodeIF corpus (../shared) is absent")
def test_every_chain_of_the_corpus_imports(tmp_path: Path) -> None:
    responses = sorted((CORPUS / "multi_level_responses").glob("*.jsonl"))
    argv = ["import", "multicodeif-chains", str(CORPUS / "multi_level_tasks.jsonl")]
    assert main([*argv, *map(str, responses), "-o", str(tmp_path)]) == 0
    unmapped = (tmp_path / "unmapped.jsonl").read_text().splitlines()
    assert unmapped == []
    counts = [
        len(t["constraints"])
        for f in tmp_path.glob("*.codeif.yaml")
        for t in yaml.safe_load(f.read_text())["tasks"]
    ]
    assert sorted(set(counts)) == [1, 2, 3, 4]

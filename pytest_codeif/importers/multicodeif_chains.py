"""Import MultiCodeIF's multi-level chains: each level of a chain is a task whose
constraints are those of every level up to it (the levels stack), so satisfaction by
level and by number of constraints shows how compliance decays as constraints pile up.

A chain's record at level L holds only the constraint it adds (`answer`); the task for
level L carries the constraints of levels 0..L, each marked `level: L` (the task's
level, so the summary's "by level" is the satisfaction of level-L tasks). Every chain
constraint is a data-structure one: `python;list;['append','remove']` (operations),
`python;list;10` (a size) or `python;set` (a type).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_codeif.importers.multicodeif import (
    ImportResult,
    Unmapped,
    load_jsonl,
    map_constraint,
)
from pytest_codeif.importers.yaml_out import write_task_file


def chain_kind(answer: str) -> str:
    """The MultiCodeIF type a chain level's answer is written in."""
    parts = [p.strip() for p in answer.split(";")]
    if len(parts) >= 3 and parts[2].startswith("["):
        return "data_structure_operation"
    if len(parts) >= 3 and parts[2].isdigit():
        return "data_structure_size"
    return "data_structure_type"


def _constraints(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    answer = str(record.get("answer") or "")
    pseudo = {**record, "type_file": chain_kind(answer), "answer": answer}
    return list(map_constraint(pseudo, None).constraints)


def import_chains(tasks_path: Path, responses: Iterable[Path], out: Path) -> ImportResult:
    """One task file per responses file: for each response, a task with the stacked
    constraints of its chain up to its level."""
    records = [r for r in load_jsonl(tasks_path) if "key" in r and "chain" in r]
    by_chain: dict[int, dict[int, Mapping[str, Any]]] = {}
    for record in records:
        by_chain.setdefault(int(record["chain"]), {})[int(record["level"])] = record
    by_key = {str(r["key"]): r for r in records}
    result = ImportResult()
    out.mkdir(parents=True, exist_ok=True)
    for path in responses:
        tasks: list[dict[str, Any]] = []
        for number, answer in enumerate(load_jsonl(path), 1):
            key = str(answer.get("key", ""))
            chained = by_key.get(key)
            where = f"{path}:{number}"
            if chained is None:
                result.unmapped.append({"file": where, "key": key, "reason": "no chain record"})
                continue
            level = int(chained["level"])
            chain = by_chain[int(chained["chain"])]
            stacked: list[dict[str, Any]] = []
            try:
                for below in range(level + 1):
                    for constraint in _constraints(chain[below]):
                        stacked.append(
                            {
                                "id": f"level{below}" + (f"-{len(stacked)}" if stacked else ""),
                                **constraint,
                                "category": "Data Structure",
                                "level": level,
                            }
                        )
            except (Unmapped, KeyError) as exc:
                result.unmapped.append({"file": where, "key": key, "reason": str(exc)})
                continue
            model = str(answer.get("model") or path.stem)
            response = str(answer.get("response") or "")
            tasks.append(
                {
                    "id": re.sub(r"[^A-Za-z0-9_.\-]", "-", key),
                    "metadata": {
                        "benchmark": "MultiCodeIF multi-level",
                        "key": key,
                        "model": model,
                        "chain": int(chained["chain"]),
                        "level": level,
                    },
                    "instruction": str(chained.get("prompt", "")),
                    "response": response,
                    "constraints": stacked,
                }
            )
            result.constraints += len(stacked)
        name = re.sub(r"[^A-Za-z0-9_.\-]", "-", path.stem)
        target = out / f"chains-{name}.codeif.yaml"
        header = (
            f"Imported by `codeif import multicodeif-chains` from {tasks_path.name} and "
            f"{path.name}\n({len(tasks)} tasks). Regenerate rather than edit."
        )
        write_task_file(target, {"version": 1, "tasks": tasks}, header)
        result.files.append(target)
        result.tasks += len(tasks)
    return result

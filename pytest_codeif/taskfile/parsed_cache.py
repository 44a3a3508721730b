"""Task files kept composed and validated between runs, in pytest's cache directory.

An entry holds what reading a task file's bytes gives, whatever the disk holds besides:
the data, the positions of its nodes (down to `MARKED_DEPTH` levels, as a fresh load
keeps them) and the schema problems found, or the error that stopped the load. It is
keyed by the file's bytes, this plugin's version and source, and the option schemas of
every registered check, so a new check, a changed one or a new plugin version reads the
file afresh. What depends on other files (paths that must exist, JSONL responses, the
checks built from their options) is decided afresh on every run, from the entry.

Entries are written whole and renamed into place (pytest-xdist workers read and write
at the same time); one that is unreadable, truncated or altered (its first line is a
hash of the rest) is ignored and written again, never an error. Each task file keeps
one entry: writing a new one removes that file's older ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Final

from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.spec import NodeMark
from pytest_codeif.taskfile.parse import ParsedFile, parse_task_file
from pytest_codeif.taskfile.schema import Problem, SchemaMemo
from pytest_codeif.taskfile.yamlload import (
    MARKED_DEPTH,
    KeyPath,
    LoadedYaml,
    collector_paused,
    load_yaml_bytes,
    read_task_bytes,
)

#: Changes whenever the layout of an entry does.
FORMAT: Final = 1
#: The folder of `config.cache.mkdir(...)` that holds the entries.
FOLDER: Final = "codeif-taskfiles"

#: A restored entry: the load, and the schema problems to replay.
_Restored = tuple[LoadedYaml, SchemaMemo]


@dataclass
class TaskFileCache:
    """Where entries live (None: no cache, every file is read as it always was) and
    the fingerprint of what, besides a file's bytes, decides its entry."""

    directory: Path | None
    registry: CheckRegistry
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        self.fingerprint = _fingerprint(self.registry) if self.directory is not None else ""

    def read(self, path: Path, root: Path | None = None) -> ParsedFile:
        """`path` composed, validated and built into tasks, as `parse_task_file` does;
        the same errors at the same places whether the entry was there or not."""
        raw = read_task_bytes(path)  # not kept: unreadable now says nothing of later
        directory = self.directory
        if directory is None:
            return parse_task_file(load_yaml_bytes(path, raw), self.registry, root)
        name = self._name(path, raw)
        restored = _get(directory / name, path, raw)
        if isinstance(restored, TaskFileError):
            raise restored
        if restored is not None:
            return parse_task_file(restored[0], self.registry, root, restored[1])
        try:
            loaded = load_yaml_bytes(path, raw)
        except TaskFileError as exc:
            where = exc.location
            error = [where.line, list(where.key_path), exc.message]
            _put(directory, name, {"format": FORMAT, "error": error})
            raise
        memo = SchemaMemo()
        try:
            parsed = parse_task_file(loaded, self.registry, root, memo)
        except TaskFileError:
            # Only the file's own schema problems end the parse early: all were recorded.
            _put(directory, name, _entry(loaded, memo))
            raise
        _put(directory, name, _entry(loaded, memo))
        return parsed

    def _name(self, path: Path, raw: bytes) -> str:
        """`<file>-<content>.json`: the first part names the task file (so its stale
        entries can go), the second its bytes and everything else that decides it."""
        where = hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:16]
        what = hashlib.sha256(self.fingerprint.encode() + b"\0" + raw).hexdigest()
        return f"{where}-{what}.json"


def _get(entry_path: Path, path: Path, raw: bytes) -> _Restored | TaskFileError | None:
    """The entry at `entry_path` restored for `path` (or the error it holds); None
    when there is none or it cannot be read."""
    try:
        blob = entry_path.read_bytes()
    except OSError:
        return None
    digest, _, body = blob.partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != digest:
        return None  # truncated or altered: read the file afresh, write it again
    try:
        with collector_paused():  # as for a fresh load: many objects, no cycles
            entry = json.loads(body)
            if entry["format"] != FORMAT:
                return None
            return _restore(entry, path, raw)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None  # not an entry this code wrote: read the file afresh


def _put(directory: Path, name: str, entry: dict[str, Any]) -> None:
    """Write `entry` whole under `name`, then remove the file's older entries. A
    cache that cannot be written is no cache, never a failure."""
    body = json.dumps(entry, separators=(",", ":")).encode()
    blob = hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(blob)
            os.replace(temporary, directory / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        return
    prefix = name.split("-", 1)[0]
    for stale in directory.glob(f"{prefix}-*.json"):
        if stale.name != name:
            with contextlib.suppress(OSError):
                stale.unlink()


def _fingerprint(registry: CheckRegistry) -> str:
    """A hash of what decides an entry besides the file's bytes: this plugin's version
    and the source of this package (the loader, the schemas, their messages), the
    format, and each registered check's name and option schema."""
    package = Path(__file__).resolve().parent
    sources = [(p.name, p.read_bytes().hex()) for p in sorted(package.glob("*.py"))]
    try:
        version = metadata.version("pytest-codeif")
    except metadata.PackageNotFoundError:
        version = "unknown"
    checks = [[check.name, check.options_schema] for check in registry]
    blob = json.dumps([FORMAT, version, sources, checks], sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()


def _entry(loaded: LoadedYaml, memo: SchemaMemo) -> dict[str, Any]:
    """What to keep of a fresh load: its positions to `MARKED_DEPTH` levels only (a
    full load, met for an error, keeps all), so an entry restores as a fresh load."""
    depth = MARKED_DEPTH if loaded.marked_depth is None else loaded.marked_depth
    return {
        "format": FORMAT,
        "data": loaded.data,
        "marks": [
            [list(path), mark.line, mark.column, mark.style]
            for path, mark in loaded.marks.items()
            if len(path) <= depth
        ],
        "keys": [
            [list(path), line] for path, line in loaded.key_lines.items() if len(path) <= depth
        ],
        "problems": [
            [list(base), [[list(p.path), p.message, p.at_key] for p in problems]]
            for base, problems in memo.recorded.items()
        ],
    }


def _restore(entry: dict[str, Any], path: Path, raw: bytes) -> _Restored | TaskFileError:
    """The load and the schema problems an entry holds, or the error that stopped the
    load; raises ValueError, TypeError or KeyError for anything else."""
    if "error" in entry:
        line, key_path, message = entry["error"]
        return TaskFileError(Location(path, int(line), tuple(key_path)), str(message))
    data = entry["data"]
    marks = {tuple(p): NodeMark(line, column, style) for p, line, column, style in entry["marks"]}
    keys = {tuple(p): line for p, line in entry["keys"]}
    depth = MARKED_DEPTH if data is not None else None
    loaded = LoadedYaml(path, data, marks, keys, marked_depth=depth, source=raw)
    recorded: dict[KeyPath, list[Problem]] = {
        tuple(base): [Problem(tuple(p), message, at_key) for p, message, at_key in found]
        for base, found in entry["problems"]
    }
    return loaded, SchemaMemo(recorded)

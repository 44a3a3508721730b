"""Verdicts kept between runs, in pytest's cache directory.

A verdict is reused only when everything that decided it is unchanged: the code (every
file's path and text), the task's location and id, the check and its options (or the
functional tests), the source of the check's class and its bases (wherever it was
registered from), the sandbox backend, and the versions of Python, ruff, mypy, libcst
and pytest-codeif itself, including a fingerprint of the plugin's own source files.
Crashes and checker failures are never kept: they say nothing about the code. A timeout is
kept (the timeout is part of the key): waiting it out on every re-run would make a warm
run as slow as its slowest task; `--codeif-no-cache` decides afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import platform
import sqlite3
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any, Final

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.outcome import Evidence, Verdict
from pytest_codeif.tools import tool_versions

#: Prefix of keys whose verdicts are never stored nor read (see `class_fingerprint`).
UNCACHED: Final = "uncached:"

#: Error kinds that are facts about the code, and so may be reused.
_LASTING_ERRORS: Final = frozenset({"no-code", "syntax-error", "too-large", "timeout"})


@cache
def environment_fingerprint() -> str:
    """Tool versions plus the size and mtime of every source file of this plugin."""
    package = Path(__file__).resolve().parent.parent
    files = sorted(package.rglob("*.py"))
    stats = [
        (p.relative_to(package).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in files
    ]
    blob = json.dumps([platform.python_version(), tool_versions(), stats], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


_CLASS_SOURCES: dict[type, str | None] = {}


def class_fingerprint(cls: type) -> str | None:
    """A hash of the source files of `cls` and every class it inherits from (the check's
    own module, whoever registered it: a conftest.py, a plugin), so that editing a check
    invalidates its verdicts. None when a file cannot be read: such a check's verdicts
    are never kept, as there is no way to tell whether it changed."""
    if cls not in _CLASS_SOURCES:
        _CLASS_SOURCES[cls] = _sources_hash(cls)
    return _CLASS_SOURCES[cls]


def _sources_hash(cls: type) -> str | None:
    digest = hashlib.sha256()
    for klass in cls.__mro__:
        if klass is object:
            continue
        try:
            path = inspect.getsourcefile(klass)
        except TypeError:  # a built-in class (no source file)
            continue
        if path is None:
            return None
        try:
            digest.update(Path(path).read_bytes())
        except OSError:
            return None
    return digest.hexdigest()


#: Units whose file digests are kept (the engine decides a task's constraints together).
DIGESTS_KEPT: Final = 64


class VerdictCache:
    """Verdicts keyed by a hash of all their inputs, in one SQLite file (stdlib): one file
    for thousands of verdicts, safe for concurrent pytest-xdist workers. None disables."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        #: Per unit key: the unit object and its digest (valid for that very object).
        self._digests: dict[str, tuple[CodeUnit, str]] = {}
        self._db: sqlite3.Connection | None = None
        #: Verdicts stored and not yet written, by key: written together in one short
        #: transaction, so that pytest-xdist workers sharing the file never wait long for
        #: its write lock (holding it from the first insert to a commit 500 inserts later
        #: made the other worker wait 37 s of a 60 s run on the corpus).
        self._pending: dict[str, str] = {}

    def _connection(self) -> sqlite3.Connection | None:
        if self.directory is None:
            return None
        if self._db is None:
            try:
                self._db = sqlite3.connect(self.directory / "verdicts.sqlite3", timeout=60)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, data TEXT)"
                )
            except sqlite3.Error:
                self.directory = None  # an unusable cache is no cache, never a failure
                return None
        return self._db

    def key(self, unit: CodeUnit, what: dict[str, Any]) -> str:
        """The key of the verdict on `unit` of `what` (a check and its options, or tests)."""
        blob = json.dumps(
            [environment_fingerprint(), unit.key, self._digest(unit), what],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _digest(self, unit: CodeUnit) -> str:
        """A hash of every file of `unit` (path, origin, executable bit, text; a
        project's other files by their bytes, and the files its bounds left out by their
        size), computed once per unit: a project's constraints share it (on 1,000 files,
        each key cost 40 ms). A changed `requirements.txt` or `run.sh` is changed code."""
        kept = self._digests.get(unit.key)
        if kept is not None and kept[0] is unit:
            return kept[1]
        digest = hashlib.sha256()
        parts: list[tuple[list[object], bytes]] = [
            (
                [f.relpath, str(f.origin), f.line_origin, f.executable],
                f.text.encode("utf-8", "surrogatepass"),
            )
            for f in unit.files
        ]
        parts += [
            ([o.relpath, str(o.origin), "other", o.executable], o.data) for o in unit.other_files
        ]
        parts += [([o.relpath, o.size, "left-out", o.executable], b"") for o in unit.left_out]
        for what, body in parts:
            head = json.dumps(what).encode()
            # Lengths first, so no two different files hash alike by shifting bytes.
            digest.update(f"{len(head)}:{len(body)}:".encode())
            digest.update(head)
            digest.update(body)
        if len(self._digests) >= DIGESTS_KEPT:
            self._digests.pop(next(iter(self._digests)))
        self._digests[unit.key] = (unit, digest.hexdigest())
        return self._digests[unit.key][1]

    def _row(self, key: str) -> str | None:
        if key in self._pending:
            return self._pending[key]
        db = None if key.startswith(UNCACHED) else self._connection()
        if db is None:
            return None
        try:
            row = db.execute("SELECT data FROM verdicts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return str(row[0]) if row else None

    def get(self, key: str) -> Verdict | None:
        found = self.get_with_extra(key)
        return found[0] if found else None

    def get_with_extra(self, key: str) -> tuple[Verdict, Any] | None:
        """The stored verdict and the extra data stored beside it (e.g. test cases)."""
        text = self._row(key)
        if text is None:
            return None
        try:
            data = json.loads(text)
            verdict = Verdict(
                data["status"],
                tuple(Evidence(**e) for e in data["evidence"]),
                data["error_kind"],
                data["error"],
                tuple(data["notes"]),
                cached=True,
                details=data.get("details"),
            )
        except (ValueError, KeyError, TypeError):
            return None  # written by another version: decide afresh
        return verdict, data.get("extra")

    def put(self, key: str, verdict: Verdict, extra: Any = None) -> None:
        if verdict.status == "error" and verdict.error_kind not in _LASTING_ERRORS:
            return
        db = None if key.startswith(UNCACHED) else self._connection()
        if db is None:
            return
        data = asdict(verdict)
        data.pop("cached")
        data["extra"] = extra
        self._pending[key] = json.dumps(data)
        if len(self._pending) >= 500:
            self.flush()

    def flush(self) -> None:
        """Write what was stored, in one transaction (500 verdicts at a time and at the
        end); a cache that cannot be written loses them, never the run."""
        if self._db is None or not self._pending:
            return
        rows, self._pending = list(self._pending.items()), {}
        with contextlib.suppress(sqlite3.Error), self._db:
            self._db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", rows)

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

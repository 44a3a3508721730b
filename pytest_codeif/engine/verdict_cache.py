"""Verdicts kept between runs, in pytest's cache directory.

A verdict is reused only when everything that decided it is unchanged: the code (every
file's path and text), the task's location and id, the check and its options (or the
functional tests), the sandbox backend, and the versions of Python, ruff, mypy, libcst
and pytest-codeif itself, including a fingerprint of the plugin's own source files.
Timeouts, crashes and checker failures are never kept: they say nothing about the code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import tempfile
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest_codeif
from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.engine.tools import tool_versions
from pytest_codeif.engine.verdict import Evidence, Verdict

#: Error kinds that are facts about the code, and so may be reused.
_LASTING_ERRORS: Final = frozenset({"no-code", "syntax-error", "too-large"})


@cache
def environment_fingerprint() -> str:
    """Tool versions plus the size and mtime of every source file of this plugin."""
    package = Path(pytest_codeif.__file__).parent
    files = sorted(package.rglob("*.py"))
    stats = [
        (p.relative_to(package).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in files
    ]
    blob = json.dumps([platform.python_version(), tool_versions(), stats], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class VerdictCache:
    """A directory of JSON verdicts keyed by a hash of all their inputs; None disables."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.hits = 0
        self.stores = 0

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    def key(self, unit: CodeUnit, what: dict[str, Any]) -> str:
        """The key of the verdict on `unit` of `what` (a check and its options, or tests)."""
        files = [(f.relpath, f.text, str(f.origin), f.line_origin) for f in unit.files]
        blob = json.dumps(
            [environment_fingerprint(), unit.key, files, what], sort_keys=True, default=str
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return (self.directory or Path()) / key[:2] / f"{key}.json"

    def has(self, key: str) -> bool:
        return self.directory is not None and self._path(key).is_file()

    def get(self, key: str) -> Verdict | None:
        found = self.get_with_extra(key)
        return found[0] if found else None

    def get_with_extra(self, key: str) -> tuple[Verdict, Any] | None:
        """The stored verdict and the extra data stored beside it (e.g. test cases)."""
        if self.directory is None:
            return None
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            verdict = Verdict(
                data["status"],
                tuple(Evidence(**e) for e in data["evidence"]),
                data["error_kind"],
                data["error"],
                tuple(data["notes"]),
                cached=True,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, or written by another version: decide afresh
        self.hits += 1
        return verdict, data.get("extra")

    def put(self, key: str, verdict: Verdict, extra: Any = None) -> None:
        if self.directory is None:
            return
        if verdict.status == "error" and verdict.error_kind not in _LASTING_ERRORS:
            return
        data = asdict(verdict)
        data.pop("cached")
        data["extra"] = extra
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        try:
            os.replace(tmp, path)  # atomic: concurrent xdist workers never see half a file
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return
        self.stores += 1

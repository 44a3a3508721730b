"""Read what a sandboxed harness's supervisor wrote to its result channel: one JSON
object per line.

Only the supervisor holds the channel (see `supervisor.py`); the code under evaluation
cannot write to it. It is read as untrusted all the same: the file is cut at
`Limits.file_bytes`, the number of lines read is capped, a line nested too deep to parse
is skipped, and a `protocol` record (the supervisor stopped a worker that broke the
harness's protocol) is found by `protocol_error`.
"""

from __future__ import annotations

import json
from typing import Any, Final

#: Lines read from one channel; the rest is ignored.
MAX_RESULT_LINES: Final = 100_000


def read_records(text: str) -> list[dict[str, Any]]:
    """The JSON objects among the first MAX_RESULT_LINES lines of `text`; anything else
    (a torn last line from a killed process, a value that is not an object, a line too
    deep for the parser) is skipped."""
    records: list[dict[str, Any]] = []
    # split with a limit: the lines beyond the cap are never split off one by one.
    for line in text.split("\n", MAX_RESULT_LINES)[:MAX_RESULT_LINES]:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def protocol_error(records: list[dict[str, Any]]) -> str | None:
    """Why the supervisor stopped the run's worker, when it did."""
    for record in records:
        if "protocol" in record:
            return str(record["protocol"])[:300]
    return None

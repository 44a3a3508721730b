"""Read what a sandboxed harness wrote to its result channel: one JSON object per line.

The channel is written from inside the sandbox, where the code under evaluation can write
to it too. The file is already cut at `Limits.file_bytes`; the number of lines read is
capped as well, so a flood of tiny lines costs a bounded amount of parsing.
"""

from __future__ import annotations

import json
from typing import Any, Final

#: Lines read from one channel; the rest is ignored.
MAX_RESULT_LINES: Final = 100_000


def read_records(text: str) -> list[dict[str, Any]]:
    """The JSON objects among the first MAX_RESULT_LINES lines of `text`; anything else
    (a torn last line from a killed process, a value that is not an object) is skipped."""
    records: list[dict[str, Any]] = []
    # split with a limit: the lines beyond the cap are never split off one by one.
    for line in text.split("\n", MAX_RESULT_LINES)[:MAX_RESULT_LINES]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records

"""Responses no task reads: a JSONL record naming a task id that no collected task
reading its file asked for. Records naming another task are skipped by design (several
tasks, and task files, share one samples file), so a typo in a `task_id` would drop a
model's answer without a word and lift its scores; the session says so instead, as a
warning naming each such record's file and line and the closest task id."""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from pytest_codeif.taskfile.parse import ParsedFile
from pytest_codeif.taskfile.responses import UnreadRecord

#: Records named one by one in the warning; the rest are counted.
SHOWN = 5


class UnreadResponsesWarning(pytest.PytestWarning):
    """Some response records name no collected task: their answers are not judged."""


def unread_records(parsed: Iterable[ParsedFile]) -> tuple[list[UnreadRecord], dict[Path, set[str]]]:
    """The records no collected task file's tasks asked for, in file and line order, and
    the task ids asked of each file."""
    files = list(parsed)
    # Task files in different folders name one samples file by different paths.
    wanted: dict[Path, set[str]] = {}
    for one in files:
        for path, ids in one.wanted.items():
            wanted.setdefault(path.resolve(), set()).update(ids)
    unread = {
        (r.path.resolve(), r.line): r
        for one in files
        for r in one.unread
        if r.task_id not in wanted[r.path.resolve()]
    }
    return [unread[key] for key in sorted(unread)], wanted


def warn_unread(parsed: Iterable[ParsedFile], display: Callable[[Path], str]) -> None:
    """Warn once for every record no task reads (the first `SHOWN` named)."""
    unread, wanted = unread_records(parsed)
    if not unread:
        return
    shown = []
    for record in unread[:SHOWN]:
        where = f"{display(record.path)}:{record.line}"
        asked = sorted(wanted[record.path.resolve()])
        close = difflib.get_close_matches(record.task_id, asked, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown.append(f"{where}: task {record.task_id!r}{hint}")
    more = f"; and {len(unread) - SHOWN} more" if len(unread) > SHOWN else ""
    # Located at this module, not at the record: pytest would print the record's line,
    # a model's answer, raw into the terminal. Always shown, never raised: a run with
    # `-W error` must not stop at collection over responses it still judges.
    with warnings.catch_warnings():
        warnings.simplefilter("always", UnreadResponsesWarning)
        warnings.warn(
            UnreadResponsesWarning(
                f"{len(unread)} response record(s) name a task that no collected task "
                f"reading their file is, so their answers are not judged: "
                f"{'; '.join(shown)}{more}"
            ),
            stacklevel=1,
        )

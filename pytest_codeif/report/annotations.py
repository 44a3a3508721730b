"""GitHub Actions annotations: workflow commands (`::error file=...,line=...::message`)
that put each violation on its line in the pull request's diff.

Printed once per run by the controller: `::error` for each finding of a violated item,
`::warning` for an undecidable verdict (at the constraint's line in the task file), and
`::error` for a task file that could not be read or an item whose verdict never arrived.
Paths are relative to the repository root, as GitHub resolves them. GitHub shows at most
10 error and 10 warning annotations per step (50 per job), so at most `LIMIT` of each
level are printed, then one line says how many were left out: more would only lengthen
the log (the SARIF log and the JSON report list every finding).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from pytest_codeif.records import Record, is_outcome, line_of
from pytest_codeif.report.findings import (
    error_text,
    finding_text,
    repo_path,
    rule_id,
    violation_findings,
)
from pytest_codeif.report.safe_text import safe_text

#: Annotations printed per level (error, warning).
LIMIT: Final = 50


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF percent-encoded (GitHub's rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as `escape_data`, and `:` and `,` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def enabled(mode: str, environ: Mapping[str, str]) -> bool:
    """`always`, `never`, or `auto`: when running under GitHub Actions."""
    if mode == "auto":
        return environ.get("GITHUB_ACTIONS") == "true"
    return mode == "always"


def command(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    column: int | None = None,
    title: str | None = None,
) -> str:
    """One workflow command line, every property and the message escaped; each first
    made data by `safe_text` (the message quotes code under evaluation)."""
    properties: list[tuple[str, Any]] = [
        ("file", file),
        ("line", line),
        ("col", column),
        ("title", title),
    ]
    shown = ",".join(
        f"{k}={escape_property(safe_text(str(v)))}" for k, v in properties if v is not None
    )
    return f"::{level}{' ' + shown if shown else ''}::{escape_data(safe_text(message))}"


def _where(path: str, rootdir: Path, root: Path) -> str:
    relative = repo_path(path, rootdir, root)
    return relative if relative is not None else (rootdir / path).as_posix()


def _annotations(record: Record, rootdir: Path, root: Path) -> Iterable[tuple[str, str]]:
    """(level, command) for each annotation of one record."""
    if record["status"] == "violated":
        title = f"codeif {rule_id(record)} violated ({record['task']})"
        for item in violation_findings(record):
            line = item.get("line")
            yield (
                "error",
                command(
                    "error",
                    finding_text(record, item),
                    file=_where(item["path"], rootdir, root),
                    line=line if line and line >= 1 else None,
                    column=item.get("column") if line else None,
                    title=title,
                ),
            )
    elif record["status"] == "error":
        level = "warning" if is_outcome(record) else "error"
        if is_outcome(record):
            title = f"codeif {rule_id(record)} could not be decided ({record['task']})"
        else:
            title = f"codeif: {record.get('error_kind') or 'error'}"
        line = line_of(record)
        yield (
            level,
            command(
                level,
                error_text(record),
                file=_where(record["file"], rootdir, root),
                line=line if isinstance(line, int) and line >= 1 else None,
                title=title,
            ),
        )


def annotation_lines(
    records: Iterable[Record], *, rootdir: Path, root: Path, limit: int = LIMIT
) -> list[str]:
    """The workflow commands for `records`, in node-id order (so the same under
    pytest-xdist), at most `limit` per level, then a plain line for what was left out."""
    lines: list[str] = []
    counts = {"error": 0, "warning": 0}
    for record in sorted(records, key=lambda r: str(r["nodeid"])):
        for level, line in _annotations(record, rootdir, root):
            counts[level] += 1
            if counts[level] <= limit:
                lines.append(line)
    left = {level: n - limit for level, n in counts.items() if n > limit}
    if left:
        parts = ", ".join(f"{n} {level}s" for level, n in left.items())
        lines.append(
            f"codeif: {parts} not annotated (at most {limit} per level; GitHub shows 10); "
            "see the failures above or --codeif-sarif"
        )
    return lines

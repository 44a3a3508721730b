"""The code under evaluation as the JSON report carries it, once per task.

Inline code and model responses are carried as the code that was evaluated (for a
response: what was extracted from it), with the lines each code line came from, so a
reader sees what a finding's `code_line` points at. `file:` and `directory:` code is
named by its paths, never copied: it is the user's own and already on disk. The text is
capped, so a huge response cannot bloat the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, Literal

from pytest_codeif.code.extract import extract_python
from pytest_codeif.code.response_text import ResponseText
from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.records import CodeEntry, TextCode
from pytest_codeif.spec import CodeSpec

#: Most characters of a task's code kept in the report (real answers are a few kB).
MAX_CODE_CHARS: Final = 32_000
#: Most paths of a `directory:` unit listed.
MAX_PATHS: Final = 200


def line_runs(origin: Sequence[int]) -> list[list[int]]:
    """`[code_line, line, count]` runs: code lines `code_line...` came from lines
    `line...`, one for one; a fenced block is one run."""
    runs: list[list[int]] = []
    for index, line in enumerate(origin, start=1):
        last = runs[-1] if runs else None
        if last is not None and line == last[1] + last[2]:
            last[2] += 1
        else:
            runs.append([index, line, 1])
    return runs


def _capped(text: str) -> tuple[str, int, int]:
    """`text` cut at a line end within MAX_CODE_CHARS; (kept, lines kept, lines in all)."""
    total = text.count("\n") + (0 if text.endswith("\n") else 1)
    if len(text) <= MAX_CODE_CHARS:
        return text, total, total
    cut = text.rfind("\n", 0, MAX_CODE_CHARS) + 1
    kept = text[:cut] if cut else text[:MAX_CODE_CHARS] + "\n"
    return kept, kept.count("\n"), total


def _lines(
    spec: CodeSpec, source: SourceFile
) -> tuple[list[list[int]] | None, Literal["origin", "response"] | None]:
    """Where each code line came from, and in what: lines of the origin file when the
    text sits there line for line (a literal `|` block, a response file), else lines of
    the response itself (one line of a JSONL file, a folded or quoted scalar)."""
    origin = source.line_origin or ()
    if len(origin) < 2 or len(set(origin)) > 1:
        return line_runs(origin), "origin"
    if spec.kind == "response":
        extracted = extract_python(spec.value)
        if extracted is not None:
            return line_runs(extracted.line_origin), "response"
    return None, None


def code_entry(spec: CodeSpec, unit: CodeUnit, display: Callable[[Path], str]) -> CodeEntry:
    """The `code` of a task in the JSON report (shape: report.schema.json, `code`)."""
    first = unit.files[0]
    if first.line_origin is None:  # real files on disk: named, not copied
        paths = [display(f.origin) for f in unit.files]
        return {
            "kind": spec.kind,
            "paths": paths[:MAX_PATHS],
            "paths_total": len(paths),
        }
    text, shown, total = _capped(first.text)
    runs, lines_in = _lines(spec, first)
    if runs is not None:
        runs = [[c, line, min(n, shown - c + 1)] for c, line, n in runs if c <= shown]
    entry: TextCode = {
        "kind": spec.kind,
        "origin": display(first.origin),
        "origin_line": first.line_origin[0] if first.line_origin else None,
        "path": first.relpath,
        "text": text,
        "lines": runs,
        "lines_in": lines_in,
        "lines_total": total,
        "lines_shown": shown,
    }
    if shown < total:
        entry["note"] = (
            f"the code has {total} lines ({len(first.text) / 1000:.0f} kB); the report keeps "
            f"the first {shown} (at most {MAX_CODE_CHARS // 1000} kB per task)"
        )
    return entry


def response_entry(
    spec: CodeSpec, response: ResponseText, display: Callable[[Path], str]
) -> TextCode:
    """The `code` of an answer task in the JSON report: the response as written (no code
    is extracted from it), with its lines in the origin file where it sits line for line."""
    text, shown, total = _capped(response.text)
    runs = [[1, response.first_line, shown]] if response.exact else None
    entry: TextCode = {
        "kind": spec.kind,
        "origin": display(response.origin),
        "origin_line": response.first_line,
        "path": "response",
        "text": text,
        "lines": runs,
        "lines_in": "origin" if response.exact else None,
        "lines_total": total,
        "lines_shown": shown,
    }
    if shown < total:
        entry["note"] = (
            f"the response has {total} lines; the report keeps the first {shown} "
            f"(at most {MAX_CODE_CHARS // 1000} kB per task)"
        )
    return entry

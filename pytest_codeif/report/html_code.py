"""Code excerpts of the HTML report: the lines around each offending line of a
violation, the offending lines marked (and underlined from the finding's column).

The lines come from the task's `code.text` in the report, or, for `file:` and
`directory:` code, from the files the task lists, read under the rootdir the user names
(nothing outside it). All text is escaped: it is the code under evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Final

from pytest_codeif.records import CodeEntry, EvidenceEntry
from pytest_codeif.report.safe_text import safe_text

#: Lines shown around an offending line, and bounds that keep an excerpt readable.
CONTEXT: Final = 2
MAX_EXCERPT_LINES: Final = 60
MAX_MARKED: Final = 20
MAX_LINE_CHARS: Final = 240
#: Largest file of a `file:` / `directory:` task read for an excerpt.
MAX_READ_BYTES: Final = 2 * 1024 * 1024


def _e(text: str) -> str:
    """Text made inert: made data by `safe_text` (a bidi override in the code is shown,
    not obeyed), then `<`, `>`, `&` and quotes escaped."""
    return escape(safe_text(text), quote=True)


class CodeSources:
    """Code lines of a task, for excerpts: its `code.text`, or a file of a `file:` /
    `directory:` task read under `root` (only the paths the task lists, nothing else)."""

    def __init__(self, root: Path | None) -> None:
        self.root = root.resolve() if root is not None else None
        self._read: dict[Path, list[str] | None] = {}

    def lines(self, code: CodeEntry | None, evidence: EvidenceEntry) -> list[str] | None:
        """The lines of the file `evidence` points into; None when there are none."""
        if not code:
            return None
        if "text" in code:
            if evidence.get("code_path") != code.get("path"):
                return None
            return str(code["text"]).split("\n")[: int(code.get("lines_shown") or 0)]
        path = str(evidence.get("path") or "")
        if self.root is None or path not in code.get("paths", ()):
            return None
        target = (self.root / path).resolve()
        if not target.is_relative_to(self.root):
            return None  # a path the report names outside the root is not read
        if target not in self._read:
            self._read[target] = read_lines(target)
        return self._read[target]


def read_lines(path: Path) -> list[str] | None:
    """The lines of a source file, or None when it is missing, unreadable or too large."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_READ_BYTES:
            return None
        return path.read_bytes().decode("utf-8", errors="replace").split("\n")
    except OSError:
        return None


def _code_row(number: int, text: str, column: int | None, hit: bool) -> str:
    shown = _cut(text.rstrip("\r"))
    if hit and column and 0 < column <= len(shown):
        body = f'{_e(shown[: column - 1])}<span class="at">{_e(shown[column - 1 :])}</span>'
    else:
        body = _e(shown)
    mark = "▶ " if hit else ""
    css = ' class="hit"' if hit else ""
    return f'<tr{css}><td class="ln">{mark}{number}</td><td class="src">{body}</td></tr>'


def excerpt(lines: Sequence[str], marks: dict[int, int | None]) -> str:
    """The lines around each marked line (line -> column or None), marked lines
    highlighted; lines left out shown as one row of dots."""
    wanted = sorted(line for line in marks if 1 <= line <= len(lines))[:MAX_MARKED]
    windows: list[list[int]] = []
    for line in wanted:
        low, high = max(1, line - CONTEXT), min(len(lines), line + CONTEXT)
        if windows and low <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], high)
        else:
            windows.append([low, high])
    rows: list[str] = []
    numbers = [n for low, high in windows for n in range(low, high + 1)][:MAX_EXCERPT_LINES]
    previous = 0
    for number in numbers:
        if number > previous + 1:  # lines left out before this one
            rows.append('<tr class="gap"><td class="ln">&#8943;</td><td></td></tr>')
        hit = number in marks
        rows.append(_code_row(number, lines[number - 1], marks.get(number), hit))
        previous = number
    if not rows:
        return ""
    return f'<div class="scroll"><table class="code"><tbody>{"".join(rows)}</tbody></table></div>'


def excerpts(
    code: CodeEntry | None, evidence: Sequence[EvidenceEntry], sources: CodeSources
) -> str:
    """One excerpt per file of the code an outcome's `evidence` points into."""
    by_file: dict[str, tuple[list[str], dict[int, int | None]]] = {}
    beyond = 0
    for ev in evidence:
        line = ev.get("code_line")
        if not isinstance(line, int) or line < 1:
            continue
        lines = sources.lines(code, ev)
        if lines is None:
            continue
        if line > len(lines):
            beyond += 1
            continue
        name = str(ev.get("path") if code and "paths" in code else ev.get("code_path"))
        marks = by_file.setdefault(name, (lines, {}))[1]
        column = ev.get("code_column")
        marks.setdefault(line, column if isinstance(column, int) else None)
    parts: list[str] = []
    for name, (lines, marks) in by_file.items():
        if len(by_file) > 1 or (code and "paths" in code):
            parts.append(f'<p class="file">{_e(name)}</p>')
        parts.append(excerpt(lines, marks))
    if beyond:
        parts.append(
            f'<p class="note">{beyond} finding(s) lie past the part of the code the report '
            "keeps.</p>"
        )
    return "".join(parts)


def _cut(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"

"""A pattern tried on files (`codeif pattern 'PATTERN' FILE...`): every match, with its
place and the code it matched, as a rule `pattern: PATTERN` would find them."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile

#: Folders a directory's search leaves out: tools' and environments' own files.
SKIPPED_FOLDERS: Final = (".*", "__pycache__", "node_modules", "venv", "*.egg-info")


@dataclass(frozen=True)
class Found:
    """One match: its 1-based line and column in the file, and its code as written."""

    line: int
    column: int
    text: str


def rule_of(pattern: str) -> PatternCheck:
    """The rule `pattern: PATTERN`; `ValueError` (naming the problem) for a bad pattern."""
    return PatternCheck({"pattern": pattern})


def python_files(paths: Sequence[Path]) -> Iterator[Path]:
    """Each path that is a file, and the `.py` files below each that is a folder (in
    name order, leaving out hidden folders, caches and environments)."""
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        for found in sorted(path.rglob("*.py")):
            parts = found.relative_to(path).parts[:-1]
            if not any(fnmatch.fnmatch(part, skip) for part in parts for skip in SKIPPED_FOLDERS):
                yield found


def search(rule: PatternCheck, path: Path) -> list[Found]:
    """Every match of `rule` in the Python file at `path`, in order. Raises `OSError` or
    `UnicodeDecodeError` for a file that cannot be read, and `Undecidable` for one that
    does not parse or is too large to match."""
    text = path.read_text(encoding="utf-8")
    module = ParsedModule(SourceFile(path.as_posix(), text, path))
    lines = text.splitlines(keepends=True)
    found: list[Found] = []
    for hit in rule.matches([module]):
        where = module.positions[hit.node]
        start, end = where.start, where.end
        if start.line == end.line:
            code = lines[start.line - 1][start.column : end.column]
        else:
            middle = lines[start.line : end.line - 1]
            code = "".join(
                [lines[start.line - 1][start.column :], *middle, lines[end.line - 1][: end.column]]
            )
        found.append(Found(start.line, start.column + 1, code))
    return found

"""A pattern tried on files (`codeif pattern 'PATTERN' FILE...`): every match, with its
place and the code it matched, as a rule `pattern: PATTERN` would find them. Python files
are matched by the rule's Python form, JavaScript and TypeScript files (by their
suffixes) by its ast-grep form, as the rule judges a project of both.

The files are hostile, as the code a rule judges is: a file is read as the engine reads
one (a regular file of at most `MAX_FILE_BYTES`, as `utf-8-sig`), never a FIFO or device
that would block or read without end, and a folder is listed by the project walk a
`directory:` unit uses (`.gitignore` honoured, environments and built code skipped).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import libcst as cst

from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.checks.pattern.js import JsRule
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.languages import (
    JS_FAMILY,
    PYTHON,
    language_of_path,
    source_suffixes,
)
from pytest_codeif.code.languages import language as language_named
from pytest_codeif.code.unit import MAX_FILE_BYTES, SourceFile
from pytest_codeif.code.walk import scan_project
from pytest_codeif.outcome import Undecidable

# Where a line ends for libcst (and Python): after "\n", "\r\n" or a lone "\r"; never at
# the other breaks `str.splitlines` knows ("\f", "\x1c", "\u2028"...), which would shift
# every later line and show code other than what matched.
_LINE_END: Final = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
#: What starts a line of its own: a statement, or a clause or decorator of one.
_OPENS_A_LINE: Final = (
    cst.SimpleStatementLine,
    cst.BaseCompoundStatement,
    cst.Decorator,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)
#: The blanks and form feeds a line starts with.
_LEAD: Final = re.compile(r"[ \t\f]*")
_TOO_LARGE: Final = f"larger than the {MAX_FILE_BYTES:,} bytes a pattern rule reads of a file"


@dataclass(frozen=True)
class Found:
    """One match: its 1-based line and column in the file, and its code as written."""

    line: int
    column: int
    text: str


@dataclass(frozen=True)
class Unlisted:
    """A folder under a folder argument that could not be listed: its files unsearched."""

    path: Path
    why: str


class Refused(Exception):
    """A file the search does not read, as the engine would not: not a regular file, or
    larger than `MAX_FILE_BYTES`. Its message says why, without the path."""


def rule_of(pattern: str, language: str | None = None) -> PatternCheck:
    """The rule `pattern: PATTERN` (with `language: LANGUAGE` when given); `ValueError`
    (naming the problem) for a bad pattern."""
    options = (
        {"pattern": pattern} if language is None else {"pattern": pattern, "language": language}
    )
    return PatternCheck(options)


def pattern_files(paths: Sequence[Path], language: str | None = None) -> Iterator[Path | Unlisted]:
    """Each path that is not a folder (`search` refuses what is not a regular file), and
    the source files of each that is (of `language`, else of every language), as the
    project walk lists them (in code point order); with each folder below it that could
    not be listed."""
    suffixes = source_suffixes() if language is None else language_named(language).suffixes
    for path in paths:
        if not path.is_dir():
            yield path
            continue
        listed = scan_project(path, suffixes=suffixes)
        found: list[tuple[str, Path | Unlisted]] = [(rel, path / rel) for rel in listed.files]
        found += [
            (skip.path, Unlisted(path / skip.path.rstrip("/"), skip.rule))
            for skip in listed.skipped
            if skip.reason == "unreadable"
        ]
        for _, item in sorted(found, key=lambda pair: pair[0]):
            yield item


def read_source(path: Path) -> str:
    """The text of the Python file at `path`, read as the engine reads one. Raises
    `Refused` for a FIFO, a device, a folder or a file over `MAX_FILE_BYTES`, `OSError`
    or `UnicodeDecodeError` for one that cannot be read."""
    # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused("not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise Refused(_TOO_LARGE)
        data = file.read(MAX_FILE_BYTES + 1)  # it may have grown since
    if len(data) > MAX_FILE_BYTES:
        raise Refused(_TOO_LARGE)
    return data.decode("utf-8-sig")


def search(rule: PatternCheck, path: Path) -> list[Found]:
    """Every match of `rule` in the file at `path` (JavaScript or TypeScript by its
    suffix, else Python), in order. Raises `Refused`, `OSError` or `UnicodeDecodeError`
    for a file that cannot be read (see `read_source`), and `Undecidable` for one that
    does not parse, is too large to match, or is in a language the rule is not for."""
    text = read_source(path)
    written_in = language_of_path(path.name)
    asked = rule.options.get("language")
    if written_in is not None and written_in.name in JS_FAMILY:
        if asked == PYTHON.name or rule.js_rule is None:
            why = "the rule is Python's" if asked else f"the pattern: {rule.not_js}"
            raise Undecidable("invalid-task", f"{path}: a {written_in.name} file, and {why}")
        source = SourceFile(path.as_posix(), text, path, language=written_in.name)
        return _js_found(rule.js_rule, JsModule(source))
    if asked in JS_FAMILY:
        raise Undecidable("invalid-task", f"{path}: not a {asked} file (by its suffix)")
    module = ParsedModule(SourceFile(path.as_posix(), text, path))
    lines = _Lines(text, module)
    found: list[Found] = []
    for hit in rule.matches([module]):
        where = module.positions[hit.node]
        start, end = where.start, where.end
        first = lines.index(start.line, start.column)
        if start.line == end.line:
            code = lines.text[start.line - 1][first : lines.index(end.line, end.column)]
        else:
            code = "".join(
                [
                    lines.text[start.line - 1][first:],
                    *lines.text[start.line : end.line - 1],
                    lines.text[end.line - 1][: lines.index(end.line, end.column)],
                ]
            )
        found.append(Found(start.line, first + 1, code))
    return found


def _js_found(rule: JsRule, module: JsModule) -> list[Found]:
    """The matches of a JS/TS rule in `module`: ast-grep's lines and columns count
    characters from each line's start (form feeds open no statement there)."""
    found: list[Found] = []
    for node, _ in rule.matches(module):
        start = node.range().start
        found.append(Found(start.line + 1, start.column + 1, node.text()))
    return found


class _Lines:
    """The lines of a file as libcst counts them, and where in a line a libcst column is.

    libcst counts the columns of a line that starts a top-level statement from after
    the blanks and form feeds that may open it (Python allows `\\f` there): taken as
    indexes, they would cut the matched code short by as many characters.
    """

    def __init__(self, text: str, module: ParsedModule) -> None:
        self.text = _LINE_END.split(text)
        self._module = module
        self._first: dict[int, int] | None = None  # line: column of its first statement

    def index(self, line: int, column: int) -> int:
        """The index in line `line` (1-based) of libcst's column `column` of it."""
        lead = _LEAD.match(self.text[line - 1])
        if lead is None or "\f" not in lead.group():  # only a form feed moves libcst's count
            return column
        if self._first is None:
            self._first = {}
            for node, where in self._module.positions.items():
                if not isinstance(node, _OPENS_A_LINE):
                    continue  # whitespace nodes start inside the blanks
                at = where.start
                self._first[at.line] = min(at.column, self._first.get(at.line, at.column))
        # No statement starts inside the blanks: one before their end was counted from
        # after them.
        return column + max(0, lead.end() - self._first.get(line, lead.end()))

"""Parsing one source file, by the language it is written in.

Python files become `ParsedModule`s (libcst, with positions and scopes), what every
Python check reads; JavaScript and TypeScript files become `JsModule`s (ast-grep's
tree-sitter grammars, see `js_tree.py`). A language joins with its own parser here; a
file in a language with none is a located error, never a file silently left unread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from pytest_codeif.code.names import ModulePlace
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

if TYPE_CHECKING:
    from pytest_codeif.code.js_tree import JsModule


class Parser(Protocol):
    """Parses a file placed among its project's modules (None: a single module);
    `python_checked`: the language's own parser accepted the text already."""

    def __call__(
        self, source: SourceFile, place: ModulePlace | None, *, python_checked: bool
    ) -> ParsedModule | JsModule: ...


def _parse_js(source: SourceFile, place: ModulePlace | None, *, python_checked: bool) -> JsModule:
    """A JS/TS file's `JsModule` (ast-grep imported on the first one: a Python-only
    session never loads it)."""
    from pytest_codeif.code.js_tree import JsModule  # noqa: PLC0415 - see the docstring

    return JsModule(source)


#: The parser of each language, by name.
PARSERS: Final[dict[str, Parser]] = {
    PYTHON.name: ParsedModule,
    JAVASCRIPT.name: _parse_js,
    TYPESCRIPT.name: _parse_js,
}


def parse_source_file(
    source: SourceFile, place: ModulePlace | None = None, *, python_checked: bool = False
) -> ParsedModule | JsModule:
    """`source` parsed by its language's parser; `Undecidable("invalid-task")` naming the
    file when the language has none (`Undecidable("syntax-error")` from the parser when
    the text does not parse). `python_checked`: Python's parser accepted the text already
    (see `ParsedModule`)."""
    parser = PARSERS.get(source.language)
    if parser is None:
        raise Undecidable(
            "invalid-task",
            f"{source.relpath}: {source.language} code cannot be parsed: no parser for the "
            "language",
        )
    return parser(source, place, python_checked=python_checked)

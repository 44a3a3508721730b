"""JavaScript and TypeScript files parsed once, through ast-grep (tree-sitter grammars).

A `JsModule` is what the JS/TS checks read, as `ParsedModule` is for Python: the file, the
grammar it was read with, and ast-grep's root node, whose `find_all` (kinds, patterns,
rules) runs in native code. Why ast-grep: `benchmarks/js_parsers.py` measured it on the
corpus's 824 JS/TS responses against the bare tree-sitter wheels (the same grammars:
the same verdicts, 1.9 x their time with the syntax-error search) and esprima (8.9 x,
no TypeScript, no JSX, 108 valid files refused); it alone brings a pattern language with
metavariables for the `pattern` check.

Grammars: `javascript` (which reads JSX too) for `.js .mjs .cjs .jsx`, or `tsx` where
its only errors are JSX attributes named by reserved words (tree-sitter's JavaScript
grammar refuses `<div class="x">`, `<label for="x">`; with those names replaced it must
read the file without error, so TypeScript never passes for JavaScript); `tsx` for
`.tsx`;
`typescript` for `.ts .mts .cts`, and, for TypeScript that has no file name of its own
(inline code, a response's fences), `tsx` when `typescript` finds errors (JSX in a
```tsx block; `<T>x` casts read only as `typescript`).

Syntax errors are tree-sitter's ERROR nodes and its MISSING ones (a zero-width token
it inserted, `)` in `f(1`); the first, by position, is the module's `JsSyntaxError`,
located at its line. Tree-sitter recovers where a compiler stops, so an error it does
not see (a duplicate `let`, `await` outside `async`) is left to the language's compiler
(`tsc`, Node), never guessed.

Hostile code is bounded before it reaches native code (`JsBounds`): the unit's size
bounds first (`unit.py`: 2 MB a file), then at most `MAX_NESTING` brackets open at once
(a scan of the text: brackets in strings and comments count too, so the figure can
only be too high) and no line longer than `MAX_LINE` characters (ast-grep computes a
node's column by walking its line, so locating nodes on a megabyte line would take
seconds each; minified code has such lines, hand-written code does not). Every walk
here is iterative, and no node's whole text is read where a bounded snippet will do.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, Literal

from pytest_codeif.code.js_syntax import MAX_LINE, MAX_NESTING, JsBounds, first_error
from pytest_codeif.code.languages import JS_FAMILY, TYPESCRIPT
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

if TYPE_CHECKING:  # ast-grep itself is imported by the first parse: Python-only runs never load it
    from ast_grep_py import SgNode

Grammar = Literal["javascript", "typescript", "tsx"]

#: Longest piece of code quoted in a message.
SNIPPET: Final = 80


class JsSyntaxError(Undecidable):
    """A JS/TS file that does not parse: its first error, at its line of the file."""

    def __init__(self, source: SourceFile, line: int, what: str) -> None:
        super().__init__("syntax-error", f"{source.relpath}:{line}: {what}")
        self.source = source
        self.line = line
        self.what = what


def grammar_of(source: SourceFile) -> Grammar:
    """The tree-sitter grammar `source` is read with first (see the module docstring)."""
    if source.language != TYPESCRIPT.name:
        return "javascript"
    return "tsx" if source.relpath.endswith(".tsx") else "typescript"


class JsModule:
    """One JavaScript or TypeScript file and its ast-grep tree (see the module docstring).
    Raises `Undecidable` ("too-large") past the bounds and `JsSyntaxError` for code that
    does not parse."""

    def __init__(self, source: SourceFile) -> None:
        if source.language not in JS_FAMILY:
            raise ValueError(f"{source.relpath} is {source.language}, not JavaScript")
        self.source = source
        self.relpath = source.relpath
        self.language = source.language
        self.text = source.text
        _check_bounds(source)
        from ast_grep_py import SgRoot  # noqa: PLC0415 - loaded by the first JS/TS parse

        self.grammar: Grammar = grammar_of(source)
        self.root: SgNode = SgRoot(source.text, self.grammar).root()
        error = self.first_error()
        if error is not None and self.grammar == "typescript" and _unnamed(source):
            retried = SgRoot(source.text, "tsx").root()
            if first_error(retried) is None:
                self.grammar, self.root, error = "tsx", retried, None
        elif error is not None and self.grammar == "javascript":
            retried = SgRoot(source.text, "tsx").root()
            if first_error(retried) is None and _only_keyword_attributes(source.text, retried):
                self.grammar, self.root, error = "tsx", retried, None
        if error is not None:
            line, what = error
            raise JsSyntaxError(source, line, what)

    def first_error(self) -> tuple[int, str] | None:
        return first_error(self.root)

    def nodes(self, *kinds: str, within: SgNode | None = None) -> list[SgNode]:
        """The nodes of these kinds below `within` (the whole module by default; `within`
        itself included), in document order; found in native code."""
        top = within if within is not None else self.root
        if not kinds:
            return list(walk(top))
        # A kind one grammar lacks (`field_definition` is JavaScript's, TypeScript says
        # `public_field_definition`) is no node of this file: ast-grep would refuse it.
        kinds = tuple(kind for kind in kinds if known_kind(self.grammar, kind))
        if not kinds:
            return []
        if len(kinds) == 1:
            found = top.find_all(kind=kinds[0])
        else:
            found = top.find_all(any=[{"kind": kind} for kind in kinds])
        return found

    def line_of(self, node: SgNode) -> int:
        """The 1-based line of the file `node` starts on."""
        return node.range().start.line + 1

    def snippet(self, node: SgNode, limit: int = SNIPPET) -> str:
        """`node`'s code on one line, shortened to `limit` characters: read from the
        file's text, never the node's whole text (which may be the whole file)."""
        span = node.range()
        start, end = span.start.index, span.end.index
        piece = self.text[start : min(end, start + limit * 4)]
        line = " ".join(part.strip() for part in piece.splitlines() if part.strip())
        cut = end - start > limit * 4 or len(line) > limit
        return line[: limit - 3] + "..." if cut else line


@functools.cache
def known_kind(grammar: Grammar, kind: str) -> bool:
    """Whether `grammar` has nodes of `kind` (ast-grep refuses a rule naming another)."""
    from ast_grep_py import SgRoot  # noqa: PLC0415 - see the module's TYPE_CHECKING note

    try:
        SgRoot("", grammar).root().find(kind=kind)
    except RuntimeError:
        return False
    return True


def walk(top: SgNode) -> Iterator[SgNode]:
    """`top` and every node below it, named or not, in document order, iteratively."""
    stack = [top]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))


def _check_bounds(source: SourceFile) -> None:
    bounds = JsBounds.of(source.text)
    if bounds.nesting > MAX_NESTING:
        raise Undecidable(
            "too-large",
            f"{source.relpath}: brackets nested {bounds.nesting} deep; at most {MAX_NESTING} "
            "are read",
        )
    if bounds.longest_line > MAX_LINE:
        raise Undecidable(
            "too-large",
            f"{source.relpath}: a line of {bounds.longest_line:,} characters (minified or "
            f"generated code); at most {MAX_LINE:,} per line are read",
        )


#: JavaScript's reserved words, which JSX allows as attribute names (`class`, `for`)
#: and tree-sitter's JavaScript grammar refuses there.
_RESERVED: Final = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "let",
        "static",
        "enum",
        "await",
        "implements",
        "package",
        "protected",
        "interface",
        "private",
        "public",
    ]
)


def _only_keyword_attributes(text: str, tsx: SgNode) -> bool:
    """Whether JavaScript refused only for JSX attributes named by reserved words: with
    those names replaced by plain ones of the same length, the javascript grammar reads
    `text` without error (so TypeScript never passes for JavaScript this way)."""
    spans = []
    for attribute in tsx.find_all(kind="jsx_attribute"):
        name = attribute.child(0)
        if name is not None and name.text() in _RESERVED:
            span = name.range()
            spans.append((span.start.index, span.end.index))
    if not spans:
        return False
    parts, last = [], 0
    for start, end in sorted(spans):
        parts += [text[last:start], "_" * (end - start)]
        last = end
    parts.append(text[last:])
    from ast_grep_py import SgRoot  # noqa: PLC0415 - loaded by the first JS/TS parse

    return first_error(SgRoot("".join(parts), "javascript").root()) is None


def _unnamed(source: SourceFile) -> bool:
    """Whether `source` came without a TypeScript file name of its own (inline code, a
    response), so that its dialect (TS or TSX) is not known."""
    return not source.origin.name.lower().endswith((".ts", ".mts", ".cts"))

"""The import statements of a Python source, with the guards around each: read from an
`ast` tree, or scanned from the text more than ten times faster.

An import graph needs every `import` and `from ... import` statement of every file, its
first line, whether it is in the body of `if TYPE_CHECKING:` and whether it is inside a
function: nothing else of the file. Parsing a file with `ast` builds every node of it;
on a 1,000-module project that costs seconds, several times what grimp (Rust, import-
linter's engine) takes for the whole graph (figures in `import_graph`'s docstring).
`scan_statements` reads only what it needs,
and gives exactly what `statements_of_tree` gives for the same (valid) source: the test
suite compares the two on every file of several installed packages and on generated
programs.

How the scan stays exact on valid code:

- Strings and comments are found first, with one regular expression (prefixes do not
  change where a string ends), so `import` inside a docstring or after `#` is no
  statement.
- Each `import` keyword outside them starts a statement when only whitespace, `;` or a
  block's `:` precedes it on its logical line, and it is the second half of a
  `from ... import` when `from` does; the statement runs to the end of its logical
  line (parentheses and backslash continuations followed), and must then match the
  import grammar (so `raise E from e` and prose are never taken for imports).
- Identifiers are folded to NFKC, as Python (and so `ast`) reads them: `import os`
  written in fullwidth letters imports `os`.
- Guards come from indentation: the blocks around a statement are the nearest earlier
  logical lines of smaller indentation, found walking back over physical lines while
  tracking bracket depth (so continuation lines, whatever their indentation, are not
  mistaken for block headers); a `def` header puts the statement in a function, an
  `if TYPE_CHECKING:` / `elif TYPE_CHECKING:` header (or a dotted name ending in
  `.TYPE_CHECKING`) in a type-checking block. An `else:` has the `if`'s indentation, so
  its body is not inside the `if`'s.

The scan assumes the source parses (the engine checks every file's syntax before any
check runs); on invalid code it returns its best reading instead of an error.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final

from pytest_codeif.code.identifiers import as_read

_CHILD_FIELDS: Final[dict[type[ast.AST], tuple[str, ...]]] = {
    ast.FunctionDef: ("body",),
    ast.AsyncFunctionDef: ("body",),
    ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.TryStar: ("body", "handlers", "orelse", "finalbody"),
    ast.ExceptHandler: ("body",),
    ast.Match: ("cases",),
    ast.match_case: ("body",),
}
_FUNCTIONS: Final = (ast.FunctionDef, ast.AsyncFunctionDef)

#: Comments and string literals (unterminated ones run to the end: the scan never
#: fails). Inside a string, a backslash escapes the next character, raw or not.
_SKIPPED: Final = re.compile(
    r"#[^\n]*"
    r'|"""(?:[^"\\]++|\\.|"(?!""))*+(?:"""|\Z)'
    r"|'''(?:[^'\\]++|\\.|'(?!''))*+(?:'''|\Z)"
    r'|"(?:[^"\\\n]++|\\.)*+"?'
    r"|'(?:[^'\\\n]++|\\.)*+'?",
    re.S,
)
_KEYWORD: Final = re.compile(r"import(?=[\s\\(*])")
_BLANK: Final = re.compile(r"[ \t\f]*")
_AFTER_SEPARATOR: Final = re.compile(r"[;:][ \t\f]*\Z")
_FROM_HEAD: Final = re.compile(r"(?:^|[;:])[ \t\f]*(from)(?!\w)[^;:]*\Z")
_NAME: Final = r"[^\W\d]\w*"
_DOTTED: Final = rf"{_NAME}(?:\s*\.\s*{_NAME})*"
_PLAIN: Final = re.compile(
    rf"import\s+({_DOTTED}(?:\s+as\s+{_NAME})?(?:\s*,\s*{_DOTTED}(?:\s+as\s+{_NAME})?)*)\s*"
)
_FROM_NAMES: Final = rf"{_NAME}(?:\s+as\s+{_NAME})?(?:\s*,\s*{_NAME}(?:\s+as\s+{_NAME})?)*"
_FROM: Final = re.compile(
    rf"from\s*((?:\.\s*)*)((?!import(?!\w)){_DOTTED})?\s*import\s*"
    rf"(\*|\(\s*{_FROM_NAMES}\s*,?\s*\)|{_FROM_NAMES})\s*"
)
_ENDS: Final = re.compile(r"[\n()\[\]{};#\\]")
_SIMPLE: Final = re.compile(r"[^\n();#\\]*")
_FUNCTION_HEADER: Final = re.compile(r"(?:async\s+)?def(?!\w)")
_GUARD: Final = re.compile(rf"(?:el)?if\s*\(*\s*(?:{_NAME}\s*\.\s*)*TYPE_CHECKING\s*\)*\s*")
_OPEN: Final = "([{"
_CLOSE: Final = ")]}"


@dataclass(frozen=True)
class ImportStatement:
    """One import statement as written.

    `import a.b as c, d` is level 0, module None, names `("a.b", "d")`, not `is_from`;
    `from ..x import y, z` is level 2, module `"x"`, names `("y", "z")`. `line` is the
    statement's first line; the flags say whether it is in the body of an
    `if TYPE_CHECKING:` and whether it is inside a function.
    """

    line: int
    is_from: bool
    level: int
    module: str | None
    names: tuple[str, ...]
    type_checking: bool = False
    in_function: bool = False


# -- from a tree ------------------------------------------------------------------------
def statements_of_tree(tree: ast.Module) -> list[ImportStatement]:
    """Every import statement of a parsed module, anywhere in it, with its guards, by
    line. Only statement lists are walked: an import is a statement."""
    found: list[ImportStatement] = []
    stack: list[tuple[list[ast.stmt], bool, bool]] = [(tree.body, False, False)]
    fields = _CHILD_FIELDS
    while stack:
        body, type_checking, in_function = stack.pop()
        for node in body:
            if isinstance(node, ast.Import):
                names = tuple(alias.name for alias in node.names)
                found.append(
                    ImportStatement(node.lineno, False, 0, None, names, type_checking, in_function)
                )
            elif isinstance(node, ast.ImportFrom):
                names = tuple(alias.name for alias in node.names)
                statement = ImportStatement(
                    node.lineno, True, node.level, node.module, names, type_checking, in_function
                )
                found.append(statement)
            elif (inner := fields.get(type(node))) is not None:
                in_body = in_function or isinstance(node, _FUNCTIONS)
                guarded = isinstance(node, ast.If) and is_type_checking(node.test)
                for name in inner:
                    children = getattr(node, name)
                    stack.append((children, type_checking or (guarded and name == "body"), in_body))
    found.sort(key=lambda s: s.line)
    return found


def is_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING`, or a dotted name ending in it (`typing.TYPE_CHECKING`)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    if not isinstance(test, ast.Attribute) or test.attr != "TYPE_CHECKING":
        return False
    value = test.value
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name)


# -- from the text ----------------------------------------------------------------------
def scan_statements(text: str) -> list[ImportStatement]:
    """Every import statement of `text` (valid Python), as `statements_of_tree` gives
    them for its tree, without parsing the rest (see the module docstring)."""
    if "import" not in text:
        return []
    if "\r" in text:  # universal newlines, as the tokenizer reads them
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _Scan(text).statements()


class _Scan:
    """One source text and the places of its strings and comments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] = []
        self._ends: list[int] = []
        #: Strings and comments are found from the top down, only as far as a question
        #: needs: most imports are at the top of their file.
        self._found = _SKIPPED.finditer(text)
        self._seen = 0  # every string or comment starting before this is known

    # -- strings and comments ----------------------------------------------------------
    def _spans(self, position: int) -> tuple[list[int], list[int]]:
        """The strings and comments found so far: all those starting before `position`."""
        if position >= self._seen:
            starts, ends = self._starts, self._ends
            for match in self._found:
                start, end = match.span()
                starts.append(start)
                ends.append(end)
                if start >= position:
                    self._seen = start + 1
                    break
            else:
                self._seen = len(self.text) + 1
        return self._starts, self._ends

    def _inside(self, position: int) -> bool:
        """Whether `position` is in a string or comment that starts before it."""
        return self._span_end(position) is not None

    def _span_end(self, position: int) -> int | None:
        """The end of the string that holds `position` (started before it), if any."""
        starts, ends = self._spans(position)
        index = bisect_right(starts, position - 1) - 1
        return ends[index] if index >= 0 and ends[index] > position else None

    def _code(self, start: int, end: int) -> str:
        """`text[start:end]` without its strings and comments (each becomes a space)."""
        starts, ends = self._spans(end)
        index = max(bisect_right(starts, start) - 1, 0)
        pieces: list[str] = []
        at = start
        while index < len(starts) and starts[index] < end:
            if ends[index] > at:
                if starts[index] > at:
                    pieces.append(self.text[at : starts[index]])
                pieces.append(" ")
                at = ends[index]
            index += 1
        if at < end:
            pieces.append(self.text[at:end])
        return "".join(pieces)

    # -- statements --------------------------------------------------------------------
    def statements(self) -> list[ImportStatement]:
        found: list[ImportStatement] = []
        text = self.text
        for match in _KEYWORD.finditer(text):
            keyword = match.start()
            if keyword and (text[keyword - 1].isalnum() or text[keyword - 1] == "_"):
                continue  # `reimport`, an identifier
            start, logical = self._statement_start(keyword)
            if start < 0 or self._inside(keyword) or (start != keyword and self._inside(start)):
                continue
            statement = self._read(start, keyword, logical)
            if statement is not None:
                found.append(statement)
        return found

    def _statement_start(self, keyword: int) -> tuple[int, int]:
        """Where the statement whose `import` keyword is at `keyword` starts (the
        keyword itself, or its `from`; -1 when no statement starts there), and where its
        logical line starts when that is known here (else -1)."""
        text = self.text
        line = text.rfind("\n", 0, keyword) + 1
        head = text[line:keyword]
        # Backslash continuations: `from a \` / `    import b`.
        while line and text[line - 2 : line] == "\\\n" and not self._inside(line - 2):
            previous = text.rfind("\n", 0, line - 1) + 1
            head = text[previous : line - 2] + " " + head
            line = previous
        if _BLANK.fullmatch(head):
            return keyword, line
        if _AFTER_SEPARATOR.search(head):
            return keyword, -1
        found = _FROM_HEAD.search(head)
        if found is None:
            return -1, -1
        # The statement starts at `from`; map its place in `head` back to the text.
        start = self._position_in_head(line, keyword, found.start(1))
        return start, line if head[found.start()] not in ";:" else -1

    def _position_in_head(self, line: int, keyword: int, offset: int) -> int:
        """The text position of `head[offset]`, `head` being the text from `line` to
        `keyword` with each backslash continuation (`\\\n`) read as one space."""
        text = self.text
        at, remaining = line, offset
        while True:
            end = text.find("\\\n", at, keyword)
            length = (end - at) if end != -1 else len(text) - at
            if remaining <= length:
                return at + remaining
            remaining -= length + 1
            at = end + 2

    def _read(self, start: int, keyword: int, logical: int) -> ImportStatement | None:
        """The statement starting at `start`, if it is an import, with its guards
        (`logical`: the start of its logical line, or -1 when not known yet)."""
        text = self.text
        simple = _SIMPLE.match(text, keyword)
        end = simple.end() if simple else keyword
        if end == len(text) or text[end] in "\n;":
            code = text[start:end]  # no brackets, no comment: the usual case
        else:
            end = self._statement_end(keyword)
            code = self._code(start, end)
        statement = _parsed(code.replace("\\\n", " "))
        if statement is None:
            return None
        line = self.text.count("\n", 0, start) + 1
        if logical == start:  # at column 0 of its own logical line: module level
            return ImportStatement(line, *statement)
        type_checking, in_function = self._guards(start, logical)
        return ImportStatement(line, *statement, type_checking, in_function)

    def _statement_end(self, position: int) -> int:
        """The end of the logical line (or `;`-separated statement) at `position`."""
        text = self.text
        depth = 0
        while True:
            found = _ENDS.search(text, position)
            if found is None:
                return len(text)
            char, position = found.group(), found.end()
            skipped = self._span_end(found.start())
            if skipped is not None:
                position = skipped  # a bracket or `;` inside a string
                continue
            if char in _OPEN:
                depth += 1
            elif char in _CLOSE:
                depth -= 1
            elif char == "\\":
                position += 1  # the escaped newline
            elif char == "#":
                newline = text.find("\n", position)
                if depth <= 0:
                    return found.start()
                position = newline if newline != -1 else len(text)
            elif char in ";\n" and depth <= 0:
                return found.start()

    # -- guards ------------------------------------------------------------------------
    def _guards(self, start: int, logical: int) -> tuple[bool, bool]:
        """(in an `if TYPE_CHECKING:` body, in a function) for the statement at `start`,
        whose logical line starts at `logical` (-1: not known yet)."""
        if logical < 0:
            logical = self._logical_start(start)
        type_checking = in_function = False
        indent_at = logical
        if self._first_code(logical) != start:
            # After `;` or a block's `:` on its line: in that block when the line is a
            # compound statement's header (`if TYPE_CHECKING: import x`); a simple
            # statement's line classifies as neither.
            type_checking, in_function = self._classify(logical)
        width = self._width(indent_at)
        while width > 0:
            header = self._enclosing(indent_at, width)
            if header is None:
                break
            guard, function = self._classify(header)
            type_checking, in_function = type_checking or guard, in_function or function
            indent_at, width = header, self._width(header)
        return type_checking, in_function

    def _first_code(self, line: int) -> int:
        """The first position of the line at `line` that is not indentation."""
        found = _BLANK.match(self.text, line)
        return found.end() if found else line

    def _width(self, line: int) -> int:
        """The indentation of the line at `line`, as the tokenizer measures it."""
        width = 0
        for char in self.text[line : self._first_code(line)]:
            if char == "\t":
                width = (width // 8 + 1) * 8
            elif char == "\f":
                width = 0
            else:
                width += 1
        return width

    def _net(self, start: int, end: int) -> int:
        """Brackets opened minus closed in `text[start:end]`, outside strings."""
        code = self._code(start, end)
        return sum(code.count(c) for c in _OPEN) - sum(code.count(c) for c in _CLOSE)

    def _continued(self, line: int) -> bool:
        """Whether the physical line before `line` ends in a backslash continuation."""
        return line >= 2 and self.text[line - 2 : line] == "\\\n" and not self._inside(line - 2)

    def _logical_start(self, position: int) -> int:
        """The start of the physical line where the logical line holding `position`
        (at bracket depth 0) begins."""
        text = self.text
        line = text.rfind("\n", 0, position) + 1
        depth = -self._net(line, position)
        while line and (depth != 0 or self._inside(line) or self._continued(line)):
            previous = text.rfind("\n", 0, line - 1) + 1
            depth -= self._net(previous, line)
            line = previous
        return line

    def _enclosing(self, line: int, width: int) -> int | None:
        """The nearest logical line before the one at `line` indented less than
        `width`: the header of the block holding it."""
        text = self.text
        depth = 0
        while line:
            previous = text.rfind("\n", 0, line - 1) + 1
            depth -= self._net(previous, line)
            line = previous
            if depth != 0 or self._inside(line) or self._continued(line):
                continue
            first = self._first_code(line)
            if first == len(text) or text[first] in "\n#":
                continue  # blank or comment only
            if self._width(line) < width:
                return line
        return None

    def _header_code(self, line: int) -> str:
        """The header at `line` up to its block's `:` (strings and comments blanked)."""
        end = self._statement_end(line)
        code = self._code(self._first_code(line), end).replace("\\\n", " ")
        depth = 0
        for index, char in enumerate(code):
            if char in _OPEN:
                depth += 1
            elif char in _CLOSE:
                depth -= 1
            elif char == ":" and depth == 0 and code[index + 1 : index + 2] != "=":
                return code[: index + 1]
        return code

    def _classify(self, line: int) -> tuple[bool, bool]:
        """(an `if TYPE_CHECKING:` header, a function header) for the line at `line`."""
        code = as_read(self._header_code(line))  # look-alike letters read as Python reads them
        guard = _GUARD.fullmatch(code[:-1]) is not None if code.endswith(":") else False
        return guard, _FUNCTION_HEADER.match(code) is not None


def _parsed(code: str) -> tuple[bool, int, str | None, tuple[str, ...]] | None:
    """(is_from, level, module, names) of an import statement's code, else None; names
    as Python reads them (NFKC), as `ast` gives them."""
    code = " ".join(as_read(code).split())
    if code.startswith("import"):
        plain = _PLAIN.fullmatch(code)
        if plain is None:
            return None
        return False, 0, None, tuple(_name(alias) for alias in plain.group(1).split(","))
    found = _FROM.fullmatch(code)
    if found is None:
        return None
    dots, module, imported = found.groups()
    level = dots.count(".")
    if not module and not level:
        return None
    imported = imported.strip("()").strip().rstrip(",")
    names = ("*",) if imported == "*" else tuple(_name(a) for a in imported.split(","))
    return True, level, _name(module) if module else None, names


def _name(alias: str) -> str:
    """The dotted name of `a . b as c` (whitespace already single spaces): `a.b`."""
    return alias.strip().partition(" as ")[0].replace(" ", "")

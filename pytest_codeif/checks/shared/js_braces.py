"""The braces of JavaScript and TypeScript blocks as `brace-style` judges them: where
each block's `{` and `}` stand on their lines, where `else`, `catch` and `finally`
stand after a closing brace, and which control bodies have no braces at all.

A block here is the body of something with a header:

- a definition: a function (declared, a function expression, an arrow function's `{`
  body, a generator), a method, a class's body, a class's `static { }` block, and
  TypeScript's interface, enum and namespace bodies;
- a control statement: `if`, `else`, `for` (all three forms), `while`, `do`, `with`,
  `try`, `catch`, `finally` and `switch`'s body.

Braces that delimit no block are not read: object literals and patterns, TypeScript's
object types, import and export lists, template literals' `${ }`, JSX's `{expr}`. A
block with no header (a bare `{ }` in a statement list, a labelled block, a `case 1: { }`
body) has no placement to judge. Comments are not code: `if (x) // why` then `{` on the
next line has its `{` first on its line, and `{ // why` ends its line.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

Role = Literal["definition", "control"]

#: A block-holding node kind -> how findings name it and whether it is a definition.
_HOLDERS: Final[dict[str, tuple[str, Role]]] = {
    "function_declaration": ("function", "definition"),
    "generator_function_declaration": ("function", "definition"),
    "function_expression": ("function", "definition"),
    "function": ("function", "definition"),
    "generator_function": ("function", "definition"),
    "arrow_function": ("arrow function", "definition"),
    "method_definition": ("method", "definition"),
    "class_declaration": ("class", "definition"),
    "abstract_class_declaration": ("class", "definition"),
    "class": ("class", "definition"),
    "class_static_block": ("static block", "definition"),
    "interface_declaration": ("interface", "definition"),
    "enum_declaration": ("enum", "definition"),
    "internal_module": ("namespace", "definition"),
    "module": ("namespace", "definition"),
    "if_statement": ("if", "control"),
    "else_clause": ("else", "control"),
    "for_statement": ("for", "control"),
    "for_in_statement": ("for", "control"),
    "while_statement": ("while", "control"),
    "do_statement": ("do", "control"),
    "with_statement": ("with", "control"),
    "try_statement": ("try", "control"),
    "catch_clause": ("catch", "control"),
    "finally_clause": ("finally", "control"),
    "switch_statement": ("switch", "control"),
}
#: The kinds of a holder's braced body.
_BODIES: Final = frozenset(
    {"statement_block", "class_body", "interface_body", "object_type", "enum_body", "switch_body"}
)
#: Control statements whose body may be a single statement without braces, with the
#: field that holds it.
_BRACELESS: Final = (
    ("if_statement", "consequence", "if"),
    ("for_statement", "body", "for"),
    ("for_in_statement", "body", "for"),
    ("while_statement", "body", "while"),
    ("do_statement", "body", "do"),
    ("with_statement", "body", "with"),
)


@dataclass(frozen=True)
class JsBlock:
    """One block's braces. Lines are 1-based lines of the file; "first on its line":
    no code before it on its line; "last on its line": no code after it (a comment
    may follow)."""

    what: str  # how a finding names its holder: `function`, `if`, `class`...
    role: Role
    line: int  # of the `{`
    open_first: bool
    open_last: bool
    close_line: int
    close_first: bool
    empty: bool  # nothing but blank space and comments between the braces


@dataclass(frozen=True)
class JsClause:
    """An `else`, `catch` or `finally` that follows a block's closing brace."""

    keyword: str
    line: int
    after_brace: bool  # on the line of the closing brace before it


@dataclass(frozen=True)
class JsUnbraced:
    """A control statement's body written without braces (`if (x) return y;`)."""

    keyword: str
    line: int  # of the control statement's keyword


class CodeText:
    """A module's text with its comments blanked out (line breaks kept), so "is there
    code before this brace on its line" is a look at the characters around it."""

    def __init__(self, module: JsModule) -> None:
        chars = list(module.text)
        for comment in module.nodes("comment"):
            span = comment.range()
            for i in range(span.start.index, min(span.end.index, len(chars))):
                if chars[i] != "\n":
                    chars[i] = " "
        self.text = "".join(chars)
        # Per line: where it starts, where its code starts and where its code ends, so
        # each question below is a bisection, never a scan of the line.
        self._starts: list[int] = []
        self._code_from: list[int] = []
        self._code_to: list[int] = []
        start = 0
        for line in self.text.split("\n"):
            self._starts.append(start)
            self._code_from.append(start + len(line) - len(line.lstrip()))
            self._code_to.append(start + len(line.rstrip()))
            start += len(line) + 1

    def first_on_line(self, index: int) -> bool:
        """No code before `index` on its line."""
        return index <= self._code_from[bisect.bisect_right(self._starts, index) - 1]

    def last_on_line(self, index: int) -> bool:
        """No code from `index` to the end of its line."""
        return index >= self._code_to[bisect.bisect_right(self._starts, index) - 1]


def js_blocks(module: JsModule, code: CodeText) -> Iterator[JsBlock]:
    """Every block of `module` that has a header (see the module docstring)."""
    for holder in module.nodes(*_HOLDERS):
        what, role = _HOLDERS[holder.kind()]
        for body in holder.children():
            if body.kind() in _BODIES:
                yield _block(what, role, body, code)


def _block(what: str, role: Role, body: SgNode, code: CodeText) -> JsBlock:
    # One `range()` a block, its braces at its ends: ast-grep walks the line to compute
    # each position, which costs on long lines.
    span = body.range()
    opening, closing = span.start, span.end.index - 1
    return JsBlock(
        what,
        role,
        line=opening.line + 1,
        open_first=code.first_on_line(opening.index),
        open_last=code.last_on_line(opening.index + 1),
        close_line=span.end.line + 1,
        close_first=code.first_on_line(closing),
        empty=not any(c.is_named() and c.kind() != "comment" for c in body.children()[1:-1]),
    )


def js_clauses(module: JsModule) -> Iterator[JsClause]:
    """Every `else`, `catch` and `finally` whose preceding body ends in a `}`."""
    for clause in module.nodes("else_clause", "catch_clause", "finally_clause"):
        before = clause.prev()
        while before is not None and before.kind() == "comment":
            before = before.prev()
        if before is None or before.kind() not in ("statement_block", "catch_clause"):
            continue  # `if (x) a(); else b();`: no closing brace to stand after
        keyword = clause.kind().removesuffix("_clause")
        line = clause.range().start.line + 1
        yield JsClause(keyword, line, after_brace=before.range().end.line + 1 == line)


def js_unbraced(module: JsModule) -> Iterator[JsUnbraced]:
    """Every control body that is not a block: `if (x) y();`, `for (...) z;`, and an
    `else` followed by a statement other than `if` (`else if` chains its `if`)."""
    for kind, field, keyword in _BRACELESS:
        for node in module.nodes(kind):
            body = node.field(field)
            if body is not None and body.kind() != "statement_block":
                yield JsUnbraced(keyword, node.range().start.line + 1)
    for clause in module.nodes("else_clause"):
        statements = [n for n in clause.named_children() if n.kind() != "comment"]
        if statements and statements[0].kind() not in ("statement_block", "if_statement"):
            yield JsUnbraced("else", clause.range().start.line + 1)

"""How a JavaScript or TypeScript file is laid out, as `indentation` judges it: each code
line's leading whitespace, the depth a line should have inside its brackets, and the
spaces around operators and after commas. Read from the ast-grep tree: no formatter
is run, and nothing here decides what a formatter would (where a line breaks).

- A code line is a line whose first character is code: blank lines, lines that start
  inside a comment, a string or a template literal spanning lines, and comment lines
  are not (a JSDoc block's ` * ` lines are aligned, not indented).
- Depth: inside a bracket pair whose contents start on the line after the opening
  bracket (a block, a class body, an object, an array, an argument or parameter list,
  a parenthesized condition, an import list, a TypeScript interface or type), each item
  that starts its line stands one level deeper than the line of the opening bracket,
  and the closing bracket, when it starts its line, at that line's depth. A `switch`'s
  `case` stands one level in or at the `switch`'s depth (both are common); a case's
  statements one level deeper than the `case`. A control body without braces on a line
  of its own stands one level deeper than its header. Contents that start on the
  bracket's own line (`f(a,` then `b)` aligned) and continuation lines (a chain of
  `.then()` calls, an operator's second operand) are a formatter's choice: not judged.
- Operators: binary operators (arithmetic, comparison, logical, bitwise; not the word
  operators `in` and `instanceof`, which need their spaces), assignments (`=`, `+=`...,
  in declarations, defaults and class fields too) and the conditional `? :`. Unary
  operators, `=>`, `.`, `?.` and type annotations' `:` are not operators here. A space
  that keeps two operators apart (`a - -b`) is needed, not spacing.
- Commas: of argument, parameter and type lists, arrays, objects, patterns,
  declarations, sequences, import and export lists. A comma that ends its line or
  comes before a closing bracket (a trailing comma) has nothing after it to space.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_braces import CodeText
from pytest_codeif.code.js_tree import JsModule, known_kind

if TYPE_CHECKING:
    from ast_grep_py import Rule, SgNode

_CONTAINERS: Final = (
    "statement_block",
    "class_body",
    "switch_body",
    "object",
    "object_pattern",
    "array",
    "array_pattern",
    "arguments",
    "formal_parameters",
    "parenthesized_expression",
    "named_imports",
    "export_clause",
    "interface_body",
    "object_type",
    "enum_body",
    "type_arguments",
    "type_parameters",
    "tuple_type",
)
_OPENING: Final = frozenset("{[(<")
#: Containers that are a statement's or a declaration's body.
_BLOCKS: Final = frozenset({"statement_block", "class_body", "switch_body", "interface_body"})
_BRACELESS: Final = (
    ("if_statement", "consequence"),
    ("for_statement", "body"),
    ("for_in_statement", "body"),
    ("while_statement", "body"),
    ("do_statement", "body"),
    ("with_statement", "body"),
)
#: Nodes whose own (unnamed) children include an operator token.
_OPERATOR_HOLDERS: Final = (
    "binary_expression",
    "assignment_expression",
    "augmented_assignment_expression",
    "variable_declarator",
    "assignment_pattern",
    "object_assignment_pattern",
    "field_definition",
    "public_field_definition",
    "ternary_expression",
)
_OPERATORS: Final = frozenset(
    [
        "=",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "**=",
        "<<=",
        ">>=",
        ">>>=",
        "&=",
        "|=",
        "^=",
        "&&=",
        "||=",
        "??=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "**",
        "==",
        "!=",
        "===",
        "!==",
        "<",
        ">",
        "<=",
        ">=",
        "&&",
        "||",
        "??",
        "&",
        "|",
        "^",
        "<<",
        ">>",
        ">>>",
        "?",
        ":",
    ]
)
_COMMA_HOLDERS: Final = (
    "arguments",
    "formal_parameters",
    "array",
    "object",
    "array_pattern",
    "object_pattern",
    "sequence_expression",
    "lexical_declaration",
    "variable_declaration",
    "named_imports",
    "export_clause",
    "type_arguments",
    "type_parameters",
    "tuple_type",
    "enum_body",
    "object_type",
    "implements_clause",
    "extends_clause",
    "extends_type_clause",
)
_CLOSING: Final = frozenset(")]}>,")


@dataclass(frozen=True)
class CodeLine:
    """One code line: its 1-based number, leading whitespace and first code character."""

    number: int
    indent: str
    start: int


@dataclass(frozen=True)
class DepthRule:
    """The line `line` should stand `levels` levels (one or the other of `levels`)
    deeper than the line `anchor`, whose bracket or header it is inside."""

    line: int
    anchor: int
    levels: tuple[int, ...]
    inside: str  # what the anchor line holds: "the `{`", "the `if`"
    #: Another line the depth may be counted from: a block's statement when its header
    #: spans lines (`if (a ||` then `    b) {`: the body one level inside the `if`).
    also: int | None = None


@dataclass(frozen=True)
class Spacing:
    """An operator or a comma and the blank space beside it."""

    line: int
    index: int  # of the token in the file's text: the order findings name tokens in
    symbol: str
    before: bool | None  # a space before it; None: not judged (first on its line, a comma)
    after: bool | None  # a space after it; None: not judged (last on its line, trailing)


def code_lines(module: JsModule, code: CodeText) -> dict[int, CodeLine]:
    """The module's code lines by number (see the module docstring)."""
    skipped: set[int] = set()
    for node in _spanning_lines(module, "comment", "string", "template_string"):
        span = node.range()
        skipped.update(range(span.start.line + 2, span.end.line + 2))
    lines: dict[int, CodeLine] = {}
    offset = 0
    for number, text in enumerate(module.text.split("\n"), start=1):
        stripped = text.lstrip(" \t")
        start = offset + len(text) - len(stripped)
        offset += len(text) + 1
        # Outside a string or a comment spanning lines, a line whose code starts with
        # `//` or `/*` starts with a comment (no regular expression starts so).
        if number in skipped or not stripped.strip() or stripped.startswith(("//", "/*")):
            continue
        lines[number] = CodeLine(number, text[: len(text) - len(stripped)], start)
    return lines


def _spanning_lines(module: JsModule, *kinds: str) -> list[SgNode]:
    """The nodes of these kinds whose text spans lines, filtered in native code: nothing
    on one line has a depth to judge, and each position ast-grep computes walks its line
    (minified code's long lines would cost seconds)."""
    rules: list[Rule] = [
        {"kind": kind, "regex": "\n"} for kind in kinds if known_kind(module.grammar, kind)
    ]
    return module.root.find_all(any=rules) if rules else []


def depth_rules(module: JsModule, lines: dict[int, CodeLine]) -> Iterator[DepthRule]:
    """What depth each line that starts an item inside brackets should have."""
    for container in _spanning_lines(module, *_CONTAINERS):
        yield from _inside(container, lines)
    for case in _spanning_lines(module, "switch_case", "switch_default"):
        anchor = case.range().start.line + 1
        colon = False
        for child in case.children():
            if colon and child.is_named() and child.kind() != "comment":
                yield from _starting(child, anchor, (1,), "the `case`", lines)
            colon = colon or child.text() == ":"
    for node in _spanning_lines(module, *(kind for kind, _ in _BRACELESS)):
        body = node.field(dict(_BRACELESS)[node.kind()])
        if body is not None and body.kind() != "statement_block":
            anchor = node.range().start.line + 1
            keyword = node.kind().removesuffix("_statement").replace("for_in", "for")
            yield from _starting(body, anchor, (1,), f"the `{keyword}`", lines)
    for clause in _spanning_lines(module, "else_clause"):
        statements = [n for n in clause.named_children() if n.kind() != "comment"]
        if statements and statements[0].kind() not in ("statement_block", "if_statement"):
            anchor = clause.range().start.line + 1
            yield from _starting(statements[0], anchor, (1,), "the `else`", lines)


def _inside(container: SgNode, lines: dict[int, CodeLine]) -> Iterator[DepthRule]:
    children = container.children()
    opening = children[0].text() if children else ""
    if len(children) < 2 or opening not in _OPENING:
        return
    span = container.range()  # the brackets are its ends
    anchor = span.start.line + 1
    items = [c for c in children[1:-1] if c.is_named() and c.kind() != "comment"]
    if not items or items[0].range().start.line + 1 == anchor:
        return  # empty, or contents hugging the bracket: aligned, not indented
    levels = (1, 0) if container.kind() == "switch_body" else (1,)
    where = f"the `{opening}`"
    holder = container.parent() if container.kind() in _BLOCKS else None
    also = holder.range().start.line + 1 if holder is not None else None
    for item in items:
        yield from _starting(item, anchor, levels, where, lines, also=also)
    closing = _Start(span.end.line, span.end.index - 1)
    yield from _starting(closing, anchor, (0,), where, lines, also=also)


@dataclass(frozen=True)
class _Start:
    """Where a closing bracket starts (0-based line, index): a node's own position."""

    line: int
    index: int


def _starting(
    node: SgNode | _Start,
    anchor: int,
    levels: tuple[int, ...],
    inside: str,
    lines: dict[int, CodeLine],
    *,
    also: int | None = None,
) -> Iterator[DepthRule]:
    """The rule for `node`'s line when `node` is what starts it."""
    start = node if isinstance(node, _Start) else node.range().start
    line = lines.get(start.line + 1)
    if line is not None and line.start == start.index and line.number != anchor:
        yield DepthRule(line.number, anchor, levels, inside, also if also != anchor else None)


def spacings(module: JsModule, code: CodeText) -> Iterator[Spacing]:
    """Every operator and comma of the module with the blank space beside it."""
    text = code.text
    for holder in module.nodes(*_OPERATOR_HOLDERS):
        for token in holder.children():
            if token.is_named() or token.text() not in _OPERATORS:
                continue
            span = token.range()
            start, end = span.start.index, span.end.index
            op = token.text()
            before = None if code.first_on_line(start) else text[start - 1] in " \t"
            after = None if code.last_on_line(end) else text[end] in " \t"
            # `a - -b`, `a + ++b`: the space keeps two operators apart.
            if before and _fuses(_char_before(text, start), op[:1]):
                before = None
            if after and _fuses(op[-1:], _char_after(text, end)):
                after = None
            yield Spacing(span.start.line + 1, start, op, before, after)
    for holder in module.nodes(*_COMMA_HOLDERS):
        for token in holder.children():
            if token.is_named() or token.text() != ",":
                continue
            span = token.range()
            end = span.end.index
            following = _char_after(text, end)
            after = (
                None if code.last_on_line(end) or following in _CLOSING else (text[end] in " \t")
            )
            yield Spacing(span.start.line + 1, span.start.index, ",", None, after)


def _fuses(left: str, right: str) -> bool:
    return left == right and left in "+-"


def _char_before(text: str, index: int) -> str:
    """The first character before `index` that is not a space or a tab ("" at the
    start); walks blank space only, never copies the text (bounded by a line's length)."""
    index -= 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return text[index] if index >= 0 else ""


def _char_after(text: str, index: int) -> str:
    """The first character from `index` on that is not a space or a tab ("" at the end)."""
    while index < len(text) and text[index] in " \t":
        index += 1
    return text[index] if index < len(text) else ""

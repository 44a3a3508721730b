"""Comments of JavaScript and TypeScript code, known by place as the `comments` check
knows Python's: `//` and `/* */` comments, and JSDoc (`/** ... */` just above a function,
a method or a class) as the docstring's analogue.

- A comment is inline when code precedes it on its line.
- A JSDoc block above a definition (or above the `export` / `const` statement that
  holds it), with nothing but blank space between (blank lines too: JSDoc and TypeScript
  attach it so), is that definition's docstring, and no comment of the count; a `/** */`
  block opening the file (after a `#!` line), followed by a blank line, is the module's
  docstring when it documents no definition below it or carries a file tag (`@file`,
  `@fileoverview`, `@overview`, `@module`, `@license`, `@copyright`).
- Pragmas count neither way: `// eslint-...`, `// @ts-...`, `// biome-ignore`,
  `// prettier-ignore`, `/* istanbul ignore */`, `/* global */`, `// jshint`, `/// <reference>`,
  `// @flow`, `/* webpackChunkName */`, `// #region`.
- A definition is a named function (a declaration, a function or arrow bound to a name,
  a method) or a class; nested when inside a function; public unless its name starts
  with `_` or `#`, or it is a `private` TypeScript member.
- A step of a function is a paragraph of its body (statements up to a blank line),
  except a lone `return`, `throw`, `break` or `continue`; it is commented by a comment
  line above its first statement or one at the end of that statement's first line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_functions import js_functions
from pytest_codeif.checks.shared.js_signatures import js_params
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

    from pytest_codeif.checks.shared.js_functions import JsFunction

_PRAGMAS: Final = re.compile(
    r"^(/[/*]\s*(eslint|@ts-|biome-ignore|prettier-ignore|istanbul\s|c8\s|global\s|globals\s|"
    r"jshint|jslint|@flow|@jsx|@license|webpack|#region|#endregion|tslint|@vite-ignore|"
    r"@__PURE__|#__PURE__|@refresh)|///\s*<)",
    re.IGNORECASE,
)
_CLASS_KINDS: Final = ("class_declaration", "class", "abstract_class_declaration")
#: JSDoc tags that make a block the file's documentation, not the next definition's.
_FILE_TAG: Final = re.compile(r"@(?:file|fileoverview|overview|module|license|copyright)\b")
#: Statements holding a definition: its JSDoc sits above them.
_HOLDERS: Final = (
    "export_statement",
    "lexical_declaration",
    "variable_declaration",
    "variable_declarator",
    "expression_statement",
    "assignment_expression",
    "public_field_definition",
    "field_definition",
    "pair",
)
_ENDINGS: Final = ("return_statement", "throw_statement", "break_statement", "continue_statement")


@dataclass(frozen=True)
class JsComment:
    """One comment: its node, first and last lines, and whether code precedes it."""

    module: JsModule
    node: SgNode
    line: int
    end: int
    inline: bool

    @property
    def raw(self) -> str:
        return self.node.text()

    @property
    def text(self) -> str:
        """The comment's words, without `//`, `/*`, `*/` or leading `*` on each line."""
        raw = self.raw
        if raw.startswith("//"):
            return raw[2:].strip()
        body = raw[2:-2] if raw.endswith("*/") else raw[2:]
        lines = [re.sub(r"^\s*\*+ ?", "", line).strip() for line in body.splitlines()]
        return "\n".join(line for line in lines if line).strip("*").strip()

    @property
    def jsdoc(self) -> bool:
        return self.raw.startswith("/**") and self.raw != "/**/"

    @property
    def pragma(self) -> bool:
        return bool(_PRAGMAS.match(self.raw))


@dataclass(frozen=True)
class JsDefinition:
    """A function or class of a module (see the module doc)."""

    module: JsModule
    node: SgNode
    name: str
    qualname: str
    kind: str  # "function" or "class"
    nested: bool
    function: JsFunction | None

    @property
    def public(self) -> bool:
        private = any(
            c.kind() == "accessibility_modifier" and c.text() == "private"
            for c in self.node.children()
        )
        return not self.name.startswith(("_", "#")) and not private

    @property
    def line(self) -> int:
        return self.module.line_of(self.node)

    def where(self) -> str:
        return f"{self.kind} `{self.qualname}`"


def _inline(module: JsModule, node: SgNode) -> bool:
    start = node.range().start
    line_start = module.text.rfind("\n", 0, start.index) + 1
    return bool(module.text[line_start : start.index].strip())


def all_comments(module: JsModule, within: SgNode | None = None) -> list[JsComment]:
    """Every comment of `module` (below `within`), docstrings and pragmas included."""
    return [
        JsComment(
            module,
            node,
            module.line_of(node),
            node.range().end.line + 1,
            _inline(module, node),
        )
        for node in module.nodes("comment", within=within)
    ]


def _holder(node: SgNode) -> SgNode:
    """The outermost statement holding a definition (its JSDoc sits above it)."""
    current = node
    parent = node.parent()
    while parent is not None and parent.kind() in _HOLDERS:
        current, parent = parent, parent.parent()
    return current


def _before(node: SgNode) -> list[SgNode]:
    """The comments just above `node` (one run, blank lines allowed between none of
    them and `node` but the run's own), nearest last."""
    found: list[SgNode] = []
    previous = node.prev()
    below = node.range().start.line
    while previous is not None and previous.kind() == "comment":
        if previous.range().end.line < below - 1:
            break
        found.append(previous)
        below = previous.range().start.line
        previous = previous.prev()
    return list(reversed(found))


def jsdoc_of(module: JsModule, node: SgNode) -> JsComment | None:
    """The JSDoc block of a definition, or None."""
    last = _jsdoc_above(_holder(node))
    if last is None:
        return None
    return JsComment(module, last, module.line_of(last), last.range().end.line + 1, False)


def _jsdoc_above(holder: SgNode) -> SgNode | None:
    """The `/**` block nearest above `holder` with nothing but blank space between, unless
    a file tag makes it the module's."""
    previous = holder.prev()
    if previous is None or previous.kind() != "comment":
        return None
    text = previous.text()
    if not text.startswith("/**") or _FILE_TAG.search(text):
        return None
    return previous


def comments_above(module: JsModule, node: SgNode) -> list[JsComment]:
    """The plain comments just above a definition: the run nearest it, ended by a JSDoc
    (the definition's, or another's) or a pragma (a file's `// @ts-nocheck`)."""
    run: list[SgNode] = []
    for comment in reversed(_before(_holder(node))):
        if comment.text().startswith("/**") or _PRAGMAS.match(comment.text()):
            break
        run.insert(0, comment)
    return [JsComment(module, c, module.line_of(c), c.range().end.line + 1, False) for c in run]


def module_docstring(module: JsModule) -> JsComment | None:
    """A `/** */` block opening the file and followed by a blank line (see the doc)."""
    first = next((c for c in module.root.children() if c.kind() != "hash_bang_line"), None)
    if first is None or first.kind() != "comment" or not first.text().startswith("/**"):
        return None
    after = first.next()
    end = first.range().end.line
    if after is not None and after.range().start.line <= end + 1:
        return None  # a definition's JSDoc, not the module's
    if after is not None and _jsdoc_above(after) is not None and _holds_definition(module, after):
        return None  # a blank line apart, it still documents the definition below
    return JsComment(module, first, module.line_of(first), end + 1, False)


def _holds_definition(module: JsModule, statement: SgNode) -> bool:
    """Whether a top-level statement is (or holds) a named function or a class."""
    start = statement.range().start.index
    return any(_holder(d.node).range().start.index == start for d in definitions(module))


def docstring_nodes(module: JsModule, definitions: list[JsDefinition]) -> set[int]:
    """Start offsets of the comments that are docstrings (no comments of the count)."""
    found: set[int] = set()
    for d in definitions:
        doc = jsdoc_of(module, d.node)
        if doc is not None:
            found.add(doc.node.range().start.index)
    top = module_docstring(module)
    if top is not None:
        found.add(top.node.range().start.index)
    return found


def definitions(module: JsModule) -> list[JsDefinition]:
    """The named functions and the classes of `module`, in document order."""
    found: list[JsDefinition] = []
    for function in js_functions(module):
        if function.name is None or function.qualname is None:
            continue
        if "<anonymous>" in function.qualname:
            continue
        nested = _inside_function(function.node)
        found.append(
            JsDefinition(
                module,
                function.node,
                function.name,
                function.qualname,
                "function",
                nested,
                function,
            )
        )
    for node in module.nodes(*_CLASS_KINDS):
        name = node.field("name")
        if name is None:
            parent = node.parent()
            bound = (
                parent.field("name")
                if parent is not None and parent.kind() == "variable_declarator"
                else None
            )
            if bound is None:
                continue
            name = bound
        owners = _owners(node)
        qualname = ".".join([*owners, name.text()])
        found.append(
            JsDefinition(module, node, name.text(), qualname, "class", _inside_function(node), None)
        )
    found.sort(key=lambda d: d.node.range().start.index)
    return found


def _inside_function(node: SgNode) -> bool:
    parent = node.parent()
    while parent is not None:
        if parent.kind() in (
            "function_declaration",
            "function_expression",
            "function",
            "arrow_function",
            "generator_function_declaration",
            "generator_function",
        ):
            return True
        if parent.kind() == "method_definition":
            return True
        parent = parent.parent()
    return False


def _owners(node: SgNode) -> list[str]:
    names: list[str] = []
    parent = node.parent()
    while parent is not None:
        if parent.kind() in _CLASS_KINDS or parent.kind() in (
            "function_declaration",
            "method_definition",
        ):
            name = parent.field("name")
            if name is not None:
                names.append(name.text())
        parent = parent.parent()
    return list(reversed(names))


def start_comment_lines(module: JsModule, definition: JsDefinition) -> int:
    """Lines of the plain comment block a definition opens with: above it, on its first
    line, or opening its body (before its first statement); 0 for none."""
    above = comments_above(module, definition.node)
    if above:
        return above[-1].end - above[0].line + 1
    body = definition.node.field("body")
    if body is None:
        return 0
    first_line = module.line_of(definition.node)
    block: list[SgNode] = []
    for child in body.named_children():
        if child.kind() != "comment":
            break
        if child.text().startswith("/**") and not block:
            pass
        block.append(child)
    if not block:
        # A comment on the opening line, after `{`.
        on_line = [
            c for c in module.nodes("comment", within=body) if module.line_of(c) == first_line
        ]
        return 1 if on_line else 0
    return block[-1].range().end.line - block[0].range().start.line + 1


def docstring_lines(module: JsModule, definition: JsDefinition) -> int:
    doc = jsdoc_of(module, definition.node)
    return 0 if doc is None else doc.end - doc.line + 1


def steps(definition: JsDefinition) -> Iterator[SgNode]:
    """The first statement of each step of a function (see the module doc)."""
    body = definition.node.field("body")
    if body is None or body.kind() != "statement_block":
        return
    paragraph: list[SgNode] = []
    last_line = -2
    statements = [c for c in body.named_children() if c.kind() != "comment"]
    for statement in statements:
        start = statement.range().start.line
        if (
            paragraph
            and start > last_line + 1
            and _blank_between(definition.module, last_line, start)
        ):
            yield from _step(paragraph)
            paragraph = []
        paragraph.append(statement)
        last_line = statement.range().end.line
    if paragraph:
        yield from _step(paragraph)


def _blank_between(module: JsModule, end_line: int, start_line: int) -> bool:
    lines = module.text.split("\n")[end_line + 1 : start_line]
    return any(not line.strip() for line in lines)


def _step(paragraph: list[SgNode]) -> Iterator[SgNode]:
    if len(paragraph) == 1 and paragraph[0].kind() in _ENDINGS:
        return
    yield paragraph[0]


def comment_starts(module: JsModule) -> dict[int, list[int]]:
    """Where each comment of `module` starts: line (0-based) -> offsets, read once."""
    starts: dict[int, list[int]] = {}
    for node in module.nodes("comment"):
        start = node.range().start
        starts.setdefault(start.line, []).append(start.index)
    return starts


def commented(statement: SgNode, starts: dict[int, list[int]]) -> bool:
    """A comment line above the statement, or one at the end of its first line
    (`starts` from `comment_starts`)."""
    previous = statement.prev()
    if (
        previous is not None
        and previous.kind() == "comment"
        and previous.range().end.line >= statement.range().start.line - 1
    ):
        return True
    start = statement.range().start
    return any(index > start.index for index in starts.get(start.line, ()))


def parameter_names(definition: JsDefinition) -> list[str]:
    if definition.function is None:
        return []
    return [p.name for p in js_params(definition.function) if p.name.isidentifier()]


def returns_value(definition: JsDefinition) -> bool:
    """Whether the function returns a value: an arrow's expression body, or a `return`
    with a value of its own (not of a nested function)."""
    body = definition.node.field("body")
    if body is None:
        return False
    if body.kind() != "statement_block":
        return True
    for node in definition.module.nodes("return_statement", within=body):
        if _own(node, definition.node) and node.named_children():
            return True
    return False


def yields(definition: JsDefinition) -> bool:
    return definition.function is not None and definition.function.is_generator


def _own(node: SgNode, function: SgNode) -> bool:
    parent = node.parent()
    while parent is not None and parent.range() != function.range():
        if parent.kind() in (
            "function_declaration",
            "function_expression",
            "function",
            "arrow_function",
            "method_definition",
            "generator_function_declaration",
            "generator_function",
        ):
            return False
        parent = parent.parent()
    return True

"""The `comments` check: `#` comments and docstrings where the instruction wants them.

Comments are read from libcst's tree (its `Comment` nodes in `leading_lines`, trailing
whitespace and block headers), so each one is known by place: above a definition, on its
`def` line, opening its body, before a statement, or at the end of a line of code. The
shared flattened walk leaves whitespace out, so this module walks the whole tree itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared import js_comments as jsc
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.safe_regex import PatternError, SafePattern, SubjectTooLong, compile_pattern

_RULE = "comments"
#: Comments that instruct a tool or the interpreter rather than describe the code: they
#: count neither for nor against any option (matched on the text after `#`, lower case).
PRAGMAS: Final = (
    "!",
    "-*-",
    "coding:",
    "coding=",
    "vim:",
    "type:",
    "noqa",
    "pragma",
    "pylint:",
    "fmt:",
    "mypy:",
    "ruff:",
    "isort:",
    "pyright:",
)
#: Statements that, alone in a paragraph, are no step of their own (`return result`).
_ENDINGS: Final = (cst.Return, cst.Raise, cst.Pass, cst.Continue, cst.Break)
_KINDS: Final = ("module", "class", "function")
_MENTIONS: Final = ("parameters", "returns")
_STARTS: Final = ("comment", "docstring", "either")
#: Longest comment text quoted in a finding.
_QUOTED: Final = 60


@dataclass(frozen=True)
class Comment:
    """One `#` comment: its text, line, and whether code precedes it on its line."""

    node: cst.Comment
    line: int
    inline: bool

    @property
    def text(self) -> str:
        """The comment's words: the text after the `#` marks, stripped."""
        return self.node.value.lstrip("#").strip()

    @property
    def pragma(self) -> bool:
        body = self.node.value[1:].strip().lower()
        return body.startswith(PRAGMAS)


def _short(text: str) -> str:
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for item in dataclasses.fields(node):
        value = getattr(node, item.name)
        if isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, cst.CSTNode))
        elif isinstance(value, cst.CSTNode):
            yield value


def comment_nodes(root: cst.CSTNode) -> list[tuple[cst.Comment, bool]]:
    """Every `Comment` below `root` (whitespace included), each with True when it ends a
    line of code (its parent is trailing whitespace), without recursion."""
    found: list[tuple[cst.Comment, bool]] = []
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        for child in _children(node):
            if isinstance(child, cst.Comment):
                found.append((child, isinstance(node, cst.TrailingWhitespace)))
            else:
                stack.append(child)
    return found


def comments(module: ParsedModule, root: cst.CSTNode | None = None) -> list[Comment]:
    """The descriptive comments (pragmas aside) of `module`, or of `root` within it (a
    definition's include the comment lines just above it), in line order."""
    nodes = comment_nodes(root if root is not None else module.tree)
    if isinstance(root, (cst.FunctionDef, cst.ClassDef)):
        above = {id(c) for c in _line_comments(root.leading_lines)}
        adjacent = {id(c) for c in above_definition(module, root)}
        nodes = [(n, inline) for n, inline in nodes if id(n) not in above or id(n) in adjacent]
        seen = {id(n) for n, _ in nodes}
        nodes += [(n, False) for n in above_definition(module, root) if id(n) not in seen]
    found = [Comment(node, module.line_of(node), inline) for node, inline in nodes]
    return sorted((c for c in found if not c.pragma), key=lambda c: c.line)


def _line_comments(lines: Sequence[cst.EmptyLine]) -> list[cst.Comment]:
    return [line.comment for line in lines if line.comment is not None]


def _adjacent(lines: Sequence[cst.EmptyLine]) -> list[cst.Comment]:
    """The comments of the last block of `lines`: those after the last blank line."""
    block: list[cst.Comment] = []
    for line in lines:
        block = [*block, line.comment] if line.comment is not None else []
    return block


def above_definition(
    module: ParsedModule, definition: cst.FunctionDef | cst.ClassDef
) -> list[cst.Comment]:
    """The comment lines just above `definition` (no blank line between): libcst keeps
    them in its `leading_lines`, or in the module's header for the module's first
    statement."""
    if module.tree.body and module.tree.body[0] is definition:
        return _adjacent([*module.tree.header, *definition.leading_lines])
    return _adjacent(definition.leading_lines)


def _leading(statement: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    """The blank and comment lines above a statement."""
    if isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return statement.leading_lines
    return ()


def _is_docstring(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    expr = statement.body[0]
    return isinstance(expr, cst.Expr) and isinstance(
        expr.value, (cst.SimpleString, cst.ConcatenatedString)
    )


def _body(node: cst.FunctionDef | cst.ClassDef | cst.Module) -> Sequence[cst.BaseStatement]:
    if isinstance(node, cst.Module):
        return node.body
    body = node.body
    return body.body if isinstance(body, cst.IndentedBlock) else ()


def docstring_lines(node: cst.FunctionDef | cst.ClassDef | cst.Module) -> int:
    """How many lines the docstring of `node` spans (0: it has none)."""
    statements = _body(node)
    if not statements or not _is_docstring(statements[0]):
        return 0
    first = statements[0]
    if not isinstance(first, cst.SimpleStatementLine):
        return 0
    expr = first.body[0]
    value = expr.value if isinstance(expr, cst.Expr) else None
    raw = _string_text(value) if value is not None else ""
    return raw.count("\n") + 1


def _string_text(node: cst.BaseExpression) -> str:
    """A string literal's source, quotes included; the parts of an implicit
    concatenation (`"a" "b"`) one per line. Iterative: the parts nest one per level."""
    parts: list[str] = []
    stack: list[cst.BaseExpression] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.ConcatenatedString):
            stack += [current.right, current.left]
        elif isinstance(current, cst.SimpleString):
            parts.append(current.value)
    return "\n".join(parts)


def docstring_text(node: cst.FunctionDef | cst.ClassDef | cst.Module) -> str | None:
    """The docstring's raw text, quotes included (None: no docstring)."""
    statements = _body(node)
    if not statements or not _is_docstring(statements[0]):
        return None
    first = statements[0]
    if not isinstance(first, cst.SimpleStatementLine):
        return None
    expr = first.body[0]
    return _string_text(expr.value) if isinstance(expr, cst.Expr) else None


def start_comments(
    module: ParsedModule, function: cst.FunctionDef | cst.ClassDef
) -> list[cst.Comment]:
    """Comments that open `function` (or a class): on the lines just above it (or its
    decorators), on its `def` line, and before its first statement (after the docstring,
    if any)."""
    found = above_definition(module, function)
    for decorator in function.decorators:
        found += _line_comments(decorator.leading_lines)
    found += _line_comments(function.lines_after_decorators)
    body = function.body
    if isinstance(body, cst.SimpleStatementSuite):
        comment = body.trailing_whitespace.comment
        return [*found, comment] if comment is not None else found
    if not isinstance(body, cst.IndentedBlock):
        return found
    if body.header.comment is not None:
        found.append(body.header.comment)
    statements = list(body.body)
    if statements:
        found += _line_comments(_leading(statements[0]))
        if _is_docstring(statements[0]) and len(statements) > 1:
            found += _line_comments(_leading(statements[1]))
    return found


def _comment_block(found: list[cst.Comment], module: ParsedModule) -> int:
    """The longest run of consecutive lines among the comments in `found`."""
    lines = sorted({module.line_of(c) for c in found})
    best = run = 0
    previous = None
    for line in lines:
        run = run + 1 if previous is not None and line == previous + 1 else 1
        best = max(best, run)
        previous = line
    return best


def _first_line_comment(statement: cst.BaseStatement) -> cst.Comment | None:
    """The comment at the end of a statement's first line, if any."""
    if isinstance(statement, cst.SimpleStatementLine):
        return statement.trailing_whitespace.comment
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return body.header.comment
    if isinstance(body, cst.SimpleStatementSuite):
        return body.trailing_whitespace.comment
    return None


def steps(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """The first statement of each step of `function`'s body: a step is a paragraph, a
    run of top-level statements that a blank line ends. The docstring is no step, nor is
    a paragraph made of one `return`, `raise`, `pass`, `break` or `continue` alone."""
    statements = [s for s in _body(function) if s is not None]
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    paragraphs: list[list[cst.BaseStatement]] = []
    for index, statement in enumerate(statements):
        blank = any(line.comment is None for line in _leading(statement))
        if index == 0 or blank:
            paragraphs.append([statement])
        else:
            paragraphs[-1].append(statement)
    return [p[0] for p in paragraphs if not _ending(p)]


def _ending(paragraph: list[cst.BaseStatement]) -> bool:
    if len(paragraph) != 1 or not isinstance(paragraph[0], cst.SimpleStatementLine):
        return False
    body = paragraph[0].body
    return len(body) == 1 and isinstance(body[0], _ENDINGS)


def _commented(statement: cst.BaseStatement) -> bool:
    return bool(_line_comments(_leading(statement))) or (_first_line_comment(statement) is not None)


def _returns_value(function: cst.FunctionDef, module: ParsedModule) -> bool:
    """`function` returns a value (a `return x` of its own, not a nested function's)."""
    for node in module.nodes(cst.Return, within=function):
        if module.scope_of(node) is function and node.value is not None:
            value = node.value
            if not (isinstance(value, cst.Name) and value.value == "None"):
                return True
    return False


def _yields(function: cst.FunctionDef, module: ParsedModule) -> bool:
    return any(
        module.scope_of(node) is function for node in module.nodes(cst.Yield, within=function)
    )


def _words(text: str) -> set[str]:
    """The identifier-like words of `text` (docstrings mention parameters by name)."""
    words: set[str] = set()
    current: list[str] = []
    for char in text + " ":
        if char.isalnum() or char == "_":
            current.append(char)
        elif current:
            words.add("".join(current))
            current = []
    return words


def _parameters(function: cst.FunctionDef) -> list[str]:
    params = function.params
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star)
    return [p.name.value for p in found if p.name.value not in ("self", "cls")]


@dataclass(frozen=True)
class _Definition:
    module: ParsedModule
    node: cst.FunctionDef | cst.ClassDef
    qualname: str

    @property
    def kind(self) -> str:
        return "class" if isinstance(self.node, cst.ClassDef) else "function"

    @property
    def public(self) -> bool:
        return not self.node.name.value.startswith("_")

    @property
    def nested(self) -> bool:
        return ".<locals>." in self.qualname

    def where(self) -> str:
        return f"{self.kind} `{self.qualname}`"


_ONE_OF: Final = {"enum": ["required", "forbidden"]}
#: The options that ask for something (`function` and `start-lines` only refine them).
_ASKS: Final = (
    "min-comments",
    "max-comments",
    "function-start",
    "steps",
    "docstrings",
    "docstring-mentions",
    "inline",
    "pattern",
)


def start_problem(
    where: str, lines: Mapping[str, int], what: Mapping[str, str], start: str, least: int
) -> str | None:
    """What is wrong with how a definition opens (`function-start`), in either language:
    `lines` counts its opening comment's and docstring's lines, `what` names the two
    kinds; None when it opens as asked."""
    kinds = ("comment", "docstring") if start == "either" else (start,)
    best = max(lines[k] for k in kinds)
    if best == 0:
        return f"{where} does not open with {' or '.join(what[k] for k in kinds)}"
    if best < least:
        unit = "comment line" if start == "comment" else "line"
        return f"{where} opens with {best} {unit}{'s' if best > 1 else ''}; at least {least} asked"
    return None


class CommentsCheck(Check):
    """`#` comments and docstrings are where the instruction wants them, in its format.

    Why: instructions ask for commented code in particular shapes: "use single-line
    comments to describe each step", "a docstring at the start of the function describing
    its parameters and return value", "a detailed multi-line comment at the beginning of
    the function", "no docstrings, comments only", "every comment starts with `NOTE:`".
    Comments are read from libcst's tree, so each is known by place; what they say is
    judged only by `pattern` and, for docstrings, by the names they must mention.

    What counts: descriptive `#` comments; tool and interpreter pragmas (`#!`, coding
    lines, `# type:`, `# noqa`, `# pragma`, `# pylint:`, `# fmt:`...) count neither way.
    Judged definitions: with `function`, that function (or method, `Class.method`)
    alone, or a class with its public methods; otherwise every function, method and
    class not nested in a function, and for the options that require something, only
    public ones (no leading `_`: `__init__` and helpers are exempt, as in pydocstyle). A
    function's comments include the comment lines just above it. A step of a function
    is a paragraph of its body (top-level statements up to a blank line), except the
    docstring and a lone `return`/`raise`/`pass`/`break`/`continue`; it is commented by a
    comment line above its first statement or one at the end of that statement's first
    line.

    JavaScript and TypeScript: `//` and `/* */` comments; a JSDoc block (`/** ... */`)
    just above a function, method or class is its docstring, and one opening the file,
    followed by a blank line, the module's. Pragmas (`// eslint-disable`, `// @ts-ignore`,
    `// biome-ignore`, `/// <reference>`, `#!`...) count neither way. A function is a
    named one: a declaration, a function or arrow bound to a name, a method; a `#` or
    `_` name, or TypeScript's `private`, is not public. `docstring-mentions` reads JSDoc's
    words (`@param {number} width`, `@returns`). Findings say "comment" for `#` comment.

    Options (at least one besides `function` and `top-level`): `function` (judge only this
    function or method, or this class and its public methods); `top-level` (true: judge
    only module-level functions and classes, a class's comment speaking for its methods,
    so with `function-start` each such class opens with a comment or docstring too:
    "include comments explaining each part of the script"); `min-comments`, `max-comments` (how
    many `#` comments: 0 forbids them); `function-start` (comment, docstring or either:
    each judged function opens with it: a comment above the `def`, on the `def` line or
    before the first statement; or a docstring), `start-lines` (with `function-start`: the
    opening comment block or docstring spans at least this many lines); `steps` (true: every step of
    each judged function is commented); `docstrings` (required or forbidden) on the
    kinds in `docstring-on` (module, class, function; default class and function);
    `docstring-mentions` (parameters: each parameter's name but `self`/`cls` appears in
    the docstring; returns: a function that returns or yields a value says "return" or
    "yield" in it); `inline` (required: at least one comment at the end of a line of
    code; forbidden: none); `pattern` (a regular expression, Python syntax, that each
    comment's text after the `#` must contain a match of: `^NOTE: ` for a prefix).

    Example:

        - check: comments
          function: merge_inventory
          function-start: comment
          steps: true
          docstrings: forbidden

        - check: comments          # "comments explaining each part of the script"
          function-start: either
          top-level: true
    """

    name = "comments"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Coding Style"
    advice: ClassVar[str] = (
        "Add (or remove) the comments and docstrings where the finding says, in the "
        "asked-for form: `#` lines above the code they explain, docstrings as the first "
        "statement of a function or class."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [{"required": [name]} for name in _ASKS],
        "properties": {
            "function": {"type": "string", "minLength": 1},
            "top-level": {"type": "boolean"},
            "min-comments": {"type": "integer", "minimum": 1},
            "max-comments": {"type": "integer", "minimum": 0},
            "function-start": {"enum": list(_STARTS)},
            "start-lines": {"type": "integer", "minimum": 1},
            "steps": {"const": True},
            "docstrings": _ONE_OF,
            "docstring-on": {
                "type": "array",
                "items": {"enum": list(_KINDS)},
                "minItems": 1,
                "uniqueItems": True,
            },
            "docstring-mentions": {
                "type": "array",
                "items": {"enum": list(_MENTIONS)},
                "minItems": 1,
                "uniqueItems": True,
            },
            "inline": _ONE_OF,
            "pattern": {"type": "string", "minLength": 1},
        },
        "dependentRequired": {"start-lines": ["function-start"]},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            #!/usr/bin/env node
            /**
             * Area of a rectangle.
             * @param {number} width the width
             * @param {number} height the height
             * @returns {number} the area
             */
            function area(width, height) {
              // multiply the sides
              return width * height; // eslint-disable-line no-magic-numbers
            }
            """,
            {
                "docstrings": "required",
                "docstring-mentions": ["parameters", "returns"],
                "max-comments": 1,
                "steps": True,
            },
            language="javascript",
        ),
        Sample(
            """
            export class Inventory {
              private items = new Map<string, number>();

              // Merge two stock counts.
              merge(other: Map<string, number>): void {
                // add each count
                for (const [k, v] of other) this.items.set(k, (this.items.get(k) ?? 0) + v);

                // drop the empty ones
                for (const [k, v] of this.items) if (v === 0) this.items.delete(k);
              }
            }
            """,
            {"function": "Inventory.merge", "function-start": "comment", "steps": True},
            language="typescript",
        ),
        Sample(  # JSDoc a blank line above its function is still its own (as tsc reads it)
            """
            /**
             * Start a game at a level.
             */

            function startGame(level) {
              return { level };
            }
            """,
            {"function": "startGame", "function-start": "either", "start-lines": 2},
            language="javascript",
        ),
        Sample(
            """
            def merge(a, b):
                # Start from a copy so the caller's dict is left alone.
                merged = dict(a)

                # Add the new quantities.
                for key, value in b.items():
                    merged[key] = merged.get(key, 0) + value

                return merged
            """,
            {"function-start": "comment", "steps": True, "docstrings": "forbidden"},
        ),
        Sample(
            '''
            def area(width, height):
                """Area of a rectangle.

                width, height: the sides. Returns their product.
                """
                return width * height
            ''',
            {
                "function": "area",
                "docstrings": "required",
                "docstring-mentions": ["parameters", "returns"],
                "max-comments": 0,
            },
        ),
        Sample(
            '''
            class Book:
                """A book."""

                def __init__(self, title):
                    self.title = title

                def info(self):
                    """The title."""
                    return self.title
            ''',
            {"docstrings": "required"},
        ),
        Sample(
            """
            # Average of each student's scores:
            # an empty list is logged and skipped.
            def average(scores):
                return {k: sum(v) / len(v) for k, v in scores.items() if v}
            """,
            {"function-start": "comment", "start-lines": 2},
        ),
        Sample(
            '''
            def average(scores):
                """Average of each student's scores.

                An empty list is skipped.
                """
                return {k: sum(v) / len(v) for k, v in scores.items() if v}
            ''',
            {"function-start": "either", "start-lines": 2},
        ),
        Sample(
            """
            #!/usr/bin/env python3
            def f(x):  # type: ignore
                total = x + 1  # one more than asked
                return total
            """,
            {"inline": "required", "min-comments": 1, "max-comments": 1},
        ),
        Sample(
            """
            def f(x):
                # NOTE: x is never negative here.
                return x * 2  # NOTE: doubled
            """,
            {"pattern": "^NOTE: ", "min-comments": 2},
        ),
        Sample("x = 1\ny = 2  # noqa: E501\n", {"max-comments": 0, "inline": "forbidden"}),
        Sample(
            """
            # A car: make, model and doors.
            class Car:
                def __init__(self, make):
                    self.make = make

                def display(self):
                    print(self.make)
            """,
            {"function-start": "either", "top-level": True},
        ),
    )
    violated_by = (
        Sample(
            """
            const merge = (a, b) => {
              const out = { ...a };

              for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
              return out;
            };
            """,
            {"function": "merge", "steps": True},
            message="step of function `merge` at line 2 has no comment before it",
            line=2,
            language="javascript",
        ),
        Sample(
            """
            /** Squares. */
            export function square(x: number): number {
              return x * x; // TODO: overflow
            }
            """,
            {"docstrings": "forbidden", "pattern": "^NOTE: "},
            message="comment does not match `^NOTE: `: `// TODO: overflow`",
            line=3,
            language="typescript",
        ),
        Sample(
            """
            /**
             * Squares.
             */
            export function square(x: number): number {
              return x * x;
            }
            """,
            {"docstrings": "forbidden"},
            message="function `square` has a JSDoc comment",
            line=4,
            language="typescript",
        ),
        Sample(  # a file-tagged block documents the file, not the function below it
            """
            /**
             * @file Game set-up.
             */

            function startGame(level) {
              return { level };
            }
            """,
            {"docstrings": "required"},
            message="function `startGame` has no JSDoc comment",
            line=5,
            language="javascript",
        ),
        Sample(
            """
            # A car: make, model and doors.
            class Car:
                def display(self):
                    print(self.make)

            def main():
                Car().display()
            """,
            {"function-start": "either", "top-level": True},
            message="function `main` does not open with a `#` comment or a docstring",
        ),
        Sample(
            """
            class Car:
                def display(self):
                    # Show the car.
                    print(self.make)
            """,
            {"function-start": "either", "top-level": True},
            message="class `Car` does not open with a `#` comment or a docstring",
        ),
        Sample(
            '''
            def merge(a, b):
                """Merge two inventories."""
                merged = dict(a)
                for key, value in b.items():
                    merged[key] = merged.get(key, 0) + value
                return merged
            ''',
            {"function": "merge", "min-comments": 1},
            message="has 0 `#` comments in function `merge`; at least 1 asked",
        ),
        Sample(
            '''
            def merge(a, b):
                """Merge two inventories."""
                return {**a, **b}
            ''',
            {"function-start": "comment"},
            message="function `merge` does not open with a `#` comment",
        ),
        Sample(
            """
            def merge(a, b):
                # Start from a copy.
                merged = dict(a)

                for key, value in b.items():
                    merged[key] = merged.get(key, 0) + value

                return merged
            """,
            {"steps": True},
            message="step of function `merge` at line 5 has no comment before it",
        ),
        Sample(
            """
            def area(width, height):
                return width * height
            """,
            {"function": "area", "docstrings": "required"},
            message="function `area` has no docstring",
        ),
        Sample(
            '''
            def area(width, height):
                """Area of a rectangle from its width."""
                return width * height
            ''',
            {"docstrings": "required", "docstring-mentions": ["parameters", "returns"]},
            message="docstring of function `area` does not mention: `height`, return",
        ),
        Sample(
            '''
            def area(width, height):
                """Area of a rectangle."""
                return width * height
            ''',
            {"docstrings": "forbidden"},
            message="function `area` has a docstring",
        ),
        Sample(
            '''
            """Shapes."""


            class Square:
                """A square."""
            ''',
            {"docstrings": "forbidden", "docstring-on": ["module"]},
            message="the module has a docstring",
        ),
        Sample(
            """
            def f(x):
                # double it
                return x * 2
            """,
            {"inline": "required"},
            message="no comment at the end of a line of code",
        ),
        Sample(
            """
            def f(x):
                return x * 2  # double it
            """,
            {"inline": "forbidden"},
            message="comment at the end of a line of code: `# double it`",
        ),
        Sample(
            """
            def f(x):
                # double it
                return x * 2
            """,
            {"max-comments": 0},
            message="has 1 `#` comment in the code; at most 0 allowed",
        ),
        Sample(
            """
            def f(x):
                # NOTE: x is never negative.
                # double it
                return x * 2
            """,
            {"pattern": "^NOTE: "},
            message="comment does not match `^NOTE: `: `# double it`",
        ),
        Sample(  # one comment line is not the two asked for; a blank line splits blocks
            """
            # Average of each student's scores.

            # Empty lists are skipped.
            def average(scores):
                return {k: sum(v) / len(v) for k, v in scores.items() if v}
            """,
            {"function-start": "comment", "start-lines": 2},
            message="function `average` opens with 1 comment line; at least 2 asked",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.pattern: SafePattern | None = None
        if "pattern" in options:
            try:
                self.pattern = compile_pattern(str(options["pattern"]))
            except PatternError as exc:
                raise ValueError(f"pattern: {exc}") from None
        if "max-comments" in options and options.get("min-comments", 0) > options["max-comments"]:
            raise ValueError("min-comments is larger than max-comments")

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        function = self.options.get("function")
        js = ctx.js_modules()
        if js and (not ctx.modules() or (function and self._js_defines(js, function))):
            return _JsComments(self, js).findings()
        judged = self._judged(ctx, function)
        if isinstance(judged, Finding):
            return [judged]
        scope: list[tuple[ParsedModule, cst.CSTNode | None]] = (
            [(d.module, d.node) for d in judged] if function else [(m, None) for m in ctx.modules()]
        )
        found = [(module, c) for module, root in scope for c in comments(module, root)]
        where = f"function `{function}`" if function else "the code"
        path = ctx.unit.files[0].relpath if ctx.unit.files else None
        findings = self._counts(ctx, found, where, path)
        findings += self._inline(ctx, found, path)
        findings += self._format(ctx, found)
        findings += self._starts(ctx, judged)
        findings += self._steps(ctx, judged)
        findings += self._docstrings(ctx, judged)
        return findings

    @staticmethod
    def _js_defines(js: list[Any], function: str) -> bool:
        return any(function in (d.qualname, d.name) for m in js for d in jsc.definitions(m))

    def _judged(self, ctx: CheckContext, function: str | None) -> list[_Definition] | Finding:
        every = [
            _Definition(module, node, qualname)
            for module in ctx.modules()
            for qualname, node in module.definitions
        ]
        if not function:
            if self.options.get("top-level"):
                return [d for d in every if "." not in d.qualname]
            return [d for d in every if not d.nested]
        named = [d for d in every if d.qualname.replace(".<locals>.", ".") == function]
        named = named or [d for d in every if d.node.name.value == function]
        if not named:
            shown = ", ".join(sorted({d.qualname for d in every})[:10]) or "none"
            path = ctx.unit.files[0].relpath if ctx.unit.files else None
            return ctx.finding(
                f"function or class `{function}` is not defined (definitions found: {shown})",
                path=path,
                line=1,
            )
        target = named[0]
        if target.kind == "function":
            return [target]
        # A class: itself and its public methods.
        inside = f"{target.qualname}."
        return [target] + [
            d
            for d in every
            if d.kind == "function"
            and d.qualname.startswith(inside)
            and "." not in d.qualname[len(inside) :]
            and d.public
        ]

    def _counts(
        self,
        ctx: CheckContext,
        found: list[tuple[ParsedModule, Comment]],
        where: str,
        path: str | None,
    ) -> list[Finding]:
        count = len(found)
        has = f"has {count} `#` {'comment' if count == 1 else 'comments'} in {where}"
        lowest, highest = self.options.get("min-comments"), self.options.get("max-comments")
        if lowest is not None and count < lowest:
            return [ctx.finding(f"{has}; at least {lowest} asked", path=path)]
        if highest is None or count <= highest:
            return []
        # Too many: the count at the first comment, then every other one, each a finding of
        # its own: the gate counts those on changed lines and the baseline absorbs old ones,
        # so a comment added past a cap on what is listed would pass unseen.
        (module, first), rest = found[0], found[1:]
        return [ctx.report(module, first.node, f"{has}; at most {highest} allowed")] + [
            ctx.report(m, c.node, f"another comment: `{_short(c.node.value)}`") for m, c in rest
        ]

    def _inline(
        self, ctx: CheckContext, found: list[tuple[ParsedModule, Comment]], path: str | None
    ) -> list[Finding]:
        wanted = self.options.get("inline")
        inline = [(m, c) for m, c in found if c.inline]
        if wanted == "required" and not inline:
            return [
                ctx.finding(
                    "no comment at the end of a line of code (inline comments asked)", path=path
                )
            ]
        if wanted == "forbidden":
            return [
                ctx.report(
                    m, c.node, f"comment at the end of a line of code: `{_short(c.node.value)}`"
                )
                for m, c in inline
            ]
        return []

    def _format(
        self, ctx: CheckContext, found: list[tuple[ParsedModule, Comment]]
    ) -> list[Finding]:
        if self.pattern is None:
            return []
        shown = self.options["pattern"]
        findings = []
        for module, comment in found:
            try:
                matched = self.pattern.search(comment.text)
            except SubjectTooLong as exc:
                raise Undecidable("too-large", f"a comment of {exc.length} characters") from None
            if not matched:
                findings.append(
                    ctx.report(
                        module,
                        comment.node,
                        f"comment does not match `{shown}`: `{_short(comment.node.value)}`",
                    )
                )
        return findings

    def _wanted(self, judged: list[_Definition], kind: str | None = None) -> list[_Definition]:
        """The definitions a requirement applies to: the named one, or public ones."""
        if self.options.get("function"):
            return judged
        return [d for d in judged if d.public and (kind is None or d.kind == kind)]

    def _starts(self, ctx: CheckContext, judged: list[_Definition]) -> list[Finding]:
        start = self.options.get("function-start")
        if start is None:
            return []
        least = int(self.options.get("start-lines", 1))
        findings = []
        # With `top-level`, a class's opening comment speaks for its methods, so the
        # class itself must open with one.
        top_level = bool(self.options.get("top-level")) and not self.options.get("function")
        for d in self._wanted(judged, None if top_level else "function"):
            if not isinstance(d.node, cst.FunctionDef) and not top_level:
                continue
            lines = {
                "comment": _comment_block(start_comments(d.module, d.node), d.module),
                "docstring": docstring_lines(d.node),
            }
            what = {"comment": "a `#` comment", "docstring": "a docstring"}
            message = start_problem(d.where(), lines, what, start, least)
            if message is not None:
                findings.append(ctx.report(d.module, d.node.name, message))
        return findings

    def _steps(self, ctx: CheckContext, judged: list[_Definition]) -> list[Finding]:
        if not self.options.get("steps"):
            return []
        findings = []
        for d in self._wanted(judged, "function"):
            if not isinstance(d.node, cst.FunctionDef):
                continue
            for first in steps(d.node):
                if not _commented(first):
                    line = d.module.line_of(first)
                    findings.append(
                        ctx.report(
                            d.module,
                            first,
                            f"step of {d.where()} at line {line} has no comment before it",
                        )
                    )
        return findings

    def _docstrings(self, ctx: CheckContext, judged: list[_Definition]) -> list[Finding]:
        rule = self.options.get("docstrings")
        mentions = self.options.get("docstring-mentions", [])
        if rule is None and not mentions:
            return []
        kinds = self.options.get("docstring-on", ["class", "function"])
        findings: list[Finding] = []
        if "module" in kinds and not self.options.get("function"):
            for module in ctx.modules():
                has = docstring_text(module.tree) is not None
                if rule == "required" and not has:
                    findings.append(
                        ctx.finding("the module has no docstring", path=module.relpath, line=1)
                    )
                elif rule == "forbidden" and has:
                    findings.append(
                        ctx.finding("the module has a docstring", path=module.relpath, line=1)
                    )
        targets = judged if rule == "forbidden" else self._wanted(judged)
        for d in targets:
            if d.kind not in kinds and not self.options.get("function"):
                continue
            text = docstring_text(d.node)
            if rule == "required" and text is None:
                findings.append(ctx.report(d.module, d.node.name, f"{d.where()} has no docstring"))
            elif rule == "forbidden" and text is not None:
                findings.append(ctx.report(d.module, d.node.name, f"{d.where()} has a docstring"))
            if text is not None and mentions and isinstance(d.node, cst.FunctionDef):
                missing = self._unmentioned(d, text, mentions)
                if missing:
                    findings.append(
                        ctx.report(
                            d.module,
                            d.node.name,
                            f"docstring of {d.where()} does not mention: {', '.join(missing)}",
                        )
                    )
        return findings

    @staticmethod
    def _unmentioned(d: _Definition, text: str, mentions: list[str]) -> list[str]:
        if not isinstance(d.node, cst.FunctionDef):
            return []
        words = _words(text)
        lowered = {w.lower() for w in words}
        missing = []
        if "parameters" in mentions:
            missing += [f"`{p}`" for p in _parameters(d.node) if p not in words]
        if "returns" in mentions:
            if _yields(d.node, d.module):
                if not lowered & {"yield", "yields", "yielded"}:
                    missing.append("yield")
            elif _returns_value(d.node, d.module) and not lowered & {
                "return",
                "returns",
                "returned",
                "rtype",
            }:
                missing.append("return")
        return missing


class _JsComments:
    """The `comments` check on JavaScript and TypeScript modules (see the class doc)."""

    def __init__(self, check: CommentsCheck, modules: list[Any]) -> None:
        self.options = check.options
        self.pattern = check.pattern
        self.modules = modules
        self.every = [d for m in modules for d in jsc.definitions(m)]

    def _judged(self) -> list[jsc.JsDefinition] | Finding:
        function = self.options.get("function")
        every = self.every
        if not function:
            if self.options.get("top-level"):
                return [d for d in every if "." not in d.qualname]
            return [d for d in every if not d.nested]
        named = [d for d in every if d.qualname == function] or [
            d for d in every if d.name == function
        ]
        if not named:
            shown = ", ".join(sorted({d.qualname for d in every})[:10]) or "none"
            return Finding(
                f"function or class `{function}` is not defined (definitions found: {shown})",
                _RULE,
                self.modules[0].relpath,
                1,
            )
        target = named[0]
        if target.kind == "function":
            return [target]
        inside = f"{target.qualname}."
        return [target] + [
            d
            for d in every
            if d.kind == "function"
            and d.qualname.startswith(inside)
            and "." not in d.qualname[len(inside) :]
            and d.public
        ]

    def findings(self) -> list[Finding]:
        judged = self._judged()
        if isinstance(judged, Finding):
            return [judged]
        function = self.options.get("function")
        docs = {m.relpath: jsc.docstring_nodes(m, jsc.definitions(m)) for m in self.modules}
        roots = (
            [(d.module, d.node) for d in judged] if function else [(m, None) for m in self.modules]
        )
        found = [
            c
            for module, root in roots
            for c in jsc.all_comments(module, root)
            if not c.pragma and c.node.range().start.index not in docs[module.relpath]
        ]
        if function:  # a function's comments include those just above it
            above = [c for d in judged for c in jsc.comments_above(d.module, d.node)]
            found = above + [c for c in found if c not in above]
        where = f"function `{function}`" if function else "the code"
        findings = self._counts(found, where)
        findings += self._inline(found)
        findings += self._format(found)
        findings += self._starts(judged)
        findings += self._steps(judged)
        findings += self._docstrings(judged)
        return findings

    def _at(self, comment: jsc.JsComment, message: str) -> Finding:
        return Finding(message, _RULE, comment.module.relpath, comment.line)

    def _counts(self, found: list[jsc.JsComment], where: str) -> list[Finding]:
        count = len(found)
        has = f"has {count} {'comment' if count == 1 else 'comments'} in {where}"
        lowest, highest = self.options.get("min-comments"), self.options.get("max-comments")
        if lowest is not None and count < lowest:
            return [Finding(f"{has}; at least {lowest} asked", _RULE, self.modules[0].relpath, 1)]
        if highest is None or count <= highest:
            return []
        first, rest = found[0], found[1:]
        return [self._at(first, f"{has}; at most {highest} allowed")] + [
            self._at(c, f"another comment: `{_short(c.raw)}`") for c in rest
        ]

    def _inline(self, found: list[jsc.JsComment]) -> list[Finding]:
        wanted = self.options.get("inline")
        inline = [c for c in found if c.inline]
        if wanted == "required" and not inline:
            return [
                Finding(
                    "no comment at the end of a line of code (inline comments asked)",
                    _RULE,
                    self.modules[0].relpath,
                    1,
                )
            ]
        if wanted == "forbidden":
            return [
                self._at(c, f"comment at the end of a line of code: `{_short(c.raw)}`")
                for c in inline
            ]
        return []

    def _format(self, found: list[jsc.JsComment]) -> list[Finding]:
        if self.pattern is None:
            return []
        findings = []
        for comment in found:
            try:
                matched = self.pattern.search(comment.text)
            except SubjectTooLong as exc:
                raise Undecidable("too-large", f"a comment of {exc.length} characters") from None
            if not matched:
                findings.append(
                    self._at(
                        comment,
                        f"comment does not match `{self.options['pattern']}`: "
                        f"`{_short(comment.raw)}`",
                    )
                )
        return findings

    def _wanted(
        self, judged: list[jsc.JsDefinition], kind: str | None = None
    ) -> list[jsc.JsDefinition]:
        if self.options.get("function"):
            return judged
        return [d for d in judged if d.public and (kind is None or d.kind == kind)]

    def _starts(self, judged: list[jsc.JsDefinition]) -> list[Finding]:
        start = self.options.get("function-start")
        if start is None:
            return []
        least = int(self.options.get("start-lines", 1))
        top_level = bool(self.options.get("top-level")) and not self.options.get("function")
        findings = []
        for d in self._wanted(judged, None if top_level else "function"):
            if d.kind != "function" and not top_level:
                continue
            lines = {
                "comment": jsc.start_comment_lines(d.module, d),
                "docstring": jsc.docstring_lines(d.module, d),
            }
            what = {"comment": "a comment", "docstring": "a JSDoc comment"}
            message = start_problem(d.where(), lines, what, start, least)
            if message is not None:
                findings.append(Finding(message, _RULE, d.module.relpath, d.line))
        return findings

    def _steps(self, judged: list[jsc.JsDefinition]) -> list[Finding]:
        if not self.options.get("steps"):
            return []
        findings = []
        for d in self._wanted(judged, "function"):
            if d.kind != "function":
                continue
            starts = jsc.comment_starts(d.module)
            for first in jsc.steps(d):
                if not jsc.commented(first, starts):
                    line = d.module.line_of(first)
                    findings.append(
                        Finding(
                            f"step of {d.where()} at line {line} has no comment before it",
                            _RULE,
                            d.module.relpath,
                            line,
                        )
                    )
        return findings

    def _docstrings(self, judged: list[jsc.JsDefinition]) -> list[Finding]:
        rule = self.options.get("docstrings")
        mentions = self.options.get("docstring-mentions", [])
        if rule is None and not mentions:
            return []
        kinds = self.options.get("docstring-on", ["class", "function"])
        findings: list[Finding] = []
        if "module" in kinds and not self.options.get("function"):
            for module in self.modules:
                has = jsc.module_docstring(module) is not None
                if rule in ("required", "forbidden") and has != (rule == "required"):
                    said = "has no" if rule == "required" else "has a"
                    findings.append(
                        Finding(
                            f"the module {said} docstring (a leading /** */ block)",
                            _RULE,
                            module.relpath,
                            1,
                        )
                    )
        targets = judged if rule == "forbidden" else self._wanted(judged)
        for d in targets:
            if d.kind not in kinds and not self.options.get("function"):
                continue
            doc = jsc.jsdoc_of(d.module, d.node)
            if rule == "required" and doc is None:
                findings.append(
                    Finding(f"{d.where()} has no JSDoc comment", _RULE, d.module.relpath, d.line)
                )
            elif rule == "forbidden" and doc is not None:
                findings.append(
                    Finding(f"{d.where()} has a JSDoc comment", _RULE, d.module.relpath, d.line)
                )
            if doc is not None and mentions and d.kind == "function":
                missing = _js_unmentioned(d, doc.text, mentions)
                if missing:
                    findings.append(
                        Finding(
                            f"JSDoc of {d.where()} does not mention: {', '.join(missing)}",
                            _RULE,
                            d.module.relpath,
                            d.line,
                        )
                    )
        return findings


def _js_unmentioned(d: jsc.JsDefinition, text: str, mentions: list[str]) -> list[str]:
    words = _words(text)
    lowered = {w.lower() for w in words}
    missing = []
    if "parameters" in mentions:
        missing += [f"`{p}`" for p in jsc.parameter_names(d) if p not in words]
    if "returns" in mentions:
        if jsc.yields(d):
            if not lowered & {"yield", "yields", "yielded"}:
                missing.append("yield")
        elif jsc.returns_value(d) and not lowered & {"return", "returns", "returned"}:
            missing.append("return")
    return missing

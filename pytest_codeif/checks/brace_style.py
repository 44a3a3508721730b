"""The `brace-style` check: a named brace style (Allman, K&R, 1TBS) as it applies to
Python, where braces delimit displays and blocks are a colon and indentation, and to
JavaScript and TypeScript, where braces delimit blocks (`checks/shared/js_braces.py`)."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.js_braces import (
    CodeText,
    JsBlock,
    js_blocks,
    js_clauses,
    js_unbraced,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

STYLES: Final = ("allman", "k&r", "1tbs")
#: Compound statements (and their clauses) with the keyword a finding names them by.
_BLOCKS: Final[tuple[tuple[type[cst.CSTNode], str], ...]] = (
    (cst.FunctionDef, "def"),
    (cst.ClassDef, "class"),
    (cst.If, "if"),
    (cst.Else, "else"),
    (cst.For, "for"),
    (cst.While, "while"),
    (cst.With, "with"),
    (cst.Try, "try"),
    (cst.TryStar, "try"),
    (cst.ExceptHandler, "except"),
    (cst.ExceptStarHandler, "except*"),
    (cst.Finally, "finally"),
    (cst.MatchCase, "case"),
)
#: Tokens that carry no code: a brace is alone on its line when only these share it.
_LAYOUT: Final = frozenset(
    {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
)
# Python 3.12 tokenizes f-strings into parts whose `{` and `}` are replacement fields,
# not displays; before 3.12 an f-string is one STRING token and these never appear.
_FSTRING_START: Final = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END: Final = getattr(tokenize, "FSTRING_END", -1)


@dataclass(frozen=True)
class Brace:
    """One `{` or `}` of a display: where it is and what shares its line."""

    line: int
    first_on_line: bool  # no code before it on its line
    last_on_line: bool  # no code after it on its line (a comment may follow)


def display_braces(text: str) -> Iterator[tuple[Brace, Brace]]:
    """The (opening, closing) braces of each dict or set display and comprehension in
    `text` (code that parses), strings, comments and f-string fields left out."""
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type != tokenize.ENDMARKER
    ]
    code = [i for i, t in enumerate(tokens) if t.type not in _LAYOUT]
    position = {index: k for k, index in enumerate(code)}
    opened: list[Brace] = []
    in_fstring = 0
    for i in code:
        token = tokens[i]
        if token.type == _FSTRING_START:
            in_fstring += 1
        elif token.type == _FSTRING_END:
            in_fstring -= 1
        if in_fstring or token.type != tokenize.OP or token.string not in "{}":
            continue
        k = position[i]
        before = tokens[code[k - 1]] if k else None
        after = tokens[code[k + 1]] if k + 1 < len(code) else None
        brace = Brace(
            token.start[0],
            first_on_line=before is None or before.end[0] < token.start[0],
            last_on_line=after is None or after.start[0] > token.end[0],
        )
        if token.string == "{":
            opened.append(brace)
        elif opened:
            yield opened.pop(), brace


class BraceStyleCheck(Check):
    """The code follows a named brace style (Allman, K&R, 1TBS), in Python, JavaScript
    and TypeScript.

    Why: instructions ask for Allman, K&R or the one true brace style (1TBS) whatever
    the language. In JavaScript and TypeScript braces delimit blocks, and each style
    places them (below). Python has no braces around blocks: a block opens with a colon at the
    end of its header and is its indented lines, so the placement those styles give a
    block's opening brace is the only one Python allows. What remains for a style to
    decide, and what this check decides:

    - a block's body is on lines of its own, never after the colon on the header's line
      (`if x: return y`): every one of the styles puts the body below its header, and
      1TBS is named for never leaving a block unbraced on one line;
    - a dict or set display or comprehension that spans lines places its braces as the
      style does: Allman puts the opening brace on a line of its own; K&R and 1TBS put
      it at the end of the line that opens the display; in every style nothing follows
      the opening brace on its line and the closing brace starts its line.

    A display on one line (`{}`, `{k: v for k, v in pairs}`) has no placement to judge;
    braces in strings, f-string fields and comments are not code. Code written with
    braces around its blocks does not parse, and is reported as a syntax error.

    In Python an opening brace can start its own line only inside brackets or after a
    backslash (`defaults = \\` then `{` on the next line, or `f(` then `{`).

    JavaScript and TypeScript: every block with a header is judged, the body of a
    function (declared, expression, arrow, generator), method, class, `static` block,
    TypeScript interface, enum or namespace (the definitions), and of `if`, `else`,
    `for`, `while`, `do`, `with`, `try`, `catch`, `finally` and `switch` (the controls):

    - Allman: every block's `{` on a line of its own (an arrow function's too:
      `(x) =>` then `{`); `else`, `catch` and `finally` start the line after the `}`.
    - K&R: a control's `{` at the end of its header's line; a definition's `{` either
      there (JavaScript's and Java's usual K&R) or on a line of its own (C's K&R, where
      a function's body opens below its header); `} else {` and `}` then `else` on the
      next line are both K&R; a control body of one statement may go without braces
      (`if (x) return;`), as in Kernighan and Ritchie's book.
    - 1TBS: every `{` at the end of its header's line, functions and classes too;
      `else`, `catch` and `finally` on the line of the `}` before them (`} else {`);
      every control body braced (`if (x) return;` is a violation; `else if` chains).
      These are what set it apart from K&R, as MultiCodeIF's prompts define it ("`else`
      or `else if` must be on the same line as the closing brace").
    - In every style, a block that holds code puts that code on lines of its own: nothing
      but a comment after its `{`, and its `}` first on its line (`if (x) { y(); }` on
      one line is a violation, as in the Python reading).

    Not judged: an empty block (`{}`, or only comments), which has no body to lay out;
    braces that delimit no block (object literals and patterns, TypeScript object types,
    import and export lists, template literals' `${}`, JSX's `{expr}`), which no brace
    style names; an arrow function with an expression body (`(x) => x * 2`); blocks with
    no header (a bare `{ }`, a labelled block, a `case 1: { }` body); `} while (x);` of a
    `do`. Comments are not code: `if (x) // why` with `{` on the next line is Allman's
    placement, and `{ // why` ends its line.

    Options: `style` (required: `allman`, `k&r` or `1tbs`, in any of these cases:
    `Allman`, `K&R`, `1TBS`).

    Example:

        - check: brace-style
          style: allman
    """

    name = "brace-style"
    category = "Coding Style"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Put each block's body on the lines below its header, and place every block's "
        "braces (in Python, those of a dict or set that spans lines) as the named style does."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["style"],
        "properties": {"style": {"enum": [*STYLES, "Allman", "K&R", "1TBS"]}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            def total(prices):
                if not prices:
                    return 0
                return sum(prices)
            """,
            {"style": "1tbs"},
        ),
        Sample(
            """
            def settings():
                defaults = {
                    "debug": False,
                    "level": 3,
                }
                return {**defaults, "name": f"{defaults['level']}"}
            """,
            {"style": "K&R"},
        ),
        Sample(
            """
            def settings():
                defaults = \\
                {
                    "debug": False,
                    "level": 3,
                }
                return dict(
                    {
                        "name": "x",
                    }
                )
            """,
            {"style": "allman"},
        ),
        Sample("text = '{ not a brace'  # nor this {\n", {"style": "allman"}),
        Sample(
            """
            function total(prices)
            {
                const label = `sum {${prices.length}}`;
                let sum = 0;
                for (const price of prices)  // each price
                {
                    sum += price;
                }
                if (sum > 100)
                {
                    return { label, sum: 100 };
                }
                else
                {
                    return prices.map((p) => p * 2).length ? { label, sum } : {};
                }
            }
            """,
            {"style": "allman"},
            language="javascript",
        ),
        Sample(
            """
            class Cart {
                items: number[] = [];

                total(): number {
                    try {
                        return this.items.reduce((a, b) => a + b, 0);
                    } catch (error) {
                        return 0;
                    } finally {
                        this.items = [];
                    }
                }
            }
            """,
            {"style": "1tbs"},
            language="typescript",
        ),
        Sample(
            """
            function first(items)
            {
                if (items.length === 0) return null;
                if (items.length > 1) {
                    return items[0];
                }
                else {
                    return items.at(0);
                }
            }
            """,
            {"style": "k&r"},
            language="javascript",
        ),
    )
    violated_by = (
        Sample(
            """
            def first(items):
                if not items: return None
                return items[0]
            """,
            {"style": "k&r"},
            message="the body of `if` on l.2 is on its header's line",
        ),
        Sample(
            """
            def settings():
                defaults = {
                    "debug": False,
                }
                return defaults
            """,
            {"style": "allman"},
            message="Allman puts it on a line of its own",
        ),
        Sample(
            """
            def settings():
                return dict(
                    {
                        "debug": False,
                    }
                )
            """,
            {"style": "1tbs"},
            message="1TBS puts it at the end of the line that opens the display",
        ),
        Sample(
            """
            def settings():
                return {"debug": False,
                        "level": 3}
            """,
            {"style": "k&r"},
            message="the `}` on l.3 does not start its line",
        ),
        Sample(
            """
            function total(prices)
            {
                return prices.map((price) => {
                    return price * 2;
                });
            }
            """,
            {"style": "allman"},
            language="javascript",
            message="the `{` of `arrow function` on l.3 follows code on its line",
            line=3,
        ),
        Sample(
            """
            function sign(x: number): number {
                if (x < 0) {
                    return -1;
                }
                else {
                    return 1;
                }
            }
            """,
            {"style": "1tbs"},
            language="typescript",
            message="`else` on l.5 starts its line",
            line=5,
        ),
        Sample(
            """
            function sign(x) {
                if (x < 0) return -1;
                return 1;
            }
            """,
            {"style": "1tbs"},
            language="javascript",
            message="the body of `if` on l.2 has no braces",
            line=2,
        ),
        Sample(
            """
            function sign(x) {
                if (x < 0)
                {
                    return -1;
                }
                return 1;
            }
            """,
            {"style": "k&r"},
            language="javascript",
            message="the `{` of `if` on l.3 starts its line",
            line=3,
        ),
        Sample(
            """
            function clamp(x) {
                if (x < 0) { return 0; }
                return x;
            }
            """,
            {"style": "k&r"},
            language="javascript",
            message="the block of `if` on l.2 is on one line",
            line=2,
        ),
    )

    @property
    def _style(self) -> str:
        return {"allman": "Allman", "k&r": "K&R", "1tbs": "1TBS"}[self._key]

    @property
    def _key(self) -> str:
        return str(self.options["style"]).lower()

    def advise(self) -> str:
        braces = {
            "allman": "put every block's opening brace on a line of its own, with `else`, "
            "`catch` and `finally` starting the line after the closing brace",
            "k&r": "put a control statement's opening brace at the end of its header's line",
            "1tbs": "put every opening brace at the end of its header's line, write "
            "`} else {`, and brace every control body, even a single statement",
        }[self._key]
        where = (
            "on a line of its own"
            if self._key == "allman"
            else "at the end of the line that opens it"
        )
        return (
            f"Follow {self._style}: {braces}; put each block's body on the lines below its "
            "opening brace, with the closing brace starting its own line. In Python, where a "
            "colon opens a block, put a dict or set spanning lines' opening brace "
            f"{where}."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings: list[Finding] = []
        for module in ctx.modules():
            findings += self._blocks(ctx, module)
            findings += self._displays(ctx, module)
        for js in ctx.js_modules():
            findings += self._js(ctx, js)
        return findings

    def _js(self, ctx: CheckContext, module: JsModule) -> list[Finding]:
        """Findings on a JavaScript or TypeScript file, by line (see the docstring)."""
        code = CodeText(module)
        problems: list[tuple[int, str]] = []
        for block in js_blocks(module, code):
            if not block.empty:
                problems += self._js_placement(block)
                problems += self._js_layout(block)
        for clause in js_clauses(module):
            if self._key == "allman" and clause.after_brace:
                problems.append(
                    (
                        clause.line,
                        f"`{clause.keyword}` on l.{clause.line} follows the `}}` on its line: "
                        "Allman starts it on the line after the closing brace",
                    )
                )
            elif self._key == "1tbs" and not clause.after_brace:
                problems.append(
                    (
                        clause.line,
                        f"`{clause.keyword}` on l.{clause.line} starts its line: 1TBS puts it "
                        f"on the line of the `}}` before it (`}} {clause.keyword}`)",
                    )
                )
        if self._key == "1tbs":
            problems += [
                (
                    body.line,
                    f"the body of `{body.keyword}` on l.{body.line} has no braces: 1TBS "
                    "braces every control body, even a single statement",
                )
                for body in js_unbraced(module)
            ]
        return [
            ctx.finding(text, path=module.relpath, line=line)
            for line, text in sorted(set(problems))
        ]

    def _js_placement(self, block: JsBlock) -> list[tuple[int, str]]:
        """Where the block's `{` stands, as the style places it."""
        if self._key == "allman":
            if block.open_first:
                return []
            return [
                (
                    block.line,
                    f"the `{{` of `{block.what}` on l.{block.line} follows code on its line: "
                    "Allman puts it on a line of its own",
                )
            ]
        if not block.open_first or (self._key == "k&r" and block.role == "definition"):
            return []
        return [
            (
                block.line,
                f"the `{{` of `{block.what}` on l.{block.line} starts its line: {self._style} "
                "puts it at the end of its header's line",
            )
        ]

    def _js_layout(self, block: JsBlock) -> list[tuple[int, str]]:
        """A block's body on lines of its own, in every style."""
        if block.line == block.close_line:
            return [
                (
                    block.line,
                    f"the block of `{block.what}` on l.{block.line} is on one line: "
                    f"{self._style} puts its body on lines of its own",
                )
            ]
        found = []
        if not block.open_last:
            found.append(
                (
                    block.line,
                    f"code follows the `{{` of `{block.what}` on l.{block.line}: "
                    f"{self._style} starts the body on the next line",
                )
            )
        if not block.close_first:
            found.append(
                (
                    block.close_line,
                    f"the `}}` on l.{block.close_line} (of `{block.what}`) follows code on its "
                    f"line: {self._style} puts the closing brace at the start of its line",
                )
            )
        return found

    def _blocks(self, ctx: CheckContext, module: ParsedModule) -> list[Finding]:
        found = []
        for kind, keyword in _BLOCKS:
            for node in module.nodes(kind):
                if isinstance(getattr(node, "body", None), cst.SimpleStatementSuite):
                    line = module.line_of(node)
                    found.append(
                        ctx.report(
                            module,
                            node,
                            f"the body of `{keyword}` on l.{line} is on its header's line: "
                            f"{self._style} puts a block's body on lines of its own",
                        )
                    )
        return found

    def _displays(self, ctx: CheckContext, module: ParsedModule) -> list[Finding]:
        allman = self._key == "allman"
        found = []
        for opening, closing in display_braces(module.source.text):
            if opening.line == closing.line:
                continue
            problems: list[tuple[int, str]] = []
            if allman and not opening.first_on_line:
                problems.append(
                    (
                        opening.line,
                        f"the `{{` on l.{opening.line} follows code on its line: "
                        f"{self._style} puts it on a line of its own",
                    )
                )
            elif not allman and opening.first_on_line:
                problems.append(
                    (
                        opening.line,
                        f"the `{{` on l.{opening.line} starts its line: {self._style} puts it "
                        "at the end of the line that opens the display",
                    )
                )
            if not opening.last_on_line:
                problems.append(
                    (
                        opening.line,
                        f"the `{{` on l.{opening.line} is followed by code on its line: "
                        f"{self._style} starts the contents on the next line",
                    )
                )
            if not closing.first_on_line:
                problems.append(
                    (
                        closing.line,
                        f"the `}}` on l.{closing.line} does not start its line: "
                        f"{self._style} puts the closing brace on a line of its own",
                    )
                )
            found += [ctx.finding(text, path=module.relpath, line=line) for line, text in problems]
        return found

"""The `brace-style` check: a named brace style (Allman, K&R, 1TBS) as it applies to
Python, where braces delimit displays and blocks are a colon and indentation."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.code.cst import ParsedModule

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
    """The code follows a named brace style, read for Python.

    Why: instructions ask for Allman, K&R or the one true brace style (1TBS) whatever
    the language. Python has no braces around blocks: a block opens with a colon at the
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

    Options: `style` (required: `allman`, `k&r` or `1tbs`, in any of these cases:
    `Allman`, `K&R`, `1TBS`).

    Example:

        - check: brace-style
          style: allman
    """

    name = "brace-style"
    category = "Coding Style"
    advice = (
        "Put each block's body on the lines below its header, and place the braces of a "
        "dict or set that spans lines as the named style does."
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
    )

    @property
    def _style(self) -> str:
        return {"allman": "Allman", "k&r": "K&R", "1tbs": "1TBS"}[self._key]

    @property
    def _key(self) -> str:
        return str(self.options["style"]).lower()

    def advise(self) -> str:
        where = (
            "on a line of its own"
            if self._key == "allman"
            else "at the end of the line that opens it"
        )
        return (
            f"Follow {self._style} as Python allows: put each block's body on the lines below "
            f"its header, and in a dict or set spanning lines put the opening brace {where}, "
            "with the closing brace starting its own line."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings: list[Finding] = []
        for module in ctx.modules():
            findings += self._blocks(ctx, module)
            findings += self._displays(ctx, module)
        return findings

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

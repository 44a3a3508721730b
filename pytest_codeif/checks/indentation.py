"""The `indentation` check: JavaScript and TypeScript indented by a given unit (spaces or
tabs), with or without spaces around operators and after commas."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.js_braces import CodeText
from pytest_codeif.checks.shared.js_layout import (
    CodeLine,
    DepthRule,
    code_lines,
    depth_rules,
    spacings,
)
from pytest_codeif.code.js_tree import JsModule


class IndentationCheck(Check):
    """JavaScript and TypeScript code is indented by the asked unit and spaced (or not)
    around operators and after commas.

    Why: instructions ask for "2-space indentation", "tab indentation" or "no spaces
    around operators or after commas" (Prettier's defaults, Go's tabs, a compact house
    style). Python has ruff's pycodestyle rules for this (`ruff` with `E1`, `E2`,
    `W191`); JavaScript's linters leave layout to a formatter (Biome's formatter, Prettier),
    and a formatter rewrites a file rather than judging one rule of it (an Allman file,
    reformatted, differs on every brace). So this check reads the layout it is asked
    about from the parse tree (`checks/shared/js_layout.py`), and nothing else:

    - `indent`: every code line's leading whitespace is spaces only (`indent: 2`,
      `indent: 4`) or tabs only (`indent: tabs`); and inside brackets whose contents
      start on the next line (a block, a class body, an object, an array, an argument
      or parameter list, a parenthesized condition), each item that starts its line
      stands one unit deeper than the line of the opening bracket, the closing bracket
      at that line's depth. A `case` may stand one unit in or level with its `switch`;
      a control body without braces, on a line of its own, one unit deeper than its
      header. Continuation lines (a chain of `.then()` calls, an operator's second
      operand, a ternary's branches) and contents aligned after an opening bracket are
      a formatter's choice: only their whitespace's kind is judged. Comment lines,
      blank lines and the lines of strings and template literals are not code.
    - `spacing`: `spaced` asks for a space (or a line break) on both sides of every
      binary, assignment and conditional operator and after every comma; `unspaced`
      for none (`a+b`, `x=1`, `f(a,b)`), as MultiCodeIF's "no spacing" asks ("no spaces
      around operators or after commas"). Unary operators, `=>`, type annotations and
      keywords are not judged; nor is a space that keeps two operators apart (`a - -b`).

    Findings are at file:line, one per line and concern. Python code is not read (ruff's
    `E1`/`E2`/`W191` are its checks).

    Options: `indent` (required: a number of spaces, 1 to 8, or `tabs`) and `spacing`
    (`spaced` or `unspaced`; not judged when absent).

    Example:

        - check: indentation
          indent: 2
          spacing: spaced
    """

    name = "indentation"
    category = "Coding Style"
    languages = frozenset({"javascript", "typescript"})
    advice = (
        "Indent every line by the asked unit, one unit per level of nesting, and space "
        "operators and commas as asked."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["indent"],
        "properties": {
            "indent": {
                "oneOf": [
                    {"type": "integer", "minimum": 1, "maximum": 8},
                    {"const": "tabs"},
                ]
            },
            "spacing": {"enum": ["spaced", "unspaced"]},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            function total(prices, rate = 1) {
              let sum = 0;
              for (const price of prices) {
                sum += price * rate;
              }
              const label = `total:
                ${sum}`;
              return prices
                  .filter((p) => p > 0)
                  .map((p) => ({
                    value: p,
                    label,
                  }));
            }
            """,
            {"indent": 2, "spacing": "spaced"},
            language="javascript",
        ),
        Sample(
            "function area(w: number,h: number): number {\n"
            "\tif (w<0||h<0) {\n"
            "\t\treturn 0;\n"
            "\t}\n"
            "\t/* a comment\n"
            "     aligned by spaces */\n"
            "\tconst a=w*h;\n"
            "\treturn a>0?a:-a;\n"
            "}\n",
            {"indent": "tabs", "spacing": "unspaced"},
            language="typescript",
        ),
        Sample(
            """
            switch (kind) {
                case "a":
                    run();
                    break;
                default:
                    stop();
            }
            """,
            {"indent": 4},
            language="javascript",
        ),
    )
    violated_by = (
        Sample(
            """
            function total(prices) {
                return prices.length;
            }
            """,
            {"indent": 2},
            language="javascript",
            message="l.2 is indented 4 spaces, 2 expected",
            line=2,
        ),
        Sample(
            "function total(prices) {\n    return prices.length;\n}\n",
            {"indent": "tabs"},
            language="javascript",
            message="l.2 is indented with spaces",
            line=2,
        ),
        Sample(
            """
            function area(w, h) {
                const a = w*h;
                return a;
            }
            """,
            {"indent": 4, "spacing": "unspaced"},
            language="typescript",
            message="a space around `=`",
            line=2,
        ),
        Sample(
            """
            function area(w,h) {
                return w * h;
            }
            """,
            {"indent": 4, "spacing": "spaced"},
            language="javascript",
            message="no space after `,`",
            line=1,
        ),
    )

    @property
    def _tabs(self) -> bool:
        return bool(self.options["indent"] == "tabs")

    @property
    def _unit_name(self) -> str:
        return "tabs" if self._tabs else f"{self.options['indent']} spaces"

    def advise(self) -> str:
        spacing = {
            "spaced": " Put a space on both sides of every operator and after every comma.",
            "unspaced": " Write operators and commas with no space around them (`a+b`, `f(a,b)`).",
        }.get(str(self.options.get("spacing")), "")
        return f"Indent with {self._unit_name}, one unit per level of nesting.{spacing}"

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings: list[Finding] = []
        for module in ctx.js_modules():
            code = CodeText(module)
            lines = code_lines(module, code)
            problems = self._kinds(lines)
            problems.update(self._depths(module, lines, problems))
            if "spacing" in self.options:
                problems.update(self._spacing(module, code))
            findings += [
                ctx.finding(text, path=module.relpath, line=line)
                for line, text in sorted(problems.items())
            ]
        return findings

    def _kinds(self, lines: dict[int, CodeLine]) -> dict[int, str]:
        """Lines whose leading whitespace is of the wrong kind."""
        found = {}
        for line in lines.values():
            if self._tabs and " " in line.indent:
                found[line.number] = f"l.{line.number} is indented with spaces: tabs asked"
            elif not self._tabs and "\t" in line.indent:
                found[line.number] = (
                    f"l.{line.number} is indented with a tab: {self._unit_name} asked"
                )
        return found

    def _depths(
        self, module: JsModule, lines: dict[int, CodeLine], wrong: Mapping[int, str]
    ) -> dict[int, str]:
        """Lines that stand at another depth than their brackets give them."""
        unit = 1 if self._tabs else int(self.options["indent"])
        what = "tabs" if self._tabs else "spaces"
        found: dict[int, str] = {}
        for rule in depth_rules(module, lines):
            if rule.line in wrong or rule.anchor in wrong or rule.anchor not in lines:
                continue  # whitespace of the wrong kind is its own finding
            width = len(lines[rule.line].indent)
            bases = [len(lines[rule.anchor].indent)]
            if rule.also in lines and rule.also not in wrong:
                bases.append(len(lines[rule.also].indent))
            expected = [base + level * unit for base in bases for level in rule.levels]
            if width not in expected:
                found.setdefault(rule.line, _depth_message(rule, width, expected[0], what))
        return found

    def _spacing(self, module: JsModule, code: CodeText) -> dict[int, str]:
        """Lines whose operators or commas are spaced otherwise than asked, one finding
        a line naming each token once."""
        spaced = self.options["spacing"] == "spaced"
        wrong: dict[int, dict[str, None]] = defaultdict(dict)
        for spacing in sorted(spacings(module, code), key=lambda s: s.index):
            if any(s is not None and s != spaced for s in (spacing.before, spacing.after)):
                where = "after" if spacing.symbol == "," else "around"
                wrong[spacing.line][f"{where} `{spacing.symbol}`"] = None
        found = {}
        for line, tokens in wrong.items():
            listed = ", ".join(tokens)
            if spaced:
                found[line] = f"l.{line}: no space {listed}: `spacing: spaced` asks for one"
            else:
                found[line] = f"l.{line}: a space {listed}: `spacing: unspaced` asks for none"
        return found


def _depth_message(rule: DepthRule, width: int, expected: int, what: str) -> str:
    unit = what[:-1] if width == 1 else what  # "1 space", "1 tab"
    where = "one level inside" if rule.levels[0] else "level with the line of"
    return (
        f"l.{rule.line} is indented {width} {unit}, {expected} expected "
        f"({where} {rule.inside} on l.{rule.anchor})"
    )

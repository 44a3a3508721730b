"""Suppression comments in JavaScript and TypeScript under evaluation: found, reported,
and (by default) blanked out of the copy the tools read, as `suppressions.py` does for
Python's `# noqa` and `# type: ignore`.

Biome honours `// biome-ignore` (and `biome-ignore-all`, `-start`, `-end`, in line or
block comments); TypeScript honours `// @ts-ignore`, `// @ts-expect-error` and
`// @ts-nocheck`. ESLint's `eslint-disable` comments switch nothing off in either tool,
but a model that writes one is asking for a rule to be skipped: they are found and
reported with Biome's. Only real comments count (ast-grep's tree-sitter comment nodes),
never the same words in a string, a template or a regular expression.

Blanking keeps every line and column where it was: each character of the comment
becomes a space, except line terminators (JavaScript's, `\\r` and U+2028 included), so
the tools' positions need no mapping back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pytest_codeif.code.suppressions import Suppression
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

_PATTERNS: Final = {
    "biome-ignore": re.compile(r"\bbiome-ignore(?:-all|-start|-end)?\b"),
    "ts-ignore": re.compile(r"@ts-(?:ignore|expect-error|nocheck)\b"),
    "eslint-disable": re.compile(r"\beslint-disable(?:-next-line|-line)?\b"),
}
#: Any text one of the patterns could match: a cheap first look, before any parse.
_MAYBE: Final = re.compile("|".join(p.pattern for p in _PATTERNS.values()))
#: The kinds blanked in Biome's copy of the code, and those reported for it.
BIOME_KINDS: Final = frozenset({"biome-ignore"})
BIOME_NOTED: Final = frozenset({"biome-ignore", "eslint-disable"})
#: The kinds blanked in the TypeScript compiler's copy of the code.
TSC_KINDS: Final = frozenset({"ts-ignore"})
#: Line terminators of JavaScript: never blanked, so lines stay where they were.
_TERMINATORS: Final = frozenset("\n\r\u2028\u2029")
#: Longest part of a comment quoted in a report.
_SHOWN: Final = 120


@dataclass(frozen=True)
class JsSuppression(Suppression):
    """A suppression comment of a JS/TS file: `text` is its first line as shown in a
    report (at most 120 characters), `start` and `end` its extent in the file's text."""

    start: int = 0
    end: int = 0


def find_js_suppressions(source: SourceFile) -> list[JsSuppression]:
    """Every suppression comment of `source`, a JavaScript or TypeScript file; none for
    a file that does not parse (its verdict is a syntax error before any tool runs)."""
    if not _MAYBE.search(source.text):
        return []  # parsing costs; most files hold no such comment
    from pytest_codeif.code.js_tree import JsModule  # noqa: PLC0415 - ast-grep loads late

    try:
        module = JsModule(source)
    except Undecidable:
        return []
    found: list[JsSuppression] = []
    for node in module.nodes("comment"):
        span = node.range()
        start, end = span.start.index, span.end.index
        text = source.text[start:end]
        for kind, pattern in _PATTERNS.items():
            if pattern.search(text):
                shown = text.splitlines()[0] if text else text
                shown = shown if len(shown) <= _SHOWN else shown[: _SHOWN - 3] + "..."
                line = span.start.line + 1
                found.append(JsSuppression(kind, line, span.start.column, shown, start, end))
                break
    return found


def neutralise_js(source: str, suppressions: list[JsSuppression], kinds: frozenset[str]) -> str:
    """`source` with the comments of `kinds` blanked: spaces for every character but the
    line terminators, so every position stays where it was."""
    chars = list(source)
    for item in suppressions:
        if item.kind not in kinds:
            continue
        for index in range(item.start, min(item.end, len(chars))):
            if chars[index] not in _TERMINATORS:
                chars[index] = " "
    return "".join(chars)

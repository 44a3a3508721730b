"""Inline suppressions in code under evaluation: found, reported, and (by default)
neutralised so they cannot switch a check off.

`# noqa` and `# ruff: noqa` are disregarded by running ruff with `--ignore-noqa`; for
mypy, `# type: ignore...` and `# mypy: ...` comments are blanked out in the copy mypy
reads (same length, so every line and column stays where it was).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Final

_PATTERNS: Final = {
    "noqa": re.compile(r"#\s*(ruff\s*:\s*)?noqa\b", re.I),
    "type-ignore": re.compile(r"#\s*type\s*:\s*ignore\b", re.I),
    "mypy": re.compile(r"#\s*mypy\s*:", re.I),
    "fmt": re.compile(r"#\s*fmt\s*:\s*(off|skip)\b", re.I),
    "pragma": re.compile(r"#\s*pragma\s*:", re.I),
    "pylint": re.compile(r"#\s*pylint\s*:\s*disable", re.I),
    "pyright": re.compile(r"#\s*pyright\s*:\s*(ignore|basic|strict)", re.I),
}
#: Any text one of the patterns could match (in a comment or not): a cheap first look.
_MAYBE: Final = re.compile("|".join(p.pattern for p in _PATTERNS.values()), re.I)
#: The kinds blanked in mypy's copy of the code.
MYPY_KINDS: Final = frozenset({"type-ignore", "mypy"})


@dataclass(frozen=True)
class Suppression:
    """A suppression comment: where it is and what it says."""

    kind: str
    line: int
    column: int  # 0-based, start of the comment
    text: str


def find_suppressions(source: str) -> list[Suppression]:
    """Every suppression comment in `source` (comments only, never string contents)."""
    found: list[Suppression] = []
    if not _MAYBE.search(source):
        return found  # tokenizing costs ~1 ms per file; most files have no such comment
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            for kind, pattern in _PATTERNS.items():
                if pattern.search(token.string):
                    found.append(Suppression(kind, token.start[0], token.start[1], token.string))
                    break
    except (tokenize.TokenError, SyntaxError):
        pass  # unparsable code gets a syntax verdict before any tool sees it
    return found


def neutralise(source: str, suppressions: list[Suppression], kinds: frozenset[str]) -> str:
    """`source` with the comments of `kinds` replaced by spaces of the same length."""
    # Lines as tokenize counted them (at "\n" only): `str.splitlines` also splits at
    # "\x1c", "\f", U+2028..., and a comment holding one would blank the wrong line,
    # leaving the suppression comment it should neutralise in force.
    lines = io.StringIO(source).readlines()
    for item in suppressions:
        if item.kind not in kinds:
            continue
        line = lines[item.line - 1]
        end = item.column + len(item.text)
        lines[item.line - 1] = line[: item.column] + " " * len(item.text) + line[end:]
    return "".join(lines)

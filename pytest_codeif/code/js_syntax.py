"""Whether JavaScript or TypeScript text parses, and how far it goes, without the code
layer's files: shared by `js_tree.py` (a project's modules) and `extract.py` (a response
with no fence around its code). The bounds keep hostile text from costing ast-grep's
position lookups time that grows with nesting and line length (see `js_tree.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Brackets open at once, at most (real code: under 20; tree-sitter itself copes with
#: 100,000, but every walk and match pays for depth).
MAX_NESTING: Final = 256
#: Characters on one line, at most (see the module docstring).
MAX_LINE: Final = 20_000
_BRACKETS: Final = re.compile(r"[\[\](){}]")
_OPENERS: Final = frozenset("([{")


@dataclass(frozen=True)
class JsBounds:
    """How far the text of one file goes: brackets open at once, longest line."""

    nesting: int
    longest_line: int

    @staticmethod
    def of(text: str) -> JsBounds:
        depth = deepest = 0
        for found in _BRACKETS.finditer(text):
            if found.group() in _OPENERS:
                depth += 1
                deepest = max(deepest, depth)
            elif depth:
                depth -= 1
        longest = max(map(len, text.split("\n")), default=0)
        return JsBounds(deepest, longest)


def first_error(root: SgNode) -> tuple[int, str] | None:
    """(line, what) of the first ERROR or MISSING node of the tree; None when it has none."""
    found: list[tuple[int, int, str]] = []
    for node in root.find_all(kind="ERROR"):
        start = node.range().start
        found.append((start.line, start.column, "invalid syntax"))
    for node in root.find_all(regex="^$"):
        if node.children() or node.kind() == "program":
            continue  # an empty statement block, the empty program: not inserted tokens
        start = node.range().start
        found.append((start.line, start.column, f"missing `{node.kind()}`"))
    if not found:
        return None
    line, _, what = min(found)
    return line + 1, what

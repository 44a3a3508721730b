"""Find the Python code in a raw model response (markdown with fenced blocks).

Rules, in order: blocks tagged as Python (python, py, python3, py3) are taken; if there
are none, untagged blocks are taken; blocks tagged with another language (bash, json,
text...) never are. Several blocks are joined in order, a blank line apart. A fence left
open runs to the end of the response. No block at all means no code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_PYTHON_TAGS: Final = frozenset({"python", "py", "python3", "py3", "ipython", "pycon3"})
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")


@dataclass(frozen=True)
class CodeBlock:
    """A fenced block: its language tag (lower case, '' if none), text and first line."""

    tag: str
    text: str
    first_line: int  # 1-based line of the response where the block's content starts
    closed: bool


@dataclass(frozen=True)
class ExtractedCode:
    """The code to evaluate and, for each of its lines, the response line it came from."""

    text: str
    line_origin: tuple[int, ...]
    blocks_used: int
    blocks_found: int


def find_blocks(response: str) -> list[CodeBlock]:
    """Every fenced block of `response`, in order."""
    lines = response.splitlines()
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, indent = opened["fence"], len(opened["indent"])
        tag = opened["info"].strip().split(" ")[0].lower() if opened["info"].strip() else ""
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = [_dedent(line, indent) for line in lines[i + 1 : j]]
        blocks.append(CodeBlock(tag, "\n".join(body), i + 2, j < len(lines)))
        i = j + 1
    return blocks


def extract_python(response: str) -> ExtractedCode | None:
    """The Python code of `response`, or None when it holds no usable block."""
    blocks = find_blocks(response)
    chosen = [b for b in blocks if b.tag in _PYTHON_TAGS] or [b for b in blocks if not b.tag]
    chosen = [b for b in chosen if b.text.strip()]
    if not chosen:
        return None
    text_parts: list[str] = []
    origin: list[int] = []
    for block in chosen:
        if text_parts:
            text_parts.append("")
            origin.append(block.first_line - 1)
        block_lines = block.text.split("\n")
        text_parts.extend(block_lines)
        origin.extend(range(block.first_line, block.first_line + len(block_lines)))
    return ExtractedCode("\n".join(text_parts) + "\n", tuple(origin), len(chosen), len(blocks))


def _dedent(line: str, indent: int) -> str:
    """Remove up to `indent` leading whitespace characters (the fence's own indent)."""
    strip = 0
    while strip < indent and strip < len(line) and line[strip] in " \t":
        strip += 1
    return line[strip:]

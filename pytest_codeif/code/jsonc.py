"""JSON with comments (JSONC), as TypeScript reads `tsconfig.json` and `jsconfig.json`.

JSONC is JSON plus `//` and `/* */` comments and trailing commas before `}` or `]`
(what TypeScript's own config parser and VS Code's jsonc-parser accept). Rather than a
parser of its own or a new dependency (the JSON5 packages accept far more than JSONC
and parse in pure Python), `loads` blanks the comments and the trailing commas with one
pass of a tokenizer that knows JSON strings (a `//` or a `,` inside a string is text),
keeping every line where it was, and hands the rest to `json.loads`: the parse itself
is the standard library's, exact and fast.

Config files are hostile data: a file that is not JSONC, or nested past the recursion
limit, is a `JsoncError` with its line, never an exception of another kind.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

_BLANKS: Final = frozenset(" \t\r\n")
#: One piece: a string (closed or not: a newline ends it, as JSON allows none inside),
#: a comment (a block comment runs to its `*/` or to the end), a comma, a bracket,
#: blanks, or any other run of characters.
_TOKEN: Final = re.compile(
    r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*(?:.*?\*/|.*)|,|[}\]]|[ \t\r\n]+|[^"/,}\] \t\r\n]+|/',
    re.DOTALL,
)


class JsoncError(ValueError):
    """Text that is not JSONC: the message says where (`line 3: ...`)."""


def loads(text: str) -> Any:
    """The value the JSONC `text` holds (a leading byte-order mark is dropped)."""
    plain = strip(text.removeprefix("\ufeff"))
    try:
        return json.loads(plain)
    except json.JSONDecodeError as exc:
        raise JsoncError(f"line {exc.lineno}: {exc.msg}") from None
    except RecursionError:
        raise JsoncError("nested too deeply to read") from None


def strip(text: str) -> str:
    """`text` with its comments and trailing commas blanked out (each replaced by
    spaces, newlines kept), so that what is left is JSON when `text` is JSONC. An
    unterminated block comment or string is left for `json.loads` to refuse."""
    out: list[str] = []
    #: Position in `out` of a comma that a `}` or `]` may yet make a trailing one.
    pending_comma: int | None = None
    last = ""  # the last piece that is neither blank nor a comment
    for found in _TOKEN.finditer(text):
        piece = found.group()
        first = piece[0]
        if piece.startswith(("//", "/*")) and _closed_comment(piece):
            out.append("".join(c if c == "\n" else " " for c in piece))
            continue
        if first in _BLANKS:
            out.append(piece)
            continue
        if first in "}]" and pending_comma is not None:
            out[pending_comma] = " "
        # A comma right after `{`, `[` or another comma is an error, never a trailing one.
        trailing = piece == "," and last not in ("{", "[", ",", "")
        pending_comma = len(out) if trailing else None
        last = piece[-1]
        out.append(piece)
    return "".join(out)


def _closed_comment(piece: str) -> bool:
    """A line comment, or a block comment with its `*/` (an unterminated one is kept
    for `json.loads` to refuse)."""
    return piece.startswith("//") or (len(piece) >= 4 and piece.endswith("*/"))

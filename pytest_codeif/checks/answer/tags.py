"""Where a response gives its answers: PACIFIC's `[ANSWER][i] literal [\\ANSWER]` tags,
read strictly (the format as the prompt asks for it) and loosely (what a reader would
accept: `[/ANSWER]`, spaces and case in the tags, a missing closing tag, the last of
duplicates), as IFEval reports strict and loose accuracy side by side.

The text is hostile and may be large: tags are found by fixed patterns without nested
repetition, each once (`finditer`), and an opening tag is paired with what follows it by
position, so reading takes time linear in the text.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

# A step number has at most 6 digits: a longer one is not a step (nor an int to convert);
# strictly it is written as the prompt writes it (`[ANSWER][3]`, never `[ANSWER][03]`).
# Case is ignored in ASCII only: the long s (U+017F) folds to `s` in Unicode, and a tag
# spelt with it is no tag.

_STRICT_OPEN: Final = re.compile(r"\[ANSWER\]\[([1-9][0-9]{0,5})\]")
_STRICT_CLOSE: Final = re.compile(r"\[\\ANSWER\]")
_LOOSE_OPEN: Final = re.compile(
    r"\[[ \t]*ANSWER[ \t]*\][ \t]*\[[ \t]*([0-9]{1,6})[ \t]*\]", re.IGNORECASE | re.ASCII
)
_LOOSE_CLOSE: Final = re.compile(r"\[[ \t]*[\\/][ \t]*ANSWER[ \t]*\]", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True)
class Tagged:
    """One answer as the response gives it: its step, the text between its tags
    (whitespace trimmed) or None when the tag is never closed, and its offset."""

    step: int
    text: str | None
    offset: int


def strict_answers(response: str) -> dict[int, list[Tagged]]:
    """Every strictly tagged answer, by step, in order: exactly `[ANSWER][i]`, the
    literal, exactly `[\\ANSWER]`. An answer whose opening tag is followed by another
    opening tag (or the end) before any closing tag is unterminated (`text` None)."""
    return _answers(response, _STRICT_OPEN, _STRICT_CLOSE, loose=False)


def loose_answers(response: str) -> dict[int, list[Tagged]]:
    """Every loosely tagged answer, by step, in order; an unterminated one runs to the
    end of its line (or to the next opening tag on it)."""
    return _answers(response, _LOOSE_OPEN, _LOOSE_CLOSE, loose=True)


def _answers(
    response: str, opening: re.Pattern[str], closing: re.Pattern[str], *, loose: bool
) -> dict[int, list[Tagged]]:
    opens = [(m.start(), m.end(), int(m.group(1))) for m in opening.finditer(response)]
    closes = [m.start() for m in closing.finditer(response)]
    found: dict[int, list[Tagged]] = {}
    starts = [start for start, _, _ in opens]
    for index, (start, end, step) in enumerate(opens):
        following_open = starts[index + 1] if index + 1 < len(opens) else len(response)
        at = bisect.bisect_left(closes, end)
        close = closes[at] if at < len(closes) else None
        text: str | None
        if close is not None and close <= following_open:
            text = response[end:close].strip()
        elif loose:
            newline = response.find("\n", end, following_open)
            stop = following_open if newline == -1 else newline
            text = response[end:stop].strip()
        else:
            text = None
        found.setdefault(step, []).append(Tagged(step, text, start))
    return found

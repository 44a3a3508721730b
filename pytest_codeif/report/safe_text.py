"""Text from code under evaluation, made data wherever it is shown.

An exception message, an exception class's name or a returned value's type is written
by the code being judged, and the code is hostile. Raw, such text rewrites the terminal
(ESC/CSI sequences, `\\r`, OSC 8 links, bidi overrides that reorder what a reader sees)
and forges GitHub workflow commands: the runner takes any log line that starts with `::`
after leading blanks (`::error file=...::`, `::add-mask::`, `::stop-commands::`) or holds
`##[` (its older syntax) as a command, and Azure Pipelines any line holding `##vso[`.
And it can be millions of characters long.

`safe_text` is the one function every renderer passes such text through (the terminal
failure text and summary, junitxml, SARIF, annotations, Markdown feedback, HTML):

- every character Python would not print (`str.isprintable`: C0 and C1 controls, DEL,
  bidi and other format characters, line and paragraph separators, unusual spaces),
  except newline and tab, is shown as its escape, as `repr` shows it (`\\x1b`, `\\u202e`);
- a line that would start with `::` gets a backslash before it (`\\::error ...`),
  `##[` becomes `##\\[` and `##vso[` becomes `##\\vso[`, so no line of it is a workflow
  or logging command;
- past `limit` characters it is cut, and a note says how much was left out.

Its result is at most `limit` characters, and passing it through again changes nothing.
`capped` only cuts, for outputs that are data (the JSON report keeps text exact).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

#: Longest message (a finding, an undecidable verdict's error) a record keeps and a
#: renderer shows; checks' and the functional harness's own messages are far shorter.
MAX_MESSAGE: Final = 10_000
#: Longest failure text of one item in the terminal and junitxml (every finding of it).
MAX_FAILURE: Final = 100_000
#: Room kept for the note when text is cut (the note is at most 52 characters).
_NOTE_ROOM: Final = 60

# What needs care: the blanks before a line's `::`, the place between `##` and `[` or
# `vso[`, and
# any character outside printable ASCII (most are printable and stay as they are).
_CARE: Final = re.compile(
    r"(?P<command>^[ \t]*(?=::))|(?P<legacy>(?<=##)(?=\[|vso\[))|(?P<char>[^\n\t\x20-\x7e])",
    re.MULTILINE,
)


def _note(left_out: int) -> str:
    return f" … {left_out:,} more characters not shown"


def capped(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` exact when it has at most `limit` characters, else its start and a note
    saying how many characters were left out (at most `limit` characters in all)."""
    if len(text) <= limit:
        return text
    kept = max(limit - _NOTE_ROOM, 0)
    return text[:kept] + _note(len(text) - kept)


def _replacement(match: re.Match[str]) -> str:
    found = match.group()
    if match.lastgroup != "char":  # before `::` or `[`: blanks kept, then a backslash
        return found + "\\"
    return found if found.isprintable() else repr(found)[1:-1]


def _pieces(text: str) -> Iterator[tuple[str, int, bool]]:
    """(shown text, characters of `text` it stands for, whether it may be split)."""
    last = 0
    for match in _CARE.finditer(text):
        if match.start() > last:
            yield text[last : match.start()], match.start() - last, True
        yield _replacement(match), match.end() - match.start(), False
        last = match.end()
    if last < len(text):
        yield text[last:], len(text) - last, True


def _render(text: str, budget: int) -> tuple[str, int]:
    """What `text` shows as, cut at `budget` characters; and how many characters of
    `text` that covers."""
    out: list[str] = []
    size = used = 0
    for shown, stands_for, splits in _pieces(text):
        room = budget - size
        if len(shown) > room:
            if splits and room > 0:  # plain text: one shown character per character
                out.append(shown[:room])
                used += room
            break
        out.append(shown)
        size += len(shown)
        used += stands_for
    return "".join(out), used


def safe_text(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` (from code under evaluation) as data to show: control and format
    characters as escapes, no line a workflow command, at most `limit` characters with
    a note of how many more there were. See the module's docstring."""
    text = str(text)
    head = text[:limit]  # each character shows as one or more: no more can fit
    shown, used = _render(head, limit)
    if used == len(text):
        return shown
    shown, used = _render(head, max(limit - _NOTE_ROOM, 0))
    return shown + _note(len(text) - used)

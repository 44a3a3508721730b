"""Words for messages, written the same way by every layer that writes them."""

from __future__ import annotations


def counted(count: object, noun: str) -> str:
    """`count` and `noun`, plural unless the count is one: "1 finding", "3 findings"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _high_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udbff"


def _low_surrogate(char: str) -> bool:
    return "\udc00" <= char <= "\udfff"


def _splits_pair(text: str, at: int) -> bool:
    """Cutting `text` before index `at` would part a surrogate pair (text built from
    UTF-16 halves, e.g. decoded with `surrogatepass`, holds them as two characters)."""
    return 0 < at < len(text) and _high_surrogate(text[at - 1]) and _low_surrogate(text[at])


def head_tail(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters; else its first and its last
    characters, about `limit` in all, around a line saying how many were cut:
    `head + "\\n[... N characters cut ...]\\n" + tail`.

    Why both ends: a long failure output (a server's traceback, a program's stderr)
    starts with what was run and ends with what went wrong; the tail alone hides the
    first, the head alone the second. The head gets the odd character; a cut never
    parts a surrogate pair (the kept text may then be a character shorter). The same
    text and limit always give the same result. The marker is not counted in `limit`.
    """
    limit = max(limit, 0)
    if len(text) <= limit:
        return text
    head = limit - limit // 2
    start = len(text) - limit // 2
    if _splits_pair(text, head):
        head -= 1
    if _splits_pair(text, start):
        start += 1
    return f"{text[:head]}\n[... {counted(start - head, 'character')} cut ...]\n{text[start:]}"

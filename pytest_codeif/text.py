"""Words for messages, written the same way by every layer that writes them."""

from __future__ import annotations


def counted(count: object, noun: str) -> str:
    """`count` and `noun`, plural unless the count is one: "1 finding", "3 findings"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"

"""Notes naming the files of a project that the size bounds left out (see
`code/unit.py`): a check reading a project's other files says that the project it judged
is smaller than the one on disk, rather than resting on it in silence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pytest_codeif.code.unit import LeftOut

#: Files left out by the size bounds named in a verdict's notes, at most.
_NOTED: Final = 5


def left_out_notes(left_out: Sequence[LeftOut]) -> list[str]:
    """Notes naming the files the size bounds left out of the project (the first few),
    so a verdict never rests on a project silently smaller than the one on disk."""
    notes = [
        f"`{item.relpath}` was left out of the project (neither judged nor copied into "
        f"the sandbox): {item.reason}"
        for item in left_out[:_NOTED]
    ]
    if len(left_out) > _NOTED:
        notes.append(f"... and {len(left_out) - _NOTED} more files left out by the size bounds")
    return notes

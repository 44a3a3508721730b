"""How a generated task's prompt reads: the base problem's prompt, then the drawn
constraints' wordings as a numbered list, in level order (IFEval appends its
instructions' descriptions to the prompt the same way)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

#: The sentence that introduces the constraints.
LEAD: Final = "Your solution must also follow these instructions:"


def task_prompt(base: str, wordings: Sequence[str]) -> str:
    """`base`, then each of `wordings` numbered; `base` alone when there are none."""
    if not wordings:
        return base.rstrip() + "\n"
    listed = "\n".join(f"{number}. {text}" for number, text in enumerate(wordings, 1))
    return f"{base.rstrip()}\n\n{LEAD}\n{listed}\n"

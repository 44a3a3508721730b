"""Why a task file named on the command line was not collected.

pytest reports a path it collected nothing from as "not found: PATH" (a usage error),
which says nothing of `--codeif` or of the `codeif_patterns` ini option. This module adds
the reason. It is imported only when that error happens, and imports nothing heavy.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Final

#: How pytest words a command-line path it collected nothing from.
_PREFIXES: Final = ("not found: ", "found no collectors for ")
_YAML: Final = (".yaml", ".yml")


def explain_not_found(
    messages: Sequence[str], *, enabled: bool, patterns: Sequence[str]
) -> list[str]:
    """`messages` (a pytest usage error's), each "not found" about a task file followed
    by why it was not collected; other messages as they are."""
    explained: list[str] = []
    for message in messages:
        reason = _reason(message, enabled=enabled, patterns=patterns)
        first_line = message.partition("\n")[0]
        explained.append(message if reason is None else f"{first_line}\n{reason}")
    return explained


def _reason(message: str, *, enabled: bool, patterns: Sequence[str]) -> str | None:
    prefix = next((p for p in _PREFIXES if message.startswith(p)), None)
    if prefix is None:
        return None
    argument = message[len(prefix) :].split("\n", 1)[0]
    path_text, _, names = argument.partition("::")
    path = Path(path_text)
    if not path.is_file():
        return None
    matches = any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns)
    if matches and not enabled:
        return f"{path.name} is a pytest-codeif task file: add --codeif to collect it"
    if enabled and not matches and path.suffix in _YAML and not names:
        shown = ", ".join(patterns) or "none"
        return (
            f"{path.name} does not match codeif_patterns ({shown}): rename it to match, "
            "or add a pattern to the codeif_patterns ini option"
        )
    return None

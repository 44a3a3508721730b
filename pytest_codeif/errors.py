"""Error types that carry a location, so every message can say where the problem is."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def format_key_path(key_path: tuple[str | int, ...]) -> str:
    """Render `("tasks", 0, "constraints", 2, "check")` as `tasks[0].constraints[2].check`."""
    if len(key_path) > 8:  # a runaway nesting: the start and the end say enough
        head, tail = format_key_path(key_path[:4]), format_key_path(key_path[-2:])
        return f"{head}...{tail if tail.startswith('[') else '.' + tail} ({len(key_path)} levels)"
    out = ""
    for part in key_path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(top level)"


@dataclass(frozen=True)
class Location:
    """A place in a task file: path, 1-based line and the key path of the node."""

    path: Path
    line: int
    key_path: tuple[str | int, ...]

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {format_key_path(self.key_path)}"


class TaskFileError(Exception):
    """A task file (or one task in it) is invalid; carries where and what was expected."""

    def __init__(self, location: Location, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.message = message

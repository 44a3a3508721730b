"""The records a MultiCodeIF mapper reads and writes, shared by the Python mapping
(`multicodeif`) and the JavaScript/TypeScript one (`multicodeif_js`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Unmapped(Exception):
    """The record's constraint has no deterministic check here; the text says why."""


@dataclass
class Mapped:
    """The constraints a record maps to, and what of it was left out (and why)."""

    constraints: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TaskRecord:
    """What a mapper reads of a task record."""

    kind: str
    answer: str
    parts: list[str]
    prompt: str
    has_tests: bool
    entry: str | None
    #: Why `entry` is what it is (or why there is none), for the unmapped reason.
    entry_why: str = ""

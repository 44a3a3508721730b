"""Which files of the code a constraint is about: its scope keys, applied by the engine.

Every constraint accepts `files` / `exclude-files` (gitignore-style glob patterns,
relative to the code's root) and `modules` / `exclude-modules` (dotted module names; a
name covers its submodules; `*` stands for one name segment, `**` for any number). A file
is in scope when it matches `files` or `modules` (either, when both are given; anything,
when neither is) and matches no `exclude-files` nor `exclude-modules` pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from pathspec import GitIgnoreSpec

#: The constraint keys this module reads, in the order they are documented.
SCOPE_KEYS: Final = ("files", "exclude-files", "modules", "exclude-modules")


class ScopePatternError(ValueError):
    """A scope pattern that cannot be used; the message names it."""


def module_pattern_error(pattern: str) -> str | None:
    """Why `pattern` is not a module pattern (None when it is one)."""
    parts = pattern.split(".")
    for part in parts:
        if part in ("*", "**"):
            continue
        if not part or not part.replace("_", "a").isalnum() or part[0].isdigit():
            return (
                f"module pattern {pattern!r} is not a dotted module name (segments are "
                "names, `*` for one segment, `**` for any number)"
            )
    return None


def module_matches(pattern: str, module: str) -> bool:
    """`module` is `pattern` or inside it, `*` matching one segment and `**` any number.

    Module names come from the code under evaluation, so this is one pass over a table
    (pattern segments x name segments), never a backtracking search."""
    want, have = pattern.split("."), module.split(".")
    # reach[j]: the pattern's first i segments can match the name's first j segments.
    reach = [True] + [False] * len(have)
    for segment in want:
        if segment == "**":
            for j in range(1, len(have) + 1):
                reach[j] = reach[j] or reach[j - 1]
        else:
            for j in range(len(have), 0, -1):
                reach[j] = reach[j - 1] and segment in ("*", have[j - 1])
            reach[0] = False
    return any(reach)  # a prefix of the name will do: submodules are covered


@dataclass(frozen=True)
class Scope:
    """The scope keys of one constraint; empty tuples mean "not given"."""

    files: tuple[str, ...] = ()
    exclude_files: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    exclude_modules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for pattern in (*self.modules, *self.exclude_modules):
            problem = module_pattern_error(pattern)
            if problem is not None:
                raise ScopePatternError(problem)
        for patterns in (self.files, self.exclude_files):
            if not patterns:
                continue  # nothing to verify (and building a spec cost 14 us a constraint)
            try:
                GitIgnoreSpec.from_lines(patterns, backend="re2")
            except ValueError as exc:  # pathspec's own error types derive from it
                raise ScopePatternError(f"file pattern in {list(patterns)}: {exc}") from None

    @property
    def is_everything(self) -> bool:
        return not (self.files or self.exclude_files or self.modules or self.exclude_modules)

    @cached_property
    def _files(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.files, backend="re2")

    @cached_property
    def _excluded_files(self) -> GitIgnoreSpec:
        return GitIgnoreSpec.from_lines(self.exclude_files, backend="re2")

    def covers(self, relpath: str, module: str | None) -> bool:
        """True when the file at `relpath` (module `module`, None if it has no name) is in
        scope."""
        if self.is_everything:
            return True
        named = module is not None
        if self.files or self.modules:
            wanted = (self.files and self._files.match_file(relpath)) or (
                named and any(module_matches(p, module or "") for p in self.modules)
            )
            if not wanted:
                return False
        if self.exclude_files and self._excluded_files.match_file(relpath):
            return False
        return not (named and any(module_matches(p, module or "") for p in self.exclude_modules))

    def describe(self) -> str:
        """The scope as the task file wrote it, for messages."""
        given = zip(
            SCOPE_KEYS,
            (self.files, self.exclude_files, self.modules, self.exclude_modules),
            strict=True,
        )
        return "; ".join(f"{key}: {', '.join(values)}" for key, values in given if values)

    def as_key(self) -> list[list[str]]:
        """Plain data for cache keys."""
        return [
            list(self.files),
            list(self.exclude_files),
            list(self.modules),
            list(self.exclude_modules),
        ]


EVERYTHING: Final = Scope()


def scope_from(raw: dict[str, Sequence[str]]) -> Scope:
    """The scope a constraint's mapping states (its other keys are ignored)."""
    return Scope(
        tuple(raw.get("files", ())),
        tuple(raw.get("exclude-files", ())),
        tuple(raw.get("modules", ())),
        tuple(raw.get("exclude-modules", ())),
    )

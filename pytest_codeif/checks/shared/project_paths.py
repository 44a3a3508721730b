"""Paths of a project's files as a task names them (`required: [run.sh]`): globs rooted
at the project's root, matched by pathspec's gitignore rules on RE2.

A pattern is a path relative to the root: `*` and `?` match within one path segment,
`[abc]` one character, `**` any number of segments (`**/*.sqlite3` at any depth), and a
pattern naming a folder matches every file under it (`migrations`, `migrations/`). It is
anchored at the root (`run.sh` is the root's `run.sh`, not `scripts/run.sh`), unlike a
`.gitignore` line. A pattern that could never match a file of the listing is refused
when the task file is read: one inside a folder the project walk always skips (`.git/`,
`node_modules/`, `__pycache__/`, a virtualenv, any hidden folder), a negation, one with
`..`, or one git discards (an unclosed `[`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from pytest_codeif.code.walk import ALWAYS_SKIPPED


@dataclass(frozen=True)
class PathPattern:
    """One pattern as the task wrote it, compiled."""

    written: str
    spec: GitIgnoreSpec

    def matches(self, relpath: str) -> bool:
        """Whether the file at `relpath` (POSIX, relative to the root) matches."""
        return bool(self.spec.match_file(relpath))


def path_pattern(written: str) -> PathPattern:
    """`written` compiled; `ValueError` saying why it can never match a listed file."""
    problem = _problem(written)
    if problem is not None:
        raise ValueError(f"path {written!r} {problem}")
    anchored = "/" + written.removeprefix("/")
    if GitIgnoreSpecPattern(anchored).include is None:
        raise ValueError(f"path {written!r} matches nothing (an unclosed `[`?)")
    try:
        spec = GitIgnoreSpec.from_lines([anchored], backend="re2")
    except ValueError as exc:  # pathspec's own errors derive from it
        raise ValueError(f"path {written!r} is not a usable glob: {exc}") from None
    return PathPattern(written, spec)


def _problem(written: str) -> str | None:
    """Why `written` can never name a file of the project's listing, or None."""
    if not written.strip("/ "):
        return "names no file"
    if written.startswith("!"):
        return "is a negation: list the paths themselves"
    segments = written.strip("/").split("/")
    if ".." in segments or "." in segments:
        return "has `.` or `..` segments: write the path from the project's root"
    folders = segments if written.endswith("/") else segments[:-1]
    for segment in folders:
        why = _never_listed(segment)
        if why is not None:
            return f"is inside `{segment}/`, which {why}, so no file there is ever read"
    last = segments[-1]
    if not written.endswith("/") and last in ALWAYS_SKIPPED and not last.startswith("."):
        return f"names `{last}`, a folder the project walk always skips"
    return None


def _never_listed(folder: str) -> str | None:
    """Why a folder named `folder` is never entered by the project walk, or None."""
    if folder in ALWAYS_SKIPPED:
        return "the project walk always skips"
    if folder.startswith("."):
        return "is hidden (the project walk skips hidden folders)"
    if folder.endswith(".egg-info"):
        return "is build output (the project walk skips it)"
    return None

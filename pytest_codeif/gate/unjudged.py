"""Changed source files that a `directory:` task's walk leaves out of the judged code.

A project's walk (`code/walk.py`) lists its files as git would: it skips what a
`.gitignore` ignores, `build/` and `dist/` folders that are not packages, virtualenvs
(a folder holding `pyvenv.cfg` or `conda-meta/`, `venv/`), vendored and hidden folders,
links out of the project. Those rules are the head's: a pull request can add a
`.gitignore` line, a `pyvenv.cfg` beside its new module or put it under `build/`, and
its code is then never judged, although Python imports it all the same (`build/` is a
namespace package). Under the gate, each changed source file under a task's code folder
that the walk leaves out is a finding of its own (`unjudged-code`, see `pinned.py`),
saying which rule left it out: a person decides (un-ignore it, move it, or land the
ignore rule on its own). A file the task's own `exclude:` leaves out is the rules'
choice (read as the merge base holds them), and is not reported.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_codeif.code.languages import source_suffixes
from pytest_codeif.code.walk import InvalidPatternError, Skipped, scan_project
from pytest_codeif.gate.changes import ChangedCode


@dataclass(frozen=True)
class LeftOut:
    """A changed source file the walk leaves out, and why."""

    path: str  # relative to the repository's root, POSIX
    reason: str  # "build/ is skipped unless it holds an __init__.py"


def left_out(changes: ChangedCode, folder: Path, exclude: Sequence[str]) -> list[LeftOut]:
    """The changed source files under the code folder `folder` that its walk (with the
    task's `exclude` patterns) does not list, in path order; none when the folder
    cannot be walked (the task's own error says why)."""
    real = os.path.realpath(folder)
    toplevel = os.path.realpath(changes.toplevel)
    suffixes = source_suffixes()
    inside: dict[str, str] = {}  # path relative to the folder -> repository path
    for relative in changes.files:
        if not relative.endswith(suffixes):
            continue
        path = os.path.join(toplevel, relative)
        if path.startswith(real.rstrip(os.sep) + os.sep):
            inside[Path(os.path.relpath(path, real)).as_posix()] = relative
    if not inside:
        return []
    try:
        scan = scan_project(Path(real), exclude, suffixes)
    except (InvalidPatternError, OSError, TypeError):
        return []
    listed = set(scan.files)
    found: list[LeftOut] = []
    for here, relative in sorted(inside.items()):
        if here in listed:
            continue
        why = _why(here, scan.skipped)
        if why is not None and why.reason == "excluded":
            continue  # the rules' own choice
        reason = why.rule if why is not None else "the walk does not list it"
        found.append(LeftOut(relative, reason))
    return found


def _why(path: str, skipped: Sequence[Skipped]) -> Skipped | None:
    """The skipped entry that left `path` out: the file itself, or its nearest folder."""
    matches = [
        entry
        for entry in skipped
        if entry.path == path or (entry.path.endswith("/") and path.startswith(entry.path))
    ]
    return max(matches, key=lambda entry: len(entry.path), default=None)

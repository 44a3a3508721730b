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

The walk lists source files alone, yet Python imports more than source: compiled
modules (a `__pycache__/orders.cpython-311.pyc` with unchecked-hash invalidation is
imported instead of `orders.py`, a sourceless `orders.pyc` or `.pyo` beside it), extension
modules (`orders.cpython-311-x86_64-linux-gnu.so`, `.pyd`), and what Python runs when it
starts (`.pth` files, `sitecustomize`, `usercustomize`) or imports from an archive on its
path (`.egg`). None is ever judged, so each such changed file under a code folder is
reported, whatever `exclude:` says (`importable_unjudged`). So is each symbolic link the
change added or changed under a code folder, to a file or a folder, wherever it points:
the walk does not follow a folder link, nor a file link leaving the project, and a link
changes what an import finds without any judged line changing (`git mv src/shop/services
elsewhere/; ln -s ../../elsewhere/services src/shop/services`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from pytest_codeif.code.languages import source_suffixes
from pytest_codeif.code.walk import InvalidPatternError, Skipped, scan_project
from pytest_codeif.gate.changes import ChangedCode

#: Suffixes of files Python imports as code that no check reads: compiled modules,
#: extension modules, eggs (an archive of modules), `.pth` files (run at start-up).
IMPORTABLE_SUFFIXES: Final = (".pyc", ".pyo", ".so", ".pyd", ".egg", ".pth")
#: Module names Python imports by itself at start-up, whatever their suffix.
STARTUP_MODULES: Final = frozenset({"sitecustomize", "usercustomize"})
#: How much of a link's target a reason shows.
_MAX_TARGET: Final = 200


@dataclass(frozen=True)
class LeftOut:
    """A changed source file the walk leaves out, and why."""

    path: str  # relative to the repository's root, POSIX
    reason: str  # "build/ is skipped unless it holds an __init__.py"


def left_out(changes: ChangedCode, folder: Path, exclude: Sequence[str]) -> list[LeftOut]:
    """The changed files under the code folder `folder` that no check judges, in path
    order: source files its walk (with the task's `exclude` patterns) does not list
    (none when the folder cannot be walked: the task's own error says why), and every
    file `importable_unjudged` names."""
    real = os.path.realpath(folder)
    toplevel = os.path.realpath(changes.toplevel)
    suffixes = source_suffixes()
    inside: dict[str, str] = {}  # path relative to the folder -> repository path
    found: list[LeftOut] = []
    for relative in sorted(changes.files):
        path = os.path.join(toplevel, relative)
        if not path.startswith(real.rstrip(os.sep) + os.sep):
            continue
        why = importable_unjudged(path)
        if why is not None:
            found.append(LeftOut(relative, why))
        elif relative.endswith(suffixes):
            inside[Path(os.path.relpath(path, real)).as_posix()] = relative
    if not inside:
        return found
    try:
        scan = scan_project(Path(real), exclude, suffixes)
    except (InvalidPatternError, OSError, TypeError):
        return found
    listed = set(scan.files)
    for here, relative in sorted(inside.items()):
        if here in listed:
            continue
        skipped = _why(here, scan.skipped)
        if skipped is not None and skipped.reason == "excluded":
            continue  # the rules' own choice
        reason = skipped.rule if skipped is not None else "the walk does not list it"
        found.append(LeftOut(relative, reason))
    return sorted(found, key=lambda item: item.path)


def importable_unjudged(path: str) -> str | None:
    """Why the file at `path` (absolute) is code no check judges although Python can
    import or run it: a symbolic link, a compiled or extension module, a start-up file;
    None for anything else."""
    if os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        # The target is the change's text: quoted (no control characters), and short.
        shown = repr(target[:_MAX_TARGET]) + ("..." if len(target) > _MAX_TARGET else "")
        return (
            f"it is a symbolic link (to {shown}): a link changes what Python imports, "
            "and the walk does not follow it out of the project nor into a folder"
        )
    name = PurePosixPath(path).name
    if name.endswith(".pth"):
        return "it is a .pth file, which Python runs at start-up"
    if name.endswith(IMPORTABLE_SUFFIXES):
        return "it is a compiled module or archive Python imports, never read by a check"
    if name.split(".", 1)[0] in STARTUP_MODULES:
        return f"{name.split('.', 1)[0]} is imported by Python itself at start-up"
    return None


def _why(path: str, skipped: Sequence[Skipped]) -> Skipped | None:
    """The skipped entry that left `path` out: the file itself, or its nearest folder."""
    matches = [
        entry
        for entry in skipped
        if entry.path == path or (entry.path.endswith("/") and path.startswith(entry.path))
    ]
    return max(matches, key=lambda entry: len(entry.path), default=None)

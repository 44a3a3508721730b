"""Symbolic links the change added or changed on a path the gate's rules name.

A path the rules name (a task file or folder given to the gate, a task file read, a
task's `directory:`, `file:` or `response-file:`) means what the merge base means by it
only if every symbolic link met while resolving it is the merge base's own. A change
that turns `src` into a link to a folder of its choosing, or the rules' folder into a
link to a decoy (so that `directory: ../src` resolves next to the decoy), changes what
the gate reads and judges without editing a rule. Each such link is a protected change
(`protected-link`, see `pinned.py`): a person decides.

Paths are resolved here one component at a time, as the kernel does (a `..` after a
link goes up from the link's target, not from the link), and every link met is noted.
A link counts when git lists its path as changed since the merge base (added, its
target edited, a file or folder turned into a link); links the merge base already held,
unchanged, resolve as they did there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Final

from pytest_codeif.gate.changes import ChangedCode

#: How many links one resolution follows before it stops (the kernel's own limit).
MAX_LINKS: Final = 40


def links_on_route(path: str | os.PathLike[str]) -> list[str]:
    """The symbolic links met while resolving `path` (absolute, or relative to the
    current folder), as absolute paths of the links themselves, in the order met. Stops
    at a missing component or after `MAX_LINKS` links."""
    text = os.fspath(path)
    pending = list(reversed(PurePosixPath(os.path.join(os.getcwd(), text)).parts))
    current = "/"
    met: list[str] = []
    while pending:
        part = pending.pop()
        if part in ("/", "", "."):
            continue
        if part == "..":
            current = os.path.dirname(current) or "/"
            continue
        candidate = os.path.join(current, part)
        if not os.path.islink(candidate):
            if not os.path.lexists(candidate):
                break
            current = candidate
            continue
        met.append(candidate)
        if len(met) > MAX_LINKS:
            break
        try:
            target = os.readlink(candidate)
        except OSError:
            break
        if target.startswith("/"):
            current = "/"
        pending.extend(reversed(PurePosixPath(target).parts))
    return met


class ChangedLinks:
    """The links the change added or changed that the session's paths go through,
    noted as paths are checked (repository paths, POSIX), each once, in order."""

    def __init__(self, changes: ChangedCode, statuses: Mapping[str, str]) -> None:
        self.changes = changes
        self.statuses = statuses
        self.found: dict[str, str] = {}  # repository path -> git's status letter
        self._toplevel = os.path.realpath(changes.toplevel)

    def check(self, path: str | os.PathLike[str]) -> list[str]:
        """Note the changed links on `path`'s route; returns them."""
        changed: list[str] = []
        for link in links_on_route(path):
            relative = self._repo_path(link)
            if relative is None:
                continue
            status = self.statuses.get(relative)
            if status is None:
                continue
            changed.append(relative)
            self.found.setdefault(relative, status)
        return changed

    def any_link(self, path: str | os.PathLike[str]) -> bool:
        """Whether `path`'s route goes through any symbolic link at all."""
        return bool(links_on_route(path))

    def _repo_path(self, link: str) -> str | None:
        """The link's own path (its folder resolved, not the link) relative to the
        repository's root; None outside it."""
        folder = os.path.realpath(os.path.dirname(link))
        inside = os.path.relpath(os.path.join(folder, os.path.basename(link)), self._toplevel)
        if inside == ".." or inside.startswith("../") or os.path.isabs(inside):
            return None
        return Path(inside).as_posix()

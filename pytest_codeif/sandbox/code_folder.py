"""A run's code folder made from its files (relative POSIX path -> content), for runs
started as their own process: a fork server's runs get their files in memory instead
(see `inside_server.py`), and nothing is written to disk for them.

Which files are executable travels with the contents (`CodeFiles.executable`): a
project's `run.sh` stays runnable as `./run.sh` in the sandbox. Every file is made
readable by all (0o644, or 0o755 when executable), whatever its mode was on the host.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Final

#: The modes a run's files get: never writable by others, never setuid.
PLAIN_MODE: Final = 0o644
EXECUTABLE_MODE: Final = 0o755


class CodeFiles(dict[str, bytes]):
    """A code folder's files (relative POSIX path -> content) and the paths among them
    that are executable; a plain dict otherwise, so a run may add its own files."""

    def __init__(
        self, files: Mapping[str, bytes] | None = None, executable: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(files or {})
        self.executable: set[str] = set(executable)


def file_mode(files: Mapping[str, bytes], relpath: str) -> int:
    """The mode the file at `relpath` of `files` gets in a code folder."""
    executable = isinstance(files, CodeFiles) and relpath in files.executable
    return EXECUTABLE_MODE if executable else PLAIN_MODE


def write_folder(folder: Path, files: Mapping[str, bytes]) -> None:
    """Make `folder` afresh, holding exactly `files` (executable as `CodeFiles` says)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for relpath, data in files.items():
        target = folder / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(file_mode(files, relpath))

"""A run's code folder made from its files (relative POSIX path -> content), for runs
started as their own process: a fork server's runs get their files in memory instead
(see `inside_server.py`), and nothing is written to disk for them."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path


def write_folder(folder: Path, files: Mapping[str, bytes]) -> None:
    """Make `folder` afresh, holding exactly `files`."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for relpath, data in files.items():
        target = folder / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

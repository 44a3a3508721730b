"""Files the reports write (JSON, SARIF, feedback, the gate's baseline): each appears
whole or not at all, with the mode any file the user writes would get."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


def write_text_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` (see `atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(text)


@contextmanager
def atomic_writer(path: Path) -> Iterator[TextIO]:
    """A text handle whose content replaces `path` once the block ends without error, so
    that no reader (a CI step, a concurrent shard) ever sees half a file. The file keeps
    the mode it had, else gets 0666 less the umask, as `open(path, "w")` would give it:
    mkstemp's 0600 would hide a committed baseline or a CI artifact from other users."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:  # a new file
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask. Linux shows it in /proc; elsewhere reading it means setting
    it, so it is set back at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask

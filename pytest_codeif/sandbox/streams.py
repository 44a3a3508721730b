"""The descriptors of one sandboxed run: stdin, stdout, stderr and the result channel.

On Linux they are anonymous files in memory (memfd): nothing of a run touches the disk,
nothing has a path another run could find, and a suite's thousands of runs leave no files
to delete (on a disk that discards freed blocks, deleting 10,000 small files took 20 s
and more). RLIMIT_FSIZE caps what a run writes to them as it caps a file on disk.
Elsewhere they are files in the run's io folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

#: The output descriptors, in the order runs receive them after stdin.
OUTPUTS: Final = ("stdout", "stderr", "channel")


class RunFiles:
    """Open descriptors for one run; `close` them after reading."""

    def __init__(self, io_dir: Path, stdin: Path | bytes | None) -> None:
        self.io_dir = io_dir
        self.stdin: int | None = None
        self.outputs: dict[str, int] = {}
        try:
            if isinstance(stdin, Path):
                self.stdin = os.open(stdin, os.O_RDONLY | os.O_CLOEXEC)
            elif stdin is not None:
                self.stdin = self._anonymous("stdin")
                os.write(self.stdin, stdin)
                os.lseek(self.stdin, 0, os.SEEK_SET)
            for name in OUTPUTS:
                self.outputs[name] = self._anonymous(name)
        except BaseException:
            self.close()
            raise

    def _anonymous(self, name: str) -> int:
        try:
            return os.memfd_create(f"codeif-{name}", os.MFD_CLOEXEC)
        except (AttributeError, OSError):
            self.io_dir.mkdir(parents=True, exist_ok=True)
            flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
            return os.open(self.io_dir / name, flags, 0o600)

    def fds(self) -> list[int]:
        """stdin (when given), stdout, stderr, channel."""
        given = [] if self.stdin is None else [self.stdin]
        return [*given, *(self.outputs[name] for name in OUTPUTS)]

    def head(self, name: str, limit: int) -> str:
        """The first `limit` bytes written to output `name`, as text, marked when cut."""
        data = os.pread(self.outputs[name], limit + 1, 0)
        text = data[:limit].decode("utf-8", "replace")
        return text + ("\n[output cut]" if len(data) > limit else "")

    def close(self) -> None:
        for fd in [self.stdin, *self.outputs.values()]:
            if fd is not None:
                os.close(fd)
        self.stdin, self.outputs = None, {}

    def __enter__(self) -> RunFiles:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

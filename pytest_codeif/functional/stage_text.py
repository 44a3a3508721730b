"""How the stage (`stage_harness.py`) keeps what hostile programs print: bounded, as
text, the head and the tail of what was too long. Standard library only; loaded by file
path inside the sandbox.

Everything here treats its input as hostile: a count is what was read, never what a
program claimed; bytes become text with invalid UTF-8 replaced.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is not imported: the stage starts without it
if TYPE_CHECKING:
    from typing import Final

#: Bytes of a log's head and of its tail kept as evidence.
LOG_HEAD: Final = 4096
LOG_TAIL: Final = 4096


def text(data: bytes) -> str:
    """`data` as text, invalid UTF-8 replaced."""
    return data.decode("utf-8", "replace")


def cut(value: object, limit: int) -> str:
    """`value` as a string of at most `limit` characters (a hostile `__str__` is never
    called: only str values are kept as they are)."""
    return value[:limit] if isinstance(value, str) else ""


def joined(head: bytes, tail: bytes, total: int) -> str:
    """The head and the tail of something `total` bytes long, with how much was cut
    between them (`head...tail`), or all of it when nothing was."""
    cut_bytes = total - len(head) - len(tail)
    if cut_bytes <= 0:  # the tail starts where the head ends
        return text(head + tail)
    return f"{text(head)}\n[... {cut_bytes} bytes cut ...]\n{text(tail)}"


class Capture:
    """What a program wrote to one pipe: its first `head` bytes, its last `tail` bytes,
    and how many it wrote in all."""

    def __init__(self, head: int, tail: int = 0) -> None:
        self._head_limit = head
        self._tail_limit = tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self._tail_limit:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self._tail_limit)]

    @property
    def truncated(self) -> bool:
        """Whether anything was written beyond the head (kept or not)."""
        return self.total > len(self.head)

    def first(self) -> str:
        """The head as text."""
        return text(bytes(self.head))

    def both(self) -> str:
        """The head, the tail, and how much was cut between them."""
        return joined(bytes(self.head), bytes(self.tail), self.total)

    def data(self) -> bytes:
        """The head's bytes."""
        return bytes(self.head)


def read_log(path: str) -> str:
    """The head and the tail of the file at `path` (a log the stage opened itself),
    '' when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, LOG_HEAD, 0)
        start = max(len(head), size - LOG_TAIL)
        tail = os.pread(fd, size - start, start) if size > start else b""
        return joined(head, tail, max(size, len(head) + len(tail)))
    except OSError:
        return ""
    finally:
        os.close(fd)

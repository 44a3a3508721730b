"""The trusted half of a sandboxed harness: the only process of a run that holds the
result channel, and which never runs code under evaluation. Standard library only; loaded
by file path inside the sandbox (the package is not importable there).

A harness starts as one process, holding the channel (descriptor 3). `Supervisor.start`
forks the worker that imports and calls the code; the worker closes the channel before
anything of the code runs, and talks to the supervisor over two pipes, one JSON object a
line. The supervisor is not dumpable: a process of the same uid (the worker) can neither
open its descriptors through /proc nor trace it. So whatever the code does, the channel
holds only what the supervisor wrote: it asks for one thing at a time, accepts one reply
of bounded size per request and nothing unasked, and observes what it reports about time
and memory itself, from the kernel's accounting of the worker (`cpu_seconds`,
`peak_rss`). A reply that breaks these rules ends the run with a `protocol` record.

What crosses from the worker is still the code's answer (a value, the exception it
raised, an outcome it reports): data, judged by the host, never a claim that a case
passed, finished or took so long.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

#: What the channel is, in the harness's process (see `sandbox/inside.py`).
CHANNEL_FD = 3
#: The longest reply line the supervisor reads (a value of MAX_ITEMS items fits).
MAX_REPLY = 8 << 20
#: Exit status of a supervisor that stopped a worker for breaking the protocol.
PROTOCOL_EXIT = 124
#: Seconds a worker has to end once it was told there is nothing more to do.
WORKER_GRACE = 1.0


class ProtocolError(Exception):
    """The worker wrote something the supervisor did not ask for, or could not read."""


class Link:
    """The worker's side: requests in, replies out."""

    def __init__(self, requests: int, replies: int) -> None:
        self._requests = os.fdopen(requests, "rb")
        self._replies = replies

    def receive(self) -> Any:
        """The next request (None: the supervisor is gone)."""
        line = self._requests.readline()
        return json.loads(line) if line else None

    def descriptors(self) -> tuple[int, int]:
        """The pipes (requests in, replies out), for a worker that hands them to a
        program it executes (the Node worker, see `node_harness.py`)."""
        return self._requests.fileno(), self._replies

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._replies, view) :]


class Supervisor:
    """The harness's side: starts the worker, asks, reads, and writes the channel."""

    def __init__(self, channel_fd: int = CHANNEL_FD) -> None:
        self._channel = channel_fd
        self._buffer = b""
        self._eof = False
        self.worker = 0
        self._requests = self._replies = -1

    # -- the worker ------------------------------------------------------------------
    def start(self, work: Callable[[Link], None]) -> None:
        """Fork the worker and run `work` there; in the supervisor, return once the
        supervisor is shielded (not dumpable) and the worker may go on."""
        worker_reads, supervisor_writes = os.pipe()
        supervisor_reads, worker_writes = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(supervisor_writes)
            os.close(supervisor_reads)
            os.close(self._channel)  # before any code runs: the worker never holds it
            link = Link(worker_reads, worker_writes)
            if link.receive() != "go":  # the supervisor shielded itself first
                os._exit(1)
            _exit_after(lambda: work(link))
        os.close(worker_reads)
        os.close(worker_writes)
        self.worker, self._requests, self._replies = pid, supervisor_writes, supervisor_reads
        _not_dumpable()
        _deaf()
        self.ask("go")

    def ask(self, request: Any) -> None:
        """Send one request; refused (ProtocolError) while the worker has written
        anything not yet read: a reply never comes before its request."""
        if self._pending():
            raise ProtocolError("the code wrote to the harness's pipe before it was asked")
        data = (json.dumps(request) + "\n").encode()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._requests, view) :]
        except BrokenPipeError:
            self._eof = True  # the worker is gone: the next `reply` says so

    def reply(self) -> dict[str, Any] | None:
        """The worker's one reply to the last request, or None once it has ended."""
        line = self._line()
        if line is None:
            return None
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ProtocolError(f"an unreadable reply ({type(exc).__name__})") from None
        if not isinstance(message, dict):
            raise ProtocolError("a reply that is not an object")
        return message

    def finish(self) -> None:
        """No more requests: the worker's pipe is checked for anything unasked."""
        if self._pending():
            raise ProtocolError("the code wrote to the harness's pipe after its last reply")

    def _pending(self) -> bool:
        if self._buffer:
            return True
        if self._eof:
            return False
        readable, _, _ = select.select([self._replies], [], [], 0)
        if not readable:
            return False
        chunk = os.read(self._replies, 65536)
        if not chunk:
            self._eof = True
            return False
        self._buffer = chunk
        return True

    def _line(self) -> bytes | None:
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_REPLY:
                raise ProtocolError(f"a reply longer than {MAX_REPLY} bytes")
            if self._eof:
                return None
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                self._eof = True
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_REPLY:
            raise ProtocolError(f"a reply longer than {MAX_REPLY} bytes")
        return line

    # -- what the kernel says of the worker --------------------------------------------
    def cpu_seconds(self) -> float:
        """CPU time of every thread of the worker so far, by the kernel's clock (the
        code can patch `time`, not this)."""
        return time.clock_gettime(((~self.worker) << 3) | 2)  # clock_getcpuclockid(pid)

    def reset_peak(self) -> int:
        """Reset the worker's peak resident size to its current size, which is returned
        (bytes)."""
        with open(f"/proc/{self.worker}/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return self._status("VmRSS")

    def peak_rss(self) -> int:
        """The worker's peak resident size since the last reset, in bytes."""
        return self._status("VmHWM")

    def _status(self, field: str) -> int:
        with open(f"/proc/{self.worker}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        raise ProtocolError(f"the worker's {field} cannot be read")

    # -- the channel -------------------------------------------------------------------
    def emit(self, record: dict[str, Any]) -> None:
        """Write one record to the channel (only the supervisor can)."""
        data = (json.dumps(record) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._channel, view) :]

    def stop(self, error: ProtocolError | None = None) -> NoReturn:
        """End the run: the worker killed, the protocol error (if any) recorded, and this
        process exiting as the worker did (the exit status the host reports)."""
        if error is not None:
            self.emit({"protocol": str(error)[:300]})
        status = self._end_worker(kill=error is not None)
        os._exit(PROTOCOL_EXIT if error is not None else status)

    def _end_worker(self, *, kill: bool) -> int:
        if not self.worker:
            return 0
        if kill:
            _kill(self.worker)
        else:
            _close(self._requests)  # the worker reads end-of-file and returns
            if not _ends_within(self.worker, WORKER_GRACE):
                _kill(self.worker)
        _, status = os.waitpid(self.worker, 0)
        return _status_code(status)


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether process `pid` (a child) ends within `seconds`, waited for on a pidfd."""
    try:
        handle = os.pidfd_open(pid)
    except OSError:  # gone already, or no pidfd here: waitpid decides
        return True
    try:
        poller = select.poll()
        poller.register(handle, select.POLLIN)
        return bool(poller.poll(int(seconds * 1000)))
    finally:
        os.close(handle)


def _exit_after(run: Callable[[], None]) -> NoReturn:
    """Run the worker's part, flush what it printed, and leave without Python's teardown
    (the code's atexit hooks included: nothing after the last reply is read)."""
    code = 0
    try:
        run()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported as Python would, on stderr
        with contextlib.suppress(BaseException):  # the exit status still tells
            sys.excepthook(*sys.exc_info())
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # a closed or replaced stream
            stream.flush()
    os._exit(code & 0xFF)


def _not_dumpable() -> None:
    """No /proc access to this process's descriptors or memory, and no ptrace, by any
    process of the same uid without capabilities (the worker has none)."""
    import ctypes  # noqa: PLC0415 - already loaded in a fork server; here only

    pr_set_dumpable = 4
    if ctypes.CDLL(None, use_errno=True).prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


def _deaf() -> None:
    """Ignore every signal that can be ignored: the worker (same uid) may send them, and
    only SIGKILL and SIGSTOP, which end or stall the run, are left to it."""
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_IGN)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _status_code(status: int) -> int:
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 255

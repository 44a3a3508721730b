"""Event-driven waits: the kernel wakes us when a process ends or a reply arrives.

`Popen.wait(timeout=...)` polls with growing sleeps, so a run ending at 45 ms was noticed
at 63 ms. Here a pidfd (Linux 5.3+) or a socket is waited on with poll(2), which returns
the moment it is ready. Where pidfds do not exist, a blocking wait and a timer that kills
the process group take their place.

A wait may be told to call `on_slow` once it has lasted `patience` seconds: the caller
then stops counting the run against the machine's cores (see `cores.CoreLimit`), since a
run that lasts that long is mostly one sleeping or waiting out its timeout.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Final

#: Seconds after which a run stops holding a core (see the module docstring).
PATIENCE: Final = 0.5


def wait_readable(fd: int, timeout: float, on_slow: Callable[[], None] | None = None) -> bool:
    """True when `fd` becomes readable within `timeout` seconds."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    if on_slow is not None and timeout > PATIENCE:
        if poller.poll(_ms(PATIENCE)):
            return True
        on_slow()
    return bool(poller.poll(_ms(deadline - time.monotonic())))


def wait_process(
    proc: subprocess.Popen[bytes], timeout: float, on_slow: Callable[[], None] | None = None
) -> bool:
    """True when `proc` (not yet reaped) ended within `timeout` seconds. Does not reap it."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return _wait_with_timer(proc, timeout, on_slow)
    try:
        return wait_readable(pidfd, timeout, on_slow)
    finally:
        os.close(pidfd)


def _wait_with_timer(
    proc: subprocess.Popen[bytes], timeout: float, on_slow: Callable[[], None] | None
) -> bool:
    """A blocking wait; a timer kills the process group at the timeout."""
    fired = threading.Event()

    def kill() -> None:
        fired.set()
        kill_group(proc.pid)

    timers = [threading.Timer(timeout, kill)]
    if on_slow is not None and timeout > PATIENCE:
        timers.append(threading.Timer(PATIENCE, on_slow))
    for timer in timers:
        timer.daemon = True
        timer.start()
    try:
        proc.wait()
    finally:
        for timer in timers:
            timer.cancel()
    return not fired.is_set()


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads (its children with it; under bubblewrap,
    killing its pid-namespace init takes every process inside)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _ms(seconds: float) -> int:
    """poll(2)'s milliseconds, rounded up: a wait never ends before its time."""
    return max(0, int(seconds * 1000 + 0.999))

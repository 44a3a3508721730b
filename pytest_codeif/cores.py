"""This pytest process's place in a pytest-xdist run: whether it is a worker, and how
many cores it may keep busy (the machine's, shared among the workers of the run, each of
which runs its own tools and sandboxes). The bottom layer, so every module may ask."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator

import pytest


def is_xdist_worker(config: pytest.Config) -> bool:
    """True in a pytest-xdist worker (which has `workerinput`), False in the controller
    or a run without pytest-xdist."""
    return hasattr(config, "workerinput")


def cores_for_this_process() -> int:
    """Cores divided among the pytest-xdist workers of this run (at least one)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return max(1, (os.cpu_count() or 1) // max(1, workers))


class CoreLimit:
    """At most `cores` runs at once hold a core; a run waiting that long is let go.

    Sandboxed runs are started by more threads than there are cores, so that a run
    sleeping or waiting out its timeout (seconds, where most runs take milliseconds)
    does not keep a core idle. Each run takes a core before it starts and gives it back
    when it ends, or earlier, when the sandbox reports it slow (`release`): from then on
    it runs beside the others without holding one.
    """

    def __init__(self, cores: int) -> None:
        self._free = threading.Semaphore(max(1, cores))

    @contextlib.contextmanager
    def core(self) -> Iterator[Callable[[], None]]:
        """Hold a core for one run; yields the callable that gives it back early."""
        self._free.acquire()
        held = [True]
        lock = threading.Lock()

        def release() -> None:
            with lock:
                if held[0]:
                    held[0] = False
                    self._free.release()

        try:
            yield release
        finally:
            release()

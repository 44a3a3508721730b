"""Growth measurements run ahead of their items, side by side, one per free core.

A `complexity` constraint measures its function in the sandbox for a second or more. Run
when its item comes, every measurement waits for the one before it while the other core
idles. Instead the engine asks each planned measuring constraint for its requests as soon
as the task's functional outcome is in (the requests are grown from the observed calls),
submits them here, and decides the constraint when the last of them has come back; the
item then finds its verdict decided.

Each measurement holds a core of the engine's `CoreLimit` (shared with the functional
runs) for its whole run: it is CPU-bound, and timing it beside more runs than there are
cores would charge the code for waiting its turn. The measurement itself runs on a pool
thread; results are keyed by unit, module and request, so an item asking again finds the
same figures, and a request is measured once per session.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor

from pytest_codeif.cores import CoreLimit

Points = list[tuple[int, float]]


class MeasurementPending(BaseException):
    """A check evaluated ahead asked for a measurement not yet back; `waiting` is it.
    A BaseException, so that a check catching `Exception` cannot swallow it."""

    def __init__(self, waiting: Future[Points]) -> None:
        super().__init__("a measurement is still running")
        self.waiting = waiting


class Measurements:
    """Measurements submitted ahead, and the figures of each, once per request."""

    def __init__(self, cores: CoreLimit, threads: int) -> None:
        self.cores = cores
        self.threads = max(1, threads)
        self._futures: dict[Hashable, Future[Points]] = {}
        self._executor: ThreadPoolExecutor | None = None

    def ahead(self, key: Hashable, run: Callable[[], Points]) -> Points:
        """The figures for `key` if they are back; otherwise start `run` (once) on a pool
        thread and raise `MeasurementPending`."""
        future = self._futures.get(key)
        if future is None:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.threads, "codeif-measure")
            future = self._executor.submit(self._held, run)
            self._futures[key] = future
        if not future.done():
            raise MeasurementPending(future)
        return future.result()

    def now(self, key: Hashable, run: Callable[[], Points]) -> Points:
        """The figures for `key`: those submitted ahead (waiting for them), else `run`
        on this thread, holding a core like any measurement."""
        future = self._futures.get(key)
        if future is not None:
            return future.result()
        return self._held(run)

    def _held(self, run: Callable[[], Points]) -> Points:
        with self.cores.core():
            return run()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

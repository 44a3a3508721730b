"""Functional tests of many tasks run side by side: one sandboxed process per task, as
many at once as the machine has cores (shared among pytest-xdist workers).

Batches form lazily, like tool runs: the first functional item to run submits every
planned task, and each item then waits for its own outcome.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from pytest_codeif.cores import cores_for_this_process
from pytest_codeif.engine.engine import Engine
from pytest_codeif.functional.run import FunctionalOutcome, execute, finish, prepare
from pytest_codeif.taskfile.model import Task


def pool_size() -> int:
    """Sandboxes at once: one per core this process may use."""
    return cores_for_this_process()


class FunctionalPool:
    """Runs planned tasks' functional tests concurrently; results in task order."""

    def __init__(self, engine: Engine, size: int | None = None) -> None:
        self.engine = engine
        self.size = size or pool_size()
        self._planned: dict[tuple[str, str], Task] = {}
        self._futures: dict[tuple[str, str], Future[FunctionalOutcome]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._executor: ThreadPoolExecutor | None = None

    @staticmethod
    def _id(task: Task) -> tuple[str, str]:
        return str(task.path), task.id

    def plan(self, task: Task) -> None:
        self._planned.setdefault(self._id(task), task)

    def outcome(self, task: Task) -> FunctionalOutcome:
        """`task`'s outcome, submitting every planned task the first time."""
        ident = self._id(task)
        self._planned.setdefault(ident, task)
        if ident not in self._futures:
            self._submit_planned()
        outcome = self._futures[ident].result()
        key = self._keys.pop(ident, None)
        return finish(self.engine, key, outcome) if key is not None else outcome

    def start(self) -> None:
        """Submit every planned task not yet submitted (they run in the background)."""
        if any(ident not in self._futures for ident in self._planned):
            self._submit_planned()

    def _submit_planned(self) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.size, thread_name_prefix="codeif-tests")
        for ident, task in self._planned.items():
            if ident in self._futures:
                continue
            prepared = prepare(self.engine, task)  # here, on the main thread
            if isinstance(prepared, FunctionalOutcome):
                done: Future[FunctionalOutcome] = Future()
                done.set_result(prepared)
                self._futures[ident] = done
            else:
                unit, key = prepared
                self._keys[ident] = key
                self._futures[ident] = self._executor.submit(execute, self.engine, task, unit)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

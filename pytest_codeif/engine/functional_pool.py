"""Functional tests of many tasks run side by side, each task's runs on one thread of a
pool, on that thread's fork server where the sandbox allows one (see
`sandbox/fork_server.py`), else one sandboxed process per run.

Sizing: the pool has two threads per core this process may use (cores are shared among
pytest-xdist workers, see `cores.py`), and a `CoreLimit` lets only as many runs as cores
start at once. A run that lasts `wait.PATIENCE` seconds gives its core back (it is then
nearly always sleeping or waiting out its timeout), so that runs waiting for their timeouts
never keep the cores idle; at most the pool's size run at once.

Batches form lazily, like tool runs: the first functional item to run submits every
planned task, and each item then waits for its own outcome. The unit and verdict caches
are touched on the main thread only; worker threads run `functional.run.execute`. The
pool is one of the sandbox's runners, owned by `sandbox_runs.SandboxRuns`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

from pytest_codeif.cores import CoreLimit, cores_for_this_process
from pytest_codeif.engine.units import Units
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.functional.folders import runs_root
from pytest_codeif.functional.run import FunctionalJob, RunSettings, describe, execute
from pytest_codeif.outcome import CaseResult, FunctionalOutcome, Undecidable, Verdict
from pytest_codeif.sandbox.fork_server import ForkServers
from pytest_codeif.sandbox.isolation import UID_BLOCK
from pytest_codeif.taskfile.model import Task

#: Pool threads per core (see the module docstring).
THREADS_PER_CORE: Final = 2


#: Sandbox uids of this process's block left to runs outside the pool (measurements,
#: and runs a failed fork server hands to the one-process path): a fork server holds its
#: uid for the session.
UIDS_KEPT: Final = 8


def pool_size() -> int:
    """Runs at once: two per core this process may use, within its block of sandbox uids
    (each run in flight has a uid of its own)."""
    return min(UID_BLOCK - UIDS_KEPT, THREADS_PER_CORE * cores_for_this_process())


class FunctionalPool:
    """Runs planned tasks' functional tests concurrently; results in task order."""

    def __init__(
        self,
        units: Units,
        cache: VerdictCache,
        display: Callable[[Path], str],
        settings: RunSettings,
        *,
        cores: CoreLimit,
        size: int | None = None,
        fork_servers: bool = True,
    ) -> None:
        self.units = units
        self.cache = cache
        self.display = display
        self.settings = settings
        self.size = size or pool_size()
        self.cores = cores  # shared with measurements: one run per core at once
        self.fork_servers = fork_servers
        self._servers: ForkServers | None = None
        self._planned: dict[tuple[str, str], Task] = {}
        self._futures: dict[tuple[str, str], Future[FunctionalOutcome]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._executor: ThreadPoolExecutor | None = None

    @property
    def servers(self) -> ForkServers | None:
        """The fork servers of this pool's threads (None: one process per run)."""
        return self._servers

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
        return self._finish(key, outcome) if key is not None else outcome

    def ready(self, task: Task) -> bool:
        """Whether `task`'s outcome is in (`outcome` then returns at once)."""
        future = self._futures.get(self._id(task))
        return future is not None and future.done()

    def start(self) -> None:
        """Submit every planned task not yet submitted (they run in the background)."""
        if any(ident not in self._futures for ident in self._planned):
            self._submit_planned()

    def _submit_planned(self) -> None:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.size, thread_name_prefix="codeif-tests")
            if self.fork_servers:
                workdir = self.settings.workdir
                self._servers = ForkServers.where_possible(
                    self.settings.isolation, runs_root(workdir), workdir
                )
        settings = dataclasses.replace(self.settings, servers=self._servers)
        for ident, task in self._planned.items():
            if ident in self._futures:
                continue
            prepared = self._prepare(task)  # here, on the main thread
            if isinstance(prepared, FunctionalOutcome):
                done: Future[FunctionalOutcome] = Future()
                done.set_result(prepared)
                self._futures[ident] = done
            else:
                job, key = prepared
                self._keys[ident] = key
                self._futures[ident] = self._executor.submit(self._execute, job, settings)

    def _prepare(self, task: Task) -> FunctionalOutcome | tuple[FunctionalJob, str]:
        """The outcome when it is known without running anything (no code, syntax error,
        cached), else the job to run and the cache key to store the outcome under.

        Touches the unit and verdict caches: call it from the main thread only.
        """
        try:
            unit = self.units.unit(task)
            self.units.check_syntax(unit)  # a syntax error is undecidable, not a failure
        except Undecidable as exc:
            return FunctionalOutcome(Verdict("error", error_kind=exc.kind, error=exc.message), ())
        job = FunctionalJob(
            unit,
            task.calls,
            task.pytest_files,
            task.timeout,
            task.module,
            self.display(task.path),
            behaviour=task.behaviour,
        )
        key = self.cache.key(unit, describe(job, self.settings.isolation.name))
        cached = self.cache.get_with_extra(key)
        if cached is not None:
            verdict, cases = cached
            return FunctionalOutcome(verdict, tuple(CaseResult(**case) for case in cases or ()))
        return job, key

    def _finish(self, key: str, outcome: FunctionalOutcome) -> FunctionalOutcome:
        """Store `outcome` in the verdict cache (main thread only) and return it."""
        self.cache.put(key, outcome.verdict, [dataclasses.asdict(c) for c in outcome.cases])
        return outcome

    def _execute(self, job: FunctionalJob, settings: RunSettings) -> FunctionalOutcome:
        """On a pool thread: hold a core while the job's runs are short."""
        with self.cores.core() as release:
            return execute(job, dataclasses.replace(settings, on_slow=release))

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        if self._servers is not None:
            self._servers.close()

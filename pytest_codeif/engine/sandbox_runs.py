"""Everything that runs the code under evaluation, in one place: the functional pool
(a task's tests), growth measurements, and checks' probes. They share one `CoreLimit`,
so that no more runs hold a core at once than this process may use (see `cores.py`),
and one workdir and sandbox.

What a check asks of a run comes here through its context (`EngineContext.observe`,
`measure`, `probe`); planning plans and starts the functional tests on `pool`. Results
are kept for the session: a request is run once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.cores import CoreLimit, cores_for_this_process
from pytest_codeif.engine.functional_pool import FunctionalPool
from pytest_codeif.engine.measurements import Measurements, Points
from pytest_codeif.engine.units import Units
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.errors import Location
from pytest_codeif.functional.measure import Request, measure
from pytest_codeif.functional.run import FunctionalJob, RunSettings, execute
from pytest_codeif.outcome import CaseResult, Undecidable
from pytest_codeif.spec import CallCase
from pytest_codeif.taskfile.model import Task


class SandboxRuns:
    """The functional pool, the measurements and the probes of one pytest process."""

    def __init__(
        self,
        units: Units,
        cache: VerdictCache,
        display: Callable[[Path], str],
        settings: RunSettings,
        *,
        pool_size: int | None = None,
        fork_servers: bool = True,
    ) -> None:
        self._display = display
        self._settings = settings
        cores = cores_for_this_process()
        #: Cores for sandboxed runs and measurements, shared by all of them.
        self.cores = CoreLimit(cores)
        self.pool = FunctionalPool(
            units,
            cache,
            display,
            settings,
            cores=self.cores,
            size=pool_size,
            fork_servers=fork_servers,
        )
        self.measurements = Measurements(self.cores, cores)
        #: Results of checks' probes, by unit, function and calls.
        self._probed: dict[tuple[str, str, str], list[CaseResult]] = {}

    def ready(self, task: Task) -> bool:
        """Whether `task`'s functional outcome is in."""
        return self.pool.ready(task)

    def observed(self, task: Task) -> list[tuple[CallCase, CaseResult]]:
        """Each call case of `task` with its result, from the task's functional run."""
        outcome = self.pool.outcome(task)
        by_label = {c.label: c for c in outcome.cases}
        return [(case, by_label[case.label]) for case in task.calls if case.label in by_label]

    def measure(
        self, unit: CodeUnit, task: Task, request: Request, *, ahead: bool = False
    ) -> Points:
        """The figures for `request`, measured once per session (see `measurements.py`);
        `ahead`: started in the background if not back, raising `MeasurementPending`."""
        module = task.module or unit.main_module
        if module is None:
            raise Undecidable(
                "invalid-task", "the project has several top-level modules; set the task's `module`"
            )
        run = partial(
            measure,
            unit,
            module,
            request,
            workdir=self._settings.workdir,
            isolation=self._settings.isolation,
            timeout=task.timeout,
        )
        key = (unit.key, module, task.timeout, request)
        if ahead:
            return self.measurements.ahead(key, run)
        return self.measurements.now(key, run)

    def probe(
        self, unit: CodeUnit, task: Task, function: str, calls: Sequence[tuple[Any, ...]]
    ) -> list[CaseResult]:
        """Run `function` of the unit on each of `calls` in the sandbox, once per session
        for the same calls (a check's probes, see `CheckContext.probe`)."""
        key = (unit.key, function, json.dumps([list(c) for c in calls], default=repr))
        if key not in self._probed:
            cases = tuple(
                CallCase(
                    f"probe {function}({', '.join(map(repr, args))})",
                    Location(task.path, 0, ()),
                    function=function,
                    args=list(args),
                )
                for args in calls
            )
            job = FunctionalJob(
                unit,
                cases,
                (),
                task.timeout,
                task.module,
                self._display(task.path),
                folder=f"probe-{len(self._probed)}",
            )
            # As a pool thread does: a probe running long gives its core back.
            with self.cores.core() as release:
                settings = RunSettings(
                    self._settings.workdir, self._settings.isolation, on_slow=release
                )
                outcome = execute(job, settings)
            self._probed[key] = list(outcome.cases)
        return self._probed[key]

    def close(self) -> None:
        """Stop the pool (its fork servers too), then the measurements."""
        self.pool.close()
        self.measurements.close()

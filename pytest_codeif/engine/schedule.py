"""When verdicts are reached: planned ahead, decided ahead, or decided when their items
run, and reused from the verdict cache when nothing they depend on changed.

Batches form lazily: `plan` records which units need which tool run (only for the
items pytest selected). When the first item runs, `start` launches every planned batch
in background threads (each a ruff or mypy process) and, while they run, decides every
planned constraint that needs nothing but the code, one unit after another, so the
tools and the libcst work overlap and each tree can be dropped once its unit is done.
Measuring constraints are decided ahead as their measurements come back
(`measure_ahead`). `evaluate` takes a verdict decided ahead, or decides it then.
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

from pytest_codeif.checks.base import needs_of
from pytest_codeif.engine.cache_keys import CacheKeys
from pytest_codeif.engine.context import NeedsMoreThanCode
from pytest_codeif.engine.measurements import MeasurementPending, Points
from pytest_codeif.engine.sandbox_runs import SandboxRuns
from pytest_codeif.engine.syntax_check import collector_paused
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.engine.units import Units
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.engine.verdicts import Verdicts
from pytest_codeif.outcome import Undecidable, Verdict
from pytest_codeif.taskfile.model import ConstraintSpec, Task


class Schedule:
    """The planned work of the session and the verdicts reached ahead of their items."""

    def __init__(
        self,
        units: Units,
        *,
        tools: ToolBatches,
        keys: CacheKeys,
        cache: VerdictCache,
        runs: SandboxRuns,
        verdicts: Verdicts,
        eager: bool = True,
    ) -> None:
        self._units = units
        self._tools = tools
        self._keys = keys
        self._cache = cache
        self._runs = runs
        self._verdicts = verdicts
        #: Decide code-only constraints ahead of their items (off under -x / --maxfail,
        #: where the run may stop long before the last item).
        self.eager = eager
        #: Planned constraints that need only the code, decided by `start`.
        self._local: list[tuple[Task, ConstraintSpec]] = []
        #: Tasks with a check that reads the parse when its item runs (it observes the
        #: code's calls): their code-only constraints are decided then too, from one
        #: parse, rather than ahead, from a parse evicted by the time the item runs.
        self._parsed_late: set[tuple[Path, str]] = set()
        #: Verdicts reached ahead of their items (by `start`, or read from the cache by
        #: `plan`), taken by `evaluate`.
        self._decided: dict[str, Verdict] = {}
        #: Planned constraints that measure the code, by cache key, with the measurement
        #: each waits for (None: not asked yet); decided ahead by `measure_ahead`.
        self._measuring: dict[str, tuple[Task, ConstraintSpec, Future[Points] | None]] = {}

    def plan(self, task: Task, constraint: ConstraintSpec) -> None:
        """Note what `constraint` will need, so one tool run serves every unit and the
        code-only checks can be decided while the tools run."""
        if constraint.check.reads_response:
            return  # decided from the response's text when its item runs: no code to plan
        try:
            unit = self._units.unit(task)
        except Undecidable:
            return
        key = self._keys.key(unit, constraint, task)
        cached = self._cache.get(key)
        if cached is not None:
            self._decided[key] = cached  # a warm run pays for no tool, nor even a parse
            return
        try:
            self._units.check_syntax(unit)  # code that does not parse must not join a batch
        except Undecidable:
            return
        needs = needs_of(constraint.check)
        configs = needs.tool_configs
        for config in configs:
            self._tools.plan(config, unit)
        if needs.measures:
            self._measuring[key] = (task, constraint, None)
        if needs.observes_calls:
            self._parsed_late.add((task.path, task.id))
        elif not configs:
            self._local.append((task, constraint))

    def start(self) -> None:
        """Launch every planned tool batch not yet launched, then, while they run, decide
        the planned constraints that need only the code. Cheap when nothing is new."""
        self._tools.launch_planned()
        local, self._local = self._local, []
        if not self.eager:
            return
        # The pass allocates millions of short-lived, acyclic tree nodes: the cyclic
        # collector, run again and again, would walk every live object for nothing.
        with collector_paused():
            self._decide_code_only(local)

    def _decide_code_only(self, local: list[tuple[Task, ConstraintSpec]]) -> None:
        for task, constraint in local:
            if (task.path, task.id) in self._parsed_late:
                continue  # decided when its item runs, beside the task's other checks
            try:
                unit = self._units.unit(task)
            except Undecidable:
                continue
            key = self._keys.key(unit, constraint, task)
            if key in self._decided:
                continue
            try:
                verdict = self._verdicts.decide(unit, constraint, task, code_only=True)
            except NeedsMoreThanCode:
                continue  # decided when its item runs
            self._decided[key] = verdict
            self._cache.put(key, verdict)

    def measure_ahead(self) -> None:
        """Decide the planned measuring constraints whose inputs are known (the task's
        functional outcome is in) and whose measurements are back; start the
        measurements of the others (see `measurements.py`). Cheap when nothing is new:
        a constraint waiting for a measurement is not looked at until it is back."""
        if not self.eager or not self._measuring:
            return
        for key, (task, constraint, waiting) in list(self._measuring.items()):
            if waiting is not None and not waiting.done():
                continue
            if task.calls and not self._runs.ready(task):
                continue
            try:
                unit = self._units.unit(task)
                verdict = self._verdicts.decide(unit, constraint, task, ahead=True)
            except MeasurementPending as pending:
                self._measuring[key] = (task, constraint, pending.waiting)
                continue
            except Undecidable:
                verdict = None
            del self._measuring[key]
            if verdict is not None:
                self._decided[key] = verdict
                self._cache.put(key, verdict)

    def measurements_running(self) -> list[Future[Points]]:
        """The measurements that planned constraints wait for (for whoever wants to wait
        until `measure_ahead` can go on, as the benchmarks do)."""
        return [waiting for _, _, waiting in self._measuring.values() if waiting is not None]

    def evaluate(self, task: Task, constraint: ConstraintSpec) -> Verdict:
        """The constraint's verdict, reused from the cache when nothing it depends on has
        changed; never raises for anything the code or a check does."""
        if constraint.check.reads_response:
            return self._verdicts.decide_response(constraint, task)
        try:
            unit = self._units.unit(task)
        except Undecidable as exc:
            if exc.kind == "no-code" and constraint.check.judges_missing_code:
                return self._verdicts.missing_code(constraint, task, exc.message)
            return Verdict("error", error_kind=exc.kind, error=exc.message)
        key = self._keys.key(unit, constraint, task)
        self.measure_ahead()
        decided = self._decided.pop(key, None) or self._cache.get(key)
        if decided is not None:
            return decided
        self._measuring.pop(key, None)
        verdict = self._verdicts.decide(unit, constraint, task)
        self._cache.put(key, verdict)
        return verdict

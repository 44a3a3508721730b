"""The engine: its parts built once per pytest process, each handed what it uses, so
that data flows one way: units (`units.py`) -> planning and when to decide
(`schedule.py`) -> runs of the code in the sandbox (`sandbox_runs.py`) -> verdicts
(`verdicts.py`, located by `evidence.py`, cached under `cache_keys.py`'s keys) -> the
records `collection/` builds from them.

It loads each unit once, parses each file once, runs ruff and mypy once per
configuration over every unit planned for that configuration (`tool_batches.py`), and
runs each task's functional tests once, beside the others.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_codeif.engine.cache_keys import CacheKeys
from pytest_codeif.engine.evidence import Locations
from pytest_codeif.engine.sandbox_runs import SandboxRuns
from pytest_codeif.engine.schedule import Schedule
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.engine.units import Units
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.engine.verdicts import Verdicts
from pytest_codeif.functional.run import RunSettings
from pytest_codeif.sandbox.isolation import Isolation


class Engine:
    """Per-session caches, batches and runs; one per pytest process (each xdist worker
    too). Its methods are its parts' own: `unit` and `in_scope` (units), `display`
    (evidence), `plan`, `start`, `measure_ahead` and `evaluate` (schedule)."""

    def __init__(
        self,
        rootdir: Path,
        workdir: Path,
        isolation: Isolation | None = None,
        cache: VerdictCache | None = None,
        *,
        eager: bool = True,
        pool_size: int | None = None,
        fork_servers: bool = True,
    ) -> None:
        """`eager`: decide code-only constraints ahead of their items (off under -x /
        --maxfail); `pool_size` and `fork_servers`: the functional pool's."""
        self.rootdir = rootdir
        self.workdir = workdir.resolve()
        self.isolation = isolation or Isolation("process", reason="no sandbox chosen")
        self.cache = cache or VerdictCache(None)
        self.tools = ToolBatches(self.workdir)
        self.locations = Locations(rootdir)
        self.units = Units(rootdir, self.workdir, self.locations.display)
        self.runs = SandboxRuns(
            self.units,
            self.cache,
            self.locations.display,
            RunSettings(self.workdir, self.isolation),
            pool_size=pool_size,
            fork_servers=fork_servers,
        )
        self.verdicts = Verdicts(self.units, self.tools, self.runs, self.locations)
        keys = CacheKeys(self.cache, self.tools, self.isolation.name)
        self.schedule = Schedule(
            self.units,
            tools=self.tools,
            keys=keys,
            cache=self.cache,
            runs=self.runs,
            verdicts=self.verdicts,
            eager=eager,
        )
        self.unit = self.units.unit
        self.in_scope = self.units.in_scope
        self.display = self.locations.display
        self.plan = self.schedule.plan
        self.start = self.schedule.start
        self.measure_ahead = self.schedule.measure_ahead
        self.measurements_running = self.schedule.measurements_running
        self.evaluate = self.schedule.evaluate

    def close(self) -> None:
        """Stop every run and batch, close the cache, and remove the work dir."""
        self.runs.close()
        self.tools.close()
        self.cache.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

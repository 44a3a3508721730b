"""The engine reaches verdicts: it loads each unit once, parses each file once, and runs
ruff and mypy once per configuration over every unit planned for that configuration.

Batches form lazily: `plan` records which units need which tool run (only for the
items pytest selected). When the first item runs, `start` launches every planned batch
in background threads (each a ruff or mypy process) and, while they run, decides every
planned constraint that needs nothing but the code, one unit after another, so the
tools and the libcst work overlap and each tree can be dropped once its unit is done.
"""

from __future__ import annotations

import ast
import gc
import os
import shutil
import threading
import traceback
import warnings
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_codeif.checks.base import Finding, Undecidable
from pytest_codeif.code.unit import CodeUnit, SourceFile, load_unit
from pytest_codeif.cores import cores_for_this_process
from pytest_codeif.engine.context import CheckContext, NeedsMoreThanCode
from pytest_codeif.engine.cst import ParsedModule
from pytest_codeif.engine.suppressions import MYPY_KINDS, Suppression, find_suppressions, neutralise
from pytest_codeif.engine.tools import (
    MypyConfig,
    RuffConfig,
    ToolConfig,
    ToolRun,
    run_mypy,
    run_ruff,
)
from pytest_codeif.engine.verdict import Evidence, Verdict
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.sandbox.isolation import Isolation
from pytest_codeif.taskfile.model import ConstraintSpec, Task

if TYPE_CHECKING:
    from pytest_codeif.functional.run import FunctionalOutcome

#: Parsed modules kept at once: a task's items run one after another, so a few units'
#: trees are all that is ever read again; keeping every tree cost memory and time (the
#: garbage collector walks them all, and so does the interpreter's exit).
PARSED_KEPT = 64

#: What one batch yields: for each tool run, the units it covered, the run, and the
#: staged name of each unit when the run's paths are relative to the staging dir (None:
#: relative to one project's own folder).
_BatchResult = list[tuple[list[CodeUnit], ToolRun, "dict[str, str] | None"]]


class Engine:
    """Per-session caches and batches; one per pytest process (each xdist worker too)."""

    def __init__(
        self,
        rootdir: Path,
        workdir: Path,
        isolation: Isolation | None = None,
        cache: VerdictCache | None = None,
    ) -> None:
        self.rootdir = rootdir
        self.workdir = workdir.resolve()
        self.isolation = isolation or Isolation("process", reason="no sandbox chosen")
        self.cache = cache or VerdictCache(None)
        self.units_dir = self.workdir / "units"
        self._units: dict[tuple[Path, str], CodeUnit | Undecidable] = {}
        self._parsed: OrderedDict[tuple[str, str], ParsedModule | Undecidable] = OrderedDict()
        self._syntax: dict[str, Undecidable | None] = {}
        self._keys: dict[tuple[str, int], str] = {}
        self._staged: set[str] = set()
        self._shown: dict[Path, str] = {}
        self._discarded = 0
        self._removals: list[threading.Thread] = []
        self._suppressions: dict[str, list[tuple[str, Suppression]]] = {}
        self._planned: dict[ToolConfig, dict[str, CodeUnit]] = {}
        self._results: dict[tuple[ToolConfig, str], list[Finding] | Undecidable] = {}
        self._running: dict[tuple[ToolConfig, str], Future[_BatchResult]] = {}
        self._tool_threads: ThreadPoolExecutor | None = None
        #: Planned constraints that need only the code, decided by `start`.
        self._local: list[tuple[Task, ConstraintSpec]] = []
        #: Verdicts reached ahead of their items (by `start`, or read from the cache by
        #: `plan`), taken by `evaluate`.
        self._decided: dict[str, Verdict] = {}
        #: Decide code-only constraints ahead of their items (off under -x / --maxfail,
        #: where the run may stop long before the last item).
        self.eager = True
        #: Runs a task's functional tests (the pool's `outcome`), for checks that judge
        #: observed values; set by whoever owns the runner.
        self.functional: Callable[[Task], FunctionalOutcome] | None = None

    # -- units and parses -------------------------------------------------------------
    def unit(self, task: Task) -> CodeUnit:
        """The task's code, read once; raises the cached `Undecidable` if there is none."""
        key = (task.path, task.id)
        if key not in self._units:
            try:
                self._units[key] = load_unit(task, self.rootdir)
            except Undecidable as exc:
                self._units[key] = exc
        found = self._units[key]
        if isinstance(found, Undecidable):
            raise found
        return found

    def check_syntax(self, unit: CodeUnit) -> None:
        """Raise `Undecidable("syntax-error")` if any module of `unit` does not parse.

        Python's own parser decides (the interpreter running pytest), once per unit, so
        every check of a task reports the same error at the same task-file line.
        """
        if unit.key not in self._syntax:
            self._syntax[unit.key] = _first_syntax_error(unit, self.display)
        found = self._syntax[unit.key]
        if found is not None:
            raise found

    def parsed(self, unit: CodeUnit, source: SourceFile) -> ParsedModule:
        key = (unit.key, source.relpath)
        found = self._parsed.get(key)
        if found is None:
            try:
                found = ParsedModule(source)
            except Undecidable as exc:
                found = exc
            self._parsed[key] = found
            if len(self._parsed) > PARSED_KEPT:
                self._parsed.popitem(last=False)
        else:
            self._parsed.move_to_end(key)
        if isinstance(found, Undecidable):
            raise found
        return found

    # -- batching ---------------------------------------------------------------------
    def plan(self, task: Task, constraint: ConstraintSpec) -> None:
        """Note what `constraint` will need, so one tool run serves every unit and the
        code-only checks can be decided while the tools run."""
        try:
            unit = self.unit(task)
        except Undecidable:
            return
        key = self.cache_key(unit, constraint, task)
        cached = self.cache.get(key)
        if cached is not None:
            self._decided[key] = cached  # a warm run pays for no tool, nor even a parse
            return
        try:
            self.check_syntax(unit)  # code that does not parse must not join a batch
        except Undecidable:
            return
        configs = list(constraint.check.tool_configs())
        for config in configs:
            self._planned.setdefault(config, {})[unit.key] = unit
        if not configs and not constraint.check.observes_calls:
            self._local.append((task, constraint))

    def start(self) -> None:
        """Launch every planned tool batch not yet launched, then, while they run, decide
        the planned constraints that need only the code. Cheap when nothing is new."""
        # Mypy first: it is the longest run, and every other run waits behind it.
        for config in sorted(self._planned, key=lambda c: not isinstance(c, MypyConfig)):
            pending = self._pending(config)
            if pending:
                self._launch(config, pending)
        local, self._local = self._local, []
        if not self.eager:
            return
        # The pass allocates millions of short-lived, acyclic tree nodes: the cyclic
        # collector, run again and again, would walk every live object for nothing.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._decide_code_only(local)
        finally:
            if collecting:
                gc.enable()

    def _decide_code_only(self, local: list[tuple[Task, ConstraintSpec]]) -> None:
        for task, constraint in local:
            try:
                unit = self.unit(task)
            except Undecidable:
                continue
            key = self.cache_key(unit, constraint, task)
            if key in self._decided:
                continue
            try:
                verdict = self._decide(unit, constraint, task, code_only=True)
            except NeedsMoreThanCode:
                continue  # decided when its item runs
            self._decided[key] = verdict
            self.cache.put(key, verdict)

    def tool_findings(self, config: ToolConfig, unit: CodeUnit) -> list[Finding]:
        """Findings of the `config` run for `unit`, running the whole batch if needed."""
        if (config, unit.key) not in self._results:
            if (config, unit.key) not in self._running:
                self._planned.setdefault(config, {})[unit.key] = unit
                self._launch(config, self._pending(config))
            self._collect(config, self._running[(config, unit.key)])
        found = self._results[(config, unit.key)]
        if isinstance(found, Undecidable):
            raise found
        return found

    def _pending(self, config: ToolConfig) -> list[CodeUnit]:
        """Units planned for `config` whose run is neither over nor under way."""
        return [
            unit
            for key, unit in self._planned.get(config, {}).items()
            if (config, key) not in self._results and (config, key) not in self._running
        ]

    def _launch(self, config: ToolConfig, units: list[CodeUnit]) -> None:
        """Stage `units` (here, on the main thread) and run the tool in the background."""
        # Mypy reads a copy with `# type: ignore` and `# mypy:` comments blanked out,
        # unless the task allows them.
        neutral = isinstance(config, MypyConfig) and not config.honor_ignores
        names = {unit.key: self._stage(unit, neutral=neutral) for unit in units}
        if self._tool_threads is None:
            self._tool_threads = ThreadPoolExecutor(
                cores_for_this_process(), thread_name_prefix="codeif-tools"
            )
        future = self._tool_threads.submit(
            _run_batch, config, list(units), names, self.units_dir, self.workdir
        )
        for unit in units:
            self._running[(config, unit.key)] = future

    def _collect(self, config: ToolConfig, future: Future[_BatchResult]) -> None:
        """Wait for a launched batch and hand its findings to each of its units."""
        try:
            parts = future.result()
        except Exception as exc:  # noqa: BLE001 - a broken batch must not crash pytest
            keys = [k for (c, k), f in self._running.items() if c == config and f is future]
            for key in keys:
                del self._running[(config, key)]
                self._results[(config, key)] = Undecidable(
                    "checker-failure", f"the {type(config).__name__} batch failed: {exc}"
                )
            return
        for units, run, names in parts:
            self._fan_out(config, units, run, names)
            for unit in units:
                self._running.pop((config, unit.key), None)
        if not self._running:
            self._discard_staged()

    def _discard_staged(self) -> None:
        """Every launched run is over: remove the staged copies in the background (a
        later batch stages afresh), so the session does not pay for it at its end."""
        if not self.units_dir.exists():
            return
        self._discarded += 1
        old = self.workdir / f"units-done-{self._discarded}"
        try:
            os.replace(self.units_dir, old)
        except OSError:
            return  # left for `close`, which removes the whole work dir
        self._staged.clear()
        self._removals.append(
            threading.Thread(target=shutil.rmtree, args=(old, True), name="codeif-cleanup")
        )
        self._removals[-1].start()

    def _fan_out(
        self,
        config: ToolConfig,
        units: list[CodeUnit],
        run: ToolRun,
        names: dict[str, str] | None,
    ) -> None:
        for unit in units:
            if run.failure is not None:
                self._results[(config, unit.key)] = Undecidable("checker-failure", run.failure)
                continue
            if run.blocking:
                found = [f for findings in run.by_file.values() for f in findings]
                detail = "; ".join(f"{f.path}:{f.line}: {f.message}" for f in found[:3])
                self._results[(config, unit.key)] = Undecidable(
                    "checker-failure", f"mypy stopped on a blocking error: {detail}"
                )
                continue
            findings: list[Finding] = []
            for source in unit.files:
                path = _staged_path(names[unit.key], source) if names else source.relpath
                findings.extend(
                    Finding(f.message, f.rule, source.relpath, f.line, f.column)
                    for f in run.by_file.get(path, [])
                )
            self._results[(config, unit.key)] = findings

    def _stage(self, unit: CodeUnit, *, neutral: bool = False) -> str:
        """Write the unit's files for the tools to read, once, and return its staged name.

        Each unit gets a folder, `<key>/`, a namespace package for mypy, so that module
        names never collide and a relative import stays what it is in a package (a top
        level `<key>.py` made it a blocking error). Ruff and mypy read the same copy;
        `neutral` asks for mypy's suppression comments blanked out, written as `<key>_n/`
        only for code that has some (for the rest it would be the same text).
        """
        mine = [s for s in self.suppressions(unit) if s[1].kind in MYPY_KINDS] if neutral else []
        name = f"{unit.key}_n" if mine else unit.key
        if name in self._staged:
            return name
        for source in unit.files:
            target = os.path.join(self.units_dir, _staged_path(name, source))
            # Plain `os` calls: thousands of units are staged at once, and pathlib's
            # own work per call was a visible share of it.
            os.makedirs(os.path.dirname(target), exist_ok=True)
            text = source.text
            if mine:
                here = [item for path, item in mine if path == source.relpath]
                text = neutralise(text, here, MYPY_KINDS)
            with open(target, "w", encoding="utf-8") as staged:
                staged.write(text)
        self._staged.add(name)
        return name

    def suppressions(self, unit: CodeUnit) -> list[tuple[str, Suppression]]:
        """The unit's suppression comments as (relative path, suppression)."""
        if unit.key not in self._suppressions:
            self._suppressions[unit.key] = [
                (source.relpath, item)
                for source in unit.files
                for item in find_suppressions(source.text)
            ]
        return self._suppressions[unit.key]

    # -- verdicts ---------------------------------------------------------------------
    def cache_key(self, unit: CodeUnit, constraint: ConstraintSpec, task: Task) -> str:
        """The constraint's verdict-cache key, hashed once (plan and evaluate both ask)."""
        memo = (unit.key, id(constraint))
        if memo not in self._keys:
            what: dict[str, Any] = {
                "check": constraint.check_name,
                "options": dict(constraint.check.options),
            }
            if constraint.check.observes_calls:
                what["calls"] = [
                    [c.label, c.expression, c.function, c.args, c.kwargs] for c in task.calls
                ]
                what["run"] = [task.timeout, task.module, self.isolation.name]
            self._keys[memo] = self.cache.key(unit, what)
        return self._keys[memo]

    def evaluate(self, task: Task, constraint: ConstraintSpec) -> Verdict:
        """The constraint's verdict, reused from the cache when nothing it depends on has
        changed; never raises for anything the code or a check does."""
        try:
            unit = self.unit(task)
        except Undecidable as exc:
            return Verdict("error", error_kind=exc.kind, error=exc.message)
        key = self.cache_key(unit, constraint, task)
        decided = self._decided.pop(key, None) or self.cache.get(key)
        if decided is not None:
            return decided
        verdict = self._decide(unit, constraint, task)
        self.cache.put(key, verdict)
        return verdict

    def _decide(
        self, unit: CodeUnit, constraint: ConstraintSpec, task: Task, *, code_only: bool = False
    ) -> Verdict:
        """The verdict. With `code_only`, a check asking for more than the code (a tool, a
        run of the code) raises `NeedsMoreThanCode` through this method."""
        try:
            self.check_syntax(unit)
            ctx = CheckContext(self, unit, task, code_only=code_only)
            findings = list(constraint.check.evaluate(ctx))
        except Undecidable as exc:
            return Verdict("error", error_kind=exc.kind, error=exc.message)
        except Exception as exc:  # noqa: BLE001 - a broken check must not crash pytest
            return Verdict(
                "error", error_kind="checker-failure", error=_crash_text(constraint, exc)
            )
        notes = tuple(ctx.notes)
        if not findings:
            return Verdict("satisfied", notes=notes)
        evidence = tuple(
            Evidence(self.display(task.path), f.line, f.rule, f.message)
            if f.in_task_file
            else self.locate(unit, f)
            for f in findings
        )
        return Verdict("violated", evidence, notes=notes)

    def locate(self, unit: CodeUnit, finding: Finding) -> Evidence:
        """Map a unit-relative finding to the file and line the user wrote."""
        source = unit.file(finding.path) if finding.path else None
        if source is None:
            return Evidence(self.display(unit.files[0].origin), None, finding.rule, finding.message)
        line = source.origin_line(finding.line)
        column = finding.column if source.line_origin is None else None
        return Evidence(self.display(source.origin), line, finding.rule, finding.message, column)

    def display(self, path: Path) -> str:
        """`path` as shown to the user: relative to the rootdir when inside it."""
        shown = self._shown.get(path)
        if shown is None:
            try:
                shown = path.relative_to(self.rootdir).as_posix()
            except ValueError:
                shown = path.as_posix()
            self._shown[path] = shown
        return shown

    def close(self) -> None:
        if self._tool_threads is not None:
            self._tool_threads.shutdown(wait=True, cancel_futures=True)
        for removal in self._removals:
            removal.join()
        self.cache.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _crash_text(constraint: ConstraintSpec, exc: Exception) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"check {constraint.check_name!r} crashed{where}: {type(exc).__name__}: {exc}"


def _first_syntax_error(unit: CodeUnit, display: Callable[[Path], str]) -> Undecidable | None:
    for source in unit.files:
        try:
            # Parse only: nothing is compiled to bytecode or executed. Warnings about the
            # code (invalid escapes) must not become errors under -W error.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(source.text, filename=source.relpath)
        except SyntaxError as exc:
            line = source.origin_line(exc.lineno)
            where = f"{display(source.origin)}:{line}" if line else display(source.origin)
            return Undecidable("syntax-error", f"{where}: {exc.msg}")
        except (ValueError, RecursionError, MemoryError) as exc:
            return Undecidable("syntax-error", f"{display(source.origin)}: cannot parse: {exc}")
    return None


def _staged_path(name: str, source: SourceFile) -> str:
    """Where `_stage` put `source` of `unit`, relative to the staging dir."""
    return f"{name}/{source.relpath}"


def _run_batch(
    config: ToolConfig,
    units: list[CodeUnit],
    names: dict[str, str],
    root: Path,
    workdir: Path,
) -> _BatchResult:
    """Run the tool of `config` over `units`, staged under `root` by `names`. Runs in a
    worker thread: it reads its arguments only and touches no engine state."""
    if isinstance(config, RuffConfig):
        files = [_staged_path(names[u.key], f) for u in units for f in u.files]
        return [(units, run_ruff(config, root, files), names)]
    parts: _BatchResult = []
    # Single modules share one mypy run: each sits in its own namespace package
    # (`<key>/solution.py`), so module names never collide. A project imports its own
    # top-level modules, so it gets a run rooted at its own folder.
    singles = [u for u in units if not u.is_project]
    if singles:
        files = [_staged_path(names[u.key], u.files[0]) for u in singles]
        run = run_mypy(config, root, files, workdir)
        if run.blocking and len(singles) > 1:
            # One unit stopped mypy for all: check each alone, so it spoils only itself.
            for unit, alone in zip(singles, files, strict=True):
                parts.append(([unit], run_mypy(config, root, [alone], workdir), names))
        else:
            parts.append((singles, run, names))
    for project in (u for u in units if u.is_project):
        folder = root / names[project.key]
        files = [f.relpath for f in project.files]
        parts.append(([project], run_mypy(config, folder, files, workdir), None))
    return parts

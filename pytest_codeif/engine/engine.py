"""The engine reaches verdicts: it loads each unit once, parses each file once, and runs
ruff and mypy once per configuration over every unit planned for that configuration.

Batches form lazily: `plan` records which units need which tool run (only for the
items pytest selected). When the first item runs, `start` launches every planned batch
in background threads (each a ruff or mypy process) and, while they run, decides every
planned constraint that needs nothing but the code, one unit after another, so the
tools and the libcst work overlap and each tree can be dropped once its unit is done.
"""

from __future__ import annotations

import json
import os
import shutil
import traceback
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import Any

from pytest_codeif.checks.base import needs_of
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.module_names import did_you_mean
from pytest_codeif.code.scope import Scope, module_matches
from pytest_codeif.code.unit import CodeUnit, SourceFile, load_unit, unit_key
from pytest_codeif.cores import CoreLimit, cores_for_this_process
from pytest_codeif.engine.context import EngineContext, NeedsMoreThanCode
from pytest_codeif.engine.measurements import MeasurementPending, Measurements, Points
from pytest_codeif.engine.syntax_check import collector_paused, syntax_errors
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.engine.verdict_cache import UNCACHED, VerdictCache, class_fingerprint
from pytest_codeif.errors import Location, TaskFileError, format_key_path
from pytest_codeif.functional.measure import Request, measure
from pytest_codeif.functional.run import FunctionalJob, RunSettings, execute
from pytest_codeif.outcome import (
    CaseResult,
    Evidence,
    Finding,
    FunctionalOutcome,
    Undecidable,
    Verdict,
)
from pytest_codeif.sandbox.isolation import Isolation
from pytest_codeif.spec import CallCase
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.yamlload import LoadedYaml, load_task_yaml

#: Parsed modules kept at once: a task's items run one after another, so a few units'
#: trees are all that is ever read again; keeping every tree cost memory and time (the
#: garbage collector walks them all, and so does the interpreter's exit).
PARSED_KEPT = 64


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
        self.tools = ToolBatches(self.workdir)
        self._units: dict[tuple[Path, str], CodeUnit | Undecidable] = {}
        self._parsed: OrderedDict[tuple[str, str], ParsedModule | Undecidable] = OrderedDict()
        self._syntax: dict[tuple[str, str], Undecidable | None] = {}
        self._keys: dict[tuple[str, int], str] = {}
        self._shown: dict[Path, str] = {}
        #: Task files read again to name the line of an option an error is about.
        self._task_yaml: dict[Path, LoadedYaml] = {}
        #: Planned constraints that need only the code, decided by `start`.
        self._local: list[tuple[Task, ConstraintSpec]] = []
        #: Tasks with a check that reads the parse when its item runs (it observes the
        #: code's calls): their code-only constraints are decided then too, from one
        #: parse, rather than ahead, from a parse evicted by the time the item runs.
        self._parsed_late: set[tuple[Path, str]] = set()
        #: Verdicts reached ahead of their items (by `start`, or read from the cache by
        #: `plan`), taken by `evaluate`.
        self._decided: dict[str, Verdict] = {}
        #: Decide code-only constraints ahead of their items (off under -x / --maxfail,
        #: where the run may stop long before the last item).
        self.eager = True
        #: Runs a task's functional tests (the pool's `outcome`), for checks that judge
        #: observed values; set by whoever owns the runner.
        self.functional: Callable[[Task], FunctionalOutcome] | None = None
        #: Whether a task's functional outcome is in (the pool's `ready`); without it,
        #: measuring constraints are decided when their items run.
        self.functional_ready: Callable[[Task], bool] | None = None
        #: Cores for sandboxed runs and measurements (the functional pool shares it).
        cores = cores_for_this_process()
        self.cores = CoreLimit(cores)
        self.measurements = Measurements(self.cores, cores)
        #: Planned constraints that measure the code, by cache key, with the measurement
        #: each waits for (None: not asked yet); decided ahead by `measure_ahead`.
        self._measuring: dict[str, tuple[Task, ConstraintSpec, Future[Points] | None]] = {}
        #: Results of checks' probes, by unit, function and calls.
        self._probed: dict[tuple[str, str, str], list[CaseResult]] = {}

    # -- units and parses -------------------------------------------------------------
    def unit(self, task: Task) -> CodeUnit:
        """The task's code, read once; raises the cached `Undecidable` if there is none."""
        key = (task.path, task.id)
        if key not in self._units:
            try:
                self._units[key] = load_unit(
                    task.code, task.path, unit_key(task.path, task.id, self.rootdir), task.module
                )
            except Undecidable as exc:
                self._units[key] = exc
        found = self._units[key]
        if isinstance(found, Undecidable):
            raise found
        return found

    def check_syntax(self, unit: CodeUnit, files: Sequence[SourceFile] | None = None) -> None:
        """Raise `Undecidable("syntax-error")` if any module of `unit` (or of `files`, a
        constraint's scope) does not parse.

        Python's own parser decides (see `syntax_check.py`), once per file, so every check
        of a task reports the same error at the same task-file line.
        """
        wanted = unit.files if files is None else files
        fresh = [s for s in wanted if (unit.key, s.relpath) not in self._syntax]
        if fresh:
            found = syntax_errors(fresh, self.display, self.workdir)
            for source, error in zip(fresh, found, strict=True):
                self._syntax[(unit.key, source.relpath)] = error
        for source in wanted:
            error = self._syntax[(unit.key, source.relpath)]
            if error is not None:
                raise error

    def in_scope(self, unit: CodeUnit, scope: Scope) -> tuple[SourceFile, ...]:
        """The files of `unit` that `scope` covers (all of them for no scope)."""
        if scope.is_everything:
            return unit.files
        return tuple(f for f in unit.files if scope.covers(f.relpath, _module_of(unit, f)))

    def parsed(self, unit: CodeUnit, source: SourceFile) -> ParsedModule:
        key = (unit.key, source.relpath)
        found = self._parsed.get(key)
        if found is None:
            try:
                found = ParsedModule(source, unit.place(source.relpath))
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
        needs = needs_of(constraint.check)
        configs = needs.tool_configs
        for config in configs:
            self.tools.plan(config, unit)
        if needs.measures:
            self._measuring[key] = (task, constraint, None)
        if needs.observes_calls:
            self._parsed_late.add((task.path, task.id))
        elif not configs:
            self._local.append((task, constraint))

    def start(self) -> None:
        """Launch every planned tool batch not yet launched, then, while they run, decide
        the planned constraints that need only the code. Cheap when nothing is new."""
        self.tools.launch_planned()
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

    def measure_ahead(self) -> None:
        """Decide the planned measuring constraints whose inputs are known (the task's
        functional outcome is in) and whose measurements are back; start the
        measurements of the others (see `measurements.py`). Cheap when nothing is new:
        a constraint waiting for a measurement is not looked at until it is back."""
        if not self.eager or self.functional_ready is None or not self._measuring:
            return
        for key, (task, constraint, waiting) in list(self._measuring.items()):
            if waiting is not None and not waiting.done():
                continue
            if task.calls and not self.functional_ready(task):
                continue
            try:
                unit = self.unit(task)
                verdict = self._decide(unit, constraint, task, ahead=True)
            except MeasurementPending as pending:
                self._measuring[key] = (task, constraint, pending.waiting)
                continue
            except Undecidable:
                verdict = None
            del self._measuring[key]
            if verdict is not None:
                self._decided[key] = verdict
                self.cache.put(key, verdict)

    def measurements_running(self) -> list[Future[Points]]:
        """The measurements that planned constraints wait for (for whoever wants to wait
        until `measure_ahead` can go on, as the benchmarks do)."""
        return [waiting for _, _, waiting in self._measuring.values() if waiting is not None]

    # -- verdicts ---------------------------------------------------------------------
    def cache_key(self, unit: CodeUnit, constraint: ConstraintSpec, task: Task) -> str:
        """The constraint's verdict-cache key, hashed once (plan and evaluate both ask)."""
        memo = (unit.key, id(constraint))
        if memo not in self._keys:
            source = class_fingerprint(type(constraint.check))
            if source is None:  # the check's source is unknown: never reuse its verdicts
                self._keys[memo] = f"{UNCACHED}{unit.key}:{id(constraint)}"
                return self._keys[memo]
            what: dict[str, Any] = {
                "check": constraint.check_name,
                "check_source": source,
                "options": dict(constraint.check.options),
                "scope": constraint.scope.as_key(),
            }
            needs = needs_of(constraint.check)
            if needs.reads_project_config:
                what["project_config"] = self.tools.config_digest(unit)
            if needs.observes_calls:
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
        self.measure_ahead()
        decided = self._decided.pop(key, None) or self.cache.get(key)
        if decided is not None:
            return decided
        self._measuring.pop(key, None)
        verdict = self._decide(unit, constraint, task)
        self.cache.put(key, verdict)
        return verdict

    def _decide(
        self,
        unit: CodeUnit,
        constraint: ConstraintSpec,
        task: Task,
        *,
        code_only: bool = False,
        ahead: bool = False,
    ) -> Verdict:
        """The verdict. With `code_only`, a check asking for more than the code (a tool, a
        run of the code) raises `NeedsMoreThanCode` through this method; with `ahead`, a
        check asking for a measurement not yet back raises `MeasurementPending`."""
        scope = constraint.scope
        files = self.in_scope(unit, scope)
        if not files:
            return Verdict(
                "error",
                error_kind="invalid-task",
                error=f"no file of the code is in the constraint's scope ({scope.describe()})",
            )
        try:
            if needs_of(constraint.check).judges_import_graph:
                _check_scope_modules(unit, scope)
            # A file outside the scope may not even parse: it does not spoil the verdict.
            self.check_syntax(unit, files)
            ctx = self._context(
                unit, task, constraint.check_name, files, code_only=code_only, ahead=ahead
            )
            findings = list(constraint.check.evaluate(ctx))
            if files is not unit.files:  # only findings in scope count (ruff's, mypy's too)
                shown = {f.relpath for f in files}
                findings = [
                    f for f in findings if f.in_task_file or f.path is None or f.path in shown
                ]
        except Undecidable as exc:
            return Verdict("error", error_kind=exc.kind, error=self._located(task, constraint, exc))
        except RecursionError:
            # Code nested deeper than a recursive walk can go: the code's size, not a bug.
            return Verdict(
                "error",
                error_kind="too-large",
                error=f"check {constraint.check_name!r}: the code is nested too deeply to walk",
            )
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
        links = tuple(self._link(unit, path, line) for path, line in finding.links)
        if source is None:
            shown = self.display(unit.files[0].origin)
            return Evidence(shown, None, finding.rule, finding.message, links=links)
        line = source.origin_line(finding.line)
        column = finding.column if source.line_origin is None else None
        return Evidence(
            self.display(source.origin),
            line,
            finding.rule,
            finding.message,
            column,
            source.relpath,
            finding.line,
            finding.column,
            links,
        )

    def _link(self, unit: CodeUnit, path: str, line: int) -> tuple[str, int | None]:
        """One link of a chain of imports, located as `locate` locates a finding."""
        source = unit.file(path)
        if source is None:
            return path, line
        return self.display(source.origin), source.origin_line(line)

    def _located(self, task: Task, constraint: ConstraintSpec, exc: Undecidable) -> str:
        """The message of `exc`; for one about an option of the constraint, preceded by
        the option's place in the task file (`rules.yaml:12: tasks[0].constraints[1].
        containers[0]: ...`), as a bad task file's problems are."""
        if not exc.key_path:
            return exc.message
        key_path = (*constraint.location.key_path, *exc.key_path)
        line = constraint.location.line
        try:
            loaded = self._task_yaml.get(task.path) or load_task_yaml(task.path)
            self._task_yaml[task.path] = loaded
            line = loaded.location(key_path).line
        except (TaskFileError, OSError):
            pass  # the file changed or went since it was read: the constraint's line
        return f"{self.display(task.path)}:{line}: {format_key_path(key_path)}: {exc.message}"

    def display(self, path: Path) -> str:
        """`path` as shown to the user: relative to the rootdir when inside it, with `..`
        folded as pytest folds it in node ids (`bad/../app.py` is `app.py`)."""
        shown = self._shown.get(path)
        if shown is None:
            plain = Path(os.path.normpath(path))
            try:
                shown = plain.relative_to(self.rootdir).as_posix()
            except ValueError:
                shown = plain.as_posix()
            self._shown[path] = shown
        return shown

    def _context(
        self,
        unit: CodeUnit,
        task: Task,
        check_name: str,
        files: tuple[SourceFile, ...],
        *,
        code_only: bool,
        ahead: bool = False,
    ) -> EngineContext:
        """What a check of `task` sees of `unit` (its `files` in scope), served by this
        engine's caches."""
        return EngineContext(
            unit,
            files,
            task_id=task.id,
            check_name=check_name,
            parse=partial(self.parsed, unit),
            tools=self.tools,
            display=self.display,
            observe=partial(self._observed, task),
            measure=partial(self._measure, unit, task, ahead=ahead),
            probe=partial(self._probe, unit, task),
            code_only=code_only,
        )

    def _observed(self, task: Task) -> list[tuple[CallCase, CaseResult]]:
        if self.functional is None:
            raise Undecidable("checker-failure", "no functional runner is available here")
        outcome = self.functional(task)
        by_label = {c.label: c for c in outcome.cases}
        return [(case, by_label[case.label]) for case in task.calls if case.label in by_label]

    def _measure(
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
            workdir=self.workdir,
            isolation=self.isolation,
            timeout=task.timeout,
        )
        key = (unit.key, module, task.timeout, request)
        if ahead:
            return self.measurements.ahead(key, run)
        return self.measurements.now(key, run)

    def _probe(
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
                self.display(task.path),
                folder=f"probe-{len(self._probed)}",
            )
            # As a pool thread does: a probe running long gives its core back.
            with self.cores.core() as release:
                settings = RunSettings(self.workdir, self.isolation, on_slow=release)
                outcome = execute(job, settings)
            self._probed[key] = list(outcome.cases)
        return self._probed[key]

    def close(self) -> None:
        self.measurements.close()
        self.tools.close()
        self.cache.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _crash_text(constraint: ConstraintSpec, exc: Exception) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"check {constraint.check_name!r} crashed{where}: {type(exc).__name__}: {exc}"


def _check_scope_modules(unit: CodeUnit, scope: Scope) -> None:
    """Raise `Undecidable` (invalid-task) for a `modules` / `exclude-modules` name (no
    wildcard) that covers no module of the project: a typo that would silently judge
    other code than meant."""
    names = unit.names
    if names is None:
        return
    known = set(names.modules.values()) | names.packages
    for key, patterns in (("modules", scope.modules), ("exclude-modules", scope.exclude_modules)):
        for index, pattern in enumerate(patterns):
            if "*" in pattern or any(module_matches(pattern, m) for m in known):
                continue
            raise Undecidable(
                "invalid-task",
                f"`{pattern}` is no module of the code{did_you_mean(pattern, known)}",
                key_path=(key, index),
            )


def _module_of(unit: CodeUnit, source: SourceFile) -> str | None:
    """The module name scope patterns match `source` by (None: no import reaches it)."""
    if not unit.is_project:
        return source.module
    place = unit.place(source.relpath)
    return place.name if place is not None else None

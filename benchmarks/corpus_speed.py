"""The real corpus suite, functional tests included, end to end against its floors.

The suite: the MultiCodeIF responses of ../shared (skipped when absent) converted with
the importer (`codeif import multicodeif`): every mapped constraint, and each task's
call cases as its functional tests. Every figure below is measured in this one run, on
this machine, and printed as a ratio against its baseline:

- cold `pytest --codeif -n 0` (empty pytest cache) vs (tool floor + sandbox floor +
  pytest alone on as many items as the suite has); target at most 1.3;
- tool floor: one run per tool configuration the suite's tasks use, through the
  plugin's own wrappers (the same command lines), and one libcst parse per file, one
  after another (`suite_speed.floor`);
- sandbox floor: the suite's functional work (the same call cases and test files) run
  through the engine's functional pool, with no pytest: on fork servers where this
  build and sandbox have them, else one sandboxed process per run (printed); then its
  growth measurements (the `complexity` constraints), one per core, as the plugin runs
  them, with no pytest;
- pytest alone: as many trivial items, as many of them failing and in error as the
  suite's cold run had (pytest's report of a failure is pytest's cost);
- per-task mode (`--codeif-items=task`, one item per task) vs (tool floor + sandbox
  floor), target at most 1.3; ruff and mypy once per task (sampled and scaled, as
  `suite_speed.naive`) vs per-task mode, target at least 40;
- `-n 2` vs `-n 0`, target no slower; a warm re-run vs `--collect-only`, target at
  most 1.2 (and vs `--collect-only` + pytest alone, which the plugin cannot go under);
- peak RSS of `pytest --codeif` on generated tasks with call cases (10,000 by default),
  target under 1 GiB;
- where the cold run's time goes: the run again under cProfile (the main thread: the
  sandbox and the tools run in other threads and processes, and show as waits).

A feature this build lacks (per-task items, fork servers) prints "n/a (feature absent)".
Every command runs with a timeout, in its own process group; temporary folders are
removed at the end.

Usage: python benchmarks/corpus_speed.py [--sample N] [--generated N] [--naive-sample N]
       [--repeat N] [--no-profile] [--timeout S]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pstats
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from suite_speed import (
    CONSTRAINTS,
    GENERATED,
    NOT_THE_USERS,
    Outcomes,
    Run,
    floor,
    naive,
    pytest_own_cost,
    run_command,
)

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.importers.multicodeif import import_multicodeif
from pytest_codeif.outcome import Undecidable
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.taskfile.model import Task
from pytest_codeif.taskfile.parse import parse_task_file
from pytest_codeif.taskfile.yamlload import load_task_yaml
from pytest_codeif.tools import ToolConfig

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
ABSENT = "n/a (feature absent)"
PYTEST = [sys.executable, "-m", "pytest", "--codeif", "-q", "--no-header", *NOT_THE_USERS]
#: Targets of issue 15: (figure, the most it may be) or, for "at least", a negative bound.
TARGETS = {
    "cold / (tool floor + sandbox floor + pytest alone)": 1.3,
    "per-task mode / (tool floor + sandbox floor)": 1.3,
    "per-task tools / per-task mode": -40.0,
    "-n 2 / -n 0": 1.0,
    "warm / collection": 1.2,
    "peak RSS, generated tasks with call cases (MiB)": 1024.0,
}


@dataclass
class Figures:
    """What a line of the results prints: seconds, and notes."""

    lines: list[tuple[str, str, str]]
    verdicts: list[tuple[str, float | None, str]]

    def row(self, label: str, value: str, note: str = "") -> None:
        self.lines.append((label, value, note))

    def target(self, name: str, ratio: float | None, why: str = "") -> None:
        self.verdicts.append((name, ratio, why))


# -- detection ------------------------------------------------------------------------
def has_item_mode() -> bool:
    """Whether this build knows `--codeif-items` (per-task items)."""
    done = run_command([*PYTEST, "--help"], Path.cwd(), timeout=120)
    return "--codeif-items" in done.output


def has_fork_server() -> bool:
    return importlib.util.find_spec("pytest_codeif.sandbox.fork_server") is not None


# -- the suite ------------------------------------------------------------------------
def sampled_responses(folder: Path, sample: int | None) -> list[Path]:
    """The corpus's response files; with `sample`, about that many responses taken
    evenly from each file, written to `folder` (a temporary folder)."""
    files = sorted((CORPUS / "responses").glob("*.jsonl"))
    if sample is None:
        return files
    folder.mkdir(parents=True)
    per_file = max(1, -(-sample // len(files)))
    chosen = []
    for path in files:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        step = max(1, len(lines) // per_file)
        (folder / path.name).write_text("\n".join(lines[::step][:per_file]) + "\n")
        chosen.append(folder / path.name)
    return chosen


def import_corpus(folder: Path, sample: int | None) -> list[Path]:
    """The corpus converted with the importer into `folder/suite`; the task files."""
    responses = sampled_responses(folder / "responses", sample)
    import_multicodeif(CORPUS / "tasks.jsonl", responses, folder / "suite")
    return sorted((folder / "suite").glob("*.codeif.yaml"))


def load_tasks(files: list[Path]) -> list[Task]:
    registry = builtin_registry()
    return [
        task for path in files for task in parse_task_file(load_task_yaml(path), registry).tasks
    ]


def codes_and_needs(
    tasks: list[Task], root: Path, workdir: Path
) -> tuple[list[str], dict[ToolConfig, list[int]]]:
    """Each task's code (one module per task in this corpus) and, per tool
    configuration the suite's constraints use, the tasks that need it."""
    engine = Engine(root, workdir)
    codes: list[str] = []
    needs: dict[ToolConfig, list[int]] = {}
    for task in tasks:
        try:
            unit = engine.unit(task)
        except Undecidable:
            continue  # no code: decided without any tool
        index = len(codes)
        codes.append("\n".join(source.text for source in unit.files))
        for constraint in task.constraints:
            for config in constraint.check.tool_configs():
                needs.setdefault(config, []).append(index)
    engine.close()
    return codes, needs


@dataclass(frozen=True)
class SandboxFloor:
    """The suite's sandboxed work with no pytest: functional runs, then measurements."""

    functional: float
    measuring: float
    path: str
    tasks: int
    measured: int

    @property
    def seconds(self) -> float:
        return self.functional + self.measuring


def sandbox_floor(tasks: list[Task], root: Path, workdir: Path) -> SandboxFloor:
    """Seconds for the suite's functional work through the engine's pool with no pytest,
    then for its growth measurements (the `complexity` constraints: their inputs grow from
    the observed calls) through the engine's measurements, one per core as the plugin runs
    them; the path it took, and how many tasks had functional tests and measurements."""
    isolation = choose_isolation("auto")
    functional = [task for task in tasks if task.has_tests]
    engine = Engine(root, workdir, isolation)
    pool = engine.runs.pool
    for task in functional:
        pool.plan(task)
    start = time.perf_counter()
    for task in functional:
        pool.outcome(task)
    elapsed = time.perf_counter() - start
    measuring = [(t, c) for t in tasks for c in t.constraints if c.check.measures]
    for task, constraint in measuring:
        engine.plan(task, constraint)
    start = time.perf_counter()
    while True:
        engine.measure_ahead()
        running = engine.measurements_running()
        if not running:
            break
        wait(running, return_when=FIRST_COMPLETED)
    measured = time.perf_counter() - start
    servers = getattr(pool, "servers", None)
    if servers is not None:
        path = f"fork servers ({isolation.name}; {getattr(servers, 'served', '?')} runs served)"
    elif has_fork_server():
        path = f"one sandboxed process per run ({isolation.name} has no fork server)"
    else:
        path = f"one sandboxed process per run ({isolation.name}; fork server: {ABSENT})"
    engine.close()
    return SandboxFloor(elapsed, measured, path, len(functional), len(measuring))


# -- pytest runs ----------------------------------------------------------------------
def cold(folder: Path) -> None:
    """Empty pytest's cache (verdicts and any parse cache live there)."""
    shutil.rmtree(folder / ".pytest_cache", ignore_errors=True)


def pytest_codeif(folder: Path, timeout: float, *extra: str, fresh: bool = False) -> Run:
    if fresh:
        cold(folder)
    done = run_command([*PYTEST, *extra], folder, timeout)
    if done.failed:
        why = "timed out" if done.timed_out else f"exit {done.returncode}"
        print(f"  ! pytest --codeif {' '.join(extra)}: {why}\n{done.output[-1500:]}")
    return done


def items_of(collected: Run) -> int | None:
    """Items counted by `pytest --collect-only -q` ("N tests collected")."""
    found = re.search(r"(\d+) tests? collected", collected.output)
    return int(found.group(1)) if found else None


# -- the profile ----------------------------------------------------------------------
#: Phases of a cold run on the main thread: (label, [(path part, function)...]); each is
#: the cumulative time of every function so named in files whose path contains the part
#: (summed: they do not call one another). None instead of a list: computed below.
PHASES: list[tuple[str, list[tuple[str, str]] | None]] = [
    ("start-up: imports, options, configure", None),
    ("collection", [("_pytest/main.py", "perform_collect")]),
    ("  YAML load", [("taskfile/yamlload.py", "load_yaml_bytes")]),
    ("  task-file parse (schema, build)", [("taskfile/parse.py", "parse_task_file")]),
    (
        "  task-file cache (read, write)",
        [("taskfile/parsed_cache.py", "_get"), ("taskfile/parsed_cache.py", "_put")],
    ),
    ("test loop", [("_pytest/main.py", "pytest_runtestloop")]),
    (
        "  the plugin's item work (setup, runtest)",
        [
            ("pytest_codeif/", "setup"),
            ("pytest_codeif/", "runtest"),
            ("pytest_codeif/plugin.py", "pytest_runtest_setup"),
        ],
    ),
    ("    waiting for sandboxed runs", [("engine/functional_pool.py", "outcome")]),
    (
        "    growth measurements (ahead, waiting)",
        [("engine/measurements.py", "now"), ("engine/engine.py", "measure_ahead")],
    ),
    ("    tool batches (waiting, findings)", [("engine/tool_batches.py", "findings")]),
    ("    code-only checks, decided ahead", [("engine/engine.py", "start")]),
    ("  pytest's own work per item (the rest)", None),
    ("terminal summary", [("_pytest/terminal.py", "pytest_sessionfinish")]),
    ("  failures section", [("_pytest/terminal.py", "summary_failures")]),
    ("  the plugin's summary", [("report/reporter.py", "pytest_terminal_summary")]),
    ("the plugin's session finish (report)", [("report/reporter.py", "pytest_sessionfinish")]),
]


def profile(folder: Path, timeout: float, top: int = 12) -> None:
    """Run the suite cold under cProfile; print the phases and the top functions."""
    out = folder / "profile.out"
    cold(folder)
    cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "pytest", "--codeif", "-q"]
    done = run_command([*cmd, "--no-header", *NOT_THE_USERS, "-n", "0"], folder, timeout)
    if done.failed or not out.exists():
        print(f"  profile: the run failed (exit {done.returncode})\n{done.output[-1000:]}")
        return
    table: dict[Any, Any] = pstats.Stats(str(out)).stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _, ct, _) in table.values())

    def cumulative(wanted: list[tuple[str, str]]) -> float | None:
        hits = [
            v[3] for (f, _, n), v in table.items() for part, name in wanted
            if n == name and part in f.replace(os.sep, "/")
        ]  # fmt: skip
        return sum(hits) if hits else None

    found = {label: cumulative(wanted) for label, wanted in PHASES if wanted is not None}
    session = cumulative([("_pytest/main.py", "wrap_session")])
    loop, ours = found["test loop"], found["  the plugin's item work (setup, runtest)"]
    found["start-up: imports, options, configure"] = None if session is None else total - session
    found["  pytest's own work per item (the rest)"] = (
        None if loop is None or ours is None else loop - ours
    )
    print(f"  cold run under cProfile: {done.seconds:.1f} s wall, {total:.1f} s profiled")
    print("  phases (main thread, cumulative; indented lines are part of the one above):")
    for label, _ in PHASES:
        value = found[label]
        shown = "not called" if value is None else f"{value:7.2f} s  {100 * value / total:5.1f}%"
        print(f"    {label:<44} {shown}")
    rows = sorted(table.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    print(f"  top {top} functions by own time (waits for threads show as lock acquires):")
    for (path, line, name), (_, calls, own, cum, _) in rows:
        where = f"{_short(path)}:{line}({name})"
        print(f"    {own:7.2f} s own {cum:7.2f} s cum {calls:>9} calls  {where}")


def _short(path: str) -> str:
    for marker in ("pytest_codeif/", "_pytest/", "site-packages/", "lib/python3"):
        if marker in path:
            return path[path.index(marker) :]
    return path


# -- generated tasks with call cases --------------------------------------------------
def write_generated(folder: Path, count: int) -> None:
    """`count` generated tasks, each with suite_speed's four constraints and two call
    cases (functional tests) of its own function."""
    tasks = [
        {
            "id": f"t{i}",
            "code": GENERATED.format(i=i),
            "constraints": CONSTRAINTS,
            "entry-point": f"total_{i}",
            "tests": [
                {"args": [[1, 2, 3, 4]], "expect": 6 * i},
                {"args": [[]], "expect": 0},
            ],
        }
        for i in range(count)
    ]
    folder.mkdir(parents=True)
    (folder / "generated.codeif.yaml").write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))


# -- output ---------------------------------------------------------------------------
def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def show(value: float | None, unit: str = "s") -> str:
    """A figure; None is a run that failed (printed above) or could not be made."""
    return "     failed" if value is None else f"{value:8.1f} {unit}"


def verdicts(figures: Figures) -> None:
    print("\ntargets (issue 15):")
    for name, value, why in figures.verdicts:
        bound = TARGETS[name]
        if value is None:
            print(f"  {name:<52} {why or ABSENT}")
            continue
        met = value >= -bound if bound < 0 else value <= bound
        wanted = f">= {-bound:g}" if bound < 0 else f"<= {bound:g}"
        state = "met" if met else "NOT met"
        print(f"  {name:<52} {value:8.2f}  (target {wanted}): {state} {why}")


@contextmanager
def scratch() -> Iterator[Path]:
    """A temporary folder removed at the end, whatever happens."""
    path = Path(tempfile.mkdtemp(prefix="codeif-corpus-speed-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@dataclass
class CorpusRuns:
    """Everything measured on the corpus suite (None: failed, or the feature is absent)."""

    tasks: int
    functional: int
    configs: int
    items: int | None
    cold: float | None
    n2: float | None
    warm: float | None
    collect: float | None
    per_task: float | None
    per_task_items: int | None
    tools: float
    sandbox: SandboxFloor
    outcomes: Outcomes | None
    alone: float | None
    alone_tasks: float | None
    naive: float


def best(runs: list[Run]) -> float | None:
    """The fastest run that ended normally."""
    ok = [run.seconds for run in runs if not run.failed]
    return min(ok) if ok else None


def seconds(run: Run | None) -> float | None:
    return None if run is None or run.failed else run.seconds


def measure_corpus(tmp: Path, args: argparse.Namespace, item_mode: bool) -> CorpusRuns:
    files = import_corpus(tmp, args.sample)
    suite, t = tmp / "suite", args.timeout
    tasks = load_tasks(files)
    codes, needs = codes_and_needs(tasks, suite, tmp / "engine-work")
    # pytest first (cold, warm, collection), then the floors, on the same machine state.
    n0 = [pytest_codeif(suite, t, "-n", "0", fresh=True)]
    warm = pytest_codeif(suite, t, "-n", "0")
    collect = pytest_codeif(suite, t, "--collect-only")
    n2 = [pytest_codeif(suite, t, "-n", "2", fresh=True)]
    for _ in range(args.repeat - 1):  # in turn: load from elsewhere weighs on both
        n0.append(pytest_codeif(suite, t, "-n", "0", fresh=True))
        n2.append(pytest_codeif(suite, t, "-n", "2", fresh=True))
    per_task = per_task_items = None
    if item_mode:
        per_task = pytest_codeif(suite, t, "--codeif-items=task", "-n", "0", fresh=True)
        listed = pytest_codeif(suite, t, "--codeif-items=task", "--collect-only")
        per_task_items = items_of(listed)
    items = items_of(collect)
    tools = floor(tmp / "floor", codes, needs=needs)
    sandbox = sandbox_floor(tasks, suite, tmp / "sandbox-work")
    outcomes = Outcomes.of(n0[0].output)
    return CorpusRuns(
        tasks=len(tasks),
        functional=sandbox.tasks,
        configs=len(needs),
        items=items,
        cold=best(n0),
        n2=best(n2),
        warm=seconds(warm),
        collect=seconds(collect),
        per_task=seconds(per_task),
        per_task_items=per_task_items,
        tools=tools,
        sandbox=sandbox,
        outcomes=outcomes,
        alone=pytest_own_cost(tmp, items, outcomes=outcomes) if items else None,
        alone_tasks=pytest_own_cost(tmp, per_task_items, "own-tasks") if per_task_items else None,
        naive=naive(tmp, codes, args.naive_sample),
    )


def report_corpus(c: CorpusRuns, args: argparse.Namespace, f: Figures, item_mode: bool) -> None:
    sample = f" (sample of {args.sample} responses)" if args.sample else ""
    print(
        f"MultiCodeIF corpus{sample}: {c.tasks} tasks, {c.items} items, {c.functional} with"
        f" functional tests; {c.configs} tool configurations"
    )
    base = None if c.alone is None else c.tools + c.sandbox.seconds + c.alone
    floors = c.tools + c.sandbox.seconds
    f.row("tool floor (one run per tool config, one parse per file)", show(c.tools))
    f.row("sandbox floor, no pytest", show(c.sandbox.seconds), c.sandbox.path)
    f.row("  functional tests", show(c.sandbox.functional), f"{c.sandbox.tasks} tasks")
    measured = f"{c.sandbox.measured} complexity constraints, one per core"
    f.row("  growth measurements", show(c.sandbox.measuring), measured)
    mix = c.outcomes
    same = f" ({mix.passed} pass, {mix.failed} fail, {mix.errors} err)" if mix else ""
    f.row(f"pytest alone, {c.items} trivial items{same}", show(c.alone))
    f.row("  sum: the baseline of the cold run", show(base))
    f.row("pytest --codeif -n 0, cold", show(c.cold), _x(c.cold, base, "baseline"))
    f.row("pytest --codeif -n 2, cold", show(c.n2), _x(c.n2, c.cold, "-n 0"))
    f.row("pytest --codeif, warm re-run", show(c.warm), _x(c.warm, c.cold, "cold"))
    f.row("pytest --codeif --collect-only", show(c.collect), _x(c.warm, c.collect, "warm/this"))
    warm_base = None if c.collect is None or c.alone is None else c.collect + c.alone
    against_warm = _x(c.warm, warm_base, "warm/this")
    f.row("  + pytest alone (its per-item cost)", show(warm_base), against_warm)
    if item_mode:
        f.row("per-task mode, cold", show(c.per_task), _x(c.per_task, floors, "tool+sandbox"))
        f.row(f"  pytest alone, {c.per_task_items} trivial items", show(c.alone_tasks))
    else:
        f.row("per-task mode (--codeif-items=task)", ABSENT)
    label = f"per-task ruff + mypy ({args.naive_sample} sampled, scaled)"
    against = _x(c.naive, c.per_task, "per-task mode") if item_mode else _x(c.naive, c.cold, "cold")
    f.row(label, show(c.naive), against)
    bound = _x(c.naive, floors, "the most per-task mode could be")
    f.row("  per-task tools / (tool floor + sandbox floor)", "", bound)
    absent = "" if item_mode else ABSENT
    f.target("cold / (tool floor + sandbox floor + pytest alone)", ratio(c.cold, base))
    f.target("per-task mode / (tool floor + sandbox floor)", ratio(c.per_task, floors), absent)
    f.target("per-task tools / per-task mode", ratio(c.naive, c.per_task), absent)
    f.target("-n 2 / -n 0", ratio(c.n2, c.cold))
    f.target("warm / collection", ratio(c.warm, c.collect))


def corpus(args: argparse.Namespace, figures: Figures, item_mode: bool) -> None:
    if not (CORPUS / "tasks.jsonl").is_file():
        print(f"MultiCodeIF corpus: skipped ({CORPUS} absent)")
        for name in list(TARGETS)[:5]:
            figures.target(name, None, "skipped: corpus absent")
        return
    with scratch() as tmp:
        runs = measure_corpus(tmp, args, item_mode)
        report_corpus(runs, args, figures, item_mode)
        _print_rows(figures)
        figures.lines.clear()
        if not args.no_profile:
            print("where the cold run's time goes:")
            profile(tmp / "suite", args.timeout)


def _x(value: float | None, base: float | None, what: str) -> str:
    found = ratio(value, base)
    return "" if found is None else f"{found:6.2f} x {what}"


def _print_rows(figures: Figures) -> None:
    for label, value, note in figures.lines:
        print(f"  {label:<58} {value}  {note}")


def generated(args: argparse.Namespace, figures: Figures) -> None:
    with scratch() as tmp:
        write_generated(tmp / "suite", args.generated)
        done = pytest_codeif(tmp / "suite", args.timeout, "-n", "0", fresh=True)
    label = f"generated, {args.generated} tasks with call cases, cold -n 0"
    figures.row(label, show(None if done.failed else done.seconds))
    figures.row("  peak RSS, largest process", show(done.rss_mib, "MiB"))
    note = "" if args.generated == 10_000 else f"(at {args.generated} tasks, not 10,000)"
    figures.target("peak RSS, generated tasks with call cases (MiB)", done.rss_mib, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, help="corpus responses to take (default all)")
    parser.add_argument("--generated", type=int, default=10_000, help="tasks for peak RSS")
    parser.add_argument("--naive-sample", type=int, default=30, help="tasks for per-task tools")
    parser.add_argument("--repeat", type=int, default=1, help="cold -n 0 / -n 2 pairs (best)")
    parser.add_argument("--no-profile", action="store_true", help="leave out the profile")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per command")
    args = parser.parse_args()
    item_mode = has_item_mode()
    isolation = choose_isolation("auto")
    print(
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; sandbox {isolation.name}; "
        f"per-task items: {'yes' if item_mode else ABSENT}; "
        f"fork server: {'yes' if has_fork_server() else ABSENT}"
    )
    figures = Figures([], [])
    corpus(args, figures, item_mode)
    generated(args, figures)
    print()
    _print_rows(figures)
    verdicts(figures)


if __name__ == "__main__":
    main()

"""What one sandboxed run costs, and what the sandbox costs a real suite.

Per run: a trivial call case (`fib(10)`), one run at a time, median of N runs, from a
parent holding as much memory as pytest does on the corpus (150 MiB by default: the cost
of fork, unlike vfork's, grows with it). Paths, all measured in this run:
- old path (the baseline): the one-process path as it was before issue 15, copied below:
  rlimits set in `preexec_fn` (so no vfork), `Popen.wait(timeout=...)` (which polls), and
  `python -s -P harness.py` with site processing;
- new path: `sandbox.process.run_python` (no preexec_fn, a pidfd, `python -S`);
- fork server: `sandbox.fork_server.ForkServer.run` (one warmed interpreter forks a run);
- floor: bubblewrap (and setpriv, as root) starting `python -S -s -P harness.py` through
  `subprocess.run`, nothing else: the least a fresh sandboxed process costs here;
- for the fork server, a no-op script beside the harness: the server's own share
  (protocol, forks, namespaces, mounts, exit) against the harness's (imports, calls).

Corpus (the MultiCodeIF responses of ../shared through `codeif import multicodeif`;
skipped when absent): the functional tests only (every item but a task's `tests` item is
deselected), end to end, `pytest --codeif -n 0` (the baseline) and `-n 2`; and the same
functional work in process, a pool running one process per run against a pool of fork
servers. `--full` also times the whole suite with `-n 0` and `-n 2`.

Every figure is taken with the compared paths in turn (run by run, or suite by suite), so
that load from elsewhere on the machine weighs on each alike; end-to-end figures are the
best of `--repeat` runs.

Usage: python benchmarks/sandbox_speed.py [--runs N] [--ballast-mib M] [--full] [--repeat N]
       [--no-corpus]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.functional_pool import pool_size
from pytest_codeif.functional.run import HARNESS
from pytest_codeif.importers.multicodeif import import_multicodeif
from pytest_codeif.sandbox.fork_server import ForkServer
from pytest_codeif.sandbox.isolation import Isolation, choose_isolation
from pytest_codeif.sandbox.process import (
    SLOTS,
    STARTUP_SECONDS,
    Limits,
    rlimits,
    run_python,
    scrubbed_env,
)
from pytest_codeif.taskfile.parse import parse_task_file
from pytest_codeif.taskfile.yamlload import load_task_yaml

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
CODE = (
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
)
REQUEST = {"module": "solution", "cases": [{"function": "fib", "args": [10], "kwargs": {}}]}
ONLY_FUNCTIONAL = '''
def pytest_collection_modifyitems(config, items):
    """Keep each task's functional tests (its `tests` item) only."""
    kept = [item for item in items if item.name == "tests"]
    config.hook.pytest_deselected(items=[item for item in items if item.name != "tests"])
    items[:] = kept
'''
PYTEST = ["-m", "pytest", "--codeif", "-q", "--no-header", "-p", "no:cacheprovider"]
PYTEST += ["-p", "no:hypothesispytest", "-p", "no:randomly", "--codeif-no-cache"]


class Folders:
    """One run's folders, as `functional.folders.run_folders` makes them."""

    def __init__(self, root: Path) -> None:
        self.shared = root / "runs"
        self.code = self.shared / "k" / "calls" / "code"
        self.io = self.shared / "k" / "calls" / "io"
        self.code.mkdir(parents=True)
        self.io.mkdir(parents=True)
        (self.code / "solution.py").write_text(CODE)
        (self.code / "noop.py").write_text("")
        self.request = self.io / "request.json"
        self.request.write_text(json.dumps({"root": str(self.code), **REQUEST}))


def old_path(folders: Folders, isolation: Isolation) -> str:
    """The one-process path before issue 15 (sandbox/process.py at the time)."""
    limits = Limits()
    pairs = rlimits(limits, isolation)

    def limiter() -> None:
        for which, value in pairs:
            resource.setrlimit(which, (value, value))

    uid = SLOTS.acquire(isolation) if isolation.as_nobody else None
    io = folders.io
    try:
        with (
            (io / "stdout").open("wb") as out,
            (io / "stderr").open("wb") as err,
            (io / "channel").open("wb") as channel,
            folders.request.open("rb") as source,
        ):
            argv = [sys.executable, "-s", "-P", str(HARNESS), "--channel", str(channel.fileno())]
            cmd, cwd, env = isolation.wrap(argv, folders.code, io, scrubbed_env(), uid)
            proc = subprocess.Popen(
                cmd,
                cwd=cwd,
                env=env,
                stdin=source,
                stdout=out,
                stderr=err,
                pass_fds=(channel.fileno(),),
                start_new_session=True,
                preexec_fn=limiter,  # noqa: PLW1509 - the path being measured
            )
            try:
                proc.wait(timeout=limits.timeout + STARTUP_SECONDS)
            finally:
                proc.wait()
    finally:
        if uid is not None:
            SLOTS.release(uid, reap=True)  # the old path reaped after every run
    return (io / "channel").read_text()


def new_path(folders: Folders, isolation: Isolation) -> str:
    args = [str(HARNESS), "--channel", "{channel}"]
    return run_python(
        args, folders.code, folders.io, Limits(), isolation, stdin=folders.request
    ).channel


def floor(folders: Folders, isolation: Isolation) -> str:
    """bubblewrap (+ setpriv) and the harness without site, and nothing else."""
    channel = folders.io / "floor-channel"
    with channel.open("wb") as out, folders.request.open("rb") as source:
        argv = [sys.executable, "-S", "-s", "-P", str(HARNESS), "--channel", str(out.fileno())]
        cmd, cwd, env = isolation.wrap(argv, folders.code, folders.io, scrubbed_env(), None)
        subprocess.run(
            cmd, cwd=cwd, env=env, stdin=source, stdout=subprocess.DEVNULL, check=False,
            pass_fds=(out.fileno(),),
        )  # fmt: skip
    return channel.read_text()


def interleaved_medians(paths: dict[str, Callable[[], str]], runs: int) -> dict[str, float]:
    """Median milliseconds per path, the paths taking turns run by run: load from elsewhere
    on the machine then weighs on every path alike."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(runs):
        for name, run in paths.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(found) * 1000 for name, found in times.items()}


def per_run(runs: int, isolation: Isolation) -> None:
    with tempfile.TemporaryDirectory(prefix="codeif-bench-") as tmp:
        folders = Folders(Path(tmp))
        server = ForkServer(isolation, folders.shared, Path(tmp) / "server.log")
        args = [str(HARNESS), "--channel", "{channel}"]

        files = {"solution.py": CODE.encode(), "noop.py": b""}  # in memory, never on disk

        def forked() -> str:
            run = server.run(
                args, folders.code, folders.io, Limits(), files=files, stdin=folders.request
            )
            return run.channel

        def noop() -> str:
            script = [str(folders.code / "noop.py")]
            return server.run(script, folders.code, folders.io, Limits(), files=files).stdout

        paths: dict[str, Callable[[], str]] = {
            "old path (baseline)": lambda: old_path(folders, isolation),
            "new path": lambda: new_path(folders, isolation),
            "fork server": forked,
            "floor": lambda: floor(folders, isolation),
        }
        for name, run in paths.items():
            if '"value": 55' not in run():  # also a warm-up run
                raise SystemExit(f"{name}: the run did not report fib(10) = 55")
        figures = interleaved_medians({**paths, "fork server, no-op script": noop}, runs)
        server.close()
    base = figures["old path (baseline)"]
    print(f"one sandboxed run (fib(10)), median of {runs} (paths in turn), {isolation.describe()}")
    for name, ms in figures.items():
        print(f"  {name:28} {ms:7.1f} ms   {base / ms:5.2f}x faster than the old path")
    print(f"  new path / floor: {figures['new path'] / figures['floor']:.2f}")
    print(f"  fork server / floor: {figures['fork server'] / figures['floor']:.2f}")


def import_corpus(out: Path) -> list[Path]:
    responses = sorted((CORPUS / "responses").glob("*.jsonl"))
    import_multicodeif(CORPUS / "tasks.jsonl", responses, out)
    return sorted(out.glob("*.codeif.yaml"))


def in_process(
    files: list[Path], isolation: Isolation, fork_servers: bool
) -> tuple[float, int, float, dict[tuple[str, str], str]]:
    """Seconds for every functional job of the corpus, the runs a server answered, the
    CPU seconds their processes used (code under evaluation and harness), and each task's
    functional verdict."""
    registry = builtin_registry()
    tasks = [t for f in files for t in parse_task_file(load_task_yaml(f), registry).tasks]
    tasks = [t for t in tasks if t.calls or t.pytest_files]
    with tempfile.TemporaryDirectory(prefix="codeif-bench-work-") as work:
        engine = Engine(files[0].parent, Path(work), isolation, fork_servers=fork_servers)
        pool = engine.runs.pool
        for task in tasks:
            pool.plan(task)
        start = time.perf_counter()
        verdicts = {(str(t.path), t.id): pool.outcome(t).verdict.status for t in tasks}
        elapsed = time.perf_counter() - start
        servers = pool.servers
        served, cpu = (servers.served, servers.cpu_seconds) if servers else (0, 0.0)
        engine.close()
    return elapsed, served, cpu, verdicts


def end_to_end(folder: Path, workers: int) -> tuple[float, dict[str, Any]]:
    report = folder / f"report-n{workers}.json"
    cmd = [sys.executable, *PYTEST, "-n", str(workers), f"--codeif-report={report}", "."]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=folder, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    return elapsed, json.loads(report.read_text())


def statuses(report: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    found = {}
    for task in report["tasks"]:
        for outcome in task["constraints"]:
            found[(task["file"], task["id"], outcome["constraint"])] = outcome["status"]
        if task["functional"]:
            found[(task["file"], task["id"], "tests")] = task["functional"]["status"]
    return found


def corpus(isolation: Isolation, full: bool, repeat: int) -> None:
    if not (CORPUS / "tasks.jsonl").is_file():
        print(f"\ncorpus: skipped (the MultiCodeIF corpus is not at {CORPUS})")
        return
    with tempfile.TemporaryDirectory(prefix="codeif-bench-corpus-") as tmp:
        files = import_corpus(Path(tmp) / "functional")
        (Path(tmp) / "functional" / "conftest.py").write_text(ONLY_FUNCTIONAL)
        one, _, _, one_verdicts = in_process(files, isolation, fork_servers=False)
        forked, served, cpu, forked_verdicts = in_process(files, isolation, fork_servers=True)
        differ = sorted(k for k in one_verdicts if one_verdicts[k] != forked_verdicts.get(k))
        print(f"\ncorpus, functional tests in process, a pool of {pool_size()} threads:")
        print(f"  one process per run (baseline): {one:6.1f} s")
        print(f"  fork servers:                   {forked:6.1f} s   {one / forked:.2f}x;", end="")
        print(f" {len(differ)} of {len(one_verdicts)} verdicts differ")
        for key in differ[:5]:
            print(f"    {'::'.join(key)}: {one_verdicts[key]} in a process of its own,", end="")
            print(f" {forked_verdicts.get(key)} on a fork server")
        print(
            f"  {served} runs answered by the fork servers; their processes (the code and"
            f" the harness) used {cpu:.1f} s of CPU, {cpu / max(1, served) * 1000:.1f} ms per run"
        )
        suites = [("functional tests only", Path(tmp) / "functional")]
        if full:
            import_corpus(Path(tmp) / "full")
            suites.append(("whole suite", Path(tmp) / "full"))
        for name, folder in suites:
            times: dict[int, list[float]] = {0: [], 2: []}
            reports: dict[int, dict[str, Any]] = {}
            for _ in range(repeat):  # in turn, so that load from elsewhere weighs alike
                for workers in (0, 2):
                    elapsed, reports[workers] = end_to_end(folder, workers)
                    times[workers].append(elapsed)
            a, b = statuses(reports[0]), statuses(reports[2])
            differ = sorted(k for k in a if a[k] != b.get(k))
            n0, n2 = min(times[0]), min(times[2])
            print(f"\ncorpus, {name}, end to end (pytest --codeif), best of {repeat}:")
            print(f"  -n 0 (baseline): {n0:6.1f} s")
            print(f"  -n 2:            {n2:6.1f} s   {n0 / n2:.2f}x; {len(differ)} verdicts differ")
            for key in differ[:5]:
                print(f"    {'::'.join(key)}: {a[key]} with -n 0, {b.get(key)} with -n 2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="runs per path (median)")
    parser.add_argument("--ballast-mib", type=int, default=150, help="memory the parent holds")
    parser.add_argument("--full", action="store_true", help="also time the whole corpus suite")
    parser.add_argument("--no-corpus", action="store_true", help="per-run figures only")
    parser.add_argument("--repeat", type=int, default=1, help="end-to-end runs each (best)")
    args = parser.parse_args()
    isolation = choose_isolation("auto")
    if not isolation.forks:
        raise SystemExit(f"skipped: no fork server with this sandbox ({isolation.describe()})")
    ballast = bytearray(args.ballast_mib * 1024 * 1024)
    ballast[:: resource.getpagesize()] = b"x" * len(ballast[:: resource.getpagesize()])
    print(f"{os.cpu_count()} cores; the parent holds {args.ballast_mib} MiB")
    per_run(args.runs, isolation)
    del ballast
    if not args.no_corpus:
        corpus(isolation, args.full, args.repeat)


if __name__ == "__main__":
    main()

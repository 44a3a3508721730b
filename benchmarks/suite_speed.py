"""End-to-end speed of `pytest --codeif` against the floor and the naive way.

Suites: the 2,118 real MultiCodeIF responses (../shared, skipped when absent) and a
generated suite (default 10,000 tasks). Every task carries the same four constraints:
ruff (F82, E9), mypy (name-defined), construct (no `global`), calls (no eval/exec).

Figures, all measured in the same run on the same machine:
- cold: `pytest --codeif` with an empty verdict cache; warm: the same run again;
- floor: the same tools by hand, in batch: one ruff run, one mypy run (through the
  plugin's own tool wrappers: the same command lines), one libcst parse per file (what
  the plugin cannot avoid doing), one after another; and the same with the two tools
  running in the background while the files are parsed, as the plugin does;
- pytest alone: pytest on as many trivial items as the suite has;
- naive: ruff and mypy invoked once per task, timed on a sample and scaled up;
- peak RSS of the largest process of the cold run.

Every pytest run here leaves out Hypothesis's pytest plugin: Hypothesis is a test
dependency of this repository, not of pytest-codeif, and its plugin imports Hypothesis
at the end of every session (about a second), which no user of the plugin pays.

With `--items`, instead: one pytest item per task (`--codeif-items=task`) against the
default (one per constraint), both with an empty verdict cache, each the best of
`--rounds` runs taken alternately, on the corpus and generated suites of each `--sizes`;
beside them the floor (tools overlapped with the parses) and pytest alone on as many
trivial items as each mode has.

Usage: python benchmarks/suite_speed.py [--generated N] [--sample N]
       python benchmarks/suite_speed.py --items [--sizes 2000 10000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import libcst as cst
import yaml

from pytest_codeif.checks.mypy import MypyCheck
from pytest_codeif.checks.ruff import RuffCheck
from pytest_codeif.code.extract import extract_python
from pytest_codeif.tools import RuffConfig, ToolConfig, ruff_binary, run_mypy, run_ruff

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
CONSTRAINTS: list[dict[str, Any]] = [
    {"check": "ruff", "select": ["F82", "E9"]},
    {"check": "mypy", "error-codes": ["name-defined"]},
    {"check": "construct", "forbid": ["global"]},
    {"check": "calls", "forbid": ["eval", "exec"]},
]
GENERATED = '''
import math

COUNT_{i} = {i}


def area_{i}(radius: float) -> float:
    """Area of a circle."""
    return math.pi * radius * radius + COUNT_{i}


def total_{i}(values: list[int]) -> int:
    return sum(v * {i} for v in values if v % 2 == 0)
'''


def corpus_codes() -> list[str]:
    codes = []
    for path in sorted((CORPUS / "responses").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            extracted = extract_python(json.loads(line)["response"])
            codes.append(extracted.text if extracted else "x = 1\n")
    return codes


def write_suite(folder: Path, codes: list[str]) -> Path:
    tasks = [
        {"id": f"t{i}", "code": code, "constraints": CONSTRAINTS} for i, code in enumerate(codes)
    ]
    path = folder / "suite.codeif.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    return path


#: Plugins of this repository's test environment that a user of pytest-codeif lacks.
NOT_THE_USERS = ["-p", "no:hypothesispytest", "-p", "no:randomly"]


#: Seconds any one command of a benchmark may take before it is killed.
TIMEOUT = 1800.0


@dataclass(frozen=True)
class Run:
    """One command's wall time, the peak RSS of its largest process (itself or any
    descendant it waited for), and how it ended."""

    seconds: float
    rss_mib: float
    returncode: int
    timed_out: bool
    output: str

    @property
    def failed(self) -> bool:
        """pytest's exit 0 and 1 are runs that ended normally (1: some test failed)."""
        return self.timed_out or self.returncode not in (0, 1)


def run_command(cmd: list[str], cwd: Path, timeout: float = TIMEOUT) -> Run:
    """Run `cmd` in a process group of its own, killed with all its processes after
    `timeout` seconds; the output goes to a file (no pipe to fill)."""
    with tempfile.TemporaryFile() as output:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            # wait4 reports the child's rusage, whose maxrss covers its waited-for
            # descendants too: the peak of this run alone, not of the whole benchmark.
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # nothing of it may outlive the run
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read().decode("utf-8", "replace")
    return Run(seconds, usage.ru_maxrss / 1024, proc.returncode, expired.is_set(), text)


def pytest_run(folder: Path, *extra: str) -> float:
    cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", *NOT_THE_USERS, *extra]
    return run_command(cmd, folder).seconds


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _floor_tools(
    codes: list[str], folder: Path, needs: dict[ToolConfig, list[int]]
) -> list[Callable[[], Any]]:
    """Stage the codes that `needs` names (config -> indices into `codes`) and return one
    run per configuration, as the plugin calls them (its own wrappers: same command
    lines, same JSON parsing)."""
    units = folder / "units"
    for i in sorted({i for chosen in needs.values() for i in chosen}):
        target = units / f"u{i}" / "solution.py"
        target.parent.mkdir(parents=True)
        target.write_text(codes[i])
    runs: list[Callable[[], Any]] = []
    for config, chosen in needs.items():
        files = [f"u{i}/solution.py" for i in chosen]
        if isinstance(config, RuffConfig):
            runs.append(partial(run_ruff, config, units, files))
        else:
            runs.append(partial(run_mypy, config, units, files, folder))
    return runs


def default_needs(codes: list[str]) -> dict[ToolConfig, list[int]]:
    """The tool runs of this script's own suites: every task needs one ruff and one mypy
    configuration."""
    everyone = list(range(len(codes)))
    return {
        RuffCheck({"select": ["F82", "E9"]}).config: everyone,
        MypyCheck({"error-codes": ["name-defined"]}).config: everyone,
    }


def _parse_all(codes: list[str]) -> None:
    for code in codes:
        with contextlib.suppress(cst.ParserSyntaxError):
            cst.parse_module(code)


def floor(
    folder: Path,
    codes: list[str],
    *,
    overlapped: bool = False,
    needs: dict[ToolConfig, list[int]] | None = None,
) -> float:
    """One run per tool configuration (`needs`: configuration -> indices into `codes`;
    by default one ruff and one mypy over every code), one libcst parse per file, one
    after another; with `overlapped`, the tools run in background threads while the
    files are parsed."""
    # Code that does not parse is decided without tools (as the plugin does); given to
    # mypy it would stop the whole run at the first syntax error.
    parsable = {i for i, code in enumerate(codes) if _parses(code)}
    wanted = default_needs(codes) if needs is None else needs
    tools = _floor_tools(
        codes, folder, {c: [i for i in chosen if i in parsable] for c, chosen in wanted.items()}
    )
    codes = [codes[i] for i in sorted(parsable)]
    start = time.perf_counter()
    if overlapped:
        with ThreadPoolExecutor(2) as threads:
            running = [threads.submit(tool) for tool in tools]
            _parse_all(codes)
            for future in running:
                future.result()
    else:
        for tool in tools:
            tool()
        _parse_all(codes)
    return time.perf_counter() - start


def naive(folder: Path, codes: list[str], sample: int) -> float:
    """Ruff and mypy once per task on `sample` tasks, scaled to all tasks."""
    chosen = codes[:sample]
    start = time.perf_counter()
    for i, code in enumerate(chosen):
        target = folder / "naive" / f"n{i}.py"
        target.parent.mkdir(exist_ok=True)
        target.write_text(code)
        subprocess.run(
            [ruff_binary(), "check", "--isolated", "--no-cache", "--select", "F82,E9", str(target)],
            capture_output=True,
            check=False,
            timeout=TIMEOUT,
        )
        subprocess.run(
            [sys.executable, "-m", "mypy", f"--cache-dir={folder / 'nc'}", str(target)],
            capture_output=True,
            check=False,
            timeout=TIMEOUT,
        )
    return (time.perf_counter() - start) * len(codes) / len(chosen)


def pytest_own_cost(
    folder: Path, items: int, name: str = "own", outcomes: Outcomes | None = None
) -> float:
    """pytest alone on as many trivial items as the suite has (no plugin work at all),
    in the new folder `folder/name`. With `outcomes`, as many of them fail and err in
    setup as the suite's did: pytest's report of each failure is its own cost too."""
    failed, errors = (outcomes.failed, outcomes.errors) if outcomes else (0, 0)
    (folder / name).mkdir(parents=True)
    (folder / name / "test_items.py").write_text(
        "import pytest\n\n"
        "@pytest.fixture\n"
        "def ready(i):\n"
        f"    if {failed} <= i < {failed + errors}:\n"
        "        raise RuntimeError(f'constraint {i} could not be decided')\n\n"
        f"@pytest.mark.parametrize('i', range({items}))\n"
        "def test_item(i, ready):\n"
        f"    assert i >= {failed}, f'constraint {{i}} violated'\n"
    )
    cmd = [sys.executable, "-m", "pytest", "-q", *NOT_THE_USERS, "test_items.py"]
    return run_command(cmd, folder / name).seconds


@dataclass(frozen=True)
class Outcomes:
    """Items passed, failed and in error, as pytest's last line counts them."""

    passed: int
    failed: int
    errors: int

    @classmethod
    def of(cls, output: str) -> Outcomes | None:
        last = output.strip().splitlines()[-1] if output.strip() else ""
        counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?)", last)}
        if not counts:
            return None
        errors = counts.get("errors", counts.get("error", 0))
        return cls(counts.get("passed", 0), counts.get("failed", 0), errors)


def measure(name: str, codes: list[str], sample: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_suite(folder, codes)
        first = run_command(
            [sys.executable, "-m", "pytest", "--codeif", "-q", *NOT_THE_USERS], folder
        )
        cold = first.seconds
        warm = pytest_run(folder)
        collect = pytest_run(folder, "--collect-only")
        base = floor(folder / "floor", codes)
        both = floor(folder / "floor-overlapped", codes, overlapped=True)
        own = pytest_own_cost(folder, len(codes) * len(CONSTRAINTS))
        slow = naive(folder, codes, sample)
        shutil.rmtree(folder / "floor", ignore_errors=True)
        shutil.rmtree(folder / "floor-overlapped", ignore_errors=True)
    rows = [
        ("floor (one ruff, one mypy, one parse per file)", base, ""),
        ("  the same, tools overlapped with the parses", both, f"{both / base:5.2f} x floor"),
        ("pytest alone, as many trivial items", own, ""),
        ("pytest --codeif, cold cache", cold, f"{cold / base:5.2f} x floor"),
        ("  (floor + pytest alone)", base + own, f"cold = {cold / (base + own):4.2f} x this"),
        ("pytest --codeif, warm cache", warm, f"{warm / cold:5.2f} x cold"),
        ("pytest --codeif --collect-only", collect, f"warm = {warm / collect:4.2f} x this"),
        (f"naive: ruff + mypy per task ({sample} sampled)", slow, f"{slow / cold:5.1f} x cold"),
    ]
    print(f"{name}: {len(codes)} tasks x {len(CONSTRAINTS)} constraints")
    for label, seconds, ratio in rows:
        print(f"  {label:<48} {seconds:7.1f} s  {ratio}")
    print(f"  {'peak RSS, largest process of the cold run':<48} {first.rss_mib:7.0f} MiB")


def cpu_of_children() -> float:
    """CPU seconds (user + system) of every waited-for child process so far, their own
    children (ruff, mypy, sandboxes) included: a figure other load on the machine
    changes far less than wall time."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def compare_items(name: str, codes: list[str], rounds: int) -> None:
    """`--codeif-items=task` against the default on one suite, best of `rounds` each,
    in wall time and in CPU time."""
    fresh = ("-p", "no:cacheprovider", "--codeif-no-cache")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_suite(folder, codes)
        default = task = cpu_default = cpu_task = float("inf")
        for _ in range(rounds):
            before = cpu_of_children()
            default = min(default, pytest_run(folder, *fresh))
            middle = cpu_of_children()
            task = min(task, pytest_run(folder, *fresh, "--codeif-items=task"))
            cpu_default = min(cpu_default, middle - before)
            cpu_task = min(cpu_task, cpu_of_children() - middle)
        both = floor(folder / "floor", codes, overlapped=True)
        own_default = pytest_own_cost(folder / "default", len(codes) * len(CONSTRAINTS))
        own_task = pytest_own_cost(folder / "task", len(codes))
    rows = [
        ("floor (tools overlapped with the parses)", both, ""),
        ("pytest alone, one item per constraint", own_default, ""),
        ("pytest alone, one item per task", own_task, ""),
        ("pytest --codeif (one item per constraint)", default, f"{default / both:5.2f} x floor"),
        ("pytest --codeif --codeif-items=task", task, f"{task / both:5.2f} x floor"),
        ("  task items against the default", task, f"{task / default:5.2f} x default"),
        ("CPU time, one item per constraint", cpu_default, ""),
        ("CPU time, one item per task", cpu_task, f"{cpu_task / cpu_default:5.2f} x default"),
    ]
    print(f"{name}: {len(codes)} tasks x {len(CONSTRAINTS)} constraints, best of {rounds}")
    for label, seconds, ratio in rows:
        print(f"  {label:<48} {seconds:7.1f} s  {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--generated", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--items", action="store_true", help="compare --codeif-items modes")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 10_000])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.items:
        if CORPUS.is_dir():
            compare_items("MultiCodeIF corpus", corpus_codes(), args.rounds)
        else:
            print(f"MultiCodeIF corpus: skipped ({CORPUS} absent)")
        for size in args.sizes:
            codes = [GENERATED.format(i=i) for i in range(size)]
            compare_items("generated suite", codes, args.rounds)
        return
    if CORPUS.is_dir():
        measure("MultiCodeIF corpus", corpus_codes(), args.sample)
    else:
        print(f"MultiCodeIF corpus: skipped ({CORPUS} absent)")
    measure("generated suite", [GENERATED.format(i=i) for i in range(args.generated)], args.sample)


if __name__ == "__main__":
    main()

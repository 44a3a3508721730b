"""Functional tests run side by side: the same sandboxed runs with a pool of one
process at a time (the baseline) and with the default pool (one per core); then the same
suite end to end with `pytest --codeif -n 0` (the baseline) and `-n 2`.

Usage: python benchmarks/functional_pool.py [--tasks N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.functional_pool import pool_size
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.taskfile.parse import parse_task_file
from pytest_codeif.taskfile.yamlload import load_task_yaml

CODE = (
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
)


def make_tasks(folder: Path, count: int) -> Path:
    tasks = [
        {
            "id": f"t{i}",
            "code": CODE + f"\nOFFSET = {i}\n",
            "entry-point": "fib",
            "tests": [{"args": [n], "expect": expected} for n, expected in ((10, 55), (20, 6765))],
        }
        for i in range(count)
    ]
    path = folder / "bench.codeif.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks}))
    return path


def timed(path: Path, size: int) -> float:
    tasks = parse_task_file(load_task_yaml(path), builtin_registry()).tasks
    with tempfile.TemporaryDirectory() as work:
        engine = Engine(path.parent, Path(work), choose_isolation("auto"), pool_size=size)
        pool = engine.runs.pool
        for task in tasks:
            pool.plan(task)
        start = time.perf_counter()
        statuses = {pool.outcome(task).verdict.status for task in tasks}
        elapsed = time.perf_counter() - start
        engine.close()
    if statuses != {"satisfied"}:
        raise SystemExit(f"unexpected outcomes: {statuses}")
    return elapsed


def end_to_end(folder: Path, workers: int) -> float:
    cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", "-p", "no:cacheprovider"]
    cmd += ["-n", str(workers)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest -n {workers} failed:\n{done.stdout[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = make_tasks(Path(tmp), args.tasks)
        size = pool_size()
        one, many = timed(path, 1), timed(path, size)
        n0, n2 = end_to_end(Path(tmp), 0), end_to_end(Path(tmp), 2)
    print(f"{args.tasks} tasks, sandbox {choose_isolation('auto').name}, {os.cpu_count()} cores")
    print(f"  pool of 1 (baseline): {one:.2f} s ({one / args.tasks * 1000:.0f} ms per task)")
    print(f"  pool of {size}:         {many:.2f} s")
    print(f"  speed-up: {one / many:.2f}x")
    print(f"  pytest --codeif -n 0 (baseline): {n0:.2f} s")
    print(f"  pytest --codeif -n 2:            {n2:.2f} s  ({n0 / n2:.2f}x)")


if __name__ == "__main__":
    main()

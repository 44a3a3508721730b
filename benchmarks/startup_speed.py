"""What a small `pytest --codeif` run pays to start, with and without
PYTHONDONTWRITEBYTECODE (issue 22.10).

pytest marks every module of an installed plugin's distribution for assertion rewriting;
a rewritten module is compiled from its source unless pytest cached the rewritten code,
which it cannot under PYTHONDONTWRITEBYTECODE (common in Docker images and CI). The
plugin keeps its modules out of rewriting (`pytest_codeif._PlainImports`).

The package is copied to a temporary folder and byte-compiled there, as `pip install`
leaves it (no pytest-rewritten bytecode), and put first on PYTHONPATH; one copy serves
the runs without PYTHONDONTWRITEBYTECODE (pytest may cache there), another the runs with
it (never written to: every run as in a fresh container). All figures come from the same
run, each the median of `--repeat` runs:

- `pytest --version`: pytest's own start-up, the plugin loaded but idle;
- plain pytest: one trivial test, no --codeif;
- `pytest --codeif` on a task with one rule (a `naming` constraint on inline code), with
  and without PYTHONDONTWRITEBYTECODE=1;
- with `--baseline-src DIR` (a folder holding another commit's `pytest_codeif`, e.g.
  `git worktree add /tmp/before HEAD~1`): the same two `--codeif` runs with that code.

Usage: python benchmarks/startup_speed.py [--repeat N] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
TASK = """\
tasks:
  - id: one-rule
    code: |
      def load_data(path):
          return path
    constraints:
      - check: naming
        function: snake_case
"""
#: Plugins of this repository's test environment that a user of pytest-codeif lacks.
NOT_THE_USERS = ["-p", "no:hypothesispytest", "-p", "no:randomly", "-p", "no:cacheprovider"]


def staged(source: Path, into: Path) -> Path:
    """A copy of the `pytest_codeif` package under `source`, byte-compiled as pip does."""
    shutil.copytree(
        source / "pytest_codeif",
        into / "pytest_codeif",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    compileall.compile_dir(into / "pytest_codeif", quiet=1)
    return into


def timed(folder: Path, src: Path, args: list[str], *, no_bytecode: bool) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(src)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [sys.executable, "-m", "pytest", *NOT_THE_USERS, *args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: the task's constraint is violated, on purpose
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout.decode()}")
    return elapsed


def median(repeat: int, folder: Path, src: Path, args: list[str], *, no_bytecode: bool) -> float:
    return statistics.median(
        timed(folder, src, args, no_bytecode=no_bytecode) for _ in range(repeat)
    )


def codeif_runs(repeat: int, folder: Path, source: Path, tmp: Path) -> tuple[float, float]:
    """(--codeif with bytecode, --codeif with PYTHONDONTWRITEBYTECODE=1) for `source`."""
    written = staged(source, tmp / "written")
    fresh = staged(source, tmp / "fresh")
    timed(folder, written, ["--codeif"], no_bytecode=False)  # pytest caches what it may
    with_bytecode = median(repeat, folder, written, ["--codeif"], no_bytecode=False)
    without = median(repeat, folder, fresh, ["--codeif"], no_bytecode=True)
    return with_bytecode, without


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, help="another commit's source folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        folder = tmp / "project"
        folder.mkdir()
        (folder / "one.codeif.yaml").write_text(TASK)
        (folder / "test_one.py").write_text("def test_one():\n    assert 1\n")
        this = staged(HERE, tmp / "this")
        timed(folder, this, ["--version"], no_bytecode=False)  # warm the file cache
        version = median(args.repeat, folder, this, ["--version"], no_bytecode=False)
        plain = median(args.repeat, folder, this, ["-q", "test_one.py"], no_bytecode=False)
        rows = [("pytest --version", version), ("plain pytest, one test", plain)]
        after = codeif_runs(args.repeat, folder, HERE, tmp / "after")
        rows += [("--codeif, one rule", after[0]), ("--codeif, DONTWRITEBYTECODE", after[1])]
        if args.baseline_src:
            before = codeif_runs(args.repeat, folder, args.baseline_src.resolve(), tmp / "b")
            rows += [
                ("--codeif, one rule (baseline src)", before[0]),
                ("--codeif, DONTWRITEBYTECODE (baseline src)", before[1]),
            ]
    print(f"pytest start-up, median of {args.repeat} runs each (Python {sys.version.split()[0]})")
    print(f"  {'':44} {'seconds':>8} {'x --version':>12} {'x plain':>8}")
    for label, seconds in rows:
        print(f"  {label:44} {seconds:8.3f} {seconds / version:12.2f} {seconds / plain:8.2f}")
    print(f"  DONTWRITEBYTECODE / bytecode (this src): {after[1] / after[0]:.2f}")
    if args.baseline_src:
        print(f"  DONTWRITEBYTECODE / bytecode (baseline src): {before[1] / before[0]:.2f}")


if __name__ == "__main__":
    main()

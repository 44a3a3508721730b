"""PACIFIC's 15 configurations generated in one run: `codeif generate pacific` for
I = 3, 5, 8, 10, 15 instructions x L = 3, 5, 10 target length, `--samples` tasks each.

Prints, per configuration, the time to draw the samples and write the files (in
process, median of `--rounds`), as a ratio against the smallest configuration (I = 3,
L = 3) measured in the same run, and the mean length of the steps' results against the
target (characters for strings, bits for numbers: how well the target length steers).
Then, as subprocesses: the largest configuration through the `codeif` command and
`codeif generate pacific --check-pool` (Python, Java and C++ renderings where the
compilers are installed), each against the command's start-up (`codeif --version`).

Usage: python benchmarks/generate_pacific.py [--samples K] [--rounds N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_codeif.generate.pacific import Settings, generate
from pytest_codeif.generate.pacific_write import write_benchmark
from pytest_codeif.generate.pool import length_of, load_pool

INSTRUCTIONS = (3, 5, 8, 10, 15)
LENGTHS = (3, 5, 10)
CODEIF = [sys.executable, "-c", "import sys; from pytest_codeif.cli import main; sys.exit(main())"]


def timed(action: Callable[[], object], rounds: int) -> float:
    """The median wall time of `rounds` runs of `action`."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def command(*arguments: str) -> Callable[[], object]:
    def run() -> object:
        return subprocess.run([*CODEIF, *arguments], check=True, capture_output=True)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100, help="tasks per configuration")
    parser.add_argument("--rounds", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--keep", type=Path, help="write the benchmarks here (kept)")
    args = parser.parse_args()
    pool = load_pool([])
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        rows = []
        for instructions in INSTRUCTIONS:
            for length in LENGTHS:
                settings = Settings(instructions, length, args.samples, "bench")
                folder = root / settings.name

                def once(settings: Settings = settings, folder: Path = folder) -> object:
                    return write_benchmark(folder, settings, generate(settings, pool))

                seconds = timed(once, args.rounds)
                samples = generate(settings, pool)
                lengths = [length_of(step.result) for s in samples for step in s.steps]
                rows.append((instructions, length, seconds, statistics.mean(lengths)))
        baseline = rows[0][2]
        print(f"PACIFIC's 15 configurations, {args.samples} tasks each, median of "
              f"{args.rounds} (baseline: I=3 x L=3, {baseline * 1000:.1f} ms)")  # fmt: skip
        print(f"{'I':>3} {'L':>3} {'ms':>9} {'x baseline':>11} {'mean length':>12}")
        for instructions, length, seconds, mean in rows:
            print(f"{instructions:>3} {length:>3} {seconds * 1000:>9.1f} "
                  f"{seconds / baseline:>11.2f} {mean:>12.2f}")  # fmt: skip
        total = sum(row[2] for row in rows)
        print(f"all 15: {total:.2f} s = {total / baseline:.1f} x baseline")

        largest = ["--instructions", "15", "--length", "10", "--samples", str(args.samples)]
        startup = timed(command("--version"), args.rounds)
        out = str(root / "command")
        end_to_end = timed(command("generate", "pacific", *largest, "--seed", "b", "-o", out), 1)
        check = timed(command("generate", "pacific", "--check-pool"), 1)
        print(f"command start-up (codeif --version): {startup:.2f} s")
        print(f"codeif generate pacific, I=15 x L=10: {end_to_end:.2f} s = "
              f"{end_to_end / startup:.2f} x start-up")  # fmt: skip
        print(f"codeif generate pacific --check-pool: {check:.2f} s = "
              f"{check / startup:.2f} x start-up")  # fmt: skip


if __name__ == "__main__":
    main()

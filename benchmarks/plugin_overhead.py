"""What pytest-codeif costs a project that does not pass --codeif.

Generates a project of 1,000 trivial tests, then runs pytest on it alternately with the
plugin loaded (as installed) and with it disabled (`-p no:codeif`), several rounds, and
prints the median wall times and their ratio. Target: no measurable difference.

Usage: python benchmarks/plugin_overhead.py [--tests N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_project(root: Path, tests: int) -> None:
    per_file = 50
    for start in range(0, tests, per_file):
        body = "".join(
            f"def test_{i}():\n    assert {i} + 1 == {i + 1}\n\n"
            for i in range(start, min(start + per_file, tests))
        )
        (root / f"test_gen_{start // per_file}.py").write_text(body)
    (root / "pytest.ini").write_text("[pytest]\n")


def run(root: Path, extra: list[str]) -> float:
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    subprocess.run(cmd, cwd=root, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, args.tests)
        run(root, [])  # warm the file system cache and bytecode
        with_plugin, without = [], []
        for _ in range(args.rounds):
            with_plugin.append(run(root, []))
            without.append(run(root, ["-p", "no:codeif"]))
    a, b = statistics.median(with_plugin), statistics.median(without)
    spread = statistics.pstdev(without) / b
    print(f"pytest on {args.tests} tests, median of {args.rounds} runs each")
    print(f"  plugin disabled (-p no:codeif): {b:.3f} s  (baseline, spread {spread:.1%})")
    print(f"  plugin installed, no --codeif: {a:.3f} s")
    print(f"  ratio installed / disabled:    {a / b:.3f}")


if __name__ == "__main__":
    main()

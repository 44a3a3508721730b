"""Collection speed of `pytest --codeif`: task files read cold, read from the cache, and
read with no cache at all, against pytest collecting as many trivial items.

Suites: the MultiCodeIF corpus converted by `codeif import multicodeif` (../shared,
skipped when absent) and a generated suite (default 10,000 tasks, each with the four
constraints of `suite_speed.py` and two call cases). All figures of a suite come from
the same run, on the same machine:

- cold: `--collect-only` with pytest's cache cleared (`--cache-clear`): every file
  composed, validated and written to the cache;
- warm: `--collect-only` again: every file read from the cache;
- no cache: `--collect-only -p no:cacheprovider`: every file composed and validated,
  nothing written;
- pytest alone: `--collect-only` of as many trivial parametrized items;
- before (with `--baseline-src DIR`): the uncached collection by another commit's
  plugin, to compare with in the same run;
- start-up: `pytest --codeif --collect-only` in an empty folder (importing the plugin and
  its checks: what every run pays whatever its size);
- with `--rerun corpus` (or `generated`, `both`): `pytest --codeif` in full, cold (no
  verdict cache) and warm (the same run again), and the warm run against the warm
  collection (issue 15's target: a warm re-run costs at most 1.2 x collection).

Each collection figure is the median of `--repeat` runs; peak RSS is that of the
largest run. Every run leaves out the Hypothesis and randomly pytest plugins of this
repository's test environment (see `suite_speed.py`).

Usage: python benchmarks/collection_speed.py [--generated N] [--repeat N]
           [--rerun corpus|generated|both] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite_speed import CONSTRAINTS, CORPUS, GENERATED, NOT_THE_USERS

CALLS: list[dict[str, Any]] = [
    {"call": "total_{i}([1, 2, 3, 4])", "expect": None},
    {"call": "area_{i}(0.0)", "expect": None},
]


def generated_suite(folder: Path, count: int) -> None:
    """`count` tasks in one file, each with its constraints and two call cases."""
    tasks = []
    for i in range(count):
        calls = [
            {"call": c["call"].format(i=i), "expect": 6 * i if "total" in c["call"] else i}
            for c in CALLS
        ]
        tasks.append(
            {
                "id": f"t{i}",
                "code": GENERATED.format(i=i),
                "constraints": CONSTRAINTS,
                "tests": calls,
            }
        )
    folder.mkdir(parents=True)
    text = yaml.safe_dump({"tasks": tasks}, sort_keys=False)
    (folder / "suite.codeif.yaml").write_text(text)


def corpus_suite(folder: Path) -> None:
    """The corpus through the importer, as a user converts it."""
    responses = sorted(str(p) for p in (CORPUS / "responses").glob("*.jsonl"))
    command = ["codeif", "import", "multicodeif", str(CORPUS / "tasks.jsonl"), *responses]
    subprocess.run([*command, "-o", str(folder)], capture_output=True, check=True)


#: With `--baseline-src DIR`: the pytest_codeif package found first (another commit's).
BASELINE: dict[str, str] = {}


def timed(folder: Path, *args: str, baseline: bool = False) -> tuple[float, int, str]:
    """Seconds, peak RSS (KiB) and the last output line of one pytest run in `folder`;
    with `baseline`, of the baseline source's plugin."""
    command = [sys.executable, "-m", "pytest", "-q", *NOT_THE_USERS, *args]
    env = {**os.environ, **BASELINE} if baseline else None
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    output = process.stdout.read() if process.stdout is not None else ""
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped by wait4 above
    seconds = time.perf_counter() - start
    last = output.strip().splitlines()[-1] if output.strip() else ""
    return seconds, usage.ru_maxrss, last


def median(folder: Path, repeat: int, *args: str, baseline: bool = False) -> tuple[float, int]:
    """Median seconds and peak RSS of `repeat` runs."""
    seconds, peaks = [], []
    for _ in range(repeat):
        spent, rss, _ = timed(folder, *args, baseline=baseline)
        seconds.append(spent)
        peaks.append(rss)
    return statistics.median(seconds), max(peaks)


def items_of(folder: Path) -> int:
    _, _, last = timed(folder, "--codeif", "--collect-only", "-p", "no:cacheprovider")
    words = last.split()
    return int(words[0]) if words and words[0].isdigit() else 0


def trivial(folder: Path, items: int, repeat: int) -> float:
    own = folder / "trivial"
    own.mkdir()
    (own / "test_items.py").write_text(
        f"import pytest\n\n@pytest.mark.parametrize('i', range({items}))\n"
        "def test_item(i):\n    pass\n"
    )
    return median(own, repeat, "--collect-only", "-p", "no:cacheprovider", "test_items.py")[0]


def measure(name: str, folder: Path, repeat: int, rerun: bool) -> None:
    collect = ("--codeif", "--collect-only")
    count = items_of(folder)
    cold, cold_rss = median(folder, repeat, *collect, "--cache-clear")
    # The cold runs above leave the entries written: each warm run reads them.
    warm, warm_rss = median(folder, repeat, *collect)
    bare, _ = median(folder, repeat, *collect, "-p", "no:cacheprovider")
    before = None
    if BASELINE:
        before = median(folder, repeat, *collect, "-p", "no:cacheprovider", baseline=True)[0]
    alone = trivial(folder, count, repeat)
    (folder / "empty").mkdir()
    startup = median(folder / "empty", repeat, *collect, "-p", "no:cacheprovider")[0]
    rows = [
        ("pytest alone, --collect-only, as many trivial items", alone, ""),
        ("start-up: --codeif --collect-only, no task file", startup, ""),
        ("collection, no cache (-p no:cacheprovider)", bare, f"{bare / alone:5.2f} x alone"),
        (
            "collection, cold (cache cleared, entries written)",
            cold,
            f"{cold / bare:5.2f} x no cache",
        ),
        (
            "collection, warm (entries read)",
            warm,
            f"{warm / bare:5.2f} x no cache, {warm / alone:4.2f} x alone",
        ),
    ]
    if before is not None:
        rows.insert(
            1, ("collection before (--baseline-src)", before, f"{before / alone:5.2f} x alone")
        )
        rows.append(
            (
                "  warm / before",
                warm,
                f"{warm / before:5.2f} x before, cold {cold / before:4.2f} x before",
            )
        )
    if rerun:
        first, _, _ = timed(folder, "--codeif", "--cache-clear")
        again, rss, _ = timed(folder, "--codeif")
        rows += [
            ("pytest --codeif, cold (caches cleared)", first, ""),
            (
                "pytest --codeif, warm re-run",
                again,
                f"{again / warm:5.2f} x warm collection, {again / first:4.2f} x cold",
            ),
        ]
    print(f"{name}: {count} items")
    for label, seconds, ratio in rows:
        print(f"  {label:<54} {seconds:7.2f} s  {ratio}")
    print(
        f"  {'peak RSS, collection cold / warm':<54} {cold_rss / 1024:7.0f} / "
        f"{warm_rss / 1024:.0f} MiB"
    )
    if rerun:
        print(f"  {'peak RSS, warm re-run':<54} {rss / 1024:7.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--generated", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--rerun", choices=("corpus", "generated", "both"), help="also time full runs of"
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="a folder holding another commit's pytest_codeif package (`git archive REV "
        "pytest_codeif | tar -x -C DIR`): its collection, uncached, is timed too",
    )
    args = parser.parse_args()
    if args.baseline_src:
        BASELINE["PYTHONPATH"] = str(args.baseline_src.resolve())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if CORPUS.is_dir():
            corpus_suite(folder / "corpus")
            rerun = args.rerun in ("corpus", "both")
            measure("MultiCodeIF corpus (imported)", folder / "corpus", args.repeat, rerun)
        else:
            print(f"MultiCodeIF corpus: skipped ({CORPUS} absent)")
        generated_suite(folder / "generated", args.generated)
        measure(
            f"generated suite, {args.generated} tasks",
            folder / "generated",
            args.repeat,
            args.rerun in ("generated", "both"),
        )
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

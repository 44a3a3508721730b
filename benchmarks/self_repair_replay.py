"""Replay MultiCodeIF's self-repair rounds through pytest-codeif's own round tooling.

The corpus holds, for two models, the first answers (R0) and four rounds of answers given
after the benchmark's feedback (R1-R4). This script imports them all (each answer keeps
its `round`), runs `pytest --codeif --codeif-group-by=round` once, and prints what a
benchmark author gets: satisfaction per round side by side, what each round fixed and
broke, and, from `codeif feedback` on the report, how many entries of feedback each round
would send to the model for the next one (one per violated constraint and failing test
suite). The figures are the plugin's own output, re-read from the JSON report; the
published figure is Claude-3.7's 63.0% -> 83.4% over four rounds (all 14 languages).

Usage: python benchmarks/self_repair_replay.py [--workers N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from pytest_codeif.importers.multicodeif import import_multicodeif

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
MODELS = ("claude-3-7-sonnet-20250219", "gpt-4o")


def replay(corpus: Path, out: Path, workers: int) -> int:
    responses = [corpus / "responses" / f"{m}.jsonl" for m in MODELS]
    responses += sorted((corpus / "self_repair").glob("R*.jsonl"))
    result = import_multicodeif(corpus / "tasks.jsonl", responses, out / "tasks")
    print(f"imported {result.tasks} tasks from {len(responses)} files (R0-R4, two models)")
    report = out / "report.json"
    cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", "--no-header", "-p", "no:randomly"]
    cmd += ["-n", str(workers)] if workers else []
    cmd += ["--codeif-no-cache", "--codeif-group-by=round", f"--codeif-report={report}"]
    cmd += ["--rootdir", str(out / "tasks"), str(out / "tasks")]
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=out / "tasks", capture_output=True, text=True, check=False)
    print(f"pytest --codeif: exit {proc.returncode} in {time.perf_counter() - started:.0f} s\n")
    section = proc.stdout.split("by round:", 1)
    if len(section) == 2:  # the plugin's own side-by-side table and round transitions
        print("by round:" + section[1].split("=====", 1)[0].rstrip())
    if not report.is_file():
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        return 1
    feedback = out / "feedback.jsonl"
    codeif = [sys.executable, "-m", "pytest_codeif.cli", "feedback", str(report)]
    subprocess.run([*codeif, "-o", str(feedback)], check=True)
    per_round: Counter[str] = Counter()
    for line in feedback.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        per_round[str(entry.get("metadata", {}).get("round"))] += len(entry.get("violations", []))
    print("\nfeedback entries codeif feedback writes per round (violations to send back):")
    for name in sorted(per_round):
        print(f"  {name:6} {per_round[name]:6}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="keep task files and reports here")
    args = parser.parse_args()
    if not (args.corpus / "self_repair").is_dir():
        print(f"skipped: the MultiCodeIF corpus is not at {args.corpus}")
        return 0
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        return replay(args.corpus, args.out, args.workers)
    with tempfile.TemporaryDirectory(prefix="codeif-replay-") as tmp:
        return replay(args.corpus, Path(tmp), args.workers)


if __name__ == "__main__":
    raise SystemExit(main())

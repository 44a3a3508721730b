"""Agreement with MultiCodeIF's own verdicts, where the corpus shows them.

The benchmark's feedback rounds (`self_repair/R<k>-<model>.jsonl`) tell a model "the code
you generated did not meet the constraints: ..." and quote that code. Each such prompt is
a verdict of the benchmark's (its AST scripts or its GPT-4o judge) on a piece of code the
corpus holds. A prompt without that sentence quotes no code, so the corpus shows the
benchmark's violations only: this script measures how many of them pytest-codeif also
finds violated, per type, and keeps the rest for reading by hand (the benchmark's scripts
have known faults; a disagreement is a question, not an error of either side).

The quoted code is imported as a response to its task record (`codeif import multicodeif`)
and run with `pytest --codeif`; a verdict counts as agreeing when the task has a violated
constraint, or one that could not be decided (an error: the benchmark counts it as not
met, and so do our rates); the columns show the two apart. The responses files (R0) come
from another run of the benchmark than its feedback rounds, so R0 verdicts cannot be
joined to them.

Usage: python benchmarks/multicodeif_agreement.py [--workers N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_codeif.importers.multicodeif import import_multicodeif

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
FAILED = "You were asked to generate code"
QUOTE_START = "## previous code\n"
QUOTE_END = "\nPlease regenerate a code"


def quoted_failures(corpus: Path) -> dict[str, list[dict[str, Any]]]:
    """Per feedback file, one response per prompt quoting code the benchmark judged
    violating (a file holds one prompt per task, so task ids stay unique per file)."""
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: set[tuple[str, str, str]] = set()
    for path in sorted((corpus / "self_repair").glob("R*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            prompt = str(entry.get("feedback_prompt", ""))
            if not prompt.startswith(FAILED) or QUOTE_START not in prompt:
                continue
            code = prompt.split(QUOTE_START, 1)[1].split(QUOTE_END, 1)[0].strip()
            key = (str(entry["key"]), str(entry["model"]), code)
            if code and key not in seen:  # a code quoted again in a later round counts once
                seen.add(key)
                response = f"```python\n{code}\n```"
                found[path.stem].append({"key": key[0], "model": key[1], "response": response})
    return found


def run(corpus: Path, out: Path, workers: int) -> int:
    responses = []
    for name, failures in quoted_failures(corpus).items():
        path = out / f"quoted-{name}.jsonl"
        path.write_text("".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8")
        responses.append(path)
    result = import_multicodeif(corpus / "tasks.jsonl", responses, out / "tasks")
    print(f"{result.tasks} quoted codes the benchmark judged violating, imported as tasks")
    report = out / "report.json"
    cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", "--no-header", "-p", "no:randomly"]
    cmd += ["-n", str(workers)] if workers else []
    cmd += ["--codeif-no-cache", f"--codeif-report={report}"]
    cmd += ["--rootdir", str(out / "tasks"), str(out / "tasks")]
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=out / "tasks", capture_output=True, text=True, check=False)
    print(f"pytest --codeif: exit {proc.returncode} in {time.perf_counter() - started:.0f} s\n")
    if not report.is_file():
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        return 1
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    disagreements = []
    for task in json.loads(report.read_text(encoding="utf-8"))["tasks"]:
        kind = task["metadata"]["type_file"]
        statuses = {c["status"] for c in task["constraints"]}
        if not statuses:
            counts[kind]["unmapped"] += 1
            continue
        verdict = next(s for s in ("violated", "error", "satisfied") if s in statuses)
        counts[kind][verdict] += 1
        if verdict == "satisfied":
            meta = task["metadata"]
            disagreements.append({"key": meta["key"], "file": meta["responses"], "id": task["id"]})
    (out / "disagreements.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in disagreements), encoding="utf-8"
    )
    print(f"{'type':42}{'quoted':>7}{'violated':>9}{'error':>7}{'satisf.':>8}{'agree':>8}")
    total = defaultdict(int)
    for kind in sorted(counts):
        row = counts[kind]
        decided = row["violated"] + row["error"] + row["satisfied"]
        for name, value in row.items():
            total[name] += value
        agree = f"{100 * (decided - row['satisfied']) / decided:.0f}%" if decided else "-"
        print(
            f"{kind:42}{decided + row['unmapped']:7d}{row['violated']:9d}{row['error']:7d}"
            f"{row['satisfied']:8d}{agree:>8}"
        )
    decided = total["violated"] + total["error"] + total["satisfied"]
    print(
        f"{'all':42}{decided + total['unmapped']:7d}{total['violated']:9d}{total['error']:7d}"
        f"{total['satisfied']:8d}{100 * (decided - total['satisfied']) / max(decided, 1):7.0f}%"
    )
    print(f"\nunmapped: {total['unmapped']}; where we say satisfied: {out}/disagreements.jsonl")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, help="keep task files, report and disagreements")
    args = parser.parse_args()
    if not (args.corpus / "self_repair").is_dir():
        print(f"skipped: the MultiCodeIF corpus is not at {args.corpus}")
        return 0
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        return run(args.corpus, args.out, args.workers)
    with tempfile.TemporaryDirectory(prefix="codeif-agreement-") as tmp:
        return run(args.corpus, Path(tmp), args.workers)


if __name__ == "__main__":
    raise SystemExit(main())

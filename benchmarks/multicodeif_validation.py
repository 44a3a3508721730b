"""Validation run: every MultiCodeIF response of ../shared through `pytest --codeif`.

Imports the corpus with `codeif import multicodeif`, runs the six task files with
`pytest --codeif -n WORKERS`, and prints satisfaction per model and per category from the
JSON report, beside the figures MultiCodeIF published. Verdicts are also written to
`verdicts.jsonl` in the output folder, one line per (model, task, constraint), for reading
samples. Skips cleanly (exit 0) when the corpus is absent.

With --self-repair, the feedback rounds R1-R4 (two models) run too, and satisfaction is
printed per round beside the published improvement.

Usage: python benchmarks/multicodeif_validation.py [--workers N] [--out DIR] [--self-repair]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_codeif.importers.multicodeif import CATEGORIES, import_multicodeif

ROUND = re.compile(r"R(\d)-")  # self_repair/R<k>-<model>.jsonl
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "multicodeif"
#: What MultiCodeIF published (arXiv 2507.00699, all 14 languages, 10 of its 27 types
#: judged by GPT-4o): average constraint satisfaction per model, where stated.
PUBLISHED = {"claude-3-7-sonnet-20250219": 63.0, "Qwen3-1.7B": 44.8}
#: ... and after four rounds of feedback (Claude-3-7-Sonnet).
PUBLISHED_REPAIRED = {"claude-3-7-sonnet-20250219": 83.4}
SHORT = {
    "claude-3-7-sonnet-20250219": "claude-3.7",
    "deepseek-v3-0324": "ds-v3",
    "deepseek-r1": "ds-r1",
    "gpt-4o": "gpt-4o",
    "Qwen3-1.7B": "qwen3-1.7b",
    "Llama-3.2-3B": "llama-3.2",
}


def run(corpus: Path, out: Path, workers: int, self_repair: bool) -> dict[str, Any]:
    """Import the corpus into `out`, run pytest there, return the JSON report."""
    responses = sorted((corpus / "responses").glob("*.jsonl"))
    if self_repair:
        responses += sorted((corpus / "self_repair").glob("R*.jsonl"))
    result = import_multicodeif(corpus / "tasks.jsonl", responses, out / "tasks")
    print(
        f"imported {result.tasks} tasks, {result.constraints} constraints; "
        f"{len(result.unmapped)} notes on what was not mapped"
    )
    data = run_suite(out / "tasks", out / "report.json", workers)
    if data is None:
        raise SystemExit("no report was written")
    return data


def run_suite(tasks: Path, report: Path, workers: int) -> dict[str, Any] | None:
    """`pytest --codeif` on the task files under `tasks`, uncached; the JSON report (None:
    none was written, and pytest's output tails are printed)."""
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", "--no-header", "-p", "no:randomly"]
    cmd += ["-n", str(workers)] if workers else []
    cmd += ["--codeif-no-cache", f"--codeif-report={report}", "--rootdir", str(tasks), str(tasks)]
    proc = subprocess.run(cmd, cwd=tasks, capture_output=True, text=True, check=False)
    print(f"pytest --codeif: exit {proc.returncode} in {time.perf_counter() - started:.0f} s")
    if not report.exists():
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        return None
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def rate(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return f"{100 * counts.get('satisfied', 0) / total:5.1f}%" if total else "    -"


def rounds(report: dict[str, Any]) -> None:
    """SSR per feedback round (the responses file a task came from), per model."""
    by_file: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for task in report["tasks"]:
        source = task["metadata"].get("responses", "")
        model = task["metadata"]["model"]
        match = ROUND.match(source)
        label = f"R{match.group(1)}" if match else "R0"
        for outcome in task["constraints"]:
            by_file[f"{model}|{label}"][outcome["status"]] += 1
    models = sorted({key.split("|")[0] for key in by_file if not key.endswith("R0")})
    if not models:
        return
    print("\nself-repair: satisfaction per feedback round (R0: the first answer)")
    print(f"{'':26}" + "".join(f"{r:>8}" for r in ("R0", "R1", "R2", "R3", "R4")) + "   published")
    for model in models:
        cells = "".join(f"{rate(by_file[f'{model}|R{k}']):>8}" for k in range(5))
        published = PUBLISHED_REPAIRED.get(model)
        note = f"   {PUBLISHED[model]:.1f}% -> {published:.1f}%" if published else ""
        print(f"{SHORT.get(model, model):26}{cells}{note}")


def tables(report: dict[str, Any], out: Path) -> None:
    by_model: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_cell: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_check: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    hsr: dict[str, list[bool]] = defaultdict(list)
    functional: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    with (out / "verdicts.jsonl").open("w", encoding="utf-8") as verdicts:
        for task in report["tasks"]:
            meta = task["metadata"]
            if ROUND.match(meta.get("responses", "")):
                continue  # feedback rounds: shown by `rounds`
            model, category = meta["model"], meta["category"]
            statuses = []
            for outcome in task["constraints"]:
                status = outcome["status"]
                statuses.append(status)
                by_model[model][status] += 1
                by_cell[(category, model)][status] += 1
                by_check[outcome["check"]][status] += 1
                verdicts.write(
                    json.dumps(
                        {
                            "model": model,
                            "key": meta["key"],
                            "check": outcome["check"],
                            "status": status,
                            "error_kind": outcome["error_kind"],
                            "evidence": [e["message"] for e in outcome["evidence"]][:5],
                        }
                    )
                    + "\n"
                )
            if statuses:
                hsr[model].append(all(s == "satisfied" for s in statuses))
            if task["functional"]:
                functional[model][task["functional"]["status"]] += 1
    models = sorted(by_model, key=lambda m: SHORT.get(m, m))
    head = "".join(f"{SHORT.get(m, m)[:11]:>12}" for m in models)
    print("\nconstraint satisfaction (satisfied / all constraints; errors count as not satisfied)")
    print(f"{'':26}{head}")
    for category in CATEGORIES.values():
        cells = "".join(f"{rate(by_cell[(category, m)]):>12}" for m in models)
        n = sum(sum(by_cell[(category, m)].values()) for m in models)
        print(f"{category[:20]:20} n={n:<4}{cells}")
    print(f"{'all (SSR)':26}" + "".join(f"{rate(by_model[m]):>12}" for m in models))
    print(
        f"{'tasks, all met (HSR)':26}"
        + "".join(
            f"{100 * sum(hsr[m]) / len(hsr[m]):11.1f}%" if hsr[m] else f"{'-':>12}" for m in models
        )
    )
    print(f"{'functional tests passed':26}" + "".join(f"{rate(functional[m]):>12}" for m in models))
    print(
        f"{'published (all langs)':26}"
        + "".join(f"{PUBLISHED[m]:11.1f}%" if m in PUBLISHED else f"{'-':>12}" for m in models)
    )
    print("\nby check           satisfied  violated    errors      rate")
    for check, counts in sorted(by_check.items()):
        print(
            f"  {check:16}{counts['satisfied']:10d}{counts['violated']:10d}"
            f"{counts['error']:10d}   {rate(counts)}"
        )
    errors: dict[str, int] = defaultdict(int)
    for task in report["tasks"]:
        if ROUND.match(task["metadata"].get("responses", "")):
            continue
        for outcome in task["constraints"]:
            if outcome["status"] == "error":
                errors[outcome["error_kind"]] += 1
    print("errors by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(errors.items())))
    print(f"verdicts written to {out / 'verdicts.jsonl'}")


def coverage(report: dict[str, Any], corpus: Path) -> None:
    """Records mapped to at least one deterministic check, per type (first answers only):
    a record left unmapped is a verdict left to an LLM judge."""
    per_type: dict[str, int] = defaultdict(int)
    for line in (corpus / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        per_type[json.loads(line)["type_file"]] += 1
    models = len(list((corpus / "responses").glob("*.jsonl")))
    mapped: dict[str, int] = defaultdict(int)
    for task in report["tasks"]:
        meta = task["metadata"]
        if not ROUND.match(meta.get("responses", "")) and task["constraints"]:
            mapped[meta["type_file"]] += 1
    total = sum(per_type.values()) * models
    print(f"\ncoverage: records mapped to a check, {sum(mapped.values())}/{total}")
    for kind in sorted(per_type):
        records = per_type[kind] * models
        print(f"  {kind:40}{mapped[kind]:5d}/{records:<5d}{100 * mapped[kind] / records:6.1f}%")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (0: none)")
    parser.add_argument("--out", type=Path, help="keep task files, report and verdicts here")
    parser.add_argument(
        "--self-repair", action="store_true", help="also run the feedback rounds R1-R4"
    )
    args = parser.parse_args()
    if not (args.corpus / "tasks.jsonl").is_file():
        print(f"skipped: the MultiCodeIF corpus is not at {args.corpus}")
        return 0
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        report = run(args.corpus, args.out, args.workers, args.self_repair)
        tables(report, args.out)
        coverage(report, args.corpus)
        rounds(report)
    else:
        with tempfile.TemporaryDirectory(prefix="codeif-validation-") as tmp:
            report = run(args.corpus, Path(tmp), args.workers, args.self_repair)
            tables(report, Path(tmp))
            coverage(report, args.corpus)
            rounds(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

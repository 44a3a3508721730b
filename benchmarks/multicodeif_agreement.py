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
met, and so do our rates); the columns show the two apart.

Both sides are known only where the first answers (R0) are the ones the first feedback
round judged: then an R1 prompt without that sentence says the R0 answer met its
constraint. The script checks, per model, how many R1 quotes equal the R0 answer's code,
and for a model where nearly all do (gpt-4o: 147 of 149; Claude's feedback came from
another run: 30 of 139) prints the two-sided table, per type.

Usage: python benchmarks/multicodeif_agreement.py [--workers N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from multicodeif_validation import run_suite

from pytest_codeif.code.extract import extract_python
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


def verdict(task: dict[str, Any]) -> str | None:
    """A task's verdict as the benchmark counts it: met only when every constraint is."""
    statuses = {c["status"] for c in task["constraints"]}
    return next((s for s in ("violated", "error", "satisfied") if s in statuses), None)


def run(corpus: Path, out: Path, workers: int) -> int:
    responses = []
    for name, failures in quoted_failures(corpus).items():
        path = out / f"quoted-{name}.jsonl"
        path.write_text("".join(json.dumps(f) + "\n" for f in failures), encoding="utf-8")
        responses.append(path)
    result = import_multicodeif(corpus / "tasks.jsonl", responses, out / "tasks")
    print(f"{result.tasks} quoted codes the benchmark judged violating, imported as tasks")
    report = run_suite(out / "tasks", out / "report.json", workers)
    if report is None:
        return 1
    one_sided(report, out)
    return two_sided(corpus, out, workers)


def one_sided(report: dict[str, Any], out: Path) -> None:
    """Per type: of the codes the benchmark quotes as violating, how many we find so."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    disagreements = []
    for task in report["tasks"]:
        kind = task["metadata"]["type_file"]
        found = verdict(task)
        if found is None:
            counts[kind]["unmapped"] += 1
            continue
        counts[kind][found] += 1
        if found == "satisfied":
            meta = task["metadata"]
            disagreements.append({"key": meta["key"], "file": meta["responses"], "id": task["id"]})
    (out / "disagreements.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in disagreements), encoding="utf-8"
    )
    print(f"\n{'type':42}{'quoted':>7}{'violated':>9}{'error':>7}{'satisf.':>8}{'agree':>8}")
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


def _code(response: str) -> str:
    extracted = extract_python(response)
    return extracted.text.strip() if extracted else ""


def two_sided(corpus: Path, out: Path, workers: int) -> int:
    """R0 answers against the R1 feedback that judged them, for models whose R1 quotes
    are their R0 answers (the same run of the benchmark)."""
    joined: dict[str, dict[str, str]] = {}  # model -> key -> benchmark verdict
    for path in sorted((corpus / "self_repair").glob("R1-*.jsonl")):
        model = path.stem.removeprefix("R1-")
        answers = corpus / "responses" / f"{model}.jsonl"
        if not answers.is_file():
            continue
        first = {}
        for line in answers.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            first[str(entry["key"])] = _code(str(entry.get("response") or ""))
        verdicts, same, quoted = {}, 0, 0
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            prompt = str(entry.get("feedback_prompt", ""))
            failed = prompt.startswith(FAILED)
            verdicts[str(entry["key"])] = "not met" if failed else "met"
            if failed and QUOTE_START in prompt:
                quoted += 1
                code = prompt.split(QUOTE_START, 1)[1].split(QUOTE_END, 1)[0].strip()
                same += code == first.get(str(entry["key"]))
        print(f"{model}: {same} of {quoted} R1 quotes are the R0 answer's code")
        if quoted and same >= 0.95 * quoted:
            joined[model] = verdicts
    if not joined:
        return 0
    answers = [corpus / "responses" / f"{model}.jsonl" for model in joined]
    import_multicodeif(corpus / "tasks.jsonl", answers, out / "r0")
    report = run_suite(out / "r0", out / "r0-report.json", workers)
    if report is None:
        return 1
    table: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for task in report["tasks"]:
        meta = task["metadata"]
        ours = verdict(task)
        theirs = joined.get(meta["model"], {}).get(meta["key"])
        if ours is None or theirs is None:
            continue
        table[meta["type_file"]][(theirs, "met" if ours == "satisfied" else "not met")] += 1
    print(
        f"\n{'R0, both sides known':42}{'n':>5}{'both met':>9}{'both not':>9}"
        f"{'only we':>9}{'only they':>10}{'agree':>7}"
    )
    total: Counter[tuple[str, str]] = Counter()
    for kind in sorted(table):
        total.update(table[kind])
        _row(kind, table[kind])
    _row("all", total)
    print("(only we: we find it not met and the benchmark met; only they: the reverse)")
    return 0


def _row(label: str, cells: Counter[tuple[str, str]]) -> None:
    n = sum(cells.values())
    both_met, both_not = cells[("met", "met")], cells[("not met", "not met")]
    print(
        f"{label:42}{n:5d}{both_met:9d}{both_not:9d}{cells[('met', 'not met')]:9d}"
        f"{cells[('not met', 'met')]:10d}{100 * (both_met + both_not) / max(n, 1):6.0f}%"
    )


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

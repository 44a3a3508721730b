"""Biome and the TypeScript compiler through the engine (issue 27): each file judged
one by one (one tool process per file, the baseline) against one batch for them all
(one process per configuration), on the MultiCodeIF corpus's real JavaScript and
TypeScript responses, in the same run.

The code of each JS/TS record (its fences tagged as the language, else untagged ones,
as `js_parsers.py` reads them) is judged as a task's inline code in a temporary folder,
never in the repository: `biome` (Biome's recommended rules) on the first `--files`
records of either language, `tsc` (default options) on every TypeScript one among them.
The batched verdicts must equal the one-by-one ones (disagreements are printed, and
must be 0). Judging one by one costs a compiler start per file (seconds), so `--alone`
TypeScript files (a sample spread over the set) are judged so, and their time is
scaled to the whole set; Biome's are all judged one by one.

Usage (the tools on PATH, or CODEIF_NODE_TOOLS naming the folder holding them):

    python benchmarks/js_tools.py [--files 200] [--alone 12]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from js_parsers import Snippet, corpus_snippets  # noqa: E402

from pytest_codeif.checks.base import Check  # noqa: E402
from pytest_codeif.checks.biome import BiomeCheck  # noqa: E402
from pytest_codeif.checks.tsc import TscCheck  # noqa: E402
from pytest_codeif.engine.engine import Engine  # noqa: E402
from pytest_codeif.errors import Location  # noqa: E402
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task  # noqa: E402
from pytest_codeif.tools_node import node_tool_versions  # noqa: E402

Verdicts = list[tuple[str, tuple[tuple[int | None, str], ...]]]


def as_task(folder: Path, index: int, snippet: Snippet) -> Task:
    location = Location(folder / "js.codeif.yaml", 1, ())
    code = CodeSpec("code", snippet.text, location, None, language=snippet.language)
    return Task(f"r{index}", location.path, location, code)


def judged(folder: Path, tasks: Sequence[Task], check: Check, *, batched: bool) -> Verdicts:
    """Each task's verdict on `check`: all planned in one engine (one batch), or each
    in an engine of its own (one run per file)."""
    spec = ConstraintSpec(check.name, check, check.category, None, None, tasks[0].location)
    found: Verdicts = []
    engine = Engine(folder, folder / "work-batch", pool_size=1, fork_servers=False)
    if batched:
        for task in tasks:
            engine.plan(task, spec)
    for index, task in enumerate(tasks):
        if not batched:
            engine.close()
            work = folder / f"work-{check.name}-{index}"
            engine = Engine(folder, work, pool_size=1, fork_servers=False)
        verdict = engine.evaluate(task, spec)
        found.append((verdict.status, tuple((e.code_line, e.rule) for e in verdict.evidence)))
    engine.close()
    return found


def timed(
    folder: Path, tasks: Sequence[Task], check: Check, *, batched: bool
) -> tuple[float, Verdicts]:
    start = time.perf_counter()
    found = judged(folder, tasks, check, batched=batched)
    return time.perf_counter() - start, found


def spread(items: Sequence[Task], count: int) -> list[int]:
    """`count` indexes spread evenly over `items`."""
    if count >= len(items):
        return list(range(len(items)))
    step = len(items) / count
    return [int(i * step) for i in range(count)]


def compare(name: str, tasks: Sequence[Task], check: Check, alone: int, folder: Path) -> None:
    batch_time, batch = timed(folder, tasks, check, batched=True)
    chosen = spread(tasks, alone)
    sample = [tasks[i] for i in chosen]
    alone_time, one_by_one = timed(folder, sample, check, batched=False)
    scaled = alone_time * len(tasks) / len(sample)
    differ = [
        (tasks[i].id, batch[i], one_by_one[n])
        for n, i in enumerate(chosen)
        if batch[i] != one_by_one[n]
    ]
    statuses = {s: sum(1 for v, _ in batch if v == s) for s in ("satisfied", "violated", "error")}
    print(f"\n{name}: {len(tasks)} files ({statuses})")
    print(
        f"  batched (baseline: one run for all)  {batch_time:8.2f} s  "
        f"{1000 * batch_time / len(tasks):7.1f} ms/file"
    )
    what = "all" if len(sample) == len(tasks) else f"{len(sample)} sampled, scaled"
    print(
        f"  one by one ({what})".ljust(39) + f"{scaled:8.2f} s  "
        f"{1000 * scaled / len(tasks):7.1f} ms/file"
    )
    print(f"  one by one / batched                 {scaled / batch_time:8.1f} x")
    print(f"  verdicts that differ (must be 0)     {len(differ):8d} of {len(sample)} compared")
    for task_id, got, expected in differ[:5]:
        print(f"    {task_id}: batched {got} / alone {expected}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200, help="JS/TS records judged")
    parser.add_argument("--alone", type=int, default=12, help="TS files judged one by one")
    args = parser.parse_args(argv)
    if BiomeCheck.unavailable() or TscCheck.unavailable():
        print(f"skipped: {BiomeCheck.unavailable() or TscCheck.unavailable()}")
        return 0
    snippets, _ = corpus_snippets()
    # Both languages in proportion: every TypeScript record is kept, JavaScript fills up.
    typescript = [s for s in snippets if s.language == "typescript"][: args.files]
    javascript = [s for s in snippets if s.language == "javascript"]
    chosen = typescript + javascript[: max(args.files - len(typescript), 0)]
    print(f"tools: {node_tool_versions()}")
    print(
        f"corpus: {len(snippets)} JS/TS records; judged: {len(chosen)} "
        f"({len(typescript)} TypeScript)"
    )
    with tempfile.TemporaryDirectory(prefix="codeif-js-tools-") as tmp:
        folder = Path(tmp)
        tasks = [as_task(folder, i, s) for i, s in enumerate(chosen)]
        ts_tasks = [t for t, s in zip(tasks, chosen, strict=True) if s.language == "typescript"]
        compare(
            "biome (recommended)",
            tasks,
            BiomeCheck({"select": ["recommended"]}),
            len(tasks),
            folder,
        )
        compare("tsc (default options)", ts_tasks, TscCheck({}), args.alone, folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

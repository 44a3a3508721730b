"""What `codeif generate constraints` writes into its output folder:

- `constraints.codeif.yaml`: one task per kept draw and level (`HumanEval-0.d1.l2`: the
  problem, the draw, the level), reading model answers from `responses/` (JSONL records
  `{task_id, model, response}`), each constraint's wording as its `message`, the full
  prompt as the task's `instruction`, the base problem's tests as its `tests:`;
- `prompts.jsonl`: `{task_id, prompt}` per task, the prompt to send to a model;
- `reference.jsonl`: the references as responses (`model: reference`), which satisfy
  every constraint by construction: copy it into `responses/` to see the harness agree;
- `generation.json`: the arguments, what was read, and every drop and give-up with its
  reason;
- `checks/*_checks.py`: tests kept as pytest files (see `constraint_tests.py`).

Everything is a function of the arguments and the input's bytes (no time, no absolute
path), so the same arguments write the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.generate.constraint_draw import Drawing, Stack
from pytest_codeif.generate.constraint_problems import BaseProblem, fenced
from pytest_codeif.generate.constraint_witness import checks_file_name
from pytest_codeif.generate.wording import task_prompt
from pytest_codeif.importers.yaml_out import write_task_file

TASK_FILE: Final = "constraints.codeif.yaml"
BENCHMARK: Final = "codeif-constraints"


@dataclass(frozen=True)
class Settings:
    """The arguments that decide the output (recorded in it)."""

    seed: str
    per_problem: int
    levels: int
    redraws: int
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    source: str
    source_sha256: str


def task_id(stack: Stack, level: int) -> str:
    return f"{stack.problem.key}.d{stack.draw}.l{level}"


def _tests(problem: BaseProblem) -> list[dict[str, Any]]:
    if problem.tests.pytest_file is not None:
        return [{"pytest": checks_file_name(problem.key)}]
    return [dict(case) for case in problem.tests.cases]


def _task(stack: Stack, level: int, settings: Settings) -> tuple[dict[str, Any], str]:
    """The task of `stack` at `level` (its constraints of levels 1..level), and its
    prompt. Every constraint is marked with the task's level, as the MultiCodeIF chains
    importer does: the summary's "by level" rows are then the satisfaction of the
    tasks of each level (a constraint's own level is in its id, `l2-...`)."""
    problem = stack.problem
    drawn = stack.constraints[:level]
    function = problem.entry_point
    wordings = [d.family.worded(d.variant, d.wording, function) for d in drawn]
    prompt = task_prompt(problem.prompt, wordings)
    constraints: list[dict[str, Any]] = []
    for item, wording in zip(drawn, wordings, strict=True):
        entry: dict[str, Any] = {
            "check": item.family.check,
            "id": f"l{item.level}-{item.family.id}",
        }
        entry.update(item.family.resolved(item.variant, function))
        if item.family.category:
            entry["category"] = item.family.category
        entry["level"] = level
        entry["message"] = wording
        constraints.append(entry)
    task: dict[str, Any] = {
        "id": task_id(stack, level),
        "responses": "responses",
        "instruction": prompt,
        "metadata": {
            "benchmark": BENCHMARK,
            "seed": settings.seed,
            "problem": problem.id,
            "source": problem.shape,
            "draw": stack.draw,
            "level": level,
            "constraints": [d.label for d in drawn],
        },
    }
    if function:
        task["entry-point"] = function
    task["constraints"] = constraints
    tests = _tests(problem)
    if tests:
        task["tests"] = tests
    return task, prompt


def _jsonl(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_output(
    folder: Path,
    drawing: Drawing,
    settings: Settings,
    report: Mapping[str, Any],
) -> list[Path]:
    """Write the output files into `folder` (created, with an empty `responses/`);
    the paths written, task file first."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "responses").mkdir(exist_ok=True)
    tasks: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    references: list[dict[str, Any]] = []
    checks: dict[str, str] = {}
    for stack in drawing.stacks:
        problem = stack.problem
        if problem.tests.pytest_file is not None:
            checks[checks_file_name(problem.key)] = problem.tests.pytest_file
        for level in range(1, len(stack.constraints) + 1):
            task, prompt = _task(stack, level, settings)
            tasks.append(task)
            prompts.append({"task_id": task["id"], "prompt": prompt})
            references.append(
                {"task_id": task["id"], "model": "reference", "response": fenced(problem.reference)}
            )
    header = (
        f"Generated by `codeif generate constraints` from {settings.source} (seed "
        f"{settings.seed!r}, {settings.per_problem} draws a problem, {settings.levels} "
        f"levels): {len(tasks)} tasks.\nModel answers go in responses/*.jsonl as records "
        "{task_id, model, response}; prompts.jsonl holds each task's prompt.\n"
        "Regenerate rather than edit."
    )
    written = [folder / TASK_FILE, folder / "prompts.jsonl", folder / "reference.jsonl"]
    write_task_file(written[0], {"version": 1, "tasks": tasks}, header)
    _jsonl(written[1], prompts)
    _jsonl(written[2], references)
    for name, text in sorted(checks.items()):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    summary = folder / "generation.json"
    summary.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written.append(summary)
    return written


def generation_report(  # noqa: PLR0917 - one call site, each part of the report
    settings: Settings,
    shapes: Mapping[str, int],
    fields: Mapping[str, Sequence[str]],
    bad_lines: Sequence[str],
    problems_dropped: Mapping[str, str],
    drawing: Drawing,
    catalog_ids: Sequence[str],
    rounds: int,
) -> dict[str, Any]:
    """`generation.json`: what was asked, read, drawn, dropped and given up."""
    return {
        "generator": BENCHMARK,
        "arguments": {
            "seed": settings.seed,
            "per_problem": settings.per_problem,
            "levels": settings.levels,
            "redraws": settings.redraws,
            "include": list(settings.include),
            "exclude": list(settings.exclude),
        },
        "input": {
            "file": settings.source,
            "sha256": settings.source_sha256,
            "problems": dict(sorted(shapes.items())),
            "fields_read": {shape: list(fields[shape]) for shape in sorted(shapes)},
            "bad_lines": list(bad_lines),
        },
        "catalog": list(catalog_ids),
        "witness_runs": rounds,
        "problems_dropped": [
            {"problem": problem, "reason": reason} for problem, reason in problems_dropped.items()
        ],
        "tasks": sum(len(s.constraints) for s in drawing.stacks),
        "stacks": len(drawing.stacks),
        "dropped": [
            {
                "problem": d.problem,
                "draw": d.draw,
                "level": d.level,
                "constraint": d.label,
                "reason": d.reason,
            }
            for d in drawing.dropped
        ],
        "given_up": [
            {"problem": d.problem, "draw": d.draw, "level": d.level, "reason": d.reason}
            for d in drawing.given_up
        ],
    }

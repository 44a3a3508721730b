"""`codeif generate constraints`: fresh code-constraint tasks from base problems,
drawn with a seed, no LLM involved. Each drawn constraint is worded as an instruction
appended to the problem's prompt and kept only when the problem's reference solution
satisfies it, as judged by pytest-codeif at generation time. Writes a task file reading
model answers from DIR/responses/, prompts.jsonl, reference.jsonl and generation.json
into DIR. Exit status 0 when written, 1 when written but some input lines were bad or
no task could be kept, 2 when nothing could be written."""

from __future__ import annotations

import argparse
from pathlib import Path

from pytest_codeif.generate.constraint_generate import Request, generate


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _patterns(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    parser.add_argument(
        "problems",
        type=Path,
        nargs="?",
        help="a JSONL file of base problems: human-eval {task_id, prompt, "
        "canonical_solution, test, entry_point}, MBPP {task_id, text, code, test_list} or "
        "{id, prompt, solution, tests}",
    )
    parser.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="the folder to write into (created)"
    )
    parser.add_argument("--seed", default="0", help="any text (default: 0)")
    parser.add_argument(
        "--per-problem",
        type=_positive,
        default=1,
        metavar="K",
        help="draws per problem (default: 1)",
    )
    parser.add_argument(
        "--levels",
        type=_positive,
        default=1,
        metavar="N",
        help="constraints stacked per draw, one a level: a draw gives N tasks, level k "
        "with the constraints of levels 1..k (default: 1)",
    )
    parser.add_argument(
        "--redraws",
        type=_count,
        default=10,
        metavar="R",
        help="how many times a level is drawn again when the reference violates the "
        "constraint drawn, before the draw is given up (default: 10)",
    )
    parser.add_argument(
        "--include",
        type=_patterns,
        action="extend",
        default=[],
        metavar="IDS",
        help="draw only from these families (comma-separated ids or patterns such as "
        "construct-*; see --list)",
    )
    parser.add_argument(
        "--exclude",
        type=_patterns,
        action="extend",
        default=[],
        metavar="IDS",
        help="never draw these families (comma-separated ids or patterns)",
    )
    parser.add_argument(
        "-p",
        dest="plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="load a pytest plugin module registering checks (repeatable), for the "
        "catalog and the witness run; pass it to the benchmark run too",
    )
    parser.add_argument(
        "--list", action="store_true", help="print the catalog of samplable constraints"
    )


def run(args: argparse.Namespace) -> int:
    """The command's exit status."""
    request = Request(
        problems=args.problems,
        output=args.output,
        seed=args.seed,
        per_problem=args.per_problem,
        levels=args.levels,
        redraws=args.redraws,
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        plugins=tuple(args.plugins),
        list_catalog=args.list,
    )
    return generate(request)

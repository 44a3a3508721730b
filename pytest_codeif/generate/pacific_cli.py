"""Write a PACIFIC benchmark (arXiv 2512.10713): answer tasks, each a chain of small
instructions from a pool applied to a starting input, whose every intermediate result the
model must give as `[ANSWER][i] literal [\\ANSWER]`. Difficulty is set by the number of
instructions and a target length of the results (characters for strings, bits for
numbers). Writes into the output folder a task file (`*.codeif.yaml`, reading answers
from `responses/*.jsonl`), `prompts.jsonl` and `reference.jsonl` (the right answers).
The same arguments write the same bytes; another seed, another benchmark. With
`--check-pool`, verifies the pool instead. Exit status 0 when written (or the pool
holds), 1 when `--check-pool` finds problems, 2 on a bad pool file or argument, or when
the files cannot be written."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Final

from pytest_codeif.generate.pacific import GenerationError, Settings, generate
from pytest_codeif.generate.pacific_write import write_benchmark
from pytest_codeif.generate.pool import LANGUAGES, PoolError, load_pool
from pytest_codeif.generate.pool_check import LANGUAGE_NAMES, PoolReport, check_pool

PROG: Final = "codeif generate pacific"
_SEED: Final = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
#: Arguments a benchmark needs (all but --check-pool runs).
_NEEDED: Final = {
    "instructions": "--instructions",
    "length": "--length",
    "samples": "--samples",
    "seed": "--seed",
    "output": "-o",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    parser.add_argument(
        "--instructions",
        type=_bounded(1, 1000),
        metavar="N",
        help="instructions per sample: the chain's length (PACIFIC: 3, 5, 8, 10, 15)",
    )
    parser.add_argument(
        "--length",
        type=_bounded(1, 1000),
        metavar="L",
        help="the target length of each step's result: characters for a string, bits for "
        "a number (PACIFIC: 3, 5, 10)",
    )
    parser.add_argument(
        "--samples", type=_bounded(1, 1_000_000), metavar="K", help="how many tasks to write"
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        metavar="S",
        help="the benchmark's seed (letters, digits, `_`, `.`, `-`): the same seed writes "
        "the same files, another seed another benchmark",
    )
    parser.add_argument(
        "--languages",
        type=_languages,
        default=("python",),
        metavar="LIST",
        help="with --render code: the languages a sample's code may be shown in, each "
        "sample's drawn with the seed, comma-separated among python, java, cpp "
        "(default: python)",
    )
    parser.add_argument(
        "--mode",
        choices=("prompt", "chat"),
        default="prompt",
        help="prompt: one prompt per task ({task_id, prompt}); chat: the rules as a "
        "system message and the sample as a user message ({task_id, messages}) "
        "(default: prompt)",
    )
    parser.add_argument(
        "--render",
        choices=("code", "nl"),
        default="code",
        help="code: each instruction shown as a function; nl: in words (default: code)",
    )
    parser.add_argument(
        "--pool",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of instruction files (one YAML file each) added to the built-in "
        "pool; a file replaces the instruction of its name (repeatable)",
    )
    parser.add_argument(
        "--no-builtin-pool",
        action="store_true",
        help="use only the instructions of --pool folders",
    )
    parser.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="the folder to write the benchmark in"
    )
    parser.add_argument(
        "--check-pool",
        action="store_true",
        help="verify the pool instead of generating: each reference runs and returns its "
        "declared type, each declared length effect holds, and the Python, Java and C++ "
        "renderings agree with the reference on sampled inputs (Java and C++ where "
        "javac/java and g++ are installed)",
    )


def run(args: argparse.Namespace) -> int:
    """The command's exit status."""
    try:
        pool = load_pool(args.pool, builtin=not args.no_builtin_pool)
    except PoolError as exc:
        for problem in exc.problems:
            print(f"{PROG}: bad pool file: {problem}", file=sys.stderr)
        return 2
    if args.check_pool:
        report = check_pool(pool)
        print("\n".join(report_lines(report)))
        return 1 if report.problems else 0
    missing = [flag for key, flag in _NEEDED.items() if getattr(args, key) is None]
    if missing:
        print(f"{PROG}: give {', '.join(missing)} (or --check-pool)", file=sys.stderr)
        return 2
    settings = Settings(
        instructions=args.instructions,
        length=args.length,
        samples=args.samples,
        seed=args.seed,
        languages=tuple(args.languages),
        mode=args.mode,
        render=args.render,
    )
    try:
        samples = generate(settings, pool)
    except PoolError as exc:
        for problem in exc.problems:
            print(f"{PROG}: bad pool file: {problem}", file=sys.stderr)
        return 2
    except GenerationError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    try:
        written = write_benchmark(args.output, settings, samples)
    except OSError as exc:
        print(
            f"{PROG}: cannot write {exc.filename or args.output}: {exc.strerror}", file=sys.stderr
        )
        return 2
    print(f"{PROG}: {len(samples)} tasks -> {written[0]}")
    print(
        f"{PROG}: prompts in {written[1]}, right answers in {written[2]}; put the models' "
        f"answers in {args.output / 'responses'} and run pytest --codeif {args.output}"
    )
    return 0


def report_lines(report: PoolReport) -> list[str]:
    """`--check-pool`'s output: each problem, then what was checked."""
    lines = [str(problem) for problem in report.problems]
    ran = [
        f"{LANGUAGE_NAMES[language]} ({report.agreed[language]} calls agree)"
        for language in LANGUAGES
        if language in report.agreed
    ]
    lines.append(
        f"{PROG} --check-pool: {report.instructions} instructions, up to {report.inputs} "
        f"inputs each; renderings run: {', '.join(ran) or 'none'}"
    )
    lines += [
        f"{PROG} --check-pool: {LANGUAGE_NAMES[language]} renderings skipped: {why}"
        for language, why in report.skipped.items()
    ]
    verdict = f"{len(report.problems)} problem(s)" if report.problems else "the pool holds"
    lines.append(f"{PROG} --check-pool: {verdict}")
    return lines


def _bounded(low: int, high: int) -> argparse._ActionType:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {low} to {high}, got {value}")
        return value

    return parse


def _seed(text: str) -> str:
    if not _SEED.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected 1 to 64 letters, digits, `_`, `.` or `-`, got {text!r}"
        )
    return text


def _languages(text: str) -> tuple[str, ...]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in LANGUAGES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {', '.join(LANGUAGES)}, got {text!r}"
        )
    return tuple(dict.fromkeys(names))

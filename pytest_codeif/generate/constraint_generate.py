"""`codeif generate constraints` from end to end: read the catalog and the base
problems, draw with the witness's verdicts (asked of pytest-codeif in rounds), write
the output, and say what was read, kept and dropped."""

from __future__ import annotations

import hashlib
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_codeif.generate.constraint_catalog import Catalog, catalog_of
from pytest_codeif.generate.constraint_draw import Drawing, applicable, draw_problem
from pytest_codeif.generate.constraint_family import Family
from pytest_codeif.generate.constraint_output import (
    Settings,
    generation_report,
    write_output,
)
from pytest_codeif.generate.constraint_problems import (
    FIELDS_READ,
    BaseProblem,
    Problems,
    fields_read,
    read_problems,
)
from pytest_codeif.generate.constraint_registry import RegistryError, registered_checks
from pytest_codeif.generate.constraint_witness import (
    Question,
    Verdict,
    WitnessRunError,
    judge,
)

_NAME = "codeif generate constraints"
WRITTEN, PARTLY, NOTHING = 0, 1, 2
#: Up to this many (problem, constraint) questions in all, the first witness run asks
#: them all: one run, where drops would otherwise cost a round each.
ASK_ALL_AT_ONCE: Final = 1000


@dataclass(frozen=True)
class Request:
    """The command's arguments."""

    problems: Path | None
    output: Path | None
    seed: str
    per_problem: int
    levels: int
    redraws: int
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    plugins: tuple[str, ...]
    list_catalog: bool


def _say(message: str) -> None:
    print(f"{_NAME}: {message}", file=sys.stderr)


def generate(request: Request) -> int:
    """Run the command; its exit status (0 written, 1 written with bad input lines or
    no task kept, 2 nothing written)."""
    try:
        catalog = catalog_of(registered_checks(request.plugins))
    except RegistryError as exc:
        _say(str(exc))
        return NOTHING
    for warning in catalog.warnings:
        _say(f"warning: {warning}")
    catalog = catalog.select(request.include, request.exclude)
    if request.list_catalog:
        print_catalog(catalog)
        return WRITTEN
    if request.problems is None or request.output is None:
        _say("give a problems file and -o DIR (or --list)")
        return NOTHING
    if not catalog.families:
        _say("no family left to draw from (see --list, --include and --exclude)")
        return NOTHING
    if request.output.exists() and not request.output.is_dir():
        # Said before the witness runs, which take a while.
        _say(f"cannot write into {request.output}: it exists and is not a folder")
        return NOTHING
    try:
        raw = request.problems.read_bytes()
        read = read_problems(request.problems, str(request.problems))
    except (OSError, UnicodeDecodeError) as exc:
        _say(f"cannot read {request.problems}: {exc}")
        return NOTHING
    _print_read(request.problems, read)
    if not read.problems:
        _say("no problem to generate from")
        return NOTHING
    settings = Settings(
        seed=request.seed,
        per_problem=request.per_problem,
        levels=request.levels,
        redraws=request.redraws,
        include=request.include,
        exclude=request.exclude,
        source=request.problems.name,
        source_sha256=hashlib.sha256(raw).hexdigest(),
    )
    try:
        drawing, left_out, rounds = draw_with_witness(
            read.problems, catalog, settings, request.plugins
        )
    except WitnessRunError as exc:
        _say(str(exc))
        return NOTHING
    report = generation_report(
        settings,
        dict(read.shapes),
        FIELDS_READ,
        [str(bad) for bad in read.bad],
        left_out,
        drawing,
        [f.id for f in catalog.families],
        rounds,
    )
    try:
        written = write_output(request.output, drawing, settings, report)
    except OSError as exc:
        _say(f"cannot write into {request.output}: {exc.strerror or exc}")
        return NOTHING
    _print_summary(drawing, left_out, rounds, written)
    if not drawing.stacks:
        _say("no draw could be kept: see generation.json for why")
    return PARTLY if read.bad or not drawing.stacks else WRITTEN


def draw_with_witness(
    problems: Sequence[BaseProblem],
    catalog: Catalog,
    settings: Settings,
    plugins: Sequence[str] = (),
) -> tuple[Drawing, dict[str, str], int]:
    """Every problem's draws, with the witness verdicts they need asked of
    pytest-codeif in rounds: the first round also runs each reference's tests (a
    problem whose reference fails them is left out), each round answers what the draws
    did not know, and the draws are made again until they know everything. Returns the
    drawing, the problems left out with why, and the number of witness runs."""
    known: dict[tuple[str, str, int], Verdict] = {}
    live = list(problems)
    left_out: dict[str, str] = {}
    tested = {p.key for p in problems if p.tests.cases or p.tests.pytest_file}
    tests_to_run = set(tested)
    families = {family.id: family for family in catalog.families}
    rounds = 0

    def oracle(problem: BaseProblem, family: Family, variant: int) -> Verdict | None:
        return known.get((problem.key, family.id, variant))

    while True:
        drawing = Drawing()
        for problem in live:
            draw_problem(
                problem,
                catalog,
                seed=settings.seed,
                per_problem=settings.per_problem,
                levels=settings.levels,
                redraws=settings.redraws,
                oracle=oracle,
                into=drawing,
            )
        if not drawing.unknown and not tests_to_run:
            return drawing, left_out, rounds
        unknown = set(drawing.unknown)
        if rounds == 0:
            unknown |= _everything_if_small(live, catalog)
        by_key = {problem.key: problem for problem in live}
        questions: dict[str, list[Question]] = {}
        asked: dict[str, tuple[str, str, int]] = {}
        for key, family_id, variant in sorted(unknown):
            family = families[family_id]
            name = f"q{len(asked) + 1}"
            asked[name] = (key, family_id, variant)
            options = family.resolved(variant, by_key[key].entry_point)
            questions.setdefault(key, []).append(Question(name, {"check": family.check, **options}))
        # A check that judges values observed when the tests run needs them run too.
        observing = {key for key, family_id, _ in unknown if families[family_id].observes_calls}
        tests_to_run |= observing & tested
        answers = judge(live, questions, tests_to_run, plugins)
        rounds += 1
        for name, target in asked.items():
            known[target] = answers.constraints[target[0]][name]
        for key, verdict in sorted(answers.tests.items()):
            if not verdict.satisfied:
                left_out[by_key[key].id] = f"its reference fails its own tests: {verdict.reason}"
        live = [problem for problem in live if problem.id not in left_out]
        tests_to_run = set()


def _everything_if_small(
    problems: Sequence[BaseProblem], catalog: Catalog
) -> set[tuple[str, str, int]]:
    """Every (problem, family, variant) there is, when there are at most
    `ASK_ALL_AT_ONCE`; else none. Asked in the first witness run, they spare the
    rounds that drops would cost (each a pytest start-up); the verdicts, hence what is
    drawn, are the same either way."""
    everything = {
        (problem.key, family.id, variant)
        for problem in problems
        for family in applicable(catalog, problem)
        for variant in range(len(family.variants))
    }
    return everything if len(everything) <= ASK_ALL_AT_ONCE else set()


def print_catalog(catalog: Catalog) -> None:
    """One block per family: id, check, options, variants, conflicts, wordings."""
    for family in catalog.families:
        conflicts = sorted(catalog.conflicts[family.id] - {family.id})
        print(f"{family.id}  (check {family.check}; {family.origin})")
        print(f"  options: {dict(family.options)}")
        if family.variants != ({},):
            print(f"  variants: {[dict(v) for v in family.variants]}")
        if conflicts:
            print(f"  conflicts: {', '.join(conflicts)}")
        for wording in family.wordings:
            print(f"  - {wording}")
    print(f"{len(catalog.families)} samplable families")


def _print_read(path: Path, read: Problems) -> None:
    for bad in read.bad:
        _say(str(bad))
    shapes = sorted(read.shapes)
    counts = ", ".join(f"{read.shapes[shape]} {shape}" for shape in shapes) or "none"
    print(f"read {len(read.problems)} problems from {path} ({counts}); {len(read.bad)} bad lines")
    if shapes:
        print(f"  fields read: {fields_read(shapes)}")
    for problem in read.problems:
        if problem.tests.pytest_file is not None:
            print(f"  {problem.id}: tests kept as a pytest file ({problem.tests.why_file})")


def _print_summary(
    drawing: Drawing, left_out: dict[str, str], rounds: int, written: Sequence[Path]
) -> None:
    tasks = sum(len(stack.constraints) for stack in drawing.stacks)
    print(
        f"kept {len(drawing.stacks)} draws ({tasks} tasks); {len(drawing.dropped)} drawn "
        f"constraints dropped (the reference violates them), {len(drawing.given_up)} draws "
        f"given up; {rounds} witness runs of pytest --codeif"
    )
    for problem, reason in left_out.items():
        print(f"  problem {problem} left out: {reason}")
    by_label = Counter(drop.label for drop in drawing.dropped)
    for label, count in sorted(by_label.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        first = next(drop for drop in drawing.dropped if drop.label == label)
        print(f"  dropped {label} x{count}, e.g. {first.problem}: {first.reason}")
    for given in drawing.given_up:
        print(f"  gave up {given.problem} draw {given.draw}: {given.reason}")
    print(f"wrote {len(written)} files into {written[0].parent}")

"""PACIFIC samples: chains of instructions drawn from a pool, with a starting input and
the expected result of every step.

A sample is drawn from its own random stream, seeded by the string `"{seed}:{sample}"`
(never by Python's `hash`, which changes between runs): the same arguments give the same
samples, another seed another benchmark, and sample 7 is the same whatever the number of
samples asked for. The language of a code rendering is drawn from a stream of its own,
so the chains and inputs are the same in every rendering and language.

Drawing a sample:

1. the chain: the first instruction uniformly from the pool, each next one among those
   taking the type the previous one returns (type consistency), weighted toward those
   whose declared length factor keeps the predicted length near the target;
2. the starting input, steered toward the target length: each instruction's declared
   length factor predicts every step's length from the starting length; the starting
   length that brings the predicted lengths of all steps closest to the target (least
   squares) is taken, candidates of about that length are drawn and run through the
   chain's references, and the one whose actual lengths are closest to the target (mean
   absolute difference over the steps) is kept;
3. every step must stay inside its instruction's domain: a candidate that leaves one is
   dropped; a chain for which no candidate stays inside is drawn again;
4. of `CHAINS_KEPT` chains so drawn, the one whose steps' lengths are closest to the
   target (mean absolute difference) is the sample.

Lengths count characters for a string and bits for a number.
"""

from __future__ import annotations

import math
import random
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Final

from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.generate.pool import (
    INT_BOUND,
    Domain,
    Instruction,
    PoolError,
    Value,
    ValueType,
    is_int,
    length_of,
)

#: Starting inputs tried per chain; the closest to the target length is kept.
CANDIDATES: Final = 12
#: Chains that stay inside their domains drawn per sample; the best is kept.
CHAINS_KEPT: Final = 6
#: Chains drawn for one sample before giving up (the pool cannot make such a chain).
MAX_CHAINS: Final = 2000
#: How far (in length units) a candidate's length may stray from the predicted best.
_SPREAD: Final = (-1, 0, 0, 1)
_ID_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.\-]")


@dataclass(frozen=True)
class Settings:
    """What `codeif generate pacific` was asked for."""

    instructions: int
    length: int
    samples: int
    seed: str
    languages: tuple[str, ...] = ("python",)
    mode: str = "prompt"
    render: str = "code"

    @property
    def name(self) -> str:
        """The benchmark's name: the task file's stem and every task id's prefix."""
        seed = _ID_UNSAFE.sub("_", self.seed)
        return f"pacific-{seed}-i{self.instructions}-l{self.length}"


@dataclass(frozen=True)
class Step:
    """One step of a sample: the instruction applied and the result it gives."""

    instruction: Instruction
    result: Value


@dataclass(frozen=True)
class Sample:
    """One generated task: its id, starting input, steps and rendering language
    (`nl` for a natural-language rendering)."""

    task_id: str
    start: Value
    steps: tuple[Step, ...]
    language: str


class GenerationError(Exception):
    """The pool cannot give the chains asked for."""


def generate(settings: Settings, pool: Mapping[str, Instruction]) -> list[Sample]:
    """Every sample of the benchmark `settings` asks for, in order."""
    ordered = [pool[name] for name in sorted(pool)]
    by_input: dict[ValueType, list[Instruction]] = {"int": [], "string": []}
    for instruction in ordered:
        by_input[instruction.input].append(instruction)
    width = max(3, len(str(settings.samples)))
    samples = []
    for index in range(1, settings.samples + 1):
        rng = stream(f"{settings.seed}:{index}")
        start, steps = draw_sample(rng, ordered, by_input, settings)
        if settings.render == "nl":
            language = "nl"
        else:
            language = stream(f"{settings.seed}:{index}:language").choice(settings.languages)
        task_id = f"{settings.name}-{index:0{width}d}"
        samples.append(Sample(task_id, start, steps, language))
    return samples


def stream(seed: str) -> random.Random:
    """A random stream seeded by a string: seeding hashes the string with SHA-512, the
    same on every run and machine (Python's `hash` of a string is not)."""
    return random.Random(seed)  # noqa: S311 - reproducible benchmarks, not secrets


def draw_sample(
    rng: random.Random,
    ordered: Sequence[Instruction],
    by_input: Mapping[ValueType, Sequence[Instruction]],
    settings: Settings,
) -> tuple[Value, tuple[Step, ...]]:
    """A chain and its starting input (see the module's docstring): the best of
    `CHAINS_KEPT` chains that stay inside their domains, by the mean distance of their
    steps' lengths to the target."""
    best: tuple[float, Value, tuple[Step, ...]] | None = None
    found = 0
    for _ in range(MAX_CHAINS):
        chain = draw_chain(rng, ordered, by_input, settings.instructions, settings.length)
        if chain is None:
            continue
        drawn = steer(rng, chain, settings.length)
        if drawn is None:
            continue
        distance = _distance(drawn[1], settings.length)
        if best is None or distance < best[0]:
            best = (distance, *drawn)
        found += 1
        if found == CHAINS_KEPT:
            break
    if best is not None:
        return best[1], best[2]
    raise GenerationError(
        f"no chain of {settings.instructions} instructions stays inside every "
        f"instruction's domain after {MAX_CHAINS} tries: the pool needs instructions "
        "whose domains take what the others return"
    )


def draw_chain(
    rng: random.Random,
    ordered: Sequence[Instruction],
    by_input: Mapping[ValueType, Sequence[Instruction]],
    count: int,
    target: int,
) -> list[Instruction] | None:
    """`count` instructions, each taking the type the previous one returns; None at a
    dead end (no instruction takes that type). Each next one is drawn with a weight
    favouring those whose length factor keeps the predicted length near `target`
    (from a start at `target`): counts and sums shrink whatever they are given, and
    drawn uniformly they leave long chains with one-character steps."""
    chain = [rng.choice(ordered)]
    predicted = target * chain[0].length.factor
    while len(chain) < count:
        choices = by_input[chain[-1].output]
        if not choices:
            return None
        weights = [_closeness(predicted * c.length.factor, target) for c in choices]
        chosen = rng.choices(choices, weights)[0]
        chain.append(chosen)
        predicted *= chosen.length.factor
    return chain


def _closeness(length: float, target: int) -> float:
    """A weight that is 1 at `target` and falls with the ratio's distance from 1."""
    ratio = max(length, 0.5) / target
    return 1.0 / (1.0 + abs(math.log(ratio))) ** 2


def _distance(steps: Sequence[Step], target: int) -> float:
    """The mean distance of the steps' result lengths to `target`."""
    return sum(abs(length_of(step.result) - target) for step in steps) / len(steps)


def steer(
    rng: random.Random, chain: Sequence[Instruction], target: int
) -> tuple[Value, tuple[Step, ...]] | None:
    """The starting input, among `CANDIDATES` drawn about the predicted best length,
    whose steps' lengths are closest to `target`; None when none stays in the domains."""
    domain = chain[0].domain
    low, high = length_range(domain)
    best_length = predicted_start(chain, target)
    best: tuple[float, Value, tuple[Step, ...]] | None = None
    for _ in range(CANDIDATES):
        wanted = min(high, max(low, best_length + rng.choice(_SPREAD)))
        start = draw_value(rng, domain, wanted)
        steps = run_chain(chain, start)
        if steps is None:
            continue
        distance = _distance(steps, target)
        if best is None or distance < best[0]:
            best = (distance, start, steps)
    return None if best is None else (best[1], best[2])


def predicted_start(chain: Sequence[Instruction], target: int) -> int:
    """The starting length whose predicted step lengths (the start's length times the
    product of the factors so far) are closest to `target`, by least squares."""
    cumulative = [prod(i.length.factor for i in chain[: k + 1]) for k in range(len(chain))]
    best = target * sum(cumulative) / sum(c * c for c in cumulative)
    return max(1, round(best))


def length_range(domain: Domain) -> tuple[int, int]:
    """The shortest and longest input of `domain`, in length units."""
    if domain.type == "string":
        return max(domain.min_length, 1), domain.max_length
    lengths = [length_of(domain.minimum), length_of(domain.maximum)]
    low = 1 if domain.minimum <= 0 <= domain.maximum else min(lengths)
    return low, max(lengths)


def draw_value(rng: random.Random, domain: Domain, length: int) -> Value:
    """An input of `domain` of about `length`: a number of `length` bits (any number of
    the domain when it has none of that length), or a string of `length` characters,
    lower-case letters where the domain allows them all, else from its alphabet."""
    if domain.type == "string":
        alphabet = domain.alphabet
        if set(string.ascii_lowercase) <= set(alphabet):
            alphabet = string.ascii_lowercase
        return "".join(rng.choice(alphabet) for _ in range(length))
    low = max(domain.minimum, 0 if length == 1 else 1 << (length - 1))
    high = min(domain.maximum, (1 << length) - 1)
    if low > high:
        low, high = domain.minimum, domain.maximum
    return rng.randint(low, high)


def run_chain(chain: Sequence[Instruction], start: Value) -> tuple[Step, ...] | None:
    """Every step's result from `start`, by the references; None when a step's input
    is outside its instruction's domain. A reference that fails, or returns a value of
    another type or beyond the 32-bit bound, on an input of its domain is a bug of the
    pool: `PoolError`."""
    steps = []
    value = start
    for instruction in chain:
        if not instruction.domain.admits(value):
            return None
        value = apply(instruction, value)
        steps.append(Step(instruction, value))
    return tuple(steps)


def apply(instruction: Instruction, value: Value) -> Value:
    """The reference's result on `value` (an input of the domain), checked."""
    where = Location(instruction.path, 1, ("reference",))
    try:
        result = instruction.reference()(value)
    except Exception as exc:  # noqa: BLE001 (any failure of the pool's code is the pool's)
        message = (
            f"the reference fails on {value!r}, an input of its domain: "
            f"{type(exc).__name__}: {exc} (fix it or narrow `input`; see --check-pool)"
        )
        raise PoolError([TaskFileError(where, message)]) from None
    problem = result_problem(instruction, result)
    if problem is not None:
        expected, found = problem
        message = f"on {value!r}: expected {expected}, got {found} (see --check-pool)"
        raise PoolError([TaskFileError(where, message)])
    return result  # type: ignore[no-any-return]


def result_problem(instruction: Instruction, result: object) -> tuple[str, str] | None:
    """What a result of `instruction` should be and what `result` is, when it is not
    one (another type, or a number beyond the 32-bit bound); else None."""
    if instruction.output == "int":
        if not is_int(result):
            return "an int", f"{type(result).__name__} {result!r}"
        if not -INT_BOUND < int(result) < INT_BOUND:  # type: ignore[call-overload]
            return "a number strictly between -2**31 and 2**31 (narrow `input`)", str(result)
        return None
    if not isinstance(result, str):
        return "a string", f"{type(result).__name__} {result!r}"
    return None

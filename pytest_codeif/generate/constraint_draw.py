"""Drawing constraint stacks with a seed: for each base problem, `per_problem` draws,
each a stack of one constraint per level, never two that conflict, each kept only when
the problem's reference (the witness) satisfies it.

Randomness: each draw has its own `random.Random` seeded with a string (the seed, the
problem's id and the draw's number): Python seeds from a string through SHA-512, so
the draws are the same on every machine and under any `PYTHONHASHSEED`, and one draw
does not shift when another problem is added. Families are drawn uniformly (a family
with many variants is not more likely), then a variant, then a wording.

A drawn constraint the witness does not satisfy is dropped, counted with the reason,
and drawn again (not that variant again) up to `redraws` times per level; a draw that
runs out of redraws, or of families, is given up whole. Verdicts come from `oracle`; an
oracle may not know a verdict yet (`None`): the draw then goes on as if satisfied and
the caller asks for what was missing, then draws again (`constraints_cli` does so in
rounds until nothing is missing; the result is the one every verdict known up front
would give, since a draw only reads the verdicts of what it drew).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_codeif.generate.constraint_catalog import Catalog
from pytest_codeif.generate.constraint_family import Family
from pytest_codeif.generate.constraint_problems import BaseProblem
from pytest_codeif.generate.constraint_witness import Verdict


@dataclass(frozen=True)
class Drawn:
    """One constraint of a stack: its family, variant and wording, at its level."""

    family: Family
    variant: int
    wording: int
    level: int

    @property
    def label(self) -> str:
        return self.family.label(self.variant)


@dataclass(frozen=True)
class Stack:
    """A kept draw: its problem, its number (1-based) and a constraint per level."""

    problem: BaseProblem
    draw: int
    constraints: tuple[Drawn, ...]


@dataclass(frozen=True)
class Drop:
    """A drawn constraint the witness did not satisfy (or a draw given up: `label`
    is then None), with the reason."""

    problem: str
    draw: int
    level: int
    label: str | None
    reason: str


@dataclass
class Drawing:
    """What drawing gave: the kept stacks, the dropped constraints, the draws given up,
    and the (problem key, family id, variant) whose verdicts were not known."""

    stacks: list[Stack] = field(default_factory=list)
    dropped: list[Drop] = field(default_factory=list)
    given_up: list[Drop] = field(default_factory=list)
    unknown: set[tuple[str, str, int]] = field(default_factory=set)


#: A verdict on (problem, family, variant), or None when it is not known yet.
Oracle = Callable[[BaseProblem, Family, int], Verdict | None]


def seed_text(seed: str, problem: BaseProblem, draw: int) -> str:
    """The string seeding one draw's generator."""
    return f"codeif-constraints\x1f{seed}\x1f{problem.id}\x1f{draw}"


def applicable(catalog: Catalog, problem: BaseProblem) -> list[Family]:
    """The families that can be stated for `problem` (those naming the entry point
    need one), in id order."""
    return [f for f in catalog.families if problem.entry_point or not f.needs_function]


def draw_problem(
    problem: BaseProblem,
    catalog: Catalog,
    *,
    seed: str,
    per_problem: int,
    levels: int,
    redraws: int,
    oracle: Oracle,
    into: Drawing,
) -> None:
    """Draw `problem`'s stacks into `into`."""
    families = applicable(catalog, problem)
    for draw in range(1, per_problem + 1):
        rng = random.Random(seed_text(seed, problem, draw))  # noqa: S311 - reproducible, not secret
        stack = _draw_stack(
            problem,
            draw,
            catalog=catalog,
            families=families,
            levels=levels,
            redraws=redraws,
            rng=rng,
            oracle=oracle,
            into=into,
        )
        if stack is not None:
            into.stacks.append(Stack(problem, draw, tuple(stack)))


def _draw_stack(
    problem: BaseProblem,
    draw: int,
    *,
    catalog: Catalog,
    families: Sequence[Family],
    levels: int,
    redraws: int,
    rng: random.Random,
    oracle: Oracle,
    into: Drawing,
) -> list[Drawn] | None:
    """One draw's stack, or None (recorded in `into.given_up`) when it cannot be
    completed."""
    stack: list[Drawn] = []
    rejected: set[tuple[str, int]] = set()
    for level in range(1, levels + 1):
        chosen = [d.family.id for d in stack]
        for _ in range(redraws + 1):
            pool = [
                f
                for f in families
                if not catalog.clash(f.id, chosen)
                and any((f.id, v) not in rejected for v in range(len(f.variants)))
            ]
            if not pool:
                reason = (
                    f"no family left at level {level}: each is drawn already, conflicts "
                    "with one drawn, or its reference violates it"
                )
                into.given_up.append(Drop(problem.id, draw, level, None, reason))
                return None
            family = rng.choice(pool)
            variants = [v for v in range(len(family.variants)) if (family.id, v) not in rejected]
            variant = rng.choice(variants)
            wording = rng.randrange(len(family.wordings))
            verdict = oracle(problem, family, variant)
            if verdict is None:
                into.unknown.add((problem.key, family.id, variant))
                verdict = Verdict(True)  # go on as if satisfied: asked for, then redrawn
            if verdict.satisfied:
                stack.append(Drawn(family, variant, wording, level))
                break
            rejected.add((family.id, variant))
            into.dropped.append(
                Drop(problem.id, draw, level, family.label(variant), verdict.reason)
            )
        else:
            reason = f"{redraws} redraws at level {level} all violated by the reference"
            into.given_up.append(Drop(problem.id, draw, level, None, reason))
            return None
    return stack

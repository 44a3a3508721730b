"""The catalogue: every recogniser, and the lookup of a name as instructions write it
("Kadane's Algorithm", "Miller-Rabin's method", "in-place shuffling")."""

from __future__ import annotations

from typing import Final

from pytest_codeif.checks.named_algorithm import (
    described,
    graphs,
    hashing,
    numbers,
    searching,
    sequences,
    sorts,
    structures,
)
from pytest_codeif.checks.named_algorithm.recogniser import Recogniser, normalise

CATALOGUE: Final[tuple[Recogniser, ...]] = (
    *numbers.RECOGNISERS,
    *hashing.RECOGNISERS,
    *sequences.RECOGNISERS,
    *sorts.RECOGNISERS,
    *searching.RECOGNISERS,
    *graphs.RECOGNISERS,
    *structures.RECOGNISERS,
    *described.RECOGNISERS,
)


def _index() -> dict[str, Recogniser]:
    index: dict[str, Recogniser] = {}
    for recogniser in CATALOGUE:
        for name in (recogniser.name, recogniser.title, *recogniser.aliases, *recogniser.generic):
            key = normalise(name)
            if index.setdefault(key, recogniser) is not recogniser:
                raise ValueError(f"{name!r} names both {index[key].name} and {recogniser.name}")
    return index


_BY_NAME: Final = _index()


def lookup(name: str) -> Recogniser | None:
    """The recogniser of the algorithm `name` names (any alias, any case, with or without
    "algorithm", "method", possessives and punctuation); None when none does."""
    return _BY_NAME.get(normalise(name))


def names_technique(name: str) -> bool:
    """Whether `name` names a technique in general ("in-place shuffling") rather than the
    algorithm itself: the standard library's implementation then satisfies it too."""
    recogniser = lookup(name)
    return recogniser is not None and normalise(name) in {normalise(g) for g in recogniser.generic}


def names() -> list[str]:
    """The canonical names, as the check's `name` option takes them."""
    return [recogniser.name for recogniser in CATALOGUE]


def documentation(indent: str = "") -> str:
    """The catalogue as Markdown, one item per algorithm: its option value, other names
    instructions use, and what the recogniser looks for (appended to the check's
    docstring, so the check's page in the docs cannot drift from the recognisers)."""
    lines = ["", "Catalogue (option value: what is looked for):", ""]
    for recogniser in CATALOGUE:
        also = ", ".join(f'"{a}"' for a in (*recogniser.aliases, *recogniser.generic)[:4])
        lines.append(
            f"- `{recogniser.name}` ({recogniser.title}; also {also}): {recogniser.summary}"
        )
    return "\n".join(f"{indent}{line}" if line else "" for line in lines) + "\n"

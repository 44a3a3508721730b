"""The `construct` check finds every construct it names, and only where it is used."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_codeif.checks.base import Sample
from pytest_codeif.checks.construct import CONSTRUCTS, ConstructCheck
from pytest_codeif.checks.shared.js_constructs import JS_ONLY
from pytest_codeif.testing import sample_verdict

EVERY_CONSTRUCT = """\
from dataclasses import dataclass

G = 0


@dataclass
class Point:
    x: int


async def fetch(source):
    return await source()


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def everything(xs, d):
    global G
    a, b = 1, 2
    first, *rest = xs
    merged = {**d}
    square = lambda y: y * y
    lists = [x for x in xs]
    sets = {x for x in xs}
    dicts = {x: x for x in xs}
    lazy = (x for x in xs)
    for x in xs:
        pass
    while False:
        pass
    try:
        pass
    except ValueError:
        pass
    with open("f") as handle:
        pass
    if (n := len(xs)) > 1:
        pass
    match xs:
        case _:
            pass
    text = f"{a}"
    assert a

    def inner():
        nonlocal a
        yield a

    raise ValueError(text)
"""


def _named(messages: list[str], pattern: str) -> set[str]:
    return {m.group(1) for text in messages if (m := re.search(pattern, text))}


#: The constructs Python code can use (`arrow-function` is JavaScript's alone).
PYTHON_CONSTRUCTS = [c for c in CONSTRUCTS if c not in JS_ONLY]


def test_every_construct_is_found_where_it_is_used(tmp_path: Path) -> None:
    sample = Sample(EVERY_CONSTRUCT, {"forbid": PYTHON_CONSTRUCTS})
    verdict = sample_verdict(ConstructCheck, sample, tmp_path)
    assert verdict.status == "violated", verdict.error
    found = _named([e.message for e in verdict.evidence], r"uses (\S+), which is forbidden")
    assert found == set(PYTHON_CONSTRUCTS)


def test_no_construct_is_found_where_none_is_used(tmp_path: Path) -> None:
    sample = Sample("x = 1\n", {"require": PYTHON_CONSTRUCTS})
    verdict = sample_verdict(ConstructCheck, sample, tmp_path)
    assert verdict.status == "violated", verdict.error
    missing = _named([e.message for e in verdict.evidence], r"uses no (\S+), which is required")
    assert missing == set(PYTHON_CONSTRUCTS)

"""Types read from what the code does with unannotated parameters and returns."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_codeif.checks.shared.structure import FunctionRef, functions
from pytest_codeif.checks.types.usage_types import param_types, return_kind
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile


def function(code: str) -> FunctionRef:
    module = ParsedModule(SourceFile("m.py", code, Path("m.py")))
    return next(functions(module))


@pytest.mark.parametrize(
    ("code", "types"),
    [
        ("def f(p):\n    return p.strip().split()\n", {"str"}),
        ("def f(p):\n    return 'Hello ' + p\n", {"str"}),
        ("import json\ndef f(p):\n    return json.loads(p)\n", {"str"}),
        ("def f(p):\n    return p['name']\n", {"dict"}),
        ("def f(p):\n    for k, v in p.items():\n        pass\n", {"dict"}),
        ("def f(p):\n    p.sort()\n    return p\n", {"list"}),
        ("def f(p):\n    p.add(1)\n", {"set"}),
        ("def f(p):\n    return list(range(p))\n", {"int", "bool"}),
        ("def f(p):\n    return p / 2\n", {"int", "float", "bool"}),
        ("def f(p):\n    return p[1:]\n", {"list", "tuple", "str"}),
        (
            "def f(p):\n    for x in p:\n        print(p[0])\n",
            {"list", "tuple", "str", "dict", "collections.deque"},
        ),
        (
            "def f(p):\n    if not isinstance(p, (int, float)):\n        raise TypeError\n",
            {"int", "float", "bool"},
        ),
        ("def f(p):\n    a, b = p\n    return a\n", {"list", "tuple", "str", "dict", "set"}),
        ("def f(p):\n    p[0] = 1\n    return p[1:]\n", {"list", "tuple", "str"}),
    ],
)
def test_uses_narrow_a_parameter(code: str, types: set[str]) -> None:
    assert param_types(function(code), "p").types == types


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("def f(p):\n    return f'{p}!'\n", "no use of `p` tells"),  # anything formats
        ("def f(p):\n    if isinstance(p, str):\n        return 1\n", "no use of `p` tells"),
        ("def f(p):\n    p = p.strip()\n    return p\n", "rebound"),
        ("def f(p):\n    return p.read()\n", "which no builtin type explains"),
        ("def f(p):\n    p.append(1)\n    return p.lower()\n", "its uses disagree"),
    ],
)
def test_what_stays_unknown_says_why(code: str, why: str) -> None:
    inferred = param_types(function(code), "p")
    assert inferred.types is None and why in inferred.why


RETURNS = {
    "tuple[set, int, bool]": """
        def f(xs):
            u = set(xs)
            return u, len(xs), any(xs)
    """,
    "float": """
        def f(xs):
            if not xs:
                return "List is empty"  # a guard clause: not the normal path
            return sum(xs) / len(xs)
    """,
    "list": """
        def f(xs):
            out = []
            for x in xs:
                out.append(x)
            return out
    """,
    "json-text": """
        import json

        def f(d):
            try:
                return json.dumps(d)
            except TypeError:
                return None
    """,
    "int": """
        def f(x):
            if x:
                return 1
            else:
                return 2
    """,
    "None": "def f(x):\n    print(x)\n",
    "generator": "def f(x):\n    yield x\n",
    "collections.Counter": """
        from collections import Counter

        def f(text):
            return Counter(text.split())
    """,
    "datetime-text": "def f(d):\n    return d.strftime('%Y')\n",
    "number": "def f(xs):\n    return sum(xs) * 2\n",  # an int or a float: not said which
}


@pytest.mark.parametrize(("kind", "code"), RETURNS.items(), ids=list(RETURNS))
def test_the_normal_path_return_decides(kind: str, code: str) -> None:
    assert return_kind(function(textwrap.dedent(code).strip() + "\n")).kind == kind


@pytest.mark.parametrize(
    "code",
    [
        "def f(x):\n    return helper(x)\n",  # the code's own function: not followed
        "def f(x):\n    for y in x:\n        return y\n",  # not the last statement
        "def f(x):\n    r = 1\n    r = 'a'\n    return r\n",  # assigned two kinds
        "def f(x):\n    if x:\n        return 1\n    else:\n        return 'a'\n",
    ],
)
def test_unread_returns_stay_unknown(code: str) -> None:
    assert return_kind(function(code)).kind is None

"""`python-version`'s `uses` and `features`: the table of what 3.5 to 3.13 introduced, its
recognisers (with the near misses they must not take), the check's findings and notes,
and the MultiCodeIF importer's reading of language-version prompts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif import Sample
from pytest_codeif.checks.python_version import PythonVersionCheck
from pytest_codeif.checks.python_version.version_features import (
    BY_ID,
    FEATURES,
    VERSIONS,
    features_used,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.importers.multicodeif import map_constraint
from pytest_codeif.outcome import Verdict
from pytest_codeif.testing import sample_verdict


def parsed(code: str) -> ParsedModule:
    return ParsedModule(SourceFile("solution.py", code, Path("solution.py")))


def seen(code: str) -> set[str]:
    return {found.feature.id for found in features_used(parsed(code))}


def verdict(code: str, tmp_path: Path, **options: Any) -> Verdict:
    return sample_verdict(PythonVersionCheck, Sample(code, options), tmp_path)


def test_the_table_covers_every_version_once_per_id() -> None:
    assert [v for v in VERSIONS] == [(3, minor) for minor in range(5, 14)]
    assert len(BY_ID) == len(FEATURES)
    for version in VERSIONS:
        assert f"stdlib-{version[0]}.{version[1]}" in BY_ID
        assert any(f.version == version and not f.id.startswith("stdlib-") for f in FEATURES)
    for feature in FEATURES:
        assert feature.nodes or feature.names or feature.keywords or feature.attributes
        assert feature.test is None or feature.nodes, feature.id


# Each recogniser on code that shows it. libcst parses newer syntax than the running
# Python, so 3.12 and 3.13 syntax is recognised here even on 3.11.
SHOWN = [
    ("async def f():\n    await g()\n", "async-await"),
    ("c = a @ b\n", "matrix-multiply"),
    ("both = [*a, *b]\n", "unpacking-generalizations"),
    ("merged = {**a, **b}\n", "unpacking-generalizations"),
    ("print(*a, *b)\n", "unpacking-generalizations"),
    ("import math\nmath.gcd(4, 6)\n", "stdlib-3.5"),
    ("x = f'{a}'\n", "f-string"),
    ("count: int = 0\n", "variable-annotations"),
    ("big = 1_000_000\n", "underscore-numbers"),
    ("async def gen():\n    yield 1\n", "async-generators"),
    ("async def f(xs):\n    return [x async for x in xs]\n", "async-generators"),
    ("import secrets\n", "stdlib-3.6"),
    ("from random import choices\n", "stdlib-3.6"),
    ("from __future__ import annotations\n", "postponed-annotations"),
    ("from dataclasses import dataclass\n", "dataclasses"),
    ("breakpoint()\n", "breakpoint"),
    ("def __getattr__(name):\n    return name\n", "module-getattr"),
    ("import asyncio\nasyncio.run(main())\n", "stdlib-3.7"),
    ("if (n := len(a)) > 1:\n    pass\n", "walrus"),
    ("def f(a, /, b):\n    pass\n", "positional-only"),
    ("print(f'{x=}')\n", "fstring-equals"),
    ("from typing import Protocol\n", "typing-3.8"),
    ("import math\nmath.prod([1, 2])\n", "stdlib-3.8"),
    ("import logging\nlogging.basicConfig(force=True)\n", "stdlib-3.8"),
    ("d = {'a': 1} | other\n", "dict-union"),
    ("def f(a: dict, b):\n    a |= b\n", "dict-union"),
    ("def f(a):\n    base = dict(x=1)\n    return base | a\n", "dict-union"),
    ("name = s.removeprefix('x')\n", "str-removeprefix"),
    ("def f(x: list[int]) -> dict[str, int]:\n    pass\n", "builtin-generics"),
    ("@buttons[0].clicked.connect\ndef f():\n    pass\n", "relaxed-decorators"),
    ("from functools import cache\n", "stdlib-3.9"),
    ("match x:\n    case 1:\n        pass\n", "match"),
    ("def f(x: int | None):\n    pass\n", "union-types"),
    ("isinstance(x, int | str)\n", "union-types"),
    ("with (open(a) as f, open(b) as g):\n    pass\n", "parenthesized-context-managers"),
    ("pairs = zip(a, b, strict=True)\n", "zip-strict"),
    ("from itertools import pairwise\n", "stdlib-3.10"),
    ("n = x.bit_count()\n", "stdlib-3.10"),
    (
        "from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int\n",
        "stdlib-3.10",
    ),
    ("try:\n    pass\nexcept* ValueError:\n    pass\n", "exception-groups"),
    ("raise ExceptionGroup('x', [ValueError()])\n", "exception-groups"),
    ("try:\n    pass\nexcept ValueError as e:\n    e.add_note('x')\n", "exception-groups"),
    ("import tomllib\n", "tomllib"),
    ("from typing import Self\n", "typing-self"),
    ("import typing\nx: typing.Self\n", "typing-self"),
    ("def f(*args: *Ts):\n    pass\n", "variadic-generics"),
    (
        "import asyncio\nasync def f():\n    async with asyncio.TaskGroup() as g:\n        pass\n",
        "task-groups",
    ),
    ("import datetime\nnow = datetime.datetime.now(datetime.UTC)\n", "stdlib-3.11"),
    ("from enum import StrEnum\n", "stdlib-3.11"),  # typeshed's guards know it too
    ("def first[T](xs: list[T]) -> T:\n    return xs[0]\n", "type-parameters"),
    ("class Box[T]:\n    pass\n", "type-parameters"),
    ("type Pair = tuple[int, int]\n", "type-statement"),
    ('x = f"{d["key"]}"\n', "fstring-nesting"),
    ("from typing import override\n", "override"),
    ("from itertools import batched\n", "itertools-batched"),
    ("import math\nmath.sumprod(a, b)\n", "stdlib-3.12"),
    ("def f[T = int]():\n    pass\n", "type-parameter-defaults"),
    ("from warnings import deprecated\n", "deprecated"),
    ("import copy\ncopy.replace(p, x=1)\n", "copy-replace"),
    ("import os\nos.process_cpu_count()\n", "stdlib-3.13"),
    ("from itertools import batched\nbatched(xs, 2, strict=True)\n", "stdlib-3.13"),
]


@pytest.mark.parametrize(("code", "feature"), SHOWN, ids=[f for _, f in SHOWN])
def test_each_feature_is_recognised(code: str, feature: str) -> None:
    assert feature in seen(code)


# Near misses: code that looks like a feature and is not it.
NOT_SHOWN = [
    ("first, *rest = items\n", "unpacking-generalizations"),  # PEP 3132, Python 3.0
    ("for a, *b in rows:\n    pass\n", "unpacking-generalizations"),
    ("both = set(a) | set(b)\n", "dict-union"),  # `|` on sets is older than Python 3
    ("flags = a | b\n", "dict-union"),  # nothing says these are dicts
    ("def f(a: set, b):\n    return a | b\n", "dict-union"),
    ("flags = a | b\n", "union-types"),  # not in an annotation
    ("from typing import Optional\ndef f(x: Optional[int]):\n    pass\n", "union-types"),
    ("from typing import List\ndef f(x: List[int]):\n    pass\n", "builtin-generics"),
    ("class list:\n    pass\nx = list[int]\n", "builtin-generics"),  # shadowed
    ("@app.route('/')\ndef f():\n    pass\n", "relaxed-decorators"),
    ("@functools.lru_cache(maxsize=None)\ndef f():\n    pass\n", "relaxed-decorators"),
    ("with (open(a)) as f:\n    pass\n", "parenthesized-context-managers"),
    ("pairs = zip(a, b)\n", "zip-strict"),
    ("def zip(*a, strict=False):\n    pass\nzip(a, strict=True)\n", "zip-strict"),
    ("try:\n    pass\nexcept ValueError:\n    pass\n", "exception-groups"),
    ("class ExceptionGroup(Exception):\n    pass\nraise ExceptionGroup()\n", "exception-groups"),
    ("from typing_extensions import Self\n", "typing-self"),
    ("x = f'{a}'\n", "fstring-equals"),
    ("x = f'{d[\"key\"]}'\n", "fstring-nesting"),  # other quotes: valid before 3.12
    ("async def f():\n    return [x for x in xs]\n", "async-generators"),
    ("def f():\n    yield 1\n", "async-generators"),
    ("def f[T]():\n    pass\n", "type-parameter-defaults"),
    ("def __getattr__(self, name):\n    pass\n", "positional-only"),
    ("class A:\n    def __getattr__(self, name):\n        pass\n", "module-getattr"),
    ("import os\nos.walk('.')\n", "stdlib-3.12"),
    ("import math\nmath.floor(1.5)\n", "stdlib-3.5"),
]


@pytest.mark.parametrize(("code", "feature"), NOT_SHOWN, ids=[f for _, f in NOT_SHOWN])
def test_near_misses_are_not_taken_for_the_feature(code: str, feature: str) -> None:
    assert feature not in seen(code)


def test_uses_names_what_was_found_with_its_place(tmp_path: Path) -> None:
    code = "import tomllib\n\n\ndef f(x):\n    if (n := x):\n        return n\n"
    result = verdict(code, tmp_path, uses=["3.8", "3.11"], features=["walrus"])
    assert result.status == "satisfied", result.evidence
    assert result.notes == (
        "uses features of Python 3.8 or 3.11: `tomllib` (solution.py:1); assignment "
        "expressions `:=` (PEP 572): `(n := x)` (solution.py:5)",
        "uses assignment expressions `:=` (PEP 572) (3.8): `(n := x)` (solution.py:5)",
    )


def test_a_violation_says_what_would_have_counted(tmp_path: Path) -> None:
    result = verdict("def f(x):\n    return x\n", tmp_path, uses="3.11", features=["match"])
    assert result.status == "violated"
    uses, match = (e.message for e in result.evidence)
    assert uses.startswith("uses no feature introduced in Python 3.11; any of these would count")
    for shown in ("`except*`", "`tomllib`", "`typing.Self`", "`asyncio.TaskGroup`"):
        assert shown in uses
    assert match == "does not use structural pattern matching `match` (PEP 634) (3.10)"


def test_version_and_uses_are_judged_together(tmp_path: Path) -> None:
    """'Python 3.8, use its walrus': `match` breaks the first, a missing `:=` the second."""
    code = "def f(x):\n    match x:\n        case 1:\n            return 1\n"
    result = verdict(code, tmp_path, version="3.8", features=["walrus"])
    messages = [e.message for e in result.evidence]
    assert result.status == "violated"
    assert any("match" in m and "3.8" in m for m in messages[:-1]), messages
    assert messages[-1] == "does not use assignment expressions `:=` (PEP 572) (3.8)"


def test_options_are_validated(tmp_path: Path) -> None:
    for bad in ({}, {"uses": "3.4"}, {"uses": "3.14"}, {"features": ["goto"]}, {"uses": []}):
        result = verdict("x = 1\n", tmp_path, **bad)
        assert (result.status, result.error_kind) == ("error", "invalid-task"), bad


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the running Python parses 3.12")
def test_syntax_newer_than_the_running_python_is_undecidable(tmp_path: Path) -> None:
    """The code must parse under the interpreter pytest runs on: PEP 695 code is a syntax
    error on 3.11, reported as undecidable rather than as 'uses no 3.12 feature'."""
    result = verdict("type Pair = tuple[int, int]\n", tmp_path, uses="3.12")
    assert (result.status, result.error_kind) == ("error", "syntax-error")


def test_uses_end_to_end_with_a_response(pytester: pytest.Pytester) -> None:
    response = (
        "Here it is:\n\n```python\ndef classify(x):\n    match x:\n        case 0:\n"
        "            return 'zero'\n        case _:\n            return 'other'\n```\n"
    )
    tasks = {
        "tasks": [
            {
                "id": "modern",
                "response": response,
                "constraints": [{"check": "python-version", "version": "3.10", "uses": "3.10"}],
            },
            {
                "id": "old-style",
                "response": response.replace("match x:", "if True:").replace("case", "if"),
                "constraints": [{"check": "python-version", "features": ["walrus"]}],
            },
        ]
    }
    pytester.makefile(".codeif.yaml", t=yaml.safe_dump(tasks, sort_keys=False))
    pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {t["id"]: t["constraints"][0] for t in report["tasks"]}
    assert by_id["modern"]["status"] == "satisfied"
    assert by_id["old-style"]["status"] in ("violated", "error")


# -- the MultiCodeIF importer's reading of language-version prompts ----------------------


def mapped(prompt: str, answer: str = "python;3.10") -> list[dict[str, Any]]:
    record = {"type_file": "syntax_language_version", "answer": answer, "prompt": prompt}
    return map_constraint(record, None).constraints


@pytest.mark.parametrize(
    ("prompt", "answer", "expected"),
    [
        (
            "Write a Python 3.8 tool that renames files.",
            "python;3.8",
            {"version": "3.8"},
        ),
        (
            "Write a Python 3.10 parser; it must use the new 'match' statement for commands.",
            "python;3.10",
            {"version": "3.10", "features": ["match"]},
        ),
        (
            "Write it in Python 3.8 and show assignment expressions and positional-only "
            "parameters.",
            "python;3.8",
            {"version": "3.8", "features": ["walrus", "positional-only"]},
        ),
        (
            "A Python 3.12 service using the new pattern matching features introduced in "
            "Python 3.12.",
            "python;3.12",
            {"version": "3.12", "features": ["match"]},
        ),
        (
            "A Python 3.11 script relying on the latest syntax introduced in Python 3.11.",
            "python;3.11",
            {"version": "3.11", "uses": "3.11"},
        ),
        (
            "Make use of Python 3.13's enhanced error handling for the retries.",
            "python;3.13",
            {"version": "3.13", "features": [["exception-groups", "exception-chaining"]]},
        ),
    ],
)
def test_language_version_prompts_map_to_what_they_ask(
    prompt: str, answer: str, expected: dict[str, Any]
) -> None:
    assert mapped(prompt, answer) == [{"check": "python-version", **expected}]


def test_a_version_outside_the_table_keeps_its_compatibility_check() -> None:
    record = {
        "type_file": "syntax_language_version",
        "answer": "python;3.14",
        "prompt": "Use the new features of Python 3.14.",
    }
    result = map_constraint(record, None)
    assert result.constraints == [{"check": "python-version", "version": "3.14"}]
    assert result.left_out == ["features of Python 3.14 are not in the table (3.5-3.13)"]


def test_a_compatibility_range_in_a_quality_prompt_checks_both_ends() -> None:
    record = {
        "type_file": "non_functional_requirements",
        "answer": "",
        "prompt": "The package must stay compatible with Python 3.7 to 3.12.",
    }
    assert map_constraint(record, None).constraints == [
        {"check": "python-version", "version": "3.7"},
        {"check": "python-version", "version": "3.12"},
    ]

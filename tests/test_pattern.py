"""The `pattern` check: its pattern language (what matches, what nearly does), its
options (`where`, `inside`, `not`...), bad patterns as task-file errors, hostile code kept
bounded, and a real `pytest --codeif` run."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from pytest_codeif import Finding
from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.checks.pattern.match import (
    Budget,
    BudgetExceeded,
    Matcher,
    PatternSyntaxError,
    compile_pattern,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable
from tests.conftest import FIXTURES, copy_into


class _Context:
    """Just enough of a CheckContext for one module: findings keep their real line."""

    check_name = "pattern"

    def __init__(self, code: str) -> None:
        source = SourceFile("solution.py", textwrap.dedent(code), Path("solution.py"))
        self.module = ParsedModule(source)

    def modules(self) -> list[ParsedModule]:
        return [self.module]

    def js_modules(self) -> list[object]:
        return []

    def report(self, module: ParsedModule, node: cst.CSTNode, message: str) -> Finding:
        return Finding(message, "pattern", module.relpath, module.line_of(node))

    def finding(self, message: str, **where: Any) -> Finding:
        return Finding(message, "pattern", where.get("path"), where.get("line"))


def findings(options: str | dict[str, Any], code: str) -> list[Finding]:
    check = PatternCheck({"pattern": options} if isinstance(options, str) else options)
    return list(check.evaluate(_Context(code)))  # type: ignore[arg-type]


def lines(options: str | dict[str, Any], code: str) -> list[int | None]:
    return [f.line for f in findings(options, code)]


# (pattern, code, the lines it matches): each group has its near misses.
MATCHES = [
    # Calls: positional arguments in order, keywords in any order, `...` for the rest.
    ("print(...)", "print(1)\nx.print(2)\nprint\nprint()\n", [1, 4]),
    ("f($X)", "f(1)\nf()\nf(1, 2)\nf(x=1)\n", [1]),
    ("f($X, ...)", "f(1)\nf()\nf(1, 2)\nf(x=1)\nf(1, x=1)\n", [1, 3, 5]),
    ("f(..., $X)", "f(1, 2)\nf()\n", [1]),
    ("f(..., 3)", "f(1, 2, 3)\nf(3, 1)\n", [1]),
    ("f($...ARGS, last)", "f(a, b, last)\nf(last)\nf(last, a)\n", [1, 2]),
    ("f(a=1)", "f(a=1)\nf(a=1, b=2)\nf(a=2)\n", [1]),
    ("f(b=2, a=1)", "f(a=1, b=2)\n", [1]),
    ("f(..., a=1)", "f(x, b=2, a=1)\nf(x)\n", [1]),
    ("f(x=1, ..., y=2)", "f(y=2, z=3, x=1)\nf(x=1)\n", [1]),
    ("f(*$ARGS)", "f(*a)\nf(a)\n", [1]),
    ("f(**$KW)", "f(**k)\nf(k)\n", [1]),
    ("$OBJ.execute($SQL, ...)", "cur.execute(q)\ncur.execute(q, p)\nexecute(q)\n", [1, 2]),
    # The same metavariable twice is the same code, layout aside; `$_` binds nothing.
    ("$X == $X", "a == a\na == b\nf(x) == f( x )\nf(x) == f(y)\n", [1, 3]),
    ("$A.append($A)", "xs.append(xs)\nxs.append(ys)\n", [1]),
    ("$_ == $_", "a == b\n", [1]),
    ("f($...A, $...A)", "f(1, 2, 1, 2)\nf(1, 2, 2, 1)\nf()\n", [1, 3]),
    # Dotted names resolve through imports, names that are no expression never match.
    (
        "subprocess.run(...)",
        "import subprocess as sp\nfrom subprocess import run\nsp.run(1)\nrun(2)\nother.run(3)\n",
        [3, 4],
    ),
    (
        "requests.$M(...)",
        "from requests import get\nimport requests as r\nget(1)\nr.post(2)\nrequests.api.get(3)\n",
        [3, 4],
    ),
    ("print(...)", "from builtins import print as echo\necho(1)\n", [2]),
    ("os.path.join(...)", "from os import path\npath.join(a)\nos.path.join(b)\n", [2, 3]),
    ("json.loads", "import json\nx = json.loads\ny = obj.json.loads\n", [2]),
    ("x", "x = 1\nobj.x\nf(x=2)\ndef x(): pass\nimport x\n", [1]),
    ("datetime.datetime.now()", "from datetime import datetime\ndatetime.now()\n", [2]),
    ("datetime.datetime.now()", "import datetime\ndatetime.datetime.now(tz)\n", []),
    # Strings by value, `"..."` any string, `f"..."` any f-string; numbers by value.
    ('"..."', 'a = "x" "y"\nb = f"{a}"\nc = b"z"\nd = 1\n', [1, 3]),
    ('f"..."', 'a = "x"\nb = f"{a}"\n', [2]),
    ('open("data.txt")', "open('data.txt')\nopen('other.txt')\nopen(name)\n", [1]),
    ('open("$NAME")', "open('a')\nopen(a)\n", [1]),
    ("x = 16", "x = 0x10\nx = 15\n", [1]),
    # Statements: blocks hold exactly their statements; optional parts may be there.
    (
        "except Exception: pass",
        "try:\n    a()\nexcept Exception as e:\n    pass\nexcept Exception:\n    log()\n"
        "except ValueError:\n    pass\n",
        [3],
    ),
    ("except: pass", "try:\n    a()\nexcept Exception:\n    pass\nexcept:\n    pass\n", [5]),
    ("except Exception: ...", "try:\n    a()\nexcept Exception:\n    log()\n", [3]),
    ("if $X: ...", "if a:\n    pass\nelif b:\n    pass\nelse:\n    c()\n", [1, 3]),
    ("if $X:\n    return $Y", "if a: return 1\nif b:\n    x()\n    return 2\n", [1]),
    ("for $X in $Y: ...", "for a in b:\n    pass\nelse:\n    pass\nwhile a: pass\n", [1]),
    ("assert $X", "assert a\nassert a, 'why'\n", [1, 2]),
    ("raise $E", "raise ValueError()\nraise ValueError() from exc\nraise\n", [1, 2]),
    ("return", "def f():\n    return\n    return 1\n", [2]),
    ("x = 1\ny = 2", "x = 1\ny = 2\nx = 1\nz = 3\ny = 2\nx = 1; y = 2\n", [1, 6]),
    ("x = 1\n...\ny = 2", "x = 1\nz = 3\ny = 2\n", [1]),
    ("$F = open(...)\n...\n$F.close()", "h = open(p)\nread(h)\nh.close()\ng.close()\n", [1]),
    ("$F = open(...)\n...\n$F.close()", "h = open(p)\ng.close()\n", []),
    # Definitions: decorators, annotations, defaults, async may be there unless written.
    (
        "def $F(...): ...",
        "def f(a): pass\nasync def g(): pass\nclass C:\n    def m(self): pass\n",
        [1, 2, 4],
    ),
    ("async def $F(...): ...", "def f(a): pass\nasync def g(): pass\n", [2]),
    ("def $F(self, ...): ...", "def f(a): pass\nclass C:\n    def m(self, x): pass\n", [3]),
    ("def $F($X): ...", "def f(a: int = 1) -> int: return a\ndef g(a, b): pass\n", [1]),
    ("def f(x=1, ...): ...", "def f(x=1, y=2): pass\ndef f(x=2): pass\n", [1]),
    (
        "@app.route(...)\ndef $F(...): ...",
        "@login\n@app.route('/')\ndef index(): pass\n\ndef other(): pass\n",
        [3],  # a definition is reported at its `def`
    ),
    # `/` and a bare `*` count where a pattern writes them (#22); kinds are free otherwise.
    (
        "def $F(*, ...): ...",
        "def b(x: int): pass\ndef c(*, x): pass\ndef d(a, *, x): pass\ndef e(*a, x): pass\n"
        "g = lambda *, x: x\n",
        [2],
    ),
    (
        "def $F(..., *, ...): ...",
        "def b(x: int): pass\ndef c(*, x): pass\ndef d(a, *, x): pass\ndef e(*a, x): pass\n",
        [2, 3],
    ),
    (
        "def $F(..., /, ...): ...",
        "def a(x, /): pass\ndef b(x): pass\ndef c(x, /, y): ...\n",
        [1, 3],
    ),
    ("def $F($X, /): ...", "def a(x, /): pass\ndef b(x): pass\ndef c(x, y, /): pass\n", [1]),
    ("def $F($X, *, $Y): ...", "def a(x, *, y): pass\ndef b(x, y): pass\n", [1]),
    (
        "def $F($X, $Y): ...",
        "def a(x, *, y): ...\ndef b(x, /, y): ...\ndef c(x, *y): ...\n",
        [1, 2],
    ),
    ("lambda *, $X: $Y", "f = lambda *, x: x\ng = lambda x: x\n", [1]),
    # Parts a pattern writes are compared: star-args, `async`, defaults, returns.
    ("def $F(*$A): ...", "def f(*a): pass\ndef g(a): pass\ndef h(**a): pass\n", [1]),
    ("def $F(**$A): ...", "def f(*a): pass\ndef h(**a): pass\n", [2]),
    ("def $F(...) -> None: ...", "def f() -> None: ...\ndef g() -> int: ...\ndef h(): ...\n", [1]),
    ("def f(x=1): ...", "def f(x=1): pass\ndef f(x=2): pass\ndef f(x): pass\n", [1]),
    ("@cache\ndef $F(...): ...", "@cache\ndef f(): pass\n@other\ndef g(): pass\n", [2]),
    ("global $X", "def f():\n    global a\n    def g():\n        nonlocal a\n", [2]),
    (
        "[$X async for $Y in $Z]",
        "a = [x for x in y]\nasync def f():\n    b = [x async for x in y]\n",
        [3],
    ),
    ("[$X for $Y in $Z]", "a = [x for x in y]\nasync def f():\n    [x async for x in y]\n", [1, 3]),
    (
        "async with $X: ...",
        "with a:\n    pass\nasync def f():\n    async with b:\n        ...\n",
        [4],
    ),
    ('f"{$X=}"', 'a = f"{x=}"\nb = f"{x}"\n', [1]),
    ('f"{$X}"', 'a = f"{x=}"\nb = f"{x}"\nc = f\'{x}\'\n', [2, 3]),
    ('f"\\n{$X}"', 'a = f"\\n{x}"\nb = rf"\\n{x}"\nc = Rf"\\n{x}"\n', [1]),
    ('b"..."', 'a = b"x"\nb = "y"\n', [1]),
    ("$X[$Y,]", "a[1,]\na[1]\na[1, 2]\n", [1]),
    ("$X[$Y]", "a[1,]\na[1]\na[1, 2]\n", [2]),
    ("$X[...]", "a[1,]\na[1]\na[1, 2]\n", [1, 2, 3]),
    ("class $C(Exception): ...", "class E(Exception): pass\nclass F(Base): pass\n", [1]),
    ("class $C: ...", "class A: pass\nclass B(Base): pass\n", [1, 2]),
    ("with open($P) as $H: ...", "with open(p) as h:\n    pass\nwith lock:\n    pass\n", [1]),
    # Layout, comments and parentheses do not matter.
    ("f(a, b)", "f(\n    a,  # first\n    b,\n)\n(f)(a, (b))\n", [1, 5]),
]


@pytest.mark.parametrize(("pattern", "code", "expected"), MATCHES)
def test_what_a_pattern_matches(pattern: str, code: str, expected: list[int]) -> None:
    assert lines(pattern, code) == expected


def test_a_metavariable_binds_consistently_across_a_match() -> None:
    compiled = compile_pattern("$X.update($X.get($K), $K)")
    code = "d.update(d.get(k), k)\nd.update(e.get(k), k)\nd.update(d.get(k), j)\n"
    module = _Context(code).module
    matcher = Matcher(module, Budget(10_000, 10_000))
    found = [
        (module.line_of(node), {name: module.tree.code_for_node(n) for name, n in b.items()})
        for node, alternatives in matcher.find(compiled)
        for b in alternatives
    ]
    assert found == [(1, {"$X": "d", "$K": "k"})]


@pytest.mark.parametrize(
    ("options", "code", "expected"),
    [
        # where: a regex on the source text, and names resolved through imports.
        (
            {"pattern": "$OBJ.$M(...)", "where": {"$M": {"regex": "^execute(many)?$"}}},
            "cur.execute(q)\ncur.executemany(q, r)\ncur.executescript(s)\n",
            [1, 2],
        ),
        (
            {"pattern": "$F(...)", "where": {"$F": {"qualified": ["sqlite3.connect"]}}},
            "import sqlite3 as db\nfrom sqlite3 import connect\ndb.connect(p)\nconnect(p)\n"
            "other.connect(p)\n",
            [3, 4],
        ),
        (
            {"pattern": "$F(...)", "where": {"$F": {"qualified": ["pickle.*"]}}},
            "import pickle\npickle.loads(b)\npickle.dump(o, f)\njson.loads(b)\n",
            [2, 3],
        ),
        (
            {
                "pattern": "$F(...)",
                "where": {"$F": {"regex": "eval$", "not-qualified": ["ast.literal_eval"]}},
            },
            "from ast import literal_eval\neval(s)\nliteral_eval(s)\nmy_eval(s)\n",
            [2, 4],
        ),
        (
            {"pattern": "open($P, ...)", "where": {"$P": {"not-regex": "^['\"]/tmp/"}}},
            "open('/tmp/x')\nopen('/etc/passwd')\nopen(path)\n",
            [2, 3],
        ),
        (
            {"pattern": "f($...ARGS)", "where": {"$...ARGS": {"regex": "^a, b$"}}},
            "f(a, b)\nf(a)\nf(b, a)\n",
            [1],
        ),
        # inside: within code matching the pattern; its metavariables unify with the match.
        (
            {"pattern": "time.sleep(...)", "inside": "async def $F(...): ..."},
            "import time\nasync def f():\n    time.sleep(1)\ndef g():\n    time.sleep(1)\n",
            [3],
        ),
        (
            {
                "pattern": "assert $X",
                "inside": "def $F(...): ...",
                "where": {"$F": {"regex": "^test_"}},
            },
            "def test_a():\n    assert x\ndef check(x):\n    assert x\nassert y\n",
            [2],
        ),
        (
            {"pattern": "$L.acquire()", "inside": "with $L: ..."},
            "with lock:\n    lock.acquire()\n    other.acquire()\n",
            [2],
        ),
        (
            {"pattern": "print(...)", "inside": ["class $C: ...", "def $F(...): ..."]},
            "print(1)\nclass A:\n    print(2)\n    def m(self):\n        print(3)\n",
            [5],
        ),
        # not-inside: never within code matching it.
        (
            {"pattern": "print(...)", "not-inside": 'if __name__ == "__main__": ...'},
            "print(1)\nif __name__ == '__main__':\n    print(2)\n",
            [1],
        ),
        # not: dropped when it also matches there, with the match's metavariables.
        (
            {
                "pattern": "requests.$M(...)",
                "not": ["requests.$M(..., timeout=$T, ...)", "requests.$M(..., **$KW)"],
            },
            "import requests\nrequests.get(u)\nrequests.get(u, timeout=3)\n"
            "requests.post(u, **kw)\n",
            [2],
        ),
        (
            {"pattern": "$X == $Y", "not": "$X == $X"},
            "a == a\na == b\n",
            [2],
        ),
        # any: a match of any one counts, each place once.
        (
            {"any": ["os.system(...)", "os.$F(...)"]},
            "import os\nos.system('ls')\nos.getcwd()\n",
            [2, 3],
        ),
    ],
)
def test_options(options: dict[str, Any], code: str, expected: list[int]) -> None:
    assert lines(options, code) == expected


def test_evidence_shows_the_matched_code_on_one_line() -> None:
    [finding] = findings(
        "except Exception: pass",
        "try:\n    run()\nexcept Exception:  # never mind\n    pass\n",
    )
    assert (
        finding.message == "`except Exception: pass` matches the pattern `except Exception: pass`"
    )
    assert finding.line == 3


def test_every_match_is_a_finding_however_many() -> None:
    """No cap, no summary finding: the gate sorts every match by changed code and
    baseline, and a "N more matches not shown" finding could be absorbed by one."""
    found = findings("print(...)", "print(1)\n" * 120)
    assert [f.line for f in found] == list(range(1, 121))
    assert all(f.message == "`print(1)` matches the pattern `print(...)`" for f in found)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ("print(", "pattern: the pattern is not Python code"),
        ("$x.foo()", "`$x.foo()` is not a metavariable: write `$` and an upper-case name"),
        ("f($1)", "is not a metavariable"),
        ("...", "a pattern of only `...` matches everything"),
        ("x = $...A", "`$...A` stands for a run of arguments"),
        ("$...A", "a pattern of only `$...A` matches nothing"),
        ("__codeif_mv_X", "reserved"),
        ("a" * 6000, "characters long; at most 5,000"),
        ("[" * 40 + "]" * 40, "the pattern is too large"),
        ({"pattern": "f()", "any": ["g()"]}, "give exactly one of `pattern` or `any`"),
        ({"any": ["f()", "g("]}, "any[1]: the pattern is not Python code"),
        ({"pattern": "f()", "not": ["g()", "h("]}, "not[1]: the pattern is not Python code"),
        ({"pattern": "f()", "inside": "def f(:"}, "inside: the pattern is not Python code"),
        (
            {"pattern": "f($X)", "where": {"$Y": {"regex": "a"}}},
            "where: `$Y` is not a metavariable of `pattern` (`f($X)`) nor of an `inside` "
            "pattern; its metavariables: $X",
        ),
        (
            {"any": ["f($X)", "g($Y)"], "where": {"$X": {"regex": "x"}}},
            "where: `$X` is not a metavariable of `any[1]` (`g($Y)`)",
        ),
        (
            {"pattern": "f($X)", "where": {"$X": {"regex": "(a)\\1"}}},
            "where.$X.regex: pattern '(a)\\\\1' cannot be used: backreferences",
        ),
        ({"pattern": "f($_)", "where": {"$_": {"regex": "x"}}}, "`$_` binds nothing"),
        (
            {"pattern": "f($...A)", "where": {"$...A": {"qualified": ["x"]}}},
            "`qualified` tests one name; `$...A` is a run of items",
        ),
        ({"pattern": "f($X)", "not": "x = 1"}, "not[0]: `x = 1` (Assign) can never match"),
        ({"pattern": "f()", "inside": "a = 1\nb = 2"}, "not a sequence of statements"),
    ],
)
def test_a_bad_rule_is_refused_when_the_check_is_built(
    options: str | dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError) as caught:
        PatternCheck({"pattern": options} if isinstance(options, str) else options)
    assert problem in str(caught.value)


def test_pattern_errors_are_value_errors() -> None:
    assert issubclass(PatternSyntaxError, ValueError)


# Hostile code: every search ends, within its budget or as "too large".


def test_ellipses_against_a_huge_call_stop_at_the_budget() -> None:
    code = "f(" + ", ".join(str(i) for i in range(2000)) + ")\n"
    with pytest.raises(Undecidable) as caught:
        findings("f(..., $A, ..., $A, ..., $A, ...)", code)
    assert caught.value.kind == "too-large"
    assert "steps" in caught.value.message


def test_a_budget_stops_matching() -> None:
    compiled = compile_pattern("f(..., $A, ..., $A, ...)")
    module = _Context("f(" + ", ".join(map(str, range(300))) + ")\n").module
    matcher = Matcher(module, Budget(1_000, 1_000))
    with pytest.raises(BudgetExceeded, match="more than 1,000 steps"):
        for _, alternatives in matcher.find(compiled):
            list(alternatives)


def test_searching_a_long_block_for_a_sequence_is_linear() -> None:
    code = "x = 1\n" * 5000
    assert lines("x = 1\n...\ny = 2", code) == []
    assert lines("x = 1\n...\nx = 1\n...\ny = 2", code) == []


@pytest.mark.parametrize(
    "code",
    [
        "x = " + "(" * 150 + "1" + ")" * 150 + "\n",
        "x = " + "[" * 120 + "]" * 120 + "\n",
        "a = " + "[" * 120 + "]" * 120 + " == " + "[" * 120 + "]" * 120 + "\n",
        "f(" * 80 + ")" * 80 + "\n",
    ],
    ids=["parentheses", "lists", "compared", "calls"],
)
def test_deeply_nested_code_ends_with_a_verdict(code: str) -> None:
    try:
        result = findings({"any": ["$X == $X", "[$X]", "f(...)", "$X"]}, code)
    except Undecidable as exc:
        assert exc.kind == "too-large"
    else:
        assert result


# A real run: evidence at file:line, and bad rules as located task-file errors.


def test_rules_on_a_project(pytester: pytest.Pytester) -> None:
    copy_into(pytester, FIXTURES / "patterns")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "patterns")
    result.assert_outcomes(passed=2, failed=5, errors=3)
    result.stdout.fnmatch_lines(
        [
            '*patterns/shop/app/orders.py:9: [[]pattern[]] `cur.execute(f"SELECT * FROM orders'
            ' WHERE customer = \'{name}\'")` matches the pattern `$CUR.$RUN(f"...", ...)`',
            "what to do: Pass values as query parameters*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*patterns/shop/app/orders.py:16: [[]pattern[]] `except Exception: pass` matches the"
            " pattern `except Exception: pass`",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*patterns/shop/app/orders.py:15: [[]pattern[]] `requests.post(url, json=*"
            "matches the pattern `requests.$METHOD(...)`",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*bad_patterns.codeif.yaml:8: at tasks[[]0[]].constraints[[]0[]]: invalid options"
            " for check*pattern*: pattern: the pattern is not Python code*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*bad_patterns.codeif.yaml:16: at tasks[[]1[]].constraints[[]0[]].not-insde: unknown"
            " key*not-insde*did you mean*not-inside*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*bad_patterns.codeif.yaml:21: *where: `$FUNC` is not a metavariable of `pattern`*"]
    )
    assert "shop::aware-datetimes" not in result.stdout.str()  # satisfied: no evidence

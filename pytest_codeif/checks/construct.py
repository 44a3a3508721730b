"""The `construct` check: language constructs that must (or must not) be used."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.recursion import recursive_functions
from pytest_codeif.checks.shared.structure import (
    require_forbid_schema,
    scopes,
)
from pytest_codeif.code.cst import ParsedModule

_RULE = "construct"

#: Construct name -> the libcst node types that are that construct.
NODE_CONSTRUCTS: Final[dict[str, tuple[type[cst.CSTNode], ...]]] = {
    "comprehension": (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp),
    "list-comprehension": (cst.ListComp,),
    "set-comprehension": (cst.SetComp,),
    "dict-comprehension": (cst.DictComp,),
    "generator-expression": (cst.GeneratorExp,),
    "generator": (cst.Yield,),
    "class": (cst.ClassDef,),
    "decorator": (cst.Decorator,),
    "context-manager": (cst.With,),
    "lambda": (cst.Lambda,),
    "try": (cst.Try, cst.TryStar),
    "loop": (cst.For, cst.While),
    "for-loop": (cst.For,),
    "while-loop": (cst.While,),
    "await": (cst.Await,),
    "walrus": (cst.NamedExpr,),
    "match": (cst.Match,),
    "f-string": (cst.FormattedString,),
    "global": (cst.Global,),
    "nonlocal": (cst.Nonlocal,),
    "raise": (cst.Raise,),
    "assert": (cst.Assert,),
    "type-hint": (cst.Annotation,),
}


def _unpacks(node: cst.CSTNode) -> bool:
    """`a, b = ...`, `for k, v in ...`, `first, *rest = ...`, `f(*args)`, `{**d}`."""
    if isinstance(node, (cst.AssignTarget, cst.For, cst.CompFor)):
        return isinstance(node.target, (cst.Tuple, cst.List))
    if isinstance(node, cst.Arg):
        return node.star in ("*", "**")
    return isinstance(node, (cst.StarredElement, cst.StarredDictElement))


def _is_async_function(module: ParsedModule, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.FunctionDef) and node.asynchronous is not None


def _is_dataclass(module: ParsedModule, node: cst.CSTNode) -> bool:
    """A `dataclasses.dataclass` decorator, bare or called, however imported."""
    if not isinstance(node, cst.Decorator):
        return False
    target = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
    return any(n.startswith("dataclasses.dataclass") for n in module.qualified(target))


#: Construct name -> a test of one node, for constructs its type alone does not tell.
NODE_TESTS: Final[dict[str, Callable[[ParsedModule, cst.CSTNode], bool]]] = {
    "async-function": _is_async_function,
    "dataclass": _is_dataclass,
    "unpacking": lambda module, node: _unpacks(node),
}
#: Every construct, each found one way: recursion, a node's type, or a test of a node.
CONSTRUCTS: Final = ("recursion", *NODE_TESTS, *NODE_CONSTRUCTS)


class ConstructCheck(Check):
    """The code uses (or avoids) language constructs: recursion, comprehensions, ...

    Why: instructions ask for a shape, not only a result: "solve it recursively", "use a
    list comprehension", "no while loops", "use a context manager". Recursion counts
    direct and mutual recursion, and `self.method()` calls inside a class.

    Options: `require`, `forbid` (lists, at least one, of: recursion, async-function,
    comprehension, list-comprehension, set-comprehension, dict-comprehension,
    generator-expression, generator (yield), class, decorator, context-manager, lambda,
    try, loop, for-loop, while-loop, await, walrus, match, f-string, global, nonlocal,
    raise, assert, type-hint, dataclass (a `dataclasses.dataclass` decorator, however
    imported), unpacking (`a, b = ...`, `for k, v in ...`, `*rest`, `f(*args)`,
    `{**d}`)), `function` (only look inside this function).

    Example:

        - check: construct
          function: fib
          require: [recursion]
          forbid: [loop]
    """

    name = "construct"
    category = "Algorithm"
    advice = (
        "Rewrite the code with the constructs the task asks for and without those it forbids "
        "(e.g. a recursive call instead of a loop, a comprehension instead of appending in a "
        "loop)."
    )
    options_schema: ClassVar[Mapping[str, Any]] = require_forbid_schema(list(CONSTRUCTS))
    satisfied_by = (
        Sample(
            "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
            {"function": "fib", "require": ["recursion"], "forbid": ["loop"]},
        ),
        Sample(
            "def even(n):\n    return n == 0 or odd(n - 1)\n\n"
            "def odd(n):\n    return n != 0 and even(n - 1)\n",
            {"function": "even", "require": ["recursion"]},
        ),
        Sample("squares = [x * x for x in range(9)]\n", {"require": ["list-comprehension"]}),
        Sample(
            "from dataclasses import dataclass as dc\n\n@dc(frozen=True)\nclass P:\n"
            "    x: int\n\nfirst, *rest = [1, 2]\n",
            {"require": ["dataclass", "unpacking", "type-hint"]},
        ),
    )
    violated_by = (
        Sample(
            "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
            "    return a\n",
            {"function": "fib", "require": ["recursion"]},
        ),
        Sample("while True:\n    break\n", {"forbid": ["loop"]}),
        Sample("squares = list(map(lambda x: x * x, range(9)))\n", {"require": ["comprehension"]}),
        Sample(
            "class P:\n    def __init__(self, x):\n        self.x = x\n",
            {"require": ["dataclass"]},
        ),
        Sample("def f(x: int) -> int:\n    return x\n", {"forbid": ["type-hint"]}),
    )

    def advise(self) -> str:
        where = f"`{self.options['function']}`" if self.options.get("function") else "the code"
        parts = []
        if self.options.get("require"):
            parts.append(f"Write {where} with {listed(self.options['require'])}.")
        if self.options.get("forbid"):
            forbidden = listed(self.options["forbid"], conjunction="or")
            parts.append(f"Rewrite {where} without {forbidden}.")
        return " ".join(parts) or self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        function = self.options.get("function")
        places = scopes(ctx, function, _RULE)
        if isinstance(places, Finding):
            return [places]
        scope_text = f"`{function}`" if function else "the code"
        findings: list[Finding] = []
        for construct in self.options.get("require", []):
            if not self._sites(ctx, construct, places, function):
                module, node = places[0]
                line = module.line_of(node) if function else 1
                findings.append(
                    Finding(
                        f"{scope_text} uses no {construct}, which is required",
                        _RULE,
                        module.relpath,
                        line,
                    )
                )
        for construct in self.options.get("forbid", []):
            findings.extend(
                Finding(
                    f"{scope_text} uses {construct}, which is forbidden",
                    _RULE,
                    module.relpath,
                    module.line_of(node),
                )
                for module, node in self._sites(ctx, construct, places, function)
            )
        return findings

    def _sites(
        self,
        ctx: CheckContext,
        construct: str,
        places: list[tuple[ParsedModule, cst.CSTNode]],
        function: str | None,
    ) -> list[tuple[ParsedModule, cst.CSTNode]]:
        """Where `construct` is used, as (module, node); lines are computed only for
        evidence, since positions cost a code generation pass."""
        if construct == "recursion":
            recursive = recursive_functions(ctx)
            return [
                (r.module, r.node)
                for r in recursive.values()
                if function is None or r.node is places[0][1]
            ]
        if construct in NODE_CONSTRUCTS:
            kinds = NODE_CONSTRUCTS[construct]
            return [(m, node) for m, scope in places for node in m.nodes(*kinds, within=scope)]
        hit = NODE_TESTS[construct]
        return [(m, node) for m, scope in places for node in m.walk(scope) if hit(m, node)]

"""The `construct` check: language constructs that must (or must not) be used."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable, listed
from pytest_codeif.checks.shared.js_constructs import JS_ONLY, js_meaning, js_sites
from pytest_codeif.checks.shared.js_functions import (
    JsFunction,
    find_js_function,
    recursive_js_functions,
    require_js_function,
)
from pytest_codeif.checks.shared.recursion import recursive_functions
from pytest_codeif.checks.shared.structure import (
    FunctionRef,
    find_function,
    require_forbid_schema,
    require_function,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

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
#: Every construct, each found one way: recursion, a node's type, or a test of a node
#: (`arrow-function` is JavaScript's alone: see `shared/js_constructs.py`).
CONSTRUCTS: Final = ("recursion", *NODE_TESTS, *NODE_CONSTRUCTS, *sorted(JS_ONLY))


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
    `{**d}`), arrow-function (JavaScript's own)), `function` (only look inside this
    function).

    JavaScript and TypeScript: the same names, read the language's way
    (`checks/shared/js_constructs.py`): `loop` is for/for-of/while/do, `comprehension`
    a call of an array's `map`, `filter`, `flatMap`, `reduce` or `reduceRight`
    (`list-comprehension`: those building an array), `lambda` an arrow function or an
    anonymous function, `generator` `yield`, `match` `switch`, `f-string` a template
    literal, `raise` `throw`, `unpacking` destructuring and spread, `type-hint` a
    TypeScript annotation. A name with no meaning in the language (`walrus`,
    `context-manager`, `global`, `nonlocal`, `assert`, `dataclass`,
    `generator-expression`, `set-comprehension`, `dict-comprehension`; `type-hint` in
    JavaScript; `arrow-function` in Python) is an error at its place in the task file,
    never a pass. Recursion is a named function calling itself (`this.m()` in a method
    of its class), directly or through other functions.

    Example:

        - check: construct
          function: fib
          require: [recursion]
          forbid: [loop]
    """

    name = "construct"
    category = "Algorithm"
    languages = frozenset({"python", "javascript", "typescript"})
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
        Sample(
            """
            class Tree {
              size(node) {
                return node ? 1 + this.size(node.left) + this.size(node.right) : 0;
              }
            }
            const doubled = [1, 2].map((x) => x * 2);
            async function load(url) {
              const { body, ...rest } = await fetch(url);
              return `${body}`;
            }
            """,
            {
                "function": "Tree.size",
                "require": ["recursion"],
                "forbid": ["loop", "try"],
            },
            language="javascript",
        ),
        Sample(
            """
            export const total = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
            """,
            {"require": ["comprehension", "arrow-function", "type-hint"], "forbid": ["loop"]},
            language="typescript",
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
        Sample(
            """
            function fib(n) {
              let [a, b] = [0, 1];
              for (let i = 0; i < n; i++) {
                [a, b] = [b, a + b];
              }
              return a;
            }
            """,
            {"function": "fib", "require": ["recursion"], "forbid": ["loop"]},
            language="javascript",
            message="`fib` uses loop, which is forbidden",
            line=3,
        ),
        Sample(
            """
            const squares: number[] = [];
            for (const x of [1, 2, 3]) {
              squares.push(x * x);
            }
            """,
            {"require": ["comprehension"]},
            language="typescript",
            message="the code uses no comprehension, which is required",
            line=1,
        ),
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
        wanted = [
            *((("require", i), c) for i, c in enumerate(self.options.get("require", []))),
            *((("forbid", i), c) for i, c in enumerate(self.options.get("forbid", []))),
        ]
        python, js = ctx.modules(), ctx.js_modules()
        _meaningful(wanted, python, js)
        places: list[tuple[ParsedModule, cst.CSTNode]] = []
        js_places: list[tuple[JsModule, SgNode | None]] = []
        if function is not None:
            found = self._function(ctx, function, python, js)
            if isinstance(found, Finding):
                return [found]
            if isinstance(found, JsFunction):
                js_places = [(found.module, found.node)]
            else:
                places = [(found.module, found.node)]
        else:
            places = [(m, m.tree) for m in python]
            js_places = [(m, None) for m in js]
        scope_text = f"`{function}`" if function else "the code"
        findings: list[Finding] = []
        first = _first_place(places, js_places, bool(function))
        for construct in self.options.get("require", []):
            if not self._sites(ctx, construct, places, function) and not _js_sites(
                construct, js_places, function, js
            ):
                relpath, line = first
                findings.append(
                    Finding(
                        f"{scope_text} uses no {construct}, which is required", _RULE, relpath, line
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
            findings.extend(
                Finding(
                    f"{scope_text} uses {construct}, which is forbidden",
                    _RULE,
                    js_module.relpath,
                    js_module.line_of(js_node),
                )
                for js_module, js_node in _js_sites(construct, js_places, function, js)
            )
        return findings

    def _function(
        self,
        ctx: CheckContext,
        function: str,
        python: list[ParsedModule],
        js: list[JsModule],
    ) -> FunctionRef | JsFunction | Finding:
        """The function `function` names: Python's first, then JS/TS's; a finding
        listing the functions there are when neither language defines it."""
        if python and (ref := find_function(ctx, function)) is not None:
            return ref
        if js and (js_ref := find_js_function(js, function)) is not None:
            return js_ref
        return (
            require_function(ctx, function, _RULE)
            if python
            else require_js_function(ctx, function, _RULE)
        )

    def _sites(
        self,
        ctx: CheckContext,
        construct: str,
        places: list[tuple[ParsedModule, cst.CSTNode]],
        function: str | None,
    ) -> list[tuple[ParsedModule, cst.CSTNode]]:
        """Where `construct` is used, as (module, node); lines are computed only for
        evidence, since positions cost a code generation pass."""
        if not places:
            return []
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


def _meaningful(
    wanted: list[tuple[tuple[str, int], str]], python: list[ParsedModule], js: list[JsModule]
) -> None:
    """Raise a located `invalid-task` error for a construct asked of code in a language
    where it means nothing (`walrus` of JavaScript, `arrow-function` of Python)."""
    languages = sorted({m.language for m in js})
    for key_path, construct in wanted:
        if python and construct in JS_ONLY:
            raise Undecidable(
                "invalid-task",
                f"`{construct}` has no meaning in python code (write `lambda`)",
                key_path=key_path,
            )
        for language in languages:
            why = js_meaning(construct, language)
            if why is not None:
                raise Undecidable("invalid-task", why, key_path=key_path)


def _first_place(
    places: list[tuple[ParsedModule, cst.CSTNode]],
    js_places: list[tuple[JsModule, SgNode | None]],
    located: bool,
) -> tuple[str, int]:
    """Where a required construct's absence is reported: the named function's line, or
    the first file's first line."""
    if places:
        module, node = places[0]
        return module.relpath, module.line_of(node) if located else 1
    js_module, js_node = js_places[0]
    return js_module.relpath, js_module.line_of(js_node) if located and js_node else 1


def _js_sites(
    construct: str,
    places: list[tuple[JsModule, SgNode | None]],
    function: str | None,
    every: list[JsModule],
) -> list[tuple[JsModule, SgNode]]:
    """Where `construct` is used in the JS/TS `places`, as (module, node); recursion is
    found in the call graph of `every` JS/TS module in scope."""
    if not places:
        return []
    if construct == "recursion":
        recursive = recursive_js_functions(every).values()
        if function is not None:
            return [(f.module, f.node) for f in recursive if f.node == places[0][1]]
        return [(f.module, f.node) for f in recursive]
    return [(m, node) for m, within in places for node in js_sites(m, construct, within)]

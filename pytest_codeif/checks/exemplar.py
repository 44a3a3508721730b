"""The `exemplar` check: a new function follows an example's interface, naming and
error-handling shape."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.naming_conventions import follows
from pytest_codeif.checks.shared.option_code import parse_option_code
from pytest_codeif.checks.shared.structure import FunctionRef, find_function, functions
from pytest_codeif.code.cst import ParsedModule, all_nodes
from pytest_codeif.code.names import NameResolver

_RULE = "exemplar"


def convention(name: str) -> str | None:
    """The convention a name shows: a single lowercase word shows none."""
    core = name.strip("_")
    if "_" in core and follows(core, "snake_case"):
        return "snake_case"
    if follows(core, "camelCase") and any(c.isupper() for c in core):
        return "camelCase"
    if follows(core, "PascalCase"):
        return "PascalCase"
    return None


@dataclass(frozen=True)
class Shape:
    """What the check compares between the example and the new function."""

    params: tuple[str, ...]
    caught: frozenset[str]  # exception types caught, qualified ("builtins.ValueError")
    has_try: bool
    handler_ends: frozenset[str]  # how handlers end: "return", "raise", "other"

    @classmethod
    def of(cls, node: cst.FunctionDef, resolve: NameResolver) -> Shape:
        caught: set[str] = set()
        ends: set[str] = set()
        has_try = False
        stack: list[cst.CSTNode] = [node.body]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.Try, cst.TryStar)):
                has_try = True
                for handler in current.handlers:
                    caught.update(_caught(handler, resolve))
                    ends.add(_ending(handler))
            if isinstance(current, (cst.FunctionDef, cst.ClassDef)) and current is not node:
                continue
            stack.extend(current.children)
        p = node.params
        names = tuple(x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params))
        return cls(names, frozenset(caught), has_try, frozenset(ends))


def _caught(handler: cst.ExceptHandler | cst.ExceptStarHandler, resolve: NameResolver) -> set[str]:
    if handler.type is None:
        return {"builtins.BaseException"}
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else None
    exprs = [e.value for e in types] if types is not None else [handler.type]
    found: set[str] = set()
    for expr in exprs:
        names = resolve.qualified(expr)
        found.update(names or {cst.Module([]).code_for_node(expr)})
    return found


def _ending(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str:
    body = handler.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        small = last.body[-1]
        if isinstance(small, cst.Return):
            return "return"
        if isinstance(small, cst.Raise):
            return "raise"
    return "other"


def _short(names: Iterable[str]) -> str:
    return ", ".join(sorted(n.removeprefix("builtins.") for n in names))


class ExemplarCheck(Check):
    """A new function follows an example's interface, naming and error handling.

    Why: "write `divide_numbers` the way `add_numbers` below is written" asks for the
    example's shape; the functional tests judge the result, this check the shape, in
    the parts that are decidable: function and parameter names in the example's
    convention (snake_case, camelCase, PascalCase, when the example shows one); and when
    the example handles errors, a `try` that catches at least the example's exception
    types, whose handlers end the same way (returning a value, or raising). The number
    of parameters is not compared: a new function may need other inputs (on MultiCodeIF,
    `fetch_user_details(user_id)` after `find_all_products()` is right).

    Options: `exemplar` (required, the example's Python source), `function` (the new
    function; default: the first function of the code that the example does not
    define), `example-function` (the example's function or method to follow; default:
    its first).

    Example:

        - check: exemplar
          function: divide_numbers
          exemplar: |
            def add_numbers(a, b):
                try:
                    return float(a) + float(b)
                except ValueError:
                    return "Please input valid numbers."
    """

    name = "exemplar"
    category = "Exemplar"
    advice = (
        "Write the new function the way the example is written: its naming convention for the "
        "function and its parameters and, where the example catches errors, a `try` catching the "
        "same exception types whose handlers end the same way (returning a value, or raising)."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["exemplar"],
        "properties": {
            "exemplar": {"type": "string", "minLength": 1},
            "function": {"type": "string", "minLength": 1},
            "example-function": {"type": "string", "minLength": 1},
        },
        "additionalProperties": False,
    }
    _EXAMPLE = (
        "def add_numbers(number1, number2):\n    try:\n        return float(number1) + "
        "float(number2)\n    except ValueError:\n        return 'Please input valid numbers.'\n"
    )
    satisfied_by = (
        Sample(
            "def divide_numbers(number1, number2):\n    try:\n        a = float(number1)\n"
            "        b = float(number2)\n        return a / b if b else 'no division by zero'\n"
            "    except ValueError:\n        return 'Please input valid numbers.'\n",
            {"exemplar": _EXAMPLE},
        ),
    )
    violated_by = (
        Sample(
            "def divideNumbers(a, b):\n    return float(a) / float(b)\n",
            {"exemplar": _EXAMPLE},
        ),
        Sample(
            "def divide_numbers(number1, number2):\n    try:\n        return number1 / number2\n"
            "    except ZeroDivisionError:\n        raise\n",
            {"exemplar": _EXAMPLE, "function": "divide_numbers"},
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        tree = parse_option_code(options["exemplar"], "exemplar")
        order = all_nodes(tree)
        # Methods count too: the example may be a test method of a TestCase.
        defs = [n for n in order if isinstance(n, cst.FunctionDef)]
        wanted = options.get("example-function")
        chosen = [d for d in defs if wanted is None or d.name.value == wanted]
        if not chosen:
            raise ValueError(
                f"`exemplar` defines no function {wanted!r}"
                if wanted
                else "`exemplar` defines no top-level function"
            )
        self.example = chosen[0]
        self.example_names = {d.name.value for d in defs}
        self.shape = Shape.of(self.example, NameResolver(order, []))

    def _target(self, ctx: CheckContext) -> FunctionRef | Finding:
        name = self.options.get("function")
        modules = ctx.modules()
        path = modules[0].relpath if modules else None
        if name:
            ref = find_function(ctx, name)
            return ref or Finding(f"function `{name}` is not defined", _RULE, path, 1)
        for module in modules:
            for ref in functions(module):
                if "." not in ref.qualname and ref.qualname not in self.example_names:
                    return ref
        return Finding("the code defines no new function", _RULE, path, 1)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        target = self._target(ctx)
        if isinstance(target, Finding):
            return [target]
        module: ParsedModule = target.module
        shape = Shape.of(target.node, module.names)
        example = self.example.name.value
        found: list[str] = []
        for what, mine, theirs in [
            ("function name", [target.node.name.value], [example]),
            ("parameter names", list(shape.params), list(self.shape.params)),
        ]:
            styles = {convention(n) for n in theirs} - {None}
            if len(styles) == 1:
                style = styles.pop()
                off = [n for n in mine if convention(n) not in (style, None)]
                if off:
                    found.append(f"{what} {', '.join(off)} not in {style} like `{example}`")
        if self.shape.has_try:
            if not shape.has_try:
                found.append(f"handles no errors; `{example}` uses try/except")
            else:
                missing = self.shape.caught - shape.caught
                if missing:
                    found.append(f"does not catch {_short(missing)} as `{example}` does")
                if self.shape.handler_ends - shape.handler_ends:
                    found.append(
                        f"its except blocks end by {'/'.join(sorted(shape.handler_ends))}; "
                        f"`{example}`'s by {'/'.join(sorted(self.shape.handler_ends))}"
                    )
        return [
            Finding(f"`{target.qualname}` {message}", _RULE, module.relpath, target.line)
            for message in found
        ]

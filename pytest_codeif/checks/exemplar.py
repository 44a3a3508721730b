"""The `exemplar` check: a new function follows an example's interface, naming and
error-handling shape."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import (
    Check,
    CheckContext,
    Finding,
    Sample,
    Undecidable,
    dedented,
)
from pytest_codeif.checks.shared.js_context import parse_js_option
from pytest_codeif.checks.shared.js_exemplar import JsShape, JsUnit, find_unit, js_units, shape_of
from pytest_codeif.checks.shared.js_functions import js_functions
from pytest_codeif.checks.shared.naming_conventions import follows
from pytest_codeif.checks.shared.option_code import parse_option_code
from pytest_codeif.checks.shared.structure import FunctionRef, find_function, functions
from pytest_codeif.code.cst import ParsedModule, all_nodes
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.names import NameResolver

_RULE = "exemplar"


def convention(name: str) -> str | None:
    """The convention a name shows: a single lowercase word shows none."""
    core = name.strip("_").lstrip("#").strip("$")
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


def _styles_off(what: str, mine: list[str], theirs: list[str], example: str) -> list[str]:
    """A message when the names `mine` leave the one convention `theirs` show."""
    styles = {convention(n) for n in theirs} - {None}
    if len(styles) != 1:
        return []
    style = styles.pop()
    off = [n for n in mine if convention(n) not in (style, None)]
    return [f"{what} {', '.join(off)} not in {style} like `{example}`"] if off else []


@dataclass(frozen=True)
class _JsExample:
    """The example read as JavaScript/TypeScript: its unit, its shape, and what it
    defines (so a response that repeats the example is not judged by its copy)."""

    unit: JsUnit
    shape: JsShape
    defined: frozenset[str]

    @classmethod
    def of(cls, module: JsModule, wanted: str | None) -> _JsExample | str:
        units = js_units(module)
        chosen = find_unit([module], wanted) if wanted else (units[0] if units else None)
        if chosen is None:
            first = [f for f in js_functions(module)]
            if wanted or not first:
                return (
                    f"`exemplar` defines no function {wanted!r}"
                    if wanted
                    else "`exemplar` defines no function or class"
                )
            function = first[0]
            chosen = JsUnit(
                "function",
                function.qualname or "the example's function",
                function.name,
                function.node,
                module,
            )
        defined = {u.label for u in units} | {
            f.qualname for f in js_functions(module) if f.qualname
        }
        return cls(chosen, shape_of(chosen), frozenset(defined))


def _js_target(example: _JsExample, modules: list[JsModule], name: str | None) -> JsUnit | str:
    """The code's unit to judge: `name`'s, else the first the example does not define,
    of the example's kind (a class for a class; a handler for a handler first)."""
    if name:
        found = find_unit(modules, name)
        return found or f"function `{name}` is not defined"
    fresh = [u for m in modules for u in js_units(m) if u.label not in example.defined]
    kind = example.unit.kind
    if kind == "class":
        classes = [u for u in fresh if u.kind == "class"]
        return classes[0] if classes else "the code defines no new class"
    functions = [u for u in fresh if u.kind != "class"]
    alike = [u for u in functions if u.kind == kind]
    chosen = alike or functions
    return chosen[0] if chosen else "the code defines no new function"


def _js_messages(example: _JsExample, target: JsUnit) -> list[str]:
    shape, theirs = shape_of(target), example.shape
    label = f"`{example.unit.label}`"
    found: list[str] = []
    if target.name and example.unit.name:
        found += _styles_off(
            "function name" if target.kind != "class" else "class name",
            [target.name],
            [example.unit.name],
            example.unit.label,
        )
    found += _styles_off(
        "parameter names", list(shape.params), list(theirs.params), example.unit.label
    )
    if target.kind == "class":
        found += _styles_off(
            "method names", list(shape.methods), list(theirs.methods), example.unit.label
        )
        if theirs.base is not None and shape.base != theirs.base:
            found.append(f"does not extend {theirs.base} as {label} does")
    if theirs.has_try:
        if not shape.has_try:
            found.append(f"handles no errors; {label} uses try/catch")
        elif theirs.handler_ends - shape.handler_ends:
            found.append(
                f"its catch blocks end by {'/'.join(sorted(shape.handler_ends))}; "
                f"{label}'s by {'/'.join(sorted(theirs.handler_ends))}"
            )
    return found


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

    JavaScript and TypeScript: the example is read in the code's language
    (`checks/shared/js_exemplar.py`). Its unit is a function (declared, or a `const`
    bound to a function or an arrow function), a handler given to a call at the top
    level (`router.post('/user', async (req, res) => {...})`, known by its call:
    `router.put('/user/:id')` is another one), or a class (a React class component).
    The new unit is of the same kind (a handler before a function for a handler). Its
    name and parameters follow the example's convention; a class extends what the
    example's extends and names its methods in the example's convention. When the
    example has a `try`, so does the new unit, and its `catch` blocks end the same ways:
    by a `throw`, by answering or passing the error on through what the function was
    given (`res.status(500).send(...)`, `next(err)`, `callback(err)`, with or without
    `return`), by another `return`, or otherwise. A `catch` takes every error, so the
    types caught are not compared. An example that does not parse in the code's
    language is a task error at `exemplar`.

    Options: `exemplar` (required, the example's source: Python, JavaScript or
    TypeScript), `function` (the new function, or class; default: the first function
    of the code that the example does not define), `example-function` (the example's
    function, method or class to follow; default: its first).

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
    languages = frozenset({"python", "javascript", "typescript"})
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
    _ROUTE = dedented(
        """
        const router = require("express").Router();

        router.post("/items", async (req, res) => {
          try {
            const item = await Item.create(req.body);
            res.status(201).json(item);
          } catch (err) {
            res.status(500).json({ message: "Internal error" });
          }
        });
        """
    )
    _COMPONENT = dedented(
        """
        class Counter extends React.Component {
          handleClick = (event) => {
            this.setState({ count: this.state.count + 1 });
          };

          render() {
            return null;
          }
        }
        """
    )
    _TS_EXAMPLE = dedented(
        """
        export function parseAge(rawValue: string): number {
          try {
            return Number.parseInt(rawValue, 10);
          } catch (parseError) {
            throw new Error(`bad age: ${rawValue}`);
          }
        }
        """
    )
    satisfied_by = (
        Sample(
            "def divide_numbers(number1, number2):\n    try:\n        a = float(number1)\n"
            "        b = float(number2)\n        return a / b if b else 'no division by zero'\n"
            "    except ValueError:\n        return 'Please input valid numbers.'\n",
            {"exemplar": _EXAMPLE},
        ),
        # The example's handler repeated, the new one after it; `return` before the
        # answer is the same ending.
        Sample(
            """
            router.post("/items", async (req, res) => {
              res.status(201).json({});
            });

            router.put("/items/:id", async (req, res) => {
              try {
                const item = await Item.update(req.params.id, req.body);
                res.json(item);
              } catch (err) {
                return res.status(500).json({ message: "Internal error" });
              }
            });
            """,
            {"exemplar": _ROUTE},
            language="javascript",
        ),
        Sample(
            """
            class TodoList extends React.Component {
              handleAddItem = (event) => {
                this.setState({ items: [...this.state.items, event.target.value] });
              };

              render() {
                return null;
              }
            }
            """,
            {"exemplar": _COMPONENT},
            language="javascript",
        ),
        Sample(
            """
            export function parseHeight(rawValue: string): number {
              try {
                return Number.parseFloat(rawValue);
              } catch (parseError) {
                throw new Error(`bad height: ${rawValue}`);
              }
            }
            """,
            {"exemplar": _TS_EXAMPLE},
            language="typescript",
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
        Sample(
            """
            const router = require("express").Router();

            router.put("/items/:id", async (req, res) => {
              const item = await Item.update(req.params.id, req.body);
              res.json(item);
            });
            """,
            {"exemplar": _ROUTE},
            language="javascript",
            message="handles no errors; `router.post('/items')` uses try/catch",
            line=3,
        ),
        Sample(
            """
            class todo_list extends Widget {
              handle_add = (event) => {};

              render() {
                return null;
              }
            }
            """,
            {"exemplar": _COMPONENT},
            language="javascript",
            message="does not extend Component as `Counter` does",
            line=1,
        ),
        Sample(
            """
            export function parseHeight(raw_value: string): number {
              try {
                return Number.parseFloat(raw_value);
              } catch (parseError) {
                return 0;
              }
            }
            """,
            {"exemplar": _TS_EXAMPLE},
            language="typescript",
            message="its catch blocks end by return; `parseAge`'s by raise",
            line=1,
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        wanted = options.get("example-function")
        #: The example read as Python (None: it does not read so; `not_python` says why).
        self.example: cst.FunctionDef | None = None
        self.example_names: set[str] = set()
        self.shape: Shape | None = None
        self.not_python = ""
        try:
            self._read_python(parse_option_code(options["exemplar"], "exemplar"), wanted)
        except ValueError as exc:
            self.not_python = str(exc)
        #: The example read as JavaScript/TypeScript (None: `not_js` says why).
        self.js: _JsExample | None = None
        self.not_js = ""
        module = parse_js_option(options["exemplar"], "exemplar")
        if isinstance(module, str):
            self.not_js = f"`exemplar` is not valid JavaScript or TypeScript ({module})"
        else:
            read = _JsExample.of(module, wanted)
            if isinstance(read, str):
                self.not_js = f"{read} (read as JavaScript or TypeScript)"
            else:
                self.js = read
        if self.example is None and self.js is None:
            # Python's reason, unless the example reads as JavaScript/TypeScript alone.
            js_reads = not self.not_js.startswith("`exemplar` is not valid")
            python_reads = not self.not_python.startswith("`exemplar` is not valid")
            raise ValueError(self.not_js if js_reads and not python_reads else self.not_python)

    def _read_python(self, tree: cst.Module, wanted: str | None) -> None:
        order = all_nodes(tree)
        # Methods count too: the example may be a test method of a TestCase.
        defs = [n for n in order if isinstance(n, cst.FunctionDef)]
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
        # The code's language the example reads in (a project may hold both; Python's
        # first); a task error at `exemplar` when it reads in none of them.
        python, modules = ctx.modules(), ctx.js_modules()
        if python and self.example is not None and self.shape is not None:
            return self._evaluate_python(ctx, self.example, self.shape)
        if not modules or self.js is None:
            why = self.not_python if python else self.not_js
            raise Undecidable("invalid-task", why, key_path=("exemplar",))
        target = _js_target(self.js, modules, self.options.get("function"))
        if isinstance(target, str):
            return [Finding(target, _RULE, modules[0].relpath, 1)]
        return [
            Finding(f"`{target.label}` {message}", _RULE, target.module.relpath, target.line)
            for message in _js_messages(self.js, target)
        ]

    def _evaluate_python(
        self, ctx: CheckContext, example_node: cst.FunctionDef, example_shape: Shape
    ) -> list[Finding]:
        target = self._target(ctx)
        if isinstance(target, Finding):
            return [target]
        module: ParsedModule = target.module
        shape = Shape.of(target.node, module.names)
        example = example_node.name.value
        found: list[str] = []
        for what, mine, theirs in [
            ("function name", [target.node.name.value], [example]),
            ("parameter names", list(shape.params), list(example_shape.params)),
        ]:
            found += _styles_off(what, mine, theirs, example)
        if example_shape.has_try:
            if not shape.has_try:
                found.append(f"handles no errors; `{example}` uses try/except")
            else:
                missing = example_shape.caught - shape.caught
                if missing:
                    found.append(f"does not catch {_short(missing)} as `{example}` does")
                if example_shape.handler_ends - shape.handler_ends:
                    found.append(
                        f"its except blocks end by {'/'.join(sorted(shape.handler_ends))}; "
                        f"`{example}`'s by {'/'.join(sorted(example_shape.handler_ends))}"
                    )
        return [
            Finding(f"`{target.qualname}` {message}", _RULE, module.relpath, target.line)
            for message in found
        ]

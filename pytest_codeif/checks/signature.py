"""The `signature` check: a function has the asked-for name, parameters and annotations."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.annotations import normalize_annotation, type_matches
from pytest_codeif.checks.shared.js_functions import JsFunction, find_js_function
from pytest_codeif.checks.shared.js_signatures import JsParam, js_params, js_returns
from pytest_codeif.checks.shared.structure import (
    FunctionRef,
    code_of,
    parameters,
    require_function,
)
from pytest_codeif.checks.shared.ts_types import from_node, from_text, matches
from pytest_codeif.outcome import Undecidable

_RULE = "signature"
#: Options about types: TypeScript's annotations, nothing in JavaScript.
_TYPED = ("annotations", "returns", "param-types", "fully-annotated")


class SignatureCheck(Check):
    """A function exists with the required parameters, annotations and return type.

    Why: the interface is part of the instruction ("write `fib(n: int) -> int`"); a
    solution with other parameter names or order breaks its callers even when it works.
    Annotations are compared by meaning: `Optional[List[int]]` equals `list[int] | None`.

    Options: `function` (required; `name` or `Class.method`), `params` (parameter names
    in order, `self`/`cls` included for methods), `annotations` (parameter name to type),
    `returns` (return type), `param-types` (the types of all parameters but self/cls,
    in order, for "takes a str and an int"), `fully-annotated` (every parameter but
    self/cls and the return are annotated). A bare generic in the task accepts any
    parameters: `returns: tuple[set, int]` accepts `Tuple[Set[str], int]`.

    JavaScript and TypeScript: `function` is a function, an arrow function or a
    function expression bound to a name, or `Class.method`; `params` are the names as
    written (a rest parameter `...xs` is `xs`, TypeScript's `this` parameter left out).
    TypeScript's annotations are compared by meaning, with the task's types written
    TypeScript's way (`number[]`, `Map<string, number>`, `string | null`) or Python's
    (`list[int]`, `dict[str, int]`, `Optional[str]`: `int` and `float` are `number`);
    an async function's `Promise<T>` returns `T` unless a promise is asked for. The
    type options have no meaning in JavaScript: asked of it, they are a task error.

    Example:

        - check: signature
          function: fib
          params: [n]
          annotations: {n: int}
          returns: int
    """

    name = "signature"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Interface Specification"
    advice = (
        "Define the function with exactly the required name, parameters (in order), annotations "
        "and return type: callers rely on that interface."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function"],
        "properties": {
            "function": {"type": "string", "minLength": 1},
            "params": {"type": "array", "items": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            "returns": {"type": "string"},
            "param-types": {"type": "array", "items": {"type": "string"}},
            "fully-annotated": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "from typing import List, Optional\n\n"
            "def top(xs: Optional[List[int]], k: int = 3) -> List[int]:\n    return []\n",
            {
                "function": "top",
                "params": ["xs", "k"],
                "annotations": {"xs": "list[int] | None", "k": "int"},
                "returns": "list[int]",
            },
        ),
        Sample(
            "class Stack:\n    def push(self, item: int) -> None:\n        pass\n",
            {"function": "Stack.push", "params": ["self", "item"], "fully-annotated": True},
        ),
        Sample(
            "from typing import Set, Tuple\n\n"
            "def stats(log: str, n: int) -> Tuple[Set[str], int]:\n    return set(), n\n",
            {"function": "stats", "param-types": ["str", "int"], "returns": "tuple[set, int]"},
        ),
        Sample(
            "export function top(xs: number[] | null, k = 3): number[] {\n  return [];\n}\n",
            {
                "function": "top",
                "params": ["xs", "k"],
                "annotations": {"xs": "list[int] | None"},
                "returns": "number[]",
            },
            language="typescript",
        ),
        Sample(
            "class Cache {\n  async get<K>(key: K, fallback?: Map<string, number>)"
            ": Promise<Map<string, number>> {\n    return new Map();\n  }\n}\n",
            {
                "function": "Cache.get",
                "params": ["key", "fallback"],
                "annotations": {"fallback": "Map"},
                "returns": "dict[str, int]",
                "fully-annotated": True,
            },
            language="typescript",
        ),
        Sample(
            "const fib = (n, memo = {}) => (n < 2 ? n : fib(n - 1, memo) + fib(n - 2, memo));\n",
            {"function": "fib", "params": ["n", "memo"]},
            language="javascript",
        ),
    )
    violated_by = (
        Sample("def top(k, xs):\n    return []\n", {"function": "top", "params": ["xs", "k"]}),
        Sample(
            "function top(k, ...xs) {\n  return xs.slice(0, k);\n}\n",
            {"function": "top", "params": ["xs", "k"]},
            message="`top` has parameters (k, xs), expected (xs, k)",
            line=1,
            language="javascript",
        ),
        Sample(
            "export const mean = (xs: number[]): string => String(xs.length);\n",
            {"function": "mean", "param-types": ["list[float]"], "returns": "number"},
            message="`mean` returns `string`, expected `number`",
            line=1,
            language="typescript",
        ),
        Sample(
            "def fib(n: int) -> float:\n    return 1.0\n", {"function": "fib", "returns": "int"}
        ),
        Sample("def other(n):\n    return n\n", {"function": "fib"}),
        Sample(
            "def stats(n: int, log: str) -> tuple[int, set[str]]:\n    return n, set()\n",
            {"function": "stats", "param-types": ["str", "int"], "returns": "tuple[set, int]"},
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.annotations = {k: _normalized(v) for k, v in options.get("annotations", {}).items()}
        self.returns = _normalized(options["returns"]) if "returns" in options else None
        self.param_types = [_normalized(t) for t in options.get("param-types", [])]

    def advise(self) -> str:
        notes = dict(self.options.get("annotations", {}))
        params = self.options.get("params")
        shown = (
            ", ".join(f"{p}: {notes[p]}" if p in notes else p for p in params)
            if params is not None
            else "..."
        )
        returns = f" -> {self.options['returns']}" if self.options.get("returns") else ""
        text = f"Define `{self.options['function']}({shown}){returns}` exactly as required"
        if self.options.get("param-types"):
            text += f", its parameters of types {listed(self.options['param-types'])} in order"
        if self.options.get("fully-annotated"):
            text += ", every parameter and the return annotated"
        return text + ": callers rely on that interface."

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        js = ctx.js_modules()
        function = find_js_function(js, self.options["function"]) if js else None
        if function is not None or (js and not ctx.modules()):
            if function is None:
                return [_not_defined(js, self.options["function"])]
            return list(self._compare_js(function))
        found = require_function(ctx, self.options["function"], _RULE)
        if isinstance(found, Finding):
            return [found]
        return list(self._compare(found))

    def _compare(self, ref: FunctionRef) -> Iterable[Finding]:
        def found(message: str) -> Finding:
            return Finding(message, _RULE, ref.module.relpath, ref.line)

        params = parameters(ref.node.params)
        names = [p.name.value for p in params]
        wanted = self.options.get("params")
        if wanted is not None and names != list(wanted):
            yield found(
                f"`{ref.qualname}` has parameters ({', '.join(names)}), "
                f"expected ({', '.join(wanted)})"
            )
        by_name = {p.name.value: p for p in params}
        for param, expected in self.annotations.items():
            yield from _annotation(ref, by_name.get(param), param, expected, found)
        if self.returns is not None:
            got = ref.node.returns
            actual = normalize_annotation(got.annotation) if got else None
            if actual is None or not type_matches(actual, self.returns):
                shown = (
                    f"returns `{code_of(got.annotation)}`" if got else "has no return annotation"
                )
                yield found(f"`{ref.qualname}` {shown}, expected `{self.options['returns']}`")
        if "param-types" in self.options:
            yield from self._param_types(ref, params, found)
        if self.options.get("fully-annotated"):
            bare = [
                n for n, p in by_name.items() if p.annotation is None and n not in ("self", "cls")
            ]
            if bare or ref.node.returns is None:
                missing = [*(f"parameter `{n}`" for n in bare)]
                missing += ["the return type"] if ref.node.returns is None else []
                yield found(f"`{ref.qualname}` lacks annotations: {', '.join(missing)}")

    def _compare_js(self, function: JsFunction) -> Iterable[Finding]:
        """The JavaScript/TypeScript side of `_compare` (see the class doc)."""
        if function.module.language == "javascript":
            _untyped(self.options)
        qualname = function.qualname or self.options["function"]

        def found(message: str) -> Finding:
            return Finding(message, _RULE, function.module.relpath, function.line)

        params = js_params(function)
        names = [p.name for p in params]
        wanted = self.options.get("params")
        if wanted is not None and names != list(wanted):
            yield found(
                f"`{qualname}` has parameters ({', '.join(names)}), expected ({', '.join(wanted)})"
            )
        by_name = {p.name: p for p in params}
        for name, expected in self.options.get("annotations", {}).items():
            param = by_name.get(name)
            if param is None:
                yield found(f"`{qualname}` has no parameter `{name}`")
            elif not _js_type_is(param, expected):
                got = (
                    f"is annotated `{param.annotation_text}`"
                    if param.annotation is not None
                    else "has no annotation"
                )
                yield found(f"parameter `{name}` of `{qualname}` {got}, expected `{expected}`")
        returns = js_returns(function)
        if "returns" in self.options:
            expected = self.options["returns"]
            if returns is None or not matches(
                from_node(returns), from_text(expected), returned=True
            ):
                shown = f"returns `{returns.text()}`" if returns else "has no return annotation"
                yield found(f"`{qualname}` {shown}, expected `{expected}`")
        if "param-types" in self.options:
            types = self.options["param-types"]
            if len(params) != len(types) or not all(
                _js_type_is(p, t) for p, t in zip(params, types, strict=True)
            ):
                got = ", ".join(
                    f"{p.name}: {p.annotation_text}" if p.annotation else f"{p.name} (unannotated)"
                    for p in params
                )
                yield found(f"`{qualname}` takes ({got}), expected types ({', '.join(types)})")
        if self.options.get("fully-annotated"):
            missing = [f"parameter `{p.name}`" for p in params if p.annotation is None]
            missing += ["the return type"] if returns is None else []
            if missing:
                yield found(f"`{qualname}` lacks annotations: {', '.join(missing)}")

    def _param_types(
        self, ref: FunctionRef, params: list[cst.Param], found: Callable[[str], Finding]
    ) -> Iterable[Finding]:
        own = [p for p in params if p.name.value not in ("self", "cls")]
        shown = ", ".join(self.options["param-types"])
        actual = [
            normalize_annotation(p.annotation.annotation) if p.annotation else None for p in own
        ]
        if len(own) != len(self.param_types) or not all(
            a is not None and type_matches(a, e)
            for a, e in zip(actual, self.param_types, strict=True)
        ):
            got = ", ".join(
                f"{p.name.value}: {code_of(p.annotation.annotation)}"
                if p.annotation
                else f"{p.name.value} (unannotated)"
                for p in own
            )
            yield found(f"`{ref.qualname}` takes ({got}), expected types ({shown})")


def _untyped(options: Mapping[str, Any]) -> None:
    """Raise a located `invalid-task` error for a type option asked of JavaScript."""
    for key in _TYPED:
        if key in options:
            raise Undecidable(
                "invalid-task",
                f"`{key}` has no meaning in javascript code (it has no annotations)",
                key_path=(key,),
            )


def _normalized(text: str) -> str:
    """Python's canonical text of a task's type; a type only TypeScript spells
    (`number[]`, `Map<K, V>`) as written (raises ValueError when it is neither)."""
    try:
        return normalize_annotation(text)
    except ValueError as python_error:
        try:
            from_text(text)
        except ValueError:
            raise python_error from None  # neither way: Python's reason
        return text


def _js_type_is(param: JsParam, expected: str) -> bool:
    """Whether a TypeScript parameter is annotated with the `expected` type."""
    return param.annotation is not None and matches(
        from_node(param.annotation), from_text(expected)
    )


def _not_defined(js: list[Any], name: str) -> Finding:
    from pytest_codeif.checks.shared.js_functions import js_functions  # noqa: PLC0415

    defined = sorted({f.qualname for m in js for f in js_functions(m) if f.qualname})
    shown = ", ".join(defined[:10]) or "none"
    return Finding(
        f"function `{name}` is not defined (functions found: {shown})", _RULE, js[0].relpath, 1
    )


def _annotation(
    ref: FunctionRef,
    param: cst.Param | None,
    name: str,
    expected: str,
    found: Callable[[str], Finding],
) -> Iterable[Finding]:
    if param is None:
        yield found(f"`{ref.qualname}` has no parameter `{name}`")
        return
    actual = normalize_annotation(param.annotation.annotation) if param.annotation else None
    if actual is None or not type_matches(actual, expected):
        got = (
            f"is annotated `{code_of(param.annotation.annotation)}`"
            if param.annotation
            else ("has no annotation")
        )
        yield found(f"parameter `{name}` of `{ref.qualname}` {got}, expected `{expected}`")

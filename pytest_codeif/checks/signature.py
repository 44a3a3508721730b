"""The `signature` check: a function has the asked-for name, parameters and annotations."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.annotations import normalize_annotation
from pytest_codeif.checks.base import Check, Finding, Sample
from pytest_codeif.checks.structure import FunctionRef, code_of, require_function
from pytest_codeif.engine.context import CheckContext

_RULE = "signature"


class SignatureCheck(Check):
    """A function exists with the required parameters, annotations and return type.

    Why: the interface is part of the instruction ("write `fib(n: int) -> int`"); a
    solution with other parameter names or order breaks its callers even when it works.
    Annotations are compared by meaning: `Optional[List[int]]` equals `list[int] | None`.

    Options: `function` (required; `name` or `Class.method`), `params` (parameter names
    in order, `self`/`cls` included for methods), `annotations` (parameter name to type),
    `returns` (return type), `fully-annotated` (every parameter but self/cls and the
    return are annotated).

    Example:

        - check: signature
          function: fib
          params: [n]
          annotations: {n: int}
          returns: int
    """

    name = "signature"
    category = "Interface Specification"
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function"],
        "properties": {
            "function": {"type": "string", "minLength": 1},
            "params": {"type": "array", "items": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            "returns": {"type": "string"},
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
    )
    violated_by = (
        Sample("def top(k, xs):\n    return []\n", {"function": "top", "params": ["xs", "k"]}),
        Sample(
            "def fib(n: int) -> float:\n    return 1.0\n", {"function": "fib", "returns": "int"}
        ),
        Sample("def other(n):\n    return n\n", {"function": "fib"}),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.annotations = {
            k: normalize_annotation(v) for k, v in options.get("annotations", {}).items()
        }
        self.returns = normalize_annotation(options["returns"]) if "returns" in options else None

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        found = require_function(ctx, self.options["function"], _RULE)
        if isinstance(found, Finding):
            return [found]
        return list(self._compare(found))

    def _compare(self, ref: FunctionRef) -> Iterable[Finding]:
        def found(message: str) -> Finding:
            return Finding(message, _RULE, ref.module.relpath, ref.line)

        params = _parameters(ref.node.params)
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
            if actual != self.returns:
                shown = (
                    f"returns `{code_of(got.annotation)}`" if got else "has no return annotation"
                )
                yield found(f"`{ref.qualname}` {shown}, expected `{self.options['returns']}`")
        if self.options.get("fully-annotated"):
            bare = [
                n for n, p in by_name.items() if p.annotation is None and n not in ("self", "cls")
            ]
            if bare or ref.node.returns is None:
                missing = [*(f"parameter `{n}`" for n in bare)]
                missing += ["the return type"] if ref.node.returns is None else []
                yield found(f"`{ref.qualname}` lacks annotations: {', '.join(missing)}")


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
    if actual != expected:
        got = (
            f"is annotated `{code_of(param.annotation.annotation)}`"
            if param.annotation
            else ("has no annotation")
        )
        yield found(f"parameter `{name}` of `{ref.qualname}` {got}, expected `{expected}`")


def _parameters(params: cst.Parameters) -> list[cst.Param]:
    ordered = [*params.posonly_params, *params.params]
    if isinstance(params.star_arg, cst.Param):
        ordered.append(params.star_arg)
    ordered.extend(params.kwonly_params)
    if params.star_kwarg is not None:
        ordered.append(params.star_kwarg)
    return ordered

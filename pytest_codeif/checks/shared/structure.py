"""Helpers shared by the libcst-based checks: find functions, walk nodes, name things."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import libcst as cst

from pytest_codeif.checks.base import CheckContext, Finding
from pytest_codeif.code.cst import ParsedModule

_EMPTY = cst.Module([])


def code_of(node: cst.CSTNode) -> str:
    """The source text of `node`."""
    return _EMPTY.code_for_node(node)


@dataclass(frozen=True)
class FunctionRef:
    """A function definition and the module it is in; `qualname` like `Class.method`."""

    module: ParsedModule
    node: cst.FunctionDef
    qualname: str

    @property
    def line(self) -> int:
        return self.module.line_of(self.node)


def functions(module: ParsedModule) -> Iterator[FunctionRef]:
    """Every function and method of `module` with its dotted qualified name."""
    for qual, node in module.definitions:
        if isinstance(node, cst.FunctionDef):
            yield FunctionRef(module, node, qual)


def find_function(ctx: CheckContext, name: str) -> FunctionRef | None:
    """The function called `name` (or `Class.method`), searched in every module."""
    matches = [
        ref
        for module in ctx.modules()
        for ref in functions(module)
        if ref.qualname == name or ref.qualname.replace(".<locals>.", ".") == name
    ]
    if not matches and "." not in name:
        matches = [
            ref for m in ctx.modules() for ref in functions(m) if ref.node.name.value == name
        ]
    return matches[0] if matches else None


def require_function(ctx: CheckContext, name: str, rule: str) -> FunctionRef | Finding:
    """The function `name`, or a finding saying it was not found (with what was)."""
    ref = find_function(ctx, name)
    if ref is not None:
        return ref
    defined = sorted({r.qualname for m in ctx.modules() for r in functions(m)})
    shown = ", ".join(defined[:10]) or "none"
    path = ctx.unit.files[0].relpath if ctx.unit.files else None
    return Finding(f"function `{name}` is not defined (functions found: {shown})", rule, path, 1)


def scopes(
    ctx: CheckContext, function: str | None, rule: str
) -> list[tuple[ParsedModule, cst.CSTNode]] | Finding:
    """The nodes to search: the named function, or every module when `function` is None."""
    if function is None:
        return [(m, m.tree) for m in ctx.modules()]
    found = require_function(ctx, function, rule)
    if isinstance(found, Finding):
        return found
    return [(found.module, found.node)]


def require_forbid_schema(names: list[str]) -> dict[str, Any]:
    """Options `require`/`forbid` (lists of `names`, at least one) and `function`."""
    listed = {"type": "array", "items": {"enum": names}, "minItems": 1, "uniqueItems": True}
    return {
        "type": "object",
        "anyOf": [{"required": ["require"]}, {"required": ["forbid"]}],
        "properties": {"require": listed, "forbid": listed, "function": {"type": "string"}},
        "additionalProperties": False,
    }


def parameters(params: cst.Parameters) -> list[cst.Param]:
    """The parameters of a signature in the order Python binds them: positional-only,
    ordinary, `*args`, keyword-only, `**kwargs`."""
    ordered = [*params.posonly_params, *params.params]
    if isinstance(params.star_arg, cst.Param):
        ordered.append(params.star_arg)
    ordered.extend(params.kwonly_params)
    if params.star_kwarg is not None:
        ordered.append(params.star_kwarg)
    return ordered

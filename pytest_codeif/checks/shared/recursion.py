"""Recursive functions: those that call themselves, directly or through other functions (the
`construct` and `algorithm` checks)."""

from __future__ import annotations

import libcst as cst

from pytest_codeif.checks.base import CheckContext
from pytest_codeif.checks.shared.structure import FunctionRef, functions


def _callees(ref: FunctionRef, known: dict[str, FunctionRef]) -> set[str]:
    """Qualified names of the known functions that `ref` calls directly."""
    found: set[str] = set()
    owner = ref.qualname.rsplit(".", 1)[0] if "." in ref.qualname else None
    for node in ref.module.walk(ref.node.body):
        if not isinstance(node, cst.Call):
            continue
        names = ref.module.qualified(node.func)
        func = node.func
        # `self.helper()` inside a method calls the method of the same class.
        if (
            owner
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in ("self", "cls")
        ):
            names = names | {f"{owner}.{func.attr.value}"}
        found.update(n for n in names if n in known)
    return found


def recursive_functions(ctx: CheckContext) -> dict[str, FunctionRef]:
    """Functions that call themselves, directly or through other functions (mutually)."""
    known = {ref.qualname: ref for m in ctx.modules() for ref in functions(m)}
    graph = {name: _callees(ref, known) for name, ref in known.items()}
    recursive: dict[str, FunctionRef] = {}
    for start, callees in graph.items():
        seen: set[str] = set()
        stack = list(callees)
        while stack:
            current = stack.pop()
            if current == start:
                recursive[start] = known[start]
                break
            if current not in seen:
                seen.add(current)
                stack.extend(graph.get(current, ()))
    return recursive

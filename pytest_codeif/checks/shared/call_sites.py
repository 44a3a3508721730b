"""The call sites of a scope, by the qualified names they call (the `calls` and `context`
checks)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from pytest_codeif.code.cst import ParsedModule


def call_sites(
    module: ParsedModule, scope: cst.CSTNode
) -> Iterator[tuple[set[str], str | None, cst.CSTNode]]:
    """(qualified names, method name, node) of each call and each decorator in `scope`.

    The method name is set for `expr.m(...)` when `expr` is no imported module, class or
    function (an object whose type is not inferred). A bare decorator (`@lru_cache`) is a
    call of that name, so it counts.
    """
    for node in module.nodes(cst.Call, cst.Decorator, within=scope):
        if isinstance(node, cst.Call):
            names = module.qualified(node.func)
            method = None
            if isinstance(node.func, cst.Attribute) and not module.qualified(node.func.value):
                method = node.func.attr.value
            yield names, method, node
        elif isinstance(node, cst.Decorator) and not isinstance(node.decorator, cst.Call):
            yield module.qualified(node.decorator), None, node

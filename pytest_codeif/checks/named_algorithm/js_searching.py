"""Binary search read in JavaScript and TypeScript, by the parts of its Python twin
(`searching.py`): a midpoint taken in a loop or a recursion (`Math.floor((lo + hi) / 2)`,
`(lo + hi) >> 1`, `lo + ((hi - lo) >>> 1)`), the element there read, and a bound moved
to it (`lo = mid + 1`, `hi = mid - 1`, or a recursive call on `mid + 1`). The language
has no binary search of its own: `indexOf`, `includes`, `find` and `findIndex` are
linear scans."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.named_algorithm.recogniser import Judgement, found, missing
from pytest_codeif.checks.shared.js_algorithms_parts import (
    JsCode,
    arguments,
    callee_name,
    enclosing_loops,
    flat,
    function_of,
    last_index,
    member_name,
    shown,
    stores,
    where,
)
from pytest_codeif.checks.shared.js_functions import FUNCTION_KINDS, function_name
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Two bounds added or subtracted, then halved: `(lo+hi)/2` (in `Math.floor`, `| 0`),
#: `(lo+hi)>>1`, `lo+((hi-lo)>>>1)`; `(i-1)/2` (a heap's parent) has no second bound.
_MIDPOINT: Final = re.compile(r"[\w$.\]][+-]\(?[A-Za-z_$][\w$.]*\)*(?:/2|>>>?1)(?![\d.])")
_SCANS: Final = frozenset({"indexOf", "lastIndexOf", "includes", "find", "findIndex"})


def midpoint(text: str) -> bool:
    """Whether an expression's text halves a range (see `_MIDPOINT`); a midpoint is a
    short expression, and the pattern is only tried on one."""
    return len(text) <= 200 and _MIDPOINT.search(text) is not None


def _bounds_moved(module: JsModule, scope: SgNode, mid: str) -> SgNode | None:
    """`lo = mid + 1` / `hi = mid - 1` / `hi = mid` in scope, or a recursive call on
    `mid + 1` / `mid - 1`."""
    moved = {f"{mid}+1", f"{mid}-1", mid}
    for store in stores(module, scope):
        if store.value is None or store.op is not None:
            continue
        if flat(module, store.target) != mid and flat(module, store.value) in moved:
            return store.statement
    function = function_of(scope) if scope.kind() not in FUNCTION_KINDS else scope
    name = function_name(function) if function is not None else None
    if function is not None and name:
        for call in module.nodes("call_expression", within=function):
            if callee_name(call) == name and any(
                flat(module, a) in moved - {mid} for a in arguments(call)
            ):
                return call
    return None


def _recursive(module: JsModule, function: SgNode) -> bool:
    name = function_name(function)
    return bool(name) and any(
        callee_name(call) == name for call in module.nodes("call_expression", within=function)
    )


def binary_search(code: JsCode) -> Judgement:
    """A midpoint taken in a loop (or a recursion), the element there read, and a bound
    moved to the midpoint."""
    for module, scope_node in code.places:
        for store in stores(module, scope_node):
            if store.value is None or store.op is not None or store.target.kind() != "identifier":
                continue
            if not midpoint(flat(module, store.value)):
                continue
            mid = flat(module, store.target)
            loops = enclosing_loops(store.statement)
            function = function_of(store.statement)
            scope: SgNode | None = loops[-1] if loops else None
            if scope is None and function is not None and _recursive(module, function):
                scope = function
            if scope is None:
                continue
            reads = [
                s
                for s in module.nodes("subscript_expression", within=scope)
                if last_index(module, s) == mid
            ]
            moved = _bounds_moved(module, scope, mid)
            if reads and moved is not None:
                return found(
                    f"halves the range at `{shown(module, store.statement)}` "
                    f"({where((module, store.statement))}) and moves a bound "
                    f"(`{shown(module, moved)}`, {where((module, moved))})",
                    (module, store.statement),
                )
    for module, call in code.nodes("call_expression"):
        if member_name(call) in _SCANS:
            return missing(
                f"no halving of a range: `{shown(module, call)}` ({where((module, call))}) is a "
                "linear scan",
                (module, call),
            )
    for module, loop in code.nodes("for_statement", "for_in_statement"):
        if re.search(r"===?|!==?", flat(module, loop.field("body"))):
            return missing(
                f"no halving of a range: scans the elements one by one ({where((module, loop))}), "
                "a linear search",
                (module, loop),
            )
    return missing(
        "no range halved at a midpoint (mid = Math.floor((lo + hi) / 2)) with a bound moved to it"
    )

"""Kadane's algorithm read in JavaScript and TypeScript, by the parts of its Python twin
(`sequences.py`): one loop keeping a running sum that extends or restarts, and a running
best. The restart must depend on the running sum (`Math.max(x, cur + x)`, `if (cur < 0)
cur = 0`, `if (cur + x > x) cur += x; else cur = x`): a sum reset on some other
condition (each falling day) is another algorithm."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pytest_codeif.checks.named_algorithm.recogniser import Judgement, found, missing
from pytest_codeif.checks.shared.js_algorithms_parts import (
    JsCode,
    JsPlace,
    JsStore,
    arguments,
    bare,
    enclosing_loops,
    flat,
    function_of,
    loops_in,
    name_of,
    shown,
    stores,
    where,
)
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

_LOOPS = ("for_statement", "for_in_statement", "while_statement", "do_statement")


def refers(text: str, name: str) -> bool:
    """Whether the code `text` reads `name` (a name or `this.x`, also as `name[...]`)."""
    return re.search(rf"(?<![\w.$]){re.escape(name)}(?![\w$])", text) is not None


def _math(module: JsModule, node: SgNode | None, which: str) -> list[SgNode] | None:
    """The arguments of `Math.max(...)` (which="max") or `Math.min(...)`, else None."""
    node = bare(node)
    if node is None or node.kind() != "call_expression":
        return None
    if flat(module, node.field("function")) != f"Math.{which}":
        return None
    return arguments(node)


def _extends_or_restarts(module: JsModule, store: JsStore, name: str) -> bool:
    """`cur = Math.max(x, cur + x)`, `cur = Math.max(0, cur + x)`, `cur = cur + x > x ?
    cur + x : x`."""
    value = store.value
    if store.op is not None or value is None:
        return False
    options = _math(module, value, "max")
    if options is None and value.kind() == "ternary_expression":
        options = [n for n in (value.field("consequence"), value.field("alternative")) if n]
    if options is None or len(options) != 2:
        return False
    texts = [flat(module, o) for o in options]
    adds = [t for t in texts if refers(t, name) and "+" in t]
    return len(adds) == 1 and any(not refers(t, name) for t in texts)


def _condition_of(store: JsStore, loop: SgNode) -> SgNode | None:
    """The condition of the innermost `if` inside `loop` the store depends on."""
    for outer in store.statement.ancestors():
        if outer == loop:
            return None
        if outer.kind() == "if_statement":
            return outer.field("condition")
    return None


def _running(module: JsModule, loop: SgNode) -> tuple[str, JsStore] | None:
    """The running sum of a loop: extended or restarted in one assignment, or added to
    (`cur += x`) and restarted elsewhere in the loop on a test of the sum itself."""
    body = stores(module, loop)
    for store in body:
        name = name_of(module, store.target)
        if name and _extends_or_restarts(module, store, name):
            return name, store
    for store in body:
        name = name_of(module, store.target)
        if not name or store.value is None:
            continue
        value = flat(module, store.value)
        added = store.op == "+=" or (
            store.op is None
            and re.fullmatch(rf"{re.escape(name)}\+.+|.+\+{re.escape(name)}", value) is not None
        )
        if not added:
            continue
        for reset in body:
            if reset is store or reset.op is not None or reset.value is None:
                continue
            if name_of(module, reset.target) != name or reset.target.kind() != store.target.kind():
                continue
            again = flat(module, reset.value)
            if refers(again, name) and _math(module, reset.value, "max") is None:
                continue
            test = _condition_of(reset, loop) or _condition_of(store, loop)
            if _math(module, reset.value, "max") is not None or (
                test is not None and refers(flat(module, test), name)
            ):
                return name, store
    return None


def _best(module: JsModule, scope: SgNode, running: str) -> SgNode | None:
    """`best = Math.max(best, cur)`, or `if (cur > best) best = cur`, or `Math.max(...dp)`."""
    for store in stores(module, scope):
        name = name_of(module, store.target)
        if not name or name == running or store.value is None:
            continue
        args = _math(module, store.value, "max")
        if args is not None:
            texts = [flat(module, a) for a in args]
            if any(refers(t, running) for t in texts) and any(refers(t, name) for t in texts):
                return store.statement
        value = flat(module, store.value)
        if value.startswith(running) and refers(value, running):
            for outer in store.statement.ancestors():
                if outer == scope:
                    break
                if outer.kind() != "if_statement":
                    continue
                test = flat(module, outer.field("condition"))
                if refers(test, running) and refers(test, name) and re.search("[<>]", test):
                    return outer
    for call in module.nodes("call_expression", within=scope):
        if flat(module, call) == f"Math.max(...{running})":
            return call
    return None


def _minimum_price(module: JsModule, loop: SgNode) -> SgNode | None:
    """`low = Math.min(low, x)` or `if (x < low) low = x` with a best difference from
    it: the lowest-price method, which keeps no running sum."""
    for store in stores(module, loop):
        name = name_of(module, store.target)
        if not name or store.value is None or store.op is not None:
            continue
        args = _math(module, store.value, "min")
        tracked = args is not None and any(flat(module, a) == name for a in args)
        if not tracked:
            test = _condition_of(store, loop)
            text = flat(module, test) if test is not None else ""
            tracked = (
                refers(text, name) and "<" in text and not refers(flat(module, store.value), name)
            )
        if tracked and re.search(rf"-{re.escape(name)}(?![\w$])", flat(module, loop)):
            return store.statement
    return None


def kadane(code: JsCode) -> Judgement:
    """One loop, not nested and with no loop inside, keeping a running sum that extends
    or restarts at each element and a running best."""
    nested: JsPlace | None = None
    for module, loop in code.nodes(*_LOOPS):
        running = _running(module, loop)
        if running is None:
            continue
        scope = function_of(loop) or module.root
        best = _best(module, scope, running[0])
        if best is None:
            continue
        if enclosing_loops(loop) or loops_in(module, loop):
            nested = (module, loop)
            continue
        return found(
            f"one pass ({where((module, loop))}): `{shown(module, running[1].statement)}` "
            f"extends or restarts the running sum, `{shown(module, best)}` keeps the best",
            (module, loop),
        )
    if nested:
        return missing(
            "the running sum and best are kept inside nested loops "
            f"({where(nested)}): not a single pass",
            nested,
        )
    for module, loop in code.nodes(*_LOOPS):
        if loops_in(module, loop):
            return missing(
                "no single loop keeping a running sum and a running best: tries every "
                f"subarray with nested loops ({where((module, loop))}), a brute force",
                (module, loop),
            )
        low = _minimum_price(module, loop)
        if low is not None:
            return missing(
                f"keeps the lowest value so far (`{shown(module, low)}`, {where((module, low))}) "
                "and the best difference from it: no running sum that restarts",
                (module, low),
            )
    return missing(
        "no single loop keeping a running sum that restarts when it stops paying "
        "(cur = Math.max(x, cur + x), or if (cur < 0) cur = 0) and a running best "
        "(best = Math.max(best, cur))"
    )

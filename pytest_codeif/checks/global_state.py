"""The `global-state` check: no mutable state shared at module level."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.code.cst import ParsedModule

_RULE = "global-state"
_MUTABLE_NODES = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
_MUTABLE_CALLS: Final = frozenset(
    {
        "builtins.list",
        "builtins.dict",
        "builtins.set",
        "builtins.bytearray",
        "collections.deque",
        "collections.defaultdict",
        "collections.Counter",
        "collections.OrderedDict",
        "queue.Queue",
        "array.array",
    }
)
#: Methods that change a container in place (not `get`: dict.get is a read).
MUTATORS: Final = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "popleft",
        "appendleft",
        "extendleft",
        "rotate",
        "popitem",
        "sort",
        "reverse",
        "put",
        "put_nowait",
        "get",
        "get_nowait",
        "move_to_end",
        "subtract",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
    }
)


def _mutable_value(module: ParsedModule, value: cst.BaseExpression) -> bool:
    if isinstance(value, _MUTABLE_NODES):
        return True
    return isinstance(value, cst.Call) and bool(module.qualified(value.func) & _MUTABLE_CALLS)


def module_containers(module: ParsedModule) -> dict[str, cst.CSTNode]:
    """Module-level names bound to a mutable container, with where they are bound."""
    found: dict[str, cst.CSTNode] = {}
    for statement in module.tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            targets: list[cst.BaseExpression] = []
            value: cst.BaseExpression | None = None
            if isinstance(small, cst.Assign):
                targets, value = [t.target for t in small.targets], small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets, value = [small.target], small.value
            if value is not None and _mutable_value(module, value):
                for target in targets:
                    if isinstance(target, cst.Name) and not target.value.startswith("__"):
                        found[target.value] = small
    return found


def _root_name(node: cst.BaseExpression) -> str | None:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


class GlobalStateCheck(Check):
    """No mutable global state: functions do not change module-level variables.

    Why: state shared through module globals makes functions order-dependent and unsafe
    to call twice or from threads; "no global variables" is a common quality rule.
    A violation is a `global` statement in a function, or a function that changes a
    module-level container in place (`CACHE[k] = v`, `del CACHE[k]`, `ITEMS.append(x)`,
    `ITEMS += ...`). With `strict: true`, defining a module-level mutable container
    (list, dict, set, deque, Counter...) is a violation even if nothing changes it.
    Module-level code outside functions may build its own data; dunder names
    (`__all__`) are exempt. Local variables that shadow a global are not told apart.

    Options: `strict` (bool, default false).

    Example:

        - check: global-state
          strict: true
    """

    name = "global-state"
    category = "Code Quality"
    advice = (
        "Do not change module-level variables from functions: pass state in as parameters and "
        "return the result, or keep it on an object the caller creates (a class instance); with "
        "`strict`, build mutable containers inside functions."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"strict": {"type": "boolean"}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "PRIMES = [2, 3, 5]\n\ndef first():\n    return PRIMES[0]\n\n"
            "def add(cache, k):\n    cache[k] = 1\n",
            {},
        ),
        Sample(
            "class Store:\n    def __init__(self):\n        self.items = []\n", {"strict": True}
        ),
    )
    violated_by = (
        Sample(
            """
            count = 0

            def inc():
                global count
                count += 1
            """,
            message="`global count`: a function rebinds module-level state",
            line=4,
        ),
        Sample(
            """
            CACHE = {}

            def put(k, v):
                CACHE[k] = v
            """,
            message="a function changes module-level `CACHE`",
            line=4,
        ),
        Sample(
            """
            from collections import deque

            Q = deque()

            def push(x):
                Q.append(x)
            """,
            message="changes module-level `Q` (.append)",
            line=6,
        ),
        Sample("PRIMES = [2, 3, 5]\n", {"strict": True}, message="module-level mutable `PRIMES`"),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings: list[Finding] = []
        for module in ctx.modules():
            containers = module_containers(module)

            def add(message: str, node: cst.CSTNode, module: ParsedModule = module) -> None:
                findings.append(Finding(message, _RULE, module.relpath, module.line_of(node)))

            if self.options.get("strict"):
                for name, node in containers.items():
                    add(f"module-level mutable `{name}`", node)
            for node in module.walk():
                in_function = isinstance(module.scope_of(node), cst.FunctionDef)
                if not in_function:
                    continue
                if isinstance(node, cst.Global):
                    names = ", ".join(n.name.value for n in node.names)
                    add(f"`global {names}`: a function rebinds module-level state", node)
                elif (
                    isinstance(node, cst.Call)
                    and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in MUTATORS
                    and isinstance(node.func.value, cst.Name)
                    and node.func.value.value in containers
                ):
                    name = node.func.value.value
                    add(f"a function changes module-level `{name}` (.{node.func.attr.value})", node)
                elif isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.Del)):
                    target = node.target
                    if isinstance(target, cst.Subscript | cst.Attribute):
                        root = _root_name(target)
                        if root in containers:
                            add(f"a function changes module-level `{root}`", node)
        return findings

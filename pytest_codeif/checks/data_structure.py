"""The `data-structure` check: a named data structure is used, with the named operations,
and with a stated size bound enforced."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable, listed
from pytest_codeif.checks.shared import js_structures as jss
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule

_RULE = "data-structure"

_BUILTIN_NODES: Final[dict[str, tuple[type[cst.CSTNode], ...]]] = {
    "list": (cst.List, cst.ListComp),
    "dict": (cst.Dict, cst.DictComp),
    "set": (cst.Set, cst.SetComp),
    "tuple": (cst.Tuple,),
    "frozenset": (),
    "bytearray": (),
}
#: Names users write -> the canonical structure (its constructor's qualified name).
ALIASES: Final = {
    "map": "dict",
    "hashmap": "dict",
    "dictionary": "dict",
    "array": "list",
    "stack": "list",
    "deque": "collections.deque",
    "defaultdict": "collections.defaultdict",
    "counter": "collections.Counter",
    "ordereddict": "collections.OrderedDict",
    "namedtuple": "collections.namedtuple",
    "chainmap": "collections.ChainMap",
    "heap": "heapq",
    "priorityqueue": "queue.PriorityQueue",
    "queue": "queue.Queue",
}
#: Types whose values are other types too: a Counter is a dict, a deque can be a stack.
_SUBTYPES: Final = {
    "dict": ("collections.defaultdict", "collections.Counter", "collections.OrderedDict"),
    "list": ("collections.deque",),
}
#: Operations of a structure spelled differently in Python (a list-stack's push is append).
_SYNONYMS: Final = {("list", "push"): ("append",), ("collections.deque", "push"): ("append",)}


def canonical(name: str) -> str:
    """`Counter`, `collections.Counter` and `counter` all name `collections.Counter`."""
    plain = name.strip()
    if plain in _BUILTIN_NODES or plain == "heapq":
        return plain
    alias = ALIASES.get(plain.lower())
    if alias is not None:
        return alias
    lowered = {v.lower(): v for v in ALIASES.values()}
    return lowered.get(plain.lower(), plain)


@dataclass(frozen=True)
class Use:
    """One place the structure appears, and the variable it is bound to, if any."""

    module: ParsedModule
    node: cst.CSTNode
    binding: str | None


def _annotation_names(module: ParsedModule, annotation: cst.Annotation) -> set[str]:
    expr = annotation.annotation
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    names = module.qualified(expr)
    return {n.removeprefix("builtins.").removeprefix("typing.") for n in names} | {
        n.lower().removeprefix("typing.") for n in names
    }


def _target_key(target: cst.BaseExpression) -> str | None:
    """`x` or `self.x`: the variables whose operations we follow."""
    if isinstance(target, cst.Name):
        return target.value
    if (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value in ("self", "cls")
    ):
        return f"self.{target.attr.value}"
    return None


def _makes(module: ParsedModule, value: cst.CSTNode, kind: str) -> bool:
    """Whether expression `value` builds a `kind` (literal, comprehension, constructor)."""
    kinds = (kind, *_SUBTYPES.get(kind, ()))
    for one in kinds:
        if one in _BUILTIN_NODES and isinstance(value, _BUILTIN_NODES[one]):
            return True
        if isinstance(value, cst.Call):
            names = module.qualified(value.func)
            if one in names or f"builtins.{one}" in names:
                return True
    return False


@cache
def api(kind: str) -> frozenset[str]:
    """Public method names of the standard-library type `kind` (empty if unknown)."""
    module_name, _, attr = kind.rpartition(".")
    if module_name not in ("", "collections", "queue"):
        return frozenset()
    module = importlib.import_module(module_name or "builtins")
    cls = getattr(module, attr, None)
    if not isinstance(cls, type):
        return frozenset()
    return frozenset(n for n in dir(cls) if not n.startswith("_"))


def _supplied(module: ParsedModule, kind: str) -> Iterator[Use]:
    """Unannotated parameters the code uses through `kind`'s methods: the caller supplies
    the structure (`def add(cart, item): cart.append(item)` uses a list)."""
    methods = api(kind)
    if not methods:
        return
    calls = [(r, m) for r, m, _ in _method_calls(module) if r and m in methods]
    for node in module.walk():
        if isinstance(node, cst.Param) and node.annotation is None:
            name = node.name.value
            if any(r == name for r, _ in calls):
                yield Use(module, node, name)


#: Methods only a list (of the structures a parameter is filled as) has.
_LIST_ONLY: Final = frozenset({"append", "extend", "insert", "sort", "reverse", "index"})


def _index_names(module: ParsedModule) -> set[str]:
    """Names that hold positions: loop targets over `range(...)` and the counter of
    `enumerate(...)` (`for i, x in enumerate(xs)`)."""
    names: set[str] = set()
    for loop in module.nodes(cst.For, cst.CompFor):
        if not isinstance(loop.iter, cst.Call):
            continue
        called = module.qualified(loop.iter.func)
        target = loop.target
        if "builtins.range" in called and isinstance(target, cst.Name):
            names.add(target.value)
        elif "builtins.enumerate" in called and isinstance(target, cst.Tuple) and target.elements:
            first = target.elements[0].value
            if isinstance(first, cst.Name):
                names.add(first.value)
    return names


def _by_position(key: cst.BaseExpression, positions: set[str]) -> bool:
    """Whether a subscript key is a position (a list index) rather than a key."""
    if isinstance(key, cst.UnaryOperation):
        key = key.expression
    if isinstance(key, (cst.Integer, cst.BinaryOperation)):
        return True
    if isinstance(key, cst.Call) and isinstance(key.func, cst.Name) and key.func.value == "len":
        return True
    return isinstance(key, cst.Name) and key.value in positions


def _filled_by_key(module: ParsedModule) -> Iterator[Use]:
    """Unannotated parameters the code fills by key (`orders[order_id] = status`, `+=`,
    `del`): the caller supplies a dict to fill. A list cannot grow by key, so a key that
    is no position (an int, arithmetic, `len()`, a `range`/`enumerate` counter) shows a
    dict; a parameter also used through list-only methods is left alone."""
    positions = _index_names(module)
    listish = {r for r, m, _ in _method_calls(module) if r and m in _LIST_ONLY}
    targets: list[cst.BaseExpression] = []
    for statement in module.nodes(cst.Assign, cst.AugAssign, cst.Del):
        if isinstance(statement, cst.Assign):
            targets.extend(t.target for t in statement.targets)
        else:
            targets.append(statement.target)
    filled: set[str] = set()
    for target in targets:
        if (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and len(target.slice) == 1
            and isinstance(target.slice[0].slice, cst.Index)
            and not _by_position(target.slice[0].slice.value, positions)
        ):
            filled.add(target.value.value)
    for param in module.nodes(cst.Param):
        name = param.name.value
        if param.annotation is None and name in filled and name not in listish:
            yield Use(module, param, name)


def uses(ctx: CheckContext, kind: str) -> list[Use]:
    """Every place `kind` is built or declared: literal, comprehension, constructor call,
    annotation, subclass, or an unannotated parameter used through its methods; with the
    variable it is bound to."""
    found: list[Use] = []
    for module in ctx.modules():
        found.extend(_supplied(module, kind))
        if kind == "dict":
            found.extend(_filled_by_key(module))
        unpacking = _unpacking_targets(module) if kind == "tuple" else set()
        for node in module.walk():
            if kind == "heapq":
                if isinstance(node, cst.Call) and any(
                    n.startswith("heapq.") for n in module.qualified(node.func)
                ):
                    args = node.args
                    binding = _target_key(args[0].value) if args else None
                    found.append(Use(module, node, binding))
                continue
            if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
                targets = (
                    [t.target for t in node.targets]
                    if isinstance(node, cst.Assign)
                    else [node.target]
                )
                if _makes(module, node.value, kind):
                    found.extend(Use(module, node, _target_key(t)) for t in targets)
                    continue
            if isinstance(node, (cst.AnnAssign, cst.Param)) and node.annotation is not None:
                short = kind.rsplit(".", 1)[-1]
                names = _annotation_names(module, node.annotation)
                if kind in names or short in names or short.lower() in names:
                    key = _target_key(node.target if isinstance(node, cst.AnnAssign) else node.name)
                    found.append(Use(module, node, key))
                    continue
            if isinstance(node, cst.ClassDef) and any(
                kind in module.qualified(b.value) or f"builtins.{kind}" in module.qualified(b.value)
                for b in node.bases
            ):
                found.append(Use(module, node, "self"))
                continue
            if isinstance(node, (cst.Call, *_BUILTIN_NODES.get(kind, ()))) and _makes(
                module, node, kind
            ):
                if id(node) in unpacking:
                    continue
                found.append(Use(module, node, None))
    return found


def _unpacking_targets(module: ParsedModule) -> set[int]:
    """Unpacking targets (`a, b = ...`, `for k, v in ...`) build no tuple."""
    return {id(node.target) for node in module.nodes(cst.AssignTarget, cst.For, cst.CompFor)}


def _method_calls(module: ParsedModule) -> Iterator[tuple[str | None, str, cst.Call]]:
    """(receiver variable, method name, node) of every `x.m(...)` call."""
    for node in module.nodes(cst.Call):
        if isinstance(node.func, cst.Attribute):
            yield _target_key(node.func.value), node.func.attr.value, node


def _named_bounds(module: ParsedModule, limit: int) -> set[str]:
    """Names that hold an integer of at most `limit`: `MAX = 500`, a parameter default
    `max_size=500`, and `self.cap` assigned from either."""
    names: set[str] = set()
    for node in module.walk():
        if isinstance(node, cst.Param) and node.default is not None:
            if _int(node.default, limit) is not None:
                names.add(node.name.value)
        elif isinstance(node, cst.Assign) and _int(node.value, limit) is not None:
            names.update(code_of(t.target) for t in node.targets)
    for node in module.walk():  # `self.cap = cap` after `def __init__(self, cap=500)`
        if isinstance(node, cst.Assign) and code_of(node.value) in names:
            names.update(code_of(t.target) for t in node.targets)
    return names


def _bounds(module: ParsedModule, limit: int) -> Iterator[cst.CSTNode]:
    """Places that enforce a size bound of at most `limit`."""
    named = _named_bounds(module, limit)

    def bound(node: cst.BaseExpression) -> int | None:
        if isinstance(node, (cst.Name, cst.Attribute)) and code_of(node) in named:
            return limit
        return _int(node, limit)

    for node in module.walk():
        if isinstance(node, cst.Call):
            for arg in node.args:
                keyword = arg.keyword.value if arg.keyword else None
                if keyword in ("maxlen", "maxsize") and bound(arg.value) is not None:
                    yield node
        elif isinstance(node, cst.Comparison):
            sides = [node.left, *(c.comparator for c in node.comparisons)]
            has_len = any(
                isinstance(s, cst.Call) and isinstance(s.func, cst.Name) and s.func.value == "len"
                for s in sides
            )
            numbers = [bound(s) for s in sides]
            if any(n is not None and (has_len or n == limit) for n in numbers):
                yield node


def _int(node: cst.BaseExpression, limit: int) -> int | None:
    """The integer literal `node` is, when it is at most `limit`."""
    if isinstance(node, cst.Integer):
        value = int(node.value.replace("_", ""), 0)
        return value if 0 < value <= limit else None
    return None


class DataStructureCheck(Check):
    """A data structure is used, with the named operations and a stated size bound.

    Why: "keep the pending jobs in a collections.deque and pop them with popleft" asks for
    a structure, not only a result. Used means built or declared: a literal or
    comprehension (`[]`, `{}`, `{x}`, `(a, b)` but not an unpacking target), a constructor
    call resolved through imports (`deque()`, `collections.Counter(...)`), an annotation
    (`def f(q: deque)`), a subclass, for `heapq` a call of a heapq function, or an
    unannotated parameter on which the code calls the type's methods (the caller supplies
    the structure: `def add(cart, item): cart.append(item)` uses a list), or for a dict
    an unannotated parameter the code fills by key (`def track(orders, oid, status):
    orders[oid] = status`: a list cannot grow by key; a key that is a position, such as
    an int or a `range` counter, does not count). Names are
    case-insensitive and a few common words are accepted (`map` is dict, `stack` is list,
    `heap` is heapq); a Counter/defaultdict/OrderedDict counts as a dict.

    An operation counts when it is called on a variable (or `self.x`) bound to the
    structure (`q.popleft()` after `q = deque()`); for heapq, the function itself
    (`heappush`). A size bound counts as enforced when the code states it: a bounded
    constructor (`deque(maxlen=N)`, `Queue(maxsize=N)`), or a comparison of `len(...)`
    with an integer of at most the bound, or a comparison with the bound itself
    (`if n > 1000: raise`); the integer may be a literal or a name holding one (a
    constant, a parameter default, `self.cap` set from either). What runs at run time is
    not measured, and a bound that is a capacity to reach ("handles up to 1000") rather
    than a cap is not told apart.

    JavaScript and TypeScript: `list`/`array`/`stack` is an array (`push` for
    `append`), `dict`/`map` a `Map` or an object filled by key (`counts[w] = ...`,
    `Record<K, V>`), `set` a `Set`, `tuple` a TypeScript tuple type, `bytearray` a
    `Uint8Array`, `namedtuple`/`record` a class used as a record or a TypeScript
    interface; `Map`, `Set`, `WeakMap`, `WeakSet`, `Array` and the typed arrays
    (`Float64Array`..., `TypedArray` for any) are the language's own, as written. A
    size bound is a `.length`/`.size` comparison. `deque`, `Counter`, `defaultdict`,
    `OrderedDict`, `ChainMap`, `frozenset`, `heapq` and the queues have no meaning
    there (none is built in): a task error at `type`.

    Options: `type` (required), `operations` (method names), `max-size` (an integer).

    Example:

        - check: data-structure
          type: collections.deque
          operations: [append, popleft]
    """

    name = "data-structure"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Data Structure"
    advice = (
        "Keep the data in the structure the task names, built where the data is (a constructor, "
        "literal or annotation), call the named operations on it, and state any size bound in "
        "the code (`deque(maxlen=N)`, or a `len()` check)."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["type"],
        "properties": {
            "type": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"},
            "operations": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[A-Za-z_]\\w*$"},
                "minItems": 1,
            },
            "max-size": {"type": "integer", "minimum": 1},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            const MAX = 100;

            export function track(seen, key) {
              const counts = new Map();
              if (counts.size >= MAX) counts.clear();
              counts.set(key, (counts.get(key) ?? 0) + 1);
              return counts;
            }
            """,
            {"type": "map", "operations": ["get", "set"], "max-size": 100},
            language="javascript",
        ),
        Sample(
            """
            class Stack<T> {
              private items: T[] = [];
              push(x: T): void { this.items.push(x); }
              pop(): T | undefined { return this.items.pop(); }
            }
            """,
            {"type": "stack", "operations": ["append", "pop"]},
            language="typescript",
        ),
        Sample(
            "const words = (text) => {\n  const counts = {};\n"
            "  for (const w of text.split(' ')) counts[w] = (counts[w] || 0) + 1;\n"
            "  return counts;\n};\n",
            {"type": "dict"},
            language="javascript",
        ),
        Sample(
            "from collections import deque\n\ndef run(jobs):\n    q = deque(jobs)\n"
            "    while q:\n        q.popleft()\n    q.append(1)\n",
            {"type": "deque", "operations": ["append", "popleft"]},
        ),
        Sample("def pairs():\n    return {k: 1 for k in 'ab'}\n", {"type": "dict"}),
        Sample(
            "def check_in(bookings, name):\n    if bookings.get(name):\n"
            "        return bookings.pop(name)\n    return None\n",
            {"type": "dict", "operations": ["get", "pop"]},
        ),
        Sample(
            "import heapq\n\ndef top(xs):\n    h = []\n    heapq.heappush(h, 1)\n"
            "    return heapq.heappop(h)\n",
            {"type": "heapq", "operations": ["heappush", "heappop"]},
        ),
        Sample(
            "def add(cache, k, v):\n    if len(cache) >= 100:\n        cache.clear()\n"
            "    cache[k] = v\n\nCACHE = {}\n",
            {"type": "dict", "max-size": 100},
        ),
        Sample(
            "from collections import deque\n\nclass Nav:\n    def __init__(self, cap=500):\n"
            "        self.cap = cap\n        self.q = deque(maxlen=self.cap)\n",
            {"type": "deque", "max-size": 500},
        ),
        Sample(
            "def track(orders, update):\n    order_id, status = update\n"
            "    orders[order_id] = status\n    return orders\n",
            {"type": "dict"},
        ),
    )
    violated_by = (
        Sample(
            "const seen = [];\nexport const add = (x: number): void => { seen.push(x); };\n",
            {"type": "Set"},
            message="no Set is used",
            line=1,
            language="typescript",
        ),
        Sample(
            "function top(xs) {\n  const q = [...xs];\n  return q.shift();\n}\n",
            {"type": "list", "operations": ["append"]},
            message="`append` is never called on a list",
            language="javascript",
        ),
        Sample("def run(jobs):\n    q = list(jobs)\n    return q.pop(0)\n", {"type": "deque"}),
        Sample(
            "from collections import deque\n\ndef run(jobs):\n    q = deque(jobs)\n"
            "    return q.pop()\n",
            {"type": "deque", "operations": ["popleft"]},
        ),
        Sample("def f(a, b):\n    x, y = a, b\n    return x\n", {"type": "set"}),
        Sample(
            "CACHE = {}\n\ndef add(k, v):\n    CACHE[k] = v\n", {"type": "dict", "max-size": 10}
        ),
        Sample(  # filled by position: a list the caller made
            "def scale(values, factor):\n    for i in range(len(values)):\n"
            "        values[i] = values[i] * factor\n",
            {"type": "dict"},
            message="no dict is used",
        ),
    )

    def advise(self) -> str:
        text = (
            f"Keep the data in a `{self.options['type']}` (built by its constructor, a "
            "literal or an annotation)"
        )
        if self.options.get("operations"):
            text += f" and call {listed(self.options['operations'])} on it"
        if self.options.get("max-size"):
            bound = self.options["max-size"]
            text += f"; cap its size at {bound} in the code (`maxlen=`, or a `len()` check)"
        return text + "."

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        wanted = str(self.options["type"])
        kind = canonical(wanted)
        js = ctx.js_modules()
        for language in sorted({m.language for m in js}):
            why = jss.js_meaning(kind, wanted, language)
            if why is not None:
                raise Undecidable("invalid-task", why, key_path=("type",))
        if js and not ctx.modules():
            return self._evaluate_js(js, wanted, kind)
        if js and not uses(ctx, kind) and any(jss.js_uses(m, kind, wanted) for m in js):
            # Python beside JS/TS: the structure is judged where it is used.
            return self._evaluate_js(js, wanted, kind)
        found = uses(ctx, kind)
        first = ctx.modules()[0] if ctx.modules() else None
        path = first.relpath if first else None
        if not found:
            return [Finding(f"no {wanted} is used", _RULE, path, 1)]
        findings: list[Finding] = []
        bound = {u.binding for u in found if u.binding}
        for op in self.options.get("operations", []):
            if not self._operation_used(ctx, kind, op, bound):
                findings.append(Finding(f"`{op}` is never called on a {wanted}", _RULE, path, 1))
        limit = self.options.get("max-size")
        if limit is not None and not any(True for m in ctx.modules() for _ in _bounds(m, limit)):
            findings.append(
                Finding(
                    f"nothing in the code enforces the size bound of {limit} "
                    "(no maxlen/maxsize, no len(...) comparison, no comparison with the bound)",
                    _RULE,
                    path,
                    1,
                )
            )
        return findings

    def _evaluate_js(self, js: list[Any], wanted: str, kind: str) -> list[Finding]:
        """The check on JavaScript/TypeScript modules (`shared/js_structures.py`)."""
        path = js[0].relpath
        found = [u for m in js for u in jss.js_uses(m, kind, wanted)]
        if not found:
            return [Finding(f"no {wanted} is used", _RULE, path, 1)]
        findings: list[Finding] = []
        bound = {u.binding for u in found if u.binding}
        for op in self.options.get("operations", []):
            if not any(jss.operation_used(m, kind, op, bound) for m in js):
                findings.append(Finding(f"`{op}` is never called on a {wanted}", _RULE, path, 1))
        limit = self.options.get("max-size")
        if limit is not None and not any(jss.bounded(m, limit) for m in js):
            findings.append(
                Finding(
                    f"nothing in the code enforces the size bound of {limit} "
                    "(no .length or .size comparison, no comparison with the bound)",
                    _RULE,
                    path,
                    1,
                )
            )
        return findings

    @staticmethod
    def _operation_used(ctx: CheckContext, kind: str, op: str, bound: set[str]) -> bool:
        names = (op, *_SYNONYMS.get((kind, op), ()))
        for module in ctx.modules():
            if kind == "heapq":
                if any(
                    f"heapq.{n}" in module.qualified(node.func)
                    for node in module.walk()
                    if isinstance(node, cst.Call)
                    for n in names
                ):
                    return True
                continue
            for receiver, method, _ in _method_calls(module):
                if (
                    method in names
                    and receiver is not None
                    and (receiver in bound or (receiver == "self" and "self" in bound))
                ):
                    return True
        return False

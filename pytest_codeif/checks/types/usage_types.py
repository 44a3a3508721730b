"""Types read from what the code does, for parameters and returns with no annotation and
no observed value: decided from libcst structure, never by running anything.

Parameters: each use of an unannotated parameter narrows the builtin types it can hold:
a str-only method (`p.split()`, `p.lower()`) or concatenation with a string literal
means `str`; `json.loads(p)` means JSON text; `p.items()` or `p["key"]` a dict;
`p.sort()` / `p.append()` a list; `p.add()` a set; arithmetic or an ordering comparison
with a number, or `range(p)`, a number; iteration, indexing and `len` leave several
candidates (list, tuple, str...). A method no builtin has (`p.read()`) stops inference, as
does any rebinding of the name (`p = p.strip()`), since flow is not followed.

Returns: the normal path is the function's last statement (`return`, or the last
statement of a `try`/`with` body, or an `if`/`else` whose branches agree); earlier
returns are guard clauses and do not decide. Its kind is read from a literal or display
(`(a, b)`, `[...]`, f-string), a comprehension, a comparison, a call of a builtin or
standard-library constructor (`set()`, `len()`, `sorted()`, `json.dumps()`,
`collections.Counter()`), a str method, `/` (a float), or a local name every assignment
of which has one such kind. Anything else (a call of the code's own function, an
attribute, a subscript) is unknown. This is structure, not a type checker: mypy would
need the code edited (`reveal_type`) to say more, and with unannotated parameters it
infers `Any` for most of these expressions anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.shared.structure import FunctionRef
from pytest_codeif.code.cst import ParsedModule

_NUMBER: Final = frozenset({"int", "float", "bool"})
#: Kinds of numbers a return may be read as ("number": an int or a float, unknown which).
_NUMBERS: Final = ("int", "float", "bool", "number")
_SEQUENCE: Final = frozenset({"list", "tuple", "str"})
_BUILTIN_TYPES: Final = frozenset({"str", "int", "float", "bool", "list", "dict", "set", "tuple"})
_CONTAINER: Final = frozenset({"list", "tuple", "str", "dict", "set", "collections.deque"})
_DEQUE: Final = "collections.deque"
_STR_METHODS: Final = frozenset(
    [
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "splitlines",
        "startswith",
        "endswith",
        "replace",
        "isdigit",
        "isalpha",
        "isalnum",
        "isspace",
        "isupper",
        "islower",
        "isnumeric",
        "isdecimal",
        "title",
        "capitalize",
        "casefold",
        "format",
        "zfill",
        "center",
        "ljust",
        "rjust",
        "partition",
        "rpartition",
        "encode",
        "find",
        "rfind",
        "expandtabs",
        "swapcase",
        "removeprefix",
        "removesuffix",
    ]
)
_METHODS: Final[dict[str, frozenset[str]]] = {
    **{m: frozenset({"str"}) for m in _STR_METHODS},
    **{m: frozenset({"dict"}) for m in ("items", "keys", "values", "get", "setdefault")},
    **{m: frozenset({"list", _DEQUE}) for m in ("append", "extend", "insert", "reverse")},
    "sort": frozenset({"list"}),
    **{
        m: frozenset({"set"})
        for m in (
            "add",
            "discard",
            "union",
            "intersection",
            "difference",
            "symmetric_difference",
            "issubset",
            "issuperset",
            "isdisjoint",
        )
    },
    "count": _SEQUENCE | {_DEQUE},
    "index": _SEQUENCE | {_DEQUE},
    "pop": frozenset({"list", "dict", "set", _DEQUE}),
    "remove": frozenset({"list", "set", _DEQUE}),
    "copy": frozenset({"list", "dict", "set", _DEQUE}),
    "clear": frozenset({"list", "dict", "set", _DEQUE}),
    "update": frozenset({"dict", "set"}),
    # only a deque has these (a deque is no builtin, so they are read by name only)
    **{
        m: frozenset({"collections.deque"})
        for m in ("popleft", "appendleft", "extendleft", "rotate")
    },
}
#: Functions whose first argument is a path: a str (or a PathLike, which a task calls
#: a string just as well).
_PATH_FUNCTIONS: Final = frozenset(
    {"builtins.open", "pathlib.Path", "os.listdir", "os.stat", "os.remove", "os.makedirs"}
    | {"os.scandir", "os.walk", "shutil.copy", "shutil.rmtree", "io.open"}
)
#: Builtins that take any iterable, and what passing `p` to them says.
_ITERABLE_FUNCTIONS: Final = frozenset(
    "builtins." + f
    for f in [
        "sorted",
        "set",
        "list",
        "tuple",
        "enumerate",
        "zip",
        "sum",
        "max",
        "min",
        "any",
        "all",
        "reversed",
        "frozenset",
    ]
)
#: Calls whose result kind is fixed, by qualified name.
_CALL_KINDS: Final = {
    **{f"builtins.{t}": t for t in ("str", "int", "float", "bool", "list", "dict", "set")},
    "builtins.tuple": "tuple",
    "builtins.frozenset": "frozenset",
    "builtins.sorted": "list",
    "builtins.len": "int",
    "builtins.ord": "int",
    "builtins.repr": "str",
    "builtins.format": "str",
    "builtins.chr": "str",
    "builtins.hex": "str",
    "builtins.bin": "str",
    "builtins.any": "bool",
    "builtins.all": "bool",
    "builtins.isinstance": "bool",
    "builtins.callable": "bool",
    "builtins.hasattr": "bool",
    "json.dumps": "json-text",
    "collections.Counter": "collections.Counter",
    "collections.defaultdict": "collections.defaultdict",
    "collections.OrderedDict": "collections.OrderedDict",
    "collections.deque": "collections.deque",
    "queue.Queue": "queue.Queue",
    "queue.PriorityQueue": "queue.PriorityQueue",
    "heapq.nsmallest": "list",
    "time.time": "float",
    "time.perf_counter": "float",
    "time.monotonic": "float",
    "heapq.nlargest": "list",
    **{f"math.{f}": "float" for f in ("sqrt", "log", "exp", "sin", "cos", "hypot", "fsum")},
}
_STR_RESULT_METHODS: Final = (
    (_STR_METHODS - {"split", "rsplit", "splitlines", "partition"})
    - {
        "rpartition",
        "encode",
        "find",
        "rfind",
        "startswith",
        "endswith",
        "count",
        "index",
    }
    - {m for m in _STR_METHODS if m.startswith("is")}
)
_DATETIME_TEXT_METHODS: Final = frozenset({"strftime", "isoformat"})
#: Helpers whose returns are followed through calls, at most this deep.
_CALL_DEPTH: Final = 4


@dataclass(frozen=True)
class Inferred:
    """The builtin types a parameter can hold given its uses (None: nothing inferred),
    and the uses that say so, for messages."""

    types: frozenset[str] | None
    why: str
    json_text: bool = False


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _string(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _number(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _rebound(module: ParsedModule, function: cst.FunctionDef, name: str) -> bool:
    """Whether `name` is bound again inside `function` (flow is not followed, so any
    rebinding makes its uses unreadable)."""
    targets: list[cst.BaseExpression] = []
    for node in module.nodes(cst.Assign, within=function.body):
        targets.extend(t.target for t in node.targets)
    for bound in module.nodes(cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, within=function):
        targets.append(bound.target)
    targets += [n.target for n in module.nodes(cst.NamedExpr, within=function)]
    targets += [w.asname.name for w in module.nodes(cst.WithItem, within=function) if w.asname]
    inner = module.nodes(cst.FunctionDef, cst.Lambda, within=function.body)
    if any(_is_name(p.name, name) for node in inner for p in node.params.params):
        return True
    # `p[0] = x` and `p.a = x` use `p`; only a bare name (or one unpacked) rebinds it.
    return any(name in _bound_names(t) for t in targets)


_Use = tuple[frozenset[str] | None, str, cst.CSTNode]


def _uses(module: ParsedModule, function: cst.FunctionDef, name: str) -> Iterator[_Use]:
    """(types a use allows, what the use is, the node) for each telling use of `name`;
    None types: a use no builtin type explains."""
    negated = {
        id(u.expression)
        for u in module.nodes(cst.UnaryOperation, within=function.body)
        if isinstance(u.operator, cst.Not)
    }
    for call in module.nodes(cst.Call, within=function.body):
        func = call.func
        if isinstance(func, cst.Attribute) and _is_name(func.value, name):
            method = func.attr.value
            yield _METHODS.get(method), f"calls `{name}.{method}()`", call
        elif any(_is_name(a.value, name) for a in call.args):
            yield from _passed(module, call, name, id(call) in negated)
    for loop in module.nodes(cst.For, cst.CompFor, within=function.body):
        if _is_name(loop.iter, name):
            yield _CONTAINER, f"iterates over `{name}`", loop
    for assign in module.nodes(cst.Assign, within=function.body):
        unpacking = any(isinstance(t.target, (cst.Tuple, cst.List)) for t in assign.targets)
        if unpacking and _is_name(assign.value, name):
            yield _SEQUENCE | {"dict", "set"}, f"unpacks `{name}`", assign
    yield from _operator_uses(module, function, name)


def _passed(module: ParsedModule, call: cst.Call, name: str, negated: bool) -> Iterator[_Use]:
    """What passing `name` to `call` says. An `isinstance` check counts only negated
    (`if not isinstance(p, str): raise ...`, a guard): a plain one may be one branch of
    several (`if isinstance(p, str): ... elif isinstance(p, dict): ...`)."""
    args = [a.value for a in call.args]
    qualified = module.qualified(call.func)
    if "builtins.isinstance" in qualified:
        checked = _isinstance_types(args[1]) if len(args) == 2 else None
        if negated and checked and _is_name(args[0], name):
            yield checked, f"checks `{_code(call)}`", call
    elif "json.loads" in qualified:
        yield frozenset({"str"}), f"passes `{name}` to `json.loads`", call
    elif args and _is_name(args[0], name) and any(q.startswith("heapq.heap") for q in qualified):
        # heappush, heappop, heapify, heapreplace, heappushpop keep a list as a heap
        yield frozenset({"list"}), f"keeps `{name}` as a heap (`{sorted(qualified)[0]}`)", call
    elif (
        args
        and _is_name(args[0], name)
        and (qualified & _PATH_FUNCTIONS or any(q.startswith("os.path.") for q in qualified))
    ):
        yield frozenset({"str"}), f"passes `{name}` as a path to `{sorted(qualified)[0]}`", call
    elif "builtins.range" in qualified:
        yield frozenset({"int", "bool"}), f"passes `{name}` to `range`", call
    elif "builtins.len" in qualified:
        yield _CONTAINER, f"takes `len({name})`", call
    elif qualified & _ITERABLE_FUNCTIONS:
        shown = sorted(qualified & _ITERABLE_FUNCTIONS)[0].removeprefix("builtins.")
        yield _CONTAINER, f"passes `{name}` to `{shown}`", call
    elif any(q.startswith("math.") for q in qualified):
        yield _NUMBER, f"passes `{name}` to `{sorted(qualified)[0]}`", call


def _operator_uses(module: ParsedModule, function: cst.FunctionDef, name: str) -> Iterator[_Use]:
    for sub in module.nodes(cst.Subscript, within=function.body):
        if not _is_name(sub.value, name) or len(sub.slice) != 1:
            continue
        index = sub.slice[0].slice
        if isinstance(index, cst.Slice):
            yield _SEQUENCE, f"slices `{name}`", sub
        elif isinstance(index, cst.Index) and _string(index.value):
            yield frozenset({"dict"}), f"reads `{name}[{_code(index.value)}]`", sub
        elif isinstance(index, cst.Index) and (
            _number(index.value) or isinstance(index.value, cst.BinaryOperation)
        ):
            yield _SEQUENCE | {"dict", _DEQUE}, f"indexes `{name}[{_code(index.value)}]`", sub
    yield from _binary_uses(module, function, name)


def _binary_uses(module: ParsedModule, function: cst.FunctionDef, name: str) -> Iterator[_Use]:
    for op in module.nodes(cst.BinaryOperation, within=function.body):
        left, right = _is_name(op.left, name), _is_name(op.right, name)
        if not (left or right):
            continue
        other = op.right if left else op.left
        if isinstance(op.operator, cst.Add) and _string(other):
            yield frozenset({"str"}), f"joins `{name}` to a string literal", op
        elif _arithmetic(op, other):
            yield _NUMBER, f"computes `{_code(op)}`", op
    for comparison in module.nodes(cst.Comparison, within=function.body):
        ordering = (
            cst.LessThan,
            cst.LessThanEqual,
            cst.GreaterThan,
            cst.GreaterThanEqual,
            cst.Equal,
            cst.NotEqual,
        )
        items = [comparison.left, *(t.comparator for t in comparison.comparisons)]
        operators = [t.operator for t in comparison.comparisons]
        for i, target in enumerate(comparison.comparisons):
            pair = (items[i], items[i + 1])
            if not isinstance(operators[i], ordering) or not any(_is_name(p, name) for p in pair):
                continue
            if any(_number(p) for p in pair):
                yield _NUMBER, f"compares `{_code(comparison)}`", target


def _isinstance_types(spec: cst.BaseExpression) -> frozenset[str] | None:
    """The builtin types `isinstance(p, spec)` admits (None: a class of another kind)."""
    names = [e.value for e in spec.elements] if isinstance(spec, cst.Tuple) else [spec]
    found = set()
    for node in names:
        if not isinstance(node, cst.Name) or node.value not in _BUILTIN_TYPES:
            return None
        found |= {node.value} | ({"bool"} if node.value == "int" else set())
    return frozenset(found)


def _arithmetic(op: cst.BinaryOperation, other: cst.BaseExpression) -> bool:
    """Whether an operation on a parameter takes a number: arithmetic with a number
    literal (but `%` formats strings and `*` repeats sequences), or true division, floor
    division or a power with anything but a string (a `Path / "name"` joins paths)."""
    if _number(other):
        return not isinstance(op.operator, (cst.Modulo, cst.Multiply))
    numeric = (cst.Divide, cst.FloorDivide, cst.Power)
    return isinstance(op.operator, numeric) and not _string(other)


def _code(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node)
    return text if len(text) <= 40 else text[:37] + "..."


def param_types(ref: FunctionRef, name: str) -> Inferred:
    """The builtin types parameter `name` of `ref` can hold, judged from its uses."""
    module, function = ref.module, ref.node
    if _rebound(module, function, name):
        return Inferred(None, f"`{name}` is rebound in the function; its uses are not read")
    allowed: frozenset[str] | None = None
    reasons: list[str] = []
    json_text = False
    for types, why, node in _uses(module, function, name):
        shown = f"{why} (line {module.line_of(node)})"
        if types is None:
            return Inferred(None, f"{shown}, which no builtin type explains")
        json_text = json_text or "json.loads" in why
        allowed = types if allowed is None else allowed & types
        if len(reasons) < 3 and why not in (r.rsplit(" (line", 1)[0] for r in reasons):
            reasons.append(shown)
        if not allowed:
            return Inferred(None, f"its uses disagree: {'; '.join(reasons)}")
    if allowed is None:
        return Inferred(None, f"no use of `{name}` tells its type")
    return Inferred(allowed, "; ".join(reasons), json_text)


# --- returns ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ReturnKind:
    """The kind of value the normal path returns (`tuple[set, int, ?]`; None: unknown),
    and the statement that decided it."""

    kind: str | None
    why: str


class _Kinds:
    """Kinds of expressions inside one function, following local names."""

    def __init__(
        self,
        module: ParsedModule,
        function: cst.FunctionDef,
        calling: frozenset[str] = frozenset(),
    ) -> None:
        self.module = module
        self.function = function
        self.classes = {qual for qual, node in module.definitions if isinstance(node, cst.ClassDef)}
        #: The module's own functions, whose returns a call of them is read as.
        self.functions = {
            qual: node
            for qual, node in module.definitions
            if isinstance(node, cst.FunctionDef) and "." not in qual
        }
        #: Functions whose return is being read (a call back into one is unknown).
        self.calling = calling | {function.name.value}
        self._assigned: dict[str, list[cst.BaseExpression | None]] = {}
        self._augmented: dict[str, list[cst.AugAssign]] = {}
        self._collect()

    def _collect(self) -> None:
        """Every value each local name is assigned (None: bound some other way)."""
        module, body = self.module, self.function.body
        for node in module.nodes(cst.Assign, within=body):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self._assigned.setdefault(target.target.value, []).append(node.value)
                else:  # unpacking; `d[k] = v` and `o.a = v` bind no name
                    self._unknown(_bound_names(target.target))
        for ann in module.nodes(cst.AnnAssign, within=body):
            if isinstance(ann.target, cst.Name):
                self._assigned.setdefault(ann.target.value, []).append(ann.value)
        for aug in module.nodes(cst.AugAssign, within=body):
            if isinstance(aug.target, cst.Name):
                self._augmented.setdefault(aug.target.value, []).append(aug)
        others: list[cst.BaseExpression] = [n.target for n in module.nodes(cst.For, within=body)]
        others += [n.target for n in module.nodes(cst.NamedExpr, within=body)]
        others += [w.asname.name for w in module.nodes(cst.WithItem, within=body) if w.asname]
        for other in others:
            self._unknown(_bound_names(other))
        self.params = {p.name.value for p in _all_params(self.function.params)}
        self._unknown(sorted(self.params))

    def _unknown(self, names: list[str]) -> None:
        for name in names:
            self._assigned.setdefault(name, []).append(None)

    def of(self, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> str | None:
        """The kind of `expr`, or None when the structure does not say."""
        simple = _literal_kind(expr)
        if simple is not None:
            return simple
        if isinstance(expr, cst.Name):
            return self._name(expr.value, seen)
        if isinstance(expr, cst.Tuple):
            inner = [self.of(e.value, seen) or "?" for e in expr.elements]
            if any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return "tuple"
            return f"tuple[{', '.join(inner)}]" if inner else "tuple"
        if isinstance(expr, cst.ListComp):
            element = self.of(expr.elt, seen)
            return f"list[{element}]" if element and element.startswith("list") else "list"
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, seen)
        if isinstance(expr, cst.IfExp):
            return self._either(expr, seen)
        if isinstance(expr, cst.Call):
            return self._call(expr, seen)
        return None

    def _either(self, expr: cst.IfExp, seen: frozenset[str]) -> str | None:
        """`a if c else b`: the kind both sides have; a None side is a fallback for
        nothing found (the other side's kind stands), and so is a literal facing a side
        the structure leaves open (`heap[0][1] if heap else ""`: a str)."""
        body, orelse = self.of(expr.body, seen), self.of(expr.orelse, seen)
        if body == orelse:
            return body
        for one, other, node in ((body, orelse, expr.body), (orelse, body, expr.orelse)):
            if one == "None" and other is not None:
                return other
            if other is None and one not in (None, "None") and _literal_kind(node) is not None:
                return one
        return None

    def _name(self, name: str, seen: frozenset[str]) -> str | None:
        values = self._assigned.get(name)
        if not values:
            return self._module_name(name)
        if name in self.params and values == [None]:
            # A parameter never rebound: the one type its uses leave, if they leave one.
            ref = FunctionRef(self.module, self.function, self.function.name.value)
            used = param_types(ref, name).types
            return next(iter(used)) if used is not None and len(used) == 1 else None
        if name in self.params and values.count(None) == 1 and self._defaults_to_none(name):
            # `def f(items, db=None): if db is None: db = {}`: the value it is given
            # when none is passed shows its kind.
            given = {self.of(v, seen | {name}) for v in values if v is not None}
            return given.pop() if len(given) == 1 else None
        if name in seen or None in values:
            return None
        kinds = {self.of(v, seen | {name}) for v in values if v is not None}
        kind = kinds.pop() if len(kinds) == 1 else None
        for aug in self._augmented.get(name, []):
            kind = _augmented(kind, aug.operator, self.of(aug.value, seen | {name}))
        return kind

    def _defaults_to_none(self, name: str) -> bool:
        return any(
            p.name.value == name and isinstance(p.default, cst.Name) and p.default.value == "None"
            for p in _all_params(self.function.params)
        )

    def _module_name(self, name: str) -> str | None:
        """A name the function does not bind: the module's, when every module-level
        assignment of it is a literal or display of one kind (`DATABASE = {}`)."""
        values = [
            small.value
            for statement in self.module.tree.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
            if isinstance(small, cst.Assign)
            and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            )
        ]
        kinds = {_literal_kind(v) for v in values}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None

    def _binary(self, expr: cst.BinaryOperation, seen: frozenset[str]) -> str | None:
        left, right = self.of(expr.left, seen), self.of(expr.right, seen)
        operator = expr.operator
        if isinstance(operator, cst.Divide):
            # numbers divide to a float; a timedelta, Path or array divides to itself
            return "float" if left in _NUMBERS and right in (*_NUMBERS, None) else None
        if isinstance(operator, cst.Modulo) and left == "str":
            return "str"
        if isinstance(operator, cst.Add) and "str" in (left, right):
            return "str"
        if left == right and left in ("int", "float", "str", "list", "number"):
            return left
        if left in _NUMBERS and right in _NUMBERS:
            return "float" if "float" in (left, right) else "number"
        return None

    def _call(self, call: cst.Call, seen: frozenset[str]) -> str | None:
        func = call.func
        qualified = self.module.qualified(func)
        for name in qualified:
            if name in _CALL_KINDS:
                return _CALL_KINDS[name]
            if name.removeprefix(".") in self.classes:
                return name.rpartition(".")[2]
        if isinstance(func, cst.Name) and func.value in self.classes:
            return func.value
        if (
            isinstance(func, cst.Name)
            and func.value in self.functions
            and func.value not in self.calling
            and len(self.calling) < _CALL_DEPTH
        ):
            # A helper of the code's own: what its normal path returns.
            called = FunctionRef(self.module, self.functions[func.value], func.value)
            return return_kind(called, self.calling).kind
        if isinstance(func, cst.Attribute):
            return self._method(func, seen)
        if "builtins.sum" in qualified and len(call.args) == 1:
            added = call.args[0].value
            if isinstance(added, (cst.GeneratorExp, cst.ListComp)) and isinstance(
                added.elt, cst.Integer
            ):
                return "int"  # `sum(1 for u in users if u.active)` counts
            return "number"  # without a start, sum adds numbers (0 + a timedelta fails)
        if "builtins.round" in qualified and call.args:
            if len(call.args) == 1:
                return "int"
            number = self.of(call.args[0].value, seen)
            return number if number in ("int", "float", "number") else None
        return None

    def _method(self, func: cst.Attribute, seen: frozenset[str]) -> str | None:
        """The kind a method call returns, for methods of str and of known containers."""
        method = func.attr.value
        if method in _DATETIME_TEXT_METHODS:
            return "datetime-text"
        receiver = self.of(func.value, seen)
        if receiver in ("str", "json-text", "datetime-text"):
            if method in ("split", "rsplit", "splitlines"):
                return "list"
            if method in _STR_RESULT_METHODS or method == "join":
                return "str"
        if method == "copy" and receiver in ("list", "dict", "set"):
            return receiver
        return None


_LITERALS: Final[dict[type[cst.CSTNode], str]] = {
    cst.ConcatenatedString: "str",
    cst.FormattedString: "str",
    cst.Integer: "int",
    cst.Float: "float",
    cst.List: "list",
    cst.Dict: "dict",
    cst.DictComp: "dict",
    cst.Set: "set",
    cst.SetComp: "set",
    cst.GeneratorExp: "generator",
    cst.Comparison: "bool",
}
_CONSTANTS: Final = {"True": "bool", "False": "bool", "None": "None"}


def _bound_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds: `a`, and those of `a, (b, *c)`."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _bound_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


def _augmented(kind: str | None, operator: cst.BaseAugOp, value: str | None) -> str | None:
    """The kind of a name after `name op= value`: numbers widen to float, a list, str
    or set keeps its kind under its own operators; anything else is unknown."""
    if kind in ("int", "float") and value in ("int", "float", "bool"):
        return (
            "float" if "float" in (kind, value) or isinstance(operator, cst.DivideAssign) else kind
        )
    if kind in ("list", "str") and isinstance(operator, cst.AddAssign):
        return kind
    set_operators = (cst.BitOrAssign, cst.BitAndAssign, cst.SubtractAssign, cst.BitXorAssign)
    if kind == "set" and isinstance(operator, set_operators):
        return kind
    return None


def _literal_kind(expr: cst.BaseExpression) -> str | None:
    """The kind of a literal, display or operator whose result type its form fixes."""
    if isinstance(expr, cst.SimpleString):
        return "bytes" if expr.prefix.lower().startswith(("b", "rb")) else "str"
    if isinstance(expr, cst.Name):
        return _CONSTANTS.get(expr.value)
    if isinstance(expr, cst.UnaryOperation):
        if isinstance(expr.operator, cst.Not):
            return "bool"
        if isinstance(expr.operator, cst.Minus) and _number(expr.expression):
            return _literal_kind(expr.expression)
        return None
    return _LITERALS.get(type(expr))


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    found += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return found


def _final_return(body: cst.BaseSuite) -> cst.Return | cst.If | None:
    """Where the normal path ends: the body's last statement if it is a return, or the
    last statement of a `try` or `with` body that is; a final `if` (its branches must
    agree); None when the body ends in anything else."""
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    last = body.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        returns = [s for s in last.body if isinstance(s, cst.Return)]
        return returns[-1] if returns else None
    if isinstance(last, (cst.Try, cst.With)):
        return _final_return(last.body)
    return last if isinstance(last, cst.If) else None


def return_kind(ref: FunctionRef, calling: frozenset[str] = frozenset()) -> ReturnKind:
    """The kind the normal path of `ref` returns, judged from structure alone (`calling`:
    the functions whose returns are being read, when `ref` is a helper one calls)."""
    module, function = ref.module, ref.node
    if module.nodes(cst.Yield, within=function.body) and not _nested_only(
        module, function, cst.Yield
    ):
        return ReturnKind("generator", "the function yields")
    kinds = _Kinds(module, function, calling)
    last = _final_return(function.body)
    if isinstance(last, cst.If):
        return _branches(kinds, last)
    if last is None:
        has_value = any(
            r.value is not None
            for r in module.nodes(cst.Return, within=function.body)
            if module.scope_of(r) is function
        )
        if has_value:
            return ReturnKind(None, "its last statement is not a return")
        return ReturnKind("None", "it has no `return` with a value")
    if last.value is None:
        return ReturnKind("None", f"`return` at line {module.line_of(last)}")
    kind = kinds.of(last.value)
    return ReturnKind(kind, f"`return {_code(last.value)}` (line {module.line_of(last)})")


def _branches(kinds: _Kinds, last: cst.If) -> ReturnKind:
    """An if/else at the end: the kind when every branch's final return agrees."""
    found: list[str | None] = []
    branch: cst.If | cst.Else = last
    while True:
        end = _final_return(branch.body)
        if isinstance(end, cst.If):
            found.append(_branches(kinds, end).kind)
        elif end is None or end.value is None:
            return ReturnKind(None, "a branch at the end does not return a value")
        else:
            found.append(kinds.of(end.value))
        if isinstance(branch, cst.Else):
            break
        if branch.orelse is None:
            return ReturnKind(None, "the final `if` has no `else`")
        branch = branch.orelse
    if len(set(found)) == 1 and found[0] is not None:
        return ReturnKind(found[0], f"every branch of the final `if` returns a {found[0]}")
    merged = _merged(found)
    if merged is not None:
        return ReturnKind(merged, f"the branches of the final `if` agree on a {merged}")
    return ReturnKind(None, "the branches of the final `if` return different kinds")


def _merged(kinds: list[str | None]) -> str | None:
    """The kind branches agree on where each is known: a branch returning None is a
    fallback (the others decide), and tuples of one length agree position by position,
    a position one branch leaves open or fills with None taking the others' kind
    (`return box, True, label` and `return None, False, ""`: a tuple[tuple, bool, str])."""
    if not kinds or any(k is None for k in kinds):
        return None
    merged: str | None = "None"
    for kind in kinds:
        merged = _merge_two(merged, kind) if merged is not None else None
    return None if merged in (None, "None", "?") else merged


def _merge_two(one: str, other: str | None) -> str | None:
    if other is None:
        return None
    if one == other or other in ("?", "None"):
        return one
    if one in ("?", "None"):
        return other
    left, right = _tuple_items(one), _tuple_items(other)
    if left is None or right is None or len(left) != len(right):
        return None
    items = [_merge_two(a, b) for a, b in zip(left, right, strict=True)]
    if any(i is None for i in items):
        return None
    return f"tuple[{', '.join(i for i in items if i is not None)}]"


def _tuple_items(kind: str) -> list[str] | None:
    """The kinds inside `tuple[a, b[c, d]]`, split at its top level; None: no tuple."""
    if not (kind.startswith("tuple[") and kind.endswith("]")):
        return None
    items, depth, current = [], 0, ""
    for char in kind[len("tuple[") : -1]:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    return [*items, current.strip()]


def _nested_only(module: ParsedModule, function: cst.FunctionDef, kind: type[cst.CSTNode]) -> bool:
    """Whether every `kind` node below `function` belongs to a nested definition."""
    return all(module.scope_of(n) is not function for n in module.nodes(kind, within=function.body))

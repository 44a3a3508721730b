"""Structural building blocks the recognisers share: source text of nodes, integer
constants (through the names they are bound to), loops and what they contain, calls,
assignments, element swaps, and recursion."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.recogniser import Code
from pytest_codeif.code.cst import ParsedModule

_EMPTY: Final = cst.Module([])
LOOPS: Final = (cst.For, cst.While)
#: Loops and the comprehensions that iterate like them (a comprehension's element is
#: outside its `CompFor`, so the whole comprehension counts).
ITERATIONS: Final = (
    cst.For,
    cst.While,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
#: Results of integer arithmetic on constants are kept below this many bits.
_MAX_BITS: Final = 4096


def source(node: cst.CSTNode) -> str:
    """The source text of `node`."""
    return _EMPTY.code_for_node(node)


def shown(node: cst.CSTNode, limit: int = 60) -> str:
    """The source text of `node` on one line, for evidence (cut at `limit` characters)."""
    text = " ".join(re.sub(r"#[^\n]*", "", source(node)).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: A run of whitespace, with the word characters on either side (if any).
_SPACE: Final = re.compile(r"(?:(?<=(\w))|(?<!\w))\s+(?:(?=(\w))|(?!\w))")


def flat(node: cst.CSTNode) -> str:
    """The source text of `node` without comments and without whitespace, except one
    space between words (`(lo+hi)//2`, `slow is fast`), for comparing shapes."""
    text = re.sub(r"#[^\n]*", "", source(node)).strip()
    return _SPACE.sub(lambda m: " " if m.group(1) and m.group(2) else "", text)


def dotted(node: cst.CSTNode) -> str | None:
    """`x`, `self.x`, `a.b.c` for names and attribute chains; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


def last_name(node: cst.CSTNode) -> str | None:
    """The last part of a name or attribute chain: `x` for `x` and for `self.a.x`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def root(node: cst.CSTNode) -> str | None:
    """The container a subscript reads: `a` for `a[i][j]`, `self.d` for `self.d[k]`."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return dotted(node)


def indexes(node: cst.CSTNode) -> list[str]:
    """The index texts of a subscript chain, outermost last: `a[i][j]` -> ["i", "j"]."""
    found: list[str] = []
    while isinstance(node, cst.Subscript):
        found[:0] = [flat(element.slice) for element in node.slice]
        node = node.value
    return found


Constants = dict[str, set[int]]


def int_value(node: cst.CSTNode, env: Constants | None = None) -> int | None:
    """The integer `node` evaluates to, when it is built of integer literals, arithmetic
    and names bound to exactly one constant in `env`; None otherwise."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = int_value(node.expression, env)
        return None if inner is None else -inner
    if isinstance(node, (cst.Name, cst.Attribute)) and env is not None:
        key = last_name(node)
        values = env.get(key or "", set())
        return next(iter(values)) if len(values) == 1 else None
    if isinstance(node, cst.BinaryOperation):
        left, right = int_value(node.left, env), int_value(node.right, env)
        if left is None or right is None:
            return None
        return _arith(node.operator, left, right)
    return None


def _arith(operator: cst.BaseBinaryOp, left: int, right: int) -> int | None:
    try:
        if isinstance(operator, cst.Power):
            if right < 0 or right > _MAX_BITS or left.bit_length() * right > _MAX_BITS:
                return None
            return int(left**right)
        if isinstance(operator, cst.LeftShift):
            return left << right if 0 <= right <= _MAX_BITS else None
        simple: dict[type[cst.BaseBinaryOp], Callable[[], int]] = {
            cst.Add: lambda: left + right,
            cst.Subtract: lambda: left - right,
            cst.Multiply: lambda: left * right,
            cst.BitOr: lambda: left | right,
            cst.BitAnd: lambda: left & right,
            cst.BitXor: lambda: left ^ right,
            cst.FloorDivide: lambda: left // right,
            cst.RightShift: lambda: left >> right,
            cst.Modulo: lambda: left % right,
        }
        compute = simple.get(type(operator))
        value = compute() if compute else None
    except (ZeroDivisionError, ValueError):
        return None
    return value if value is None or value.bit_length() <= _MAX_BITS else None


def int_values(node: cst.CSTNode, env: Constants) -> set[int]:
    """Every integer `node` may be: a name bound to several constants (in different
    branches: `PRIME = 16777619` or `PRIME = 1099511628211`) may be any of them."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        return set(env.get(last_name(node) or "", set()))
    value = int_value(node, env)
    return set() if value is None else {value}


def constants(code: Code) -> Constants:
    """Every name (by its last part: `FNV_PRIME` for `self.FNV_PRIME`) bound to an integer
    constant in scope, in an assignment or as a parameter's default, with each value."""
    env: Constants = {}
    pending: list[tuple[str, cst.CSTNode]] = []
    for _, node in code.nodes(cst.Assign, cst.AnnAssign, cst.Param):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                pending.extend(_bound(target.target, node.value))
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            pending.extend(_bound(node.target, node.value))
        elif isinstance(node, cst.Param) and node.default is not None:
            pending.append((node.name.value, node.default))
    for _ in range(2):  # constants defined from constants (`PRIME = 2**24 + 2**8 + 0x93`)
        for name, value in pending:
            number = int_value(value, env)
            if number is not None:
                env.setdefault(name, set()).add(number)
    return env


def _bound(target: cst.CSTNode, value: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        if len(target.elements) == len(value.elements):
            for t, v in zip(target.elements, value.elements, strict=True):
                yield from _bound(t.value, v.value)
        return
    name = last_name(target)
    if name:
        yield name, value


def bindings(store: Store) -> list[tuple[str, cst.CSTNode]]:
    """The (name, value) pairs a plain assignment binds, tuples unpacked
    (`pivot, i = a[hi], lo` binds pivot to `a[hi]` and i to `lo`)."""
    if store.op is not None:
        return []
    return list(_bound(store.target, store.value))


def integers(code: Code) -> set[int]:
    """Every integer literal in scope and every constant a name is bound to."""
    found = {v for m, n in code.nodes(cst.Integer) if (v := int_value(n)) is not None}
    for values in constants(code).values():
        found |= values
    return found


def within(module: ParsedModule, outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    """Whether `inner` is `outer` or below it."""
    return any(n is inner for n in module.nodes(type(inner), within=outer))


def enclosing(
    module: ParsedModule, node: cst.CSTNode, types: tuple[type[cst.CSTNode], ...]
) -> list[cst.CSTNode]:
    """The nodes of `types` that contain `node` (not `node` itself), outermost first."""
    return [
        outer for outer in module.nodes(*types) if outer is not node and within(module, outer, node)
    ]


def loops_in(module: ParsedModule, node: cst.CSTNode) -> list[cst.CSTNode]:
    """The loops and comprehension loops below `node`, not counting `node` itself."""
    return [n for n in module.nodes(*ITERATIONS, within=node) if n is not node]


def in_loop(module: ParsedModule, node: cst.CSTNode) -> bool:
    """Whether `node` runs inside a loop or a comprehension."""
    return bool(enclosing(module, node, ITERATIONS))


def calls(module: ParsedModule, within_node: cst.CSTNode | None = None) -> list[cst.Call]:
    return list(module.nodes(cst.Call, within=within_node))


def method(call: cst.Call) -> str | None:
    """`m` for `x.m(...)`."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword and a.keyword.value == name), None)


def calling(code: Code, *qualified: str) -> list[tuple[ParsedModule, cst.Call]]:
    """The calls in scope to any of these qualified names (`builtins.sorted`)."""
    wanted = set(qualified)
    return [
        (m, n)
        for m, n in code.nodes(cst.Call)
        if isinstance(n, cst.Call) and m.qualified(n.func) & wanted
    ]


def method_calls(code: Code, *names: str) -> list[tuple[ParsedModule, cst.Call]]:
    """The calls in scope of a method with one of these names (`x.popleft()`)."""
    return [
        (m, n) for m, n in code.nodes(cst.Call) if isinstance(n, cst.Call) and method(n) in names
    ]


@dataclass(frozen=True)
class Store:
    """An assignment of `value` to `target`: `x = v`, `x: T = v`, `x += v` (with `op`)."""

    target: cst.CSTNode
    value: cst.CSTNode
    statement: cst.CSTNode
    op: cst.BaseAugOp | None = None


def stores(module: ParsedModule, node: cst.CSTNode) -> list[Store]:
    """Every assignment below `node` (each target of a chained `a = b = v` apart)."""
    found: list[Store] = []
    for n in module.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign, within=node):
        if isinstance(n, cst.Assign):
            found.extend(Store(t.target, n.value, n) for t in n.targets)
        elif isinstance(n, cst.AnnAssign) and n.value is not None:
            found.append(Store(n.target, n.value, n))
        elif isinstance(n, cst.AugAssign):
            found.append(Store(n.target, n.value, n, n.operator))
    return found


@dataclass(frozen=True)
class Swap:
    """Two elements of one container exchanged: `a[i], a[j] = a[j], a[i]`, or through a
    temporary (`t = a[i]; a[i] = a[j]; a[j] = t`)."""

    statement: cst.CSTNode
    container: str
    first: str
    second: str


def swaps(module: ParsedModule, node: cst.CSTNode) -> list[Swap]:
    """Every swap of two elements of one container below `node`."""
    found: list[Swap] = []
    for n in module.nodes(cst.Assign, within=node):
        if not isinstance(n, cst.Assign) or len(n.targets) != 1:
            continue
        target, value = n.targets[0].target, n.value
        if not (isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple)):
            continue
        if len(target.elements) != 2 or len(value.elements) != 2:
            continue
        left = [e.value for e in target.elements]
        right = [e.value for e in value.elements]
        if all(isinstance(x, cst.Subscript) for x in left + right):
            names = {root(x) for x in left + right}
            if (
                len(names) == 1
                and flat(left[0]) == flat(right[1])
                and flat(left[1]) == flat(right[0])
            ):
                container = names.pop() or ""
                found.append(Swap(n, container, _last_index(left[0]), _last_index(left[1])))
    found.extend(_temp_swaps(module, node))
    return found


def _last_index(node: cst.CSTNode) -> str:
    found = indexes(node)
    return found[-1] if found else ""


def _temp_swaps(module: ParsedModule, node: cst.CSTNode) -> Iterator[Swap]:
    for block in module.nodes(cst.IndentedBlock, within=node):
        if not isinstance(block, cst.IndentedBlock):
            continue
        small = [
            s.body[0]
            for s in block.body
            if isinstance(s, cst.SimpleStatementLine)
            and len(s.body) == 1
            and isinstance(s.body[0], cst.Assign)
            and len(s.body[0].targets) == 1
        ]
        assigns = [a for a in small if isinstance(a, cst.Assign)]
        for a, b, c in zip(assigns, assigns[1:], assigns[2:], strict=False):
            temp, first = flat(a.targets[0].target), flat(a.value)
            if (
                flat(b.targets[0].target) == first
                and isinstance(b.value, cst.Subscript)
                and flat(c.targets[0].target) == flat(b.value)
                and flat(c.value) == temp
                and isinstance(a.value, cst.Subscript)
                and root(a.value) == root(b.value)
            ):
                yield Swap(b, root(a.value) or "", _last_index(a.value), _last_index(b.value))


def parameters(function: cst.FunctionDef) -> list[str]:
    """The names of a function's parameters, in order (self and cls included)."""
    p = function.params
    every = [*p.posonly_params, *p.params, *p.kwonly_params]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            every.append(star)
    return [param.name.value for param in every]


def self_calls(module: ParsedModule, function: cst.FunctionDef) -> list[cst.Call]:
    """The calls in `function`'s body to itself (`f(...)`, `self.f(...)`, `cls.f(...)`)."""
    name = function.name.value
    found = []
    for call in module.nodes(cst.Call, within=function.body):
        if not isinstance(call, cst.Call):
            continue
        func = call.func
        if (isinstance(func, cst.Name) and func.value == name) or (
            isinstance(func, cst.Attribute)
            and func.attr.value == name
            and isinstance(func.value, cst.Name)
            and func.value.value in ("self", "cls")
        ):
            found.append(call)
    return found


def function_of(module: ParsedModule, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The innermost function containing `node`."""
    scope = module.scope_of(node)
    while scope is not None and not isinstance(scope, cst.FunctionDef):
        scope = module.scope_of(scope)
    return scope


_COPIES: Final = re.compile(
    r"^(?:list|tuple|copy\.copy|copy\.deepcopy|deepcopy|sorted)\((\w+)\)$"
    r"|^(\w+)\[:\]$|^(\w+)\.copy\(\)$|^\[\*(\w+)\]$"
)


def copy_of(value: cst.CSTNode) -> str | None:
    """The name `value` copies (`list(a)`, `a[:]`, `a.copy()`, `[x for x in a]`,
    `[*a]`), if it is a copy of a name."""
    if isinstance(value, cst.ListComp) and isinstance(value.for_in.iter, cst.Name):
        element, target = value.elt, value.for_in.target
        if flat(element) == flat(target) and not value.for_in.ifs and not value.for_in.inner_for_in:
            return value.for_in.iter.value
        return None
    match = _COPIES.match(flat(value))
    if not match:
        return None
    return next((g for g in match.groups() if g), None)

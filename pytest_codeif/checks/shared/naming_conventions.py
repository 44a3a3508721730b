"""Naming conventions (snake_case, camelCase, ...) and the named things of a module by kind
(class, function, constant, type alias...): what the `naming` and `declarations` checks
judge, and how the `exemplar` check compares names."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.base import Undecidable
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.safe_regex import SubjectTooLong, compile_pattern

#: Convention name -> the pattern a name must match, leading/trailing underscores aside.
CONVENTIONS: Final = {
    "snake_case": re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*"),
    "camelCase": re.compile(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)*"),
    "PascalCase": re.compile(r"([A-Z][a-z0-9]*)+"),
    "UPPER_CASE": re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*"),
}
KINDS: Final = (
    "class",
    "function",
    "method",
    "argument",
    "variable",
    "constant",
    "attribute",
    "type-variable",
    "type-alias",
)
#: Methods whose names a base class or protocol imposes; never judged.
IMPOSED: Final = frozenset(
    {"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown"}
)
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)
#: What makes a type variable (`T = TypeVar("T")`), by the called name's last part.
_TYPE_VARIABLE_FACTORIES: Final = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple"})
#: Generic types whose subscription is a type, not a value (`Pair = tuple[int, int]`):
#: typing's, collections.abc's and the builtins' (by last part, `typing.Union` too).
_GENERICS: Final = frozenset(
    """Annotated AbstractSet AsyncGenerator AsyncIterable AsyncIterator Awaitable
    Callable ChainMap Collection Concatenate Container Coroutine Counter DefaultDict
    Deque Dict FrozenSet Generator ItemsView Iterable Iterator KeysView List Literal
    Mapping MappingView MutableMapping MutableSequence MutableSet Optional OrderedDict
    Reversible Sequence Set Tuple Type TypeGuard TypeIs Union ValuesView defaultdict
    deque dict frozenset list set tuple type""".split()  # noqa: SIM905 - a list of words
)
#: Names that are types, whatever the module imports: a `|` of them is a union type.
_PLAIN_TYPES: Final = frozenset(
    {"None", "bool", "bytearray", "bytes", "complex", "float", "int", "object", "str"}
)


def follows(name: str, rule: str | Mapping[str, str]) -> bool:
    """Whether `name` follows `rule`: a convention name or `{pattern: regex}`.

    A task's pattern meets names the code under evaluation chose, so it is matched by a
    linear-time engine (`safe_regex`); the built-in conventions cannot backtrack."""
    if not isinstance(rule, str):
        try:
            return compile_pattern(rule["pattern"]).fullmatch(name)
        except SubjectTooLong as exc:
            raise Undecidable("too-large", f"a name of {exc.length} characters: {exc}") from None
    core = name.strip("_")
    return not core or CONVENTIONS[rule].fullmatch(core) is not None


def is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation):
        return is_literal(node.expression)
    if isinstance(node, cst.Tuple):
        return all(isinstance(e, cst.Element) and is_literal(e.value) for e in node.elements)
    return False


def _bound_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    """Names an assignment target binds (`a`, `a, (b, *c)`), not attributes/subscripts."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def named_things(module: ParsedModule) -> Iterator[tuple[str, cst.Name]]:
    """(kind, name node) for every identifier the code defines, by kind."""
    constants = _constants(module)
    declared_global = _declared_global(module)
    for node in module.walk():
        scope = module.scope_of(node)
        if isinstance(node, cst.ClassDef):
            yield "class", node.name
        elif isinstance(node, cst.FunctionDef):
            name = node.name.value
            dunder = name.startswith("__") and name.endswith("__")
            if not dunder and name not in IMPOSED:
                yield ("method" if isinstance(scope, cst.ClassDef) else "function"), node.name
        elif isinstance(node, cst.Param):
            if node.name.value not in ("self", "cls"):
                yield "argument", node.name
        elif isinstance(node, cst.TypeParam):  # `def first[T](...)`, `class Box[T]` (3.12)
            yield "type-variable", node.param.name
        elif isinstance(node, cst.TypeAlias):  # `type Pair = tuple[int, int]` (3.12)
            yield "type-alias", node.name
        elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            yield from _assignment(node, scope, declared_global, constants)
        elif isinstance(node, (cst.For, cst.CompFor)):
            yield from (("variable", n) for n in _bound_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            yield from (("variable", n) for n in _bound_names(node.asname.name))
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            yield "variable", node.target


def _assignment(
    node: cst.Assign | cst.AnnAssign | cst.AugAssign,
    scope: cst.FunctionDef | cst.ClassDef | None,
    declared_global: Mapping[int, frozenset[str]],
    constants: set[int],
) -> Iterator[tuple[str, cst.Name]]:
    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
    where = _Where(
        at_top=not isinstance(scope, cst.FunctionDef),
        module_level=scope is None,
        globals_here=declared_global.get(id(scope), frozenset()),
    )
    for target in targets:
        yield from _assigned(node, target, where, constants)


@dataclass(frozen=True)
class _Where:
    """Where an assignment is: outside any function (`at_top`: module or class body), at
    module level, and which names its function declares `global`."""

    at_top: bool
    module_level: bool
    globals_here: frozenset[str]


def _assigned(
    statement: cst.Assign | cst.AnnAssign | cst.AugAssign,
    target: cst.BaseExpression,
    where: _Where,
    constants: set[int],
) -> Iterator[tuple[str, cst.Name]]:
    """The kind of each name `statement` binds through `target`: at module or class level
    (or through a `global` declaration), an UPPER_CASE name is a constant whatever its
    value, as is a name bound once to a literal; type variables and aliases are known
    by their value (or `TypeAlias` annotation), not by how they are spelt."""
    if (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
    ):
        yield "attribute", target.attr
        return
    type_kind = _type_kind(statement, where.module_level) if isinstance(target, cst.Name) else None
    for name in _bound_names(target):
        if name.value == "_":
            continue
        if type_kind is not None:
            yield type_kind, name
        elif (where.at_top or name.value in where.globals_here) and _upper(name.value):
            yield "constant", name
        else:
            yield ("constant" if id(name) in constants else "variable"), name


def _type_kind(
    statement: cst.Assign | cst.AnnAssign | cst.AugAssign, module_level: bool
) -> str | None:
    """`type-variable` or `type-alias` for a statement binding one such name, else None."""
    if isinstance(statement, cst.AugAssign):
        return None
    if isinstance(statement, cst.AnnAssign) and _last_name(statement.annotation.annotation) == (
        "TypeAlias"
    ):
        return "type-alias"
    value = statement.value
    if isinstance(value, cst.Call) and _last_name(value.func) in _TYPE_VARIABLE_FACTORIES:
        return "type-variable"
    # Unannotated, a type alias is one only where type checkers take it for one: a
    # module-level assignment of a type expression (`Row = list[int]`).
    if module_level and isinstance(statement, cst.Assign) and value is not None:
        return "type-alias" if _is_type_expression(value) else None
    return None


def _last_name(node: cst.BaseExpression) -> str | None:
    """`Name` of `Name` or `a.b.Name`; None for any other expression."""
    if isinstance(node, cst.Name):
        return node.value
    return node.attr.value if isinstance(node, cst.Attribute) else None


def _is_type_expression(node: cst.BaseExpression) -> bool:
    """A subscripted generic (`list[int]`, `Optional[str]`) or a union with `|` of which
    every operand is a name, a string or a type and one at least a type (`int | None`,
    `User | None`); `FLAG_A | FLAG_B` is a value."""
    if isinstance(node, cst.Subscript):
        return _last_name(node.value) in _GENERICS
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr)):
        return False
    operands = list(_union_operands(node))
    return all(
        isinstance(o, (cst.Name, cst.Attribute, cst.SimpleString)) or _is_type_expression(o)
        for o in operands
    ) and any(
        _is_type_expression(o) or (isinstance(o, cst.Name) and o.value in _PLAIN_TYPES)
        for o in operands
    )


def _union_operands(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        yield from _union_operands(node.left)
        yield from _union_operands(node.right)
    else:
        yield node


def _upper(name: str) -> bool:
    """Spelt UPPER_CASE (leading/trailing underscores aside), as PEP 8 writes constants."""
    return bool(name.strip("_")) and follows(name, "UPPER_CASE")


def _declared_global(module: ParsedModule) -> dict[int, frozenset[str]]:
    """Per function (by node id), the names its `global` statements declare: binding
    them binds the module's name."""
    found: dict[int, set[str]] = {}
    for node in module.walk():
        if isinstance(node, cst.Global):
            scope = module.scope_of(node)
            found.setdefault(id(scope), set()).update(item.name.value for item in node.names)
    return {key: frozenset(names) for key, names in found.items()}


def _constants(module: ParsedModule) -> set[int]:
    """Names (node ids) bound once, at module or class level, to a literal value."""
    counts: dict[str, int] = {}
    candidates: list[cst.Name] = []
    for node in module.walk():
        at_top = not isinstance(module.scope_of(node), cst.FunctionDef)
        target: cst.BaseExpression | None = None
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            target = node.target
        if (
            at_top
            and isinstance(target, cst.Name)
            and isinstance(node, (cst.Assign, cst.AnnAssign))
            and node.value is not None
            and is_literal(node.value)
        ):
            candidates.append(target)
        # A name rebound anywhere (even in a function, through `global`) is no constant
        # unless it is spelt as one (see `_assigned`).
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            for name in _bound_names(node.target):
                counts[name.value] = counts.get(name.value, 0) + 1
    return {id(n) for n in candidates if counts.get(n.value) == 1}

"""Where code sends SQL text to a database: the executing calls, what flows into them, and
whether that text is SQL. What the `raw-sql` check reports and the `orm-only` check
forbids."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import libcst as cst

from pytest_codeif.checks.shared.drivers import driver_of
from pytest_codeif.checks.shared.import_sites import import_sites, imports_module
from pytest_codeif.checks.shared.sql_text import (
    DUMMY,
    SqlParser,
    SqlStatement,
    built_text,
    capped,
    short,
)
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule

_AROUND_DOTS: Final = re.compile(r"\s*\.\s*")

#: SQLAlchemy's textual SQL: a statement or SQL built out of sight counts, a fragment
#: (`server_default=text("now()")`, `where(text("id = :id"))`) does not.
TEXTUAL: Final = frozenset(
    {
        "sqlalchemy.text",
        "sqlalchemy.sql.text",
        "sqlalchemy.sql.expression.text",
        "sqlalchemy.sql.elements.TextClause",
        "sqlmodel.text",
    }
)
#: Functions whose argument is raw SQL whatever it holds, and which argument.
ALWAYS_RAW: Final[Mapping[str, int]] = {
    **dict.fromkeys(TEXTUAL, 0),
    "django.db.models.RawSQL": 0,
    "django.db.models.expressions.RawSQL": 0,
    "psycopg2.extras.execute_values": 1,
    "psycopg2.extras.execute_batch": 1,
}
#: Functions that run SQL text but also take other things (a table name, a `select()`):
#: they count when the argument is SQL (Django's `RunSQL` also takes lists).
TAKES_SQL: Final[Mapping[str, int]] = {
    "pandas.read_sql": 0,
    "pandas.read_sql_query": 0,
    "pandas.io.sql.read_sql": 0,
    "pandas.io.sql.read_sql_query": 0,
    "django.db.migrations.RunSQL": 0,
    "django.db.migrations.operations.RunSQL": 0,
    "django.db.migrations.operations.special.RunSQL": 0,
}
#: Methods that run SQL given as their first argument (DB-API, SQLAlchemy connections,
#: asyncpg, psycopg, the `databases` package, Django managers); on an object of unknown
#: type they count only when the argument is SQL.
SQL_METHODS: Final = frozenset(
    {
        "execute",
        "executemany",
        "executescript",
        "exec_driver_sql",
        "fetch",
        "fetchrow",
        "fetchval",
        "fetch_all",
        "fetch_one",
        "fetch_val",
        "copy_expert",
        "raw",
    }
)
#: Methods that only a raw database handle has: any call runs raw SQL.
_RAW_BY_NAME: Final = frozenset({"exec_driver_sql", "executescript"})
#: Methods of a DB-API connection, cursor or pool: any call on a known one is raw SQL.
_HANDLE_METHODS: Final = frozenset(
    {"execute", "executemany", "executescript", "fetch", "fetchrow", "fetchval", "copy_expert"}
)
#: Django queryset methods that take raw SQL (`Model.objects.raw(...)`, `.extra(...)`).
_DJANGO_RAW: Final = frozenset({"raw", "extra"})
#: Keyword names an executor's SQL may be passed by.
_SQL_KEYWORDS: Final = frozenset({"sql", "query", "statement", "stmt", "operation", "text"})
#: Objects that are raw database connections: Django's.
DJANGO_CONNECTIONS: Final = frozenset({"django.db.connection", "django.db.connections"})
#: Methods whose result is a raw handle when called on one (`pool.acquire()`), and
#: those whose result is one whatever they are called on (`engine.raw_connection()`).
_HANDLE_FROM_HANDLE: Final = frozenset({"acquire", "getconn", "connect", "cursor"})
_HANDLE_FROM_ANY: Final = frozenset({"cursor", "raw_connection"})

_COMPREHENSIONS: Final = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_BINDING_TYPES: Final = (
    cst.Assign,
    cst.CompFor,
    cst.AnnAssign,
    cst.AugAssign,
    cst.For,
    cst.WithItem,
    cst.NamedExpr,
    cst.Param,
    cst.Call,
)


@dataclass(frozen=True)
class _Binding:
    """A name given a value: `set` (an assignment), `add` (`+=`), `each` (a for loop's
    target, one element of `value`), `param` (`value` is the annotation), `other`."""

    index: int
    kind: str
    value: cst.BaseExpression | None


@dataclass
class Flow:
    """What names hold in one module: the text they were given, whether they are raw
    database handles. Simple on purpose: within a function, the bindings before the
    read, in source order (the last assignment wins; branches are not told apart);
    names of enclosing functions and of the module, as last assigned; `self.x` as last
    assigned anywhere in the module; a module-level constant of another module of the
    project through the import that names it."""

    module: ParsedModule
    project: Project
    order: dict[int, int] = field(default_factory=dict)
    bindings: dict[tuple[int, str], list[_Binding]] = field(default_factory=dict)
    _texts: dict[tuple[int, str], list[str | None]] = field(default_factory=dict)
    _busy: set[tuple[int, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        module = self.module
        # A comprehension's `for` binds before its element is computed, though the
        # element comes first in the tree: its bindings take the comprehension's place.
        starts: dict[int, int] = {}
        for index, node in enumerate(module.nodes(*_BINDING_TYPES, *_COMPREHENSIONS)):
            self.order[id(node)] = index
            if isinstance(node, _COMPREHENSIONS):
                inner: cst.CompFor | None = node.for_in
                while inner is not None:
                    starts[id(inner)] = index
                    inner = inner.inner_for_in
            elif not isinstance(node, cst.Call):
                for target, binding in _bindings_of(node, starts.get(id(node), index)):
                    self._bind(node, target, binding)

    def _bind(self, node: cst.CSTNode, target: cst.BaseExpression, binding: _Binding) -> None:
        scope = self.module.scope_of(node)
        if isinstance(target, cst.Name):
            self.bindings.setdefault((id(scope) if scope else 0, target.value), []).append(binding)
            if isinstance(scope, cst.ClassDef):  # a class attribute, read as self.x
                self.bindings.setdefault((0, "self." + target.value), []).append(binding)
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in ("self", "cls")
        ):
            self.bindings.setdefault((0, "self." + target.attr.value), []).append(binding)

    def position(self, node: cst.CSTNode) -> int:
        """The index of a call (or binding) in source order."""
        return self.order.get(id(node), len(self.order))

    # -- reading a name -----------------------------------------------------------------

    def _visible(
        self, node: cst.BaseExpression, position: int
    ) -> tuple[tuple[int, str], int] | None:
        """Which bindings decide what `node` holds at `position`: the key of the
        innermost scope that binds it and how many of its bindings come first (in the
        reading scope: those before `position`; in enclosing ones: all); None if no
        scope binds it."""
        name = _key(node)
        if name is None:
            return None
        if name.startswith("self."):
            found = self.bindings.get((0, name), [])
            return ((0, name), len(found)) if found else None
        scope: cst.CSTNode | None = self.module.scope_of(node)
        first = True
        while True:
            key = (id(scope) if scope else 0, name)
            found = self.bindings.get(key, [])
            count = sum(1 for b in found if b.index < position) if first else len(found)
            if count:
                return key, count
            if scope is None:
                return None
            scope, first = self.module.scope_of(scope), False

    def _last(self, node: cst.BaseExpression, position: int) -> _Binding | None:
        """The binding `node` was last given before `position`."""
        visible = self._visible(node, position)
        if visible is None:
            return None
        key, count = visible
        return self.bindings[key][count - 1]

    def text(self, node: cst.BaseExpression, position: int, depth: int = 0) -> str | None:
        """The text `node` builds when read at `position` (see `built_text`)."""

        def lookup(name: cst.BaseExpression, inner_depth: int) -> str | None:
            return self._name_text(name, position, inner_depth)

        return built_text(self.module, node, lookup, depth)

    def _name_text(self, node: cst.BaseExpression, position: int, depth: int) -> str | None:
        visible = self._visible(node, position)
        if visible is None:
            return self.project.constant_text(self.module, node, depth)
        return self._value(*visible, depth)

    def _value(self, key: tuple[int, str], count: int, depth: int) -> str | None:
        """The text a name holds after the first `count` of its bindings under `key`.

        The bindings are applied in order and each result kept, so `q = q + "..."`
        repeated reads the previous `q` from memory: as deep as one binding, however
        many there are. A binding that reads its own name's later state (a loop) reads
        it as unknown."""
        done = self._texts.setdefault(key, [])
        if key in self._busy:
            return done[count - 1] if count <= len(done) else None
        self._busy.add(key)
        try:
            bindings = self.bindings[key]
            while len(done) < count:
                binding = bindings[len(done)]
                previous = done[-1] if done else None
                done.append(self._apply(binding, previous, depth))
        finally:
            self._busy.discard(key)
        return done[count - 1]

    def _apply(self, binding: _Binding, previous: str | None, depth: int) -> str | None:
        if binding.value is None:
            return None
        if binding.kind == "set":
            return self.text(binding.value, binding.index, depth)
        if binding.kind == "add":
            more = self.text(binding.value, binding.index, depth)
            if previous is None and more is None:
                return None
            return capped((previous or DUMMY) + (more or DUMMY))
        if binding.kind == "each":
            return self._element_text(binding.value, binding.index, depth)
        return None

    def _element_text(self, iterable: cst.BaseExpression, position: int, depth: int) -> str | None:
        """The text of the first element of a literal list (or a name bound to one)."""
        if isinstance(iterable, (cst.Name, cst.Attribute)):
            last = self._last(iterable, position)
            if last is None or last.kind != "set" or last.value is None:
                return None
            iterable, position = last.value, last.index
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            for element in iterable.elements:
                text = self.text(element.value, position, depth + 1)
                if text is not None:
                    return text
        return None

    def module_text(self, name: str, depth: int) -> str | None:
        """The text a module-level name holds once the module has run."""
        found = self.bindings.get((0, name))
        return self._value((0, name), len(found), depth) if found else None

    # -- raw database handles -------------------------------------------------------------

    def is_handle(self, node: cst.BaseExpression, position: int, depth: int = 0) -> bool:
        """Whether `node` is a raw database connection, cursor or pool: made by a driver
        (`sqlite3.connect(...)`, `asyncpg.create_pool(...)`), Django's `connection` or
        `connections[...]`, a `.cursor()`, `engine.raw_connection()`, `pool.acquire()` of
        one, or a name given one or annotated as a driver's type."""
        if depth > 20:
            return False
        module = self.module
        if isinstance(node, cst.Await):
            return self.is_handle(node.expression, position, depth + 1)
        if isinstance(node, cst.Subscript):
            return bool(module.qualified(node.value) & DJANGO_CONNECTIONS)
        if isinstance(node, cst.Call):
            names = module.qualified(node.func)
            if any(driver_of(name) for name in names):
                return True
            func = node.func
            if isinstance(func, cst.Attribute):
                method = func.attr.value
                if method in _HANDLE_FROM_ANY:
                    return True
                if method in _HANDLE_FROM_HANDLE:
                    return self.is_handle(func.value, position, depth + 1)
            return False
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        if module.qualified(node) & DJANGO_CONNECTIONS:
            return True
        last = self._last(node, position)
        if last is None:
            return False
        if last.kind == "param":
            return last.value is not None and any(
                driver_of(name) for name in module.qualified(last.value)
            )
        return (
            last.kind == "set"
            and last.value is not None
            and self.is_handle(last.value, last.index, depth + 1)
        )


def _key(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value in ("self", "cls")
    ):
        return "self." + node.attr.value
    return None


def _bindings_of(node: cst.CSTNode, index: int) -> Iterator[tuple[cst.BaseExpression, _Binding]]:
    """The names `node` binds, each with how. A name unpacked from a tuple, or bound by
    a loop over a tuple of targets, holds something unknown: it is bound as `other`, so
    that it hides the same name of an enclosing scope."""
    targets: list[tuple[cst.BaseExpression, str, cst.BaseExpression | None]] = []
    if isinstance(node, cst.Assign):
        targets = [(t.target, "set", node.value) for t in node.targets]
    elif isinstance(node, cst.AnnAssign):
        targets = [(node.target, "set" if node.value else "other", node.value)]
    elif isinstance(node, cst.AugAssign):
        targets = [
            (
                node.target,
                "add" if isinstance(node.operator, cst.AddAssign) else "other",
                node.value,
            )
        ]
    elif isinstance(node, cst.NamedExpr):
        targets = [(node.target, "set", node.value)]
    elif isinstance(node, cst.WithItem):
        if node.asname is not None:
            targets = [(node.asname.name, "set", node.item)]
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets = [(node.target, "each", node.iter)]
    elif isinstance(node, cst.Param):
        annotation = node.annotation.annotation if node.annotation else None
        targets = [(node.name, "param", annotation)]
    for target, kind, value in targets:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in _unpacked(target):
                yield element, _Binding(index, "other", None)
        else:
            yield target, _Binding(index, kind, value)


def _unpacked(target: cst.Tuple | cst.List) -> Iterator[cst.BaseExpression]:
    pending: list[cst.BaseExpression] = [target]
    while pending:
        current = pending.pop()
        if isinstance(current, (cst.Tuple, cst.List)):
            for element in current.elements:
                value = element.value
                pending.append(value)
        else:
            yield current


class Project:
    """The modules of one unit, for constants one module imports from another, and one
    `Flow` per module."""

    def __init__(self, modules: Sequence[ParsedModule]) -> None:
        self.modules = list(modules)
        self.by_name = {m.place.name: m for m in modules if m.place is not None}
        self._flows: dict[int, Flow] = {}

    def flow(self, module: ParsedModule) -> Flow:
        found = self._flows.get(id(module))
        if found is None:
            found = self._flows[id(module)] = Flow(module, self)
        return found

    def constant_text(
        self, module: ParsedModule, node: cst.BaseExpression, depth: int
    ) -> str | None:
        """The text of a constant `node` names in another module (`from .queries import
        GET_USER`, `queries.GET_USER`)."""
        if depth > 8:
            return None
        for name in sorted(module.qualified(node)):
            owner, _, attr = name.rpartition(".")
            other = self.by_name.get(owner)
            if other is not None and other is not module:
                text = self.flow(other).module_text(attr, depth + 1)
                if text is not None:
                    return text
        return None


@dataclass(frozen=True)
class RawSql:
    """Raw SQL reaching an executor: the call, what runs it, and the SQL (or None when it
    is built at runtime from parts not known; then `argument` is its source)."""

    module: ParsedModule
    call: cst.Call
    executor: str
    statement: SqlStatement | None
    text: str | None
    argument: str | None

    def describe(self) -> str:
        if self.statement is not None:
            what = f"raw SQL `{self.statement.describe()}`"
        elif self.text is not None:
            what = f"raw SQL `{short(self.text)}`"
        elif self.argument is not None:
            what = f"SQL built at runtime (`{short(self.argument)}`)"
        else:
            return f"`{self.executor}` runs raw SQL"
        return f"{what} passed to `{self.executor}`"


def _sql_argument(call: cst.Call, position: int) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > position:
        return positional[position].value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _SQL_KEYWORDS:
            return arg.value
    return None


def _executor_label(func: cst.BaseExpression) -> str:
    text = _AROUND_DOTS.sub(".", " ".join(code_of(func).split()))
    return text if len(text) <= 48 else "..." + text[-45:]


def _django_queryset(node: cst.BaseExpression) -> bool:
    """`Model.objects...`: a chain of calls and attributes through `.objects`."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(node, cst.Attribute) and node.attr.value == "objects":
            return True
        node = node.func if isinstance(node, cst.Call) else node.value
    return False


def _is_always_raw(module: ParsedModule, node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Call) and bool(module.qualified(node.func) & set(ALWAYS_RAW))


def raw_sql_sites(
    modules: Sequence[ParsedModule], parser: SqlParser, project: Project | None = None
) -> list[RawSql]:
    """Every place raw SQL reaches an executor in `modules`."""
    project = project or Project(modules)
    return [site for module in modules for site in _module_sites(module, project, parser)]


def _module_sites(module: ParsedModule, project: Project, parser: SqlParser) -> Iterator[RawSql]:
    flow: Flow | None = None
    for call in module.nodes(cst.Call):
        func = call.func
        names = module.qualified(func)
        known = sorted(names & set(ALWAYS_RAW)) or sorted(names & set(TAKES_SQL))
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if not known and method not in SQL_METHODS and method not in _DJANGO_RAW:
            continue
        flow = flow or project.flow(module)
        position = flow.position(call)
        if known:
            index = ALWAYS_RAW.get(known[0], TAKES_SQL.get(known[0], 0))
            argument = _sql_argument(call, index)
            text = flow.text(argument, position) if argument is not None else None
            statement = parser.statement(text)
            fragment = known[0] in TEXTUAL and text is not None
            if statement is not None or (known[0] in ALWAYS_RAW and not fragment):
                source = code_of(argument) if argument is not None else None
                yield RawSql(module, call, known[0], statement, text, source)
            continue
        if not isinstance(func, cst.Attribute):
            continue
        argument = _sql_argument(call, 0)
        if _is_always_raw(module, argument):
            continue  # `conn.execute(text(...))`: reported at `text(...)`
        text = flow.text(argument, position) if argument is not None else None
        statement = parser.statement(text)
        label = _executor_label(func)
        source = code_of(argument) if argument is not None else None
        if (
            statement is not None
            or method in _RAW_BY_NAME
            or (method in _HANDLE_METHODS and flow.is_handle(func.value, position))
            or (method in _DJANGO_RAW and _django_queryset(func.value))
        ):
            # A literal that is no statement is shown as it is only where every text is
            # raw SQL; elsewhere the argument's source says more.
            kept = text if statement is None and isinstance(argument, cst.SimpleString) else None
            yield RawSql(module, call, label, statement, kept, source)


def orm_hint(modules: Iterable[ParsedModule]) -> str:
    """How to do it through the ORM, in the terms of the one the code uses."""
    django = any(imports_module(site.module, "django") for m in modules for site in import_sites(m))
    return "`Model.objects.filter(...)`" if django else "`session.execute(select(Model))`"

"""Where JavaScript and TypeScript code sends SQL text to a database: the `raw-sql` and
`orm-only` checks' reading of Node backends, as `raw_sql_sites.py` is of Python.

Executors:

- Always raw SQL, whatever the object (names no other library uses): Prisma's
  `$queryRaw`, `$executeRaw`, `$queryRawUnsafe`, `$executeRawUnsafe` (called or
  tagged: prisma.$queryRaw`SELECT ...`), and Knex's `whereRaw`, `orWhereRaw`,
  `havingRaw`, `orderByRaw`, `groupByRaw`, `joinRaw`, `fromRaw`, `selectRaw`.
- Raw SQL on a database object the code made (a *handle*): `query`, `execute`, `run`,
  `all`, `get`, `each`, `exec`, `prepare` of a driver's pool, client, connection or
  database (`new Pool()` / `new Client()` of `pg`, `mysql2`'s `createPool` /
  `createConnection`, `new sqlite3.Database()`, `better-sqlite3`'s `new Database()`,
  `postgres()`), `query` of a Sequelize instance (`new Sequelize()`:
  `sequelize.query(...)`) or of TypeORM's `DataSource`, its `manager`, query runners and
  repositories, and `raw` of a Knex instance (`knex({...})`, or the `knex` import
  itself). A handle is followed through variables, what is made from it
  (`await pool.connect()`, `dataSource.createQueryRunner()`), and the project's modules
  (`import sequelize from "../config/database.js"`, `const { pool } = require("../db")`,
  a default or a named export).
- On any object, the same methods, and any tagged template (sql`SELECT ...`), when the
  text given is an SQL statement (parsed by sqlglot: `sql_text.SqlParser`): an
  `app.get("/users")` or a `Map.get("key")` is no SQL.

As for Python, a literal that is no statement passed to an always-raw executor or to
a Knex instance's `raw` is a fragment (`knex.raw("now()")`, `whereRaw("age > ?")`): it
does not count; a driver's, Sequelize's or TypeORM's handle runs whatever text it is
given (`db.exec("VACUUM INTO 'backup.db'")`), and SQL built where it cannot be followed
(a parameter) counts on always-raw executors and handles.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_code import (
    JsCode,
    JsModuleCode,
    JsText,
    literal,
    made,
    made_by,
)
from pytest_codeif.checks.shared.sql_text import SqlParser, SqlStatement, short
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: What each known constructor makes: a driver's handle, or an ORM's.
HANDLE_MAKERS: Final[Mapping[str, str]] = {
    "pg.Pool": "driver",
    "pg.Client": "driver",
    "pg.native.Pool": "driver",
    "pg-pool": "driver",
    "pg-promise": "driver",
    "mysql.createConnection": "driver",
    "mysql.createPool": "driver",
    "mysql2.createConnection": "driver",
    "mysql2.createPool": "driver",
    "sqlite3.Database": "driver",
    "better-sqlite3": "driver",
    "better-sqlite3.default": "driver",
    "sqlite.open": "driver",
    "sqlite.DatabaseSync": "driver",  # Node's own `node:sqlite`
    "postgres": "driver",
    "sequelize": "sequelize",
    "sequelize.Sequelize": "sequelize",
    "sequelize-typescript.Sequelize": "sequelize",
    "typeorm.DataSource": "typeorm",
    "typeorm.createConnection": "typeorm",
    "typeorm.getConnection": "typeorm",
    "typeorm.getManager": "typeorm",
    "typeorm.getRepository": "typeorm",
    "knex": "knex",
    "knex.knex": "knex",
    "knex.default": "knex",
    "@prisma/client.PrismaClient": "prisma",
}
#: Methods that run their first argument as SQL, by the kind of handle they are called on.
RAW_ON_HANDLE: Final[Mapping[str, frozenset[str]]] = {
    "driver": frozenset(
        {"query", "execute", "run", "all", "get", "each", "exec", "prepare", "unsafe", "none"}
    ),
    "sequelize": frozenset({"query"}),
    "typeorm": frozenset({"query"}),
    "knex": frozenset({"raw"}),
    "prisma": frozenset(),
}
#: Methods that run SQL text on any object, when the text is a statement.
SQL_METHODS: Final = frozenset(
    {"query", "execute", "raw", "run", "all", "get", "each", "exec", "prepare", "unsafe"}
)
#: Methods whose argument is raw SQL on any object (see the module docstring).
ALWAYS_RAW: Final = frozenset(
    {
        "$queryRaw",
        "$executeRaw",
        "$queryRawUnsafe",
        "$executeRawUnsafe",
        "whereRaw",
        "orWhereRaw",
        "andWhereRaw",
        "havingRaw",
        "orHavingRaw",
        "orderByRaw",
        "groupByRaw",
        "joinRaw",
        "fromRaw",
        "selectRaw",
    }
)
#: Methods of a handle whose result is a handle of the same kind.
_HANDLE_FROM_HANDLE: Final = frozenset(
    {
        "connect",
        "getConnection",
        "acquire",
        "createQueryRunner",
        "getRepository",
        "transaction",
        "promise",
        "initialize",
        "database",
    }
)
_WRAPPERS: Final = ("await_expression", "parenthesized_expression", "non_null_expression")
_SNIPPET: Final = 48


@dataclass(frozen=True)
class JsRawSql:
    """Raw SQL reaching an executor in a JS/TS module (see `raw_sql_sites.RawSql`)."""

    module: JsModule
    call: SgNode
    executor: str
    statement: SqlStatement | None
    argument: str | None
    #: The SQL is a tagged template's (sql`SELECT ...`), not an argument.
    tagged: bool = False
    #: A literal that is no statement a handle runs all the same, shown as written.
    text: str | None = None

    @property
    def line(self) -> int:
        return self.module.line_of(self.call)

    def describe(self) -> str:
        if self.statement is not None:
            what = f"raw SQL `{self.statement.describe()}`"
        elif self.text is not None:
            what = f"raw SQL `{short(self.text)}`"
        elif self.argument is not None:
            what = f"SQL built at runtime (`{short(self.argument)}`)"
        else:
            return f"`{self.executor}` runs raw SQL"
        if self.tagged:
            return f"{what} in a template tagged `{self.executor}`"
        return f"{what} passed to `{self.executor}`"


class Handles:
    """The database objects of each module (see the module docstring)."""

    def __init__(self, code: JsCode) -> None:
        self.code = code
        self._local: dict[str, dict[str, str]] = {}
        self._visiting: set[str] = set()

    def of(self, module: JsModuleCode) -> dict[str, str]:
        """Name -> kind of handle, for the variables and imports of `module`."""
        relpath = module.module.relpath
        if relpath in self._local:
            return self._local[relpath]
        if relpath in self._visiting:
            return {}
        self._visiting.add(relpath)
        found = made_by(module, HANDLE_MAKERS)
        for local, binding in module.names.bindings.items():
            other = self.code.imported_module(relpath, binding.specifier)
            if other is None:
                continue
            theirs = self.of(other)
            kind = theirs.get(binding.name) if binding.name else _default(other, theirs)
            if kind is not None:
                found[local] = kind
        for _ in range(2):  # what is made from a handle, and from that
            for name, assignments in module.assigned.items():
                for assigned in assignments:
                    kind = self.kind(module, assigned.value, found)
                    if kind is not None and name not in found:
                        found[name] = kind
        self._visiting.discard(relpath)
        self._local[relpath] = found
        return found

    def kind(
        self, module: JsModuleCode, node: SgNode | None, known: Mapping[str, str] | None = None
    ) -> str | None:
        """The kind of handle `node` is (a handle, a member of one, what a handle's
        method returns, the `knex` import itself), or None."""
        handles = known if known is not None else self.of(module)
        while node is not None:
            kind = node.kind()
            if kind in _WRAPPERS:
                inner = node.named_children()
                node = inner[-1] if inner else None
            elif kind == "identifier":
                found = handles.get(node.text())
                if found is not None:
                    return found
                qualified = module.names.qualified(node)
                return HANDLE_MAKERS.get(qualified) if qualified == "knex" else None
            elif kind == "member_expression":
                node = node.field("object")
            elif kind == "call_expression":
                callee = callee_of(node)
                prop = callee.field("property") if callee is not None else None
                if prop is None or prop.text() not in _HANDLE_FROM_HANDLE:
                    return None
                node = callee.field("object") if callee is not None else None
            else:
                return None
        return None


def _default(module: JsModuleCode, handles: Mapping[str, str]) -> str | None:
    """The kind of handle `module` exports as a whole (`module.exports = db`, `export
    default db`, `module.exports = new Pool()`)."""
    for statement in module.module.nodes("export_statement"):
        if not any(child.kind() == "default" for child in statement.children()):
            continue
        for value in statement.named_children():
            found = _handle_value(module, value, handles)
            if found is not None:
                return found
    for assignment in module.module.nodes("assignment_expression"):
        left, right = assignment.field("left"), assignment.field("right")
        if left is not None and right is not None and left.text() == "module.exports":
            found = _handle_value(module, right, handles)
            if found is not None:
                return found
    return None


def _handle_value(module: JsModuleCode, value: SgNode, handles: Mapping[str, str]) -> str | None:
    if value.kind() == "identifier":
        return handles.get(value.text())
    return made(module.names, value, HANDLE_MAKERS)


def js_raw_sql_sites(code: JsCode, parser: SqlParser) -> list[JsRawSql]:
    """Every place raw SQL reaches an executor in `code`'s modules (see the module
    docstring), in module then document order."""
    text = JsText(code)
    handles = Handles(code)
    found: list[JsRawSql] = []
    for module in code.modules:
        found.extend(_module_sites(code.code[module.relpath], text, handles, parser))
    return found


def _module_sites(
    module: JsModuleCode, text: JsText, handles: Handles, parser: SqlParser
) -> Iterator[JsRawSql]:
    for call in module.module.nodes("call_expression"):
        callee = callee_of(call)
        arguments = call.field("arguments")
        if callee is None or arguments is None:
            continue
        tagged = arguments.kind() == "template_string"
        argument = arguments if tagged else _first(arguments)
        method = callee.field("property") if callee.kind() == "member_expression" else None
        name = method.text() if method is not None else None
        always = name in ALWAYS_RAW
        on_handle = False
        kind: str | None = None
        if name is not None and not always:
            kind = handles.kind(module, callee.field("object"))
            on_handle = kind is not None and name in RAW_ON_HANDLE[kind]
        if not (always or on_handle or tagged or name in SQL_METHODS):
            continue
        built = text.text(module, argument) if argument is not None else None
        statement = parser.statement(built)
        # Text that is no statement is a fragment only where fragments are written
        # (`knex.raw("now()")`, `whereRaw("age > ?")`); a driver's, Sequelize's or
        # TypeORM's handle runs whatever it is given (`db.exec("VACUUM INTO 'b.db'")`),
        # as Python's raw connections do.
        fragment = built is not None and statement is None and (always or kind == "knex")
        if statement is None and (not (always or on_handle) or fragment):
            continue
        label = module.module.snippet(callee, _SNIPPET)
        source = module.module.snippet(argument, _SNIPPET) if argument is not None else None
        shown = built if statement is None and argument is not None and literal(argument) else None
        yield JsRawSql(module.module, call, label, statement, source, tagged, shown)


def callee_of(call: SgNode) -> SgNode | None:
    """What `call` calls. tree-sitter-typescript reads `await pool.query<Row>(sql)` (an
    await of a call with type arguments) as a call of `await pool.query`: the callee is
    then the awaited expression (a callee that is an await otherwise needs parentheses,
    which leave a `parenthesized_expression`)."""
    callee = call.field("function")
    if callee is not None and callee.kind() == "await_expression":
        inner = callee.named_children()
        return inner[-1] if inner else None
    return callee


def _first(arguments: SgNode) -> SgNode | None:
    given = [a for a in arguments.named_children() if a.kind() != "comment"]
    return given[0] if given else None


def orm_hint_js(code: JsCode) -> str:
    """How to do it through the ORM, in the terms of the one the code uses."""
    hints = (
        ("@prisma/client", "`prisma.user.findMany(...)`"),
        ("sequelize", "`User.findAll({ where: ... })`"),
        ("sequelize-typescript", "`User.findAll({ where: ... })`"),
        ("typeorm", "`repository.find({ where: ... })`"),
        ("knex", "`knex('users').where(...)`"),
    )
    for package, hint in hints:
        if any(m.names.imports(package) for m in code.code.values()):
            return hint
    return "its models' query methods"

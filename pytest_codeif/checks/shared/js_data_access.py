"""Database drivers and ORM models of Node backends: what `db-drivers` and `orm-only`
read of JavaScript and TypeScript, as `drivers.py` and `orm_models.py` read Python.

Drivers: npm packages that open database connections themselves (`pg`, `mysql2`,
`sqlite3`, `better-sqlite3`...), imported by ES modules, `require`, `import()` or
TypeScript's `import x = require()`; a path inside one counts (`mysql2/promise`), and
`node:sqlite` is Node's own SQLite driver.

ORM models, by ORM:

- Sequelize: `sequelize.define("User", {...})` on a Sequelize instance, a class
  extending `Model` of `sequelize` (or `sequelize-typescript`, with its `@Table`);
- TypeORM: a class decorated with `@Entity()`, or a `new EntitySchema({...})`;
- Prisma: a `model` block of a `.prisma` schema among the project's files;
- Knex is a query builder with no models: a Knex instance made (`knex({...})`) is
  what using it means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.drivers import DATABASE_NAMES
from pytest_codeif.checks.shared.js_code import JsCode, JsModuleCode, calls
from pytest_codeif.checks.shared.js_imports import js_imports, js_imports_module
from pytest_codeif.checks.shared.js_sql_sites import Handles
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.unit import CodeUnit

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: npm database drivers and the database each talks to (None: a generic bridge).
JS_DRIVERS: Final[Mapping[str, str | None]] = {
    "pg": "postgresql",
    "pg-pool": "postgresql",
    "pg-promise": "postgresql",
    "postgres": "postgresql",
    "@neondatabase/serverless": "postgresql",
    "@vercel/postgres": "postgresql",
    "mysql": "mysql",
    "mysql2": "mysql",
    "mariadb": "mysql",
    "sqlite3": "sqlite",
    "better-sqlite3": "sqlite",
    "sqlite": "sqlite",
    "@libsql/client": "sqlite",
    "tedious": "mssql",
    "mssql": "mssql",
    "oracledb": "oracle",
    "duckdb": "duckdb",
    "@duckdb/node-api": "duckdb",
    "odbc": None,
}

#: The JS/TS ORMs `orm-only` knows, as named in its `orm` option and in messages.
JS_ORM_NAMES: Final[Mapping[str, str]] = {
    "sequelize": "Sequelize",
    "prisma": "Prisma",
    "typeorm": "TypeORM",
    "knex": "Knex",
}
JS_EXPECTED: Final[Mapping[str | None, str]] = {
    "sequelize": "a model defined with `sequelize.define(...)` or a class extending "
    "Sequelize's `Model`",
    "typeorm": "a class decorated with TypeORM's `@Entity()` or an `EntitySchema`",
    "prisma": "a `model` in a `.prisma` schema",
    "knex": "a Knex instance made with `knex({...})`",
    None: "a Sequelize model, a TypeORM entity, a Prisma schema model or a Knex instance",
}
_SEQUELIZE_MODELS: Final = frozenset(
    {"sequelize.Model", "sequelize-typescript.Model", "sequelize.default.Model"}
)
_TYPEORM_ENTITY: Final = frozenset({"typeorm.Entity", "typeorm.ViewEntity"})
_ENTITY_SCHEMA: Final = "typeorm.EntitySchema"
_KNEX_MAKERS: Final = frozenset({"knex", "knex.knex", "knex.default"})
_PRISMA_MODEL: Final = re.compile(r"^\s*model\s+(\w+)\s*\{", re.MULTILINE)
_RAW_CONNECTIONS: Final = frozenset({"acquireConnection", "acquireRawConnection"})


@dataclass(frozen=True)
class JsDriverImport:
    """An import of a driver in a JS/TS module: the driver, its database, where."""

    driver: str
    database: str | None
    relpath: str
    line: int

    def describe(self) -> str:
        database = DATABASE_NAMES.get(self.database or "")
        return f"`{self.driver}` ({database})" if database else f"`{self.driver}`"


def js_driver_imports(module: JsModule, extra: Iterable[str] = ()) -> Iterator[JsDriverImport]:
    """Every import of a driver (or of one of `extra`) in `module`, once per line."""
    names = [*JS_DRIVERS, *extra]
    seen: set[int] = set()
    for site in js_imports(module):
        for name in names:
            if js_imports_module(site.specifier, name) and site.line not in seen:
                seen.add(site.line)
                # `node:sqlite` is Node's own SQLite, `sqlite` an npm package: name it
                # as written (Node has it only under its `node:` name).
                shown = site.specifier if site.specifier.startswith("node:") else name
                yield JsDriverImport(shown, JS_DRIVERS.get(name), module.relpath, site.line)
                break


@dataclass(frozen=True)
class JsModel:
    """A table the code declares through an ORM: which ORM, its name, where."""

    orm: str
    name: str
    relpath: str
    line: int | None


def js_models(code: JsCode, unit: CodeUnit) -> list[JsModel]:
    """Every model `code`'s modules (and the unit's Prisma schemas) declare."""
    handles = Handles(code)
    found: list[JsModel] = []
    for module in code.modules:
        read = code.code[module.relpath]
        found.extend(_classes(read))
        found.extend(_made(read, handles))
    for other in unit.other_files:
        if other.relpath.endswith(".prisma") and other.text is not None:
            for match in _PRISMA_MODEL.finditer(other.text):
                line = other.text.count("\n", 0, match.start()) + 1
                found.append(JsModel("prisma", match.group(1), other.relpath, line))
    return found


def _classes(code: JsModuleCode) -> Iterator[JsModel]:
    module = code.module
    for node in module.nodes("class_declaration", "class", "abstract_class_declaration"):
        name_node = node.field("name")
        name = name_node.text() if name_node is not None else "(anonymous class)"
        decorators = [code.names.qualified(_decorated(d)) for d in _decorators(node)]
        if any(d in _TYPEORM_ENTITY for d in decorators):
            yield JsModel("typeorm", name, module.relpath, module.line_of(node))
            continue
        if any(code.names.qualified(base) in _SEQUELIZE_MODELS for base in bases(node)):
            yield JsModel("sequelize", name, module.relpath, module.line_of(node))


def bases(node: SgNode) -> list[SgNode]:
    """What a class extends: TypeScript's `extends_clause` values, JavaScript's
    `class_heritage` expression."""
    heritage = next((c for c in node.named_children() if c.kind() == "class_heritage"), None)
    if heritage is None:
        return []
    found: list[SgNode] = []
    for part in heritage.named_children():
        if part.kind() == "extends_clause":
            value = part.field("value")
            found += [value] if value is not None else []
        elif part.kind() != "implements_clause":
            found.append(part)
    return found


def _decorators(node: SgNode) -> list[SgNode]:
    """The decorators of a class: its own, or its `export` statement's."""
    found = [c for c in node.children() if c.kind() == "decorator"]
    parent = node.parent()
    if parent is not None and parent.kind() == "export_statement":
        found += [c for c in parent.children() if c.kind() == "decorator"]
    return found


def _decorated(decorator: SgNode) -> SgNode | None:
    """What a decorator names: `Entity` of `@Entity("users")`."""
    inner = decorator.named_children()
    if not inner:
        return None
    target = inner[0]
    return target.field("function") if target.kind() == "call_expression" else target


def _made(code: JsModuleCode, handles: Handles) -> Iterator[JsModel]:
    """`sequelize.define("User", ...)`, `new EntitySchema({ name })`, `knex({...})`."""
    module = code.module
    for call, callee in calls(module):
        if callee is None:
            continue
        qualified = code.names.qualified(callee)
        if qualified == _ENTITY_SCHEMA:
            yield JsModel("typeorm", "EntitySchema", module.relpath, module.line_of(call))
        elif qualified in _KNEX_MAKERS and call.kind() == "call_expression":
            arguments = call.field("arguments")
            given = arguments.named_children() if arguments is not None else []
            if given and given[0].kind() == "object":  # knex({ client }), not knex("users")
                yield JsModel("knex", "a Knex instance", module.relpath, module.line_of(call))
        elif callee.kind() == "member_expression":
            prop = callee.field("property")
            defines = prop is not None and prop.text() == "define"
            if defines and handles.kind(code, callee.field("object")) == "sequelize":
                name = _first_string(call)
                yield JsModel("sequelize", name, module.relpath, module.line_of(call))


def _first_string(call: SgNode) -> str:
    arguments = call.field("arguments")
    given = arguments.named_children() if arguments is not None else []
    if given and given[0].kind() == "string":
        return "".join(c.text() for c in given[0].named_children())
    return "(a model)"


def js_raw_connections(code: JsCode) -> Iterator[tuple[JsModule, SgNode, str]]:
    """Raw connections taken around the ORM: Sequelize's
    `sequelize.connectionManager.getConnection()`, Knex's `client.acquireConnection()`."""
    for module in code.modules:
        for call, callee in calls(module):
            if callee is None or callee.kind() != "member_expression":
                continue
            prop, target = callee.field("property"), callee.field("object")
            if prop is None or target is None:
                continue
            name = prop.text()
            through_manager = name == "getConnection" and target.text().endswith(
                "connectionManager"
            )
            if name in _RAW_CONNECTIONS or through_manager:
                yield module, call, module.snippet(callee, 48)

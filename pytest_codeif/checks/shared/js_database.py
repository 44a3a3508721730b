"""Which database JavaScript and TypeScript code connects to: what the `database` check
reads of a Node backend, as it reads connection URLs, drivers and dialects of Python.

Evidence, each at its file and line:

- connection URLs in string literals and template literals (`postgres://...`,
  `mysql://...`, `mongodb+srv://...`; a template's text before its first `${...}`, as an
  f-string's), and Sequelize's SQLite URLs (`sqlite::memory:`, `sqlite:./app.db`,
  `sqlite:${file}`); a
  default counts (`process.env.DATABASE_URL || "sqlite:..."`: where the code goes when
  nothing is set). Not evidence: a string that is a statement (`"use strict"`), an
  argument of a string method (`url.replace("postgres://", "postgresql://")`), an
  operand of a comparison (`url.startsWith(...)`, `scheme === "mysql://"`), and prose
  (a literal with spaces in it);
- driver imports (`import`, `require`, `import()`, `import x = require()`, type-only
  imports too: the code is written for that driver): the npm drivers `db-drivers`
  knows (`pg`, `postgres`, `mysql2`, `better-sqlite3`, `node:sqlite`, `@libsql/client`
  as SQLite...), `slonik`, `@databases/pg` (and `mysql`, `sqlite`), Bun's `bun:sqlite`,
  and `mongodb` and `mongoose` for MongoDB;
- imports that only code for one database makes: Drizzle's dialect modules
  (`drizzle-orm/pg-core`, `drizzle-orm/node-postgres`, `drizzle-orm/better-sqlite3`...),
  MikroORM's drivers (`@mikro-orm/postgresql`...), Prisma's driver adapters
  (`@prisma/adapter-pg`...), Fastify's database plugins (`@fastify/postgres`...) and
  session stores (`connect-pg-simple`, `connect-sqlite3`); Kysely's dialects made
  (`new PostgresDialect(...)`);
- ORM configuration in object literals: Sequelize's (and drizzle-kit's) `dialect:
  "postgres"`; Knex's `client: "pg"` (in a module importing `knex`, a `knexfile`, or
  beside a `connection` key); TypeORM's `type: "postgres"` (in a module importing
  `typeorm` or `@nestjs/typeorm`, an `ormconfig`, or beside an `entities` or
  `synchronize` key). The value's string literals count, a default or either branch of
  a condition included (`dialect: process.env.DIALECT ?? "sqlite"`);
- a Prisma schema's (`*.prisma` among the project's files) `datasource` `provider`
  (`provider = "postgresql"`).

Where the code uses a database without naming one (`new Sequelize(process.env.URL)`,
`new DataSource(options)`, `knex(config)`, `new PrismaClient()`): `js_database_use`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.db_urls import url_database
from pytest_codeif.checks.shared.drivers import DATABASE_NAMES
from pytest_codeif.checks.shared.js_code import JsNames, calls, literal
from pytest_codeif.checks.shared.js_data_access import JS_DRIVERS
from pytest_codeif.checks.shared.js_imports import js_imports, js_imports_module
from pytest_codeif.checks.shared.js_sql_sites import HANDLE_MAKERS
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: npm packages that talk to one database, beyond `db-drivers`' (which are drivers
#: that run SQL: MongoDB's are not).
_DATABASE_PACKAGES: Final[Mapping[str, str | None]] = {
    **JS_DRIVERS,
    "slonik": "postgresql",
    "@databases/pg": "postgresql",
    "@databases/mysql": "mysql",
    "@databases/sqlite": "sqlite",
    "bun:sqlite": "sqlite",
    "mongodb": "mongodb",
    "mongoose": "mongodb",
}
#: Imports only code for one database makes (a path inside counts).
_DIALECT_MODULES: Final[Mapping[str, str]] = {
    "drizzle-orm/pg-core": "postgresql",
    "drizzle-orm/node-postgres": "postgresql",
    "drizzle-orm/postgres-js": "postgresql",
    "drizzle-orm/neon-http": "postgresql",
    "drizzle-orm/neon-serverless": "postgresql",
    "drizzle-orm/vercel-postgres": "postgresql",
    "drizzle-orm/mysql-core": "mysql",
    "drizzle-orm/mysql2": "mysql",
    "drizzle-orm/sqlite-core": "sqlite",
    "drizzle-orm/better-sqlite3": "sqlite",
    "drizzle-orm/libsql": "sqlite",
    "drizzle-orm/bun-sqlite": "sqlite",
    "@mikro-orm/postgresql": "postgresql",
    "@mikro-orm/mysql": "mysql",
    "@mikro-orm/mariadb": "mysql",
    "@mikro-orm/sqlite": "sqlite",
    "@mikro-orm/better-sqlite": "sqlite",
    "@mikro-orm/libsql": "sqlite",
    "@mikro-orm/mssql": "mssql",
    "@mikro-orm/mongodb": "mongodb",
    "@prisma/adapter-pg": "postgresql",
    "@prisma/adapter-neon": "postgresql",
    "@prisma/adapter-planetscale": "mysql",
    "@prisma/adapter-libsql": "sqlite",
    "@prisma/adapter-better-sqlite3": "sqlite",
    "@fastify/postgres": "postgresql",
    "@fastify/mysql": "mysql",
    "@fastify/mongodb": "mongodb",
    "connect-pg-simple": "postgresql",
    "connect-sqlite3": "sqlite",
}
#: Kysely's dialects, by the name they are imported as.
_KYSELY_DIALECTS: Final[Mapping[str, str]] = {
    "kysely.PostgresDialect": "postgresql",
    "kysely.MysqlDialect": "mysql",
    "kysely.SqliteDialect": "sqlite",
    "kysely.MssqlDialect": "mssql",
}
#: Sequelize's dialects and drizzle-kit's.
_DIALECTS: Final[Mapping[str, str]] = {
    "postgres": "postgresql",
    "postgresql": "postgresql",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlite": "sqlite",
    "turso": "sqlite",
    "mssql": "mssql",
    "oracle": "oracle",
    "db2": "db2",
}
#: Knex's `client` names.
_KNEX_CLIENTS: Final[Mapping[str, str]] = {
    "pg": "postgresql",
    "postgres": "postgresql",
    "postgresql": "postgresql",
    "pg-native": "postgresql",
    "pgnative": "postgresql",
    "cockroachdb": "cockroachdb",
    "mysql": "mysql",
    "mysql2": "mysql",
    "sqlite3": "sqlite",
    "sqlite": "sqlite",
    "better-sqlite3": "sqlite",
    "oracledb": "oracle",
    "oracle": "oracle",
    "mssql": "mssql",
}
#: TypeORM's `type` names.
_TYPEORM_TYPES: Final[Mapping[str, str]] = {
    "postgres": "postgresql",
    "aurora-postgres": "postgresql",
    "cockroachdb": "cockroachdb",
    "mysql": "mysql",
    "mariadb": "mysql",
    "aurora-mysql": "mysql",
    "sqlite": "sqlite",
    "better-sqlite3": "sqlite",
    "sqljs": "sqlite",
    "capacitor": "sqlite",
    "cordova": "sqlite",
    "expo": "sqlite",
    "react-native": "sqlite",
    "nativescript": "sqlite",
    "mssql": "mssql",
    "oracle": "oracle",
    "mongodb": "mongodb",
}
#: What makes a database object: the handles `raw-sql` knows, and Kysely's.
_MAKERS: Final = frozenset({*HANDLE_MAKERS, "kysely.Kysely"})
#: Prisma's datasource providers.
_PRISMA_PROVIDERS: Final[Mapping[str, str]] = {
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "mysql": "mysql",
    "sqlite": "sqlite",
    "sqlserver": "mssql",
    "mongodb": "mongodb",
    "cockroachdb": "cockroachdb",
}
_STRING_METHODS: Final = frozenset(
    {
        "replace",
        "replaceAll",
        "startsWith",
        "endsWith",
        "includes",
        "indexOf",
        "lastIndexOf",
        "split",
        "match",
        "search",
        "localeCompare",
    }
)
_COMPARISONS: Final = frozenset({"===", "==", "!==", "!="})
#: Sequelize's SQLite URL: `sqlite::memory:`, `sqlite:./app.db` (no `//`); a template
#: may give its path (`sqlite:${file}`).
_SQLITE_URL: Final = re.compile(r"sqlite:(?!//)\S+")
_SQLITE_HEAD: Final = re.compile(r"sqlite:(?!//)\S*")
#: Wrappers a value is read through.
_WRAPPERS: Final = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"}
)
_DEFAULTS: Final = frozenset({"||", "??"})
#: A Prisma `datasource` block (`[^{}]` bounds it, in linear time) and its `provider`.
_PRISMA_DATASOURCE: Final = re.compile(r"^\s*datasource\s+\w+\s*\{([^{}]*)\}", re.MULTILINE)
_PRISMA_PROVIDER: Final = re.compile(r"^\s*provider\s*=\s*\"([^\"\n]*)\"", re.MULTILINE)


@dataclass(frozen=True)
class JsEvidence:
    """Something in a JS/TS module (or a Prisma schema) that names a database."""

    relpath: str
    line: int
    database: str
    what: str


def js_evidence(module: JsModule) -> Iterator[JsEvidence]:
    """Everything in `module` that names a database (see the module docstring)."""
    yield from _string_evidence(module)
    yield from _import_evidence(module)
    names = JsNames(module)
    yield from _config_evidence(module, names)
    yield from _kysely_evidence(module, names)


def _not_targets(module: JsModule) -> set[tuple[int, int]]:
    """Spans of strings that name no connection: statements, arguments of string
    methods, operands of comparisons."""
    found: set[tuple[int, int]] = set()
    for statement in module.nodes("expression_statement"):
        found.update(_span(child) for child in statement.named_children())
    for call, callee in calls(module):
        prop = callee.field("property") if callee is not None else None
        if prop is None or prop.text() not in _STRING_METHODS:
            continue
        arguments = call.field("arguments")
        found.update(_span(a) for a in (arguments.named_children() if arguments else []))
    for comparison in module.nodes("binary_expression"):
        operator = comparison.field("operator")
        if operator is not None and operator.text() in _COMPARISONS:
            for side in ("left", "right"):
                operand = comparison.field(side)
                if operand is not None:
                    found.add(_span(operand))
    return found


def _span(node: SgNode) -> tuple[int, int]:
    span = node.range()
    return span.start.index, span.end.index


def _string_evidence(module: JsModule) -> Iterator[JsEvidence]:
    skipped = _not_targets(module)
    for node in module.nodes("string", "template_string"):
        if "://" not in node.text() and "sqlite:" not in node.text():
            continue  # not worth decoding
        if _span(node) in skipped:
            continue
        text, whole = _head(node)
        if text is None or len(text) > 2000:
            continue
        found = url_database(text, whole=whole)
        if found is not None:
            shown, database = found
            yield JsEvidence(
                module.relpath,
                module.line_of(node),
                database,
                f"a `{shown}...` connection URL",
            )
        elif (_SQLITE_URL if whole else _SQLITE_HEAD).fullmatch(text.strip()):
            yield JsEvidence(
                module.relpath, module.line_of(node), "sqlite", "a `sqlite:...` connection URL"
            )


def _head(node: SgNode) -> tuple[str | None, bool]:
    """A literal's whole text, or a template's text before its first `${...}` (as an
    f-string's first part is read for Python); whether it is the whole text."""
    whole = literal(node)
    if whole is not None:
        return whole, True
    parts = node.named_children()
    if not parts or parts[0].kind() == "template_substitution":
        return None, False
    head = []
    for part in parts:
        if part.kind() == "template_substitution":
            break
        head.append(part.text())
    return "".join(head), False


def _import_evidence(module: JsModule) -> Iterator[JsEvidence]:
    seen: set[tuple[int, str]] = set()
    for site in js_imports(module):
        for name, database in _DATABASE_PACKAGES.items():
            if database is None or not js_imports_module(site.specifier, name):
                continue
            if (site.line, name) not in seen:
                seen.add((site.line, name))
                # Node's own `node:sqlite` named as written (never more than the name).
                shown = f"node:{name}" if site.specifier.startswith("node:") else name
                what = f"the {DATABASE_NAMES.get(database, database)} driver `{shown}`"
                yield JsEvidence(module.relpath, site.line, database, what)
            break
        for prefix, database in _DIALECT_MODULES.items():
            if js_imports_module(site.specifier, prefix) and (site.line, prefix) not in seen:
                seen.add((site.line, prefix))
                yield JsEvidence(module.relpath, site.line, database, f"an import of `{prefix}`")


def _config_evidence(module: JsModule, names: JsNames) -> Iterator[JsEvidence]:
    """Sequelize's `dialect`, Knex's `client`, TypeORM's `type` in object literals."""
    stem = PurePosixPath(module.relpath).name.lower()
    knex = names.imports("knex") or stem.startswith("knexfile")
    typeorm = (
        names.imports("typeorm") or names.imports("@nestjs/typeorm") or stem.startswith("ormconfig")
    )
    dialect_owner = (
        "Sequelize's"
        if names.imports("sequelize") or names.imports("sequelize-typescript")
        else "drizzle-kit's"
        if names.imports("drizzle-kit")
        else "the ORM's"
    )
    for pair in module.nodes("pair"):
        key, value = pair.field("key"), pair.field("value")
        if key is None or value is None:
            continue
        name = literal(key) if key.kind() == "string" else key.text()
        if name == "dialect":
            table, orm = _DIALECTS, dialect_owner
        elif name == "client" and (knex or _beside(pair, {"connection"})):
            table, orm = _KNEX_CLIENTS, "Knex's"
        elif name == "type" and (typeorm or _beside(pair, {"entities", "synchronize"})):
            table, orm = _TYPEORM_TYPES, "TypeORM's"
        else:
            continue
        for string in _strings(value):
            written = literal(string)
            database = table.get((written or "").lower())
            if written is not None and database is not None:
                what = f'{orm} `{name}: "{written}"`'
                yield JsEvidence(module.relpath, module.line_of(string), database, what)


def _kysely_evidence(module: JsModule, names: JsNames) -> Iterator[JsEvidence]:
    """`new PostgresDialect({...})` of Kysely (or `SqliteDialect`...)."""
    for call, callee in calls(module):
        qualified = names.qualified(callee) if callee is not None else None
        database = _KYSELY_DIALECTS.get(qualified or "")
        if qualified is not None and database is not None:
            what = f"Kysely's `{qualified.rsplit('.', 1)[1]}`"
            yield JsEvidence(module.relpath, module.line_of(call), database, what)


def _beside(pair: SgNode, keys: set[str]) -> bool:
    """Whether the object holding `pair` has one of `keys` too."""
    owner = pair.parent()
    if owner is None:
        return False
    for sibling in owner.named_children():
        key = sibling.field("key") if sibling.kind() == "pair" else sibling
        if key is not None and (literal(key) or key.text()) in keys:
            return True
    return False


def _strings(value: SgNode) -> Iterator[SgNode]:
    """The string literals a configuration value may be: itself, a default after `||`
    or `??`, either branch of a condition."""
    kind = value.kind()
    if kind in ("string", "template_string"):
        yield value
    elif kind in _WRAPPERS:
        for inner in value.named_children()[:1]:
            yield from _strings(inner)
    elif kind == "binary_expression":
        operator = value.field("operator")
        if operator is not None and operator.text() in _DEFAULTS:
            for side in ("left", "right"):
                operand = value.field(side)
                if operand is not None:
                    yield from _strings(operand)
    elif kind == "ternary_expression":
        for field in ("consequence", "alternative"):
            branch = value.field(field)
            if branch is not None:
                yield from _strings(branch)


def prisma_evidence(relpath: str, text: str) -> Iterator[JsEvidence]:
    """The `provider` of each `datasource` of a Prisma schema, at its line."""
    for block in _PRISMA_DATASOURCE.finditer(text):
        for provider in _PRISMA_PROVIDER.finditer(block.group(1)):
            written = provider.group(1).strip()
            database = _PRISMA_PROVIDERS.get(written.lower())
            if database is not None:
                at = block.start(1) + provider.start(1)
                line = text.count("\n", 0, at) + 1
                what = f'the Prisma datasource\'s `provider = "{written}"`'
                yield JsEvidence(relpath, line, database, what)


def js_database_use(module: JsModule) -> int | None:
    """The line where `module` makes a database object (a driver's pool or client, a
    Sequelize, a DataSource, a Knex instance, a PrismaClient, a Kysely), or None."""
    names = JsNames(module)
    for call, callee in calls(module):
        if callee is not None and names.qualified(callee) in _MAKERS:
            return module.line_of(call)
    return None

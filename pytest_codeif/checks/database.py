"""The `database` check: the code uses the database it was asked to (SQLite, PostgreSQL...)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared.config_urls import file_kind, file_urls
from pytest_codeif.checks.shared.db_urls import URL_HEAD, URL_SCHEMES
from pytest_codeif.checks.shared.drivers import DATABASE_NAMES, driver_imports
from pytest_codeif.checks.shared.import_sites import import_sites, imports_module
from pytest_codeif.checks.shared.js_database import js_database_use, js_evidence, prisma_evidence
from pytest_codeif.checks.shared.left_out import left_out_notes
from pytest_codeif.checks.shared.orm_models import Models
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

_SCHEMES: Final = URL_SCHEMES
_URL: Final = URL_HEAD
_DRIVER_NAME = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9_]*)(?:\+(?P<driver>[A-Za-z0-9_]+))?")
#: Django's `ENGINE` values (and GeoDjango's).
_DJANGO_ENGINE = re.compile(r"django\.(?:contrib\.gis\.)?db\.backends\.(?P<backend>\w+)")
_DJANGO_BACKENDS: Final = {
    "sqlite3": "sqlite",
    "spatialite": "sqlite",
    "postgresql": "postgresql",
    "postgresql_psycopg2": "postgresql",
    "postgis": "postgresql",
    "mysql": "mysql",
    "oracle": "oracle",
}
#: Keyword arguments that name a URL's scheme (`URL.create(drivername=...)`, pydantic's
#: `MultiHostUrl.build(scheme=...)`), and calls whose first argument is one.
_SCHEME_KEYWORDS: Final = frozenset({"drivername", "scheme"})
_URL_CREATE: Final = frozenset(
    {"sqlalchemy.URL.create", "sqlalchemy.engine.URL.create", "sqlalchemy.engine.url.URL.create"}
)
#: Pydantic's URL types for one database.
_PYDANTIC_DSNS: Final = {
    f"{package}.{name}": database
    for package in ("pydantic", "pydantic.networks")
    for name, database in (
        ("PostgresDsn", "postgresql"),
        ("CockroachDsn", "cockroachdb"),
        ("MySQLDsn", "mysql"),
        ("MariaDBDsn", "mysql"),
    )
}
#: Imports only code for one database makes.
_DIALECT_MODULES: Final = {
    "sqlalchemy.dialects.postgresql": "postgresql",
    "sqlalchemy.dialects.mysql": "mysql",
    "sqlalchemy.dialects.sqlite": "sqlite",
    "sqlalchemy.dialects.oracle": "oracle",
    "sqlalchemy.dialects.mssql": "mssql",
    "django.contrib.postgres": "postgresql",
}
#: Calls that connect to a database without saying which (the URL comes from elsewhere).
_CONNECTS: Final = frozenset(
    {
        "sqlalchemy.create_engine",
        "sqlalchemy.engine.create_engine",
        "sqlalchemy.ext.asyncio.create_async_engine",
        "sqlmodel.create_engine",
        "databases.Database",
        "dj_database_url.config",
        "dj_database_url.parse",
        "tortoise.Tortoise.init",
        "peewee.PostgresqlDatabase",
    }
)
_STR_METHODS: Final = frozenset(
    {
        "replace",
        "startswith",
        "endswith",
        "removeprefix",
        "removesuffix",
        "find",
        "rfind",
        "index",
        "split",
        "partition",
        "count",
    }
)
DATABASES: Final = ("sqlite", "postgresql", "mysql", "oracle", "mssql")


@dataclass(frozen=True)
class Evidence:
    """Something in the code that names a database: where, which, and how."""

    module: ParsedModule
    node: cst.CSTNode
    database: str
    what: str


def _not_targets(module: ParsedModule) -> set[int]:
    """Ids of strings that name no connection: whole statements (docstrings), patterns
    given to string methods (`url.replace("postgres://", "postgresql://")`, Heroku's
    rewrite) and compared with (`scheme == "mysql://"`)."""
    found = {
        id(node.value)
        for node in module.nodes(cst.Expr)
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
    }
    for call in module.nodes(cst.Call):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _STR_METHODS:
            found.update(id(arg.value) for arg in call.args)
    for comparison in module.nodes(cst.Comparison):
        found.add(id(comparison.left))
        found.update(id(target.comparator) for target in comparison.comparisons)
    return found


def _string_evidence(module: ParsedModule) -> Iterator[Evidence]:
    skipped = _not_targets(module)
    for node in module.nodes(cst.SimpleString, cst.FormattedString):
        if id(node) in skipped:
            continue
        if isinstance(node, cst.SimpleString):
            if "://" not in node.value and "backends" not in node.value:
                continue  # neither a URL nor an ENGINE: not worth decoding
            value = node.evaluated_value
            if not isinstance(value, str) or len(value) > 2000:
                continue
            text, whole = value, True
        else:
            first = node.parts[0] if node.parts else None
            if not isinstance(first, cst.FormattedStringText):
                continue
            text, whole = first.value, False
        url = _URL.match(text)
        if url is not None and (not whole or not any(c.isspace() for c in text.strip())):
            database = _SCHEMES.get(url["scheme"].lower())
            if database is not None:
                shown = url.group().strip()
                yield Evidence(module, node, database, f"a `{shown}...` connection URL")
            continue
        engine = _DJANGO_ENGINE.fullmatch(text.strip()) if whole else None
        if engine is not None and engine["backend"] in _DJANGO_BACKENDS:
            database = _DJANGO_BACKENDS[engine["backend"]]
            yield Evidence(module, node, database, f"the Django `ENGINE` `{text.strip()}`")


def _scheme_evidence(module: ParsedModule) -> Iterator[Evidence]:
    """`URL.create("postgresql+psycopg2", ...)`, `build(scheme="postgresql+asyncpg")`."""
    for call in module.nodes(cst.Call):
        candidates = [
            a.value for a in call.args if a.keyword and a.keyword.value in _SCHEME_KEYWORDS
        ]
        if call.args and call.args[0].keyword is None and module.qualified(call.func) & _URL_CREATE:
            candidates.append(call.args[0].value)
        for value in candidates:
            if not isinstance(value, cst.SimpleString):
                continue
            name = _DRIVER_NAME.fullmatch(str(value.evaluated_value))
            database = _SCHEMES.get(name["scheme"].lower()) if name else None
            if name is not None and database is not None:
                yield Evidence(module, value, database, f"the URL scheme `{name.group()}`")


def _type_evidence(module: ParsedModule) -> Iterator[Evidence]:
    """Pydantic's `PostgresDsn`, `MySQLDsn`... wherever they are named."""
    for node in module.nodes(cst.Name, cst.Attribute):
        last = node.value if isinstance(node, cst.Name) else node.attr.value
        if not last.endswith("Dsn"):
            continue
        for name in module.qualified(node):
            database = _PYDANTIC_DSNS.get(name)
            if database is not None:
                yield Evidence(module, node, database, f"pydantic's `{last}`")
                break


def _import_evidence(module: ParsedModule) -> Iterator[Evidence]:
    sites = list(import_sites(module))
    for found in driver_imports(module, sites=sites):
        if found.database is not None:
            database = DATABASE_NAMES.get(found.database, found.database)
            what = f"the {database} driver `{found.driver}`"
            yield Evidence(module, found.site.node, found.database, what)
    seen: set[int] = set()
    for site in sites:
        for prefix, database in _DIALECT_MODULES.items():
            if imports_module(site.module, prefix) and id(site.node) not in seen:
                seen.add(id(site.node))
                yield Evidence(module, site.node, database, f"an import of `{prefix}`")


def evidence(module: ParsedModule) -> Iterator[Evidence]:
    """Everything in `module` that names a database."""
    yield from _string_evidence(module)
    yield from _scheme_evidence(module)
    yield from _type_evidence(module)
    yield from _import_evidence(module)


@dataclass(frozen=True)
class FileEvidence:
    """A connection URL in a project's file other than Python (`.env`, `run.sh`...)."""

    relpath: str
    line: int
    database: str
    what: str


_KIND_NAMES: Final = {
    "environment": "an environment file",
    "shell": "a script",
    "compose": "a compose file's `environment`",
    "settings": "a settings file",
}


def file_evidence(ctx: CheckContext) -> Iterator[FileEvidence]:
    """The connection URLs of the project's other files in the constraint's scope (see
    `config_urls.py` for which files are read, and which are test configuration)."""
    unread = [item for item in ctx.unit.left_out if file_kind(item.relpath) is not None]
    ctx.notes.extend(f"{note} (not read for connection URLs)" for note in left_out_notes(unread))
    for other in ctx.unit.other_files:
        if not ctx.in_scope(other.relpath) or other.text is None:
            continue
        for url in file_urls(other.relpath, other.text):
            scheme = url.scheme.split("+", 1)[0].lower()
            database = _SCHEMES.get(scheme)
            if database is not None:
                what = f"a `{url.scheme}://...` connection URL in {_KIND_NAMES[url.kind]}"
                yield FileEvidence(other.relpath, url.line, database, what)


def _database_use(modules: list[ParsedModule]) -> tuple[str, int] | None:
    """Where the code uses a database without naming it (file, line): an engine made
    from a URL given elsewhere, a `DATABASES` setting, an ORM model."""
    for module in modules:
        for call in module.nodes(cst.Call):
            if module.qualified(call.func) & _CONNECTS:
                return module.relpath, module.line_of(call)
        for node in module.nodes(cst.Assign):
            if any(
                isinstance(t.target, cst.Name) and t.target.value == "DATABASES"
                for t in node.targets
            ):
                return module.relpath, module.line_of(node)
    models = Models.of(modules).accepted(None)
    return (models[0].module.relpath, models[0].module.line_of(models[0].node)) if models else None


def _js_database_use(modules: list[JsModule]) -> tuple[str, int] | None:
    """Where JS/TS code makes a database object (`new Sequelize(process.env.URL)`,
    `knex(config)`, `new PrismaClient()`) without naming the database."""
    for module in modules:
        line = js_database_use(module)
        if line is not None:
            return module.relpath, line
    return None


class DatabaseCheck(Check):
    """The code uses the database it was asked to: SQLite, PostgreSQL, MySQL...

    Why: "store it in PostgreSQL" is not met by code that falls back to
    `sqlite:///dev.db`. Evidence, in the code: connection URLs in string literals and
    f-strings (`sqlite:///app.db`,
    `postgresql+psycopg://...`, `mysql+pymysql://...`; docstrings are not evidence),
    URL schemes given to `URL.create(...)` or as `drivername=`/`scheme=`, Django's
    `DATABASES` `ENGINE` (`django.db.backends.postgresql`), pydantic's `PostgresDsn` /
    `MySQLDsn` named anywhere, driver imports (`psycopg2`, `pymysql`, `sqlite3`...),
    and imports that only code for one database makes (`sqlalchemy.dialects.postgresql`,
    `django.contrib.postgres`). MariaDB counts as MySQL. Strings that are patterns, not
    targets, are not evidence: arguments of string methods (Heroku's
    `url.replace("postgres://", "postgresql://")`) and operands of comparisons.

    JavaScript and TypeScript (`checks/shared/js_database.py`): connection URLs in string
    and template literals (`postgres://...`, a template's text before its first `${...}`,
    Sequelize's `sqlite::memory:`; a default such as `process.env.DATABASE_URL ||
    "sqlite:..."` counts), driver imports (`pg`, `postgres`, `@neondatabase/serverless`,
    `mysql2`, `sqlite3`, `better-sqlite3`, `node:sqlite`, `@libsql/client` as SQLite:
    every driver `db-drivers` knows; and `mongodb`, `mongoose` as MongoDB), Drizzle's and
    MikroORM's dialect modules (`drizzle-orm/pg-core`, `@mikro-orm/postgresql`), and ORM
    settings in object literals: Sequelize's `dialect: "postgres"`, Knex's `client: "pg"`
    (in a module importing `knex`, a `knexfile`, or beside `connection`), TypeORM's
    `type: "postgres"` (in a module importing `typeorm`, an `ormconfig`, or beside
    `entities`/`synchronize`), a default or either branch of a condition included
    (`dialect: process.env.DIALECT ?? "sqlite"`); and a Prisma schema's `datasource`
    `provider = "postgresql"`. Statements (`"use strict"`), string-method arguments and
    comparison operands are not evidence, as in Python. A database object made without
    naming one (`new Sequelize(process.env.DATABASE_URL)`, `knex(config)`, `new
    PrismaClient()` with no schema) is a use, as `create_engine(...)` is.

    In a `directory:` task's other files, connection URLs (`DATABASE_URL=postgresql://...`)
    in environment files (`.env`, `.env.*`, `*.env`), scripts (`run.sh` and any `*.sh`,
    `Procfile`, `Dockerfile`), compose files' `environment:` entries
    (`docker-compose*.yml`, `compose*.yaml`) and settings files (`*.ini`, `*.cfg`,
    `*.toml`, `*.conf`, `*.yml`, `*.yaml`, `*settings*.json`, `*config*.json`), each at its
    file and line; comment lines are not read. Test configuration is not evidence
    (files in a `test`/`tests` folder or named for tests, such as `.env.test`;
    `pytest.ini`, `tox.ini`, the pytest, tox and coverage sections of `setup.cfg` and
    `pyproject.toml`), nor are examples (`.env.example`, `*.sample`, `*template*`) or CI
    files (hidden YAML files such as `.gitlab-ci.yml`). A gitignored `.env` is not part
    of the project (re-include it with the task's `exclude: ["!.env"]`).

    Violated: at each piece of evidence naming another database (a default in
    `os.getenv("DATABASE_URL", "sqlite:///dev.db")` included: that is where the code
    goes when nothing is set), or when the code uses no database at all. Undecidable
    (`no-observations`): the code uses a database (`create_engine(...)`,
    `create_async_engine`, `DATABASES`, ORM models; in JS/TS a Sequelize, Knex,
    DataSource or PrismaClient made) but names none, in the code or in
    those files, because the URL comes from outside the project. Scope test settings out
    with `exclude-files`.

    Options: `is` (`sqlite`, `postgresql`, `mysql`, `oracle` or `mssql`).

    Example:

        - check: database
          is: postgresql
          exclude-files: ["tests/**"]
    """

    name = "database"
    category = "Environment"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Connect to the database the task names in every connection URL, setting and default "
        '(`os.getenv("DATABASE_URL", ...)` included), and remove the drivers and URLs of other '
        "databases."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["is"],
        "properties": {"is": {"enum": list(DATABASES)}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            from sqlalchemy import create_engine

            engine = create_engine("sqlite:///./app.db", connect_args={"check_same_thread": False})
            """,
            {"is": "sqlite"},
        ),
        Sample(
            '''
            """Settings. Earlier versions used mysql://root@localhost/app."""

            DATABASES = {
                "default": {
                    "ENGINE": "django.db.backends.postgresql",
                    "NAME": "app",
                }
            }
            LOG = "moved from mysql://old-host to the new cluster"
            ''',
            {"is": "postgresql"},
        ),
        Sample(
            """
            import os

            from pydantic import PostgresDsn
            from pydantic_core import MultiHostUrl

            def url(user: str, host: str) -> PostgresDsn:
                return MultiHostUrl.build(scheme="postgresql+psycopg", username=user, host=host)

            ASYNC_URL = f"postgresql+asyncpg://{os.environ['USER']}@db/app"
            """,
            {"is": "postgresql"},
        ),
        Sample(
            {
                "app.py": """
                    import os

                    from sqlalchemy import create_engine

                    engine = create_engine(os.environ["DATABASE_URL"])
                    """,
                ".env": "# a local database\nDATABASE_URL=postgresql://user:password@postgres/conduit\n",
                ".env.test": "DATABASE_URL=sqlite:///test.db\n",
                "run.sh": "#!/bin/sh\nexport DATABASE_URL=${DATABASE_URL:-postgresql://postgres/app}\n",
            },
            {"is": "postgresql"},
        ),
        Sample(  # a default URL, and a pattern given to a string method
            """
            const { Pool } = require("pg");

            const url = process.env.DATABASE_URL || "postgres://app:secret@db:5432/app";
            const pool = new Pool({ connectionString: url.replace("mysql://", "") });
            module.exports = pool;
            """,
            {"is": "postgresql"},
            language="javascript",
        ),
        Sample(
            """
            import { Sequelize } from "sequelize";

            export const sequelize = new Sequelize({
              dialect: "sqlite",
              storage: process.env.SQLITE_FILE ?? "./app.sqlite",
            });
            """,
            {"is": "sqlite"},
            language="typescript",
        ),
        Sample(
            {
                "src/db.ts": 'import { PrismaClient } from "@prisma/client";\n'
                "export const prisma = new PrismaClient();\n",
                "prisma/schema.prisma": 'generator client {\n  provider = "prisma-client-js"\n}\n'
                'datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n}\n',
            },
            {"is": "postgresql"},
        ),
    )
    violated_by = (
        Sample(
            """
            import os

            from sqlalchemy import create_engine

            engine = create_engine(os.getenv("DATABASE_URL", "sqlite:///dev.db"))
            """,
            {"is": "postgresql"},
            message="SQLite (a `sqlite://...` connection URL), but the database must be PostgreSQL",
        ),
        Sample(
            """
            import pymysql

            def connect():
                return pymysql.connect(host="db", user="app")
            """,
            {"is": "postgresql"},
            message="MySQL (the MySQL driver `pymysql`)",
        ),
        Sample(
            'DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db"}}\n',
            {"is": "mysql"},
            message="SQLite (the Django `ENGINE` `django.db.backends.sqlite3`)",
        ),
        Sample(
            """
            from sqlalchemy.dialects.postgresql import JSONB

            COLUMN_TYPE = JSONB
            """,
            {"is": "sqlite"},
            message="an import of `sqlalchemy.dialects.postgresql`",
        ),
        Sample(
            "def add(a, b):\n    return a + b\n",
            {"is": "sqlite"},
            message="no database is used",
        ),
        Sample(
            {
                "app.py": """
                    import os

                    from sqlalchemy import create_engine

                    engine = create_engine(os.environ["DATABASE_URL"])
                    """,
                "run.sh": "#!/bin/sh\nexport DATABASE_URL=sqlite:///app.db\nexec python app.py\n",
            },
            {"is": "postgresql"},
            message="uses SQLite (a `sqlite://...` connection URL in a script)",
            path="run.sh",
            line=2,
        ),
        Sample(
            """
            const { Sequelize } = require("sequelize");

            const sequelize = new Sequelize(process.env.DATABASE_URL || "sqlite::memory:");
            module.exports = sequelize;
            """,
            {"is": "postgresql"},
            language="javascript",
            message="uses SQLite (a `sqlite:...` connection URL)",
            line=3,
        ),
        Sample(
            """
            import Database from "better-sqlite3";

            export const db = new Database("app.db");
            """,
            {"is": "postgresql"},
            language="typescript",
            message="SQLite (the SQLite driver `better-sqlite3`)",
            line=1,
        ),
        Sample(
            """
            const knex = require("knex")({
              client: "mysql2",
              connection: { host: "db", user: "app", database: "app" },
            });
            """,
            {"is": "postgresql"},
            language="javascript",
            message='MySQL (Knex\'s `client: "mysql2"`)',
            line=2,
        ),
        Sample(
            """
            import { DataSource } from "typeorm";

            export const dataSource = new DataSource({
              type: "postgres",
              url: `postgres://${process.env.DB_USER}@db/app`,
              entities: [],
            });
            """,
            {"is": "sqlite"},
            language="typescript",
            message='PostgreSQL (TypeORM\'s `type: "postgres"`)',
            line=4,
        ),
        Sample(
            {
                "src/db.js": 'const { PrismaClient } = require("@prisma/client");\n'
                "module.exports = new PrismaClient();\n",
                "prisma/schema.prisma": 'datasource db {\n  provider = "sqlite"\n'
                '  url = "file:./dev.db"\n}\n',
            },
            {"is": "postgresql"},
            message='SQLite (the Prisma datasource\'s `provider = "sqlite"`)',
            path="prisma/schema.prisma",
            line=2,
        ),
        Sample(
            "export function add(a, b) {\n  return a + b;\n}\n",
            {"is": "sqlite"},
            language="javascript",
            message="no database is used",
        ),
    )

    def advise(self) -> str:
        target = self.options.get("is", "")
        return (
            f"Use {target} in every connection URL, setting and default "
            f'(`os.getenv("DATABASE_URL", ...)` included), and remove the drivers and URLs '
            "of other databases."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        wanted: str = self.options["is"]
        wanted_name = DATABASE_NAMES[wanted]

        def uses(database: str, what: str) -> str:
            named = DATABASE_NAMES.get(database, database)
            return f"uses {named} ({what}), but the database must be {wanted_name}"

        modules = ctx.modules()
        js_modules = ctx.js_modules()
        found = [e for module in modules for e in evidence(module)]
        in_js = [e for module in js_modules for e in js_evidence(module)]
        in_js += [
            e
            for other in ctx.unit.other_files
            if other.relpath.endswith(".prisma") and other.text is not None
            if ctx.in_scope(other.relpath)
            for e in prisma_evidence(other.relpath, other.text)
        ]
        in_files = list(file_evidence(ctx))
        findings = [
            ctx.report(e.module, e.node, uses(e.database, e.what))
            for e in found
            if e.database != wanted
        ]
        findings += [
            ctx.finding(uses(e.database, e.what), path=e.relpath, line=e.line)
            for e in in_js
            if e.database != wanted
        ]
        findings += [
            ctx.finding(uses(e.database, e.what), path=e.relpath, line=e.line)
            for e in in_files
            if e.database != wanted
        ]
        if found or in_js:
            return findings
        use = _database_use(modules) or _js_database_use(js_modules)
        if use is not None and in_files:  # the URL the code reads is set beside it
            return findings
        if use is not None:
            relpath, line = use
            raise Undecidable(
                "no-observations",
                f"the code uses a database ({relpath}:{line}) but does "
                "not say which: no connection URL, Django ENGINE, driver, dialect import "
                "or ORM setting names one, in the code or in its `.env`, scripts, compose "
                "or settings files (the URL comes from outside the project)",
            )
        first = modules or js_modules
        path = first[0].relpath if first else None
        return [
            *findings,
            ctx.finding(
                f"no database is used: no connection URL, Django `ENGINE`, database driver "
                f"or engine; the database must be {wanted_name}",
                path=path,
                line=1,
            ),
        ]

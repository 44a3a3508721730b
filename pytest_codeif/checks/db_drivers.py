"""The `db-drivers` check: no module imports a database driver."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.drivers import (
    describe,
    driver_imports,
)
from pytest_codeif.checks.shared.js_data_access import js_driver_imports

#: A Python module (`clickhouse_driver`) or an npm package (`@planetscale/database`).
_NAMES = {
    "type": "array",
    "items": {"type": "string", "pattern": "^(@[\\w.-]+/)?[A-Za-z_][\\w.-]*$"},
}


class DbDriversCheck(Check):
    """No module imports a database driver: the database is reached through the ORM or the
    data-access layer, not a DB-API connection opened anywhere.

    Why: "only the repository layer talks to the database" and "use the ORM, not raw
    connections" are broken the moment a route imports `psycopg2`. Drivers known:
    sqlite3, aiosqlite, apsw, psycopg2, psycopg (and psycopg_pool), asyncpg, pg8000,
    aiopg, PyGreSQL (pgdb), pymysql, MySQLdb, mysql.connector, mysqlx, aiomysql, asyncmy,
    mariadb, cx_Oracle, oracledb, pymssql, pyodbc, aioodbc, ibm_db, duckdb. Submodules
    count (`from psycopg2 import sql`), and so do `__import__("sqlite3")` and
    `importlib.import_module("sqlite3")`. A driver named only in a connection URL
    (`postgresql+psycopg://...`) is the ORM's business and does not count. To allow the
    data-access layer its driver, scope the constraint (`exclude-modules:
    [app.repositories]`).

    JavaScript and TypeScript: the npm drivers pg (and pg-pool, pg-promise), postgres,
    @neondatabase/serverless, @vercel/postgres, mysql, mysql2, mariadb, sqlite3,
    better-sqlite3, sqlite (and Node's `node:sqlite`), @libsql/client, tedious, mssql,
    oracledb, duckdb, @duckdb/node-api and odbc, imported by `import`, `require`,
    `import()` or `import x = require()`, a path inside one counting for it
    (`mysql2/promise`). An ORM (Sequelize, TypeORM, Prisma, Knex) loads its driver
    itself: a driver listed only in package.json does not count. A JS/TS module is
    named by its path in a scope (`exclude-modules: [src.db]` leaves `src/db/` out).

    Options: `add` (more module names to treat as drivers).

    Example:

        - check: db-drivers
          add: [clickhouse_driver]
    """

    name = "db-drivers"
    category = "Environment"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Do not import the database driver here: reach the database through the ORM's session or "
        "the data-access layer's functions, and keep driver imports in the modules the "
        "constraint's scope leaves out."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"add": {**_NAMES, "minItems": 1}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            from sqlalchemy import create_engine, select
            from sqlalchemy.orm import Session

            engine = create_engine("postgresql+psycopg2://app@db/app")

            def users(session: Session, user_cls):
                return session.scalars(select(user_cls)).all()
            """
        ),
        Sample(  # Sequelize loads the sqlite3 driver itself: the code imports only the ORM
            """
            const { Sequelize } = require("sequelize");
            const sequelize = new Sequelize({ dialect: "sqlite", storage: "app.db" });
            module.exports = sequelize;
            """,
            language="javascript",
        ),
        Sample(  # a module merely named like a driver, and a string naming one
            """
            from app import sqlite3_helpers

            DRIVER = "psycopg2"
            """
        ),
    )
    violated_by = (
        Sample(
            """
            import sqlite3

            def users():
                with sqlite3.connect("app.db") as conn:
                    return conn.execute("SELECT * FROM users").fetchall()
            """,
            message="imports the database driver `sqlite3` (SQLite)",
        ),
        Sample("from psycopg2 import sql\n", message="`psycopg2` (PostgreSQL)"),
        Sample("import mysql.connector as db\n", message="`mysql.connector` (MySQL)"),
        Sample("conn = __import__('asyncpg')\n", message="`asyncpg`"),
        Sample(
            "import clickhouse_driver\n",
            {"add": ["clickhouse_driver"]},
            message="`clickhouse_driver`",
        ),
        Sample(
            """
            import express from "express";
            import Database from "better-sqlite3";

            const db = new Database("app.db");
            """,
            language="javascript",
            message="imports the database driver `better-sqlite3` (SQLite)",
            line=2,
        ),
        Sample(
            'const mysql = require("mysql2/promise");\n',
            language="javascript",
            message="`mysql2` (MySQL)",
        ),
        Sample(
            'import { createClient } from "@planetscale/database";\n',
            {"add": ["@planetscale/database"]},
            language="typescript",
            message="`@planetscale/database`",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        extra = self.options.get("add", [])
        advice = "reach the database through the ORM or the data-access layer"
        findings = [
            ctx.report(
                module,
                found.site.node,
                f"imports the database driver {describe(found)}; {advice}",
            )
            for module in ctx.modules()
            for found in driver_imports(module, extra)
        ]
        findings += [
            ctx.finding(
                f"imports the database driver {found.describe()}; {advice}",
                path=found.relpath,
                line=found.line,
            )
            for module in ctx.js_modules()
            for found in js_driver_imports(module, extra)
        ]
        return findings

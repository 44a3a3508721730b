"""The `db-drivers` check: no module imports a database driver."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.drivers import (
    describe,
    driver_imports,
)

_NAMES = {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"}}


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

    Options: `add` (more module names to treat as drivers).

    Example:

        - check: db-drivers
          add: [clickhouse_driver]
    """

    name = "db-drivers"
    category = "Environment"
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
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        extra = self.options.get("add", [])
        return [
            ctx.report(
                module,
                found.site.node,
                f"imports the database driver {describe(found)}; reach the database "
                "through the ORM or the data-access layer",
            )
            for module in ctx.modules()
            for found in driver_imports(module, extra)
        ]

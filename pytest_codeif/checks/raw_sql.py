"""The `raw-sql` check: no SQL text reaches a database executor."""

from __future__ import annotations

from collections.abc import Iterable

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.js_code import JsCode
from pytest_codeif.checks.shared.js_sql_sites import js_raw_sql_sites, orm_hint_js
from pytest_codeif.checks.shared.raw_sql_sites import (
    orm_hint,
    raw_sql_sites,
)
from pytest_codeif.checks.shared.sql_text import (
    SqlParser,
)


class RawSqlCheck(Check):
    """No raw SQL reaches a database executor: queries go through the ORM.

    Why: "use the ORM, no raw SQL" (or "raw SQL only in the repositories") is a common
    architecture rule, and a regex for `SELECT` cannot tell a query from a log message.
    This check finds text that a real SQL parser (sqlglot) reads as an SQL statement
    (SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, WITH..., PRAGMA, BEGIN...;
    English that sqlglot would accept, `Update your profile`, is not one), built by a
    literal, an f-string, `+`, `%`, `.format()` or `"".join([...])` (unknown parts stand
    for a value or a name), and follows it to the executor it reaches: passed directly,
    or through a variable of the same function (the last assignment before the call;
    branches are not told apart), a module-level constant, a `self.` attribute or a
    constant imported from another module of the project. Executors: DB-API `execute`,
    `executemany`, `executescript`; SQLAlchemy `text()` and `exec_driver_sql`; Django
    `Model.objects.raw()` / `.extra()`, `RawSQL` and `RunSQL`; asyncpg and psycopg
    `execute` / `fetch` / `fetchrow` / `fetchval`; the `databases` package's
    `fetch_all` / `fetch_one`; `pandas.read_sql`; psycopg2's `execute_values` /
    `execute_batch`. Names are resolved through imports.

    What counts: an SQL statement passed to any of those, whatever the object; SQL
    built where it cannot be followed (a parameter, a file's content) passed to
    `text()`, `RawSQL`, `exec_driver_sql`, `executescript`, `.raw()` / `.extra()` of a
    `Model.objects` chain, or to `execute` / `fetch...` of an object known to be a raw
    connection, cursor or pool (made by a driver's `connect`, Django's `connection` or
    `connections[...]`, any `.cursor()`, `engine.raw_connection()`, or annotated with a
    driver's type). Not raw SQL: a log message or docstring that reads like SQL, SQL
    text that never reaches an executor, a query built with the ORM (`select(User)`,
    `session.execute(select(User))`), a `text()` fragment that is no statement
    (`server_default=text("now()")`). Object types are not inferred, so SQL built out
    of sight and run by an object of unknown type is not seen.

    JavaScript and TypeScript (Node backends, `checks/shared/js_sql_sites.py`): the same
    text, built by literals, template literals (`${...}` an unknown part), `+` and
    `[...].join()`, followed through variables and constants imported from the
    project's modules, reaching `query` / `execute` / `run` / `all` / `get` / `exec` /
    `prepare` (pg, mysql2, sqlite3, better-sqlite3), `sequelize.query`, TypeORM's
    `query`, `knex.raw` and Knex's `whereRaw`-style methods, Prisma's `$queryRaw` /
    `$executeRaw` (and their `Unsafe` forms), or a tagged template (sql`SELECT ...`).
    SQL built out of sight counts when it is passed to Prisma's or Knex's raw methods or
    to a database object the code made (`new Pool()`, `new Sequelize()`, `new
    DataSource()`, `knex({...})`, `new DatabaseSync()` of `node:sqlite`, followed through
    the project's imports: `import sequelize from "../config/database.js"`), and such a
    handle (a Knex instance's fragments aside) runs whatever text it is given, a statement
    or not (`db.exec("VACUUM INTO 'backup.db'")`), as Python's raw connections do. Typed
    calls count alike (`await pool.query<UserRow>(sql)`). A JS/TS module is named by its
    path in a scope (`exclude-modules: [src.repositories]` leaves `src/repositories/` out).

    To allow raw SQL in some modules (the repositories, migrations, which run raw SQL by
    design), scope the constraint. Each evaluation parses at most half a million
    characters of SQL-like text (past that it is undecidable, `too-large`).

    Options: none.

    Example:

        - check: raw-sql
          exclude-modules: [app.repositories]
          exclude-files: [migrations/, alembic/]
    """

    name = "raw-sql"
    category = "Code Quality"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Express the query with the ORM (`session.execute(select(User).where(...))`, "
        "`User.objects.filter(...)`) instead of SQL text; where raw SQL is really needed, move "
        "it into a module the constraint's scope leaves out (such as the repositories)."
    )
    satisfied_by = (
        Sample(
            '''
            import logging

            from sqlalchemy import select
            from sqlalchemy.orm import Session

            from app.models import User

            logger = logging.getLogger(__name__)
            HELP = "SELECT * FROM users lists every user"

            def find(session: Session, uid: int):
                """Run SELECT * FROM users WHERE id = :uid, through the ORM."""
                user = session.execute(select(User).where(User.id == uid)).scalar_one()
                if user is None:
                    logger.info("SELECT failed for user %s", uid)
                    logger.info("SELECT * FROM users found nothing for %s", uid)
                return user
            '''
        ),
        Sample(  # `.fetch` of a client, `.execute` of a command: not SQL
            """
            async def load(client, runner):
                page = await client.fetch("https://example.com/users")
                runner.execute("Update your profile")
                return page
            """
        ),
        Sample(  # Sequelize's query methods, a route path, a log line, a fragment of Knex
            """
            import { Op } from "sequelize";
            import { User } from "../models/index.js";

            router.get("/users", async (req, res) => {
              console.log("SELECT users");
              const users = await User.findAll({ where: { age: { [Op.gt]: 18 } } });
              const adults = await knex("users").whereRaw("age > ?", [18]);
              res.json({ users, adults });
            });
            """,
            language="javascript",
        ),
        Sample(  # the name held SQL once, but what is executed is an ORM query
            """
            from sqlalchemy import select

            def users(session, User):
                query = "SELECT * FROM users"
                print(query)
                query = select(User)
                return session.execute(query).scalars().all()
            """
        ),
    )
    violated_by = (
        Sample(
            """
            import sqlite3

            def user(uid):
                cursor = sqlite3.connect("app.db").cursor()
                cursor.execute("SELECT * FROM users WHERE id = ?", (uid,))
                return cursor.fetchone()
            """,
            message="raw SQL `SELECT ... FROM users` passed to `cursor.execute`",
        ),
        Sample(
            """
            def rename(cur, uid, name):
                query = f"UPDATE users SET name = '{name}' WHERE id = {uid}"
                cur.execute(query)
            """,
            message="raw SQL `UPDATE users SET ...` passed to `cur.execute`",
        ),
        Sample(
            """
            from sqlalchemy import text as sql

            def count(session):
                return session.execute(sql("SELECT count(*) FROM orders")).scalar()
            """,
            message="raw SQL `SELECT ... FROM orders` passed to `sqlalchemy.text`",
        ),
        Sample(
            """
            from django.contrib.auth.models import User

            def staff():
                return User.objects.raw("SELECT * FROM auth_user WHERE is_staff")
            """,
            message="passed to `User.objects.raw`: use the ORM (`Model.objects.filter(...)`)",
        ),
        Sample(
            """
            async def orders(conn, uid):
                return await conn.fetch(
                    "SELECT id, total FROM orders " + "WHERE user_id = $1", uid
                )
            """,
            message="raw SQL `SELECT ... FROM orders` passed to `conn.fetch`",
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/queries.py": 'DELETE_USER = """\n    DELETE FROM users WHERE id = %s\n"""\n',
                "app/routes.py": """
                    from .queries import DELETE_USER

                    def delete(db, uid):
                        db.execute(DELETE_USER, (uid,))
                    """,
            },
            message="raw SQL `DELETE FROM users ...` passed to `db.execute`",
        ),
        Sample(
            """
            from django.db import connection

            def run(sql, params):
                with connection.cursor() as cursor:
                    cursor.execute(sql, params)
                    return cursor.fetchall()
            """,
            message="SQL built at runtime (`sql`) passed to `cursor.execute`",
        ),
        Sample(
            """
            const { Pool } = require("pg");
            const pool = new Pool();

            async function findUser(id) {
              const { rows } = await pool.query("SELECT * FROM users WHERE id = $1", [id]);
              return rows[0];
            }
            """,
            language="javascript",
            message="raw SQL `SELECT ... FROM users` passed to `pool.query`",
            line=5,
        ),
        Sample(  # Sequelize's instance, imported from the project's config module
            {
                "src/config/database.js": (
                    'import { Sequelize } from "sequelize";\n'
                    'export default new Sequelize({ dialect: "sqlite" });\n'
                ),
                "src/repositories/articles.js": """
                    import sequelize from "../config/database.js";

                    export function bySlug(slug, order) {
                      return sequelize.query(`SELECT * FROM articles ORDER BY ${order}`);
                    }
                    export function run(sql) {
                      return sequelize.query(sql);
                    }
                    """,
            },
            message="SQL built at runtime (`sql`) passed to `sequelize.query`",
            path="src/repositories/articles.js",
            line=7,
        ),
        Sample(
            """
            import { PrismaClient } from "@prisma/client";
            const prisma = new PrismaClient();
            export const count = (id: number) =>
              prisma.$queryRaw`SELECT count(*) FROM posts WHERE author_id = ${id}`;
            """,
            language="typescript",
            message="raw SQL `SELECT ... FROM posts` in a template tagged `prisma.$queryRaw`",
        ),
        Sample(  # a typed query, awaited; a driver's handle runs any text it is given
            """
            import Database from "better-sqlite3";
            import { Pool } from "pg";
            const pool = new Pool();
            const cache = new Database("cache.db");

            export async function emails(): Promise<string[]> {
              const { rows } = await pool.query<{ email: string }>("SELECT email FROM users");
              cache.exec("VACUUM INTO 'backup.db'");
              return rows.map((row) => row.email);
            }
            """,
            language="typescript",
            message="raw SQL `SELECT ... FROM users` passed to `pool.query`",
            line=7,
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        parser = SqlParser()
        modules = ctx.modules()
        sites = raw_sql_sites(modules, parser) if modules else []
        findings: list[Finding] = []
        if sites:
            hint = orm_hint(modules)
            findings += [
                ctx.report(site.module, site.call, f"{site.describe()}: use the ORM ({hint})")
                for site in sites
            ]
        scripts = ctx.js_modules()
        if scripts:
            code = JsCode(scripts, ctx.unit)
            found = js_raw_sql_sites(code, parser)
            hint = orm_hint_js(code) if found else ""
            findings += [
                ctx.finding(
                    f"{site.describe()}: use the ORM ({hint})",
                    path=site.module.relpath,
                    line=site.line,
                )
                for site in found
            ]
        return findings

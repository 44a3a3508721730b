"""The `database` check reads JavaScript and TypeScript: connection URLs, driver imports
and ORM settings (Sequelize, Knex, TypeORM, Prisma) name the database a Node backend
uses, with the check name and options it has for Python, at each file and line."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

# Imported before any pytester run (see tests/test_project_files.py).
import pytest_codeif.testing  # noqa: F401
from pytest_codeif.checks.shared.js_database import js_database_use, js_evidence, prisma_evidence
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.unit import SourceFile

FIXTURES = Path(__file__).parent.parent / "fixtures" / "node_database"


def module(text: str, relpath: str = "src/db.js") -> JsModule:
    language = "typescript" if relpath.endswith(".ts") else "javascript"
    source = SourceFile(relpath, textwrap.dedent(text), Path(relpath), language=language)
    return JsModule(source)


def named(text: str, relpath: str = "src/db.js") -> list[tuple[int, str, str]]:
    return [(e.line, e.database, e.what) for e in js_evidence(module(text, relpath))]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param(
            'const url = process.env.DATABASE_URL || "mysql://root@db/app";\n',
            [(1, "mysql", "a `mysql://...` connection URL")],
            id="a default URL",
        ),
        pytest.param(
            "const url = `postgresql://${user}:${password}@db/app`;\n",
            [(1, "postgresql", "a `postgresql://...` connection URL")],
            id="a template's head",
        ),
        pytest.param(
            "const url = `${scheme}://db/app`;\n",
            [],
            id="a template whose scheme is not written",
        ),
        pytest.param(
            'const s = new Sequelize("sqlite::memory:");\nconst t = `sqlite:${file}`;\n',
            [
                (1, "sqlite", "a `sqlite:...` connection URL"),
                (2, "sqlite", "a `sqlite:...` connection URL"),
            ],
            id="Sequelize's SQLite URL",
        ),
        pytest.param(
            """
            "use strict";
            "postgres://in-a-statement";
            const fixed = url.replace("postgres://", "postgresql://");
            if (url === "mysql://legacy") {}
            const note = "moved from mysql://old to the new cluster";
            """,
            [],
            id="patterns, comparisons and prose are not targets",
        ),
        pytest.param(
            'import mongoose from "mongoose";\nimport type { Pool } from "pg";\n',
            [
                (1, "mongodb", "the MongoDB driver `mongoose`"),
                (2, "postgresql", "the PostgreSQL driver `pg`"),
            ],
            id="MongoDB and a type-only import",
        ),
        pytest.param(
            'const { pgTable } = require("drizzle-orm/pg-core");\n',
            [(1, "postgresql", "an import of `drizzle-orm/pg-core`")],
            id="a dialect module",
        ),
        pytest.param(
            """
            import { Kysely, PostgresDialect } from "kysely";
            import pgSession from "connect-pg-simple";
            const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
            """,
            [
                (3, "postgresql", "an import of `connect-pg-simple`"),
                (4, "postgresql", "Kysely's `PostgresDialect`"),
            ],
            id="a session store and Kysely's dialect",
        ),
        pytest.param(
            """
            const config = {
              dialect: process.env.DB_DIALECT ?? "sqlite",
              other: { client: "pg" },
              kind: { type: "postgres" },
            };
            """,
            [(3, "sqlite", 'the ORM\'s `dialect: "sqlite"`')],
            id="client and type only where they configure Knex or TypeORM",
        ),
        pytest.param(
            """
            module.exports = {
              development: { client: "better-sqlite3", connection: { filename: "dev.db" } },
              production: { client: isCloud ? "pg" : "mysql2", connection: url },
            };
            """,
            [
                (3, "sqlite", 'Knex\'s `client: "better-sqlite3"`'),
                (4, "postgresql", 'Knex\'s `client: "pg"`'),
                (4, "mysql", 'Knex\'s `client: "mysql2"`'),
            ],
            id="a knexfile's clients, both branches",
        ),
    ],
)
def test_evidence(code: str, expected: list[tuple[int, str, str]]) -> None:
    assert named(code, "src/db.ts") == expected


def test_typeorm_type_in_a_module_importing_typeorm() -> None:
    code = """
        import { DataSource } from "typeorm";
        export const source = new DataSource({ type: "mariadb", url: process.env.URL });
        """
    assert named(code, "src/data-source.ts") == [(3, "mysql", 'TypeORM\'s `type: "mariadb"`')]


def test_prisma_datasource_provider_not_the_generator() -> None:
    schema = (
        'generator client {\n  provider = "prisma-client-js"\n}\n\n'
        "datasource db {\n"
        '  // provider = "mysql"\n'
        '  provider = "sqlserver"\n'
        '  url      = env("DATABASE_URL")\n}\n'
    )
    found = [(e.line, e.database) for e in prisma_evidence("prisma/schema.prisma", schema)]
    assert found == [(7, "mssql")]


def test_a_database_object_made_without_naming_one() -> None:
    code = 'import { PrismaClient } from "@prisma/client";\n\nconst p = new PrismaClient();\n'
    assert js_database_use(module(code, "src/db.ts")) == 3
    assert js_database_use(module("const x = new Map();\n")) is None


TASKS = """
tasks:
  - id: pg-ok
    directory: pg_express
    constraints:
      - check: database
        is: postgresql
  - id: pg-asked-sqlite
    directory: pg_express
    constraints:
      - check: database
        is: sqlite
  - id: sequelize-leak
    directory: sequelize_ts
    constraints:
      - check: database
        is: postgresql
  - id: sequelize-leak-scoped
    directory: sequelize_ts
    constraints:
      - check: database
        is: postgresql
        exclude-files: ["src/db/backup.ts"]
  - id: knex-unnamed
    directory: knex_env
    constraints:
      - check: database
        is: postgresql
"""


def test_node_backends_judged_with_a_directory_task(pytester: pytest.Pytester) -> None:
    for name in ("pg_express", "sequelize_ts", "knex_env"):
        shutil.copytree(FIXTURES / name, pytester.path / name)
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=2, failed=2, errors=1)
    out = result.stdout.str()
    assert "PASSED t.codeif.yaml::pg-ok::database" in out
    assert "PASSED t.codeif.yaml::sequelize-leak-scoped::database" in out
    result.stdout.fnmatch_lines(
        [
            "*pg_express/src/db.js:4: [[]database[]] uses PostgreSQL (a `postgres://...` "
            "connection URL), but the database must be SQLite*",
            "*pg_express/src/db.js:2: [[]database[]] uses PostgreSQL (the PostgreSQL driver "
            "`pg`), but the database must be SQLite*",
            "*pg_express/run.sh:2: [[]database[]] uses PostgreSQL (a `postgres://...` "
            "connection URL in a script)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*sequelize_ts/src/db/backup.ts:2: [[]database[]] uses SQLite (the SQLite driver "
            "`better-sqlite3`), but the database must be PostgreSQL*",
        ]
    )
    result.stdout.fnmatch_lines(["*no-observations*uses a database (src/db.js:3)*"])
    # The pattern, the comparison, the prose and the example file name no database.
    assert "mysql" not in out.lower()
    assert "db.js:5" not in out and "db.js:6" not in out
    # Sequelize's own setting is PostgreSQL: no finding at it.
    assert "sequelize.ts" not in out


KNEX_TASK = """
tasks:
  - id: knex
    directory: knex_env
    constraints:
      - check: database
        is: postgresql
"""


def test_a_url_in_run_sh_decides_what_the_node_code_leaves_open(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(FIXTURES / "knex_env", pytester.path / "knex_env")
    (pytester.path / "knex_env" / "run.sh").write_text(
        "#!/bin/sh\nexport DATABASE_URL=mysql://app@db/app\nexec node src/db.js\n"
    )
    pytester.makefile(".codeif.yaml", t=KNEX_TASK)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*knex_env/run.sh:2: [[]database[]] uses MySQL (a `mysql://...` connection URL in a*"]
    )

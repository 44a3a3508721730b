"""The data-access checks: `raw-sql`, `db-drivers`, `orm-only` and `database`; the SQL they
recognise with sqlglot, the near misses they must not report, hostile strings, and one
project run end to end."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif import Check, Sample
from pytest_codeif.checks.database import DatabaseCheck
from pytest_codeif.checks.db_drivers import DbDriversCheck
from pytest_codeif.checks.orm_only import OrmOnlyCheck
from pytest_codeif.checks.raw_sql import RawSqlCheck
from pytest_codeif.checks.shared import sql_text
from pytest_codeif.checks.shared.sql_text import MAX_SQL_CHARS, SqlParser, normalise
from pytest_codeif.outcome import Verdict
from pytest_codeif.testing import sample_verdict
from tests.conftest import FIXTURES, copy_into


def verdict(
    check: type[Check], code: str | Mapping[str, str], tmp_path: Path, **options: Any
) -> Verdict:
    return sample_verdict(check, Sample(code, options), tmp_path)


def messages(result: Verdict) -> list[str]:
    return [e.message for e in result.evidence]


# -- what sqlglot is asked, and what it answers ---------------------------------------


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("SELECT * FROM users WHERE id = ?", "SELECT ... FROM users"),
        ("select id from users where id = %s", "SELECT ... FROM users"),
        ("SELECT * FROM `users` WHERE id = %(id)s", "SELECT ... FROM users"),  # MySQL
        ("SELECT * FROM orders WHERE user_id = $1", "SELECT ... FROM orders"),  # asyncpg
        ("INSERT INTO t (a) VALUES (:notnull)", "INSERT INTO t ..."),
        ("UPDATE users SET name = ? WHERE id = ?", "UPDATE users SET ..."),
        ("DELETE FROM users WHERE id = 1", "DELETE FROM users ..."),
        ("  -- comment\n  WITH a AS (SELECT 1) SELECT * FROM a", "SELECT ... FROM a"),
        ("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)", "CREATE TABLE t ..."),
        ("PRAGMA foreign_keys = ON", "PRAGMA foreign_keys = ON"),  # SQLite's dialect
        ("DROP TABLE a; DROP TABLE b;", "DROP TABLE a ... (+1 more statement)"),
        ("SELECT ts - INTERVAL %s FROM t", "SELECT ... FROM t"),
    ],
)
def test_sql_statements_are_recognised(text: str, summary: str) -> None:
    statement = SqlParser().statement(text)
    assert statement is not None
    assert statement.describe() == summary


@pytest.mark.parametrize(
    "text",
    [
        "SELECT failed for user %s",  # a log message
        "Update your profile",  # sqlglot: an UPDATE of table `your`, with no SET
        "Delete the file",  # sqlglot: a DELETE with no FROM
        "Insert coin",  # sqlglot: an INSERT with no VALUES
        "create a user",  # sqlglot: its catch-all Command
        "Show me the money",
        "Begin the process",
        "Set the value to 3",
        "vacuum the floor",
        "select",
        "users",
        "https://example.com/select",
        "",
    ],
)
def test_english_that_sqlglot_would_accept_is_not_sql(text: str) -> None:
    assert SqlParser().statement(text) is None


def test_placeholders_are_values_for_sqlglot() -> None:
    assert normalise("a = %s AND b = %(b)s AND c LIKE '5%%' AND d::text = :d") == (
        "a = ? AND b = ? AND c LIKE '5%' AND d::text = ?"
    )


HOSTILE = {
    "deep parentheses": "SELECT " + "(" * 9000 + "1" + ")" * 9000,
    "unclosed parentheses": "SELECT " + "(" * 19000,
    "long expression": "SELECT a" + " + a" * 4900,
    "many joins": "SELECT * FROM t " + "JOIN t ON 1=1 " * 1400,
    "unbalanced quotes": "SELECT " + "'" * 19990,
    "nested subqueries": "SELECT " + "(SELECT " * 2400 + "1" + ")" * 2400,
    "nested CASE": "SELECT " + "CASE WHEN 1 THEN " * 1500 + "1" + " END" * 1500,
    "comments": "SELECT /*" * 2000,
    "brackets": "SELECT " + "[" * 19000,
    "dollar quotes": "SELECT $$" * 3000,
    "too long": "SELECT " + "a, " * 30000 + "b FROM t",
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_strings_are_judged_in_bounded_time(text: str) -> None:
    """A guard against a hang, not a speed figure (those are in benchmarks/): each takes
    under a second here when the machine is idle; a quadratic parse of these took
    minutes. The bound leaves room for a machine shared with other work."""
    start = time.perf_counter()
    SqlParser().statement(text + " ")  # a text of its own: not an earlier test's cache
    assert time.perf_counter() - start < 60


def test_a_long_script_is_judged_by_its_first_statement() -> None:
    script = "CREATE TABLE a (id INT);\n" + "INSERT INTO a VALUES (1);\n" * 2000
    assert len(script) > MAX_SQL_CHARS
    statement = SqlParser().statement(script)
    assert statement is not None and statement.kind == "CREATE"


def test_the_parse_budget_makes_a_flood_undecidable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql_text, "PARSE_BUDGET", 100_000)
    padding = "x" * 18_000
    lines = [f'cur.execute("SELECT {i} FROM t -- {padding}")' for i in range(10)]
    code = "def f(cur):\n" + "".join(f"    {line}\n" for line in lines)
    result = verdict(RawSqlCheck, code, tmp_path)
    assert (result.status, result.error_kind) == ("error", "too-large")
    assert "more than 100,000 characters" in (result.error or "")


def test_real_sql_is_far_below_the_budget() -> None:
    parser = SqlParser()
    for i in range(200):
        parser.statement(f"SELECT id, name FROM users WHERE id = {i} AND name = %s")
    assert parser.budget - parser.remaining < sql_text.PARSE_BUDGET / 20


def test_sqlglot_warnings_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        assert SqlParser().statement("create a user for the demo") is None
    assert not [r for r in caplog.records if r.name.startswith("sqlglot")]


# -- raw-sql ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(
            'import logging\nlog = logging.getLogger()\nlog.info("SELECT failed for user %s", 1)\n',
            id="log message",
        ),
        pytest.param(
            "from sqlalchemy import select\n\ndef f(session, User, uid):\n"
            "    return session.execute(select(User).where(User.id == uid))\n",
            id="ORM select",
        ),
        pytest.param(
            'def f(session):\n    """Runs SELECT * FROM users through the ORM."""\n'
            "    return session.query()\n",
            id="docstring",
        ),
        pytest.param(
            'QUERY = "SELECT * FROM users"\n\ndef show():\n    print(QUERY)\n',
            id="SQL never executed",
        ),
        pytest.param(
            "from sqlalchemy import Column, DateTime, text\n\n"
            'created = Column(DateTime, server_default=text("CURRENT_TIMESTAMP"))\n',
            id="text() fragment as a default",
        ),
        pytest.param(
            'import pandas as pd\n\ndef f(engine):\n    return pd.read_sql("users", engine)\n',
            id="read_sql of a table name",
        ),
        pytest.param(
            "def f(runner, sql):\n    return runner.execute(sql)\n",
            id="unknown text, unknown object",
        ),
        pytest.param(
            'def f(tasks):\n    tasks.execute("Delete the file")\n',
            id="English passed to execute",
        ),
    ],
)
def test_raw_sql_near_misses(code: str, tmp_path: Path) -> None:
    result = verdict(RawSqlCheck, code, tmp_path)
    assert result.status == "satisfied", messages(result)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param(
            'def f(cur, x):\n    q = "SELECT * FROM users"\n    q += " WHERE id = %s"\n'
            "    cur.execute(q, (x,))\n",
            "raw SQL `SELECT ... FROM users` passed to `cur.execute`",
            id="+= builds the query",
        ),
        pytest.param(
            "def f(cur, table):\n"
            '    cur.execute("SELECT * FROM {} WHERE id = {}".format(table, 1))\n',
            "raw SQL `SELECT ... FROM {...}` passed to `cur.execute`",
            id=".format",
        ),
        pytest.param(
            "def f(cur, pks):\n"
            '    cur.execute("select {}* from [{}]".format("rowid, " if pks else "", "t"))\n',
            "raw SQL `SELECT ... FROM t` passed to `cur.execute`",
            id=".format with literal arguments",
        ),
        pytest.param(
            'def f(cur, uid):\n    cur.execute("DELETE FROM users WHERE id = %d" % uid)\n',
            "raw SQL `DELETE FROM users ...` passed to `cur.execute`",
            id="% formatting",
        ),
        pytest.param(
            'def f(cur):\n    cur.execute(" ".join(["SELECT id", "FROM orders"]))\n',
            "raw SQL `SELECT ... FROM orders` passed to `cur.execute`",
            id="join of a list",
        ),
        pytest.param(
            'STATEMENTS = ["CREATE TABLE a (id INT)", "CREATE TABLE b (id INT)"]\n\n'
            "def f(conn):\n    for statement in STATEMENTS:\n        conn.execute(statement)\n",
            "raw SQL `CREATE TABLE a ...` passed to `conn.execute`",
            id="for over a constant list",
        ),
        pytest.param(
            'class Repo:\n    SQL = "UPDATE t SET a = 1"\n\n'
            "    def run(self):\n        self.db.execute(self.SQL)\n",
            "raw SQL `UPDATE t SET ...` passed to `self.db.execute`",
            id="class attribute",
        ),
        pytest.param(
            "from psycopg2 import sql\n\ndef f(cur, table):\n"
            '    cur.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table)))\n',
            "raw SQL `SELECT ... FROM {...}` passed to `cur.execute`",
            id="psycopg2 sql.SQL",
        ),
        pytest.param(
            "import sqlite3\n\ndef f(sql):\n    conn = sqlite3.connect('a.db')\n"
            "    return conn.execute(sql)\n",
            "SQL built at runtime (`sql`) passed to `conn.execute`",
            id="runtime SQL on a known connection",
        ),
        pytest.param(
            "import asyncpg\n\nasync def f(pool: asyncpg.Pool, sql):\n"
            "    async with pool.acquire() as conn:\n        return await conn.fetch(sql)\n",
            "SQL built at runtime (`sql`) passed to `conn.fetch`",
            id="runtime SQL on an acquired connection",
        ),
        pytest.param(
            "from sqlalchemy import text\n\ndef f(session, query):\n"
            "    return session.execute(text(query))\n",
            "SQL built at runtime (`query`) passed to `sqlalchemy.text`",
            id="text() of a parameter",
        ),
        pytest.param(
            "def f(engine, sql):\n    with engine.connect() as c:\n"
            "        c.exec_driver_sql(sql)\n",
            "passed to `c.exec_driver_sql`",
            id="exec_driver_sql",
        ),
        pytest.param(
            "from blog.models import Post\n\ndef f():\n"
            "    return Post.objects.filter(live=True).extra(where=['id > 3'])\n",
            "`Post.objects.filter(live=True).extra` runs raw SQL",
            id="django extra",
        ),
        pytest.param(
            "from django.db.models.expressions import RawSQL\n\ndef f(qs):\n"
            '    return qs.annotate(n=RawSQL("SELECT count(*) FROM b", ()))\n',
            "raw SQL `SELECT ... FROM b` passed to `django.db.models.expressions.RawSQL`",
            id="django RawSQL",
        ),
        pytest.param(
            "import pandas\n\ndef f(conn):\n"
            '    return pandas.read_sql("SELECT * FROM sales", conn)\n',
            "raw SQL `SELECT ... FROM sales` passed to `pandas.read_sql`",
            id="pandas read_sql",
        ),
        pytest.param(
            "from django.db import migrations\n\n"
            'OPERATIONS = [migrations.RunSQL("DROP INDEX old_idx")]\n',
            "raw SQL `DROP INDEX old_idx ...` passed to `django.db.migrations.RunSQL`",
            id="django RunSQL",
        ),
    ],
)
def test_raw_sql_reaching_executors(code: str, expected: str, tmp_path: Path) -> None:
    result = verdict(RawSqlCheck, code, tmp_path)
    assert result.status == "violated"
    assert any(expected in m for m in messages(result)), messages(result)


def test_the_last_assignment_before_the_call_decides(tmp_path: Path) -> None:
    code = (
        "from sqlalchemy import select\n\n"
        "def f(cur, session, User):\n"
        '    query = "SELECT * FROM users"\n'
        "    cur.execute(query)\n"
        "    query = select(User)\n"
        "    return session.execute(query)\n"
    )
    result = verdict(RawSqlCheck, {"app.py": code}, tmp_path)  # a file: real lines
    assert [e.line for e in result.evidence] == [5]


def test_a_query_written_as_many_implicitly_joined_strings(tmp_path: Path) -> None:
    parts = " ".join(f'"a{i}, "' for i in range(300))
    code = f'def f(cur):\n    cur.execute("SELECT " {parts} "b FROM wide")\n'
    result = verdict(RawSqlCheck, code, tmp_path)
    assert "raw SQL `SELECT ... FROM wide`" in messages(result)[0]


def test_unpacked_names_hide_module_constants(tmp_path: Path) -> None:
    code = (
        'sql = "DELETE FROM audit"\n\n'
        "def f(session, build):\n    sql, params = build()\n"
        "    return session.execute(sql, params)\n\n"
        "def g(cur):\n    return [cur.execute(q) for q in ['SELECT 1 FROM t']]\n"
    )
    result = verdict(RawSqlCheck, {"app.py": code}, tmp_path)
    assert [e.line for e in result.evidence] == [8]


def test_a_name_built_from_itself_is_read_once(tmp_path: Path) -> None:
    """80 doublings: read once each (not 2**80 times), and no deeper than one."""
    lines = ['    q = "SELECT 1 FROM t;"'] + ["    q = q + q"] * 80 + ["    cur.execute(q)"]
    code = "def f(cur):\n" + "\n".join(lines) + "\n"
    start = time.perf_counter()
    result = verdict(RawSqlCheck, code, tmp_path)
    assert time.perf_counter() - start < 10
    assert result.status == "violated"


# -- db-drivers -------------------------------------------------------------------------


def test_drivers_through_importlib_and_submodules(tmp_path: Path) -> None:
    code = (
        "import importlib\n\nfrom psycopg.rows import dict_row\n\n"
        'driver = importlib.import_module("oracledb")\n'
    )
    result = verdict(DbDriversCheck, {"app.py": code}, tmp_path)
    assert [e.line for e in result.evidence] == [3, 5]
    assert "`oracledb` (Oracle)" in messages(result)[1]


# -- orm-only ---------------------------------------------------------------------------


def test_flask_sqlalchemy_and_registry_models_count(tmp_path: Path) -> None:
    flask = (
        "from flask_sqlalchemy import SQLAlchemy\n\ndb = SQLAlchemy()\n\n"
        "class User(db.Model):\n    id = db.Column(db.Integer, primary_key=True)\n"
    )
    mapped = (
        "from sqlalchemy.orm import registry\n\nreg = registry()\n\n"
        "@reg.mapped\nclass User:\n    __tablename__ = 'users'\n"
    )
    for code in (flask, mapped):
        assert verdict(OrmOnlyCheck, code, tmp_path, orm="sqlalchemy").status == "satisfied"


def test_models_on_an_installed_packages_models_count_in_a_django_project(
    tmp_path: Path,
) -> None:
    code = (
        "from django.contrib.auth.models import AbstractUser\n\n"
        "class User(AbstractUser):\n    pass\n"
    )
    assert verdict(OrmOnlyCheck, code, tmp_path, orm="django").status == "satisfied"


def test_abstract_models_are_not_models(tmp_path: Path) -> None:
    code = (
        "from django.db import models\n\nclass Stamped(models.Model):\n"
        "    class Meta:\n        abstract = True\n"
    )
    result = verdict(OrmOnlyCheck, code, tmp_path, orm="django")
    assert messages(result) == [
        "no model is declared with Django: expected a subclass of `django.db.models.Model`"
    ]


def test_connection_configuration_is_not_data_access(tmp_path: Path) -> None:
    """`PRAGMA foreign_keys=ON` (SQLModel's own tutorial) configures the connection; the
    ORM has no other way to. raw-sql still reports it; orm-only does not."""
    code = (
        "from sqlmodel import Field, SQLModel, create_engine, text\n\n"
        "class Hero(SQLModel, table=True):\n"
        "    id: int | None = Field(default=None, primary_key=True)\n\n"
        'engine = create_engine("sqlite:///heroes.db")\n\n'
        "def setup():\n    with engine.connect() as connection:\n"
        '        connection.execute(text("PRAGMA foreign_keys=ON"))\n'
    )
    assert verdict(OrmOnlyCheck, code, tmp_path, orm="sqlmodel").status == "satisfied"
    assert verdict(RawSqlCheck, code, tmp_path).status == "violated"


def test_a_raw_cursor_is_reported_once(tmp_path: Path) -> None:
    code = (
        "from django.db import connections, models\n\nclass A(models.Model):\n    pass\n\n"
        "def f(uid):\n    c = connections['default'].cursor()\n"
        '    c.execute("SELECT * FROM a WHERE id = %s", [uid])\n'
    )
    result = verdict(OrmOnlyCheck, code, tmp_path)
    assert messages(result) == [
        "raw SQL `SELECT ... FROM a` passed to `c.execute`: use the ORM "
        "(`Model.objects.filter(...)`)"
    ]


# -- database ---------------------------------------------------------------------------


def test_a_url_from_outside_the_code_is_undecidable(tmp_path: Path) -> None:
    code = (
        "import os\n\nfrom sqlalchemy import create_engine\n\n"
        'engine = create_engine(os.environ["DATABASE_URL"])\n'
    )
    result = verdict(DatabaseCheck, code, tmp_path, **{"is": "postgresql"})
    assert (result.status, result.error_kind) == ("error", "no-observations")
    assert "does not say which" in (result.error or "")


@pytest.mark.parametrize(
    ("code", "status"),
    [
        pytest.param(  # Heroku's rewrite names schemes, not the database
            "import os\n\nURI = os.environ.get('DATABASE_URL', '').replace("
            "'postgres://', 'postgresql://') or 'sqlite:///app.db'\n",
            "satisfied",
            id="scheme rewrite",
        ),
        pytest.param(
            "from sqlalchemy import URL\n\nurl = URL.create('mysql+pymysql', host='db')\n",
            "violated",
            id="URL.create",
        ),
        pytest.param(
            "import os\n\nURL = f\"mongodb+srv://{os.environ['HOST']}/app\"\n",
            "violated",
            id="another kind of database",
        ),
        pytest.param(
            "def connect(url):\n    if url == 'postgres://':\n        return None\n"
            "    return 'sqlite://'\n",
            "satisfied",
            id="a comparison is no connection",
        ),
    ],
)
def test_database_evidence(code: str, status: str, tmp_path: Path) -> None:
    result = verdict(DatabaseCheck, code, tmp_path, **{"is": "sqlite"})
    assert result.status == status, messages(result)


# -- end to end -------------------------------------------------------------------------


def test_a_project_with_raw_sql_in_a_route_and_a_repository(pytester: pytest.Pytester) -> None:
    copy_into(pytester, FIXTURES / "data_access" / "shop")
    copy_into(pytester, FIXTURES / "data_access" / "data_access.codeif.yaml")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*shop/shop/api/routes.py:22: [[]raw-sql[]] raw SQL `SELECT ... FROM users` passed"
            " to `sqlalchemy.text`: use the ORM*",
            "*shop/shop/repositories/users.py:10: [[]raw-sql[]] raw SQL `SELECT ... FROM users`*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*shop/shop/db.py:4: [[]database[]] uses PostgreSQL (a `postgresql+psycopg://...`*"]
    )
    # The log message, the docstring and the ORM query beside them are not reported.
    assert "routes.py:13" not in result.stdout.str()
    assert "routes.py:15" not in result.stdout.str()
    assert "routes.py:20" not in result.stdout.str()

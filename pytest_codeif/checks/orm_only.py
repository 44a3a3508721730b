"""The `orm-only` check: data is declared through an ORM and never reached around it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.drivers import describe, driver_imports
from pytest_codeif.checks.shared.orm_models import (
    Models,
)
from pytest_codeif.checks.shared.raw_sql_sites import (
    DJANGO_CONNECTIONS,
    Project,
    orm_hint,
    raw_sql_sites,
)
from pytest_codeif.checks.shared.sql_text import SqlParser
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule

_CORE_TABLE: Final = frozenset({"sqlalchemy.Table", "sqlalchemy.schema.Table", "sqlmodel.Table"})
_CORE_QUERIES: Final = frozenset({"insert", "select", "update", "delete"})
_CORE_QUERY_FUNCTIONS: Final = frozenset(
    f"{package}.{verb}"
    for package in ("sqlalchemy", "sqlalchemy.sql", "sqlalchemy.sql.expression", "sqlmodel")
    for verb in _CORE_QUERIES
)

ORM_NAMES: Final = {"sqlalchemy": "SQLAlchemy", "sqlmodel": "SQLModel", "django": "Django"}
_EXPECTED: Final = {
    "sqlalchemy": "a class on a declarative base (`class User(Base)`, the base made with "
    "`DeclarativeBase` or `declarative_base()`), or mapped with `registry.mapped`",
    "sqlmodel": "a `SQLModel` class with `table=True`",
    "django": "a subclass of `django.db.models.Model`",
    None: "a SQLAlchemy declarative class, a `SQLModel` class with `table=True` or a "
    "Django `models.Model`",
}


def _core_table_queries(module: ParsedModule) -> Iterator[tuple[cst.CSTNode, str]]:
    """Queries on a Core `Table(...)` (`users.insert()`, `select(users)`), not a model.
    A Core table only named in `relationship(secondary=...)` is the ORM's own."""
    tables = {
        code_of(t.target)
        for node in module.nodes(cst.Assign)
        if isinstance(node.value, cst.Call) and module.qualified(node.value.func) & _CORE_TABLE
        for t in node.targets
    }
    if not tables:
        return
    for call in module.nodes(cst.Call):
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _CORE_QUERIES
            and code_of(func.value) in tables
        ):
            yield call, code_of(func.value)
        elif module.qualified(func) & _CORE_QUERY_FUNCTIONS:
            for arg in call.args:
                if code_of(arg.value) in tables:
                    yield call, code_of(arg.value)
                    break


def _raw_connections(module: ParsedModule) -> Iterator[tuple[cst.CSTNode, str]]:
    """Django's raw `connection.cursor()`, SQLAlchemy's `engine.raw_connection()`."""
    for call in module.nodes(cst.Call):
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue
        receiver = func.value.value if isinstance(func.value, cst.Subscript) else func.value
        if func.attr.value == "raw_connection" or (
            func.attr.value == "cursor" and module.qualified(receiver) & DJANGO_CONNECTIONS
        ):
            yield call, code_of(func)


class OrmOnlyCheck(Check):
    """Data is declared through an ORM and read and written through it, never around it.

    Why: "use the ORM" is not met by `sqlalchemy` in requirements.txt (the regex the
    Constraint Decay study used) nor by importing it: the tables must be ORM models and
    the queries ORM queries. Violations:

    - no model is declared through the ORM: a class on a SQLAlchemy declarative base
      (`DeclarativeBase`, `declarative_base()`, `registry.generate_base()`,
      `@as_declarative`, Flask-SQLAlchemy's `db.Model`) or mapped with
      `@registry.mapped`; a `SQLModel` class with `table=True` (a SQLModel class without
      it is a schema, not a table); a subclass of Django's `models.Model` or, in a Django
      project, of a model an installed package defines in its `models` module
      (`AbstractUser`, `MPTTModel`). Abstract models (`__abstract__ = True`,
      `Meta.abstract`) do not count. Bases are followed through the project's modules
      and mixins;
    - models declared with another ORM than `orm` asks (SQLModel tables count as
      SQLAlchemy models: they are);
    - raw SQL reaching an executor, as the `raw-sql` check finds it (`text("SELECT
      ...")`, `cursor.execute(...)`, `Model.objects.raw(...)`...), except statements
      that only configure the connection or control a transaction (`PRAGMA
      foreign_keys=ON`, `SET ...`, `BEGIN`): the ORM has no other way to send those;
    - a database driver imported (as the `db-drivers` check finds it);
    - a raw connection opened (Django's `connection.cursor()`,
      `engine.raw_connection()`) and not already reported by its raw SQL;
    - a SQLAlchemy Core `Table(...)` queried directly (`users.insert()`,
      `select(users)`) instead of a model (a Core table used only as a relationship's
      `secondary` is fine).

    What is not decided: that every read and write goes through a session or manager.
    Object types are not inferred, so the check cannot prove that a `session` is one;
    it proves that nothing goes around the ORM. Nor does it require a session to be
    used at all (a module of models alone satisfies it).

    Migrations run raw SQL by design: scope them out.

    Options: `orm` (`sqlalchemy`, `sqlmodel` or `django`; default: any of them).

    Example:

        - check: orm-only
          orm: sqlalchemy
          exclude-files: [alembic/]
    """

    name = "orm-only"
    category = "Code Quality"
    advice = (
        "Declare each table as an ORM model and read and write it through the ORM "
        "(`session.execute(select(User))`, `User.objects.filter(...)`), removing raw SQL, driver "
        "imports, raw connections and queries on Core tables."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"orm": {"enum": sorted(ORM_NAMES)}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            import logging

            from sqlalchemy import Column, ForeignKey, Table, select
            from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

            logger = logging.getLogger(__name__)

            class Base(DeclarativeBase):
                pass

            tags = Table(
                "user_tags",
                Base.metadata,
                Column("user_id", ForeignKey("users.id")),
                Column("tag_id", ForeignKey("tags.id")),
            )

            class Tag(Base):
                __tablename__ = "tags"
                id: Mapped[int] = mapped_column(primary_key=True)

            class User(Base):
                __tablename__ = "users"
                id: Mapped[int] = mapped_column(primary_key=True)
                tags: Mapped[list[Tag]] = relationship(secondary=tags)

            def find(session: Session, uid: int) -> User | None:
                user = session.execute(select(User).where(User.id == uid)).scalar_one_or_none()
                if user is None:
                    logger.info("SELECT failed for user %s", uid)
                return user
            """,
            {"orm": "sqlalchemy"},
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/db.py": """
                    from sqlalchemy.orm import declarative_base

                    Base = declarative_base()
                    """,
                "app/models.py": """
                    from sqlalchemy import Column, Integer

                    from .db import Base

                    class Timestamped(Base):
                        __abstract__ = True

                    class Order(Timestamped):
                        __tablename__ = "orders"
                        id = Column(Integer, primary_key=True)
                    """,
            },
            {"orm": "sqlalchemy"},
        ),
        Sample(
            """
            from sqlmodel import Field, Session, SQLModel, select

            class HeroBase(SQLModel):
                name: str

            class Hero(HeroBase, table=True):
                id: int | None = Field(default=None, primary_key=True)

            def heroes(session: Session) -> list[Hero]:
                return list(session.exec(select(Hero)))
            """,
            {"orm": "sqlmodel"},
        ),
        Sample(
            """
            from django.db import models

            class Article(models.Model):
                title = models.CharField(max_length=200)

            def recent():
                return Article.objects.order_by("-id")[:10]
            """,
            {"orm": "django"},
        ),
    )
    violated_by = (
        Sample(
            """
            from pydantic import BaseModel
            from sqlmodel import SQLModel

            class UserIn(BaseModel):
                name: str

            class UserOut(SQLModel):
                name: str
            """,
            {"orm": "sqlmodel"},
            message="no model is declared with SQLModel",
        ),
        Sample(
            """
            from sqlalchemy import text
            from sqlalchemy.orm import DeclarativeBase

            class Base(DeclarativeBase):
                pass

            class User(Base):
                __tablename__ = "users"

            def names(session):
                return session.execute(text("SELECT name FROM users")).scalars().all()
            """,
            message="raw SQL `SELECT ... FROM users` passed to `sqlalchemy.text`",
        ),
        Sample(
            """
            import sqlite3

            from django.db import models

            class Note(models.Model):
                body = models.TextField()

            def backup():
                sqlite3.connect("backup.db").close()
            """,
            {"orm": "django"},
            message="imports the database driver `sqlite3` (SQLite)",
        ),
        Sample(
            """
            from django.db import connection, models

            class Note(models.Model):
                body = models.TextField()

            def count():
                cursor = connection.cursor()
                return cursor
            """,
            message="opens a raw database connection (`connection.cursor`)",
        ),
        Sample(
            """
            from sqlalchemy.orm import DeclarativeBase

            class Base(DeclarativeBase):
                pass

            class User(Base):
                __tablename__ = "users"
            """,
            {"orm": "django"},
            message="`User` is declared with SQLAlchemy, but the ORM must be Django",
        ),
        Sample(
            """
            from sqlalchemy import Column, Integer, MetaData, Table, insert
            from sqlalchemy.orm import declarative_base

            Base = declarative_base()
            metadata = MetaData()
            events = Table("events", metadata, Column("id", Integer, primary_key=True))

            class User(Base):
                __tablename__ = "users"
                id = Column(Integer, primary_key=True)

            def log(conn, event_id):
                conn.execute(insert(events).values(id=event_id))
            """,
            message="queries the Core table `events` directly",
        ),
    )

    def advise(self) -> str:
        orm = self.options.get("orm")
        return f"Use {orm}. {self.advice}" if orm else self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        orm: str | None = self.options.get("orm")
        modules = ctx.modules()
        models = Models.of(modules)
        findings: list[Finding] = []
        if not models.accepted(orm):
            where = f"with {ORM_NAMES[orm]}" if orm else "through an ORM"
            path = modules[0].relpath if modules else None
            findings.append(
                ctx.finding(
                    f"no model is declared {where}: expected {_EXPECTED[orm]}", path=path, line=1
                )
            )
        for kind, model in models.others(orm):
            findings.append(
                ctx.report(
                    model.module,
                    model.node,
                    f"`{model.node.name.value}` is declared with {ORM_NAMES[kind]}, but the "
                    f"ORM must be {ORM_NAMES[orm or kind]}",
                )
            )
        # Ways around the ORM, each told how to do it through the ORM (`hint`).
        around: list[tuple[ParsedModule, cst.CSTNode, str]] = []
        every = raw_sql_sites(modules, SqlParser(), Project(modules))
        around.extend(
            (s.module, s.call, s.describe())
            for s in every
            if s.statement is None or s.statement.touches_data
        )
        # A raw connection used where raw SQL is reported already (the `execute` beside
        # it), or only to configure the connection, is not reported again.
        used = {(id(s.module), id(s.module.scope_of(s.call))) for s in every}
        for module in modules:
            around.extend(
                (module, found.site.node, f"imports the database driver {describe(found)}")
                for found in driver_imports(module)
            )
            around.extend(
                (module, node, f"opens a raw database connection (`{text}`)")
                for node, text in _raw_connections(module)
                if (id(module), id(module.scope_of(node))) not in used
            )
            findings.extend(
                ctx.report(
                    module,
                    node,
                    f"queries the Core table `{table}` directly: declare it as a model and "
                    "query the model",
                )
                for node, table in _core_table_queries(module)
            )
        if around:
            hint = orm_hint(modules)
            findings.extend(
                ctx.report(module, node, f"{what}: use the ORM ({hint})")
                for module, node, what in around
            )
        return findings

"""The `orm-only` check: data is declared through an ORM and never reached around it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared.drivers import describe, driver_imports
from pytest_codeif.checks.shared.js_code import JsCode
from pytest_codeif.checks.shared.js_data_access import (
    JS_EXPECTED,
    JS_ORM_NAMES,
    js_driver_imports,
    js_models,
    js_raw_connections,
)
from pytest_codeif.checks.shared.js_sql_sites import js_raw_sql_sites, orm_hint_js
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
from pytest_codeif.code.js_tree import JsModule

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

    JavaScript and TypeScript (Node backends): models are Sequelize's
    (`sequelize.define("User", ...)` on a Sequelize instance, a class extending its
    `Model`, sequelize-typescript's too), TypeORM's (an `@Entity()` class, an
    `EntitySchema`), Prisma's (a `model` of a `.prisma` schema among the project's
    files); Knex, a query builder, counts as used when a Knex instance is made
    (`knex({ client })`). The ways around them are the `raw-sql` check's JS/TS sites
    (`sequelize.query("SELECT ...")`, `knex.raw(...)`, `prisma.$queryRaw`...), a driver
    imported as `db-drivers` finds it (`pg`, `mysql2`, `sqlite3`, `better-sqlite3`...),
    and a raw connection taken (`sequelize.connectionManager.getConnection()`,
    `knex.client.acquireConnection()`). A scope holding both languages judges each.

    Options: `orm` (`sqlalchemy`, `sqlmodel` or `django` for Python; `sequelize`,
    `prisma`, `typeorm` or `knex` for JavaScript and TypeScript; default: any of them;
    one of the other language than the code's is a task error).

    Example:

        - check: orm-only
          orm: sqlalchemy
          exclude-files: [alembic/]
    """

    name = "orm-only"
    category = "Code Quality"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Declare each table as an ORM model and read and write it through the ORM "
        "(`session.execute(select(User))`, `User.objects.filter(...)`), removing raw SQL, driver "
        "imports, raw connections and queries on Core tables."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"orm": {"enum": sorted({*ORM_NAMES, *JS_ORM_NAMES})}},
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
        Sample(  # Sequelize: models defined on the instance, queried through them
            {
                "src/db.js": """
                    const { Sequelize, DataTypes } = require("sequelize");
                    const sequelize = new Sequelize({ dialect: "sqlite", storage: "app.db" });
                    const User = sequelize.define("User", { email: DataTypes.STRING });
                    module.exports = { sequelize, User };
                    """,
                "src/repositories/users.js": """
                    const { User } = require("../db");
                    exports.byEmail = (email) => User.findOne({ where: { email } });
                    """,
            },
            {"orm": "sequelize"},
        ),
        Sample(  # TypeORM: an entity, read through a repository
            """
            import { Entity, PrimaryGeneratedColumn, Column, DataSource } from "typeorm";

            @Entity("users")
            export class User {
              @PrimaryGeneratedColumn() id!: number;
              @Column() email!: string;
            }
            export const dataSource = new DataSource({ type: "sqlite", database: "app.db" });
            export const byEmail = (email: string) =>
              dataSource.getRepository(User).findOneBy({ email });
            """,
            {"orm": "typeorm"},
            language="typescript",
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
        Sample(  # raw SQL through the Sequelize instance, and a driver beside the ORM
            {
                "src/models/user.js": """
                    import { DataTypes, Model } from "sequelize";
                    export class User extends Model {}
                    """,
                "src/repositories/users.js": """
                    import sqlite3 from "sqlite3";
                    import { sequelize } from "../db.js";

                    export const byEmail = (email) =>
                      sequelize.query("SELECT * FROM users WHERE email = ?", {
                        replacements: [email],
                      });
                    """,
                "src/db.js": """
                    import { Sequelize } from "sequelize";
                    export const sequelize = new Sequelize("sqlite::memory:");
                    """,
            },
            {"orm": "sequelize"},
            message="raw SQL `SELECT ... FROM users` passed to `sequelize.query`",
            path="src/repositories/users.js",
            line=5,
        ),
        Sample(
            'import express from "express";\nconst app = express();\n',
            {"orm": "prisma"},
            language="javascript",
            message="no model is declared with Prisma",
        ),
    )

    def advise(self) -> str:
        orm = self.options.get("orm")
        return f"Use {orm}. {self.advice}" if orm else self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        orm: str | None = self.options.get("orm")
        modules = ctx.modules()
        scripts = ctx.js_modules()
        python = bool(modules) and (orm is None or orm in ORM_NAMES)
        js = bool(scripts) and (orm is None or orm in JS_ORM_NAMES)
        if not python and not js:
            written = "Python" if orm in ORM_NAMES else "JavaScript or TypeScript"
            raise Undecidable(
                "invalid-task",
                f"`{orm}` is an ORM of {written}, and the constraint's scope holds none",
                key_path=("orm",),
            )
        findings: list[Finding] = []
        accepted = False
        if python:
            accepted, found = self._python(ctx, modules, orm)
            findings += found
        if js:
            js_accepted, found = self._js(ctx, scripts, orm)
            accepted = accepted or js_accepted
            findings += found
        if not accepted:
            names = {**ORM_NAMES, **JS_ORM_NAMES}
            where = f"with {names[orm]}" if orm else "through an ORM"
            expected = (_EXPECTED if python else JS_EXPECTED)[orm]
            path = modules[0].relpath if python else scripts[0].relpath
            message = f"no model is declared {where}: expected {expected}"
            findings.insert(0, ctx.finding(message, path=path, line=1))
        return findings

    def _js(
        self, ctx: CheckContext, scripts: list[JsModule], orm: str | None
    ) -> tuple[bool, list[Finding]]:
        """Whether JS/TS models are declared with the asked ORM (any, without `orm`),
        and the findings on the JS/TS code (see the class docstring)."""
        code = JsCode(scripts, ctx.unit)
        models = js_models(code, ctx.unit)
        accepted = any(m.orm == orm for m in models) if orm else bool(models)
        findings = [
            ctx.finding(
                f"`{model.name}` is declared with {JS_ORM_NAMES[model.orm]}, but the ORM must "
                f"be {JS_ORM_NAMES[orm]}",
                path=model.relpath,
                line=model.line,
            )
            for model in models
            if orm is not None and model.orm != orm
        ]
        around: list[tuple[str, int, str]] = [
            (site.module.relpath, site.line, site.describe())
            for site in js_raw_sql_sites(code, SqlParser())
            if site.statement is None or site.statement.touches_data
        ]
        around += [
            (found.relpath, found.line, f"imports the database driver {found.describe()}")
            for module in scripts
            for found in js_driver_imports(module)
        ]
        around += [
            (module.relpath, module.line_of(node), f"opens a raw database connection (`{text}`)")
            for module, node, text in js_raw_connections(code)
        ]
        if around:
            hint = orm_hint_js(code)
            findings += [
                ctx.finding(f"{what}: use the ORM ({hint})", path=relpath, line=line)
                for relpath, line, what in around
            ]
        return accepted, findings

    def _python(
        self, ctx: CheckContext, modules: list[ParsedModule], orm: str | None
    ) -> tuple[bool, list[Finding]]:
        """Whether Python models are declared with the asked ORM, and the findings on
        the Python code."""
        models = Models.of(modules)
        findings: list[Finding] = []
        accepted = bool(models.accepted(orm))
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
        return accepted, findings

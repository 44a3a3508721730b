"""The `orm-only` check: data is declared through an ORM and never reached around it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.db_drivers import describe, driver_imports
from pytest_codeif.checks.raw_sql import Project, orm_hint, raw_sql_sites
from pytest_codeif.checks.shared.sql_text import SqlParser
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule

#: Classes whose subclasses are SQLAlchemy declarative bases.
_DECLARATIVE_BASES: Final = frozenset(
    {
        "sqlalchemy.orm.DeclarativeBase",
        "sqlalchemy.orm.DeclarativeBaseNoMeta",
        "sqlalchemy.orm.decl_api.DeclarativeBase",
        "sqlalchemy.orm.decl_api.DeclarativeBaseNoMeta",
    }
)
#: Calls that make a declarative base (`Base = declarative_base()`).
_BASE_MAKERS: Final = frozenset(
    {
        "sqlalchemy.orm.declarative_base",
        "sqlalchemy.orm.decl_api.declarative_base",
        "sqlalchemy.ext.declarative.declarative_base",
    }
)
_AS_DECLARATIVE: Final = frozenset(
    {"sqlalchemy.orm.as_declarative", "sqlalchemy.ext.declarative.as_declarative"}
)
_REGISTRY: Final = frozenset({"sqlalchemy.orm.registry", "sqlalchemy.orm.decl_api.registry"})
#: `db = SQLAlchemy(app)`: `db.Model` is a declarative base.
_FLASK_SQLALCHEMY: Final = frozenset({"flask_sqlalchemy.SQLAlchemy"})
_SQLMODEL: Final = frozenset({"sqlmodel.SQLModel", "sqlmodel.main.SQLModel"})
_DJANGO_MODEL: Final = frozenset({"django.db.models.Model", "django.db.models.base.Model"})
_MODELS_MODULE: Final = re.compile(r"\.models\.(?:\w+\.)*[A-Z]\w*$")
_CORE_TABLE: Final = frozenset({"sqlalchemy.Table", "sqlalchemy.schema.Table", "sqlmodel.Table"})
_CORE_QUERIES: Final = frozenset({"insert", "select", "update", "delete"})
_CORE_QUERY_FUNCTIONS: Final = frozenset(
    f"{package}.{verb}"
    for package in ("sqlalchemy", "sqlalchemy.sql", "sqlalchemy.sql.expression", "sqlmodel")
    for verb in _CORE_QUERIES
)
_DJANGO_CONNECTIONS: Final = frozenset({"django.db.connection", "django.db.connections"})

ORM_NAMES: Final = {"sqlalchemy": "SQLAlchemy", "sqlmodel": "SQLModel", "django": "Django"}
_EXPECTED: Final = {
    "sqlalchemy": "a class on a declarative base (`class User(Base)`, the base made with "
    "`DeclarativeBase` or `declarative_base()`), or mapped with `registry.mapped`",
    "sqlmodel": "a `SQLModel` class with `table=True`",
    "django": "a subclass of `django.db.models.Model`",
    None: "a SQLAlchemy declarative class, a `SQLModel` class with `table=True` or a "
    "Django `models.Model`",
}


@dataclass(frozen=True)
class _Class:
    module: ParsedModule
    node: cst.ClassDef
    full: str
    bases: frozenset[str]
    table: bool
    abstract: bool


def _prefixed(module: ParsedModule, name: str) -> str:
    return f"{module.place.name}.{name}" if module.place is not None else name


def _names(module: ParsedModule, node: cst.BaseExpression) -> set[str]:
    """What `node` may name across the project: resolved through imports, and as a name
    of its own module (`Base`, `db.Model`)."""
    text = code_of(node)
    return {*module.qualified(node), text, _prefixed(module, text)}


def _is_abstract(node: cst.ClassDef) -> bool:
    """`__abstract__ = True` (SQLAlchemy) or `class Meta: abstract = True` (Django)."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for statement in body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == "Meta":
            if _is_abstract_flag(statement, "abstract"):
                return True
        elif _assigns_true(statement, "__abstract__"):
            return True
    return False


def _is_abstract_flag(meta: cst.ClassDef, name: str) -> bool:
    body = meta.body.body if isinstance(meta.body, cst.IndentedBlock) else ()
    return any(_assigns_true(statement, name) for statement in body)


def _assigns_true(statement: cst.CSTNode, name: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Name)
            and small.value.value == "True"
            and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            )
        ):
            return True
    return False


def _table_keyword(node: cst.ClassDef) -> bool:
    return any(
        kw.keyword is not None
        and kw.keyword.value == "table"
        and isinstance(kw.value, cst.Name)
        and kw.value.value == "True"
        for kw in node.keywords
    )


@dataclass
class Models:
    """The ORM models of a project, by ORM (`sqlalchemy`, `sqlmodel`, `django`)."""

    found: dict[str, list[_Class]]

    @classmethod
    def of(cls, modules: Sequence[ParsedModule]) -> Models:
        classes: list[_Class] = []
        roots = set(_DECLARATIVE_BASES)
        mapped: list[_Class] = []
        for module in modules:
            registries = _made_by(module, _REGISTRY)
            roots.update(_prefixed(module, name) for name in _declarative_bases(module, registries))
            for qual, node in module.definitions:
                if isinstance(node, cst.ClassDef):
                    found = _Class(
                        module,
                        node,
                        _prefixed(module, qual),
                        frozenset(n for b in node.bases for n in _names(module, b.value)),
                        _table_keyword(node),
                        _is_abstract(node),
                    )
                    classes.append(found)
                    decorators = _decorators(module, node)
                    if decorators & _AS_DECLARATIVE:
                        roots.add(found.full)
                    if any(d in decorators for r in registries for d in _mapping_decorators(r)):
                        mapped.append(found)
        by_full = {c.full: c for c in classes}
        django_roots = _DJANGO_MODEL | _installed_django_models(classes, by_full)
        models: dict[str, list[_Class]] = {"sqlalchemy": mapped, "sqlmodel": [], "django": []}
        for c in classes:
            if c.abstract:
                continue
            if _reaches(c, _SQLMODEL, by_full):
                if c.table:
                    models["sqlmodel"].append(c)
            elif _reaches(c, django_roots, by_full):
                models["django"].append(c)
            elif (
                _reaches(c, roots, by_full)
                and not c.bases & _DECLARATIVE_BASES
                and c.full not in roots
            ):
                models["sqlalchemy"].append(c)
        return cls(models)

    def accepted(self, orm: str | None) -> list[_Class]:
        """Models declared the way `orm` asks (SQLModel tables are SQLAlchemy models)."""
        if orm is None:
            return [c for models in self.found.values() for c in models]
        if orm == "sqlalchemy":
            return self.found["sqlalchemy"] + self.found["sqlmodel"]
        return self.found[orm]

    def others(self, orm: str | None) -> Iterator[tuple[str, _Class]]:
        """Models declared with another ORM than `orm`."""
        if orm is None:
            return
        allowed = {"sqlalchemy", "sqlmodel"} if orm == "sqlalchemy" else {orm}
        for kind, models in self.found.items():
            if kind not in allowed:
                for model in models:
                    yield kind, model


def _installed_django_models(classes: Sequence[_Class], by_full: Mapping[str, _Class]) -> set[str]:
    """In a Django project, bases from an installed package's `models` module
    (`django.contrib.auth.models.AbstractUser`, `mptt.models.MPTTModel`): their source
    is not in the project, and they are models."""
    bases = {b for c in classes for b in c.bases if b not in by_full}
    if not any(b.startswith("django.") for b in bases):
        return set()
    return {b for b in bases if _MODELS_MODULE.search(b)}


def _reaches(start: _Class, roots: Set[str], by_full: Mapping[str, _Class]) -> bool:
    """Whether `start` descends from one of `roots`, through the project's classes."""
    pending, seen = [start], {start.full}
    while pending:
        current = pending.pop()
        if current.bases & roots:
            return True
        for base in current.bases:
            parent = by_full.get(base)
            if parent is not None and parent.full not in seen:
                seen.add(parent.full)
                pending.append(parent)
    return False


def _decorators(module: ParsedModule, node: cst.ClassDef) -> set[str]:
    """The decorators of a class, as qualified names and as written (`reg.mapped`)."""
    found: set[str] = set()
    for decorator in node.decorators:
        expr = decorator.decorator
        expr = expr.func if isinstance(expr, cst.Call) else expr
        found.update(module.qualified(expr))
        found.add(code_of(expr))
    return found


def _mapping_decorators(registry: str) -> tuple[str, str]:
    return f"{registry}.mapped", f"{registry}.mapped_as_dataclass"


def _declarative_bases(module: ParsedModule, registries: set[str]) -> set[str]:
    """Names the module makes declarative bases under: `Base = declarative_base()`,
    `Base = reg.generate_base()`, and `db.Model` for Flask-SQLAlchemy's `db`."""
    found = _made_by(module, _BASE_MAKERS) | _generated_bases(module, registries)
    found.update(f"{name}.Model" for name in _made_by(module, _FLASK_SQLALCHEMY))
    return found


def _made_by(module: ParsedModule, makers: frozenset[str]) -> set[str]:
    """Names (`Base`, `db`, `self.x` as written) assigned a call of one of `makers`."""
    found: set[str] = set()
    for node in module.nodes(cst.Assign):
        if isinstance(node.value, cst.Call) and module.qualified(node.value.func) & makers:
            found.update(code_of(t.target) for t in node.targets)
    return found


def _generated_bases(module: ParsedModule, registries: set[str]) -> set[str]:
    """`Base = mapper_registry.generate_base()`."""
    found: set[str] = set()
    for node in module.nodes(cst.Assign):
        value = node.value
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "generate_base"
            and (code_of(value.func.value) in registries or isinstance(value.func.value, cst.Call))
        ):
            found.update(code_of(t.target) for t in node.targets)
    return found


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
            func.attr.value == "cursor" and module.qualified(receiver) & _DJANGO_CONNECTIONS
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

"""The ORM models of a project (SQLAlchemy, SQLModel, Django), found by their bases,
decorators and registries: what the `orm-only` and `database` checks read."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Final

import libcst as cst

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

"""Registers the checks that ship with pytest-codeif."""

from __future__ import annotations

import pytest

from pytest_codeif.checks.acyclic import AcyclicCheck
from pytest_codeif.checks.algorithm import AlgorithmCheck
from pytest_codeif.checks.answer import AnswerCheck
from pytest_codeif.checks.base import Check
from pytest_codeif.checks.biome import BiomeCheck
from pytest_codeif.checks.brace_style import BraceStyleCheck
from pytest_codeif.checks.calls import CallsCheck
from pytest_codeif.checks.comments import CommentsCheck
from pytest_codeif.checks.complexity import ComplexityCheck
from pytest_codeif.checks.construct import ConstructCheck
from pytest_codeif.checks.context import ContextCheck
from pytest_codeif.checks.data_structure import DataStructureCheck
from pytest_codeif.checks.database import DatabaseCheck
from pytest_codeif.checks.db_drivers import DbDriversCheck
from pytest_codeif.checks.declarations import DeclarationsCheck
from pytest_codeif.checks.defines import DefinesCheck
from pytest_codeif.checks.dependency_injection import DependencyInjectionCheck
from pytest_codeif.checks.django_no_connection import DjangoConnectionCheck
from pytest_codeif.checks.exemplar import ExemplarCheck
from pytest_codeif.checks.fastapi_bodies import FastapiBodiesCheck
from pytest_codeif.checks.files import FilesCheck
from pytest_codeif.checks.framework import FrameworkCheck
from pytest_codeif.checks.global_state import GlobalStateCheck
from pytest_codeif.checks.imports import ImportsCheck
from pytest_codeif.checks.indentation import IndentationCheck
from pytest_codeif.checks.independence import IndependenceCheck
from pytest_codeif.checks.language import LanguageCheck
from pytest_codeif.checks.layers import LayersCheck
from pytest_codeif.checks.mypy import MypyCheck
from pytest_codeif.checks.named_algorithm import NamedAlgorithmCheck
from pytest_codeif.checks.naming import NamingCheck
from pytest_codeif.checks.orm_only import OrmOnlyCheck
from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.checks.public_api import PublicApiCheck
from pytest_codeif.checks.python_version import PythonVersionCheck
from pytest_codeif.checks.raw_sql import RawSqlCheck
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.checks.routes import RoutesCheck
from pytest_codeif.checks.ruff import RuffCheck
from pytest_codeif.checks.session_injection import SessionInjectionCheck
from pytest_codeif.checks.signature import SignatureCheck
from pytest_codeif.checks.tsc import TscCheck
from pytest_codeif.checks.types import TypesCheck
from pytest_codeif.checks.values import ValuesCheck

BUILTIN_CHECKS: tuple[type[Check], ...] = (
    AcyclicCheck,
    AlgorithmCheck,
    AnswerCheck,
    BiomeCheck,
    BraceStyleCheck,
    CallsCheck,
    CommentsCheck,
    ComplexityCheck,
    ConstructCheck,
    ContextCheck,
    DataStructureCheck,
    DatabaseCheck,
    DbDriversCheck,
    DeclarationsCheck,
    DefinesCheck,
    DependencyInjectionCheck,
    DjangoConnectionCheck,
    ExemplarCheck,
    FastapiBodiesCheck,
    FilesCheck,
    FrameworkCheck,
    GlobalStateCheck,
    ImportsCheck,
    IndentationCheck,
    IndependenceCheck,
    LanguageCheck,
    LayersCheck,
    MypyCheck,
    NamedAlgorithmCheck,
    NamingCheck,
    OrmOnlyCheck,
    PatternCheck,
    PublicApiCheck,
    PythonVersionCheck,
    RawSqlCheck,
    RoutesCheck,
    RuffCheck,
    SessionInjectionCheck,
    SignatureCheck,
    TscCheck,
    TypesCheck,
    ValuesCheck,
)


def builtin_registry() -> CheckRegistry:
    """A registry holding only the built-in checks (for docs and the shipped schema)."""
    registry = CheckRegistry()
    for check in BUILTIN_CHECKS:
        registry.register(check)
    return registry


@pytest.hookimpl
def pytest_codeif_register_checks(registry: CheckRegistry) -> None:
    for check in BUILTIN_CHECKS:
        registry.register(check)

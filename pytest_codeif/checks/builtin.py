"""Registers the checks that ship with pytest-codeif."""

from __future__ import annotations

import pytest

from pytest_codeif.checks.algorithm import AlgorithmCheck
from pytest_codeif.checks.base import Check
from pytest_codeif.checks.calls import CallsCheck
from pytest_codeif.checks.complexity import ComplexityCheck
from pytest_codeif.checks.construct import ConstructCheck
from pytest_codeif.checks.context import ContextCheck
from pytest_codeif.checks.data_structure import DataStructureCheck
from pytest_codeif.checks.declarations import DeclarationsCheck
from pytest_codeif.checks.exemplar import ExemplarCheck
from pytest_codeif.checks.framework import FrameworkCheck
from pytest_codeif.checks.global_state import GlobalStateCheck
from pytest_codeif.checks.imports import ImportsCheck
from pytest_codeif.checks.interface_types import TypesCheck
from pytest_codeif.checks.mypy_types import MypyCheck
from pytest_codeif.checks.naming import NamingCheck
from pytest_codeif.checks.python_version import PythonVersionCheck
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.checks.ruff_rules import RuffCheck
from pytest_codeif.checks.signature import SignatureCheck
from pytest_codeif.checks.values import ValuesCheck

BUILTIN_CHECKS: tuple[type[Check], ...] = (
    AlgorithmCheck,
    CallsCheck,
    ComplexityCheck,
    ConstructCheck,
    ContextCheck,
    DataStructureCheck,
    DeclarationsCheck,
    ExemplarCheck,
    FrameworkCheck,
    GlobalStateCheck,
    ImportsCheck,
    MypyCheck,
    NamingCheck,
    PythonVersionCheck,
    RuffCheck,
    SignatureCheck,
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

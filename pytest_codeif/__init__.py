"""pytest-codeif: check code written by models and agents against fine-grained constraints.

The public API for rule authors: subclass `Check`, give it samples, and register it
from a `pytest_codeif_register_checks(registry)` hook in a plugin or a conftest.py.

Names are imported on first use, so that pytest loading the plugin without `--codeif`
never imports libcst, jsonschema or PyYAML.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codeif.checks.base import (
        CATEGORIES,
        Check,
        CheckContext,
        Finding,
        Sample,
        Undecidable,
    )
    from pytest_codeif.checks.registry import CheckRegistry
    from pytest_codeif.code.cst import ParsedModule
    from pytest_codeif.testing import SampleProblem, verify_samples
    from pytest_codeif.tools import MypyConfig, RuffConfig

_HOMES = {
    "CATEGORIES": "pytest_codeif.checks.base",
    "Check": "pytest_codeif.checks.base",
    "Finding": "pytest_codeif.checks.base",
    "Sample": "pytest_codeif.checks.base",
    "Undecidable": "pytest_codeif.checks.base",
    "CheckRegistry": "pytest_codeif.checks.registry",
    "CheckContext": "pytest_codeif.checks.base",
    "ParsedModule": "pytest_codeif.code.cst",
    "MypyConfig": "pytest_codeif.tools",
    "RuffConfig": "pytest_codeif.tools",
    "SampleProblem": "pytest_codeif.testing",
    "verify_samples": "pytest_codeif.testing",
}

__all__ = [
    "CATEGORIES",
    "Check",
    "CheckContext",
    "CheckRegistry",
    "Finding",
    "MypyConfig",
    "ParsedModule",
    "RuffConfig",
    "Sample",
    "SampleProblem",
    "Undecidable",
    "verify_samples",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pytest_codeif' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)

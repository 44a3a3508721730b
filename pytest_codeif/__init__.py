"""pytest-codeif: check code written by models and agents against fine-grained constraints.

The public API for rule authors: subclass `Check`, give it samples, and register it
from a `pytest_codeif_register_checks(registry)` hook in a plugin or a conftest.py.
"""

from pytest_codeif.checks.base import CATEGORIES, Check, Finding, Sample, Undecidable
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.engine.context import CheckContext
from pytest_codeif.engine.cst import ParsedModule
from pytest_codeif.engine.tools import MypyConfig, RuffConfig
from pytest_codeif.testing import SampleProblem, verify_samples

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

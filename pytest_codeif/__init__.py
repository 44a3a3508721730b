"""pytest-codeif: check code written by models and agents against fine-grained constraints.

The public API for rule authors: subclass `Check`, give it samples, and register it
from a `pytest_codeif_register_checks(registry)` hook in a plugin or a conftest.py.

Names are imported on first use, so that pytest loading the plugin without `--codeif`
never imports libcst, jsonschema or PyYAML.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

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


class _PlainImports(importlib.abc.MetaPathFinder):
    """Finds this package's modules as Python's own path finder does, ahead of pytest's
    assertion rewriting hook.

    pytest marks every module of an installed plugin's distribution for assertion
    rewriting (`Config._mark_plugins_for_rewrite`). A rewritten module is compiled from
    its source, not from the interpreter's `__pycache__`, and with
    PYTHONDONTWRITEBYTECODE (Docker images, CI) on every run: 1.5-3 s of each session's
    start for this package, which has no assert to rewrite (a test enforces it). The
    package's `__init__` alone is imported through the hook, before this finder exists.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None or not fullname.startswith(f"{__name__}."):
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, path)


def _skip_assertion_rewriting() -> None:
    """Put `_PlainImports` first on `sys.meta_path` when pytest's rewriting hook is on
    it (pytest has configured assertion rewriting; never otherwise)."""
    hooks = [type(finder).__name__ for finder in sys.meta_path]
    if "AssertionRewritingHook" in hooks and "_PlainImports" not in hooks:
        sys.meta_path.insert(0, _PlainImports())


_skip_assertion_rewriting()

"""Hooks pytest-codeif adds to pytest; a plugin or a conftest.py implements them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_codeif.checks.registry import CheckRegistry


@pytest.hookspec
def pytest_codeif_register_checks(registry: CheckRegistry) -> None:
    """Register check classes with `registry.register(MyCheck)`.

    Called once per session, the first time a task file is collected; implement it in a
    plugin or in a conftest.py at the root of the tests (not in a subdirectory one).
    """

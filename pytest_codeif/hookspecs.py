"""Hooks pytest-codeif adds to pytest; a plugin or a conftest.py implements them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_codeif.checks.registry import CheckRegistry


@pytest.hookspec
def pytest_codeif_register_checks(registry: CheckRegistry) -> None:
    """Register check classes with `registry.register(MyCheck)`.

    Called once per `--codeif` session, when it is configured, and by `codeif
    check-samples`; implement it in a plugin or in a conftest.py at the root of the tests
    (not in a subdirectory one: it is loaded too late). The samples of the checks
    registered here are verified once per session (see `pytest_codeif.testing`).
    """

"""The checks a `pytest --codeif` run would know, read as such a run reads them: one
`pytest.main` call that loads plugins (installed ones and `-p MODULE`) and stops once
they are loaded, before collecting anything (as `codeif check-samples` does). It runs
in an empty folder with an empty ini file, as the witness run does, so the catalog
offers exactly the checks the witness run can judge."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_codeif.checks.base import Check
from pytest_codeif.checks.builtin import BUILTIN_CHECKS
from pytest_codeif.checks.registry import CheckRegistrationError, CheckRegistry


class RegistryError(RuntimeError):
    """The checks could not be read (a plugin failed to load or to register)."""


class _Reader:
    """A plugin for one `pytest.main` call: fill a registry and stop."""

    def __init__(self) -> None:
        self.checks: list[type[Check]] | None = None
        self.problem = ""

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> int:
        register = getattr(config.hook, "pytest_codeif_register_checks", None)
        registry = CheckRegistry()
        try:
            for check in BUILTIN_CHECKS:  # a --codeif session registers these first
                registry.register(check)
            if register is not None:
                register(registry=registry)
        except CheckRegistrationError as exc:
            self.problem = f"cannot register a check: {exc}"
            return 1
        self.checks = list(registry)
        return 0


def registered_checks(plugins: Sequence[str] = ()) -> list[type[Check]]:
    """The registered check classes, by name; `RegistryError` when pytest could not
    load the plugins or a check could not be registered."""
    reader = _Reader()
    with tempfile.TemporaryDirectory(prefix="codeif-checks-") as folder:
        ini = Path(folder) / "pytest.ini"
        ini.write_text("[pytest]\n", encoding="utf-8")
        arguments = ["-q", "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", folder]
        arguments += [arg for plugin in plugins for arg in ("-p", plugin)]
        try:
            status = pytest.main([*arguments, folder], plugins=[reader])
        except Exception as exc:  # noqa: BLE001 - a plugin's import error, said as ours
            raise RegistryError(f"pytest could not load the plugins: {exc}") from None
    if reader.checks is None:
        raise RegistryError(reader.problem or f"pytest stopped with status {int(status)}")
    return reader.checks

"""A check is found by its name: `checks/<name>.py` or `checks/<name>/`, beside only the
framework and `checks/shared/`, and the import contract that keeps checks apart lists
every one of them."""

from __future__ import annotations

import configparser
import importlib
import pkgutil
from pathlib import Path

import pytest
import yaml

from pytest_codeif import checks
from pytest_codeif.checks.base import Check
from pytest_codeif.checks.builtin import BUILTIN_CHECKS, builtin_registry

CHECKS_DIR = Path(checks.__file__).parent
IMPORTLINTER = Path(__file__).parents[1] / ".importlinter"
SELF_GATE = Path(__file__).parents[1] / ".ci" / "self.codeif.yaml"
#: What sits in `checks/` beside the checks: the framework and the shared code.
FRAMEWORK = ("base", "registry", "builtin")
SHARED = "shared"


def module_name(check: type[Check]) -> str:
    """The module a check's name says it lives in: `django-no-connection` ->
    `django_no_connection`."""
    return check.name.replace("-", "_")


def check_modules() -> set[str]:
    return {module_name(check) for check in builtin_registry()}


@pytest.mark.parametrize("check", BUILTIN_CHECKS, ids=lambda c: c.name)
def test_a_check_lives_at_its_name(check: type[Check]) -> None:
    name = module_name(check)
    assert check.__module__ == f"pytest_codeif.checks.{name}", (
        f"`{check.name}` is defined in {check.__module__}: move it to checks/{name}.py, "
        f"or to checks/{name}/__init__.py when it has helper modules of its own"
    )
    module = CHECKS_DIR / f"{name}.py"
    package = CHECKS_DIR / name / "__init__.py"
    assert module.is_file() != package.is_file()


def test_checks_holds_only_checks_the_framework_and_shared_code() -> None:
    present = {info.name for info in pkgutil.iter_modules([str(CHECKS_DIR)])}
    unexpected = present - check_modules() - {*FRAMEWORK, SHARED}
    assert not unexpected, (
        f"checks/ holds {sorted(unexpected)}, which are no registered check: code one "
        "check uses goes into its package (checks/<name>/), code several use into "
        "checks/shared/"
    )
    assert {*FRAMEWORK, SHARED} <= present


def test_shared_code_holds_no_check() -> None:
    from pytest_codeif.checks import shared

    assert "holds no check" in " ".join((shared.__doc__ or "").split())
    for info in pkgutil.walk_packages(shared.__path__, f"{shared.__name__}."):
        module = importlib.import_module(info.name)
        defined = [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Check)
            and value.__module__ == info.name
        ]
        assert not defined, f"{info.name} defines the check {defined[0].__name__}"


def expected_layers() -> list[str]:
    """The checks' contract, top first: the framework that registers them, every check
    (independent of each other), then the code they may import."""
    return ["builtin", "registry", " | ".join(sorted(check_modules())), SHARED, "base"]


def test_the_import_contract_lists_every_check() -> None:
    """A new check must be added to the `checks` contract of `.importlinter` (and to its
    twin in `.ci/self.codeif.yaml`), or it could import another check unnoticed."""
    config = configparser.ConfigParser()
    config.read(IMPORTLINTER, encoding="utf-8")
    contract = config["importlinter:contract:checks"]
    assert contract["type"] == "layers"
    assert contract["containers"].split() == ["pytest_codeif.checks"]
    assert contract.getboolean("exhaustive")
    layers = [line.strip() for line in contract["layers"].splitlines() if line.strip()]
    assert layers == expected_layers()


def test_the_self_gate_states_the_same_contract() -> None:
    task = yaml.safe_load(SELF_GATE.read_text(encoding="utf-8"))["tasks"][0]
    [rule] = [c for c in task["constraints"] if c.get("id") == "checks-apart"]
    assert (rule["check"], rule["containers"], rule["exhaustive"]) == (
        "layers",
        ["pytest_codeif.checks"],
        True,
    )
    assert rule["layers"] == expected_layers()

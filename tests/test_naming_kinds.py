"""Issue 22.8: `naming` classifies Django settings as constants and type variables and
aliases as their own kinds, never as variables that are not snake_case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import Sample
from pytest_codeif.checks.naming import NamingCheck
from pytest_codeif.checks.shared.naming_conventions import named_things
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.testing import sample_verdict

SETTINGS = """
import environ
from datetime import timedelta

env = environ.Env()
BASE_DIR = Path(__file__).resolve().parent.parent
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = ["*"]
DATABASES = {"default": env.db()}
INSTALLED_APPS = ["django.contrib.admin"]
if DEBUG:
    INSTALLED_APPS += ["debug_toolbar"]
    ALLOWED_HOSTS = ["localhost"]
TIMEOUT: timedelta = timedelta(seconds=5)
WIDTH, HEIGHT = env.tuple("SIZE")

class Config:
    TIMEOUT = env.int("TIMEOUT")
    RETRIES: int

_counter = 0

def bump():
    global COUNT
    COUNT = compute()
    local_total = 1
    return local_total
"""

TYPES = """
import typing
from typing import Callable, Optional, ParamSpec, TypeAlias, TypeVar, Union

T = TypeVar("T")
KT_co = typing.TypeVar("KT_co", covariant=True)
P = ParamSpec("P")
Ts = typing.TypeVarTuple("Ts")
Json: TypeAlias = "dict[str, Json] | list[Json] | str"
Handler: typing.TypeAlias = Callable[[str], None]
Number = Union[int, float]
MaybeName = Optional[str]
Row = list[int]
Table = dict[str, "Row"]
IntOrNone = int | None
UserOrNone = User | None
"""


def findings(code: str, tmp_path: Path, **rules: Any) -> list[str]:
    options = {kind.replace("_", "-"): rule for kind, rule in rules.items()}
    verdict = sample_verdict(NamingCheck, Sample(code, options), tmp_path)
    assert verdict.status != "error", verdict.error
    return [e.message for e in verdict.evidence]


def test_django_settings_are_constants_whatever_their_value(tmp_path: Path) -> None:
    assert findings(SETTINGS, tmp_path, variable="snake_case") == []
    found = findings(SETTINGS, tmp_path, constant="snake_case")
    for name in ("BASE_DIR", "DEBUG", "ALLOWED_HOSTS", "DATABASES", "INSTALLED_APPS"):
        assert f"constant `{name}` does not follow snake_case" in found
    for name in ("TIMEOUT", "WIDTH", "HEIGHT", "RETRIES", "COUNT"):
        assert f"constant `{name}` does not follow snake_case" in found


def test_lower_case_names_keep_their_kinds(tmp_path: Path) -> None:
    found = findings(SETTINGS, tmp_path, variable="UPPER_CASE")
    assert "variable `env` does not follow UPPER_CASE" in found
    assert "variable `local_total` does not follow UPPER_CASE" in found
    assert "constant `_counter` does not follow UPPER_CASE" in findings(
        SETTINGS, tmp_path, constant="UPPER_CASE"
    )


def test_upper_case_in_a_function_is_a_variable(tmp_path: Path) -> None:
    code = "def f():\n    LIMIT = compute()\n    return LIMIT\n"
    assert findings(code, tmp_path, variable="snake_case", constant="UPPER_CASE") == [
        "variable `LIMIT` does not follow snake_case"
    ]


def test_type_variables_and_aliases_are_not_variables(tmp_path: Path) -> None:
    assert findings(TYPES, tmp_path, variable="snake_case", constant="snake_case") == []


def test_type_variables_and_aliases_have_their_own_rules(tmp_path: Path) -> None:
    found = findings(TYPES, tmp_path, type_variable="snake_case", type_alias="snake_case")
    for name in ("T", "KT_co", "P", "Ts"):
        assert f"type-variable `{name}` does not follow snake_case" in found
    for name in ("Json", "Handler", "Number", "MaybeName", "Row", "Table", "UserOrNone"):
        assert f"type-alias `{name}` does not follow snake_case" in found
    assert "type-alias `IntOrNone` does not follow snake_case" in found


@pytest.mark.parametrize(
    "code",
    [
        "FLAGS = READ | WRITE\n",  # a value: no operand is a type
        "mask = flags | compute()\n",
        "first = items[0]\n",
        "class A:\n    Row = list[int]\n",  # class level: a class attribute, not an alias
    ],
)
def test_values_are_not_type_aliases(code: str, tmp_path: Path) -> None:
    assert findings(code, tmp_path, type_alias="snake_case") == []


def test_python_312_type_statements_and_parameters() -> None:
    """Classified from libcst's tree (the engine's syntax check needs Python 3.12 to
    accept the code, so these are no samples of the check)."""
    code = (
        "type Pair[K] = tuple[K, K]\n\n"
        "def first[T](items: list[T]) -> T:\n    return items[0]\n\n"
        "class Box[ItemT]:\n    pass\n"
    )
    module = ParsedModule(SourceFile("solution.py", code, Path("solution.py")))
    assert sorted((kind, name.value) for kind, name in named_things(module)) == [
        ("argument", "items"),
        ("class", "Box"),
        ("function", "first"),
        ("type-alias", "Pair"),
        ("type-variable", "ItemT"),
        ("type-variable", "K"),
        ("type-variable", "T"),
    ]


def test_a_django_settings_task_end_to_end(pytester: pytest.Pytester) -> None:
    (pytester.path / "app").mkdir()
    (pytester.path / "app" / "settings.py").write_text(SETTINGS + TYPES)
    pytester.makefile(
        ".codeif.yaml",
        rules="tasks:\n  - id: settings\n    directory: app\n    constraints:\n"
        "      - check: naming\n        variable: snake_case\n        function: snake_case\n",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)

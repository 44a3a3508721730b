"""Scope keys (`files`, `exclude-files`, `modules`, `exclude-modules`) are applied by the
engine for every check, ruff's included; a file outside the scope cannot spoil it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_codeif.code.scope import Scope, ScopePatternError

FIXTURE = Path(__file__).parent.parent / "fixtures" / "scoped"


@pytest.mark.parametrize(
    ("scope", "relpath", "module", "covered"),
    [
        (Scope(modules=("app.api",)), "app/api/routes.py", "app.api.routes", True),
        (Scope(modules=("app.api",)), "app/apix.py", "app.apix", False),
        (Scope(modules=("app.*.models",)), "app/users/models.py", "app.users.models", True),
        (Scope(modules=("app.**.models",)), "app/models.py", "app.models", True),
        (
            Scope(files=("app/repositories/**",)),
            "app/repositories/x.py",
            "app.repositories.x",
            True,
        ),
        (
            Scope(files=("*.py",), exclude_files=("tests/",)),
            "tests/test_x.py",
            "tests.test_x",
            False,
        ),
        (Scope(exclude_modules=("app.legacy",)), "app/legacy/old.py", "app.legacy.old", False),
        (Scope(exclude_modules=("app.legacy",)), "app/api/routes.py", "app.api.routes", True),
        (Scope(modules=("app",)), "scripts/run-db.py", None, False),
        (Scope(), "anything.py", None, True),
    ],
)
def test_what_a_scope_covers(scope: Scope, relpath: str, module: str | None, covered: bool) -> None:
    assert scope.covers(relpath, module) is covered


def test_a_module_pattern_that_names_nothing_is_refused() -> None:
    with pytest.raises(ScopePatternError, match="not a dotted module name"):
        Scope(modules=("app..api",))


def test_scoped_constraints_on_a_project(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURE, pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {c["constraint"]: c for t in report["tasks"] for c in t["constraints"]}
    status = {k: (c["status"], c["error_kind"]) for k, c in by_id.items()}
    assert status == {
        "api-no-sqlite": ("satisfied", None),  # only app.api is judged
        "repos-no-print": ("violated", None),
        "no-print-but-legacy": ("violated", None),
        "typo": ("error", "invalid-task"),
        "everywhere": ("error", "syntax-error"),  # app/legacy/broken.py is in its scope
    }
    where = {k: [(e["path"], e["line"]) for e in c["evidence"]] for k, c in by_id.items()}
    assert where["repos-no-print"] == [("app/repositories/user_repo.py", 5)]
    assert where["no-print-but-legacy"] == [("app/api/routes.py", 5)]
    assert "modules: app.apii" in by_id["typo"]["error"]
    result.assert_outcomes(passed=1, failed=2, errors=2)

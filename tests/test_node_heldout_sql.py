"""Raw SQL in Node backends that the held-out review of issue #27 found missed
(fixtures/node_heldout): judged by `pytest --codeif` as a user runs it, with the exact
findings (file, line, message) asserted and nothing else.

- A typed query awaited, `await pool.query<UserRow>("SELECT ...")`: tree-sitter-typescript
  reads it as a call of `await pool.query`, and the call's callee was taken as is.
- Text a driver's handle runs that sqlglot reads no statement in
  (`db.exec("VACUUM INTO 'backup.db'")`, or built around a parameter) was taken for a
  fragment, as `knex.raw("now()")` is; Python's raw connections report it.
- Node's own `node:sqlite` (`new DatabaseSync()`) made no handle, and `db-drivers`
  named it `sqlite`, an npm package's name.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import FIXTURES

HELDOUT = FIXTURES / "node_heldout"


def _judge(root: Path, tasks: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Task id -> constraint id -> outcome, from one `pytest --codeif` run."""
    (root / "t.codeif.yaml").write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    (root / "pytest.ini").write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"]
    command += ["--codeif-report=report.json", "t.codeif.yaml"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    report = json.loads((root / "report.json").read_text())
    return {
        task["id"]: {o["constraint"]: o for o in task["constraints"]} for task in report["tasks"]
    }


def _findings(outcome: dict[str, Any], folder: str) -> set[tuple[str, int, str]]:
    return {
        (e["path"].removeprefix(folder + "/"), e["line"], e["message"]) for e in outcome["evidence"]
    }


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("heldout")
    for name in ("typed_pg", "typed_sequelize"):
        shutil.copytree(HELDOUT / name, root / name)
    return _judge(
        root,
        [
            {
                "id": "typed_pg",
                "directory": "typed_pg",
                "constraints": [
                    {"id": "raw-sql", "check": "raw-sql", "exclude-files": ["src/db/**"]},
                    {"id": "db-drivers", "check": "db-drivers"},
                ],
            },
            {
                "id": "typed_sequelize",
                "directory": "typed_sequelize",
                "constraints": [
                    {"id": "orm-only", "check": "orm-only", "orm": "sequelize"},
                    {"id": "raw-sql", "check": "raw-sql"},
                ],
            },
        ],
    )


def test_typed_awaited_queries_and_what_a_driver_handle_runs(
    judged: dict[str, dict[str, dict[str, Any]]],
) -> None:
    hint = ": use the ORM (its models' query methods)"
    service = "src/services/users.service.ts"
    outcome = judged["typed_pg"]["raw-sql"]
    assert outcome["status"] == "violated"
    assert _findings(outcome, "typed_pg") == {
        (service, 10, "raw SQL `SELECT ... FROM users` passed to `pool.query`" + hint),
        (service, 15, "raw SQL `SELECT ... FROM users` passed to `pool.query`" + hint),
        (service, 22, "raw SQL `VACUUM INTO 'backup.db'` passed to `cache.exec`" + hint),
        (
            service,
            23,
            "SQL built at runtime (``VACUUM INTO '${file}'``) passed to `cache.exec`" + hint,
        ),
        (service, 24, "SQL built at runtime (`file`) passed to `local.exec`" + hint),
    }


def test_typed_awaited_query_on_an_imported_sequelize(
    judged: dict[str, dict[str, dict[str, Any]]],
) -> None:
    hint = ": use the ORM (`User.findAll({ where: ... })`)"
    expected = {
        (
            "src/services/tags.service.ts",
            10,
            "raw SQL `SELECT ... FROM Tags` passed to `sequelize.query`" + hint,
        )
    }
    for check in ("orm-only", "raw-sql"):
        outcome = judged["typed_sequelize"][check]
        assert outcome["status"] == "violated", check
        assert _findings(outcome, "typed_sequelize") == expected, check


def test_node_sqlite_is_named_as_written(judged: dict[str, dict[str, dict[str, Any]]]) -> None:
    advice = "; reach the database through the ORM or the data-access layer"
    outcome = judged["typed_pg"]["db-drivers"]
    assert _findings(outcome, "typed_pg") == {
        ("src/db/pool.ts", 1, "imports the database driver `pg` (PostgreSQL)" + advice),
        ("src/db/cache.ts", 1, "imports the database driver `better-sqlite3` (SQLite)" + advice),
        ("src/db/cache.ts", 2, "imports the database driver `node:sqlite` (SQLite)" + advice),
    }

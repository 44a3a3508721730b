"""`naming` on CommonJS modules that define their functions as exports
(fixtures/node_heldout/cjs_controllers), found unjudged by the held-out review of issue
#27: `exports.x = () => ...` is CommonJS's `export function x`. Judged by `pytest
--codeif` as a user runs it, with the exact findings asserted and nothing else.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import FIXTURES


def test_commonjs_exports_bound_to_functions_are_functions(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "node_heldout" / "cjs_controllers", tmp_path / "app")
    task = {
        "id": "cjs",
        "directory": "app",
        "constraints": [{"check": "naming", "function": "camelCase", "class": "PascalCase"}],
    }
    (tmp_path / "t.codeif.yaml").write_text(yaml.safe_dump({"tasks": [task]}))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"]
    command += ["--codeif-report=report.json", "t.codeif.yaml"]
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    (outcome,) = json.loads((tmp_path / "report.json").read_text())["tasks"][0]["constraints"]
    found = {(e["path"], e["line"], e["message"]) for e in outcome["evidence"]}
    assert found == {
        (
            "app/src/services/user.service.js",
            4,
            "function `find_by_id` does not follow camelCase",
        ),
        (
            "app/src/services/user.service.js",
            8,
            "function `update_by_id` does not follow camelCase",
        ),
        (
            "app/src/controllers/user.controller.js",
            11,
            "function `delete_user` does not follow camelCase",
        ),
    }

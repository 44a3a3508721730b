"""A project directory is read as git lists it: vendored, built, ignored and excluded
files are not the code under evaluation, and a syntax error in them spoils nothing."""

from __future__ import annotations

import json

import pytest

BROKEN = "def broken(:\n"


def test_vendored_ignored_and_excluded_files_are_not_read(pytester: pytest.Pytester) -> None:
    root = pytester.path / "project"
    for rel, text in {
        "app/__init__.py": "",
        "app/main.py": "import os\n\n\ndef main():\n    return os.getcwd()\n",
        "node_modules/x/broken.py": BROKEN,
        "build/lib/broken.py": BROKEN,
        ".tox/py311/broken.py": BROKEN,
        "venv2/pyvenv.cfg": "home = /usr/bin\n",
        "venv2/lib/broken.py": BROKEN,
        "generated/broken.py": BROKEN,
        ".gitignore": "generated/\n",
        "legacy/old.py": BROKEN,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    pytester.makefile(
        ".codeif.yaml",
        t="""
tasks:
  - id: walked
    directory: project
    exclude: [legacy/]
    constraints:
      - {check: imports, require: [os]}
  - id: not-excluded
    directory: project
    constraints:
      - {check: imports, require: [os]}
  - id: bad-exclude
    code: 'x = 1'
    exclude: [legacy/]
    constraints:
      - {check: imports, require: [os]}
""",
    )
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    by_task = {t["id"]: t["constraints"][0] for t in report["tasks"]}
    assert by_task["walked"]["status"] == "satisfied"
    assert (by_task["not-excluded"]["status"], by_task["not-excluded"]["error_kind"]) == (
        "error",
        "syntax-error",
    )
    assert "legacy/old.py" in by_task["not-excluded"]["error"]
    result.stdout.fnmatch_lines(["*tasks[[]2[]].exclude*`exclude` leaves files out of a*"])
    result.assert_outcomes(passed=1, errors=2)

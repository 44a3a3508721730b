"""`project-config: true` on the `ruff` and `mypy` checks: a team's own repository is
judged with its own ruff and mypy configuration (issue 22 item 7), read from the merge
base under `--codeif-changed-since`."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

RULES = """
tasks:
  - id: t
    directory: proj
    constraints:
      - {check: ruff, id: staged, select: [I]}
      - {check: ruff, id: own, project-config: true}
      - {check: ruff, id: noqa, project-config: true, select: [F401]}
      - {check: mypy, id: mypy-staged}
      - {check: mypy, id: mypy-own, project-config: true}
"""


def outcomes(pytester: pytest.Pytester, *extra: str) -> dict[str, dict]:
    pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json", *extra)
    report = json.loads((pytester.path / "r.json").read_text())
    return {c["constraint"]: c for t in report["tasks"] for c in t["constraints"]}


def make_project(pytester: pytest.Pytester, *, strict: bool = True) -> None:
    pytester.makefile(".codeif.yaml", rules=RULES)
    proj = pytester.path / "proj"
    (proj / "src" / "acme").mkdir(parents=True)
    (proj / "pyproject.toml").write_text(
        '[tool.ruff]\nsrc = ["src"]\n[tool.ruff.lint]\nselect = ["I"]\n'
        '[tool.ruff.lint.isort]\nknown-first-party = ["acme"]\n'
    )
    (proj / "mypy.ini").write_text(
        "[mypy]\nmypy_path = src\nignore_missing_imports = True\n"
        f"disallow_untyped_defs = {strict}\n"
    )
    (proj / "src" / "acme" / "__init__.py").write_text("")
    (proj / "src" / "acme" / "util.py").write_text("import os  # noqa: F401\n")
    (proj / "src" / "app").mkdir()
    (proj / "src" / "app" / "__init__.py").write_text("")
    (proj / "src" / "app" / "core.py").write_text(
        "import os\n\nimport attr\n\nfrom acme import util\n\n\n"
        "def f(x: int) -> int:\n    return x\n\n\nprint(os, attr, util)\n"
    )


def test_the_projects_own_configuration_decides_when_the_task_opts_in(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester)
    (pytester.path / "proj" / "src" / "app" / "core.py").write_text(
        "import os\n\nimport attr\n\nfrom acme import util\n\n\n"
        "def f(x):\n    return x\n\n\nprint(os, attr, util)\n"
    )
    found = outcomes(pytester)
    # The staged copy alone does not know `acme` is first-party: a false I001.
    assert found["staged"]["status"] == "violated"
    assert {f["rule"] for f in found["staged"]["evidence"]} == {"I001"}
    assert found["own"]["status"] == "satisfied", found["own"]
    # A noqa comment stays disregarded unless the task allows it.
    assert found["noqa"]["status"] == "violated"
    # The staged run knows neither `mypy_path = src` nor the untyped-def rule.
    assert {f["rule"] for f in found["mypy-staged"]["evidence"]} == {"import-not-found"}
    assert found["mypy-own"]["status"] == "violated"  # mypy.ini: disallow_untyped_defs
    assert {f["rule"] for f in found["mypy-own"]["evidence"]} == {"no-untyped-def"}


def test_project_config_needs_directory_code(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
tasks:
  - id: t
    code: "def f(x):\\n    return x\\n"
    constraints:
      - {check: mypy, id: m, project-config: true}
      - {check: ruff, id: r, project-config: true}
""",
    )
    found = outcomes(pytester)
    for name in ("m", "r"):
        assert found[name]["status"] != "satisfied"
        assert "needs `directory:` code" in json.dumps(found[name])


def test_ruff_needs_select_unless_project_config_and_mypy_refuses_config_file(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
tasks:
  - id: t
    code: "x = 1\\n"
    constraints:
      - {check: ruff, id: r}
      - {check: mypy, id: m, flags: [--config-file=mypy.ini]}
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert "`select` is required" in text
    assert "project-config: true" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_under_the_gate_the_merge_bases_configuration_decides(
    pytester: pytest.Pytester,
) -> None:
    make_project(pytester, strict=True)

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=pytester.path,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "change")
    # The change relaxes mypy's configuration and adds an unannotated function.
    (pytester.path / "proj" / "mypy.ini").write_text(
        "[mypy]\nmypy_path = src\nignore_missing_imports = True\ndisallow_untyped_defs = False\n"
    )
    (pytester.path / "proj" / "src" / "app" / "core.py").write_text(
        "import os\n\nimport attr\n\nfrom acme import util\n\n\n"
        "def f(x):\n    return x\n\n\nprint(os, attr, util)\n"
    )
    git("commit", "-q", "-a", "-m", "change")
    assert outcomes(pytester)["mypy-own"]["status"] == "satisfied"  # the edited file
    gated = outcomes(pytester, "--codeif-changed-since=main")
    assert gated["mypy-own"]["status"] == "violated", gated["mypy-own"]
    assert gated["own"]["status"] == "satisfied"

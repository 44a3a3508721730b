"""A red team's hostile pull requests against `codeif gate`, each on a real git repository.

The gate must never pass a change that plain `pytest --codeif` on the head would fail,
never run the change's code outside the sandbox, and never show a traceback. Each test
here builds a base branch with a team's rules (`directory: src`: no `print`, ruff
`E711`/`F401`), commits a hostile change on a branch (a control violation, plus the
trick), and runs `codeif gate` as CI runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.cli import gate_arguments
from tests.test_changed_since import git, isolate_git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

RULES = """\
tasks:
  - id: team
    directory: src
    constraints:
      - {id: no-print, check: pattern, pattern: "print(...)"}
      - {id: ruff, check: ruff, select: [E711, F401]}
"""
ORDERS = "def total(prices: list[int]) -> int:\n    return sum(prices)\n"
#: The control violation: a `print` and an `== None` on line 6 of the changed file.
VIOLATION = "\n\ndef show(x):\n    print(x == None)\n"
#: The findings the control violation gives: (constraint, path, line).
CONTROL = {("no-print", "src/shop/orders.py", 6), ("ruff", "src/shop/orders.py", 6)}
#: A file the hostile code writes when it runs in the gate's own process.
MARKER = "PWNED"


@pytest.fixture
def repo(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The base branch `main` (rules at the root, the code in `src/shop`), checked out on
    the branch `pr`."""
    root = isolate_git(pytester, monkeypatch) / "repo"
    write(root, {"rules.codeif.yaml": RULES, "src/shop/__init__.py": ""})
    write(root, {"src/shop/orders.py": ORDERS, ".gitignore": "out/\n__pycache__/\n"})
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


def on_main(root: Path, change: Callable[[], None]) -> None:
    """Make `change` part of the base branch (the branch `pr` starts again from it)."""
    git(root, "checkout", "-q", "main")
    change()
    commit(root, "base, again")
    git(root, "checkout", "-q", "-B", "pr", "main")


def violate(root: Path) -> None:
    with (root / "src" / "shop" / "orders.py").open("a", encoding="utf-8") as handle:
        handle.write(VIOLATION)


def codeif_gate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`codeif gate ARGS --codeif-changed-since=main` in `root`, as CI runs it, with the
    JSON report in `out/`."""
    script = Path(sys.executable).with_name("codeif")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pytest_codeif.cli"]
    argv = [*args, "--codeif-changed-since=main", "--codeif-report=out/r.json"]
    done = subprocess.run(
        [*command, "gate", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        errors="surrogateescape",  # a name that is not UTF-8 is printed as its bytes
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


def findings(root: Path) -> set[tuple[str, str, int | None]]:
    """(constraint, file, line) of every finding that counts, from the JSON report."""
    report: dict[str, Any] = json.loads((root / "out" / "r.json").read_text())
    return {
        (c["constraint"], os.path.normpath(e["path"]), e["line"])
        for task in report["tasks"]
        for c in task["constraints"]
        for e in c["evidence"]
    }


def fails_with(
    done: subprocess.CompletedProcess[str], root: Path, *extra: tuple[str, str, int]
) -> None:
    """The gate failed (1) with the control violation's findings, and `extra` ones."""
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(root) == CONTROL | set(extra), done.stdout


# -- 1. the gate collects task files alone: no Python of the change's is imported --------


def _rules_in_folder(root: Path) -> None:
    """The rules move to `rules/team.codeif.yaml` (`directory: ../src`), on main."""
    (root / "rules").mkdir()
    (root / "rules.codeif.yaml").rename(root / "rules" / "team.codeif.yaml")
    text = (root / "rules" / "team.codeif.yaml").read_text()
    (root / "rules" / "team.codeif.yaml").write_text(text.replace("src", "../src"))


#: Python that, imported or run in the gate's process, leaves a mark and ends it with 0.
HOSTILE = f"import os\nopen({MARKER!r}, 'w').write('ran')\nos._exit(0)\n"
IMPORTED = {
    # pytest imports a folder's __init__.py for its package's setup (`Package`).
    "root-init": (False, {"__init__.py": HOSTILE}),
    "rules-init": (True, {"rules/__init__.py": HOSTILE}),
    "test-file": (True, {"rules/test_zz.py": HOSTILE}),
    "doctest": (True, {"rules/test_notes.txt": f">>> exec({HOSTILE!r})\n"}),
}


@pytest.mark.parametrize("name", list(IMPORTED))
def test_no_python_of_the_change_runs_in_the_gate(repo: Path, name: str) -> None:
    folder, files = IMPORTED[name]
    if folder:
        on_main(repo, lambda: _rules_in_folder(repo))
    write(repo, files)
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules/" if folder else "rules.codeif.yaml")
    assert not (repo / MARKER).exists()
    fails_with(done, repo)


def test_no_python_runs_under_xdist_either(repo: Path) -> None:
    write(repo, {"__init__.py": HOSTILE})
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml", "-n", "2")
    assert not (repo / MARKER).exists()
    fails_with(done, repo)


def test_the_gate_blocks_pytests_python_collection() -> None:
    argv = gate_arguments(["rules.codeif.yaml", "--codeif-changed-since=main"])
    assert isinstance(argv, list)
    for plugin in ("python", "doctest", "cacheprovider"):
        assert argv[argv.index(f"no:{plugin}") - 1] == "-p"
    for undo in (["-p", "python"], ["-pdoctest"], ["-p", "_pytest.python"]):
        refused = gate_arguments([*undo, "--codeif-changed-since=main"])
        assert isinstance(refused, str) and "blocks that plugin" in refused, undo


def _replace_rules_by_folder(root: Path) -> None:
    (root / "rules.codeif.yaml").unlink()
    write(root, {"rules.codeif.yaml/test_ok.py": "def test_ok():\n    pass\n"})


def _replace_rules_by_empty_folder(root: Path) -> None:
    (root / "rules.codeif.yaml").unlink()
    write(root, {"rules.codeif.yaml/README": "nothing to see\n"})


def _replace_rules_by_link_to_folder(root: Path) -> None:
    (root / "rules.codeif.yaml").unlink()
    write(root, {"docs/rules/test_ok.py": "def test_ok():\n    pass\n"})
    (root / "rules.codeif.yaml").symlink_to("docs/rules")


REPLACED = {
    "folder": (_replace_rules_by_folder, False),
    "empty-folder": (_replace_rules_by_empty_folder, False),
    "link-to-folder": (_replace_rules_by_link_to_folder, True),
}


@pytest.mark.parametrize("name", list(REPLACED))
def test_a_rule_file_replaced_by_a_folder_still_judges(repo: Path, name: str) -> None:
    """pytest would walk the folder in the rule file's place (its tests, or nothing:
    `no tests ran`); the gate judges with the merge base's rule file, and the
    replacement is a finding."""
    replace, link = REPLACED[name]
    replace(repo)
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    extra = {("protected-rules", "rules.codeif.yaml", 1)}
    if link:
        extra.add(("protected-link", "rules.codeif.yaml", 1))
    fails_with(done, repo, *extra)
    assert "passed" not in done.stdout.splitlines()[-1]


# -- 4. symbolic links on the paths the rules name ----------------------------------------


def test_the_code_folder_replaced_by_a_link(repo: Path) -> None:
    """`src` moved and replaced by a link to it: the files are judged under their real
    names (all new there), and the link is a finding."""
    (repo / "src").rename(repo / "realsrc")
    (repo / "src").symlink_to("realsrc")
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines")
    fails_with(done, repo, ("protected-link", "src", 1))


def test_the_rules_folder_replaced_by_a_link_to_a_decoy(repo: Path) -> None:
    """`rules/` becomes a link to `decoy/rules`, beside a clean `decoy/src`: the same
    rules, whose `directory: ../src` now resolves to the decoy."""
    on_main(repo, lambda: _rules_in_folder(repo))
    shutil.copytree(repo / "rules", repo / "decoy" / "rules")
    shutil.copytree(repo / "src", repo / "decoy" / "src")
    shutil.rmtree(repo / "rules")
    (repo / "rules").symlink_to("decoy/rules")
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules/")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("protected-link", "rules", 1) in findings(repo)
    assert "the symbolic link rules was added since main" in done.stdout


# -- 11. a rule file that is a link in the merge base ------------------------------------


def test_a_linked_rule_file_is_read_through_the_merge_bases_link(repo: Path) -> None:
    """On main, `rules.codeif.yaml` links to `ci/rules.codeif.yaml`; the change empties
    the target: the gate reads the target as the merge base holds it."""

    def link_rules() -> None:
        (repo / "ci").mkdir()
        (repo / "rules.codeif.yaml").rename(repo / "ci" / "rules.codeif.yaml")
        (repo / "rules.codeif.yaml").symlink_to("ci/rules.codeif.yaml")

    on_main(repo, link_rules)
    write(repo, {"ci/rules.codeif.yaml": "tasks: []\n"})
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    fails_with(done, repo, ("protected-rules", "rules.codeif.yaml", 1))


# -- 7, 8. the changed lines: attributes cannot hide hunks, a moved file brings its lines --


@pytest.mark.parametrize("attribute", ["-diff", "binary", "diff=hidden"])
def test_gitattributes_cannot_hide_the_changed_lines(repo: Path, attribute: str) -> None:
    """`*.py -diff` made git print `Binary files differ`: no hunk, so no changed line."""
    git(repo, "config", "diff.hidden.textconv", "true")  # a driver printing nothing
    write(repo, {".gitattributes": f"*.py {attribute}\n"})
    violate(repo)
    commit(repo, "hostile")
    fails_with(codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines"), repo)


def test_a_file_moved_into_the_judged_folder_brings_every_line(repo: Path) -> None:
    """A script outside `src` (not judged) moves into it with one new clean line: its old
    violations are in the judged code now, on lines the rename carried over."""
    on_main(repo, lambda: write(repo, {"scripts/tool.py": "def show(x):\n    print(x == None)\n"}))
    git(repo, "mv", "scripts/tool.py", "src/shop/tool.py")
    with (repo / "src" / "shop" / "tool.py").open("a", encoding="utf-8") as handle:
        handle.write("\n\nDONE = True\n")
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("no-print", "src/shop/tool.py", 2), ("ruff", "src/shop/tool.py", 2)}


# -- 2. the tools the checks start never run the change's code ------------------------------

MYPY_RULE = "      - {id: mypy, check: mypy, strict: true}\n"
PLUGIN = (
    "from mypy.plugin import Plugin\n\n\n"
    "class Quiet(Plugin):\n    pass\n\n\n"
    "def plugin(version: str) -> type[Plugin]:\n    return Quiet\n"
)


def test_a_mypy_package_in_the_code_does_not_stand_in_for_mypy(repo: Path) -> None:
    """`python -m mypy` in the code's folder put that folder first on sys.path: the
    change's `mypy/__main__.py` ran instead of mypy, outside the sandbox, and said
    nothing (no finding: satisfied)."""
    on_main(repo, lambda: write(repo, {"rules.codeif.yaml": RULES + MYPY_RULE}))
    write(repo, {"src/mypy/__init__.py": "", "src/mypy/__main__.py": HOSTILE})
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert not (repo / MARKER).exists()
    assert not (repo / "src" / MARKER).exists()
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("mypy", "src/shop/orders.py", 5) in findings(repo)


def test_a_mypy_plugin_file_is_read_as_the_merge_base_holds_it(repo: Path) -> None:
    """The project's mypy configuration (read as the merge base holds it) names a plugin
    by path: mypy imports that file in its own process; the change's edit of it must not
    be what runs."""
    rules = RULES + "      - {id: mypy, check: mypy, project-config: true}\n"
    config = '[tool.mypy]\nstrict = true\nplugins = ["plug.py"]\n'
    on_main(
        repo,
        lambda: write(
            repo, {"rules.codeif.yaml": rules, "src/pyproject.toml": config, "src/plug.py": PLUGIN}
        ),
    )
    marker = repo / MARKER
    hostile = f"import os\nopen({str(marker)!r}, 'w').write('ran')\nos._exit(0)\n"
    write(repo, {"src/plug.py": hostile})
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert not marker.exists()
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("mypy", "src/shop/orders.py", 5) in findings(repo)


# -- 3. changed code the walk leaves out -------------------------------------------------

EVIL = "def show(x):\n    print(x == None)\n"


def _ignored(root: Path) -> str:
    write(root, {"src/shop/evil.py": EVIL, "src/shop/.gitignore": "evil.py\n"})
    return "shop/.gitignore:1: evil.py"


def _ignored_existing(root: Path) -> str:
    violate(root)
    write(root, {"src/shop/.gitignore": "orders.py\n"})
    return "shop/.gitignore:1: orders.py"


def _in_build(root: Path) -> str:
    write(root, {"src/shop/build/evil.py": EVIL})
    return "build/ is skipped unless it holds an __init__.py"


def _in_venv(root: Path) -> str:
    write(root, {"src/shop/venv/evil.py": EVIL})
    return "venv/ is always skipped"


def _beside_pyvenv_cfg(root: Path) -> str:
    write(root, {"src/shop/helpers/evil.py": EVIL, "src/shop/helpers/pyvenv.cfg": ""})
    return "it holds a pyvenv.cfg"


def _beside_conda_meta(root: Path) -> str:
    write(root, {"src/shop/helpers/evil.py": EVIL, "src/shop/helpers/conda-meta/x": ""})
    return "it holds a conda-meta folder"


LEFT_OUT = {
    "gitignored": (_ignored, "src/shop/evil.py"),
    "gitignored-existing": (_ignored_existing, "src/shop/orders.py"),
    "build": (_in_build, "src/shop/build/evil.py"),
    "venv": (_in_venv, "src/shop/venv/evil.py"),
    "pyvenv.cfg": (_beside_pyvenv_cfg, "src/shop/helpers/evil.py"),
    "conda-meta": (_beside_conda_meta, "src/shop/helpers/evil.py"),
}


@pytest.mark.parametrize("name", list(LEFT_OUT))
def test_changed_code_the_walk_leaves_out_fails_the_gate(repo: Path, name: str) -> None:
    """The head's walk skips the new code (its own .gitignore line, a build/ or venv/
    folder, a pyvenv.cfg beside it): nothing judged it, so it is a finding saying why."""
    hide, path = LEFT_OUT[name]
    why = hide(repo)
    git(repo, "add", "-f", "-A")
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("unjudged-code", path, 1) in findings(repo)
    assert f"FAILED {path}::codeif-gate::unjudged-code" in done.stdout
    assert f"but the code folder's walk leaves it out ({why})" in done.stdout


def test_code_the_rules_exclude_is_not_reported(repo: Path) -> None:
    """A task's own `exclude:` (the merge base's rules) leaves code out deliberately."""
    rules = RULES.replace("directory: src\n", "directory: src\n    exclude: [gen/]\n")
    on_main(repo, lambda: write(repo, {"rules.codeif.yaml": rules}))
    write(repo, {"src/shop/gen/evil.py": EVIL})
    commit(repo, "generated")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unjudged" not in done.stdout


def test_a_submodule_the_change_adds_is_judged(repo: Path, tmp_path: Path) -> None:
    """git lists a submodule, never its files: they count as changed, whole."""
    library = tmp_path / "library"
    write(library, {"__init__.py": "", "evil.py": EVIL})
    git(library, "init", "-q", "-b", "main")
    commit(library, "library")
    submodule = ("submodule", "add", "-q", str(library), "src/shop/vendored")
    git(repo, "-c", "protocol.file.allow=always", *submodule)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {
        ("no-print", "src/shop/vendored/evil.py", 2),
        ("ruff", "src/shop/vendored/evil.py", 2),
    }


# -- 5. a coding cookie Python reads otherwise than the checks --------------------------

#: In UTF-7, `+AAo-` is a newline: Python runs `print(x == None)`, the checks see a comment.
UTF7 = "# -*- coding: utf-7 -*-\n\n\ndef show(x: int) -> int:  # +AAo-    print(x +AD0APQ- None)\n"


def test_a_utf7_module_is_not_judged_as_utf8(repo: Path) -> None:
    write(repo, {"src/shop/evil.py": UTF7 + "    return x\n"})
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "its coding cookie declares utf-7" in done.stdout
    assert "2 errors" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("cookie", "body", "error"),
    [
        ("utf-7", "x = 1  # +AAo-print(1)\n", "its coding cookie declares utf-7"),
        ("nope", "x = 1\n", "unknown encoding: nope"),
        ("latin-1", "x = 1\n", None),  # ASCII reads the same: judged
        ("utf-8", "x = 'é'\n", None),
    ],
)
def test_a_coding_cookie_is_honoured_or_refused(
    pytester: pytest.Pytester, cookie: str, body: str, error: str | None
) -> None:
    """Plain runs too: inline code, as Python would read the file it is written to."""
    code = f"# -*- coding: {cookie} -*-\n{body}"
    pytester.makefile(
        ".codeif.yaml",
        task=f"tasks:\n  - id: t\n    code: {json.dumps(code)}\n"
        "    constraints:\n      - {id: r, check: ruff, select: [E711]}\n",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-n", "0")
    if error is None:
        result.assert_outcomes(passed=1)
    else:
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines([f"*solution.py: {error}*"])


# -- 6, 10. findings the change caused outside the changed code -------------------------

LOGGING = (
    "import logging\n\nLOG = logging.getLogger(__name__)\n\n\n"
    "def total(prices: list[int]) -> int:\n    LOG.info('t')\n    return sum(prices)\n"
)
ABSENCE_RULES = RULES + (
    "      - {id: logs, check: calls, require: [logging.getLogger]}\n"
    "      - {id: has-total, check: defines, functions: [total]}\n"
)


def test_something_the_change_removed_counts(repo: Path) -> None:
    """A required call and a required function, removed: the findings say what is
    missing at the first file of the scope, line 1, a file the change never touched."""
    on_main(
        repo,
        lambda: write(repo, {"rules.codeif.yaml": ABSENCE_RULES, "src/shop/orders.py": LOGGING}),
    )
    write(repo, {"src/shop/orders.py": "def sum_of(prices: list[int]) -> int:\n    return 0\n"})
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {
        ("logs", "src/shop/__init__.py", 1),
        ("has-total", "src/shop/__init__.py", 1),
    }
    assert "the merge base's code does not have it, so the change caused it" in done.stdout


def test_an_old_finding_outside_the_change_still_does_not_count(repo: Path) -> None:
    """The merge base's own violations, in files the change did not touch, stay
    uncounted: the merge base has the same findings."""
    legacy = {"src/shop/legacy.py": "def old(x):\n    print(x == None)\n"}
    on_main(
        repo,
        lambda: write(
            repo, {"rules.codeif.yaml": ABSENCE_RULES, **legacy, "src/shop/orders.py": LOGGING}
        ),
    )
    with (repo / "src" / "shop" / "orders.py").open("a", encoding="utf-8") as handle:
        handle.write("\n\nLIMIT = 3\n")
    commit(repo, "clean")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not counted: 2 findings outside the changed code" in done.stdout


def test_a_type_error_the_change_causes_in_a_caller_counts(repo: Path) -> None:
    """`total` now returns `str`; its caller, unchanged, returns it as `int`: mypy
    reports the caller's line, in a file the change did not touch."""
    caller = (
        "from shop.orders import total\n\n\n"
        "def order(prices: list[int]) -> int:\n    return total(prices)\n"
    )
    on_main(
        repo,
        lambda: write(repo, {"rules.codeif.yaml": RULES + MYPY_RULE, "src/shop/api.py": caller}),
    )
    write(
        repo,
        {
            "src/shop/orders.py": (
                "def total(prices: list[int]) -> str:\n    return str(sum(prices))\n"
            )
        },
    )
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("mypy", "src/shop/api.py", 5)}


# -- 9. file names that are not UTF-8 -----------------------------------------------------

LONG_LINE = "VALUE = 'a line of code far longer than the sixty characters the rule allows'\n"


def _non_utf8(repo: Path, *names: bytes) -> None:
    rules = RULES.replace("select: [E711, F401]", "select: [E501], line-length: 60")
    on_main(repo, lambda: write(repo, {"rules.codeif.yaml": rules}))
    folder = os.fsencode(repo / "src" / "shop")
    for name in names:
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(LONG_LINE)
    commit(repo, "hostile")


def test_a_finding_in_a_file_named_otherwise_than_utf8_counts(repo: Path) -> None:
    """ruff names `b\\xff.py` `b\\ufffd.py`: the finding matched no file of the code and
    was dropped (a ruff-only rule set passed); SARIF's quoting of the name crashed."""
    _non_utf8(repo, b"b\xff.py")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-sarif=out/c.sarif")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("ruff", "src/shop/b\udcff.py", 1)}
    sarif = json.loads((repo / "out" / "c.sarif").read_text())
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "src/shop/b%FF.py"
    )


def test_a_finding_no_file_of_the_code_matches_is_an_error(repo: Path) -> None:
    """Two names ruff shows alike (`b\\ufffd.py`): which file it meant cannot be told,
    and its findings are never dropped: the constraint is an error."""
    _non_utf8(repo, b"b\xff.py", b"b\xfe.py")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "which the code does not hold under that name" in done.stdout


# -- lower: many files just under the per-file bound ----------------------------------------


def test_many_large_files_are_too_large_not_slow(repo: Path) -> None:
    """Eight modules of 600 KB (each under the 2 MB bound): parsing them took the gate
    tens of seconds and gigabytes; together they are too large, an error."""
    module = "".join(f"x_{i}: int = {i}\n" for i in range(40_000))  # ~600 KB
    write(repo, {f"src/shop/big{n}.py": module for n in range(8)})
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "8 files above 512 KB hold" in done.stdout
    assert "2 errors" in done.stdout.splitlines()[-1]


# -- pass 2, A. compiled and start-up files Python imports, never judged ---------------


def _unchecked_pyc(root: Path) -> str:
    """A compiled `orders` that Python imports without looking at `orders.py` again."""
    import py_compile

    source = root / "evil_source.py"
    source.write_text(EVIL, encoding="utf-8")
    target = root / "src" / "shop" / "__pycache__" / "orders.cpython-311.pyc"
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
    py_compile.compile(str(source), str(target), doraise=True, invalidation_mode=mode)
    source.unlink()
    return "src/shop/__pycache__/orders.cpython-311.pyc"


def _planted(name: str) -> Callable[[Path], str]:
    def plant(root: Path) -> str:
        (root / "src" / "shop" / name).write_bytes(b"\x7fELF not really")
        return f"src/shop/{name}"

    return plant


COMPILED = {
    "pyc-unchecked-hash": _unchecked_pyc,
    "sourceless-pyc": _planted("orders.pyc"),
    "pyo": _planted("orders.pyo"),
    "extension-so": _planted("orders.cpython-311-x86_64-linux-gnu.so"),
    "extension-pyd": _planted("orders.cp311-win_amd64.pyd"),
    "pth": _planted("evil.pth"),
    "egg": _planted("evil.egg"),
    "sitecustomize": _planted("sitecustomize.pyc"),
}


@pytest.mark.parametrize("name", list(COMPILED))
def test_a_compiled_or_startup_file_fails_the_gate(repo: Path, name: str) -> None:
    """Python imports a planted compiled module instead of the judged source (or runs a
    `.pth` file at start-up): no check reads it, so it is `unjudged-code`, even where
    the task's `exclude:` or the head's `.gitignore` would leave it out."""
    rules = RULES.replace("directory: src\n", "directory: src\n    exclude: ['*.egg']\n")
    on_main(repo, lambda: write(repo, {"rules.codeif.yaml": rules}))
    path = COMPILED[name](repo)
    violate(repo)
    git(repo, "add", "-f", "-A")
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    fails_with(done, repo, ("unjudged-code", path, 1))
    assert f"FAILED {path}::codeif-gate::unjudged-code" in done.stdout


# -- pass 2, B. a symbolic link under the code folder, wherever it points -------------


def _folder_link_out(root: Path) -> str:
    """`src/shop/services` moves out of the code folder and a link takes its place."""
    git(root, "mv", "src/shop/services", "elsewhere/services")
    with (root / "elsewhere" / "services" / "pay.py").open("a", encoding="utf-8") as handle:
        handle.write(VIOLATION)
    (root / "src" / "shop" / "services").symlink_to("../../elsewhere/services")
    return "src/shop/services"


def _file_link_out(root: Path) -> str:
    write(root, {"elsewhere/helper.py": EVIL})
    (root / "src" / "shop" / "helper.py").symlink_to("../../elsewhere/helper.py")
    return "src/shop/helper.py"


def _file_link_inside(root: Path) -> str:
    (root / "src" / "shop" / "alias.py").symlink_to("orders.py")
    return "src/shop/alias.py"


LINKED = {
    "folder-out": _folder_link_out,
    "file-out": _file_link_out,
    "file-inside": _file_link_inside,
}


@pytest.mark.parametrize("name", list(LINKED))
def test_a_link_the_change_adds_under_the_code_folder_fails_the_gate(repo: Path, name: str) -> None:
    """The walk follows no folder link and no file link leaving the project; the rules
    name no path through the link: only the link itself can say the code moved."""
    services = {"src/shop/services/__init__.py": "", "src/shop/services/pay.py": ORDERS}
    (repo / "elsewhere").mkdir()
    on_main(repo, lambda: write(repo, services))
    path = LINKED[name](repo)
    violate(repo)
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    # A link inside the folder is walked too: its target's findings count under its name.
    assert CONTROL | {("unjudged-code", path, 1)} <= findings(repo), done.stdout
    assert "it is a symbolic link" in done.stdout


# -- pass 2, C. a coding cookie past the first 512 characters -------------------------

#: A comment line longer than 512 characters, before or around the cookie.
_LONG_COMMENT = "#" + "x" * 600
LATE_COOKIES = {
    # Python finds a cookie anywhere in the first two lines, however long line 1 is.
    "line-2-after-a-long-line-1": f"{_LONG_COMMENT}\n# -*- coding: utf-7 -*-\n",
    "end-of-a-long-line-1": f"{_LONG_COMMENT} -*- coding: utf-7 -*-\n",
}
#: The statement UTF-7 hides in a comment: `print("PWNED", x == None)`.
_HIDDEN = "x = 1  # +AAo-print(+ACI-PWNED+ACI-, x +AD0APQ- None)\n"


@pytest.mark.parametrize("name", list(LATE_COOKIES))
def test_a_coding_cookie_past_512_characters_is_found(pytester: pytest.Pytester, name: str) -> None:
    """Plain runs: the cookie was looked for in the first 512 characters alone."""
    code = LATE_COOKIES[name] + _HIDDEN
    pytester.makefile(
        ".codeif.yaml",
        task=f"tasks:\n  - id: t\n    code: {json.dumps(code)}\n"
        "    constraints:\n      - {id: r, check: ruff, select: [E711]}\n",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-n", "0")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*solution.py: its coding cookie declares utf-7*"])


def test_a_late_coding_cookie_fails_the_gate(repo: Path) -> None:
    write(repo, {"src/shop/evil.py": LATE_COOKIES["line-2-after-a-long-line-1"] + _HIDDEN})
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "evil.py: its coding cookie declares utf-7" in done.stdout
    assert "2 errors" in done.stdout.splitlines()[-1]


# -- pass 2, E. a .gitignore in a folder whose name is not UTF-8 --------------------------


def test_a_gitignore_in_a_folder_named_otherwise_than_utf8(repo: Path) -> None:
    """The folder's name reached RE2 in the ignore file's patterns (and in the paths
    matched against them) as surrogate escapes: RE2 refused them, and the whole task file
    was an internal error. Names and patterns are matched byte by byte, as git does."""
    folder = os.path.join(os.fsencode(repo / "src" / "shop"), b"x\xff")
    os.mkdir(folder)
    for name, text in {b".gitignore": "evil.py\n*.log\n", b"evil.py": EVIL, b"ok.py": EVIL}.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    git(repo, "add", "-f", "-A")
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {
        ("unjudged-code", "src/shop/x\udcff/evil.py", 1),
        ("no-print", "src/shop/x\udcff/ok.py", 2),
        ("ruff", "src/shop/x\udcff/ok.py", 2),
    }
    assert "this is a bug in pytest-codeif" not in done.stdout


# -- pass 2, D. an old finding fixed and an identical one made elsewhere --------------

ALIASES = "A = str\nB = list[int]\n\n\n" + ORDERS
CALLERS = (
    "from shop.orders import A, B, total\n\n\n"
    "def legacy(prices: A) -> int:\n    return total(prices)\n\n\n"
    "def current(prices: B) -> int:\n    return total(prices)\n"
)


def test_a_fixed_old_finding_does_not_excuse_an_identical_new_one(repo: Path) -> None:
    """The merge base's `legacy` passes a `str` to `total` (an old finding, line 5 of an
    untouched file); the change swaps the aliases: `legacy` is fixed and `current` (line
    9) gets the very same message on a line reading the same. Matched as a multiset of
    (file, rule, message, line text), the two netted to nothing and the gate passed."""
    files = {"rules.codeif.yaml": RULES + MYPY_RULE, "src/shop/orders.py": ALIASES}
    on_main(repo, lambda: write(repo, {**files, "src/shop/api.py": CALLERS}))
    write(repo, {"src/shop/orders.py": "A = list[int]\nB = str\n\n\n" + ORDERS})
    commit(repo, "hostile")
    done = codeif_gate(repo, "rules.codeif.yaml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert findings(repo) == {("mypy", "src/shop/api.py", 9)}


def test_an_old_finding_moved_down_by_the_change_stays_uncounted(repo: Path) -> None:
    """Lines the change added above an old finding move it down: its line is unchanged,
    and was the merge base's line 5 (the diff says so), where the same finding was."""
    on_main(
        repo,
        lambda: write(
            repo,
            {
                "rules.codeif.yaml": RULES + MYPY_RULE,
                "src/shop/orders.py": ALIASES,
                "src/shop/api.py": CALLERS,
            },
        ),
    )
    write(repo, {"src/shop/api.py": '"""The API."""\n\n' + CALLERS + "\n\nLIMIT = 3\n"})
    commit(repo, "clean")
    done = codeif_gate(repo, "rules.codeif.yaml", "--codeif-changed-lines")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not counted: 1 finding outside the changed code" in done.stdout

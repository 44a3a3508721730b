"""Import-graph rules under the CI gate (issue 22), on a Django service/selector/api
application (fixtures/gate_chains) committed to a git repository built here:

- a chain or cycle counts when any of its links is in the changed code, wherever the
  finding is shown; its evidence lists every link; its baseline fingerprint covers the
  whole chain;
- a module name of a rule that matches no module of the code is a task error, located
  at the task file's line, never a pass and never skipped by the gate;
- `from src.x import y` with no `src/__init__.py` reaches `x` (Python's namespace
  package), an internal-looking import that reaches nothing is a finding, and
  `min-layers` asks optional layers to exist.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, CodeifRunner
from tests.test_changed_since import GITIGNORE, REPORT, edit, git, isolate_git, read_report

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

USERS = Path("styleguide_example/users")
COMMON = Path("styleguide_example/common")
RULES = "rules.codeif.yaml"
API_IMPORT = "from styleguide_example.users.apis import API_VERSION\n"


@pytest.fixture
def repo(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """fixtures/gate_chains committed on `main`, checked out on a new branch `feature`."""
    root = isolate_git(pytester, monkeypatch)
    shutil.copytree(FIXTURES / "gate_chains", root, dirs_exist_ok=True)
    (root / ".gitignore").write_text(GITIGNORE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the application as it was")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def constraint(report: dict[str, Any], name: str) -> dict[str, Any]:
    (task,) = report["tasks"]
    found: dict[str, Any] = next(c for c in task["constraints"] if c["constraint"] == name)
    return found


def links(outcome: dict[str, Any]) -> list[set[tuple[str, int]]]:
    return [{(link["path"], link["line"]) for link in e["links"]} for e in outcome["evidence"]]


def test_a_cycle_closed_in_a_changed_file_counts_though_shown_in_an_unchanged_one(
    run_codeif: CodeifRunner, repo: Path
) -> None:
    """The pull request only adds `from ...services import user_update` inside
    users/models.py: the cycle is reported at the unchanged services.py, and counts."""
    models = repo / USERS / "models.py"
    models.write_text(
        models.read_text() + "\n\ndef deactivate(user: BaseUser) -> None:\n"
        "    from styleguide_example.users.services import user_update\n\n"
        "    user_update(user_id=user.pk, is_active=False)\n"
    )
    commit(repo, "deactivate users from the model")
    result = run_codeif(RULES, "--codeif-changed-since=main", REPORT, "--codeif-sarif=out.sarif")
    result.assert_outcomes(failed=2)  # the cycle, and models importing a higher layer
    outcome = constraint(read_report(repo), "no-cycles")
    assert outcome["status"] == "violated"
    [cycle] = outcome["evidence"]
    assert (cycle["path"], cycle["line"]) == ("styleguide_example/users/services.py", 6)
    assert links(outcome) == [
        {("styleguide_example/users/services.py", 6), ("styleguide_example/users/models.py", 12)}
    ]
    result.stdout.fnmatch_lines(["*services.py:6: [[]acyclic[]]*[[]links: *models.py:12*"])
    # Code scanning shows the changed link too: in the message and as a related location.
    sarif = json.loads((repo / "out.sarif").read_text())
    [result_of_cycle] = [
        r for r in sarif["runs"][0]["results"] if "no-cycles" in r["message"]["text"]
    ]
    assert "styleguide_example/users/models.py:12" in result_of_cycle["message"]["text"]
    related = {
        (
            r["physicalLocation"]["artifactLocation"]["uri"],
            r["physicalLocation"]["region"]["startLine"],
        )
        for r in result_of_cycle["relatedLocations"]
    }
    assert ("styleguide_example/users/models.py", 12) in related


def test_an_indirect_chain_made_by_a_changed_helper_counts_at_its_unchanged_head(
    run_codeif: CodeifRunner, repo: Path
) -> None:
    """common/utils.py starts importing users.apis: `selectors -> common.utils -> apis`
    is shown at the unchanged selectors.py, and counts under the gate as in a full run."""
    utils = repo / COMMON / "utils.py"
    edit(
        utils,
        '"""Helpers every app shares."""\n',
        f'"""Helpers every app shares."""\n\n{API_IMPORT}',
    )
    commit(repo, "version the helpers")
    gated = run_codeif(RULES, "--codeif-changed-since=main", "--codeif-changed-lines", REPORT)
    outcome = constraint(read_report(repo), "app-layers")
    assert outcome["status"] == "violated", outcome
    heads = {(e["path"], e["line"]) for e in outcome["evidence"]}
    assert ("styleguide_example/users/selectors.py", 3) in heads
    assert {("styleguide_example/common/utils.py", 3)} <= set().union(*links(outcome))
    full = run_codeif(RULES, REPORT)
    assert constraint(read_report(repo), "app-layers")["evidence"] == outcome["evidence"]
    assert gated.ret == full.ret == pytest.ExitCode.TESTS_FAILED


def test_the_baseline_keeps_an_old_chain_and_not_a_new_one_through_its_links(
    pytester: pytest.Pytester, repo: Path
) -> None:
    """An old chain `selectors -> common.utils -> apis` is in the baseline: moved about,
    it stays accepted; made longer through a new module (the same first import, the
    same line text), it is a new chain and counts."""
    git(repo, "checkout", "-q", "main")
    utils = repo / COMMON / "utils.py"
    edit(
        utils,
        '"""Helpers every app shares."""\n',
        f'"""Helpers every app shares."""\n\n{API_IMPORT}',
    )
    commit(repo, "an old violation")
    run = ("--codeif", "-p", "no:cacheprovider", RULES, "--codeif-baseline=baseline.json")
    pytester.runpytest(*run, "--codeif-baseline-write").assert_outcomes(passed=2)
    commit(repo, "the baseline")
    git(repo, "checkout", "-q", "-b", "moved")
    edit(utils, '"""Helpers every app shares."""\n', '"""Helpers every app shares.\n\nOld."""\n')
    selectors = repo / USERS / "selectors.py"
    edit(selectors, "from django", "# Reads.\nfrom django")
    commit(repo, "lines move")
    moved = pytester.runpytest(*run, "--codeif-changed-since=main")
    moved.assert_outcomes(passed=2)
    moved.stdout.fnmatch_lines(["baseline: * findings absorbed*"])
    edit(
        utils,
        "from styleguide_example.users.apis import API_VERSION\n",
        "from styleguide_example.common.versions import API_VERSION\n",
    )
    (repo / COMMON / "versions.py").write_text(
        "from styleguide_example.users.apis import API_VERSION\n"
    )
    commit(repo, "a longer chain through the same first import")
    longer = pytester.runpytest(*run, "--codeif-changed-since=main", REPORT)
    longer.assert_outcomes(failed=2)  # the longer chains, and the cycle they close
    outcome = constraint(read_report(repo), "app-layers")
    shown = {(e["path"], e["line"]): e["message"] for e in outcome["evidence"]}
    assert "common.versions" in shown["styleguide_example/users/selectors.py", 4]


TYPOS = """\
tasks:
  - id: styleguide
    directory: .
    constraints:
      - id: app-layers
        check: layers
        containers: [styleguide_example.usres]
        layers: [apis, services, selectors, models]
      - id: no-cycles
        check: acyclic
        ancestors: [styleguide_exampel]
      - id: no-requests
        check: imports
        forbid: [requests, styleguide_example.users.servces]
        indirect: true
      - id: users-alone
        check: independence
        independent: [styleguide_example.users, styleguide_example.common]
        ignore-imports: ["styleguide_example.common.utils -> styleguide_example.users.apiss"]
      - id: apis-no-print
        check: layers
        layers: [styleguide_example.users.apis, styleguide_example.users.services]
        exclude-modules: [styleguide_example.legacyy]
      - id: fine
        check: imports
        forbid: [requests]
        indirect: true
"""


def test_a_module_name_that_matches_nothing_is_a_located_task_error_under_the_gate(
    pytester: pytest.Pytester, repo: Path
) -> None:
    """Typos in module names are errors at the task file's line with the code's closest
    module, even when the gate finds no changed file (before: violated at an
    unrelated file, or with the gate `passed`); `forbid: [requests]` is no error."""
    git(repo, "checkout", "-q", "main")  # the gate reads the rules the merge base holds
    (repo / RULES).write_text(TYPOS)
    commit(repo, "rules with typos")
    git(repo, "checkout", "-q", "-b", "docs")
    (repo / "README.md").write_text("A change to no code at all.\n")
    commit(repo, "docs only")
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", RULES, "--codeif-changed-since=main"
    )
    result.assert_outcomes(errors=5, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines_random(
        [
            "*rules.codeif.yaml:7: tasks[[]0[]].constraints[[]0[]].containers[[]0[]]: container "
            "`styleguide_example.usres` matches no module of the code; did you mean "
            "`styleguide_example.users`?*",
            "*rules.codeif.yaml:11: tasks[[]0[]].constraints[[]1[]].ancestors[[]0[]]: package "
            "`styleguide_exampel` matches no module of the code; did you mean "
            "`styleguide_example`?*",
            "*rules.codeif.yaml:14: tasks[[]0[]].constraints[[]2[]].forbid[[]1[]]: forbidden "
            "module `styleguide_example.users.servces` *did you mean "
            "`styleguide_example.users.services`?*",
            "*rules.codeif.yaml:19: tasks[[]0[]].constraints[[]3[]].ignore-imports[[]0[]]: *"
            "imported module `styleguide_example.users.apiss`*",
            "*rules.codeif.yaml:23: tasks[[]0[]].constraints[[]4[]].exclude-modules[[]0[]]: "
            "`styleguide_example.legacyy` is no module of the code*",
        ]
    )


def test_an_independence_of_one_module_is_a_task_error(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES / "gate_chains", pytester.path, dirs_exist_ok=True)
    (pytester.path / RULES).write_text(
        "tasks:\n  - id: s\n    directory: .\n    constraints:\n"
        "      - check: independence\n        independent: [styleguide_example.users]\n"
        "  - id: t\n    directory: .\n    constraints:\n"
        "      - check: independence\n        independent: ['config.*']\n"
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", RULES)
    result.stdout.fnmatch_lines_random(
        [
            "*constraints[[]0[]]*`independent` lists one module*",
            "*tasks[[]1[]].constraints[[]0[]].independent: `independent` comes to one module of "
            "the code, "
            "`config.settings`*",
        ]
    )


SRC_RULES = """\
tasks:
  - id: shop
    directory: .
    constraints:
      - id: layers
        check: layers
        layers: [apis, services, "(selectors)"]
"""
DECAY = """\
      - id: decay
        check: layers
        layers: ["(apis)", "(services)", "(selectors)", "(models)"]
        min-layers: 3
"""


def test_src_imports_through_the_namespace_package_are_judged(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`src/` without `__init__.py`, imported as `from src.apis import x` (Python's
    namespace package from the root): the upward import is a violation, an import of
    `src.` that reaches nothing is a finding, and only 2 of 4 optional layers exist."""
    root = isolate_git(pytester, monkeypatch)
    (root / "src" / "apis").mkdir(parents=True)
    (root / "src" / "services").mkdir()
    (root / "src" / "apis" / "users.py").write_text("from src.services.users import create\n")
    (root / "src" / "services" / "users.py").write_text("def create() -> None: ...\n")
    (root / RULES).write_text(SRC_RULES)
    (root / ".gitignore").write_text(GITIGNORE)
    git(root, "init", "-q", "-b", "main")
    commit(root, "a src layout")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src" / "services" / "users.py").write_text(
        "from src.apis.users import create as again\nfrom src.selectors.users import find\n\n"
        "def create() -> None: ...\n"
    )
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", RULES, "--codeif-changed-since=main", REPORT
    )
    result.assert_outcomes(failed=1)
    messages = [e["message"] for e in constraint(read_report(root), "layers")["evidence"]]
    assert any("services.users -> apis.users (l.1)" in m for m in messages), messages
    assert any("imports `src.selectors.users`, which is no module" in m for m in messages)
    (root / RULES).write_text(SRC_RULES + DECAY)
    full = pytester.runpytest("--codeif", "-p", "no:cacheprovider", RULES, REPORT)
    full.assert_outcomes(failed=2)
    decay = [e["message"] for e in constraint(read_report(root), "decay")["evidence"]]
    assert "2 of the 4 layers exist (apis, services), and at least 3 must" in decay

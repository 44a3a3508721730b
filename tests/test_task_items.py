"""`--codeif-items=task`: one pytest item per task (per response), reporting every
outcome exactly as the default mode's one item per constraint does: the JSON report, the
SARIF log, the feedback, the terminal summary, groups, junitxml properties and the exit
status are compared between the two modes, plain, with `-n 0` and with `-n 2`."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, CodeifRunner
from tests.test_changed_since import git, isolate_git
from tests.test_responses import ANSWERS, SAMPLES, TASKS
from tests.test_xdist import comparable, summary_section

MIXED = """\
tasks:
  - id: mixed
    metadata: {model: m1}
    code: |
      import os


      def f(x):
          return eval(x)
    constraints:
      - check: calls
        id: no-eval
        forbid: [eval]
        message: Parse the expression instead.
      - check: ruff
        id: lint
        select: [F401]
      - check: construct
        id: no-global
        forbid: [global]
    tests:
      - call: f("1 + 1")
        expect: 2
      - call: f("2 * 2")
        expect: 5
  - id: clean
    metadata: {model: m2}
    code: |
      def f(x):
          return int(x)
    constraints:
      - check: calls
        id: no-eval
        forbid: [eval]
  - id: broken
    metadata: {model: m2}
    code: "def f(:\\n"
    constraints:
      - check: calls
        id: no-eval
        forbid: [eval]
      - check: construct
        id: no-global
        forbid: [global]
"""


def write_suite(pytester: pytest.Pytester) -> None:
    """Tasks with violations, undecidable outcomes, functional tests passing, failing
    and timing out, bad task files, and `responses:` tasks (one task per response)."""
    pytester.makefile(".codeif.yaml", mixed=MIXED, responses=TASKS)
    pytester.path.joinpath("answers.jsonl").write_text(ANSWERS + "\n", encoding="utf-8")
    pytester.path.joinpath("samples1.jsonl").write_text(SAMPLES + "\n", encoding="utf-8")
    shutil.copytree(FIXTURES / "functional", pytester.path / "fixtures" / "functional")
    shutil.copytree(FIXTURES / "bad", pytester.path / "fixtures" / "bad")


def junit_outcomes(path: Path) -> list[list[tuple[str, str]]]:
    """Each outcome's junitxml properties (without the constraint's name, which a task
    item adds before each outcome's properties), sorted."""
    outcomes: list[list[tuple[str, str]]] = []
    for case in ET.parse(path).getroot().iter("testcase"):
        current: list[tuple[str, str]] | None = None
        for prop in case.iter("property"):
            name, value = prop.get("name", ""), prop.get("value", "")
            if name == "codeif_constraint" or current is None:
                current = []
                outcomes.append(current)
            if name != "codeif_constraint":
                current.append((name, value))
    return sorted(sorted(o) for o in outcomes)


def observe(run: CodeifRunner, mode: str) -> dict[str, Any]:
    """Everything a run reports about the outcomes, in a form the two modes share."""
    path = run.pytester.path
    result = run(
        "-rA",
        f"--codeif-items={mode}",
        "--codeif-group-by=model",
        f"--codeif-report={mode}.json",
        f"--codeif-sarif={mode}.sarif",
        f"--codeif-feedback={mode}.jsonl",
        f"--codeif-feedback={mode}.md",
        f"--junitxml={mode}.xml",
        subprocess=True,
    )
    sarif = json.loads((path / f"{mode}.sarif").read_text())
    return {
        "exit": result.ret,
        "summary": [line for line in summary_section(result) if "written to" not in line],
        "report": comparable(json.loads((path / f"{mode}.json").read_text()), path),
        "sarif": comparable({**sarif, "created": None}, path),
        "feedback": (path / f"{mode}.jsonl").read_text(),
        "markdown": (path / f"{mode}.md").read_text(),
        "junit": junit_outcomes(path / f"{mode}.xml"),
        "outcomes": result.parseoutcomes(),
    }


def test_task_items_report_every_outcome_as_constraint_items_do(
    run_codeif: CodeifRunner,
) -> None:
    write_suite(run_codeif.pytester)
    default = observe(run_codeif, "constraint")
    task = observe(run_codeif, "task")
    # The suite holds what must travel: violations, undecidable outcomes, bad files.
    statuses = {r["status"] for t in default["report"]["tasks"] for r in t["constraints"]}
    assert {"satisfied", "violated", "error"} <= statuses
    assert default["report"]["invalid"]
    assert len(default["report"]["groups"]["groups"]) >= 3  # m1, m2, gpt-4o, llama
    # Node ids included: each outcome is recorded under its own item's node id.
    for key in ("exit", "summary", "report", "sarif", "feedback", "markdown", "junit"):
        assert task[key] == default[key], key
    # pytest counts items: fewer of them, each failing when any outcome of it does.
    assert sum(task["outcomes"].values()) < sum(default["outcomes"].values())
    assert task["outcomes"]["failed"] >= 1 and task["outcomes"]["errors"] >= 1


def failure_texts(result: pytest.RunResult) -> list[str]:
    reports = result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
    return [str(r.longrepr) for r in reports if r.failed]


def test_the_text_has_one_section_per_outcome_as_its_own_item_shows_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".codeif.yaml", mixed=MIXED)
    run = ("--codeif", "-p", "no:cacheprovider", "--codeif-no-cache")
    own = failure_texts(pytester.runpytest(*run))
    shared = failure_texts(pytester.runpytest(*run, "--codeif-items=task"))
    assert len(own) == 2 + 1 + 2  # mixed: eval, F401, a failing case; broken: two
    assert len(shared) == 2  # mixed fails, broken is an error
    mixed, broken = shared
    assert mixed.startswith("task 'mixed': 3 violated (of 4 outcomes)\n\n")
    assert broken.startswith("task 'broken': 2 could not be decided (of 2 outcomes)\n\n")
    assert mixed.split("\n\n")[1:] == own[:3]
    assert broken.split("\n\n")[1:] == own[3:]
    assert "what to do: Parse the expression instead." in mixed


def test_selection_by_metadata_and_by_constraint_name(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", mixed=MIXED)
    run = ("--codeif", "-p", "no:cacheprovider", "--codeif-items=task", "--collect-only", "-q")

    def selected(*args: str) -> list[str]:
        result = pytester.runpytest(*run, *args)
        return [line for line in result.outlines if "::" in line]

    assert selected() == [
        "mixed.codeif.yaml::mixed::all",
        "mixed.codeif.yaml::clean::all",
        "mixed.codeif.yaml::broken::all",
    ]
    assert selected("-k", "m2") == [
        "mixed.codeif.yaml::clean::all",
        "mixed.codeif.yaml::broken::all",
    ]
    assert selected("-m", "codeif(model='m1')") == ["mixed.codeif.yaml::mixed::all"]
    # A constraint's id, check or category selects the tasks holding one, whole.
    assert selected("-k", "no-global") == [
        "mixed.codeif.yaml::mixed::all",
        "mixed.codeif.yaml::broken::all",
    ]
    assert selected("-k", "functional") == ["mixed.codeif.yaml::mixed::all"]
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "--codeif-items=task", "-k", "lint", "-rA"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*task 'mixed': 3 violated (of 4 outcomes)*"])


def test_last_failed_reruns_the_failed_tasks(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", mixed=MIXED)
    run = ("--codeif", "--codeif-items=task", "-p", "no:randomly")
    pytester.runpytest(*run).assert_outcomes(passed=1, failed=1, errors=1)
    again = pytester.runpytest(*run, "--lf", "-q")
    again.assert_outcomes(failed=1, errors=1, deselected=1)


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [
        (["--codeif-items=tasks"], "", "*--codeif-items: invalid choice: 'tasks'*"),
        (
            [],
            "codeif_items = per-task",
            "*codeif_items must be constraint or task, not 'per-task'*",
        ),
    ],
)
def test_a_bad_mode_is_a_usage_error(
    pytester: pytest.Pytester, args: list[str], ini: str, expected: str
) -> None:
    pytester.makefile(".codeif.yaml", mixed=MIXED)
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_the_ini_option_chooses_task_items(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", mixed=MIXED)
    pytester.makeini("[pytest]\ncodeif_items = task\n")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--collect-only", "-q")
    assert "mixed.codeif.yaml::mixed::all" in result.outlines
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "--codeif-items=constraint", "--collect-only", "-q"
    )
    assert "mixed.codeif.yaml::mixed::no-eval" in result.outlines


GATED = """\
tasks:
  - id: one
    file: one.py
    constraints:
      - {check: calls, id: no-eval, forbid: [eval]}
      - {check: construct, id: no-global, forbid: [global]}
  - id: two
    file: two.py
    constraints:
      - {check: calls, id: no-eval, forbid: [eval]}
"""


def test_gate_skips_baseline_and_thresholds_as_constraint_items(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = isolate_git(pytester, monkeypatch)
    pytester.makefile(".codeif.yaml", gated=GATED)
    (repo / ".gitignore").write_text("out/\n.pytest_cache/\n__pycache__/\n")
    (repo / "one.py").write_text("def f(x):\n    return eval(x)\n")
    (repo / "two.py").write_text("def g(x):\n    return eval(x)\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    (repo / "one.py").write_text("def f(x):\n    return eval(x) + eval(x)\n")
    base = ("--codeif", "-p", "no:cacheprovider", "--codeif-no-cache")

    def reports(*args: str) -> list[dict[str, Any]]:
        found = []
        for mode in ("constraint", "task"):
            out = f"out/{mode}.json"
            pytester.runpytest_subprocess(
                *base, f"--codeif-items={mode}", f"--codeif-report={out}", *args
            )
            found.append(comparable(json.loads((repo / out).read_text()), repo))
        return found

    default, task = reports("--codeif-changed-since=HEAD")
    statuses = {r["status"] for t in default["tasks"] for r in t["constraints"]}
    assert statuses == {"violated", "skipped", "satisfied"}
    assert task == default
    default, task = reports("--codeif-baseline=out/base.json", "--codeif-baseline-write")
    assert task == default
    written = (repo / "out" / "base.json").read_text()
    assert "eval" in written
    default, task = reports("--codeif-baseline=out/base.json")
    assert task == default
    for mode in ("constraint", "task"):
        gate = ("--codeif-max-violations=5", f"--codeif-items={mode}")
        assert pytester.runpytest_subprocess(*base, *gate).ret == pytest.ExitCode.OK
        gate = ("--codeif-max-violations=0", f"--codeif-items={mode}")
        assert pytester.runpytest_subprocess(*base, *gate).ret == pytest.ExitCode.TESTS_FAILED

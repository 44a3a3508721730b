"""Judge base problems' references (the witnesses) with pytest-codeif itself: write a
task file whose tasks hold each reference as `code:`, with the candidate constraints
and the problem's tests, run `pytest --codeif` on it in a subprocess, and read the
verdicts from its JSON report.

Why a subprocess and not the engine in-process: the verdict a witness gets is then the
one a benchmark run gives the same code, by the same path (collection, task-file
validation, the sandbox, plugins loaded as pytest loads them), with nothing of this
process's state in between and no dependence on the engine's internals; a run costs a
pytest start-up, and the generator batches every question of a round into one run.
The run is isolated from the user's configuration: its own folder, an empty ini file,
no cache, `PYTEST_ADDOPTS` cleared; plugins come from installed entry points and `-p`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.generate.constraint_problems import BaseProblem
from pytest_codeif.importers.yaml_out import write_task_file
from pytest_codeif.report.safe_text import safe_text

#: Longest reason kept for a verdict (it quotes findings on the reference).
MAX_REASON: Final = 300


@dataclass(frozen=True)
class Verdict:
    """Whether the witness satisfies a constraint (or passes its tests), and if not,
    why: the first finding, the error, or the failing cases."""

    satisfied: bool
    reason: str = ""


@dataclass(frozen=True)
class Question:
    """One constraint to judge on one problem's reference: `key` names it in the
    answer; `constraint` is the task-file entry (`check` and options)."""

    key: str
    constraint: Mapping[str, Any]


@dataclass(frozen=True)
class Answers:
    """A run's verdicts: per problem key, per question key; and per problem key whose
    tests were asked, the tests' verdict."""

    constraints: Mapping[str, Mapping[str, Verdict]]
    tests: Mapping[str, Verdict]


class WitnessRunError(RuntimeError):
    """The witness run gave no usable report (pytest failed to start, crashed...)."""


def _test_entries(problem: BaseProblem, files: dict[str, str]) -> list[dict[str, Any]]:
    """The problem's `tests:` entries; a pytest file goes into `files` (name: text)."""
    if problem.tests.pytest_file is None:
        return [dict(case) for case in problem.tests.cases]
    name = checks_file_name(problem.key)
    files[name] = problem.tests.pytest_file
    return [{"pytest": name}]


def checks_file_name(key: str) -> str:
    """Where a problem's tests kept as a pytest file go, relative to the task file (a
    name pytest would not collect on its own: not `test_*.py`)."""
    return f"checks/{''.join(c if c.isalnum() else '_' for c in key)}_checks.py"


def witness_document(
    problems: Sequence[BaseProblem],
    questions: Mapping[str, Sequence[Question]],
    with_tests: set[str],
) -> tuple[dict[str, Any], dict[str, str]]:
    """The task file judging each problem's reference on its `questions` (and its
    tests, for keys in `with_tests`), and the pytest files it names."""
    files: dict[str, str] = {}
    tasks: list[dict[str, Any]] = []
    for problem in problems:
        asked = questions.get(problem.key, ())
        tested = problem.key in with_tests
        if not asked and not tested:
            continue
        task: dict[str, Any] = {"id": problem.key, "code": problem.reference}
        if problem.entry_point:
            task["entry-point"] = problem.entry_point
        task["constraints"] = [{**q.constraint, "id": q.key} for q in asked]
        if tested:
            task["tests"] = _test_entries(problem, files)
        tasks.append(task)
    return {"version": 1, "tasks": tasks}, files


def judge(
    problems: Sequence[BaseProblem],
    questions: Mapping[str, Sequence[Question]],
    with_tests: set[str],
    plugins: Sequence[str] = (),
) -> Answers:
    """Every question's verdict on its problem's reference, and the tests' verdicts of
    the problems in `with_tests`, from one `pytest --codeif` run."""
    document, files = witness_document(problems, questions, with_tests)
    if not document["tasks"]:
        return Answers({}, {})
    with tempfile.TemporaryDirectory(prefix="codeif-witness-") as folder:
        root = Path(folder)
        (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        task_file = root / "witness.codeif.yaml"
        write_task_file(task_file, document, "References judged by codeif generate constraints")
        report = root / "report.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "--codeif",
            "-q",
            "-p",
            "no:cacheprovider",
            "--codeif-no-cache",
            "--codeif-items=task",
            "--codeif-no-annotations",
            f"--codeif-report={report}",
            "-c",
            str(root / "pytest.ini"),
            "--rootdir",
            str(root),
            *[arg for plugin in plugins for arg in ("-p", plugin)],
            str(task_file),
        ]
        environment = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        done = subprocess.run(
            command, cwd=root, env=environment, capture_output=True, text=True, check=False
        )
        if done.returncode not in (0, 1) or not report.is_file():
            tail = safe_text((done.stdout + done.stderr)[-2000:], 2000)
            raise WitnessRunError(
                f"pytest --codeif on the references exited with status {done.returncode} "
                f"and {'a' if report.is_file() else 'no'} report:\n{tail}"
            )
        # Messages name the task file relative to the rootdir; any that names the
        # temporary folder loses it, so reasons are the same from run to run.
        text = report.read_text(encoding="utf-8").replace(f"{root}{os.sep}", "")
        data = json.loads(text)
    return read_answers(data, questions, with_tests)


def _reason(record: Mapping[str, Any]) -> str:
    """Why a record is not satisfied, in a line: its first finding, or its error."""
    evidence = record.get("evidence") or []
    if record.get("status") == "violated" and evidence:
        first = evidence[0]
        where = f"line {first.get('code_line')}: " if first.get("code_line") else ""
        text = f"{where}{first.get('message', '')}"
    elif record.get("status") == "violated" and record.get("cases"):
        failing = [c for c in record["cases"] if c.get("status") != "passed"]
        shown = "; ".join(f"{c.get('label')}: {c.get('message')}" for c in failing[:2])
        text = f"{len(failing)} of {len(record['cases'])} test cases fail: {shown}"
    else:
        text = f"{record.get('error_kind') or record.get('status')}: {record.get('error') or ''}"
    return safe_text(" ".join(str(text).split()), MAX_REASON)


def read_answers(
    report: Mapping[str, Any],
    questions: Mapping[str, Sequence[Question]],
    with_tests: set[str],
) -> Answers:
    """The verdicts a JSON report gives; a question or tests the report has no record
    of (an invalid task, a lost item) is not satisfied, with the reason."""
    invalid = {
        str(entry.get("task")): _reason(entry)
        for entry in report.get("invalid", [])
        if isinstance(entry, Mapping)
    }
    tasks = {str(t.get("id")): t for t in report.get("tasks", []) if isinstance(t, Mapping)}
    constraints: dict[str, dict[str, Verdict]] = {}
    tests: dict[str, Verdict] = {}
    for key, asked in questions.items():
        task = tasks.get(key)
        missing = Verdict(False, invalid.get(key, "no verdict in the witness run's report"))
        records = {str(r.get("constraint")): r for r in (task or {}).get("constraints", [])}
        constraints[key] = {
            q.key: _verdict(records[q.key]) if q.key in records else missing for q in asked
        }
    for key in with_tests:
        task = tasks.get(key)
        record = (task or {}).get("functional")
        if record is None:
            why = invalid.get(key, "no functional outcome in the witness run's report")
            tests[key] = Verdict(False, why)
        else:
            tests[key] = _verdict(record)
    return Answers(constraints, tests)


def _verdict(record: Mapping[str, Any]) -> Verdict:
    if record.get("status") == "satisfied":
        return Verdict(True)
    return Verdict(False, _reason(record))

"""The engine: one tool run per configuration, and one bad unit never spoils a batch."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_codeif.checks.base import Finding
from pytest_codeif.checks.mypy_types import MypyCheck
from pytest_codeif.checks.ruff_rules import RuffCheck
from pytest_codeif.engine import engine as engine_module
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.tools import ToolRun
from pytest_codeif.errors import Location
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task


def task(tmp_path: Path, task_id: str, code: str) -> Task:
    location = Location(tmp_path / "t.codeif.yaml", 1, ())
    return Task(task_id, location.path, location, CodeSpec("code", code, location, None))


def spec(check) -> ConstraintSpec:
    return ConstraintSpec(check.name, check, check.category, None, None, Location(Path("x"), 1, ()))


GOOD = "def f(x: int) -> int:\n    return x\n"
BAD_TYPE = "def f(x: int) -> str:\n    return x\n"
BROKEN = "def f(:\n"


def test_one_run_per_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = engine_module.run_ruff

    def counting(config, root, files):
        calls.append(list(files))
        return real(config, root, files)

    monkeypatch.setattr(engine_module, "run_ruff", counting)
    engine = Engine(tmp_path, tmp_path / "work")
    tasks = [task(tmp_path, f"t{i}", "import os\n" if i % 2 else GOOD) for i in range(6)]
    f401 = spec(RuffCheck({"select": ["F401"]}))
    for t in tasks:
        engine.plan(t, f401)
    verdicts = [engine.evaluate(t, f401).status for t in tasks]
    assert verdicts == ["satisfied", "violated"] * 3
    assert len(calls) == 1 and len(calls[0]) == 6
    engine.close()


def test_a_syntax_error_never_joins_a_batch(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    broken, typed = task(tmp_path, "broken", BROKEN), task(tmp_path, "typed", BAD_TYPE)
    mypy = spec(MypyCheck({}))
    engine.plan(broken, mypy)
    engine.plan(typed, mypy)
    assert engine.evaluate(broken, mypy).error_kind == "syntax-error"
    verdict = engine.evaluate(typed, mypy)
    assert verdict.status == "violated"
    assert verdict.evidence[0].rule == "return-value"
    engine.close()


def test_a_blocking_mypy_error_reruns_each_unit_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    first, second = task(tmp_path, "a", GOOD), task(tmp_path, "b", BAD_TYPE)
    real = engine_module.run_mypy
    seen: list[int] = []

    def blocking_once(config, root, files, workdir):
        seen.append(len(files))
        if len(files) > 1:  # the batch: pretend the first file stopped mypy
            blocker = Finding("blocking", "misc", files[0], 1)
            return ToolRun({files[0]: [blocker]}, blocking=True)
        return real(config, root, files, workdir)

    monkeypatch.setattr(engine_module, "run_mypy", blocking_once)
    mypy = spec(MypyCheck({}))
    engine.plan(first, mypy)
    engine.plan(second, mypy)
    assert engine.evaluate(first, mypy).status == "satisfied"
    assert engine.evaluate(second, mypy).status == "violated"
    assert seen == [2, 1, 1]
    engine.close()


def test_a_crashing_check_is_a_checker_failure(tmp_path: Path) -> None:
    class Boom(RuffCheck):
        def evaluate(self, ctx):
            raise RuntimeError("bug in the check")

    engine = Engine(tmp_path, tmp_path / "work")
    verdict = engine.evaluate(task(tmp_path, "t", GOOD), spec(Boom({"select": ["E"]})))
    assert verdict.status == "error" and verdict.error_kind == "checker-failure"
    assert "RuntimeError: bug in the check" in (verdict.error or "")
    engine.close()


def test_projects_with_the_same_module_names_do_not_share_mypy_results(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    tasks = []
    for name, body in (("bad", BAD_TYPE), ("good", GOOD)):
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "__init__.py").write_text("")
        (tmp_path / name / "pkg" / "core.py").write_text(body)
        location = Location(tmp_path / "t.codeif.yaml", 1, ())
        code = CodeSpec("directory", name, location, None)
        tasks.append(Task(name, location.path, location, code))
    mypy = spec(MypyCheck({}))
    for t in tasks:
        engine.plan(t, mypy)
    assert [engine.evaluate(t, mypy).status for t in tasks] == ["violated", "satisfied"]
    assert [engine.evaluate(t, mypy).status for t in reversed(tasks)] == ["satisfied", "violated"]
    engine.close()

"""The engine: one tool run per configuration, and one bad unit never spoils a batch."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

import pytest

from pytest_codeif.checks.base import Finding
from pytest_codeif.checks.construct import ConstructCheck
from pytest_codeif.checks.mypy import MypyCheck
from pytest_codeif.checks.ruff import RuffCheck
from pytest_codeif.engine import tool_batches as batches_module
from pytest_codeif.engine import units as units_module
from pytest_codeif.engine.engine import Engine
from pytest_codeif.errors import Location
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task
from pytest_codeif.tools import ToolRun


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
    real = batches_module.run_ruff

    def counting(config, root, files):
        calls.append(list(files))
        return real(config, root, files)

    monkeypatch.setattr(batches_module, "run_ruff", counting)
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
    real = batches_module.run_mypy
    seen: list[int] = []

    def blocking_once(config, root, files, workdir):
        seen.append(len(files))
        if len(files) > 1:  # the batch: pretend the first file stopped mypy
            blocker = Finding("blocking", "misc", files[0], 1)
            return ToolRun({files[0]: [blocker]}, blocking=True)
        return real(config, root, files, workdir)

    monkeypatch.setattr(batches_module, "run_mypy", blocking_once)
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


class _Counted(ConstructCheck):
    """Counts its evaluations (a code-only check)."""

    evaluations: ClassVar[list[str]] = []

    def evaluate(self, ctx):
        self.evaluations.append(ctx.unit.key)
        return super().evaluate(ctx)


def test_code_only_constraints_are_decided_while_the_tools_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    released = threading.Event()
    real = batches_module.run_ruff

    def held(config, root, files):
        assert released.wait(60), "the test never released ruff"
        return real(config, root, files)

    monkeypatch.setattr(batches_module, "run_ruff", held)
    engine = Engine(tmp_path, tmp_path / "work")
    tasks = [task(tmp_path, f"t{i}", "global g\n" if i % 2 else GOOD) for i in range(4)]
    f401 = spec(RuffCheck({"select": ["F401"]}))
    _Counted.evaluations.clear()
    no_global = spec(_Counted({"forbid": ["global"]}))
    for t in tasks:
        engine.plan(t, f401)
        engine.plan(t, no_global)
    engine.start()  # returns with ruff still held in its thread...
    # ...having decided every code-only constraint meanwhile, once each
    assert len(_Counted.evaluations) == 4
    statuses = [engine.evaluate(t, no_global).status for t in tasks]
    assert statuses == ["satisfied", "violated"] * 2
    assert len(_Counted.evaluations) == 4  # the items took the verdicts decided ahead
    released.set()
    assert [engine.evaluate(t, f401).status for t in tasks] == ["satisfied"] * 4
    engine.close()


def test_without_eager_decisions_each_constraint_waits_for_its_item(tmp_path: Path) -> None:
    _Counted.evaluations.clear()
    engine = Engine(tmp_path, tmp_path / "work", eager=False)  # as under -x
    counted = spec(_Counted({"forbid": ["global"]}))
    first, second = task(tmp_path, "a", GOOD), task(tmp_path, "b", "global g\n")
    engine.plan(first, counted)
    engine.plan(second, counted)
    engine.start()
    assert _Counted.evaluations == []
    assert engine.evaluate(first, counted).status == "satisfied"
    assert len(_Counted.evaluations) == 1
    assert engine.evaluate(second, counted).status == "violated"
    engine.close()


class _Observing(ConstructCheck):
    """Reads the parse when its item runs, as checks of observed calls do."""

    observes_calls = True


def test_a_task_read_again_at_its_items_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parses: list[str] = []
    real = units_module.parse_source_file

    def counted(source, place, **kwargs):
        parses.append(source.text)
        return real(source, place, **kwargs)

    monkeypatch.setattr(units_module, "parse_source_file", counted)
    engine = Engine(tmp_path, tmp_path / "work")
    _Counted.evaluations.clear()
    code_only = spec(_Counted({"forbid": ["global"]}))
    observing = spec(_Observing({"forbid": ["global"]}))
    first = task(tmp_path, "first", "global first\n")
    engine.plan(first, code_only)
    engine.plan(first, observing)
    # More units than the engine keeps parsed, decided ahead: without deferral they
    # would evict `first`'s parse before its items run.
    others = [task(tmp_path, f"o{i}", f"x{i} = {i}\n") for i in range(units_module.PARSED_KEPT + 8)]
    for other in others:
        engine.plan(other, code_only)
    engine.start()
    assert len(_Counted.evaluations) == len(others)  # `first`'s waits for its item
    assert engine.evaluate(first, code_only).status == "violated"
    assert engine.evaluate(first, observing).status == "violated"
    assert parses.count("global first\n") == 1
    engine.close()


def test_a_check_asking_for_a_tool_it_did_not_declare_is_decided_at_its_item(
    tmp_path: Path,
) -> None:
    class Undeclared(RuffCheck):
        """Asks ctx.ruff without announcing the run through tool_configs."""

        def tool_configs(self):
            return ()

    engine = Engine(tmp_path, tmp_path / "work")
    check = spec(Undeclared({"select": ["F401"]}))
    unused, clean = task(tmp_path, "a", "import os\n"), task(tmp_path, "b", GOOD)
    engine.plan(unused, check)
    engine.plan(clean, check)
    engine.start()
    assert engine.evaluate(unused, check).status == "violated"
    assert engine.evaluate(clean, check).status == "satisfied"
    engine.close()


def test_a_failing_batch_is_a_checker_failure_for_its_units(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(config, root, files):
        raise OSError("disk full")

    monkeypatch.setattr(batches_module, "run_ruff", broken)
    engine = Engine(tmp_path, tmp_path / "work")
    f401 = spec(RuffCheck({"select": ["F401"]}))
    tasks = [task(tmp_path, f"t{i}", GOOD) for i in range(2)]
    for t in tasks:
        engine.plan(t, f401)
    engine.start()
    for t in tasks:
        verdict = engine.evaluate(t, f401)
        assert verdict.error_kind == "checker-failure"
        assert "disk full" in (verdict.error or "")
    engine.close()


def test_under_maxfail_nothing_is_decided_before_its_item(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pathlib import Path
        from pytest_codeif.checks.construct import ConstructCheck

        class Counted(ConstructCheck):
            name = "counted"

            def evaluate(self, ctx):
                with Path("evaluated.txt").open("a") as log:
                    log.write(ctx.task_id + "\\n")
                return super().evaluate(ctx)

        def pytest_codeif_register_checks(registry):
            registry.register(Counted)
        """
    )
    tasks = "\n".join(
        f"  - id: t{i}\n    code: 'global g'\n    constraints:\n"
        "      - check: counted\n        forbid: [global]"
        for i in range(3)
    )
    pytester.makefile(".codeif.yaml", suite=f"tasks:\n{tasks}\n")
    # The session's audit of the check's samples would log too: off.
    result = pytester.runpytest("--codeif", "-x", "-p", "no:randomly", "-p", "no:codeif-samples")
    result.assert_outcomes(failed=1)
    assert (pytester.path / "evaluated.txt").read_text().split() == ["t0"]
    result = pytester.runpytest(
        "--codeif", "-p", "no:randomly", "--codeif-no-cache", "-p", "no:codeif-samples"
    )
    result.assert_outcomes(failed=3)
    assert (pytester.path / "evaluated.txt").read_text().split() == ["t0", "t0", "t1", "t2"]


def test_a_relative_import_does_not_stop_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    real = batches_module.run_mypy

    def counting(config, root, files, workdir):
        runs.append(len(files))
        return real(config, root, files, workdir)

    monkeypatch.setattr(batches_module, "run_mypy", counting)
    engine = Engine(tmp_path, tmp_path / "work")
    relative = task(tmp_path, "rel", "from . import helpers\n\nx: int = 'a'\n")
    typed = task(tmp_path, "typed", BAD_TYPE)
    mypy = spec(MypyCheck({"error-codes": ["assignment", "return-value"]}))
    engine.plan(relative, mypy)
    engine.plan(typed, mypy)
    assert engine.evaluate(relative, mypy).status == "violated"
    assert engine.evaluate(typed, mypy).status == "violated"
    assert runs == [2]  # one run: no unit was re-checked alone
    engine.close()


def test_ruff_and_mypy_read_one_copy_unless_suppressions_are_blanked(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    plain = task(tmp_path, "plain", BAD_TYPE)
    ignoring = task(tmp_path, "ignoring", "x: int = 'a'  # type: ignore\n")
    mypy = spec(MypyCheck({}))
    ruff = spec(RuffCheck({"select": ["F401"]}))
    for t in (plain, ignoring):
        engine.plan(t, mypy)
        engine.plan(t, ruff)
    engine.start()
    assert engine.evaluate(ignoring, mypy).status == "violated"  # the ignore is blanked
    assert engine.evaluate(plain, mypy).status == "violated"
    staged = sorted(p.name for p in engine.tools.units_dir.iterdir())
    keys = sorted([engine.unit(plain).key, engine.unit(ignoring).key])
    assert staged == sorted([*keys, f"{engine.unit(ignoring).key}_n"])
    engine.close()


def test_staged_copies_go_once_every_batch_is_in_and_come_back_for_a_late_one(
    tmp_path: Path,
) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    f401 = spec(RuffCheck({"select": ["F401"]}))
    early, late = task(tmp_path, "early", "import os\n"), task(tmp_path, "late", "import sys\n")
    engine.plan(early, f401)
    engine.start()
    assert engine.evaluate(early, f401).status == "violated"
    assert not engine.tools.units_dir.exists()  # moved aside and removed in the background
    verdict = engine.evaluate(late, f401)  # not planned: a batch of its own, staged afresh
    assert verdict.status == "violated"
    assert "`sys` imported but unused" in verdict.evidence[0].message
    engine.close()
    assert not (tmp_path / "work").exists()

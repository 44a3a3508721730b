"""Where a verdict is reached: a constraint's check evaluated on the files of its scope,
its findings kept to that scope and located where the user wrote them, and whatever the
code or the check does mapped to a `Verdict` (satisfied, violated, or an error of a
named kind); never an exception."""

from __future__ import annotations

import traceback
from functools import partial
from pathlib import Path

from pytest_codeif.checks.base import ResponseCheck, needs_of
from pytest_codeif.code.languages import JS_FAMILY
from pytest_codeif.code.response_text import response_text
from pytest_codeif.code.unit import CodeUnit, OtherFile, SourceFile
from pytest_codeif.engine.context import EngineContext
from pytest_codeif.engine.evidence import Locations
from pytest_codeif.engine.sandbox_runs import SandboxRuns
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.engine.units import Units, check_scope_modules
from pytest_codeif.outcome import Evidence, Undecidable, Verdict
from pytest_codeif.taskfile.model import ConstraintSpec, Task


class Verdicts:
    """Decides constraints, served by the session's units, tool batches and runs."""

    def __init__(
        self, units: Units, tools: ToolBatches, runs: SandboxRuns, locations: Locations
    ) -> None:
        self._units = units
        self._tools = tools
        self._runs = runs
        self._locations = locations

    def decide(
        self,
        unit: CodeUnit,
        constraint: ConstraintSpec,
        task: Task,
        *,
        code_only: bool = False,
        ahead: bool = False,
    ) -> Verdict:
        """The verdict. With `code_only`, a check asking for more than the code (a tool, a
        run of the code) raises `NeedsMoreThanCode` through this method; with `ahead`, a
        check asking for a measurement not yet back raises `MeasurementPending`."""
        scope = constraint.scope
        files = self._units.in_scope(unit, scope)
        if not files:
            return Verdict(
                "error",
                error_kind="invalid-task",
                error=f"no file of the code is in the constraint's scope ({scope.describe()})",
            )
        needs = needs_of(constraint.check)
        files = _in_languages(files, needs.languages)
        if not files:
            return Verdict(
                "error",
                error_kind="invalid-task",
                error=_no_file_in_languages(constraint, unit, needs.languages),
            )
        try:
            if needs.judges_import_graph:
                check_scope_modules(unit, scope)
            # A file outside the scope may not even parse: it does not spoil the verdict.
            self._units.check_syntax(
                unit,
                # JS/TS members alone are read by the check (`reads_js_fragments`).
                [f for f in files if f.language not in JS_FAMILY]
                if needs.reads_js_fragments
                else files,
            )
            others = unit.others_in(scope)  # a project's run.sh, .env... in scope
            ctx = self._context(
                unit, task, constraint.check_name, files, others, code_only=code_only, ahead=ahead
            )
            findings = list(constraint.check.evaluate(ctx))
            if files is not unit.files or others is not unit.other_files:
                # Only findings in scope count (ruff's, mypy's too).
                shown = {f.relpath for f in files} | {f.relpath for f in others}
                findings = [
                    f for f in findings if f.in_task_file or f.path is None or f.path in shown
                ]
        except Undecidable as exc:
            error = self._locations.located(task, constraint, exc)
            return Verdict("error", error_kind=exc.kind, error=error)
        except RecursionError:
            # Code nested deeper than a recursive walk can go: the code's size, not a bug.
            return Verdict(
                "error",
                error_kind="too-large",
                error=f"check {constraint.check_name!r}: the code is nested too deeply to walk",
            )
        except Exception as exc:  # noqa: BLE001 - a broken check must not crash pytest
            return Verdict(
                "error", error_kind="checker-failure", error=_crash_text(constraint, exc)
            )
        notes = tuple(ctx.notes)
        if not findings:
            return Verdict("satisfied", notes=notes)
        display = self._locations.display
        evidence = tuple(
            Evidence(display(task.path), f.line, f.rule, f.message)
            if f.in_task_file
            else self._locations.locate(unit, f)
            for f in findings
        )
        return Verdict("violated", evidence, notes=notes)

    def missing_code(self, constraint: ConstraintSpec, task: Task, why: str) -> Verdict:
        """The verdict of a check that judges a response with no code in its task's
        language (`judges_missing_code`): violated, at the response's line."""
        if task.code.kind not in ("response", "response-file", "responses"):
            # A file or folder holding nothing is no answer in another language.
            return Verdict("error", error_kind="no-code", error=why)
        response = response_text(task.code, task.path)
        shown = self._locations.display(response.origin)
        line = response.origin_line(1)
        return Verdict("violated", (Evidence(shown, line, constraint.check_name, why),))

    def decide_response(self, constraint: ConstraintSpec, task: Task) -> Verdict:
        """The verdict of a check of the response's text (`ResponseCheck`): no code is
        read, so an answer without code is judged; each finding is shown at the line of
        the response it is about (the response's first line when it is about none)."""
        check = constraint.check
        if not isinstance(check, ResponseCheck):
            return Verdict(
                "error",
                error_kind="checker-failure",
                error=f"check {constraint.check_name!r} reads responses and has no `judge`",
            )
        try:
            response = response_text(task.code, task.path)
            judged = check.judge(response.text)
        except Undecidable as exc:
            error = self._locations.located(task, constraint, exc)
            return Verdict("error", error_kind=exc.kind, error=error)
        except Exception as exc:  # noqa: BLE001 - a broken check must not crash pytest
            return Verdict(
                "error", error_kind="checker-failure", error=_crash_text(constraint, exc)
            )
        shown = self._locations.display(response.origin)
        evidence = tuple(
            # `code_line`: the line of the response's own text (no code file to name).
            Evidence(shown, response.origin_line(f.line), f.rule, f.message, code_line=f.line)
            for f in judged.findings
        )
        details = dict(judged.details)
        if evidence:
            return Verdict("violated", evidence, details=details)
        return Verdict("satisfied", details=details)

    def _context(
        self,
        unit: CodeUnit,
        task: Task,
        check_name: str,
        files: tuple[SourceFile, ...],
        others: tuple[OtherFile, ...],
        *,
        code_only: bool,
        ahead: bool = False,
    ) -> EngineContext:
        """What a check of `task` sees of `unit` (its `files` and `others` in scope),
        served by the session's caches and runs."""
        return EngineContext(
            unit,
            files,
            others=others,
            task_id=task.id,
            check_name=check_name,
            parse=partial(self._units.parsed, unit),
            tools=self._tools,
            display=self._locations.display,
            observe=partial(self._runs.observed, task),
            measure=partial(self._runs.measure, unit, task, ahead=ahead),
            probe=partial(self._runs.probe, unit, task),
            code_only=code_only,
        )


def _in_languages(
    files: tuple[SourceFile, ...], languages: frozenset[str]
) -> tuple[SourceFile, ...]:
    """The `files` written in one of `languages` (`files` itself when all are: whether the
    scope was narrowed is told by identity)."""
    if all(f.language in languages for f in files):
        return files
    return tuple(f for f in files if f.language in languages)


def _no_file_in_languages(
    constraint: ConstraintSpec, unit: CodeUnit, languages: frozenset[str]
) -> str:
    written = ", ".join(sorted(unit.languages))
    judged = ", ".join(sorted(languages))
    judges = f"check {constraint.check_name!r} judges {judged} code"
    scope = constraint.scope.describe()
    if not scope:  # the whole code: no empty `()` where a scope would be named
        return f"{judges}, and the code is written in {written}"
    return (
        f"{judges}, and the constraint's scope ({scope}) holds none: "
        f"the code is written in {written}"
    )


def _crash_text(constraint: ConstraintSpec, exc: Exception) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"check {constraint.check_name!r} crashed{where}: {type(exc).__name__}: {exc}"

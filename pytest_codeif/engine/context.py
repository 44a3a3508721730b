"""What a check sees: the code unit, its parsed modules, and batched tool diagnostics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_codeif.checks.base import Finding, Undecidable
from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.engine.cst import ParsedModule
from pytest_codeif.engine.suppressions import MYPY_KINDS
from pytest_codeif.engine.tools import MypyConfig, RuffConfig
from pytest_codeif.functional.measure import Request, measure

if TYPE_CHECKING:
    from pytest_codeif.engine.engine import Engine
    from pytest_codeif.functional.run import CaseResult
    from pytest_codeif.taskfile.model import CallCase, Task


class NeedsMoreThanCode(BaseException):
    """A check decided ahead of its item asked for a tool or a run of the code; it is
    decided when its item runs instead. A BaseException, so that a check catching
    `Exception` cannot swallow it."""


class CheckContext:
    """Gives a check access to one unit through the engine's shared caches and batches.

    With `code_only`, the check may read the code and its parse only: asking for tool
    findings, observed values or measurements raises `NeedsMoreThanCode`.
    """

    def __init__(
        self, engine: Engine, unit: CodeUnit, task: Task | None = None, *, code_only: bool = False
    ) -> None:
        self._engine = engine
        self.unit = unit
        self.task = task
        self._code_only = code_only
        #: Remarks for the report that are not findings (e.g. a suppression disregarded).
        self.notes: list[str] = []

    def modules(self) -> list[ParsedModule]:
        """Every module of the unit, parsed once per session; syntax errors are undecidable."""
        return [self._engine.parsed(self.unit, source) for source in self.unit.files]

    def observed(self) -> list[tuple[CallCase, CaseResult]]:
        """Each call case of the task with its result, from the task's functional run
        (shared with its functional item: the code runs once)."""
        self._needs_more()
        if self.task is None or self._engine.functional is None:
            raise Undecidable("checker-failure", "no functional runner is available here")
        outcome = self._engine.functional(self.task)
        results = [c for c in outcome.cases if c.label in {k.label for k in self.task.calls}]
        by_label = {c.label: c for c in results}
        return [(case, by_label[case.label]) for case in self.task.calls if case.label in by_label]

    def measure(self, request: Request) -> list[tuple[int, float]]:
        """(size, cost) of running the code's function on growing inputs, sandboxed."""
        self._needs_more()
        if self.task is None:
            raise Undecidable("checker-failure", "measurements need a task")
        module = self.task.module or self.unit.main_module
        if module is None:
            raise Undecidable(
                "invalid-task", "the project has several top-level modules; set the task's `module`"
            )
        engine = self._engine
        return measure(
            self.unit,
            module,
            request,
            workdir=engine.workdir,
            isolation=engine.isolation,
            timeout=self.task.timeout,
        )

    def ruff(self, config: RuffConfig) -> list[Finding]:
        """Ruff's findings for this unit, from the batched run for `config`."""
        self._needs_more()
        if not config.honor_noqa:
            self._note_suppressions(frozenset({"noqa"}), "ruff")
        return self._engine.tool_findings(config, self.unit)

    def mypy(self, config: MypyConfig) -> list[Finding]:
        """Mypy's errors for this unit, from the batched run for `config`."""
        self._needs_more()
        if not config.honor_ignores:
            self._note_suppressions(MYPY_KINDS, "mypy")
        return self._engine.tool_findings(config, self.unit)

    def _needs_more(self) -> None:
        if self._code_only:
            raise NeedsMoreThanCode

    def _note_suppressions(self, kinds: frozenset[str], tool: str) -> None:
        for path, item in self._engine.suppressions(self.unit):
            if item.kind in kinds:
                source = self.unit.file(path)
                line = source.origin_line(item.line) if source else item.line
                where = self._engine.display(source.origin) if source else path
                self.notes.append(
                    f"{where}:{line}: `{item.text.strip()}` disregarded by {tool} "
                    "(suppressions are not allowed: set allow-suppressions to honour them)"
                )

"""The engine's side of `CheckContext`: a check's view of one unit, served by the
engine's shared parses, tool batches, functional runs and measurements.

It receives what it serves as callables and the batches object, never the engine, so
that the engine imports it and not the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import libcst as cst

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_suppressions import BIOME_NOTED, TSC_KINDS
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.languages import JS_FAMILY, PYTHON
from pytest_codeif.code.suppressions import MYPY_KINDS
from pytest_codeif.code.unit import CodeUnit, OtherFile, SourceFile
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.functional.measure import Request
from pytest_codeif.outcome import CaseResult, Finding, Undecidable
from pytest_codeif.spec import CallCase
from pytest_codeif.tools import MypyConfig, RuffConfig
from pytest_codeif.tools_node import BiomeConfig, TscConfig


class NeedsMoreThanCode(BaseException):
    """A check decided ahead of its item asked for a tool or a run of the code; it is
    decided when its item runs instead. A BaseException, so that a check catching
    `Exception` cannot swallow it."""


class EngineContext:
    """Gives a check access to one unit through the engine's shared caches and batches.

    With `code_only`, the check may read the code and its parse only: asking for tool
    findings, observed values or measurements raises `NeedsMoreThanCode`.
    """

    def __init__(
        self,
        unit: CodeUnit,
        files: tuple[SourceFile, ...],
        *,
        others: tuple[OtherFile, ...] = (),
        task_id: str,
        check_name: str,
        parse: Callable[[SourceFile], ParsedModule | JsModule],
        tools: ToolBatches,
        display: Callable[[Path], str],
        observe: Callable[[], list[tuple[CallCase, CaseResult]]],
        measure: Callable[[Request], list[tuple[int, float]]],
        probe: Callable[[str, Sequence[tuple[Any, ...]]], list[CaseResult]],
        code_only: bool = False,
    ) -> None:
        self._unit = unit
        self._files = files
        self._other_paths = frozenset(f.relpath for f in others)
        self._task_id = task_id
        self._check_name = check_name
        self._parse = parse
        self._tools = tools
        self._display = display
        self._observe = observe
        self._measure = measure
        self._probe = probe
        self._code_only = code_only
        self._notes: list[str] = []
        self._look_alikes_noted: set[str] = set()

    @property
    def unit(self) -> CodeUnit:
        return self._unit

    @property
    def task_id(self) -> str:
        return self._task_id

    @property
    def check_name(self) -> str:
        return self._check_name

    @property
    def notes(self) -> list[str]:
        return self._notes

    def modules(self) -> list[ParsedModule]:
        """Every module of the unit in the constraint's scope, parsed once per session;
        syntax errors are undecidable. A module whose identifiers were read in NFKC form
        (`os` written in fullwidth letters) adds notes saying so: the verdict may rest on
        them."""
        parsed: list[ParsedModule] = []
        for source in self._files:
            if source.language != PYTHON.name:
                continue  # a check of several languages reads the others' own way
            module = self._parse(source)
            if not isinstance(module, ParsedModule):  # pragma: no cover - PARSERS' contract
                raise TypeError(f"{source.relpath} was not parsed as Python")
            self._note_look_alikes(module)
            parsed.append(module)
        return parsed

    def js_modules(self) -> list[JsModule]:
        """Every JavaScript or TypeScript file in the constraint's scope, parsed once per
        session (ast-grep); syntax errors and files past the bounds are undecidable."""
        parsed: list[JsModule] = []
        for source in self._files:
            if source.language not in JS_FAMILY:
                continue
            module = self._parse(source)
            if not isinstance(module, JsModule):  # pragma: no cover - PARSERS' contract
                raise TypeError(f"{source.relpath} was not parsed as JavaScript")
            parsed.append(module)
        return parsed

    def in_scope(self, relpath: str) -> bool:
        """True when the file at `relpath` (source, or another file of a project: `run.sh`,
        `.env`) is in the constraint's scope."""
        return relpath in self._other_paths or any(s.relpath == relpath for s in self._files)

    def observed(self) -> list[tuple[CallCase, CaseResult]]:
        """Each call case of the task with its result, from the task's functional run
        (shared with its functional item: the code runs once)."""
        self._needs_more()
        return self._observe()

    def measure(self, request: Request) -> list[tuple[int, float]]:
        """(size, cost) of running the code's function on growing inputs, sandboxed."""
        self._needs_more()
        return self._measure(request)

    def probe(self, function: str, calls: Sequence[tuple[Any, ...]]) -> list[CaseResult]:
        """`function` called on each argument tuple of `calls`, sandboxed, in one run."""
        self._needs_more()
        return self._probe(function, calls)

    def ruff(self, config: RuffConfig) -> list[Finding]:
        """Ruff's findings for this unit, from the batched run for `config`."""
        self._needs_more()
        if not config.honor_noqa:
            self._note_suppressions(frozenset({"noqa"}), "ruff")
        return self._tools.findings(config, self._unit)

    def mypy(self, config: MypyConfig) -> list[Finding]:
        """Mypy's errors for this unit, from the batched run for `config`."""
        self._needs_more()
        if not config.honor_ignores:
            self._note_suppressions(MYPY_KINDS, "mypy")
        return self._tools.findings(config, self._unit)

    def biome(self, config: BiomeConfig) -> list[Finding]:
        """Biome's findings for this unit, from the batched run for `config`."""
        self._needs_more()
        if not config.honor_ignores:
            self._note_suppressions(BIOME_NOTED, "biome")
        return self._tools.findings(config, self._unit)

    def tsc(self, config: TscConfig) -> list[Finding]:
        """The TypeScript compiler's errors for this unit, from the batched run for
        `config`."""
        self._needs_more()
        if not config.honor_ignores:
            self._note_suppressions(TSC_KINDS, "tsc")
        return self._tools.findings(config, self._unit)

    def finding(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        rule: str | None = None,
    ) -> Finding:
        """A finding whose rule defaults to the check's name."""
        return Finding(message, rule or self._check_name, path, line)

    def report(
        self, module: ParsedModule, node: cst.CSTNode, message: str, *, rule: str | None = None
    ) -> Finding:
        """A finding at `node` of `module`: its file, line and (1-based) column."""
        start = module.positions[node].start
        return Finding(
            message, rule or self._check_name, module.relpath, start.line, start.column + 1
        )

    def _note_look_alikes(self, module: ParsedModule) -> None:
        """One note per look-alike spelling of `module`, at its first place."""
        if not module.look_alikes or module.relpath in self._look_alikes_noted:
            return
        self._look_alikes_noted.add(module.relpath)
        where = self._display(module.source.origin)
        spelt: set[str] = set()
        for look_alike in module.look_alikes:
            if look_alike.written in spelt:
                continue
            spelt.add(look_alike.written)
            try:
                line = module.source.origin_line(module.line_of(look_alike.node))
            except Undecidable:  # too deep to locate: the note must not spoil the verdict
                line = None
            place = f"{where}:{line}" if line else where
            self._notes.append(f"{place}: {look_alike.explained()}")

    def _needs_more(self) -> None:
        if self._code_only:
            raise NeedsMoreThanCode

    def _note_suppressions(self, kinds: frozenset[str], tool: str) -> None:
        for path, item in self._tools.suppressions(self._unit):
            if item.kind in kinds:
                source = self._unit.file(path)
                line = source.origin_line(item.line) if source else item.line
                where = self._display(source.origin) if source else path
                self._notes.append(
                    f"{where}:{line}: `{item.text.strip()}` disregarded by {tool} "
                    "(suppressions are not allowed: set allow-suppressions to honour them)"
                )

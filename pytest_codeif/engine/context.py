"""What a check sees: the code unit, its parsed modules, and batched tool diagnostics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_codeif.checks.base import Finding
from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.engine.cst import ParsedModule
from pytest_codeif.engine.tools import MypyConfig, RuffConfig

if TYPE_CHECKING:
    from pytest_codeif.engine.engine import Engine


class CheckContext:
    """Gives a check access to one unit through the engine's shared caches and batches."""

    def __init__(self, engine: Engine, unit: CodeUnit) -> None:
        self._engine = engine
        self.unit = unit

    def modules(self) -> list[ParsedModule]:
        """Every module of the unit, parsed once per session; syntax errors are undecidable."""
        return [self._engine.parsed(self.unit, source) for source in self.unit.files]

    def ruff(self, config: RuffConfig) -> list[Finding]:
        """Ruff's findings for this unit, from the batched run for `config`."""
        return self._engine.tool_findings(config, self.unit)

    def mypy(self, config: MypyConfig) -> list[Finding]:
        """Mypy's errors for this unit, from the batched run for `config`."""
        return self._engine.tool_findings(config, self.unit)

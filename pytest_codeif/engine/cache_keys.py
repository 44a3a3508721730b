"""A constraint's verdict-cache key: the unit, the check's source and options, the scope,
and for a check that observes calls, the calls and how they run. Hashed once per unit
and constraint (planning and evaluating both ask)."""

from __future__ import annotations

from typing import Any

from pytest_codeif.checks.base import needs_of
from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.engine.tool_batches import ToolBatches
from pytest_codeif.engine.verdict_cache import UNCACHED, VerdictCache, class_fingerprint
from pytest_codeif.taskfile.model import ConstraintSpec, Task


class CacheKeys:
    """The verdict-cache keys of constraints, each computed once."""

    def __init__(self, cache: VerdictCache, tools: ToolBatches, sandbox: str) -> None:
        self._cache = cache
        self._tools = tools
        self._sandbox = sandbox
        self._keys: dict[tuple[str, int], str] = {}

    def key(self, unit: CodeUnit, constraint: ConstraintSpec, task: Task) -> str:
        """The constraint's verdict-cache key, hashed once (plan and evaluate both ask)."""
        memo = (unit.key, id(constraint))
        if memo not in self._keys:
            source = class_fingerprint(type(constraint.check))
            if source is None:  # the check's source is unknown: never reuse its verdicts
                self._keys[memo] = f"{UNCACHED}{unit.key}:{id(constraint)}"
                return self._keys[memo]
            what: dict[str, Any] = {
                "check": constraint.check_name,
                "check_source": source,
                "options": dict(constraint.check.options),
                "scope": constraint.scope.as_key(),
            }
            needs = needs_of(constraint.check)
            if needs.reads_project_config:
                what["project_config"] = self._tools.config_digest(unit)
            if needs.observes_calls:
                what["calls"] = [
                    [c.label, c.expression, c.function, c.args, c.kwargs] for c in task.calls
                ]
                what["run"] = [task.timeout, task.module, self._sandbox]
            self._keys[memo] = self._cache.key(unit, what)
        return self._keys[memo]

"""The mean over tasks of each task's own share (a macro average), summed exactly.

A pooled (micro) rate weighs a task by how many outcomes it has; this mean weighs every
task the same: PACIFIC's instruction-level accuracy is the mean over samples of the
share of instructions followed. The shares are summed as fractions, so the figure is the
same whatever order tasks arrive in (pytest-xdist).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass
class TaskMean:
    """The tasks counted and the sum of their shares; a task with nothing judged has no
    share and is left out."""

    tasks: int = 0
    shares: Fraction = field(default_factory=Fraction)

    def add(self, satisfied: int, total: int) -> None:
        """Count one task: `satisfied` of its `total` outcomes."""
        if total > 0:
            self.tasks += 1
            self.shares += Fraction(satisfied, total)

    @property
    def rate(self) -> float | None:
        """The mean of the tasks' shares; None with no task."""
        return float(self.shares / self.tasks) if self.tasks else None

    def to_dict(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "rate": self.rate}

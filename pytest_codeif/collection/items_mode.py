"""How many pytest items a task becomes (`--codeif-items`, ini `codeif_items`): one per
constraint (and one for the functional tests), or one per task. Read once per process;
a bad value is a usage error. The bottom layer, so collection and hooks may both ask."""

from __future__ import annotations

from typing import Final

import pytest

CONSTRAINT_ITEMS: Final = "constraint"
TASK_ITEMS: Final = "task"
MODES: Final = (CONSTRAINT_ITEMS, TASK_ITEMS)

_MODE_KEY = pytest.StashKey[str]()


def items_mode(config: pytest.Config) -> str:
    """`constraint` (the default) or `task`: the command line, else the ini value.
    Raises `pytest.UsageError` (exit status 4, one `ERROR:` line) for anything else."""
    known = config.stash.get(_MODE_KEY, None)
    if known is not None:
        return known
    given = config.getoption("codeif_items", None) or config.getini("codeif_items")
    mode = str(given or CONSTRAINT_ITEMS).strip()
    if mode not in MODES:
        raise pytest.UsageError(
            f"pytest-codeif: codeif_items must be constraint or task, not {mode!r}"
        )
    config.stash[_MODE_KEY] = mode
    return mode

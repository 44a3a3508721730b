"""This pytest process's place in a pytest-xdist run: whether it is a worker, and how
many cores it may keep busy (the machine's, shared among the workers of the run, each of
which runs its own tools and sandboxes). The bottom layer, so every module may ask."""

from __future__ import annotations

import os

import pytest


def is_xdist_worker(config: pytest.Config) -> bool:
    """True in a pytest-xdist worker (which has `workerinput`), False in the controller
    or a run without pytest-xdist."""
    return hasattr(config, "workerinput")


def cores_for_this_process() -> int:
    """Cores divided among the pytest-xdist workers of this run (at least one)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return max(1, (os.cpu_count() or 1) // max(1, workers))

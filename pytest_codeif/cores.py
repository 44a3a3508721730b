"""How many cores this pytest process may keep busy: the machine's, shared among the
pytest-xdist workers of the run (each worker runs its own tools and sandboxes)."""

from __future__ import annotations

import os


def cores_for_this_process() -> int:
    """Cores divided among the pytest-xdist workers of this run (at least one)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    return max(1, (os.cpu_count() or 1) // max(1, workers))

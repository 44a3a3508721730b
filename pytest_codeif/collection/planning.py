"""Which items to batch tools for: the selected items, or under pytest-xdist the items
given to this worker, so that each worker batches only its own share.

Every pytest-xdist worker collects everything. Under `TaskScheduling` (see
`xdist_scheduling.py`) a worker knows its share at collection (`own_share`) and plans it
at once. Otherwise, and for items beyond its share (a crashed worker's), a worker plans
lazily: when an item it was not told about starts, it plans that item and every item
waiting in its queue. The queue is read from pytest-xdist's worker plugin; if that ever
changes shape, the worker plans all items, as a plain run does (correct, only slower).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from pytest_codeif.collection.items import ConstraintItem, FunctionalItem, TaskItem
from pytest_codeif.state import CodeifState


def plan(state: CodeifState, items: Iterable[pytest.Item]) -> None:
    """Note the tool batches and functional runs these items will need."""
    for item in items:
        if item.nodeid in state.planned:
            continue
        state.planned.add(item.nodeid)
        state.unstarted = True
        if isinstance(item, ConstraintItem):
            state.engine.plan(item.task, item.constraint)
        elif isinstance(item, FunctionalItem):
            state.pool.plan(item.task)
        elif isinstance(item, TaskItem):
            for constraint in item.task.constraints:
                state.engine.plan(item.task, constraint)
            if item.task.has_tests:
                state.pool.plan(item.task)


def start(state: CodeifState) -> None:
    """Begin what was planned and not begun: functional runs and tool batches in the
    background, then the code-only verdicts while those run."""
    if not state.unstarted:
        return
    state.unstarted = False
    state.pool.start()
    state.engine.start()


def own_share(session: pytest.Session) -> list[pytest.Item] | None:
    """The items `TaskScheduling` will send this worker (it splits the collection the
    same way and sends block k to gw<k>), or None when another scheduler is in use or
    this worker replaces a crashed one."""
    workerinput: dict[str, Any] = getattr(session.config, "workerinput", {})
    if not workerinput.get("codeif_task_blocks"):
        return None
    # Only under pytest-xdist, which this module must not require.
    from pytest_codeif.collection.xdist_scheduling import split_by_task, worker_number  # noqa: PLC0415

    number = worker_number(str(workerinput.get("workerid", "")))
    count = int(workerinput.get("workercount", 0) or 0)
    if number >= count:
        return None
    blocks = split_by_task([item.nodeid for item in session.items], count)
    return [session.items[i] for i in blocks[number]] if number < len(blocks) else []


def _worker_queue(config: pytest.Config) -> Any | None:
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "torun"):
            return plugin
    return None


def queued_items(session: pytest.Session) -> list[pytest.Item] | None:
    """Items given to this worker and not yet run; None when that cannot be read."""
    worker = _worker_queue(session.config)
    queue = getattr(worker, "torun", None)
    if queue is None or not hasattr(queue, "lock"):
        return None
    try:
        with queue.lock() as pending:
            indexes = [i for i in pending if isinstance(i, int)]
    except Exception:  # noqa: BLE001 - an internal we read must never break the run
        return None
    upcoming = getattr(worker, "nextitem_index", None)
    if isinstance(upcoming, int):
        indexes.append(upcoming)
    return [session.items[i] for i in indexes if 0 <= i < len(session.items)]


def plan_on_arrival(item: pytest.Item, state: CodeifState) -> None:
    """Under xdist: when `item` was not planned yet, plan it and the worker's queue."""
    if item.nodeid in state.planned:
        return
    queued = queued_items(item.session)
    plan(state, [item, *(queued if queued is not None else item.session.items)])

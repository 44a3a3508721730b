"""A pytest-xdist scheduler for task files: whole tasks to one worker, all at once.

With xdist's default (`--dist load`) the items of one task land on different workers,
so each worker parses the task's code again, and items arrive in shrinking chunks, so
each worker runs ruff and mypy once per chunk. Here the tasks are split up front into one
contiguous block per worker, of about equal item counts: every task's items stay on one
worker, and each worker batches its whole share in one run per tool configuration.
There is no load balancing beyond that split. When a worker crashes, the item it was
running is reported lost (never re-sent, so one crashing item cannot take down every
replacement worker) and its other pending items go back to the queue.

Only imported under pytest-xdist; chosen for `--dist load` (the default with `-n`);
`--dist loadscope`, `worksteal` and the others work as pytest-xdist defines them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# pytest-xdist ships without type information.
from xdist.scheduler.load import LoadScheduling  # type: ignore[import-untyped]


def task_of(nodeid: str) -> str:
    """`file::task` for an item `file::task::constraint` (a file-level item: itself)."""
    parts = nodeid.split("::")
    return "::".join(parts[:2])


def split_by_task(collection: Sequence[str], parts: int) -> list[list[int]]:
    """Indices of `collection` in `parts` contiguous blocks of whole tasks, each about
    len(collection) / parts items long."""
    groups: list[list[int]] = []
    for index, nodeid in enumerate(collection):
        if groups and task_of(collection[groups[-1][0]]) == task_of(nodeid):
            groups[-1].append(index)
        else:
            groups.append([index])
    blocks: list[list[int]] = [[] for _ in range(max(1, parts))]
    target = len(collection) / len(blocks)
    current = 0
    for group in groups:
        if len(blocks[current]) >= target * 0.999 and current < len(blocks) - 1:
            current += 1
        blocks[current].extend(group)
    return [b for b in blocks if b]


def worker_number(worker_id: str) -> int:
    """0 for "gw0"; a large number for anything else (sorted last)."""
    found = re.fullmatch(r"gw(\d+)", worker_id)
    return int(found.group(1)) if found else 1 << 30


class TaskScheduling(LoadScheduling):  # type: ignore[misc]
    """Load scheduling whose first (and usually only) distribution is by whole tasks."""

    def schedule(self) -> None:
        """The first call sends every worker its block; later calls are xdist's."""
        if self.collection is not None or not self.collection_is_completed:  # type: ignore[has-type]
            super().schedule()  # later calls: leftovers of a crashed worker, new workers
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        collection: list[str] = next(iter(self.node2collection.values()))
        self.collection = collection
        self.pending[:] = range(len(collection))
        if self.maxschedchunk is None:  # type: ignore[has-type]
            self.maxschedchunk = len(collection)
        # Block k goes to worker gw<k>, so each worker can tell its share by itself.
        nodes = sorted(self.nodes, key=lambda node: worker_number(node.gateway.id))
        for node, block in zip(nodes, split_by_task(collection, len(nodes)), strict=False):
            self._send_block(node, block)
        if not self.pending:
            for node in nodes:
                node.shutdown()

    def _send_block(self, node: Any, block: list[int]) -> None:
        chosen = set(block)
        self.pending[:] = [i for i in self.pending if i not in chosen]
        self.node2pending[node].extend(block)
        node.send_runtest_some(block)

"""The fork server (pytest_codeif/sandbox/fork_server.py): runs that follow each other in
one warmed sandbox never see or touch each other, the server, or the host; a crashed,
stopped or killed run never harms the next one; a server that dies is replaced, and the
run it failed is run again on the one-process path."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.functional_pool import FunctionalPool
from pytest_codeif.outcome import FunctionalOutcome
from pytest_codeif.sandbox.fork_server import ForkServer, ServerFailed
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.sandbox.process import Limits
from pytest_codeif.taskfile.model import Task
from pytest_codeif.taskfile.parse import parse_task_file
from pytest_codeif.taskfile.yamlload import load_task_yaml
from tests.conftest import FIXTURES
from tests.test_hostile import processes_with

ISOLATION = choose_isolation("auto")
pytestmark = pytest.mark.skipif(not ISOLATION.forks, reason="no fork server here (bubblewrap)")


def load_tasks(folder: Path, tasks: list[dict]) -> list[Task]:
    path = folder / "t.codeif.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks}, width=10**6))
    return list(parse_task_file(load_task_yaml(path), builtin_registry()).tasks)


@pytest.fixture
def one_server(tmp_path: Path) -> Iterator[FunctionalPool]:
    """A pool of one thread, so one fork server runs every task in turn."""
    engine = Engine(tmp_path, tmp_path / "work", ISOLATION, pool_size=1)
    pool = engine.runs.pool
    yield pool
    engine.close()


def run_in_turn(pool: FunctionalPool, tasks: list[Task]) -> dict[str, FunctionalOutcome]:
    for task in tasks:
        pool.plan(task)
    return {task.id: pool.outcome(task) for task in tasks}


def first_message(outcome: FunctionalOutcome) -> str:
    return outcome.cases[0].message


def test_runs_in_turn_leave_nothing_to_the_next(tmp_path: Path, one_server: FunctionalPool) -> None:
    marker = f"codeif-marker-{uuid.uuid4().hex}"
    text = (FIXTURES / "hostile" / "fork_server.codeif.yaml.in").read_text()
    corpus = yaml.safe_load(text.replace("@MARKER@", marker))["tasks"]
    canary = next(t for t in corpus if t["id"] == "canary")
    in_turn = [canary]
    for task in corpus:
        if task is not canary:
            in_turn += [task, {**canary, "id": f"canary-after-{task['id']}"}]
    try:
        outcomes = run_in_turn(one_server, load_tasks(tmp_path, in_turn))
    finally:
        left = processes_with(marker)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    assert left == []
    statuses = {task: outcome.verdict.status for task, outcome in outcomes.items()}
    canaries = {task: first_message(outcomes[task]) for task in statuses if "canary" in task}
    assert canaries == dict.fromkeys(canaries, "")  # each found a fresh sandbox, and passed
    assert {task: s for task, s in statuses.items() if "canary" not in task} == {
        "writes-server-descriptors": "violated",
        "leaves-a-process": "violated",
        "poisons-shared-state": "error",  # its patched json garbled the results
        "writes-a-secret": "violated",
        "plants-outside-tmp": "violated",
        "reads-another-runs-files": "violated",
        "signals-the-init": "violated",
        "segfaults": "error",
        "stops-itself": "error",
    }
    assert first_message(outcomes["writes-server-descriptors"]) == "expected 42, got []"
    assert first_message(outcomes["reads-another-runs-files"]) == "expected 42, got []"
    assert first_message(outcomes["plants-outside-tmp"]) == "expected 42, got []"
    assert "exit code 139" in first_message(outcomes["segfaults"])  # 128 + SIGSEGV
    assert outcomes["stops-itself"].verdict.error_kind == "timeout"
    servers = one_server.servers
    assert servers is not None
    # One server ran every task: none was restarted, none fell back to a fresh process.
    assert (servers.served, servers.failures) == (len(in_turn), [])
    assert [server.starts for server in servers.servers] == [1]


def test_a_server_that_dies_is_replaced_and_its_run_is_run_again(
    tmp_path: Path, one_server: FunctionalPool
) -> None:
    code = "def answer():\n    return 42\n"
    tasks = load_tasks(
        tmp_path,
        [
            {"id": f"t{i}", "code": code, "tests": [{"call": "answer()", "expect": 42}]}
            for i in (1, 2, 3)
        ],
    )
    assert one_server.outcome(tasks[0]).verdict.status == "satisfied"
    servers = one_server.servers
    assert servers is not None
    (server,) = servers.servers
    assert server.pid is not None
    os.killpg(server.pid, signal.SIGKILL)  # the server's whole sandbox dies
    assert one_server.outcome(tasks[1]).verdict.status == "satisfied"  # the one-process path
    assert len(servers.failures) == 1
    assert one_server.outcome(tasks[2]).verdict.status == "satisfied"  # a new server
    assert server.starts == 2
    assert servers.served == 2


def test_what_a_run_imports_is_its_own(tmp_path: Path, one_server: FunctionalPool) -> None:
    """The server never imports the code: each run imports it afresh, and what it
    changes at import (here, an attribute of `sys`) is gone for the next run."""
    shadow = "import sys\nRUNS = getattr(sys, 'codeif_runs', 0) + 1\nsys.codeif_runs = RUNS\n"
    tasks = load_tasks(
        tmp_path,
        [
            {
                "id": f"shadow-{i}",
                "code": shadow + "def answer():\n    return RUNS\n",
                "tests": [{"call": "answer()", "expect": 1}],
            }
            for i in (1, 2)
        ],
    )
    outcomes = run_in_turn(one_server, tasks)
    assert [o.verdict.status for o in outcomes.values()] == ["satisfied", "satisfied"]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_the_process_backend_has_no_server(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work", choose_isolation("process"), pool_size=1)
    pool = engine.runs.pool
    task = load_tasks(
        tmp_path, [{"id": "t", "code": "x = 1\n", "tests": [{"call": "x", "expect": 1}]}]
    )[0]
    try:
        assert pool.outcome(task).verdict.status == "satisfied"
        assert pool.servers is None
    finally:
        engine.close()


def test_a_server_that_cannot_start_leaves_no_socket_behind(tmp_path: Path) -> None:
    """A fork server whose command cannot start (here: no such program) is a start
    failure, and its end of the control socket is closed at once: left to the garbage
    collector, it warned (ResourceWarning) inside whatever item ran then, which
    `-W error` made that item's error (seen in CI as a random invalid task's teardown)."""

    class NoProgram:
        """An isolation whose server command names a program that does not exist."""

        as_nobody = False

        def server_command(self, argv: list[str], shared: Path, env: dict[str, str]) -> list[str]:
            return [str(tmp_path / "no-such-sandbox"), *argv]

    server = ForkServer(NoProgram(), tmp_path, tmp_path / "server.log")  # type: ignore[arg-type]
    unraisable: list[str] = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda found: unraisable.append(repr(found.object))
    try:
        with pytest.raises(ServerFailed) as failed:
            server.run(["x.py"], tmp_path / "code", tmp_path / "io", Limits(), files={})
        at_start = failed.value.at_start
        del server, failed  # the exception's frames held the socket too
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert at_start
    assert unraisable == []

"""The hostile corpus (fixtures/hostile): every program ends failed or error, and the
host is untouched: canary files, no process left behind, no connection made."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.taskfile.parse import parse_task_file
from pytest_codeif.taskfile.yamlload import load_task_yaml
from tests.conftest import FIXTURES

HOSTILE = FIXTURES / "hostile"
IS_ROOT = os.geteuid() == 0
BWRAP = choose_isolation("auto").name == "bubblewrap"
FORKS = choose_isolation("auto").forks


@dataclass
class Host:
    marker: str
    canary: Path
    keep: Path
    listener: socket.socket
    unix: socket.socket


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def host(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    outside = Path(tempfile.mkdtemp(prefix="codeif-host-"))  # short: unix socket paths
    canary, keep = outside / "canary.txt", outside / "keep.txt"
    canary.write_text("original")
    keep.write_text("keep")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(outside / "s.sock"))
    unix.listen()
    unix.setblocking(False)
    marker = f"codeif-marker-{uuid.uuid4().hex}"
    text = (HOSTILE / "hostile.codeif.yaml.in").read_text()
    for key, value in {
        "@MARKER@": marker,
        "@CANARY@": str(canary),
        "@CANARY_GONE@": str(keep),
        "@PORT@": str(listener.getsockname()[1]),
        "@SOCKET@": str(outside / "s.sock"),
    }.items():
        text = text.replace(key, value)
    (pytester.path / "hostile.codeif.yaml").write_text(text)
    shutil.copyfile(HOSTILE / "answer_checks.py", pytester.path / "answer_checks.py")
    monkeypatch.setenv("CODEIF_TEST_SECRET", "hunter2")
    yield Host(marker, canary, keep, listener, unix)
    for pid in processes_with(marker):  # never leave a stray process on the machine
        os.kill(pid, 9)
    listener.close()
    unix.close()
    shutil.rmtree(outside, ignore_errors=True)


def run(pytester: pytest.Pytester, backend: str, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest(
        "--codeif", f"--codeif-sandbox={backend}", "-rA", "--codeif-report=r.json", *args
    )
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = {
        task["id"]: task["functional"]["status"] for task in report["tasks"] if task["functional"]
    }
    return result, outcomes


def assert_host_untouched(host: Host) -> None:
    assert host.canary.read_text() == "original"
    assert host.keep.read_text() == "keep"
    assert not Path(f"{host.canary}.new").exists()
    with pytest.raises(BlockingIOError):
        host.listener.accept()
    with pytest.raises(BlockingIOError):
        host.unix.accept()
    assert subprocess.run(["true"], check=False).returncode == 0  # the machine can fork


@pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
def test_bubblewrap_contains_everything(pytester: pytest.Pytester, host: Host) -> None:
    result, outcomes = run(pytester, "bubblewrap")
    assert outcomes.pop("stdin-reader") == "satisfied"  # stdin is at end-of-file
    assert outcomes == {
        "fork-bomb": "error",
        "memory-bomb": "violated",
        "sleeper": "error",
        "escaping-grandchild": "violated",
        "disk-filler": "violated",
        "output-flood": "violated",
        "network-probe": "violated",
        "host-file-writer": "violated",
        "env-reader": "violated",
        "patches-pytest": "violated",
    }
    result.stdout.fnmatch_lines(
        [
            "codeif: sandbox: bubblewrap*",
            "*(timeout): answer(): timed out after 3 s*",
            "*answer(): expected 42, but it raised MemoryError*",
            "*answer(): expected 10000, got 'stopped after * files: *'",
            "*tcp(): expected 'connected', got 'blocked: *",
            "*unix(): expected 'connected', got 'blocked: *",
            "*secret(): expected 'hunter2', got None",
            "*answer_checks.py::test_answer: error: pytest's machinery was modified*",
        ],
        consecutive=False,
    )
    assert processes_with(host.marker) == []
    assert_host_untouched(host)


@pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
@pytest.mark.parametrize("fork_servers", [True, False], ids=["fork-server", "one-process"])
def test_each_path_contains_everything(
    pytester: pytest.Pytester, host: Host, fork_servers: bool
) -> None:
    """The corpus again, every task in turn on one pool thread: on one fork server (the
    pytest run above spreads them over several), and on the one-process path that is the
    server's fallback. The same outcomes; on the server, no run needed a fresh process."""
    if fork_servers and not FORKS:
        pytest.skip("no fork server here (pidfd_open)")
    path = pytester.path / "hostile.codeif.yaml"
    tasks = parse_task_file(load_task_yaml(path), builtin_registry()).tasks
    engine = Engine(
        pytester.path,
        pytester.path / "work",
        choose_isolation("bubblewrap"),
        pool_size=1,
        fork_servers=fork_servers,
    )
    pool = engine.runs.pool
    try:
        for task in tasks:
            pool.plan(task)
        outcomes = {task.id: pool.outcome(task).verdict.status for task in tasks}
    finally:
        engine.close()
    assert outcomes == {
        "fork-bomb": "error",
        "memory-bomb": "violated",
        "sleeper": "error",
        "escaping-grandchild": "violated",
        "disk-filler": "violated",
        "output-flood": "violated",
        "network-probe": "violated",
        "host-file-writer": "violated",
        "env-reader": "violated",
        "stdin-reader": "satisfied",
        "patches-pytest": "violated",
    }
    servers = pool.servers
    if fork_servers:
        assert servers is not None
        assert (servers.served, servers.failures) == (len(tasks), [])
        assert [server.starts for server in servers.servers] == [1]
    else:
        assert servers is None
    assert processes_with(host.marker) == []
    assert_host_untouched(host)


def test_process_backend_keeps_its_promises_and_names_the_rest(
    pytester: pytest.Pytester, host: Host
) -> None:
    contained = "sleeper or memory-bomb or output-flood or env-reader or stdin-reader or patches"
    result, outcomes = run(pytester, "process", "-k", contained)
    assert outcomes == {
        "sleeper": "error",
        "memory-bomb": "violated",
        "output-flood": "violated",
        "env-reader": "violated",
        "stdin-reader": "satisfied",
        "patches-pytest": "violated",
    }
    result.stdout.fnmatch_lines(
        ["codeif: sandbox: process group + rlimits (*); not in force: no network isolation;*"]
    )
    assert_host_untouched(host)


def test_planted_configs_and_suppressions_change_nothing(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES / "planted", pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest("--codeif", "-rA", "--codeif-report=r.json")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*project/pkg/core.py:1: [[]F401[]] `os` imported but unused",
            "note: project/pkg/core.py:1: `# noqa` disregarded by ruff (suppressions are not*",
            "*project/pkg/core.py:5: [[]return-value[]] Incompatible return value type*",
            "note: project/pkg/core.py:5: `# type: ignore` disregarded by mypy*",
            "*half_checks.py::test_half: failed: *",
        ],
        consecutive=False,
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {c["constraint"]: c for c in report["tasks"][0]["constraints"]}
    assert by_id["mypy-allowing-ignores"]["status"] == "satisfied"
    assert by_id["ruff"]["notes"] and by_id["mypy"]["notes"]


SLEEPER = """
tasks:
  - id: outlive-pytest
    timeout: 60
    code: |
      import subprocess, sys, time
      CHILD = "import os, time; os.setsid(); time.sleep(120)  # MARKER"
      def answer():
          subprocess.Popen([sys.executable, "-c", CHILD])
          time.sleep(120)
    tests:
      - {call: answer(), expect: 42}
"""


@pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
def test_nothing_survives_a_killed_pytest(pytester: pytest.Pytester) -> None:
    import sys
    import time

    marker = f"codeif-marker-{uuid.uuid4().hex}"
    pytester.makefile(".codeif.yaml", t=SLEEPER.replace("MARKER", marker))
    log = pytester.path / "pytest.log"
    with log.open("wb") as out:
        pytest_proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"],
            cwd=pytester.path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while not processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_with(marker), f"the grandchild never started:\n{log.read_text()}"
        time.sleep(0.5)
        assert processes_with(marker), "the grandchild did not stay up: the test proves nothing"
    finally:
        pytest_proc.kill()
        pytest_proc.wait()
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes_with(marker)
    for pid in left:
        os.kill(pid, 9)
    assert left == []

"""The hostile corpus in JavaScript (fixtures/node/hostile): every program ends failed or
error, every forged result is caught as what it is, the honest tasks beside them pass,
and the host is untouched: canary files, no process left behind, no connection made.
Node.js runs only under bubblewrap here: hostile code never runs on the process backend."""

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

HOSTILE = FIXTURES / "node" / "hostile"
BWRAP = choose_isolation("auto").name == "bubblewrap"
FORKS = choose_isolation("auto").forks
pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="Node.js (`node`) is not installed"),
    pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here (hostile code needs it)"),
]

#: Every task of hostile.codeif.yaml.in: its functional status and error kind.
HOSTILE_OUTCOMES = {
    "honest-calls": ("satisfied", None),
    "honest-despite-stray-errors": ("satisfied", None),
    "fork-bomb": ("error", "timeout"),
    "memory-bomb": ("violated", None),
    "buffer-bomb": ("violated", None),
    "sleeper": ("error", "timeout"),
    "never-settles": ("error", "timeout"),
    "escaping-grandchild": ("violated", None),
    "disk-filler": ("violated", None),
    "output-flood": ("violated", None),
    "network-probe": ("violated", None),
    "host-file-writer": ("violated", None),
    "env-reader": ("violated", None),
    "stdin-reader": ("satisfied", None),
    "reads-the-supervisor": ("violated", None),
    "finds-the-request": ("violated", None),
}

#: Every task of forged_results.codeif.yaml: each forgery caught, as what it is.
FORGED_OUTCOMES = {
    "value-then-exit": ("error", "protocol"),
    "success-then-spin": ("error", "timeout"),
    "other-processes-descriptors": ("violated", None),
    "exit-hook-and-child-append": ("violated", None),
    "patched-json": ("violated", None),
    "patched-prototypes": ("violated", None),
    "patched-promise": ("violated", None),
    "patched-then": ("violated", None),
    "patched-io": ("violated", None),
    "deep-record": ("error", "protocol"),
    "flood": ("error", "protocol"),
    "own-type-error": ("violated", None),
    "proxy-faking-its-class": ("violated", None),
    "throws-no-error": ("violated", None),
    "exits-mid-case": ("error", "crash"),
    "interrupts-the-supervisor": ("violated", None),
    "unencodable-values": ("violated", None),
    "colliding-map-keys": ("error", "protocol"),
}


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
        "@CANARY_GONE@": str(keep),
        "@CANARY@": str(canary),
        "@PORT@": str(listener.getsockname()[1]),
        "@SOCKET@": str(outside / "s.sock"),
    }.items():
        text = text.replace(key, value)
    (pytester.path / "hostile.codeif.yaml").write_text(text)
    monkeypatch.setenv("CODEIF_TEST_SECRET", "hunter2")
    yield Host(marker, canary, keep, listener, unix)
    for pid in processes_with(marker):  # never leave a stray process on the machine
        os.kill(pid, 9)
    listener.close()
    unix.close()
    shutil.rmtree(outside, ignore_errors=True)


def assert_host_untouched(host: Host) -> None:
    assert host.canary.read_text() == "original"
    assert host.keep.read_text() == "keep"
    assert not Path(f"{host.canary}.new").exists()
    with pytest.raises(BlockingIOError):
        host.listener.accept()
    with pytest.raises(BlockingIOError):
        host.unix.accept()
    assert subprocess.run(["true"], check=False).returncode == 0  # the machine can fork


def outcomes_of(report: dict) -> dict[str, tuple[str, str | None]]:
    return {
        task["id"]: (task["functional"]["status"], task["functional"].get("error_kind"))
        for task in report["tasks"]
    }


def test_bubblewrap_contains_every_program_and_catches_every_forgery(
    pytester: pytest.Pytester, host: Host
) -> None:
    shutil.copyfile(HOSTILE / "forged_results.codeif.yaml", pytester.path / "forged.codeif.yaml")
    result = pytester.runpytest(
        "--codeif", "--codeif-sandbox=bubblewrap", "-rA", "--codeif-report=r.json"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert outcomes_of(report) == {**HOSTILE_OUTCOMES, **FORGED_OUTCOMES}
    for line in (  # each said somewhere (the order of the sections is pytest's)
        "codeif: sandbox: bubblewrap*",
        "*answer(): it ran out of memory (JavaScript heap out of memory)*",
        "*answer(): expected 42, but it threw RangeError: Array buffer allocation failed*",
        "*(timeout): answer(): timed out after 2 s before this case reported a result*",
        '*answer(): expected 10000, got "stopped after * files: ENOSPC"*',
        '*tcp(): expected "connected", got "blocked: ECONNREFUSED"*',
        '*unix(): expected "connected", got "blocked: ENOENT"*',
        '*secret(): expected "hunter2", got null*',
        "*(protocol): answer(): protocol: the code wrote to the harness's pipe while it*",
        "*check('a'): expected TypeError, but it threw solution.TypeError: not a number*",
        "*check('a'): expected TypeError, but it threw (a thrown Proxy)*",
        "*sneaky('a'): expected TypeError, but it threw (a Proxy)*",
        "*text(): expected TypeError, but it threw (a thrown string): TypeError*",
        "*(crash): quits(): the process ended (exit code 0) before this case reported*",
        "*big(): expected 1, but it returned a BigInt too large to compare*",
        '*circular(): expected {name: "loop"}, but it returned a value too large or deep*',
        "*proxied(): expected [[]42[]], but it returned a Proxy*",
    ):
        result.stdout.fnmatch_lines([line])
    # The flood's 8 MB message and 20,000 records reach neither the terminal nor the report.
    assert len(result.stdout.str()) < 200_000
    assert (pytester.path / "r.json").stat().st_size < 300_000
    assert processes_with(host.marker) == []
    assert_host_untouched(host)


@pytest.mark.parametrize("fork_servers", [True, False], ids=["fork-server", "one-process"])
def test_each_path_contains_everything(
    pytester: pytest.Pytester, host: Host, fork_servers: bool
) -> None:
    """The hostile corpus again, every task in turn on one pool thread: on one fork server,
    and on the one-process path that is the server's fallback. The same outcomes; on the
    server, no run needed a fresh process."""
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
        outcomes = {
            task.id: (verdict.status, verdict.error_kind)
            for task in tasks
            for verdict in [pool.outcome(task).verdict]
        }
    finally:
        engine.close()
    assert outcomes == HOSTILE_OUTCOMES
    servers = pool.servers
    if fork_servers:
        assert servers is not None
        assert (servers.served, servers.failures) == (len(tasks), [])
        assert [server.starts for server in servers.servers] == [1]
    else:
        assert servers is None
    assert processes_with(host.marker) == []
    assert_host_untouched(host)

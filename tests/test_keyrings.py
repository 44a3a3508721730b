"""Per-uid kernel state cannot carry over between runs: the seccomp filter every run gets
(pytest_codeif/sandbox/seccomp.py) refuses the kernel keyrings, on the fork server and on
the one-process path; and the filter's other set, `processes`, for harnesses that run
inside the sandbox and load seccomp.py by path."""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import yaml

from pytest_codeif.engine.engine import Engine
from pytest_codeif.sandbox import seccomp
from pytest_codeif.sandbox.inside import DENIED, run_filter
from pytest_codeif.sandbox.isolation import UID_BLOCK, choose_isolation
from tests.conftest import FIXTURES
from tests.test_fork_server import load_tasks, run_in_turn

ISOLATION = choose_isolation("auto")
SECCOMP = Path(seccomp.__file__)
pytestmark = pytest.mark.skipif(not seccomp.supported(), reason="no seccomp filter here")


def block_keys() -> int:
    """Keys the kernel holds for the uids of this process's block (/proc/key-users)."""
    total = 0
    for line in Path("/proc/key-users").read_text().splitlines():
        uid, _, counts = line.partition(":")
        if ISOLATION.uid <= int(uid) < ISOLATION.uid + UID_BLOCK:
            total += int(counts.split()[1].split("/")[0])
    return total


@pytest.mark.parametrize("fork_servers", [True, False], ids=["fork-server", "one-process"])
def test_no_key_outlives_its_run(tmp_path: Path, fork_servers: bool) -> None:
    """A key written to the uid's keyring by one run, then looked for by the next: both
    refused, and the kernel holds no key for the block's uids afterwards."""
    if fork_servers and not ISOLATION.forks:
        pytest.skip("no fork server here (bubblewrap)")
    marker = f"codeif-key-{uuid.uuid4().hex}"
    text = (FIXTURES / "hostile" / "keyrings.codeif.yaml.in").read_text()
    corpus = yaml.safe_load(text.replace("@MARKER@", marker))
    before = block_keys() if ISOLATION.as_nobody else 0
    engine = Engine(tmp_path, tmp_path / "work", ISOLATION, pool_size=1, fork_servers=fork_servers)
    pool = engine.runs.pool
    try:
        outcomes = run_in_turn(pool, load_tasks(tmp_path, corpus["tasks"]))
    finally:
        engine.close()
    messages = {task: outcome.cases[0].message for task, outcome in outcomes.items()}
    assert messages == {
        "keyring-writer": "expected 42, got 'EPERM'",
        "keyring-reader": "expected 42, got ['keyctl: EPERM', 'request_key: EPERM']",
    }
    if ISOLATION.as_nobody:
        assert block_keys() == before
    assert marker not in Path("/proc/keys").read_text()
    servers = pool.servers
    if fork_servers:
        assert servers is not None
        assert (servers.served, servers.failures) == (2, [])


def test_every_run_is_denied_the_keyrings() -> None:
    assert DENIED == (seccomp.KEYRINGS,)
    denied = run_filter()
    assert denied is not None
    assert denied is run_filter()  # built once: the fork server's runs only install it
    assert denied.code == seccomp.program([seccomp.KEYRINGS])


PROBE = """
import ctypes, errno, json, os, subprocess, sys, threading
from importlib.machinery import SourceFileLoader
from types import ModuleType

assert "pytest_codeif" not in sys.modules
seccomp = ModuleType("_seccomp")
SourceFileLoader("_seccomp", sys.argv[1]).exec_module(seccomp)
seccomp.install(sys.argv[2:])
libc = ctypes.CDLL(None, use_errno=True)
seen = {}
def attempt(name, call):
    try:
        call()
        seen[name] = "ok"
    except OSError as exc:
        seen[name] = errno.errorcode[exc.errno]
def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
attempt("fork", fork)
attempt("subprocess", lambda: subprocess.run(["true"], check=True))
ran = []
thread = threading.Thread(target=lambda: ran.append(1))
thread.start()
thread.join()
seen["thread"] = "ok" if ran else "no"
key = libc.syscall(seccomp._NUMBERS[seccomp._MACHINES[os.uname().machine]]["keyctl"], 9999, 0, 0)
seen["keyctl"] = "ok" if key >= 0 else errno.errorcode[ctypes.get_errno()]
clone3 = libc.syscall(435, None, 0)
seen["clone3"] = errno.errorcode[ctypes.get_errno()] if clone3 < 0 else "ok"
print(json.dumps(seen))
"""


def probe(*sets: str) -> dict[str, str]:
    """What a `python -S` interpreter (no package on its path) can do once seccomp.py,
    loaded by path, installed `sets`."""
    done = subprocess.run(
        [sys.executable, "-S", "-s", "-P", "-c", PROBE, str(SECCOMP), *sets],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    seen: dict[str, str] = json.loads(done.stdout)
    return seen


def test_the_processes_set_allows_threads_only() -> None:
    assert probe(seccomp.PROCESSES) == {
        "fork": "EPERM",
        "subprocess": "EPERM",
        "thread": "ok",  # clone3 fails with ENOSYS, and glibc's fallback clone is allowed
        "keyctl": "ENOTSUP",  # keyrings allowed (an operation that does not exist)
        "clone3": "ENOSYS",
    }


def test_sets_combine() -> None:
    seen = probe(seccomp.KEYRINGS, seccomp.PROCESSES)
    assert (seen["fork"], seen["thread"], seen["keyctl"]) == ("EPERM", "ok", "EPERM")
    assert probe(seccomp.KEYRINGS)["fork"] == "ok"


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x32 is an x86_64 ABI")
def test_another_abi_kills_the_process() -> None:
    """x32's system calls (numbers with bit 30 set) bypass numbers the filter knows: a
    process making one is killed (SIGSYS), never let through."""
    code = (
        "import ctypes, importlib.machinery as m, sys, types; s = types.ModuleType('s'); "
        "m.SourceFileLoader('s', sys.argv[1]).exec_module(s); s.install(['keyrings']); "
        "ctypes.CDLL(None).syscall(0x40000000 | 39); print('survived')"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, str(SECCOMP)], capture_output=True, check=False
    )
    assert (done.returncode, done.stdout) == (-signal.SIGSYS, b"")


def test_an_unknown_set_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown system call sets: \\['nope'\\]"):
        seccomp.program(["nope"])


def test_the_program_ends_every_path() -> None:
    """Each instruction is 8 bytes and the last returns (the kernel checks the rest)."""
    code = seccomp.program(seccomp.SETS)
    assert len(code) % 8 == 0
    assert code[-8:-6] == (0x06).to_bytes(2, "little")
    assert os.uname().machine in ("x86_64", "aarch64")

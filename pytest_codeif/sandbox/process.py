"""The one place where code under evaluation is started as a process.

Every run: the isolation backend's wrapping (see `isolation.py`), a new session killed as
a whole (with its pid namespace, under bubblewrap) on timeout and after exit, rlimits on
CPU time, address space, file size, processes and core dumps, stdin from a given file or at
end-of-file, `python -s -P` in a scrubbed environment, output read only up to a cap, and
results passed back through an inherited file descriptor to a file outside the sandbox.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from pytest_codeif.sandbox.isolation import UID_BLOCK, Isolation, processes_of

MIB: Final = 1024 * 1024
#: Processes a run may add (a fork bomb stops here; the machine can still fork).
PROCESS_MARGIN: Final = 64
_PR_SET_PDEATHSIG: Final = 1
# Resolved once, in the parent: dlopen in a forked child could wait on a loader lock.
_PRCTL = ctypes.CDLL(None).prctl if sys.platform.startswith("linux") else None
#: Extra seconds the timeout allows for the sandbox and the interpreter to start.
STARTUP_SECONDS: Final = 1.0


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed run."""

    timeout: float = 10.0
    memory_bytes: int = 1024 * MIB  # per process (address space)
    file_bytes: int = 16 * MIB  # per written file, output and results included
    output_bytes: int = 1 * MIB  # read back from stdout and stderr each


@dataclass(frozen=True)
class RunResult:
    """How a sandboxed run ended, what it printed (cut), and its result channel."""

    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str
    channel: str  # what the harness wrote to its result descriptor


def scrubbed_env() -> dict[str, str]:
    """An environment with nothing of the host's but what Python needs to start."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
    }


def _own_process_count() -> int:
    """Processes of this uid now (RLIMIT_NPROC counts per uid, not per run)."""
    return len(processes_of(os.getuid()))


class _UidSlots:
    """The uids of this process's block, handed to one run at a time (thread-safe)."""

    def __init__(self) -> None:
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._base: int | None = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def take(self, isolation: Isolation) -> Iterator[int]:
        with self._lock:
            if self._base != isolation.uid:
                self._base = isolation.uid
                self._free = queue.SimpleQueue()
                for uid in range(isolation.uid, isolation.uid + UID_BLOCK):
                    self._free.put(uid)
        uid = self._free.get()
        try:
            yield uid
        finally:
            _reap_uid(uid)  # the next run as this uid starts with a clean slate
            self._free.put(uid)


_SLOTS = _UidSlots()


def _rlimits(limits: Limits, isolation: Isolation) -> list[tuple[int, int]]:
    """(resource, limit) pairs, computed in the parent so that the child only calls
    setrlimit: runs start from several threads, and code between fork and exec must not
    take a lock another thread may have held at fork time."""
    cpu = max(1, int(limits.timeout + STARTUP_SECONDS) + 1)
    nproc = PROCESS_MARGIN if isolation.as_nobody else _own_process_count() + PROCESS_MARGIN
    return [
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_NPROC, nproc),
    ]


def _limiter(pairs: list[tuple[int, int]]) -> None:
    """Runs in the child between fork and exec: set rlimits, die with the parent."""
    for which, value in pairs:
        resource.setrlimit(which, (value, value))
    if _PRCTL is not None:
        # Ask Linux to SIGKILL this process when pytest dies (bwrap does the same for
        # its whole namespace with --die-with-parent).
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)


def run_python(
    args: Sequence[str],
    code_dir: Path,
    io_dir: Path,
    limits: Limits,
    isolation: Isolation,
    *,
    env: Mapping[str, str] | None = None,
    stdin: Path | None = None,
) -> RunResult:
    """Run `python -s -P ARGS` sandboxed; `{channel}` in ARGS becomes the result fd number.

    `code_dir` is readable inside; `io_dir` (host only) receives stdout, stderr and the
    result channel; `stdin` is a file fed to the process (else end-of-file).
    """
    scratch = io_dir / "scratch"
    scratch.mkdir(exist_ok=True)
    paths = {name: io_dir / name for name in ("stdout", "stderr", "channel")}
    with contextlib.ExitStack() as stack:
        uid = stack.enter_context(_SLOTS.take(isolation)) if isolation.as_nobody else None
        files: dict[str, IO[bytes]] = {
            n: stack.enter_context(p.open("wb")) for n, p in paths.items()
        }
        source = stack.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        channel = files["channel"].fileno()
        pairs = _rlimits(limits, isolation)
        # `-s -P` (no user site, no script folder on the path), not `-I`: `-I` also
        # ignores every PYTHON* variable, PYTHONHASHSEED=0 among them, and a set of
        # strings then came back in another order from run to run. The environment is
        # ours entirely (`scrubbed_env`), so no variable of the host's gets through.
        flags = ["-s", "-P"]
        argv = [sys.executable, *flags, *(a.replace("{channel}", str(channel)) for a in args)]
        cmd, cwd, run_env = isolation.wrap(
            argv, code_dir, scratch, {**scrubbed_env(), **(env or {})}, uid
        )
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=run_env,
            stdin=source,
            stdout=files["stdout"],
            stderr=files["stderr"],
            pass_fds=(channel,),
            start_new_session=True,
            # rlimits must be set in the child before exec; it only calls setrlimit.
            preexec_fn=lambda: _limiter(pairs),  # noqa: PLW1509
        )
        timed_out = False
        try:
            proc.wait(timeout=limits.timeout + STARTUP_SECONDS)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)
            proc.wait()
    return RunResult(
        None if timed_out else proc.returncode,
        timed_out,
        _head(paths["stdout"], limits.output_bytes),
        _head(paths["stderr"], limits.output_bytes),
        _head(paths["channel"], limits.file_bytes),
    )


def _reap_uid(uid: int, patience: float = 5.0) -> None:
    """Wait until no process of the sandbox uid is left, killing stragglers: bwrap's pid
    namespace dies asynchronously, and the next run must start with a clean slate."""
    deadline = time.monotonic() + patience
    while True:
        left = processes_of(uid)
        if not left:
            return
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _kill_group(pid: int) -> None:
    # The child leads its own session: killing the group takes its children with it
    # (under bubblewrap, killing its pid-namespace init takes every process inside).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _head(path: Path, limit: int) -> str:
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    text = data[:limit].decode("utf-8", "replace")
    return text + ("\n[output cut]" if len(data) > limit else "")

"""The one place where code under evaluation is started as a process (one per run; the
fork server of `fork_server.py` is the fast path that falls back to this one).

Every run: the isolation backend's wrapping (see `isolation.py`), a new session killed as
a whole (with its pid namespace, under bubblewrap) on timeout and after exit, rlimits on
CPU time, address space, file size, processes and core dumps, stdin from a given file or
bytes or at end-of-file, `python -S -s -P inside.py launch` in a scrubbed environment
(`startup.py`: the rlimits are set there, before anything of the code is imported, so
that `Popen` needs no `preexec_fn` and can use vfork), output read only up to a cap, and
results passed back through an inherited file descriptor to a file in memory outside the
sandbox (`streams.py`). The end of a run is waited for on a pidfd (`wait.py`), never
polled.
"""

from __future__ import annotations

import contextlib
import os
import queue
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_codeif.sandbox.isolation import UID_BLOCK, Isolation, processes_of
from pytest_codeif.sandbox.startup import interpreter_spec, launch_argv
from pytest_codeif.sandbox.streams import RunFiles
from pytest_codeif.sandbox.wait import kill_group, wait_process

MIB: Final = 1024 * 1024
#: Processes a run may add (a fork bomb stops here; the machine can still fork).
PROCESS_MARGIN: Final = 64
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
    #: CPU seconds the run's processes used, where known (a fork server's runs).
    cpu_seconds: float | None = None


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
    """The uids of this process's block, each handed to one run (or one fork server) at
    a time (thread-safe)."""

    def __init__(self) -> None:
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._base: int | None = None
        self._lock = threading.Lock()

    def acquire(self, isolation: Isolation) -> int:
        """A uid no other run of this process uses (waits for one)."""
        with self._lock:
            if self._base != isolation.uid:
                self._base = isolation.uid
                self._free = queue.SimpleQueue()
                for uid in range(isolation.uid, isolation.uid + UID_BLOCK):
                    self._free.put(uid)
        return self._free.get()

    def release(self, uid: int, *, reap: bool) -> None:
        """Give `uid` back, first killing whatever still runs as it when `reap`."""
        if reap:
            reap_uid(uid)  # the next run as this uid starts with a clean slate
        self._free.put(uid)

    @contextlib.contextmanager
    def take(self, isolation: Isolation) -> Iterator[_Taken]:
        taken = _Taken(self.acquire(isolation))
        try:
            yield taken
        finally:
            self.release(taken.uid, reap=taken.dirty)


@dataclass
class _Taken:
    uid: int
    #: Processes of the uid may be left (the run was killed): reap before reuse.
    dirty: bool = True


SLOTS: Final = _UidSlots()


def rlimits(limits: Limits, isolation: Isolation) -> list[tuple[int, int]]:
    """(resource, limit) pairs for one run."""
    cpu = max(1, int(limits.timeout + STARTUP_SECONDS) + 1)
    nproc = PROCESS_MARGIN if isolation.as_nobody else _own_process_count() + PROCESS_MARGIN
    return [
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_NPROC, nproc),
    ]


def run_python(
    args: Sequence[str],
    code_dir: Path,
    io_dir: Path,
    limits: Limits,
    isolation: Isolation,
    *,
    env: Mapping[str, str] | None = None,
    stdin: Path | bytes | None = None,
    on_slow: Callable[[], None] | None = None,
) -> RunResult:
    """Run `python ARGS` sandboxed; `{channel}` in ARGS becomes the result fd number.

    `code_dir` is readable inside; `io_dir` (host only) is the working directory of the
    `process` backend, and holds the run's outputs where memory files do not exist (see
    `streams.py`); `stdin` is a file or the bytes fed to the process (else end-of-file);
    `on_slow` is called once the run has lasted `wait.PATIENCE` seconds.
    """
    scratch = io_dir / "scratch"
    if isolation.name == "process":
        scratch.mkdir(parents=True, exist_ok=True)
    run_env = {**scrubbed_env(), **(env or {})}
    with contextlib.ExitStack() as stack:
        taken = stack.enter_context(SLOTS.take(isolation)) if isolation.as_nobody else None
        files = stack.enter_context(RunFiles(io_dir, stdin))
        channel = files.outputs["channel"]
        spec = {
            **interpreter_spec(scrubbed_env()),
            "limits": rlimits(limits, isolation),
            # bubblewrap kills its whole namespace when pytest dies (--die-with-parent);
            # a bare process asks Linux itself.
            "parent": os.getpid() if isolation.name == "process" else None,
        }
        inner = [a.replace("{channel}", str(channel)) for a in args]
        argv = launch_argv(spec, inner)
        uid = taken.uid if taken is not None else None
        cmd, cwd, wrapped_env = isolation.wrap(argv, code_dir, scratch, run_env, uid)
        # No preexec_fn: subprocess can then use vfork, whose cost does not grow with the
        # memory pytest holds.
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=wrapped_env,
            stdin=subprocess.DEVNULL if files.stdin is None else files.stdin,
            stdout=files.outputs["stdout"],
            stderr=files.outputs["stderr"],
            pass_fds=(channel,),
            start_new_session=True,
        )
        try:
            ended = wait_process(proc, limits.timeout + STARTUP_SECONDS, on_slow)
        finally:
            kill_group(proc.pid)
            proc.wait()
        if taken is not None:
            # A namespace that ended by itself is empty once bwrap has exited; one that
            # was killed may still be dying.
            taken.dirty = not ended
        return RunResult(
            proc.returncode if ended else None,
            not ended,
            files.head("stdout", limits.output_bytes),
            files.head("stderr", limits.output_bytes),
            files.head("channel", limits.file_bytes),
        )


def reap_uid(uid: int, patience: float = 5.0) -> None:
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

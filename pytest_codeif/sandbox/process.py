"""The one place where code under evaluation is started as a process.

Every run: the isolation backend's wrapping (see `isolation.py`), a new session killed as
a whole (with its pid namespace, under bubblewrap) on timeout and after exit, rlimits on
CPU time, address space, file size, processes and core dumps, stdin at end-of-file,
a scrubbed environment, output read only up to a cap, and results passed back through
an inherited file descriptor to a file outside the sandbox.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

from pytest_codeif.sandbox.isolation import Isolation, processes_of

MIB: Final = 1024 * 1024
#: Processes a run may add (a fork bomb stops here; the machine can still fork).
PROCESS_MARGIN: Final = 64
_PR_SET_PDEATHSIG: Final = 1
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
    seconds: float


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


def _limiter(limits: Limits, isolation: Isolation, channel: int) -> None:
    """Runs in the child between fork and exec: set rlimits, die with the parent."""
    cpu = max(1, int(limits.timeout + STARTUP_SECONDS) + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    nproc = PROCESS_MARGIN if isolation.as_nobody else _own_process_count() + PROCESS_MARGIN
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    os.set_inheritable(channel, True)
    _die_with_parent()


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when pytest dies (bwrap does the same for its
    whole namespace with --die-with-parent)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


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
    """Run `python -I ARGS` sandboxed; `{channel}` in ARGS becomes the result fd number.

    `code_dir` is readable inside; `io_dir` (host only) receives stdout, stderr and the
    result channel; `stdin` is a file fed to the process (else end-of-file).
    """
    scratch = io_dir / "scratch"
    scratch.mkdir(exist_ok=True)
    paths = {name: io_dir / name for name in ("stdout", "stderr", "channel")}
    start = time.monotonic()
    with contextlib.ExitStack() as stack:
        files: dict[str, IO[bytes]] = {
            n: stack.enter_context(p.open("wb")) for n, p in paths.items()
        }
        source = stack.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        channel = files["channel"].fileno()
        argv = [sys.executable, "-I", *(a.replace("{channel}", str(channel)) for a in args)]
        cmd, cwd, run_env = isolation.wrap(
            argv, code_dir, scratch, {**scrubbed_env(), **(env or {})}
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
            preexec_fn=lambda: _limiter(limits, isolation, channel),  # noqa: PLW1509
        )
        timed_out = False
        try:
            proc.wait(timeout=limits.timeout + STARTUP_SECONDS)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)
            proc.wait()
            if isolation.as_nobody:
                _reap_uid(isolation.uid)
    return RunResult(
        None if timed_out else proc.returncode,
        timed_out,
        _head(paths["stdout"], limits.output_bytes),
        _head(paths["stderr"], limits.output_bytes),
        _head(paths["channel"], limits.file_bytes),
        time.monotonic() - start,
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

"""The one place where code under evaluation is started as a process.

Today's containment: a new session (process group) killed as a whole on timeout and
after exit, rlimits on CPU time, address space, file size and core dumps, stdin at EOF,
a scrubbed environment, and output read only up to a cap. A stronger backend
(bubblewrap) plugs in here without touching the callers.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MIB: Final = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed process."""

    timeout: float = 10.0
    memory_bytes: int = 2048 * MIB
    file_bytes: int = 64 * MIB
    output_bytes: int = 1 * MIB


@dataclass(frozen=True)
class RunResult:
    """How a sandboxed process ended, and the start of what it printed."""

    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str
    seconds: float


def scrubbed_env() -> dict[str, str]:
    """An environment with nothing of the host's but what Python needs to start."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "HOME": "/nonexistent",
    }


def _limit(limits: Limits) -> None:
    """Runs in the child between fork and exec."""
    cpu = max(1, int(limits.timeout) + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_python(
    args: Sequence[str],
    cwd: Path,
    io_dir: Path,
    limits: Limits,
    env: Mapping[str, str] | None = None,
) -> RunResult:
    """Run `python -I ARGS` in `cwd`; output goes to files in `io_dir`, read up to a cap.

    `env` adds variables to the scrubbed environment (never the host's).
    """
    out_path, err_path = io_dir / "stdout", io_dir / "stderr"
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-I", *args],
            cwd=cwd,
            env={**scrubbed_env(), **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            # rlimits must be set in the child before exec; it only calls setrlimit.
            preexec_fn=lambda: _limit(limits),  # noqa: PLW1509
        )
        timed_out = False
        try:
            proc.wait(timeout=limits.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)
            proc.wait()
    return RunResult(
        None if timed_out else proc.returncode,
        timed_out,
        _head(out_path, limits.output_bytes),
        _head(err_path, limits.output_bytes),
        time.monotonic() - start,
    )


def _kill_group(pid: int) -> None:
    # The child leads its own session: killing the group takes its children with it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _head(path: Path, limit: int) -> str:
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    text = data[:limit].decode("utf-8", "replace")
    return text + ("\n[output cut]" if len(data) > limit else "")

"""The fast path of sandboxed runs: one warmed interpreter per pool slot, in a bubblewrap
sandbox of its own, forking a child per run (see `inside.py` for the server's side).

A run costs a few milliseconds instead of a new sandbox and a new interpreter. Each run
keeps the promises of the one-process path (`process.run_python`): its own uid, rlimits,
scratch tmpfs, pid namespace killed with all its descendants at the timeout, only its own
code folder mounted, descriptors received for the run alone. The server never imports
code under evaluation and cannot be reached from a run (another uid, another pid
namespace, none of its descriptors). A server that fails to answer in time, answers
nonsense or dies is killed, with every process of its uid, and started again; the run it
failed is run again on the one-process path, so a broken server never decides a verdict.

Servers exist only where they can keep those promises (`Isolation.forks`: under
bubblewrap). Elsewhere (the `process` backend), and for code outside the shared folder,
runs take the one-process path.

As root, each server's runs take a uid of this process's block (one uid per server, so
per run in flight); in a user namespace (pytest not root) they keep pytest's uid, as the
one-process path's runs do, and their own pid namespace is what keeps them from the
server and from each other.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pytest_codeif.sandbox.code_folder import EXECUTABLE_MODE, file_mode, write_folder
from pytest_codeif.sandbox.inside import MAX_MESSAGE, SETUP_FAILED
from pytest_codeif.sandbox.isolation import (
    SCRATCH_BYTES,
    SERVER_STASH,
    Isolation,
    python_dirs_in_tmp,
)
from pytest_codeif.sandbox.process import (
    SLOTS,
    STARTUP_SECONDS,
    Limits,
    RunResult,
    rlimits,
    run_python,
    scrubbed_env,
)
from pytest_codeif.sandbox.startup import interpreter_spec, serve_argv
from pytest_codeif.sandbox.streams import RunFiles
from pytest_codeif.sandbox.wait import kill_group, wait_process, wait_readable

#: Seconds a server may take to start, and to answer beyond a run's own timeout.
START_SECONDS: Final = 30.0
GRACE_SECONDS: Final = 5.0


class ServerFailed(Exception):
    """The server did not start (`at_start`), did not answer, or answered nonsense."""

    def __init__(self, message: str, *, at_start: bool = False) -> None:
        super().__init__(message)
        self.at_start = at_start


class ForkServer:
    """One server, used by one thread at a time."""

    def __init__(self, isolation: Isolation, shared: Path, log: Path) -> None:
        self.isolation = isolation
        self.shared = shared
        self.log = log
        self.uid: int | None = None
        #: Times this slot's server was started (more than once: it failed and restarted).
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None

    @property
    def pid(self) -> int | None:
        """The pid of the server's sandbox (bubblewrap), while it runs."""
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        self.starts += 1
        # As root, a uid of this process's block for the server's runs; in a user
        # namespace, pytest's own (the only one there is).
        self.uid = SLOTS.acquire(self.isolation) if self.isolation.as_nobody else os.getuid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Ours is the server's from here on, so that `close` closes it whatever fails
        # below: a socket left to the garbage collector warns (ResourceWarning) in
        # whatever code runs then, which `-W error` turns into another item's error.
        self._control = ours
        with theirs:
            env = scrubbed_env()
            spec = {
                **interpreter_spec(env),
                "control": theirs.fileno(),
                "shared": str(self.shared),
                "stash": SERVER_STASH,
                "tmp_binds": python_dirs_in_tmp(),
            }
            cmd = self.isolation.server_command(serve_argv(spec), self.shared, env)
            self.log.parent.mkdir(parents=True, exist_ok=True)
            with self.log.open("ab") as log:
                self._proc = subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    pass_fds=(theirs.fileno(),),
                    start_new_session=True,
                )
        reply = self._reply(START_SECONDS)
        if "ready" not in reply:
            raise ServerFailed(f"the fork server did not start: {reply}")

    def _reply(self, timeout: float, on_slow: Callable[[], None] | None = None) -> dict[str, Any]:
        control = self._control
        if control is None:
            raise ServerFailed("the fork server is not running")
        if not wait_readable(control.fileno(), timeout, on_slow):
            raise ServerFailed(f"the fork server did not answer within {timeout:g} s")
        data = control.recv(MAX_MESSAGE)
        if not data:
            raise ServerFailed(f"the fork server ended (see {self.log})")
        reply = json.loads(data)
        if not isinstance(reply, dict):
            raise ServerFailed(f"the fork server answered {reply!r}")
        return reply

    def run(
        self,
        args: Sequence[str],
        code_dir: Path,
        io_dir: Path,
        limits: Limits,
        *,
        files: Mapping[str, bytes],
        env: Mapping[str, str] | None = None,
        stdin: Path | bytes | None = None,
        on_slow: Callable[[], None] | None = None,
    ) -> RunResult:
        """Run `python ARGS` in a child of the server, with `files` (relative path ->
        content) as the code folder `code_dir`; raises ServerFailed (the server is then
        stopped, to be started again by the next run)."""
        if self._control is None:
            try:
                self._start()
            except (ServerFailed, OSError, ValueError) as exc:
                self.close()
                raise ServerFailed(str(exc), at_start=True) from exc
            except BaseException:
                self.close()  # its socket and process, whatever stopped the start
                raise
        try:
            return self._run(
                args,
                code_dir,
                io_dir,
                limits,
                files=files,
                env=env,
                stdin=stdin,
                on_slow=on_slow,
            )
        except (ServerFailed, OSError, ValueError) as exc:
            self.close()
            raise ServerFailed(str(exc)) from exc

    def _run(
        self,
        args: Sequence[str],
        code_dir: Path,
        io_dir: Path,
        limits: Limits,
        *,
        files: Mapping[str, bytes],
        env: Mapping[str, str] | None,
        stdin: Path | bytes | None,
        on_slow: Callable[[], None] | None,
    ) -> RunResult:
        control = self._control
        if control is None or self.uid is None:
            raise ServerFailed("the fork server is not running")
        timeout = limits.timeout + STARTUP_SECONDS
        request = {
            "argv": list(args),
            "env": {**scrubbed_env(), **(env or {})},
            "code": str(code_dir),
            "uid": self.uid,
            "limits": rlimits(limits, self.isolation),
            "timeout": timeout,
            "scratch_bytes": SCRATCH_BYTES,
            "stdin": stdin is not None,
        }
        with RunFiles(io_dir, stdin) as run_files, _code_blob(files) as blob:
            fds = [*run_files.fds(), blob]
            socket.send_fds(control, [json.dumps(request).encode()], fds)
            reply = self._reply(timeout + GRACE_SECONDS, on_slow)
            if "error" in reply:
                raise ServerFailed(str(reply["error"]))
            returncode, timed_out = reply.get("returncode"), reply.get("timed_out")
            if type(returncode) is not int or type(timed_out) is not bool:
                raise ServerFailed(f"the fork server answered {reply!r}")
            if returncode == SETUP_FAILED:  # in doubt: this run goes the one-process path
                stderr = run_files.head("stderr", 500)
                raise ServerFailed(f"a run's sandbox could not be set up: {stderr}")
            cpu = reply.get("cpu")
            return RunResult(
                None if timed_out else returncode,
                timed_out,
                run_files.head("stdout", limits.output_bytes),
                run_files.head("stderr", limits.output_bytes),
                run_files.head("channel", limits.file_bytes),
                float(cpu) if isinstance(cpu, (int, float)) else None,
            )

    def close(self) -> None:
        """Stop the server: its sandbox, every process of its uid, and give the uid back."""
        control, proc, uid = self._control, self._proc, self.uid
        self._control = self._proc = self.uid = None
        if control is not None:
            control.close()  # the server reads end-of-file and returns
        if proc is not None:
            if not wait_process(proc, 1.0):
                kill_group(proc.pid)
            proc.wait()
        if uid is not None and self.isolation.as_nobody:
            SLOTS.release(uid, reap=True)


@contextlib.contextmanager
def _code_blob(files: Mapping[str, bytes]) -> Iterator[int]:
    """A memory file holding the code folder's files and the paths of the executable
    ones, marshalled (read by the server, which trusts its parent; code under evaluation
    never sees it)."""
    fd = os.memfd_create("codeif-code", os.MFD_CLOEXEC)
    try:
        contents = {str(k): bytes(v) for k, v in files.items()}
        executable = [k for k in contents if file_mode(files, k) == EXECUTABLE_MODE]
        blob = memoryview(marshal.dumps((contents, executable)))
        # os.write may write less than asked (a project's blob is megabytes): all of it.
        written = 0
        while written < len(blob):
            written += os.write(fd, blob[written:])
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


class ForkServers:
    """A server per thread (the pool's threads are its slots), for one session."""

    def __init__(self, isolation: Isolation, shared: Path, logs: Path) -> None:
        self.isolation = isolation
        self.shared = shared
        self.logs = logs
        self._local = threading.local()
        self._all: list[ForkServer] = []
        self._lock = threading.Lock()
        #: Why servers are no longer used (a server failed to start), else None.
        self.disabled: str | None = None
        #: Runs a server answered (and the CPU seconds they used), and why runs went the
        #: one-process path instead.
        self.served = 0
        self.cpu_seconds = 0.0
        self.failures: list[str] = []

    @classmethod
    def where_possible(cls, isolation: Isolation, shared: Path, logs: Path) -> ForkServers | None:
        """Servers when `isolation` allows them (`Isolation.forks`), else None."""
        return cls(isolation, shared, logs) if isolation.forks else None

    @property
    def servers(self) -> list[ForkServer]:
        """Every slot's server made so far."""
        with self._lock:
            return list(self._all)

    def _server(self) -> ForkServer:
        server: ForkServer | None = getattr(self._local, "server", None)
        if server is None:
            with self._lock:
                log = self.logs / f"fork-server-{len(self._all)}.log"
                server = ForkServer(self.isolation, self.shared, log)
                self._all.append(server)
            self._local.server = server
        return server

    def run(
        self,
        args: Sequence[str],
        code_dir: Path,
        io_dir: Path,
        limits: Limits,
        *,
        files: Mapping[str, bytes],
        env: Mapping[str, str] | None = None,
        stdin: Path | bytes | None = None,
        on_slow: Callable[[], None] | None = None,
    ) -> RunResult:
        """Run on this thread's server, with `files` as the code folder `code_dir`; on
        the one-process path (the folder written to disk) when servers cannot be used
        here or the server failed."""
        if self.disabled is None and code_dir.is_relative_to(self.shared):
            server = self._server()
            try:
                result = server.run(
                    args,
                    code_dir,
                    io_dir,
                    limits,
                    files=files,
                    env=env,
                    stdin=stdin,
                    on_slow=on_slow,
                )
            except ServerFailed as exc:
                with self._lock:
                    self.failures.append(str(exc))
                if exc.at_start:  # it could not even start: do not try again and again
                    self.disabled = str(exc)
            else:
                with self._lock:
                    self.served += 1
                    self.cpu_seconds += result.cpu_seconds or 0.0
                return result
        write_folder(code_dir, files)
        return run_python(
            args,
            code_dir,
            io_dir,
            limits,
            self.isolation,
            env=env,
            stdin=stdin,
            on_slow=on_slow,
        )

    def close(self) -> None:
        with self._lock:
            servers = list(self._all)
        for server in servers:
            server.close()

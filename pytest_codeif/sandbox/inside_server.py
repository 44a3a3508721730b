"""The fork server's side (see `fork_server.py`); standard library only.

Started as `python -S -s -P inside_server.py SPEC` inside bubblewrap, with CAP_SYS_ADMIN
(and, as root, CAP_SETUID and CAP_SETGID) only. It never imports code under evaluation,
and answers requests on a control socket. For each request it starts a mini-init that is
pid 1 of a new pid namespace, in new mount and IPC namespaces, with a fresh /proc, a fresh
tmpfs on /tmp (the Python folders bound under /tmp, if any, bound again read-only), the
sandbox's root and /dev read-only, and the run's own code (received in memory, never on
disk) on a read-only tmpfs at the code folder's path; nothing of another run is visible.
The init forks the run itself, which takes its descriptors (stdin, stdout, stderr, result
channel: received from the parent, never opened here), its own session and the rlimits,
drops to the run's uid when root (no groups) and every capability, installs the seccomp
filter of every run (`inside.run_filter`, built once in the server), and then runs ARGS
as `inside.py` would.
When the run ends or its time is up, the init dies and the kernel kills every process
left in the namespace; the next run starts from the server's untouched state.

Exit statuses follow bubblewrap's: the run's exit code, or 128 + the signal that ended it.
"""

from __future__ import annotations

import atexit
import fcntl
import gc
import json
import marshal
import os
import signal
import sys
from collections.abc import Callable
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any, NoReturn


def _load_sibling(name: str, filename: str) -> ModuleType:
    """A module of this folder, by path and under a name no code under evaluation would
    import: this interpreter has no site, so the package is not importable."""
    import importlib.util  # noqa: PLC0415 - at start only

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), filename)
    found = importlib.util.spec_from_file_location(name, path)
    if found is None or found.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    from pytest_codeif.sandbox import inside, libc
else:
    inside = _load_sibling("_codeif_inside", "inside.py")
    libc = _load_sibling("_codeif_libc", "libc.py")

_CLONE_NEWNS = libc.CLONE_NEWNS
_CLONE_NEWIPC = libc.CLONE_NEWIPC
_CLONE_NEWPID = libc.CLONE_NEWPID
_MS_NOSUID = libc.MS_NOSUID
_MS_NODEV = libc.MS_NODEV
_MS_NOEXEC = libc.MS_NOEXEC
_MS_RDONLY = libc.MS_RDONLY
_MS_REMOUNT = libc.MS_REMOUNT
_MS_BIND = libc.MS_BIND
_MS_REC = libc.MS_REC
_MS_PRIVATE = libc.MS_PRIVATE
#: The namespace and mount calls (see `libc.py`), resolved once in the server so that
#: forked children never load anything.
_Libc = libc.Libc


class _Task:
    """One request: what to run, as whom, with which limits, and its descriptors."""

    def __init__(self, request: dict[str, Any], fds: list[int]) -> None:
        self.argv: list[str] = [str(a) for a in request["argv"]]
        self.env: dict[str, str] = {str(k): str(v) for k, v in request["env"].items()}
        self.code = str(request["code"])
        self.uid = int(request["uid"])
        self.limits: list[list[int]] = [[int(a), int(b)] for a, b in request["limits"]]
        self.timeout = float(request["timeout"])
        self.scratch_bytes = int(request["scratch_bytes"])
        has_stdin = bool(request["stdin"])
        if len(fds) != 4 + has_stdin:
            raise ValueError(f"expected {4 + has_stdin} descriptors, got {len(fds)}")
        #: stdin (when given), stdout, stderr, channel: the run's own.
        self.fds = fds[:-1]
        self.has_stdin = has_stdin
        #: The code folder's files, marshalled (see `fork_server._code_blob`).
        self.files_fd = fds[-1]

    def close(self) -> None:
        for fd in [*self.fds, self.files_fd]:
            os.close(fd)


def _exit_status(status: int) -> int:
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 255


class _Server:
    """Reads requests from the control socket and forks one namespace per run."""

    def __init__(self, spec: dict[str, Any]) -> None:
        import socket  # noqa: PLC0415 - the server's alone

        self.socket = socket
        self.control = socket.socket(fileno=int(spec["control"]))
        self.shared = str(spec["shared"])
        self.stash = str(spec["stash"])
        self.tmp_binds: list[str] = [str(p) for p in spec["tmp_binds"]]
        self.libc = _Libc()
        self.libc.subreaper()
        self.scripts: dict[str, CodeType] = {}
        #: Built here, so that a run pays for two prctl calls only.
        self.denied = inside.run_filter()

    def send(self, message: dict[str, Any]) -> None:
        self.control.send(json.dumps(message).encode())

    def serve(self) -> tuple[_Task, CodeType | None] | None:
        """Answer requests until the parent closes the socket (then None); returns the
        task to run only in a run's own process."""
        self.send({"ready": os.getpid()})
        while True:
            try:
                data, fds, _, _ = self.socket.recv_fds(self.control, inside.MAX_MESSAGE, 8)
            except OSError:
                return None
            if not data:
                return None
            try:
                task = _Task(json.loads(data), fds)
            except (ValueError, KeyError, TypeError) as exc:
                for fd in fds:
                    os.close(fd)  # the request is not a task: nothing else holds them
                self.send({"error": f"bad request: {type(exc).__name__}: {exc}"})
                continue
            script = self._script(task.argv[0])
            if self._run(task):
                return task, script

    def _script(self, path: str) -> CodeType | None:
        """A harness compiled once for every run, its imports imported here once; None
        for a script the server cannot read (the run's own code: compiled in the run,
        where it is mounted)."""
        if path == "-m":
            return None
        if path not in self.scripts:
            try:
                self.scripts[path] = inside.compile_script(path)
            except OSError:
                return None
            _warm(path)
            gc.freeze()
        return self.scripts[path]

    def _run(self, task: _Task) -> bool:
        """Start the run's init and wait for it; True only in the run's own process.

        A forked helper asks for the new pid namespace (the server's own namespace for
        children never changes: in a user namespace it could not be set back), forks the
        init into it, sends the init's pid and exits; the init is then our child, since
        the server is a subreaper."""
        import select  # noqa: PLC0415 - the server's alone (imported once, then cached)

        read_end, write_end = os.pipe()
        helper = os.fork()
        if helper == 0:
            os.close(read_end)
            return self._helper(task, write_end)
        os.close(write_end)
        task.close()
        os.waitpid(helper, 0)
        with os.fdopen(read_end, "rb") as pipe:
            told = pipe.read(64)
        try:
            init = int(told)
        except ValueError:
            self.send({"error": f"the run's init did not start: {told!r}"})
            return False
        pidfd = os.pidfd_open(init)
        try:
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
            timed_out = not poller.poll(max(1, int(task.timeout * 1000)))
        finally:
            os.close(pidfd)
        if timed_out:
            os.kill(init, 9)  # the whole namespace dies with its init
        _, status, usage = os.wait4(init, 0)
        cpu = usage.ru_utime + usage.ru_stime  # the run's processes' too: each waited
        self.send({"returncode": _exit_status(status), "timed_out": timed_out, "cpu": cpu})
        return False

    def _helper(self, task: _Task, pipe: int) -> bool:
        """Between the server and the run's init: see `_run`."""
        try:
            self.libc.unshare(_CLONE_NEWPID)
            init = os.fork()
            if init == 0:
                os.close(pipe)
                return self._init(task)
            os.write(pipe, str(init).encode())
        except BaseException as exc:  # noqa: BLE001 - told to the server, which restarts
            os.write(pipe, f"{type(exc).__name__}: {exc}".encode())
        os._exit(0)

    def _init(self, task: _Task) -> bool:
        """pid 1 of the run's namespace: set up its mounts, fork the run, wait for it."""
        try:
            os.close(self.control.detach())
            self._mounts(task)
            run = os.fork()
            if run == 0:
                self._drop_into(task)
                return True
            # The init keeps no descriptor and is not dumpable: nothing of it shows
            # through /proc/1 (in a user namespace, the run has the init's uid).
            os.closerange(0, _max_fd())
            self.libc.not_dumpable()
            # As pid 1, the init ignores every signal from inside its namespace that it
            # has no handler for: drop Python's SIGINT handler (a run of the same uid,
            # in a user namespace, could otherwise interrupt it).
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            while True:
                pid, status = os.waitpid(-1, 0)
                if pid == run:
                    os._exit(_exit_status(status))
        except BaseException as exc:  # noqa: BLE001 - the server restarts on this status
            message = f"codeif sandbox setup failed: {type(exc).__name__}: {exc}\n".encode()
            for fd in (task.fds[-2], 2):  # the run's stderr, before or after it is placed
                try:
                    os.write(fd, message)
                    break
                except OSError:
                    continue
            os._exit(inside.SETUP_FAILED)

    def _mounts(self, task: _Task) -> None:
        libc = self.libc
        libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC)
        libc.mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        # bubblewrap's root and /dev are tmpfs the server's uid owns: in a user namespace
        # (pytest not root) a run has that uid, and what it wrote there (/dev/shm
        # included) would be found by the next run. Read-only for every run; what a run
        # may write is its own fresh /tmp.
        frozen = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        for folder in ("/", "/dev"):
            libc.mount(None, folder, None, frozen)
        libc.mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        # The server's /tmp (with the Python folders bound under it) kept aside, a fresh
        # scratch on /tmp, those folders bound back read-only, and the stash let go.
        libc.mount("/tmp", self.stash, None, _MS_BIND | _MS_REC)
        scratch = f"size={task.scratch_bytes},mode=1777"
        libc.mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, scratch)
        for folder in self.tmp_binds:
            kept = os.path.join(self.stash, os.path.relpath(folder, "/tmp"))
            _make_dirs(folder)
            libc.mount(kept, folder, None, _MS_BIND | _MS_REC)
            read_only = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
            libc.mount(None, folder, None, read_only)
        libc.detach(self.stash)
        shared = self.shared
        rel = os.path.relpath(task.code, shared)
        if rel.startswith("..") or os.path.isabs(rel):
            raise ValueError(f"{task.code} is not under {shared}")
        if not (shared + "/").startswith("/tmp/"):
            libc.mount("tmpfs", shared, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
        _make_dirs(task.code)
        with os.fdopen(os.dup(task.files_fd), "rb") as blob:
            loaded = marshal.load(blob)  # noqa: S302 - from our parent
        files: dict[str, bytes] = loaded[0]
        executable = frozenset(loaded[1])  # kept runnable: a project's `./run.sh`
        # The code on a tmpfs of its own, written here (root, or the server's uid), then
        # made read-only: the run reads it at the path it would have on disk.
        size = sum(len(data) + 8192 for data in files.values()) + (1 << 20)
        libc.mount("tmpfs", task.code, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode=0755")
        for relpath, data in files.items():
            target = os.path.normpath(os.path.join(task.code, relpath))
            if os.path.isabs(relpath) or not target.startswith(task.code + "/"):
                raise ValueError(f"{relpath!r} is not a path inside the code folder")
            _make_dirs(os.path.dirname(target))
            with open(target, "wb") as handle:
                handle.write(data)
            os.chmod(target, 0o755 if relpath in executable else 0o644)
        read_only = _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        libc.mount(None, task.code, None, read_only)

    def _drop_into(self, task: _Task) -> None:
        """In the run's own process: descriptors, session, limits, the uid, then the
        seccomp filter."""
        wanted = task.fds if task.has_stdin else [os.open(os.devnull, os.O_RDONLY), *task.fds]
        # Copies above 0-3 first: placing one must never overwrite another.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, inside.CHANNEL_FD + 1) for fd in wanted]
        for target, fd in enumerate(high):
            os.dup2(fd, target)
        os.closerange(inside.CHANNEL_FD + 1, _max_fd())
        os.setsid()
        inside.set_limits(task.limits)
        if task.uid != os.getuid():  # root: each run has a uid of its own
            os.setgroups([])
            os.setresgid(task.uid, task.uid, task.uid)
            os.setresuid(task.uid, task.uid, task.uid)
        self.libc.drop_capabilities()  # in a user namespace, the uid stays the server's
        if self.denied is not None:
            self.denied.install()  # a failure: the run's setup failed (see `_init`)
        os.chdir("/tmp")
        os.environ.clear()
        os.environ.update(task.env)


def _warm(path: str) -> None:
    """Import what the script at `path` (a harness: trusted) imports at its top level, and
    load the modules beside it that it names in a top-level `BESIDE` tuple (as
    `_codeif_<name>`, where the harness looks first), so that no run loads those modules
    again."""
    import ast  # noqa: PLC0415 - the server's alone

    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            _load_beside(path, node)
            continue
        for name in names:
            try:
                __import__(name)
            except ImportError:
                continue


def _load_beside(path: str, node: object) -> None:
    """Load the modules a `BESIDE = ("name", ...)` statement names, from beside `path`."""
    import ast  # noqa: PLC0415 - the server's alone
    import importlib.util  # noqa: PLC0415 - the server's alone

    if not (
        isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["BESIDE"]
        and isinstance(node.value, ast.Tuple)
    ):
        return
    for item in node.value.elts:
        if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
            continue
        name = "_codeif_" + item.value
        found = importlib.util.spec_from_file_location(
            name, os.path.join(os.path.dirname(path), item.value + ".py")
        )
        if name in sys.modules or found is None or found.loader is None:
            continue
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
        sys.modules[name] = module


def _make_dirs(path: str) -> None:
    """Create `path` and its missing parents, root-owned and 0755: a mount point the
    run's uid can reach but not change."""
    missing: list[str] = []
    while not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for folder in reversed(missing):
        os.mkdir(folder)
        os.chmod(folder, 0o755)  # noqa: S103 - readable by the run, writable by root only


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


def serve(spec: dict[str, Any]) -> Callable[[], NoReturn] | None:
    """The fork server's loop; returns the run to start in a run's process, else None."""
    inside.prepare_interpreter(spec)
    server = _Server(spec)
    # What the server holds stays out of the collector's sight: runs neither scan nor
    # copy those pages (the collector would write to every object it visits).
    gc.freeze()
    served = server.serve()
    if served is None:
        return None
    task, script = served

    def start() -> NoReturn:
        def run() -> None:
            argv = [a.replace("{channel}", str(inside.CHANNEL_FD)) for a in task.argv]
            inside.run_target(argv, script)

        exit_like_python(run, server.libc.flush_c_stdio)

    return start


def exit_like_python(run: Callable[[], None], flush_c_stdio: Callable[[], None]) -> NoReturn:
    """Run `run`, then end the process as the interpreter would, but without tearing its
    modules down: a forked child doing that writes to every page it shares with the
    server (most of a run's cost). As Python's own exit: the exit code of SystemExit, an
    uncaught exception's traceback (exit code 1; KeyboardInterrupt ends by SIGINT), then
    non-daemon threads are waited for, atexit callbacks run, and the standard streams
    (Python's and C's) are flushed. Not run, as Python does not promise them either:
    `__del__` methods of objects still alive at exit."""
    code, interrupted = 0, False
    try:
        run()
    except SystemExit as exc:
        code = _system_exit_code(exc)
    except BaseException as exc:  # noqa: BLE001 - reported as Python reports it
        interrupted = isinstance(exc, KeyboardInterrupt)
        sys.excepthook(type(exc), exc, exc.__traceback__)
        code = 1
    code = _shut_down(code)
    flush_c_stdio()
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def _system_exit_code(exc: SystemExit) -> int:
    """The exit status Python gives a SystemExit (printing a non-integer code)."""
    value = exc.code
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except BaseException:  # noqa: BLE001 - as Python: the exit status is what counts
        return 1
    return 1


def _shut_down(code: int) -> int:
    """Python's finalization up to module teardown; its exit status (120 when the
    standard streams cannot be flushed, as Python's)."""
    threading = sys.modules.get("threading")
    try:
        if threading is not None:
            threading._shutdown()
    except BaseException as exc:  # noqa: BLE001
        sys.excepthook(type(exc), exc, exc.__traceback__)
    atexit._run_exitfuncs()  # what Python's exit does
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BaseException:  # noqa: BLE001
            code = 120
    return code


def main() -> None:
    start = serve(json.loads(sys.argv[1]))
    if start is not None:
        start()  # in a run's process; never returns


if __name__ == "__main__":
    main()

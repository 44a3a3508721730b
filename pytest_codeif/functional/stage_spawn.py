"""How the stage (`stage_harness.py`) starts the programs it observes, and waits for
them; standard library only, loaded by file path inside the sandbox.

Each program (the service, the database, a command-line case, Newman, a child pytest)
is started by a *keeper* the stage forks, and the keeper forks the program:

- nested (bubblewrap): the keeper is pid 1 of a new pid namespace, in new mount and IPC
  namespaces, with a fresh /proc (only its own processes in it), its own folder bound at
  the work mount point (its working directory), the stage's private folder covered by
  an empty read-only tmpfs, / and /dev read-only, and a /tmp and a /dev/shm of its own
  (the read-only folders under the sandbox's /tmp bound again). From there the program
  can neither see, trace nor signal the stage or any other child, open what the stage
  keeps, nor leave anything where another child looks. When the program ends the
  keeper reports how, and exits: the kernel kills everything left in the namespace, so
  a case's files are read once nothing of it runs. Killing the keeper kills the whole
  namespace.
- `process` backend: the keeper leads a process group of its own (killed as a whole),
  and dies with the stage; nothing else is isolated.

The program itself gets its descriptors (stdin, stdout, stderr and, for a child
pytest, its result channel as descriptor 3), every signal's default action, the run's
uid (when the stage is root) without groups, no capability, no_new_privs and the
seccomp filter of every run (`inside.run_filter`), then execve. The keeper is not
dumpable and ignores every signal it can.

`as_run_user` runs a function of the stage's own in a forked child with the run's uid
(copies of the code, reading what a case wrote, reading Newman's report): files a
program made are never opened by the stage itself, whatever their modes or links.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import select
import signal
import time

TYPE_CHECKING = False  # typing itself is not imported: the stage starts without it
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Final, NoReturn

    from pytest_codeif.functional.stage_text import Capture
    from pytest_codeif.sandbox.libc import Libc
    from pytest_codeif.sandbox.seccomp import Filter

#: Exit status of a program that could not be started (a shell's "cannot run").
CANNOT_RUN: Final = 127
#: Seconds the stage still reads a child's pipes after its keeper ended (`process`
#: backend: a process that left the group may hold them open).
DRAIN_GRACE: Final = 0.5
#: The most a keeper's report on the status pipe may be.
STATUS_BYTES: Final = 4096
_CLONE_NEWNS: Final = 0x00020000
_CLONE_NEWIPC: Final = 0x08000000
_CLONE_NEWPID: Final = 0x20000000
_MS_RDONLY: Final = 1
_MS_NOSUID: Final = 2
_MS_NODEV: Final = 4
_MS_NOEXEC: Final = 8
_MS_REMOUNT: Final = 32
_MS_BIND: Final = 4096
_MS_REC: Final = 16384
_MS_PRIVATE: Final = 1 << 18
#: A child's own /dev/shm (POSIX semaphores, shared memory of a service's workers).
SHM_BYTES: Final = 64 * 1024 * 1024
#: A child's own /tmp, and its size.
_TMP: Final = "/tmp"  # noqa: S108 - a tmpfs of the child's own
TMP_BYTES: Final = 256 * 1024 * 1024


class Job:
    """One program to start: its command line, environment and own folder (its working
    directory), the stage's ends of its descriptors (None: /dev/null), and its address
    space limit in bytes (None: the stage's own)."""

    def __init__(
        self,
        argv: list[str],
        env: Mapping[str, str],
        folder: str,
        *,
        stdin: int | None = None,
        stdout: int | None = None,
        stderr: int | None = None,
        channel: int | None = None,
        memory: int | None = None,
        linger: bool = False,
    ) -> None:
        self.argv = argv
        self.env = dict(env)
        self.folder = folder
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.channel = channel
        self.memory = memory
        #: The program is over only when every process it started is (a service's
        #: `run.sh` that starts the server in the background and exits, as the
        #: benchmark's container allows); else when the program itself ends.
        self.linger = linger


class Ending:
    """How a program ended: its wait status (None: unknown, it was killed before it
    ended), or why it could not be started at all (`error`)."""

    def __init__(self, status: int | None, error: str | None = None) -> None:
        self.status = status
        self.error = error

    @property
    def exit(self) -> int | None:
        """The exit status, or 128 + the signal that ended it (as shells say it)."""
        if self.status is None:
            return None
        if os.WIFEXITED(self.status):
            return os.WEXITSTATUS(self.status)
        if os.WIFSIGNALED(self.status):
            return 128 + os.WTERMSIG(self.status)
        return None

    @property
    def signal(self) -> int | None:
        """The signal that ended it, if one did."""
        if self.status is not None and os.WIFSIGNALED(self.status):
            return os.WTERMSIG(self.status)
        return None


class Child:
    """A started program, through its keeper: waited on with a pidfd; its end read from
    the status pipe the keeper writes once."""

    def __init__(self, keeper: int, status_fd: int, nested: bool) -> None:
        self.keeper = keeper
        self.nested = nested
        self._status_fd = status_fd
        self.pidfd = os.pidfd_open(keeper)
        self._ending: Ending | None = None

    def ended(self, timeout: float = 0.0) -> bool:
        """Whether the keeper (so the program) ended, waiting at most `timeout` s."""
        if self._ending is not None:
            return True
        poller = select.poll()
        poller.register(self.pidfd, select.POLLIN)
        return bool(poller.poll(_ms(timeout)))

    def kill(self) -> None:
        """Kill the keeper and, with it, its namespace (or its process group)."""
        if self._ending is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.nested:
                os.kill(self.keeper, signal.SIGKILL)
            else:
                os.killpg(self.keeper, signal.SIGKILL)

    def finish(self) -> Ending:
        """Kill what is left, reap the keeper, and say how the program ended."""
        if self._ending is not None:
            return self._ending
        self.kill()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.keeper, 0)
        told = _read_all(self._status_fd, STATUS_BYTES)
        os.close(self._status_fd)
        os.close(self.pidfd)
        self._ending = _ending(told)
        return self._ending


def _ending(told: bytes) -> Ending:
    word, _, rest = told.decode("utf-8", "replace").partition(" ")
    if word == "status":
        try:
            return Ending(int(rest))
        except ValueError:
            pass
    if word == "error":
        return Ending(None, rest[:1000])
    return Ending(None)


class Spawner:
    """Starts jobs (see the module docstring); `uid` is the run's uid when the stage is
    root (None: keep the stage's), `denied` the seccomp filter every program gets."""

    def __init__(
        self,
        libc: Libc,
        *,
        nested: bool,
        uid: int | None,
        private: str,
        work: str,
        denied: Filter | None,
        stash: str = "",
        tmp_binds: Sequence[str] = (),
        tmp_bytes: int = TMP_BYTES,
    ) -> None:
        self.libc = libc
        self.nested = nested
        self.uid = uid
        self.private = private
        self.work = work
        self.stash = stash
        self.tmp_binds = [str(p) for p in tmp_binds if str(p).startswith(_TMP + "/")]
        self.tmp_bytes = tmp_bytes
        self.denied = denied
        if nested:  # the keepers become the stage's children when their parent exits
            libc.subreaper()

    def where(self, folder: str) -> str:
        """Where a job sees its own folder `folder`."""
        return self.work if self.nested else folder

    # -- starting ----------------------------------------------------------------------
    def start(self, job: Job) -> Child:
        """Start `job`; raises OSError when its namespace could not be made."""
        status_read, status_write = os.pipe()
        if not self.nested:
            keeper = os.fork()
            if keeper == 0:
                os.close(status_read)
                os.setsid()
                self._keep(job, status_write)
            os.close(status_write)
            return Child(keeper, status_read, nested=False)
        pid_read, pid_write = os.pipe()
        helper = os.fork()
        if helper == 0:
            try:
                os.close(pid_read)
                os.close(status_read)
                # The helper's children, not the helper, are in the new pid namespace.
                self.libc.unshare(_CLONE_NEWPID | _CLONE_NEWNS | _CLONE_NEWIPC)
                keeper = os.fork()
                if keeper == 0:
                    os.close(pid_write)
                    self._keep(job, status_write)
                os.write(pid_write, str(keeper).encode())
            except BaseException as exc:  # noqa: BLE001 - told to the stage
                with contextlib.suppress(OSError):
                    os.write(pid_write, f"{type(exc).__name__}: {exc}"[:1000].encode())
            os._exit(0)
        os.close(pid_write)
        os.close(status_write)
        os.waitpid(helper, 0)
        told = _read_all(pid_read, 2000)
        os.close(pid_read)
        try:
            keeper = int(told)
        except ValueError:
            os.close(status_read)
            raise OSError(f"the program's namespace could not be made: {told!r}") from None
        return Child(keeper, status_read, nested=True)

    def _keep(self, job: Job, status: int) -> NoReturn:
        """The keeper: set up, fork the program, wait for it, report its end."""
        try:
            if self.nested:
                self._mounts(job.folder)
            else:
                self.libc.die_with_parent()
            program = os.fork()
            if program == 0:
                self._exec(job)
            os.closerange(0, status)
            os.closerange(status + 1, _max_fd())
            self.libc.not_dumpable()
            _ignore_signals()
            while True:
                pid, waited = os.waitpid(-1, 0)
                if pid == program:
                    break
            if job.linger and self.nested:  # pid 1 of its namespace: orphans are its own
                with contextlib.suppress(ChildProcessError):
                    while True:
                        os.waitpid(-1, 0)
            os.write(status, f"status {waited}".encode())
        except BaseException as exc:  # noqa: BLE001 - told to the stage
            with contextlib.suppress(BaseException):
                os.write(status, f"error {type(exc).__name__}: {exc}"[:1000].encode())
        if not self.nested:  # what the program left in its group goes with it
            with contextlib.suppress(OSError):
                os.killpg(0, signal.SIGKILL)
        os._exit(0)

    def _mounts(self, folder: str) -> None:
        """The keeper's mount namespace (see the module docstring)."""
        libc = self.libc
        libc.mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        libc.mount(folder, self.work, None, _MS_BIND | _MS_REC)
        hidden = _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        libc.mount("tmpfs", self.private, "tmpfs", hidden, "size=4096,mode=0555")
        self._fresh_tmp()
        frozen = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        for place in ("/", "/dev"):
            libc.mount(None, place, None, frozen)
        libc.mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        shm = f"size={SHM_BYTES},mode=1777"
        libc.mount("tmpfs", "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, shm)  # noqa: S108

    def _fresh_tmp(self) -> None:
        """A /tmp of the child's own: nothing one child writes there reaches another
        (a module planted in /tmp/node_modules, say, where Node.js would look). The
        read-only folders bound under the sandbox's /tmp (the interpreter, the code,
        tools) are kept aside on the stash, bound back read-only, and the stash let go."""
        libc = self.libc
        libc.mount(_TMP, self.stash, None, _MS_BIND | _MS_REC)
        scratch = f"size={self.tmp_bytes},mode=1777"
        libc.mount("tmpfs", _TMP, "tmpfs", _MS_NOSUID | _MS_NODEV, scratch)
        read_only = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        for place in sorted(self.tmp_binds, key=len):
            kept = os.path.join(self.stash, os.path.relpath(place, _TMP))
            if os.path.isdir(kept):
                _make_dirs(place)
            else:
                _make_dirs(os.path.dirname(place))
                os.close(os.open(place, os.O_WRONLY | os.O_CREAT, 0o644))
            libc.mount(kept, place, None, _MS_BIND | _MS_REC)
            libc.mount(None, place, None, read_only)
        libc.detach(self.stash)

    def _exec(self, job: Job) -> NoReturn:
        """The program's process: descriptors, session, signals, uid, capabilities,
        seccomp, working directory, then execve."""
        try:
            null = os.open(os.devnull, os.O_RDWR)
            wanted = [
                null if job.stdin is None else job.stdin,
                null if job.stdout is None else job.stdout,
                null if job.stderr is None else job.stderr,
            ]
            if job.channel is not None:
                wanted.append(job.channel)
            # Copies above the targets first: placing one must never overwrite another.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, len(wanted)) for fd in wanted]
            for target, fd in enumerate(high):
                os.dup2(fd, target)
            os.closerange(len(wanted), _max_fd())
            if self.nested:
                os.setsid()
            else:
                self.libc.die_with_parent()
            _default_signals()
            if job.memory is not None:  # lowered only: the hard limit is the stage's
                resource.setrlimit(resource.RLIMIT_AS, (job.memory, job.memory))
            self.become_run_user()
            if self.denied is not None:
                self.denied.install()
            os.chdir(self.where(job.folder))
            os.execve(  # noqa: S606 - the plan's command line, in its sandbox
                _resolve(job.argv[0], job.env.get("PATH", "")), job.argv, job.env
            )
        except BaseException as exc:  # noqa: BLE001 - said on the program's stderr
            with contextlib.suppress(BaseException):
                os.write(2, f"codeif stage: cannot run {job.argv[0]!r}: {exc}\n".encode())
        os._exit(CANNOT_RUN)

    def become_run_user(self) -> None:
        """In a child of the stage: the run's uid (as root), no capability, umask 022."""
        if self.uid is not None and os.geteuid() != self.uid:
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
        self.libc.drop_capabilities()
        os.umask(0o022)

    # -- the stage's own work as the run's user ------------------------------------------
    def as_run_user(self, work: Callable[[], bytes], *, limit: int, timeout: float) -> bytes:
        """What `work` returns, run in a forked child as the run's user; raises OSError
        with the child's error, or when it took too long or said too much."""
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(reading)
                os.closerange(3, writing)  # the result channel among them
                os.closerange(writing + 1, _max_fd())
                self.become_run_user()
                _write_all(writing, b"ok " + work())
            except BaseException as exc:  # noqa: BLE001 - told to the stage
                with contextlib.suppress(BaseException):
                    _write_all(writing, f"error {type(exc).__name__}: {exc}"[:2000].encode())
            os._exit(0)
        os.close(writing)
        try:
            told, complete = _read_until(reading, limit + 3, time.monotonic() + timeout)
        finally:
            os.close(reading)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        if told.startswith(b"ok ") and complete and len(told) <= limit + 3:
            return told[3:]
        if told.startswith(b"error "):
            raise OSError(told[6:].decode("utf-8", "replace"))
        raise OSError("the stage's helper said too much, or nothing in time")


def communicate(
    child: Child,
    outputs: Mapping[int, Capture],
    deadline: float,
    feed: tuple[int, bytes] | None = None,
) -> bool:
    """Feed `feed` (the stage's end of the program's stdin, and the bytes) and read
    every output pipe into its capture until the program ended and the pipes closed, or
    until `deadline` (monotonic), when the program is killed. True when it timed out.
    Closes the stage's ends of the pipes."""
    pump = _Pump(child, outputs, feed)
    timed_out = pump.run(deadline)
    child.finish()  # nothing of the program runs any more: its pipes end
    pump.close()
    return timed_out


class _Pump:
    """The pipes of one program, moved with poll(2) (the stage has no threads)."""

    def __init__(
        self, child: Child, outputs: Mapping[int, Capture], feed: tuple[int, bytes] | None
    ) -> None:
        self.child = child
        self.poller = select.poll()
        self.poller.register(child.pidfd, select.POLLIN)
        self.reading = dict(outputs)
        for fd in self.reading:
            self.poller.register(fd, select.POLLIN)
        self.feeding: int | None = None
        self.left = b""
        if feed is not None:
            self.feeding, self.left = feed
            os.set_blocking(self.feeding, False)
            self.poller.register(self.feeding, select.POLLOUT)
        self.ended_at: float | None = None

    def run(self, deadline: float) -> bool:
        """Move data until everything closed; True when the deadline struck first."""
        while self.reading or self.feeding is not None or self.ended_at is None:
            now = time.monotonic()
            if now >= deadline and self.ended_at is None:
                self.child.kill()
                return True
            wait = deadline - now
            if self.ended_at is not None:
                wait = min(wait, self.ended_at + DRAIN_GRACE - now)
                if wait <= 0:
                    return False
            for fd, event in self.poller.poll(_ms(wait)):
                self._event(fd, event)
        return False

    def _event(self, fd: int, event: int) -> None:
        if fd == self.child.pidfd:
            self.ended_at = time.monotonic()
            self.poller.unregister(fd)
        elif fd in self.reading:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                self.reading[fd].add(chunk)
            else:
                self.poller.unregister(fd)
                os.close(fd)
                del self.reading[fd]
        elif fd == self.feeding:
            self._feed(fd, event)

    def _feed(self, fd: int, event: int) -> None:
        done = bool(event & (select.POLLERR | select.POLLHUP)) or not self.left
        if not done:
            try:
                self.left = self.left[os.write(fd, self.left[: 1 << 16]) :]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:  # the program closed its stdin
                done = True
        if done or not self.left:
            self.poller.unregister(fd)
            os.close(fd)  # end-of-file for the program
            self.feeding = None

    def close(self) -> None:
        """Read what is left in the pipes (their writers are dead) and close them."""
        if self.feeding is not None:
            os.close(self.feeding)
            self.feeding = None
        for fd, capture in self.reading.items():
            _drain(fd, capture)
            os.close(fd)
        self.reading = {}


def _drain(fd: int, capture: Capture) -> None:
    """What is left in a pipe whose writers are dead (or gone astray: not waited for)."""
    os.set_blocking(fd, False)
    for _ in range(64):
        try:
            chunk = os.read(fd, 1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        if not chunk:
            return
        capture.add(chunk)


def _resolve(name: str, path: str) -> str:
    """The program `name` runs: a path as given (relative to the working directory),
    else the first executable file of that name on `path`."""
    if "/" in name:
        return name
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(f"{name!r} is not on PATH")


def _default_signals() -> None:
    """Every signal's default action: ignored signals stay ignored across execve (the
    stage ignores most), and a service must stop on SIGTERM, a shell get SIGPIPE."""
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_DFL)


def _ignore_signals() -> None:
    """The keeper's: ignore what can be (in a user namespace the program has its uid)."""
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_IGN)


def _read_all(fd: int, limit: int) -> bytes:
    data = b""
    while len(data) <= limit:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data[:limit]


def _read_until(fd: int, limit: int, deadline: float) -> tuple[bytes, bool]:
    """Up to `limit` + 1 bytes from `fd` until end-of-file or `deadline`; and whether
    end-of-file was reached."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    data = bytearray()
    while len(data) <= limit:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(_ms(remaining)):
            return bytes(data), False
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return bytes(data), True
        data += chunk
    return bytes(data), False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _make_dirs(path: str) -> None:
    """Create `path` and its missing parents, 0755: mount points the child can reach."""
    missing: list[str] = []
    while not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for folder in reversed(missing):
        os.mkdir(folder)
        os.chmod(folder, 0o755)  # noqa: S103 - readable by the child, its owner's only


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 65536


def _ms(seconds: float) -> int:
    """poll(2)'s milliseconds, rounded up."""
    return max(0, int(seconds * 1000 + 0.999))

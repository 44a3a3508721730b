"""How code under evaluation is isolated: bubblewrap where it works, else a bare process.

`bubblewrap`: new pid, network, IPC and UTS namespaces; the system and the Python
installation mounted read-only; the code read-only; a size-capped tmpfs as the only
writable place (and the working directory); when pytest runs as root, an unprivileged
uid of its own per run (from this process's block, see UID_BASE, through `setpriv`), else
a user namespace; killed with its whole pid namespace when pytest dies or the timeout
strikes. `process`: a process group and rlimits only. Both: a seccomp filter denies the
kernel keyrings (`seccomp.py`, installed by `inside.py` and `inside_server.py`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final, Literal

from pytest_codeif.sandbox import seccomp

#: The installed pytest_codeif package, whose harnesses run inside the sandbox.
PACKAGE_DIR: Final = Path(__file__).resolve().parent.parent


BackendName = Literal["bubblewrap", "process"]
#: Sandboxed code runs as a uid of its own per concurrent run: each pytest process (so
#: each xdist worker) owns a block of UID_BLOCK uids, one per run in flight. RLIMIT_NPROC
#: counts per uid, so a fork bomb in one run cannot starve another, and the processes a
#: run leaves can be found and killed by uid without touching any other run.
UID_BASE: Final = 61000
UID_SPAN: Final = 3008
#: 47 blocks in the span: as many pytest processes (xdist workers) at once on a machine.
UID_BLOCK: Final = 64
SCRATCH_BYTES: Final = 64 * 1024 * 1024
#: A fork server's empty mount point where each run's namespace keeps the server's /tmp
#: (and the Python installation bound under it, a venv in /tmp say) while it mounts a
#: fresh scratch tmpfs on /tmp, to bind those folders back (see `inside_server.py`).
SERVER_STASH: Final = "/.codeif-stash"
#: A stage's scratch (`stage_command`): its service's and cases' writable copies of the
#: code live there, with a database's files, beside what the code writes to /tmp.
STAGE_SCRATCH_BYTES: Final = 512 * 1024 * 1024
#: The stage's private folder, a tmpfs of its own: every child of the stage sees an
#: empty one there instead (see `functional/stage_harness.py`).
STAGE_PRIVATE: Final = "/.codeif-stage"
#: The empty mount point where each child of a stage finds its own folder.
STAGE_WORK: Final = "/.codeif-work"

_SYSTEM_DIRS: Final = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/ld.so.cache")

#: Promises that only bubblewrap keeps, in the words the summary header prints.
PROCESS_GAPS: Final = (
    "no network isolation",
    "no filesystem isolation (the code can read and write what the pytest user can, "
    "pytest's own descriptors through /proc included: it can forge its results)",
    "a grandchild that calls setsid can outlive the timeout",
    "disk use capped per file only",
)
#: Where the seccomp filter has no numbers for the machine (neither x86_64 nor aarch64).
NO_SECCOMP_GAP: Final = (
    "kernel keyrings not denied: what a run adds to its uid's keyring is seen by later "
    "runs of that uid (no seccomp filter for this architecture)"
)


@dataclass(frozen=True)
class Isolation:
    """A chosen backend; `wrap` turns a Python command line into the sandboxed one."""

    name: BackendName
    as_nobody: bool = False  # pytest runs as root: drop to `uid` inside
    reason: str = ""  # why this backend (e.g. why bubblewrap is not in use)
    uid: int = 65534  # the first uid of this process's block (used only as_nobody)

    @property
    def gaps(self) -> tuple[str, ...]:
        lost = () if seccomp.supported() else (NO_SECCOMP_GAP,)
        if self.name == "bubblewrap":
            return lost
        root = hasattr(os, "geteuid") and os.geteuid() == 0
        # RLIMIT_NPROC does not bind root: as root, the process backend has no process cap.
        lost = (*lost, "no process cap (pytest runs as root)") if root else lost
        return (*PROCESS_GAPS, *lost)

    def describe(self) -> str:
        if self.name == "bubblewrap":
            who = (
                f"uids {self.uid}-{self.uid + UID_BLOCK - 1}"
                if self.as_nobody
                else "a user namespace"
            )
            keyrings = ", no keyrings" if seccomp.supported() else ""
            said = (
                f"bubblewrap (no network, read-only system, tmpfs scratch, {who}, "
                f"pid namespace, rlimits{keyrings})"
            )
            return f"{said}; not in force: {'; '.join(self.gaps)}" if self.gaps else said
        return f"process group + rlimits ({self.reason}); not in force: {'; '.join(self.gaps)}"

    def wrap(
        self,
        argv: Sequence[str],
        code_dir: Path,
        scratch: Path,
        env: Mapping[str, str],
        uid: int | None = None,
    ) -> tuple[list[str], Path, dict[str, str]]:
        """(command, working directory, environment) for running `argv` in the sandbox,
        as `uid` (default: the block's first) when running as root."""
        uid = self.uid if uid is None else uid
        if self.name == "process":
            return list(argv), scratch, dict(env)
        cmd = _sandbox(self.as_nobody, _read_only([*_python_dirs(), code_dir]), env)
        if self.as_nobody:
            cmd += [_setpriv(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
            cmd += ["--no-new-privs", "--"]
        return [*cmd, *argv], Path("/"), {}

    @property
    def forks(self) -> bool:
        """Whether a fork server can keep this backend's promises: under bubblewrap, where
        the server gives each run namespaces and mounts of its own (and, as root, a uid
        of its own)."""
        return self.name == "bubblewrap" and hasattr(os, "pidfd_open")

    def server_command(
        self, argv: Sequence[str], shared: Path, env: Mapping[str, str]
    ) -> list[str]:
        """The sandbox of a fork server: like a run's, without any run's code (each run's
        files reach the server in memory, see `inside_server.py`), with a mount point at
        `shared` (the folder the runs' code folders are in) when it is not under /tmp,
        and the capabilities the server needs to set up each run's namespaces and
        nothing else: as root, root with CAP_SYS_ADMIN, CAP_SETUID and CAP_SETGID; else
        pytest's uid in a user namespace, with CAP_SYS_ADMIN there."""
        binds = _read_only(_python_dirs())
        binds += ["--perms", "0700", "--dir", SERVER_STASH]
        if not shared.is_relative_to("/tmp"):  # inside_server.py mounts a tmpfs there
            binds += [*_parents(shared), "--perms", "0755", "--dir", str(shared)]
        cmd = _sandbox(self.as_nobody, binds, env)
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"]
        if self.as_nobody:  # root: the server gives each run a uid of its block
            cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        return [*cmd, *argv]

    def stage_command(
        self,
        argv: Sequence[str],
        code_dir: Path,
        env: Mapping[str, str],
        *,
        binds: Sequence[Path] = (),
        files: Sequence[tuple[Path, str]] = (),
    ) -> list[str]:
        """The sandbox of a stage (`stage.py`): a run's, with a scratch of
        STAGE_SCRATCH_BYTES, the code read-only, the folders `binds` read-only at their
        own place (Newman's packages, say), each (host file, path) of `files` read-only
        at that path (/etc/hosts...), a private tmpfs at STAGE_PRIVATE, empty mount
        points at STAGE_WORK and SERVER_STASH, and the capabilities the stage needs to
        give each child namespaces of its own: CAP_SYS_ADMIN; as root also CAP_SETUID
        and CAP_SETGID, to give them the run's uid, and CAP_KILL, to stop what runs as
        that uid (the stage itself stays root, in its own pid namespace, where only its
        children run)."""
        paths = _read_only([*_python_dirs(), code_dir, *binds])
        # What programs of the system need from /etc, read-only: Debian's alternatives
        # (`awk`, `cc`, `java`, `which` are links through them), certificates, time zone,
        # a JDK's configuration. Nothing of the host's accounts or secrets.
        for shared in _stage_etc():
            paths += ["--ro-bind", shared, shared]
        # bwrap made /etc (for ld.so.cache) 0700: the run's uid must read the files here.
        paths += ["--chmod", "0755", "/etc"]
        for source, target in files:
            paths += ["--ro-bind", str(source), target]
        paths += ["--perms", "0755", "--size", str(STAGE_SCRATCH_BYTES), "--tmpfs", STAGE_PRIVATE]
        paths += ["--perms", "0755", "--dir", STAGE_WORK]
        paths += ["--perms", "0700", "--dir", SERVER_STASH]  # each child's own /tmp's
        cmd = _sandbox(self.as_nobody, paths, env, STAGE_SCRATCH_BYTES)
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"]
        if self.as_nobody:
            for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_KILL"):
                cmd += ["--cap-add", cap]
        return [*cmd, *argv]


#: What a stage binds of the host's /etc (each where it exists; see `_stage_etc`). Each
#: is directly under /etc: bwrap would make a missing parent 0700, and a program that
#: then cannot read `/etc/ssl/openssl.cnf` (Node.js) stops at start.
STAGE_ETC: Final = (
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/mime.types",
    "/etc/protocols",
    "/etc/services",
    "/etc/java-*",
)


def _stage_etc() -> list[str]:
    """The entries of STAGE_ETC this machine has (a JDK's folder by its glob)."""
    found: list[str] = []
    for pattern in STAGE_ETC:
        found.extend(sorted(str(p) for p in Path("/").glob(pattern.lstrip("/"))))
    return found


def _sandbox(
    as_nobody: bool, binds: list[str], env: Mapping[str, str], scratch: int = SCRATCH_BYTES
) -> list[str]:
    """bwrap's namespaces, read-only system, scratch tmpfs, `binds` and environment."""
    cmd = [_bwrap(), *_namespaces(as_nobody), "--die-with-parent", "--new-session"]
    for path in _SYSTEM_DIRS:
        cmd += ["--ro-bind-try", path, path]
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    cmd += ["--perms", "1777", "--size", str(scratch), "--tmpfs", "/tmp"]
    cmd += binds
    cmd += ["--chdir", "/tmp", "--clearenv"]
    for key, value in sorted(env.items()):
        cmd += ["--setenv", key, value]
    return cmd


def _parents(path: Path) -> list[str]:
    """bwrap arguments creating the missing parents of `path` with mode 0755 (bwrap's
    own would be 0700, which the sandbox's unprivileged uid cannot cross)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent not in (Path("/"), Path("/tmp")):
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _read_only(paths: Sequence[Path]) -> list[str]:
    """Bind `paths` read-only at their own place. bwrap would create their missing
    parents with mode 0700, which the sandbox's unprivileged uid cannot cross: create
    them 0755 first."""
    args: list[str] = []
    made = {Path("/"), Path("/tmp")}
    for path in paths:
        for parent in reversed(path.parents):
            if parent not in made:
                args += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        args += ["--ro-bind", str(path), str(path)]
    return args


def _namespaces(as_nobody: bool) -> list[str]:
    spaces = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    spaces.append("--unshare-cgroup-try")
    # As root, no user namespace: setpriv then drops to a real unprivileged uid, which
    # makes RLIMIT_NPROC apply. As another user, a user namespace is the only way in.
    return spaces if as_nobody else [*spaces, "--unshare-user", "--disable-userns"]


def _bwrap() -> str:
    return shutil.which("bwrap") or "bwrap"


def _setpriv() -> str:
    return shutil.which("setpriv") or "setpriv"


def python_dirs_in_tmp() -> list[str]:
    """The bound Python folders under /tmp, which a run's fresh /tmp would hide (a
    virtual environment or an editable install in a temporary folder: CI's case)."""
    return [str(p) for p in _python_dirs() if p.is_relative_to("/tmp")]


@cache
def _python_dirs() -> tuple[Path, ...]:
    """The interpreter, its standard library and site-packages, and this package (an
    editable install lives outside site-packages), without nested duplicates; and the
    Node.js executable when it lies outside the system folders (`_node_binary`)."""
    wanted = {
        Path(p).resolve()
        for p in (sys.base_prefix, sys.prefix, sys.exec_prefix, sys.base_exec_prefix)
    }
    wanted.add(Path(sys.executable).resolve().parent)
    wanted.add(PACKAGE_DIR)
    node = _node_binary()
    if node is not None:
        wanted.add(node)
    ordered = sorted(wanted, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in ordered:
        system = any(path.is_relative_to(s) for s in _SYSTEM_DIRS)
        if not system and not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return tuple(kept)


def _node_binary() -> Path | None:
    """Node.js' executable (run by the call cases of JavaScript code, by its path), when
    it lies outside the system folders (nvm's, a release unpacked in /opt): the file
    alone, which needs no more than the system's libraries, never the folder it is in (a
    home folder's `.local`). Not under /tmp, whose runs get a fresh one."""
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        return None
    node = Path(found).resolve()
    system = any(node.is_relative_to(s) for s in _SYSTEM_DIRS)
    return None if system or node.is_relative_to("/tmp") else node


@cache
def choose_isolation(requested: str) -> Isolation:
    """The backend for `requested` (auto, bubblewrap or process).

    Raises ValueError when bubblewrap was asked for and cannot run here.
    """
    if requested == "process":
        return Isolation("process", reason="chosen with --codeif-sandbox=process")
    problem = _probe_bubblewrap()
    if problem is None:
        nobody = _use_nobody()
        return Isolation("bubblewrap", as_nobody=nobody, uid=_free_uid() if nobody else 65534)
    if requested == "bubblewrap":
        raise ValueError(f"--codeif-sandbox=bubblewrap, but bubblewrap cannot run: {problem}")
    return Isolation("process", reason=problem)


def _free_uid() -> int:
    """The first uid of a block no running process uses, chosen from this process's pid."""
    blocks = UID_SPAN // UID_BLOCK
    in_use = {uid for uid in _running_uids() if UID_BASE <= uid < UID_BASE + UID_SPAN}
    for step in range(blocks):
        base = UID_BASE + ((os.getpid() + step) % blocks) * UID_BLOCK
        if not in_use & set(range(base, base + UID_BLOCK)):
            return base
    return UID_BASE


def _running_uids() -> set[int]:
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                found.add(entry.stat().st_uid)
            except OSError:
                continue
    return found


def processes_of(uid: int) -> list[int]:
    """Pids of the running processes owned by `uid`."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _use_nobody() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv") is not None


def _probe_bubblewrap() -> str | None:
    """None when a sandboxed `python -c pass` works, else why not."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return "bwrap not found (install the `bubblewrap` package)"
    probe = Isolation("bubblewrap", as_nobody=_use_nobody())
    here = PACKAGE_DIR
    cmd, cwd, env = probe.wrap([sys.executable, "-I", "-c", "pass"], here, here, {})
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start: {exc}"
    if done.returncode != 0:
        text = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap failed: {text[-1] if text else done.returncode}"
    return None

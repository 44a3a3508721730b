"""The host side of a stage: one sandboxed process (`functional/stage_harness.py`) that
runs a task's database, service and behavioural cases and reports what it observed.

`run_stage` writes the code folder, completes the plan with what only the host knows
(the code folder's path, the run's uid, whether children are nested, the interpreter,
the base environment, the private folder; each Newman collection's text, so that the
collection itself need not be visible in the sandbox), and starts the stage like any
run (`process.run_python`): `python -S -s -P inside.py launch SPEC -- stage_harness.py
--channel FD`, the plan on stdin, the observations on the channel. No fork server: a
stage needs a sandbox of its own.

Under bubblewrap the sandbox is `Isolation.stage_command`'s: a run's, with a larger
scratch, /etc/hosts (`postgres` is 127.0.0.1), /etc/passwd, /etc/group and
/etc/nsswitch.conf written here and bound read-only, the folders the tools need bound
read-only, and the capabilities the stage needs to give each child namespaces (and, as
root, the run's uid) of its own. Its rlimits are a run's, with more room for files
(STAGE_FILE_BYTES) and processes (STAGE_PROCESSES).

The `process` backend runs command-line cases only (each in a process group of its
own); a service or a database needs bubblewrap's network namespace, and is refused
(ValueError) before anything runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pytest_codeif.sandbox.code_folder import write_folder
from pytest_codeif.sandbox.isolation import (
    PACKAGE_DIR,
    SERVER_STASH,
    STAGE_PRIVATE,
    STAGE_WORK,
    Isolation,
    processes_of,
    python_dirs_in_tmp,
)
from pytest_codeif.sandbox.process import (
    MIB,
    SLOTS,
    STARTUP_SECONDS,
    Limits,
    RunResult,
    rlimits,
    scrubbed_env,
)
from pytest_codeif.sandbox.stage_tools import NewmanTool, PostgresTools
from pytest_codeif.sandbox.startup import interpreter_spec, launch_argv
from pytest_codeif.sandbox.streams import RunFiles
from pytest_codeif.sandbox.wait import kill_group, wait_process

#: The stage's harness, run inside the sandbox.
STAGE_HARNESS: Final = PACKAGE_DIR / "functional" / "stage_harness.py"
#: A stage's file size limit (a database's files, Newman's report, the channel).
STAGE_FILE_BYTES: Final = 64 * MIB
#: Processes (and threads) the run's uid may have: a database, a service with workers,
#: Node.js' threads.
STAGE_PROCESSES: Final = 256
#: Address space of the service and of Node.js (Newman): V8 reserves more than a plain
#: run's 1 GiB (Newman aborts below 2 GiB), as Node.js services do.
LARGE_MEMORY_BYTES: Final = 4096 * MIB
#: Bytes of the channel read (the stage writes at most 48 MiB, see CHANNEL_BUDGET).
CHANNEL_BYTES: Final = 64 * MIB
#: Bytes of a Newman collection passed to the stage.
MAX_COLLECTION: Final = 32 * MIB
#: Where the hosts file sends the name `postgres`: the database listens there.
HOSTS: Final = "127.0.0.1 localhost postgres\n::1 localhost\n"
NSSWITCH: Final = "".join(
    f"{name}: files\n"
    for name in ("passwd", "group", "shadow", "hosts", "networks", "protocols", "services")
)


def run_stage(  # noqa: PLR0917 - as run_python, with the files of the code folder
    plan: Mapping[str, Any],
    files: Mapping[str, bytes],
    code_dir: Path,
    io_dir: Path,
    limits: Limits,
    isolation: Isolation,
    *,
    binds: Sequence[Path] = (),
    on_slow: Callable[[], None] | None = None,
) -> RunResult:
    """Run the stage of `plan` (keys `env`, `database`, `service`, `steps`, as the
    design says) on the code `files` (written to `code_dir`, read-only inside); `io_dir`
    (host only) holds the run's files; `binds` are more folders or files made readable
    inside at their own place (a Newman step's tool folders and a database's are bound
    without being named; a Newman collection is passed in the plan, never bound).
    `limits.timeout` is the whole stage's. The observations are the result's `channel`.

    Raises ValueError for a service or a database under the `process` backend."""
    nested = isolation.name == "bubblewrap"
    if not nested and (plan.get("service") or plan.get("database")):
        raise ValueError(
            "a service or a database needs the bubblewrap sandbox (its own network "
            f"namespace); this run uses the {isolation.name} backend"
        )
    write_folder(code_dir, files)
    io_dir.mkdir(parents=True, exist_ok=True)
    steps = [_with_collection(step) for step in plan.get("steps") or []]
    bound = _binds(plan, binds)
    python_dirs = [Path(p) for p in python_dirs_in_tmp()]
    with contextlib.ExitStack() as stack:
        taken = stack.enter_context(SLOTS.take(isolation)) if isolation.as_nobody else None
        uid = taken.uid if taken is not None else None
        private = io_dir / "stage"
        if not nested:
            shutil.rmtree(private, ignore_errors=True)
            private.mkdir()
        full = {
            **plan,
            "steps": steps,
            "code": str(code_dir),
            "uid": uid,
            "nested": nested,
            "python": sys.executable,
            "env": {**scrubbed_env(), **dict(plan.get("env") or {})},
            "private": STAGE_PRIVATE if nested else str(private),
            "work": STAGE_WORK,
            "stash": SERVER_STASH,
            "tmp_binds": [str(p) for p in _under_tmp([code_dir, *python_dirs, *bound])],
            "memory": {
                "default": limits.memory_bytes,
                "large": max(limits.memory_bytes, LARGE_MEMORY_BYTES),
            },
        }
        run_files = stack.enter_context(RunFiles(io_dir, json.dumps(full).encode()))
        channel = run_files.outputs["channel"]
        spec = {
            **interpreter_spec(scrubbed_env()),
            "limits": stage_rlimits(limits, isolation),
            "parent": None if nested else os.getpid(),
        }
        argv = launch_argv(spec, [str(STAGE_HARNESS), "--channel", str(channel)])
        if nested:
            cmd = isolation.stage_command(
                argv,
                code_dir,
                scrubbed_env(),
                binds=bound,
                files=_etc_files(io_dir, uid),
            )
            cwd, env = Path("/"), {}
        else:
            cmd, cwd, env = argv, private, scrubbed_env()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=run_files.stdin,
            stdout=run_files.outputs["stdout"],
            stderr=run_files.outputs["stderr"],
            pass_fds=(channel,),
            start_new_session=True,
        )
        try:
            ended = wait_process(proc, limits.timeout + STARTUP_SECONDS, on_slow)
        finally:
            kill_group(proc.pid)
            proc.wait()
        # Whatever ran as the run's uid is reaped before the uid serves another run.
        if taken is not None:
            taken.dirty = True
        return RunResult(
            proc.returncode if ended else None,
            not ended,
            run_files.head("stdout", limits.output_bytes),
            run_files.head("stderr", limits.output_bytes),
            run_files.head("channel", CHANNEL_BYTES),
        )


def stage_rlimits(limits: Limits, isolation: Isolation) -> list[tuple[int, int]]:
    """A run's rlimits, with STAGE_FILE_BYTES per file, STAGE_PROCESSES processes and
    the address space of the largest child (each child gets its own, lower or equal)."""
    pairs = dict(rlimits(limits, isolation))
    pairs[resource.RLIMIT_AS] = max(limits.memory_bytes, LARGE_MEMORY_BYTES)
    pairs[resource.RLIMIT_FSIZE] = max(limits.file_bytes, STAGE_FILE_BYTES)
    own = 0 if isolation.as_nobody else len(processes_of(os.getuid()))
    pairs[resource.RLIMIT_NPROC] = own + STAGE_PROCESSES
    return list(pairs.items())


def _with_collection(step: Mapping[str, Any]) -> dict[str, Any]:
    """A step as the stage takes it: a Newman step with its collection's text."""
    found = dict(step)
    if found.get("kind") != "newman":
        return found
    path = Path(str(found.get("collection", "")))
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_COLLECTION + 1)
    except OSError as exc:
        found["collection_error"] = f"cannot read the collection {path}: {exc.strerror}"
        return found
    if len(data) > MAX_COLLECTION:
        found["collection_error"] = f"the collection {path} is larger than {MAX_COLLECTION} bytes"
        return found
    found["collection_json"] = data.decode("utf-8", "replace")
    return found


def _binds(plan: Mapping[str, Any], given: Sequence[Path]) -> list[Path]:
    """`given` and the folders the plan's tools need, without the collections (passed in
    the plan: bound, they would be readable by the service), each once."""
    collections = set()
    wanted = list(given)
    for step in plan.get("steps") or []:
        if step.get("kind") == "newman":
            collections.add(Path(str(step.get("collection", ""))))
            script, node = Path(str(step["script"])), Path(str(step["node"]))
            package = step.get("package")
            tool = NewmanTool(script, Path(str(package)) if package else script.parent, node)
            wanted += tool.binds
    database = plan.get("database")
    if database and database.get("bindir"):
        wanted += PostgresTools(Path(str(database["bindir"]))).binds
    kept = [p for p in dict.fromkeys(wanted) if p not in collections and p.exists()]
    return kept


def _under_tmp(paths: Sequence[Path]) -> list[Path]:
    """The read-only places under /tmp, which each child's own /tmp binds again."""
    return [p for p in dict.fromkeys(paths) if p.is_relative_to("/tmp")]


def _etc_files(io_dir: Path, uid: int | None) -> list[tuple[Path, str]]:
    """/etc/hosts, /etc/passwd, /etc/group and /etc/nsswitch.conf for the sandbox,
    written to `io_dir` (bound read-only): tools look their user up (initdb refuses to
    run for a uid without a name), and clients find `postgres` at 127.0.0.1."""
    etc = io_dir / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    user = uid if uid is not None else os.getuid()
    group = uid if uid is not None else os.getgid()
    passwd = ["root:x:0:0:root:/root:/bin/sh"]
    groups = ["root:x:0:"]
    if user != 0:
        passwd.append(f"codeif:x:{user}:{group}:codeif:/tmp:/bin/sh")
    if group != 0:
        groups.append(f"codeif:x:{group}:")
    if user != 65534:
        passwd.append("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin")
    if group != 65534:
        groups.append("nogroup:x:65534:")
    contents = {
        "hosts": HOSTS,
        "passwd": "\n".join(passwd) + "\n",
        "group": "\n".join(groups) + "\n",
        "nsswitch.conf": NSSWITCH,
    }
    placed: list[tuple[Path, str]] = []
    for name, content in contents.items():
        path = etc / name
        path.write_text(content, encoding="utf-8")
        path.chmod(0o644)
        placed.append((path, f"/etc/{name}"))
    return placed

"""The stage: runs a task's database, service and behavioural cases inside the sandbox
and writes what it observed to the result channel. Standard library only; loaded by
file path inside the sandbox (started by `sandbox/stage.py` through `inside.py`).

Trust: the stage holds the result channel (descriptor 3), is not dumpable, never runs
code under evaluation in its own process, and writes raw observations only: the status,
headers and body of an answer; how a program ended, what it printed and the files it
wrote, read once nothing of it runs; the assertions Newman counted; a child pytest's
records. The host judges them. Every child runs as described in `stage_spawn.py`: the
service, the database and each program in a nested pid and mount namespace of its own
(under bubblewrap) where the stage's private folder (logs, reports, the cases' own
copies of the code) is an empty tmpfs, with no capability, no_new_privs, the seccomp
filter and, when the stage is root, the run's uid.

Usage: python stage_harness.py --channel FD < PLAN.json. The plan (see
`sandbox/stage.py` and the issue's design) names the read-only code folder, the run's
uid, whether children are nested, the interpreter, the base environment, the database,
the service and the steps. Records, one JSON object a line, in this order: `database`
(when one was asked for), `service` (after its ready wait), one `step` record per step,
`service_end`, and `done` last; a stage that dies writes no `done`.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import importlib.util
import json
import os
import shutil
import signal
import stat
import sys
import time
import traceback
import urllib.parse
from types import ModuleType

TYPE_CHECKING = False  # typing itself is not imported: the stage starts without it
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import Any, Final

    from pytest_codeif.functional import stage_http as http
    from pytest_codeif.functional import stage_newman as newman
    from pytest_codeif.functional import stage_spawn as spawn
    from pytest_codeif.functional import stage_text as text
    from pytest_codeif.sandbox import inside, libc

_HERE = os.path.dirname(os.path.abspath(__file__))
_SANDBOX = os.path.join(os.path.dirname(_HERE), "sandbox")


def _load(name: str, path: str) -> ModuleType:
    """A module by path, under `_codeif_<name>` (the package is not importable here)."""
    key = "_codeif_" + name
    if key in sys.modules:
        return sys.modules[key]
    found = importlib.util.spec_from_file_location(key, path)
    if found is None or found.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(found)
    sys.modules[key] = module
    found.loader.exec_module(module)
    return module


if not TYPE_CHECKING:
    text = _load("stage_text", os.path.join(_HERE, "stage_text.py"))
    spawn = _load("stage_spawn", os.path.join(_HERE, "stage_spawn.py"))
    http = _load("stage_http", os.path.join(_HERE, "stage_http.py"))
    newman = _load("stage_newman", os.path.join(_HERE, "stage_newman.py"))
    libc = _load("libc", os.path.join(_SANDBOX, "libc.py"))
    inside = _load("inside", os.path.join(_SANDBOX, "inside.py"))

#: The harness of a child pytest, and the script that starts it in a sandboxed way.
PYTEST_HARNESS: Final = os.path.join(_HERE, "pytest_harness.py")
INSIDE: Final = os.path.join(_SANDBOX, "inside.py")
#: Bytes the stage writes to the channel at most (its file size limit is larger).
CHANNEL_BUDGET: Final = 48 << 20
CHANNEL_RESERVE: Final = 64 << 10
#: Bytes of a program's stdout and of its stderr kept.
OUTPUT_BYTES: Final = 1 << 20
#: Bytes of each file a case wrote kept, files read per case, and bytes read in all.
FILE_BYTES: Final = 1 << 20
MAX_FILES: Final = 100
FILES_BYTES: Final = 8 << 20
#: Head and tail of Newman's and a child pytest's own output kept.
TOOL_OUTPUT: Final = 4096
#: A child pytest's channel: bytes read, records relayed, characters of a string kept.
PYTEST_CHANNEL_BYTES: Final = 16 << 20
MAX_PYTEST_RECORDS: Final = 10_000
MAX_PYTEST_TEXT: Final = 2000
#: Seconds the stage's own work as the run's user may take (copying the code...).
HELPER_SECONDS: Final = 120.0
#: Bytes the stage's helper may send back (a case's files, Newman's summary).
HELPER_BYTES: Final = 64 << 20
#: Seconds between two readiness probes.
POLL_SECONDS: Final = 0.1
#: PostgreSQL: small and fast, for a database that lives as long as one task.
POSTGRES_SETTINGS: Final = (
    "dynamic_shared_memory_type=mmap",
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "shared_buffers=16MB",
    "max_wal_size=64MB",
    "min_wal_size=4MB",
    "logging_collector=off",
)
_TEMPLATES: Final = ("postgres", "template0", "template1")


class Channel:
    """The result channel, written by this process only, within CHANNEL_BUDGET (the
    last CHANNEL_RESERVE bytes kept for the records that end the stage)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.left = CHANNEL_BUDGET

    def emit(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record) + "\n").encode()
        final = "done" in record or "service_end" in record
        if len(data) > self.left - (0 if final else CHANNEL_RESERVE):
            data = (json.dumps(_over_budget(record)) + "\n").encode()
        self.left -= len(data)
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]


def _over_budget(record: dict[str, Any]) -> dict[str, Any]:
    message = "the stage's observations exceeded the result channel's budget"
    if "step" in record:
        return {"step": record["step"], "error": message}
    return {key: {"error": message} for key in record}


class Stage:
    """One stage: the plan, the channel, and the children it started."""

    def __init__(self, plan: Mapping[str, Any], channel: Channel) -> None:
        # What is not there cannot be imported from, whatever a child writes later
        # (the interpreter's folders are read-only; /tmp is the children's).
        sys.path[:] = [p for p in sys.path if os.path.exists(p)]
        self.plan = plan
        self.channel = channel
        self.code = str(plan["code"])
        self.private = str(plan["private"])
        uid = plan.get("uid")
        self.libc = libc.Libc()
        self.libc.not_dumpable()
        self.spawner = spawn.Spawner(
            self.libc,
            nested=bool(plan.get("nested")),
            uid=uid if type(uid) is int else None,
            private=self.private,
            work=str(plan["work"]),
            denied=inside.run_filter(),
            stash=str(plan.get("stash", "")),
            tmp_binds=[str(p) for p in plan.get("tmp_binds") or []],
        )
        self.logs = os.path.join(self.private, "logs")
        self.users = os.path.join(self.private, "u")
        os.makedirs(self.logs, mode=0o700, exist_ok=True)
        os.makedirs(self.users, exist_ok=True)
        # The run's user makes its own folders here; nothing else of the run sees it.
        os.chmod(self.users, 0o1777)  # noqa: S103
        self.env = _base_env(plan)
        #: What `${name}` may say: the service's URL, the database's, and captures.
        self.variables: dict[str, Any] = {
            name: self.env[name]
            for name in ("CODEIF_SERVICE_URL", "DATABASE_URL")
            if name in self.env
        }
        memory = plan.get("memory") or {}
        #: Address space of each child (bytes): `large` for the service, command-line
        #: programs and Node.js (Newman), whose heap reservations (a JVM's, V8's)
        #: exceed a plain run's limit.
        self.memory = _bytes(memory.get("default"))
        self.large_memory = _bytes(memory.get("large")) or self.memory
        self.service: spawn.Child | None = None
        self.database: spawn.Child | None = None
        self.service_ready = False

    # -- the whole stage -----------------------------------------------------------------
    def run(self) -> None:
        try:
            if self.plan.get("database"):
                self.channel.emit({"database": self._guarded(self.start_database)})
            if self.plan.get("service"):
                self.channel.emit({"service": self._guarded(self.start_service)})
            for index, step in enumerate(self.plan.get("steps") or []):
                self.channel.emit(self.step(index, step))
            if self.plan.get("service"):
                self.channel.emit({"service_end": self._guarded(self.stop_service)})
        finally:
            for child in (self.service, self.database):
                if child is not None:
                    child.finish()
        self.channel.emit({"done": True})

    def _guarded(self, start: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            found: dict[str, Any] = start()
        except Exception as exc:  # noqa: BLE001 - the stage's failure is a record
            traceback.print_exc()  # the stage's stderr: the host shows it
            return {"ready": False, "error": f"the stage failed: {type(exc).__name__}: {exc}"}
        return found

    def step(self, index: int, step: Mapping[str, Any]) -> dict[str, Any]:
        """The one record of step `index`."""
        kind = step.get("kind")
        try:
            if kind == "cli":
                return {"step": index, **self.cli(index, step)}
            if self.plan.get("service") and not self.service_ready:
                return {"step": index, "error": "the service was not ready"}
            if kind == "http":
                return {"step": index, **self.http(step)}
            if kind == "newman":
                return {"step": index, **self.newman(index, step)}
            if kind == "pytest":
                return {"step": index, **self.pytest(index, step)}
            return {"step": index, "error": f"not a step the stage knows: {str(kind)[:50]}"}
        except http.UnknownVariable as exc:
            return {"step": index, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the stage's failure is a record
            traceback.print_exc()  # the stage's stderr: the host shows it
            return {"step": index, "error": f"the stage failed: {type(exc).__name__}: {exc}"}

    # -- folders, as the run's user -------------------------------------------------------
    def copy_code(self, name: str) -> str:
        """A fresh writable copy of the code folder, the run's user's own."""
        folder = os.path.join(self.users, name)
        source = self.code

        def work() -> bytes:
            shutil.copytree(source, folder, symlinks=True)
            return b""

        self.spawner.as_run_user(work, limit=0, timeout=HELPER_SECONDS)
        return folder

    def mark_executable(self, folder: str, argv: Sequence[str]) -> str | None:
        """Give the script a service starts with (`./run.sh`, alone or first in a shell
        command) its executable bit on the copy, where it lacks one: the benchmarks run
        `chmod +x run.sh` before `./run.sh`, and an agent's files often come without it.
        Only a regular file right in the folder (never a link), as the run's user, who
        may do as much; its name, or None when nothing was set."""
        words = argv[2].split() if list(argv[:2]) == ["/bin/sh", "-c"] and len(argv) > 2 else argv
        first = words[0] if words else ""
        name = first[2:]
        if not first.startswith("./") or not name or "/" in name or name in (".", ".."):
            return None
        path = os.path.join(folder, name)

        def work() -> bytes:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_mode & stat.S_IXUSR:
                return b""
            os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IXUSR)
            return b"set"

        try:
            done = self.spawner.as_run_user(work, limit=16, timeout=HELPER_SECONDS)
        except OSError:
            return None  # no such file: the shell will say so, as it would there
        return first if done == b"set" else None

    def make_folder(self, name: str, files: Mapping[str, bytes]) -> str:
        """A fresh folder of the run's user holding `files` (name -> content)."""
        folder = os.path.join(self.users, name)

        def work() -> bytes:
            os.mkdir(folder, 0o755)
            for file_name, data in files.items():
                with open(os.path.join(folder, file_name), "wb") as handle:
                    handle.write(data)
            return b""

        self.spawner.as_run_user(work, limit=0, timeout=HELPER_SECONDS)
        return folder

    def remove(self, folder: str) -> None:
        """Remove what a case left (as the run's user: the files are its own)."""

        def work() -> bytes:
            shutil.rmtree(folder, ignore_errors=True)
            return b""

        with contextlib.suppress(OSError):
            self.spawner.as_run_user(work, limit=0, timeout=HELPER_SECONDS)

    def read_files(self, folder: str, names: list[str]) -> dict[str, Any]:
        """The files `names` (relative paths) a case wrote in `folder`: `files` maps each
        to its text (None: nothing there), `other` names those there but not regular
        files reached without a symbolic link, `unread` those past the bytes read for
        one case, `cut` those longer than the bytes read of one file."""
        wanted = [name for name in names if isinstance(name, str)][:MAX_FILES]

        def work() -> bytes:
            budget = FILES_BYTES
            told: dict[str, Any] = {"files": {}, "other": [], "unread": [], "cut": []}
            for name in wanted:
                if budget <= 0:
                    told["files"][name] = None
                    told["unread"].append(name)
                    continue
                data, longer, there = _read_inside(folder, name, min(FILE_BYTES, budget))
                if data is not None:
                    budget -= len(data)
                elif there:
                    told["other"].append(name)
                told["files"][name] = None if data is None else text.text(data)
                if longer:
                    told["cut"].append(name)
            return json.dumps(told).encode()

        found: dict[str, Any] = json.loads(
            self.spawner.as_run_user(work, limit=HELPER_BYTES, timeout=60)
        )
        return found

    # -- the database ---------------------------------------------------------------------
    def start_database(self) -> dict[str, Any]:
        spec = self.plan["database"]
        if spec.get("kind") != "postgres":
            return {"ready": False, "error": f"no database of kind {str(spec.get('kind'))[:50]}"}
        started = time.monotonic()
        deadline = started + float(spec.get("timeout", 30))
        bindir, user = str(spec["bindir"]), str(spec.get("user", "user"))
        password, name = str(spec.get("password", "password")), str(spec.get("name", "conduit"))
        port = int(spec.get("port", 5432))
        log_path = os.path.join(self.logs, "database.log")
        folder = self.make_folder("postgres", {"pwfile": password.encode() + b"\n"})
        where = self.spawner.where(folder)
        data = os.path.join(where, "data")
        env = {**self.env, "LC_ALL": "C", "TZ": "UTC", "HOME": where}

        def ended(error: str | None = None) -> dict[str, Any]:
            found = {
                "ready": error is None,
                "seconds": round(time.monotonic() - started, 3),
                "log": text.read_log(log_path),
            }
            return found if error is None else {**found, "error": error}

        initdb = [os.path.join(bindir, "initdb"), "-D", data, "-U", user]
        initdb += [f"--pwfile={where}/pwfile", "--auth=scram-sha-256", "-E", "UTF8"]
        initdb += ["--locale=C", "--no-sync", "--wal-segsize=1"]
        status = self._run_logged(initdb, env, folder, log_path, deadline)
        if status != 0:
            return ended(f"initdb failed (exit status {status})")
        server = [os.path.join(bindir, "postgres"), "-D", data, "-p", str(port)]
        server += ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={where}"]
        for setting in POSTGRES_SETTINGS:
            server += ["-c", setting]
        with _log_file(log_path) as log:
            self.database = self.spawner.start(
                spawn.Job(server, env, folder, stdout=log, stderr=log)
            )
        while not http.tcp_open(port, deadline - time.monotonic()):
            if self.database.ended(POLL_SECONDS):
                return ended(f"the server exited (status {self.database.finish().exit})")
            if time.monotonic() >= deadline:
                return ended("the server did not accept connections in time")
        if name in _TEMPLATES:
            return ended()
        createdb = [os.path.join(bindir, "createdb"), "-h", "127.0.0.1", "-p", str(port)]
        createdb += ["-U", user, "--no-password", name]
        while True:
            created = self._run_logged(
                createdb, {**env, "PGPASSWORD": password}, folder, log_path, deadline
            )
            if created == 0:
                return ended()
            if time.monotonic() >= deadline or self.database.ended(POLL_SECONDS * 2):
                return ended(f"createdb failed (exit status {created})")

    def _run_logged(
        self, argv: list[str], env: Mapping[str, str], folder: str, log_path: str, deadline: float
    ) -> int | None:
        """Run a database tool to its end (or the deadline), its output to the log."""
        with _log_file(log_path) as log:
            job = spawn.Job(argv, env, folder, stdout=log, stderr=log, memory=self.memory)
            child = self.spawner.start(job)
        spawn.communicate(child, {}, deadline)
        ending = child.finish()
        if ending.error is not None:
            raise OSError(f"the stage could not start {os.path.basename(argv[0])}: {ending.error}")
        return ending.exit

    # -- the service ----------------------------------------------------------------------
    def start_service(self) -> dict[str, Any]:
        spec = self.plan["service"]
        port, ready = int(spec["port"]), str(spec.get("ready", "tcp"))
        started = time.monotonic()
        deadline = started + float(spec.get("timeout", 60))
        log_path = os.path.join(self.logs, "service.log")

        def found(ready_now: bool, error: str | None = None) -> dict[str, Any]:
            ending = None
            if self.service is not None and not ready_now and self.service.ended():
                ending = self.service.finish()
                if ending.error is not None:
                    error = f"the stage could not start the service: {ending.error}"
            record = {
                "ready": ready_now,
                "seconds": round(time.monotonic() - started, 3),
                "exited": None if ending is None else ending.exit,
                "signal": None if ending is None else ending.signal,
                "log": text.read_log(log_path),
            }
            return record if error is None else {**record, "error": error}

        try:
            own = {
                str(k): http.substitute_text(str(v), self.variables) for k, v in spec["env"].items()
            }
        except http.UnknownVariable as exc:
            return found(False, str(exc))
        env = {**self.env, **own}
        folder = self.copy_code("service")
        argv = [str(a) for a in spec["argv"]]
        marked = self.mark_executable(folder, argv)
        with _log_file(log_path) as log:
            if marked:
                note = f"[codeif] {marked} had no executable bit: set on the copy, as "
                os.write(log, f"{note}Constraint Decay's `chmod +x {marked}` does\n".encode())
            job = spawn.Job(
                argv, env, folder, stdout=log, stderr=log, memory=self.large_memory, linger=True
            )
            self.service = self.spawner.start(job)
        while not self.service.ended():
            if http.probe(port, ready, deadline - time.monotonic()):
                self.service_ready = True
                return found(True)
            if time.monotonic() >= deadline:
                break
            self.service.ended(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
        return found(False)

    def stop_service(self) -> dict[str, Any]:
        """Kill the service (if it still runs) and keep its log as evidence."""
        ending = self.service.finish() if self.service is not None else None
        return {
            "exited": None if ending is None else ending.exit,
            "signal": None if ending is None else ending.signal,
            "log": text.read_log(os.path.join(self.logs, "service.log")),
        }

    # -- steps ----------------------------------------------------------------------------
    def http(self, step: Mapping[str, Any]) -> dict[str, Any]:
        service = self.plan.get("service")
        if not service:
            return {"error": "no service to send the request to"}
        variables = self.variables
        headers = {
            str(k): http.substitute_text(str(v), variables)
            for k, v in (step.get("headers") or {}).items()
        }
        path = http.substitute_text(str(step.get("path", "/")), variables)
        body: bytes | None = None
        if "json" in step:
            body = json.dumps(http.substitute(step["json"], variables)).encode()
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"
        elif step.get("body") is not None:
            body = http.substitute_text(str(step["body"]), variables).encode()
        timeout = float(step.get("timeout", 10))
        method = str(step.get("method", "GET"))
        try:
            answer = http.request(
                int(service["port"]),
                method=method,
                path=path,
                headers=headers,
                body=body,
                timeout=timeout,
            )
        except http.NoAnswer as exc:
            return {"error": str(exc)}
        wanted = {str(k): str(v) for k, v in (step.get("capture") or {}).items()}
        captured, missing = http.capture(answer["body"], wanted)
        self.variables.update(captured)
        return {**answer, "captured": sorted(captured), "missing_captures": missing}

    def cli(self, index: int, step: Mapping[str, Any]) -> dict[str, Any]:
        argv = [str(a) for a in step["argv"]]
        stdin = step.get("stdin")
        names = [str(n) for n in step.get("files") or []]
        folder = self.copy_code(f"case-{index}")
        out, err = text.Capture(OUTPUT_BYTES), text.Capture(OUTPUT_BYTES)
        try:
            feed = None if stdin is None else str(stdin).encode()
            timed_out, ending = self._run_piped(
                # A program in any language: a JVM reserves more than 1 GiB at start.
                spawn.Job(argv, self.env, folder, memory=self.large_memory),
                out=out,
                err=err,
                timeout=float(step.get("timeout", 10)),
                feed=feed,
            )
            if ending.error is not None:
                return {"error": f"the stage could not start the program: {ending.error}"}
            written = self.read_files(folder, names)
        finally:
            self.remove(folder)
        return {
            "exit": None if timed_out else ending.exit,
            "signal": None if timed_out else ending.signal,
            "timed_out": timed_out,
            "stdout": out.first(),
            "stderr": err.first(),
            "stdout_cut": out.truncated,
            "stderr_cut": err.truncated,
            "truncated": out.truncated or err.truncated or bool(written["cut"]),
            "files": written["files"],
            "files_other": written["other"],
            "files_unread": written["unread"],
            "files_cut": written["cut"],
        }

    def _run_piped(
        self,
        job: spawn.Job,
        *,
        out: text.Capture,
        err: text.Capture,
        timeout: float,
        feed: bytes | None,
        channel: text.Capture | None = None,
    ) -> tuple[bool, spawn.Ending]:
        """Run `job` with its stdout, stderr (and result channel) read into captures
        and `feed` on its stdin, to its end or `timeout` seconds."""
        ours: dict[int, text.Capture] = {}
        theirs: list[int] = []
        feeding: tuple[int, bytes] | None = None
        try:
            for capture, slot in ((out, "stdout"), (err, "stderr"), (channel, "channel")):
                if capture is None:
                    continue
                reading, writing = os.pipe()
                ours[reading] = capture
                theirs.append(writing)
                setattr(job, slot, writing)
            if feed is not None:
                reading, writing = os.pipe()
                feeding = (writing, feed)
                theirs.append(reading)
                job.stdin = reading
            child = self.spawner.start(job)
        except BaseException:
            for fd in [*ours, *([feeding[0]] if feeding else [])]:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        timed_out = spawn.communicate(child, ours, time.monotonic() + timeout, feeding)
        return timed_out, child.finish()

    def newman(self, index: int, step: Mapping[str, Any]) -> dict[str, Any]:
        if step.get("collection_error"):
            return {"error": str(step["collection_error"])[:500]}
        variables = {
            str(k): http.substitute_text(str(v), self.variables)
            for k, v in (step.get("variables") or {}).items()
        }
        collection = str(step.get("collection_json", "")).encode()
        folder = self.make_folder(f"newman-{index}", {"collection.json": collection})
        where = self.spawner.where(folder)
        timeout = float(step.get("timeout", 300))
        argv = newman.newman_argv(
            str(step["node"]),
            str(step["script"]),
            collection=os.path.join(where, "collection.json"),
            report=os.path.join(where, "report.json"),
            variables=variables,
            timeout=timeout,
            delay_ms=int(step.get("delay_request", 0) or 0),
        )
        out, err = text.Capture(TOOL_OUTPUT, TOOL_OUTPUT), text.Capture(TOOL_OUTPUT, TOOL_OUTPUT)
        job = spawn.Job(argv, {**self.env, "HOME": where}, folder, memory=self.large_memory)
        timed_out, ending = self._run_piped(job, out=out, err=err, timeout=timeout, feed=None)
        record: dict[str, Any] = {
            "exit": None if timed_out else ending.exit,
            "signal": None if timed_out else ending.signal,
            "timed_out": timed_out,
            "stdout": out.both(),
            "stderr": err.both(),
        }
        if ending.error is not None:
            return {**record, "error": f"the stage could not start Newman: {ending.error}"}
        report = os.path.join(folder, "report.json")

        def work() -> bytes:
            if not os.path.isfile(report):
                raise FileNotFoundError("Newman wrote no report")
            return json.dumps(newman.summarize(report)).encode()

        try:
            summary = json.loads(self.spawner.as_run_user(work, limit=HELPER_BYTES, timeout=60))
        except (OSError, ValueError) as exc:
            summary = {"executions": [], "stats": {}, "error": str(exc)[:500]}
        finally:
            self.remove(folder)
        return {**record, **summary}

    def pytest(self, index: int, step: Mapping[str, Any]) -> dict[str, Any]:
        # The test file sits in a folder of its own, which no other child sees (the
        # service cannot read or rewrite it), and the code folder is not on its import
        # path: beside a service a test reaches the code over HTTP, and a module of the
        # code named like one the test imports (`ssl.py`) is never imported in its place.
        name = os.path.basename(str(step.get("name") or "test_codeif.py"))
        source = base64.b64decode(str(step.get("source") or ""))
        ini = ".codeif-pytest.ini"
        folder = self.make_folder(f"pytest-{index}", {name: source, ini: b"[pytest]\n"})
        where = self.spawner.where(folder)
        args = ["-q", "-p", "no:cacheprovider", "--noconftest", "-c", os.path.join(where, ini)]
        args += ["--rootdir", where, "--import-mode=importlib", os.path.join(where, name)]
        env = {**self.env, **{str(k): str(v) for k, v in (step.get("env") or {}).items()}}
        env["HOME"] = where
        spec = {
            "path": list(sys.path),
            "prefix": sys.prefix,
            "exec_prefix": sys.exec_prefix,
            "limits": [],
        }
        argv = [sys.executable, "-S", "-s", "-P", INSIDE, "launch", json.dumps(spec), "--"]
        argv += [PYTEST_HARNESS, "--channel", str(inside.CHANNEL_FD)]
        request = json.dumps({"args": args}).encode()
        out, err = text.Capture(TOOL_OUTPUT, TOOL_OUTPUT), text.Capture(TOOL_OUTPUT, TOOL_OUTPUT)
        channel = text.Capture(PYTEST_CHANNEL_BYTES)
        try:
            timed_out, ending = self._run_piped(
                spawn.Job(argv, env, folder, memory=self.memory),
                out=out,
                err=err,
                timeout=float(step.get("timeout", 60)),
                feed=request,
                channel=channel,
            )
        finally:
            self.remove(folder)
        if ending.error is not None:
            return {"error": f"the stage could not start pytest: {ending.error}"}
        return {
            "records": _pytest_records(channel.data()),
            "exit": None if timed_out else ending.exit,
            "signal": None if timed_out else ending.signal,
            "timed_out": timed_out,
            "stdout": out.both(),
            "stderr": err.both(),
        }


def _bytes(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def _base_env(plan: Mapping[str, Any]) -> dict[str, str]:
    """The environment of every child: the plan's, the interpreter's folder first on
    PATH, the service's and the database's URLs."""
    env = {str(k): str(v) for k, v in (plan.get("env") or {}).items()}
    python = plan.get("python")
    path = env.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    if isinstance(python, str) and python:
        path = f"{os.path.dirname(python)}:{path}"
    env["PATH"] = path
    service = plan.get("service")
    if service and "CODEIF_SERVICE_URL" not in env:
        env["CODEIF_SERVICE_URL"] = f"http://{http.HOST}:{int(service['port'])}"
    database = plan.get("database")
    if database and database.get("kind") == "postgres" and "DATABASE_URL" not in env:
        user = urllib.parse.quote(str(database.get("user", "user")), safe="")
        password = urllib.parse.quote(str(database.get("password", "password")), safe="")
        where = f"postgres:{int(database.get('port', 5432))}"
        env["DATABASE_URL"] = f"postgresql://{user}:{password}@{where}/{database.get('name')}"
    return env


@contextlib.contextmanager
def _log_file(path: str) -> Iterator[int]:
    """The log at `path`, opened for appending by the stage (its children write to the
    descriptor; only the stage reads the file)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        yield fd
    finally:
        os.close(fd)


def _read_inside(root: str, name: str, limit: int) -> tuple[bytes | None, bool, bool]:
    """The first `limit` bytes of the regular file `name` under `root`, reached without
    following any symbolic link (None when there is none), whether it is longer, and
    whether something is there at all (a link, a folder, a FIFO: not a regular file)."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or name.startswith("/"):
        return None, False, False
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        folder = os.open(root, flags | os.O_DIRECTORY)
    except OSError:
        return None, False, False
    try:
        for part in parts[:-1]:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        fd = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=folder)
    except OSError as exc:
        # Nothing there, or something the program sees there (behind a link, a file
        # where a folder should be, a socket): never read, never "absent".
        return None, False, exc.errno != errno.ENOENT
    finally:
        os.close(folder)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, False, True
        data = bytearray()
        while len(data) <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
        return bytes(data[:limit]), len(data) > limit, True
    except OSError:
        return None, False, True
    finally:
        os.close(fd)


def _pytest_records(data: bytes) -> list[dict[str, Any]]:
    """The child pytest harness's records (its supervisor checked them; checked again:
    objects of plain values, strings cut, counted)."""
    records: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        if len(records) >= MAX_PYTEST_RECORDS:
            break
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        kept: dict[str, Any] = {}
        for key, value in list(record.items())[:20]:
            if isinstance(value, str):
                kept[key[:50]] = value[:MAX_PYTEST_TEXT]
            elif value is None or type(value) in (int, bool):
                kept[key[:50]] = value
        records.append(kept)
    return records


def _deaf() -> None:
    """Ignore every signal that can be ignored (SIGALRM has a handler while a request
    waits, see `stage_http.deadline`)."""
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(number, signal.SIG_IGN)


def main() -> None:
    plan = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    _deaf()
    channel = Channel(int(sys.argv[sys.argv.index("--channel") + 1]))
    try:
        Stage(plan, channel).run()
    except Exception as exc:
        channel.emit({"stage_error": f"{type(exc).__name__}: {str(exc)[:500]}"})
        raise


if __name__ == "__main__":
    main()

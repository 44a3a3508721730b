"""Services and programs judged end to end, against the real tools: Conduit-like
backends (fixtures/services) started from their own run.sh, a Postman collection run by
Newman, PostgreSQL started for a task, command-line programs (fixtures/programs), and
hostile services and programs that must never pass, never hang and leave nothing behind.

The reference for a backend's score is Newman's own run against the same project
started outside any sandbox, as Constraint Decay runs it: the assertions pytest-codeif
reports must be Newman's, passed and total."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.sandbox.isolation import choose_isolation
from tests.conftest import EXAMPLES, FIXTURES

SERVICES = FIXTURES / "services"
PROGRAMS = FIXTURES / "programs"
COLLECTION = SERVICES / "conduit.postman_collection.json"
#: The runnable suite a user copies (a Conduit task, a command-line task), kept here until
#: it joins examples/ (there `pytest --codeif examples/` would need bubblewrap and Newman).
SUITE = SERVICES / "example_suite"
NEWMAN = shutil.which("newman")
BWRAP = choose_isolation("auto").name == "bubblewrap"
POSTGRES = bool(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or bool(shutil.which("initdb"))
#: The users the collection registers, as Constraint Decay passes them (--global-var).
USER: Mapping[str, str] = {
    "USERNAME": "alice",
    "EMAIL": "alice@example.com",
    "PASSWORD": "correct-horse",
}
#: The collection's own figures against a complete Conduit and the half-right one.
COLLECTION_TOTAL = 28
BROKEN_PASSED = 21

needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
needs_newman = pytest.mark.skipif(
    NEWMAN is None or shutil.which("node") is None,
    reason="Newman is not on PATH (npm install newman)",
)
needs_postgres = pytest.mark.skipif(
    not POSTGRES, reason="no PostgreSQL server (Debian: postgresql)"
)


@dataclass(frozen=True)
class Counts:
    """Assertions: how many passed, of how many."""

    passed: int
    total: int


# -- Newman's own run, outside any sandbox ---------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def host_env(**more: str) -> dict[str, str]:
    """The environment a project's run.sh gets on the host: this interpreter's folder
    first on PATH, as the sandbox puts it (its `python3` is the one with the packages)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, **more}


@contextmanager
def started_outside(project: Path, workdir: Path) -> Iterator[tuple[int, Path]]:
    """`project` started with its run.sh from a copy in `workdir`, on a free port, until
    its health check answers; yields the port and the log's path; kills its process
    group at the end."""
    copy = workdir / project.name
    shutil.copytree(project, copy)
    port = free_port()
    log = workdir / f"{project.name}.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            ["./run.sh"],
            cwd=copy,
            env=host_env(PORT=str(port)),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}/api/health-check"
        deadline = time.monotonic() + 60
        while True:
            # run.sh may have started the server in the background and exited 0
            assert server.poll() in (None, 0), log.read_text(errors="replace")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status < 500:
                        break
            except (OSError, urllib.error.HTTPError):
                pass
            assert time.monotonic() < deadline, "not ready: " + log.read_text(errors="replace")
            time.sleep(0.1)
        yield port, log
    finally:
        with suppress(ProcessLookupError):  # its whole process group: run.sh's children
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def newman_outside(project: Path, workdir: Path) -> Counts:
    """Newman's own assertion counts for `project`, started outside any sandbox, as the
    benchmark runs the collection (`--global-var` for the API's URL and the user)."""
    with started_outside(project, workdir) as (port, _):
        report = workdir / "newman-report.json"
        globals_ = {"APIURL": f"http://127.0.0.1:{port}/api", **USER}
        argv = [str(NEWMAN), "run", str(COLLECTION), "--timeout-request", "10000"]
        for name, value in globals_.items():
            argv += ["--global-var", f"{name}={value}"]
        argv += ["--reporters", "json", "--reporter-json-export", str(report)]
        subprocess.run(argv, capture_output=True, check=False, timeout=300)
        stats = json.loads(report.read_text())["run"]["stats"]["assertions"]
    return Counts(stats["total"] - stats["failed"], stats["total"])


# -- pytest --codeif on task files -----------------------------------------------------------


def newman_case(**variables: str) -> dict[str, Any]:
    return {
        "newman": COLLECTION.name,
        "name": "conduit",
        "variables": {"APIURL": "${CODEIF_SERVICE_URL}/api", **USER, **variables},
    }


def service_task(
    task_id: str,
    directory: str,
    *,
    run: str | list[str] = "./run.sh",
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
    postgres: bool = False,
    tests: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A Constraint Decay-style task: the project in `directory` started with `run` on
    port 8080, ready at /api/health-check, judged by the collection."""
    service: dict[str, Any] = {
        "run": run,
        "port": 8080,
        "ready": "/api/health-check",
        "timeout": timeout,
    }
    if env:
        service["env"] = dict(env)
    task: dict[str, Any] = {
        "id": task_id,
        "directory": directory,
        "service": service,
        "tests": tests if tests is not None else [newman_case()],
    }
    if postgres:
        task["databases"] = ["postgres"]
    return task


def write_tasks(pytester: pytest.Pytester, tasks: list[dict[str, Any]]) -> Path:
    path = pytester.path / "services.codeif.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    return path


def copy_fixture(pytester: pytest.Pytester, source: Path, name: str | None = None) -> Path:
    target = pytester.path / (name or source.name)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    return target


@dataclass(frozen=True)
class Judged:
    """One functional record of the JSON report."""

    status: str
    error_kind: str | None
    counts: Counts
    cases: list[dict[str, Any]]


def judge(
    pytester: pytest.Pytester, *args: str, backend: str = "bubblewrap"
) -> tuple[pytest.RunResult, dict[str, Judged], str]:
    """`pytest --codeif` in the pytester folder; the result, each task's functional
    record, and the report's text."""
    result = pytester.runpytest(
        "--codeif",
        f"--codeif-sandbox={backend}",
        "--codeif-no-cache",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--codeif-report=r.json",
        *args,
    )
    text = (pytester.path / "r.json").read_text()
    judged = {}
    for task in json.loads(text)["tasks"]:
        record = task["functional"]
        if record:
            counts = Counts(record["assertions"]["passed"], record["assertions"]["total"])
            judged[task["id"]] = Judged(
                record["status"], record.get("error_kind"), counts, record["cases"]
            )
    return result, judged, text


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A string every process a hostile fixture may leave behind carries; any such
    process still alive after the test is killed (and the test has failed by then)."""
    text = f"codeif-marker-{uuid.uuid4().hex}"
    yield text
    for pid in processes_with(text):
        os.kill(pid, signal.SIGKILL)


# -- the fixtures themselves (no tools needed) -----------------------------------------------


def test_the_conduits_share_their_api_and_the_example_is_the_fixture() -> None:
    """The PostgreSQL Conduit differs from the SQLite one only in its store, and the
    example users copy is the SQLite fixture itself, with the same collection."""
    sqlite, postgres = SERVICES / "conduit_stdlib_sqlite", SERVICES / "conduit_stdlib_postgres"
    for name in ("routes.py", "server.py"):
        assert (sqlite / name).read_bytes() == (postgres / name).read_bytes(), name
    example = SUITE / "conduit"
    files = sorted(p.name for p in sqlite.iterdir())
    assert files == sorted(p.name for p in example.iterdir())
    for name in files:
        assert (sqlite / name).read_bytes() == (example / name).read_bytes(), name
    shipped = SUITE / "Conduit.postman_collection.json"
    assert shipped.read_bytes() == COLLECTION.read_bytes()
    assert os.access(sqlite / "run.sh", os.X_OK)


def test_the_collection_is_run_as_the_benchmark_runs_its_own() -> None:
    """The collection reads APIURL, USERNAME, EMAIL and PASSWORD (given with
    --global-var, never its own variables, which would hide them) and keeps the token
    it captures in a collection variable; 9 requests, 28 assertions in both of
    Postman's forms."""
    collection = json.loads(COLLECTION.read_text())
    assert {v["key"] for v in collection["variable"]} == {"token", "slug"}
    scripts = "\n".join(
        line
        for item in collection["item"]
        for event in item["event"]
        for line in event["script"]["exec"]
    )
    assert len(collection["item"]) == 9
    pm_tests = len(re.findall(r"\bpm\.test\(", scripts))
    legacy = len(re.findall(r"^tests\[.*\] = ", scripts, re.M))
    assert (pm_tests, legacy) == (24, 4)
    assert pm_tests + legacy == COLLECTION_TOTAL
    assert "pm.collectionVariables.set('token'" in scripts
    text = COLLECTION.read_text()
    for name in ("APIURL", "USERNAME", "EMAIL", "PASSWORD", "token"):
        assert "{{" + name + "}}" in text


# -- Newman outside, then the same project judged inside -------------------------------------


@needs_bwrap
@needs_newman
@pytest.mark.parametrize(
    ("project", "expected"),
    [
        ("conduit_stdlib_sqlite", Counts(COLLECTION_TOTAL, COLLECTION_TOTAL)),
        ("conduit_broken", Counts(BROKEN_PASSED, COLLECTION_TOTAL)),
    ],
)
def test_assertions_are_newmans_own_run_outside_the_sandbox(
    pytester: pytest.Pytester, tmp_path: Path, project: str, expected: Counts
) -> None:
    outside = newman_outside(SERVICES / project, tmp_path)
    assert outside == expected
    copy = copy_fixture(pytester, SERVICES / project)
    copy_fixture(pytester, COLLECTION)
    write_tasks(pytester, [service_task("conduit", project)])
    _, judged, _ = judge(pytester)
    assert judged["conduit"].counts == outside
    satisfied = outside.passed == outside.total
    assert judged["conduit"].status == ("satisfied" if satisfied else "violated")
    # Each assertion is a case, named after its request and its test, with Newman's message.
    labels = {case["label"]: case for case in judged["conduit"].cases}
    assert len(labels) == COLLECTION_TOTAL
    register = next(c for label, c in labels.items() if "Register answers 201" in label)
    assert register["status"] == ("passed" if satisfied else "failed")
    # db.sqlite3 was written next to the code in the sandbox's writable copy, never in
    # the read-only code folder.
    assert not (copy / "db.sqlite3").exists()


BACKGROUNDING_RUN_SH = """#!/bin/sh
# Starts the server in the background and returns at once, as the benchmark's own
# pipeline says ("./run.sh (starts your server in background)").
cd "$(dirname "$0")" || exit 1
nohup python3 server.py > server.log 2>&1 &
"""


@needs_bwrap
@needs_newman
def test_a_run_sh_that_backgrounds_the_server_counts_as_outside(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """A run.sh that starts the server in the background and exits 0 works in the
    benchmark's container; judged, it counts what Newman counts outside."""
    project = tmp_path / "conduit_background"
    shutil.copytree(SERVICES / "conduit_stdlib_sqlite", project)
    (project / "run.sh").write_text(BACKGROUNDING_RUN_SH)
    outside = newman_outside(project, tmp_path / "outside")
    assert outside == Counts(COLLECTION_TOTAL, COLLECTION_TOTAL)
    shutil.copytree(project, pytester.path / project.name)
    copy_fixture(pytester, COLLECTION)
    write_tasks(pytester, [service_task("conduit", project.name)])
    _, judged, _ = judge(pytester)
    assert judged["conduit"].counts == outside


CRASHING_SERVER = """# The Conduit, but the process dies on the first article it is asked to create
# (a crash mid-run): every request after it is refused.
import os

import server
from routes import dispatch


def crashing(store, request):
    if request.method == "POST" and request.path == "/api/articles":
        os._exit(3)
    return dispatch(store, request)


server.dispatch = crashing
server.main()
"""


@needs_bwrap
@needs_newman
def test_a_service_that_dies_mid_run_counts_as_outside(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """Newman still runs the tests of the requests the dead service never answered
    (they fail): the totals are Newman's own, with no extra case per refused request."""
    project = tmp_path / "conduit_crash"
    shutil.copytree(SERVICES / "conduit_stdlib_sqlite", project)
    (project / "crash_server.py").write_text(CRASHING_SERVER)
    run_sh = (project / "run.sh").read_text().replace("server.py", "crash_server.py")
    (project / "run.sh").write_text(run_sh)
    outside = newman_outside(project, tmp_path / "outside")
    assert 0 < outside.passed < outside.total == COLLECTION_TOTAL
    shutil.copytree(project, pytester.path / project.name)
    copy_fixture(pytester, COLLECTION)
    write_tasks(pytester, [service_task("conduit", project.name)])
    _, judged, text = judge(pytester)
    assert judged["conduit"].counts == outside
    refused = [c for c in judged["conduit"].cases if "got no response" in c["message"]]
    assert refused, judged["conduit"].cases
    # Its log says nothing of the crash (os._exit): the evidence says it ended.
    assert "the service exited with status 3 while the cases ran" in text


@needs_bwrap
@needs_newman
def test_a_run_sh_without_its_executable_bit_runs_as_the_benchmark_runs_it(
    pytester: pytest.Pytester,
) -> None:
    """An agent's run.sh often lacks its executable bit; Constraint Decay's pipeline runs
    `chmod +x run.sh` before `./run.sh`, and so does the stage, on its copy, saying so in
    the service's log; `run: chmod +x run.sh && ./run.sh` does the same. A `files` check
    (`executable: [run.sh]`) is how a task asks for the bit itself."""
    project = copy_fixture(pytester, SERVICES / "conduit_stdlib_sqlite")
    (project / "run.sh").chmod(0o644)
    copy_fixture(pytester, COLLECTION)
    as_is = service_task("as-is", project.name)
    chmod = service_task("chmod", project.name, run="chmod +x run.sh && ./run.sh")
    write_tasks(pytester, [as_is, chmod])
    _, judged, _ = judge(pytester)
    assert judged["chmod"].counts == Counts(COLLECTION_TOTAL, COLLECTION_TOTAL)
    assert judged["as-is"].counts == Counts(COLLECTION_TOTAL, COLLECTION_TOTAL)
    assert not os.access(project / "run.sh", os.X_OK)  # the code folder is never changed


@needs_bwrap
@needs_newman
@needs_postgres
def test_postgres_conduit_starts_with_its_database(pytester: pytest.Pytester) -> None:
    copy_fixture(pytester, SERVICES / "conduit_stdlib_postgres")
    copy_fixture(pytester, COLLECTION)
    check_url = {
        "name": "the service was given the benchmark's database URL",
        "request": {"method": "GET", "path": "/api/health-check"},
        "expect": {"status": 200},
    }
    task = service_task(
        "conduit-postgres",
        "conduit_stdlib_postgres",
        postgres=True,
        tests=[newman_case(), check_url],
    )
    write_tasks(pytester, [task])
    _, judged, _ = judge(pytester)
    assert judged["conduit-postgres"].counts == Counts(COLLECTION_TOTAL + 1, COLLECTION_TOTAL + 1)
    assert judged["conduit-postgres"].status == "satisfied"


@needs_bwrap
@needs_newman
def test_the_services_example_runs_as_its_readme_says(pytester: pytest.Pytester) -> None:
    """The services example (fixtures/services/example_suite, as its README says):
    the Conduit passes the collection, the YAML requests (a token captured and sent on)
    and the pytest file; and examples/programs' textkit passes every command-line case."""
    shutil.copytree(SUITE, pytester.path / "services")
    shutil.copytree(EXAMPLES / "programs", pytester.path / "services" / "programs")
    result, judged, _ = judge(pytester, "services")
    assert judged["conduit-sqlite"].counts == Counts(COLLECTION_TOTAL + 6, COLLECTION_TOTAL + 6)
    assert judged["textkit"].counts == Counts(5, 5)
    assert {j.status for j in judged.values()} == {"satisfied"}
    result.assert_outcomes(passed=3)  # the imports constraint, and each task's tests


@needs_bwrap
def test_a_missing_newman_is_an_error_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    folders = os.environ.get("PATH", "").split(os.pathsep)
    # os.path.exists: False for a folder this user may not search (Path.exists raises)
    kept = [f for f in folders if not os.path.exists(os.path.join(f, "newman"))]
    left_out = [f for f in folders if f not in kept]
    if any(os.path.exists(os.path.join(f, t)) for f in left_out for t in ("bwrap", "python3")):
        pytest.skip("newman is installed beside bubblewrap or python3: it cannot be left out")
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    copy_fixture(pytester, SERVICES / "conduit_stdlib_sqlite")
    copy_fixture(pytester, COLLECTION)
    write_tasks(pytester, [service_task("conduit", "conduit_stdlib_sqlite")])
    result, judged, _ = judge(pytester)
    assert judged["conduit"].status == "error"
    assert judged["conduit"].error_kind == "missing-tool"
    assert judged["conduit"].counts == Counts(0, COLLECTION_TOTAL)
    result.stdout.fnmatch_lines(["*newman*"])


# -- hostile services ------------------------------------------------------------------------


@needs_bwrap
@needs_newman
def test_hostile_services_never_pass_never_hang_and_leave_nothing(
    pytester: pytest.Pytester, tmp_path: Path, marker: str
) -> None:
    copy_fixture(pytester, SERVICES / "hostile")
    copy_fixture(pytester, COLLECTION)
    outside = Path(tempfile.mkdtemp(prefix="codeif-host-"))  # short: a unix socket path
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(outside / "s.sock"))
    unix.listen()
    unix.setblocking(False)
    try:
        # A real Conduit on the host: the network probe passes only if it reaches it.
        with started_outside(SERVICES / "conduit_stdlib_sqlite", tmp_path) as (port, log):
            listening = log.read_text()
            python = ["python3"]
            tasks = [
                service_task("daemon", "hostile", run="python3 daemon.py", env={"MARKER": marker}),
                service_task("flood", "hostile", run=[*python, "flood.py"]),
                service_task(
                    "network",
                    "hostile",
                    run=[*python, "network.py"],
                    env={"UPSTREAM": f"127.0.0.1:{port}", "UNIX_SOCKET": str(outside / "s.sock")},
                ),
                service_task("forger", "hostile", run=[*python, "forger.py"]),
            ]
            write_tasks(pytester, tasks)
            _, judged, report = judge(pytester)
            # Nothing reached the host's Conduit (it logged no request) nor its socket.
            assert log.read_text() == listening
            with pytest.raises(BlockingIOError):
                unix.accept()
    finally:
        unix.close()
        shutil.rmtree(outside, ignore_errors=True)
    # Each scores what it honestly earns: ready, failing the API in plain text, it passes
    # the health check's one assertion. A forged channel, report or collection would
    # show here as more, or as another total.
    assert set(judged) == {t["id"] for t in tasks}
    for task_id, found in judged.items():
        assert found.status == "violated", task_id
        assert found.counts == Counts(1, COLLECTION_TOTAL), task_id
    assert processes_with(marker) == []
    # The forger's collection and report were never Newman's: the collection in the
    # task's folder is the one shipped, and it wrote nowhere outside its sandbox.
    assert (pytester.path / COLLECTION.name).read_bytes() == COLLECTION.read_bytes()
    assert list(pytester.path.rglob("FORGER-WAS-HERE")) == []
    assert not list((SERVICES / "hostile").glob("*.json"))
    # The flood's log is kept as its head and tail, not whole.
    assert len(report) < 4 << 20
    assert "flood: the first line of the log" in report
    assert re.search(r"\[\.\.\. \d+ \w+ cut \.\.\.\]", report)


@needs_bwrap
@needs_newman
def test_a_service_never_ready_fails_the_whole_collection(pytester: pytest.Pytester) -> None:
    """A service that never opens its port, or answers 503 forever, ignoring SIGTERM:
    the wait ends at its timeout, and the collection counts every assertion it holds,
    none passed, as the benchmark's run against an unhealthy server does."""
    copy_fixture(pytester, SERVICES / "hostile")
    copy_fixture(pytester, COLLECTION)
    run = ["python3", "never_ready.py"]
    tasks = [
        service_task("never-listens", "hostile", run=run, timeout=3),
        service_task("answers-503", "hostile", run=[*run, "--listen"], timeout=3),
    ]
    write_tasks(pytester, tasks)
    result, judged, _ = judge(pytester)
    result.stdout.fnmatch_lines(["*not ready (/api/health-check) within 3 s*"])
    for task_id, found in judged.items():
        assert found.status == "violated", task_id
        assert found.counts == Counts(0, COLLECTION_TOTAL), task_id


# -- command-line programs -------------------------------------------------------------------


def textkit_task() -> dict[str, Any]:
    """textkit's cases: the first five pass, the last three fail on purpose."""
    return {
        "id": "textkit",
        "directory": "textkit",
        "tests": [
            {"name": "upper", "run": "python3 main.py upper", "stdin": "hi\n", "stdout": "HI\n"},
            {
                "name": "count to a file",
                "run": ["python3", "main.py", "count", "--output", "counts.txt"],
                "stdin": "one two\nthree\n",
                "stderr": {"contains": "wrote counts.txt"},
                "files": {"counts.txt": "2 3 14\n"},
            },
            {
                "name": "sort",
                "run": "python3 main.py sort --reverse fruits.txt",
                "stdout": {"regex": r"\Apear\nfig\napple\n\Z"},
            },
            {"name": "no input", "run": "python3 main.py count", "stdin": "", "exit": 1},
            {"name": "usage", "run": "python3 main.py nope", "exit": 2, "stdout": ""},
            {"name": "wrong output", "run": "python3 main.py upper", "stdin": "a", "stdout": "a"},
            {"name": "wrong exit", "run": "python3 main.py sort missing.txt", "exit": 0},
            {
                "name": "wrong file",
                "run": "python3 main.py count --output counts.txt",
                "stdin": "x\n",
                "files": {"counts.txt": {"contains": "99"}, "other.txt": {"exists": False}},
            },
        ],
    }


@pytest.mark.parametrize(
    "backend",
    [pytest.param("bubblewrap", marks=needs_bwrap), "process"],
)
def test_command_line_cases_pass_and_fail_as_expected(
    pytester: pytest.Pytester, backend: str
) -> None:
    copy_fixture(pytester, EXAMPLES / "programs" / "textkit")  # the shipped example
    write_tasks(pytester, [textkit_task()])
    _, judged, _ = judge(pytester, backend=backend)
    statuses = {case["label"]: case["status"] for case in judged["textkit"].cases}
    assert statuses == {
        "upper": "passed",
        "count to a file": "passed",
        "sort": "passed",
        "no input": "passed",
        "usage": "passed",
        "wrong output": "failed",
        "wrong exit": "failed",
        "wrong file": "failed",
    }
    assert judged["textkit"].counts == Counts(5, 8)
    assert judged["textkit"].status == "violated"
    # Each case ran in a fresh copy: nothing was written into the code folder.
    assert not (pytester.path / "textkit" / "counts.txt").exists()


@needs_bwrap
def test_hostile_programs_never_pass(
    pytester: pytest.Pytester, tmp_path: Path, marker: str
) -> None:
    copy_fixture(pytester, PROGRAMS / "hostile")
    escaped = tmp_path / "escaped.txt"
    tests: list[dict[str, Any]] = [
        {
            "name": "late writer",
            "run": ["python3", "late_writer.py", marker],
            "files": {"out.txt": "HELLO\n"},
        },
        {
            "name": "sleeper",
            "run": ["python3", "sleeper.py", marker],
            "stdout": "HELLO\n",
            "timeout": 2,
        },
        {"name": "forger", "run": "python3 forger.py", "stdout": "HELLO\n"},
        {"name": "flood", "run": "python3 flood.py", "stdout": "ok\n"},
        {
            "name": "escape",
            "run": ["python3", "escape.py", str(escaped)],
            "stdout": {"contains": "escaped"},
        },
    ]
    write_tasks(pytester, [{"id": "hostile", "directory": "hostile", "tests": tests}])
    _, judged, report = judge(pytester)
    statuses = {case["label"]: case["status"] for case in judged["hostile"].cases}
    assert set(statuses) == {t["name"] for t in tests}
    assert "passed" not in statuses.values(), statuses
    assert statuses["sleeper"] == "error"  # timed out: never a pass, whatever it printed
    assert judged["hostile"].counts == Counts(0, len(tests))
    assert not escaped.exists()
    assert not (pytester.path / "escaped.txt").exists()
    assert not (pytester.path / "hostile" / "out.txt").exists()
    assert processes_with(marker) == []
    assert len(report) < 4 << 20

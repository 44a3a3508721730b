"""The stage runtime (pytest_codeif/sandbox/stage.py, functional/stage_harness.py): a
task's service, database and behavioural cases run in one bubblewrap sandbox, and the
stage reports raw observations in order (`database`, `service`, one record per step,
`service_end`, `done`). Hand-written plans, run for real; a hostile service or program
can neither reach the stage, its other children nor the channel."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.functional.channel import read_records
from pytest_codeif.sandbox import stage_tools
from pytest_codeif.sandbox.isolation import Isolation, choose_isolation
from pytest_codeif.sandbox.process import Limits, RunResult
from pytest_codeif.sandbox.stage import run_stage
from pytest_codeif.sandbox.stage_tools import find_newman, find_postgres
from tests.conftest import REPO

ISOLATION = choose_isolation("auto")
BWRAP = ISOLATION.name == "bubblewrap"
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
POSTGRES = find_postgres()
needs_postgres = pytest.mark.skipif(POSTGRES.bindir is None, reason="no PostgreSQL server")
#: Where this machine's Newman is when it is not on PATH (the CI installs it there).
NEWMAN_BIN = Path("/tmp/newman/node_modules/.bin")
MIB = 1 << 20

#: A small service: health check, a JSON API with a token, a huge body, a slow body.
SERVICE = """
import http.server, json, os, socketserver, sys, time

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        sys.stdout.write("request %s %s\\n" % (self.command, self.path)); sys.stdout.flush()

    def send_json(self, status, document, extra=()):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/health":
            return self.send_json(200, {"ok": True})
        if self.path.startswith("/users/"):
            auth = self.headers.get("Authorization")
            return self.send_json(200, {"user": {"id": self.path[7:], "auth": auth}})
        if self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Length", str(3 << 20))
            self.end_headers()
            for _ in range(3 * 16):
                self.wfile.write(b"x" * 65536)
            return
        if self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            while True:
                self.wfile.write(b"x"); self.wfile.flush(); time.sleep(0.2)
        if self.path == "/cwd":
            return self.send_json(200, {"cwd": os.getcwd(), "env": os.environ.get("OWN")})
        self.send_json(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        document = json.loads(self.rfile.read(length))
        name = document["user"]["username"]
        with open("db.json", "w") as handle:  # the copy of the code is writable
            json.dump(document, handle)
        self.send_json(201, {"user": {"username": name, "token": "t-" + name, "id": 7}})

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

print("service starting in", os.getcwd(), flush=True)
Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


def run(
    folder: Path,
    plan: Mapping[str, Any],
    files: Mapping[str, bytes],
    *,
    timeout: float = 90.0,
    binds: Sequence[Path] = (),
    isolation: Isolation = ISOLATION,
) -> tuple[RunResult, list[dict[str, Any]]]:
    result = run_stage(
        plan,
        files,
        folder / "code",
        folder / "io",
        Limits(timeout=timeout),
        isolation,
        binds=binds,
    )
    return result, read_records(result.channel)


def service_plan(steps: list[dict[str, Any]], **service: Any) -> dict[str, Any]:
    spec = {
        "argv": ["python", "app.py", "8080"],
        "port": 8080,
        "ready": "/health",
        "timeout": 30,
        "env": {},
    }
    return {"env": {}, "database": None, "service": {**spec, **service}, "steps": steps}


def cli(argv: list[str] | str, **more: Any) -> dict[str, Any]:
    args = ["sh", "-c", argv] if isinstance(argv, str) else argv
    return {"kind": "cli", "argv": args, "stdin": None, "files": [], "timeout": 20, **more}


def http(method: str, path: str, **more: Any) -> dict[str, Any]:
    return {"kind": "http", "method": method, "path": path, "headers": {}, "timeout": 10, **more}


def first(records: list[dict[str, Any]], key: str) -> dict[str, Any]:
    found = [r[key] for r in records if key in r]
    assert len(found) == 1, (key, records)
    return found[0]


def step_records(records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    steps: dict[int, dict[str, Any]] = {}
    for record in records:
        if "step" in record:
            assert record["step"] not in steps, record
            steps[record["step"]] = record
    return steps


def kinds(records: list[dict[str, Any]]) -> list[str]:
    return [next(iter(r)) for r in records]


@needs_bwrap
def test_a_service_answers_requests_with_captures_and_a_cli_case_writes_files(
    tmp_path: Path,
) -> None:
    steps = [
        http(
            "POST",
            "/api/users",
            json={"user": {"username": "alice", "url": "${CODEIF_SERVICE_URL}"}},
            capture={"token": "user.token", "uid": "user.id", "absent": "user.nope"},
        ),
        http("GET", "/users/${uid}", headers={"Authorization": "Token ${token}"}),
        http("GET", "/users/${never}"),
        http("GET", "/cwd"),
        cli(
            [
                "python",
                "-c",
                "import sys; t = sys.stdin.read(); open('out.txt', 'w').write(t.upper())",
            ],
            stdin="hello\n",
            files=["out.txt", "missing.txt", "../escape.txt", "/etc/hosts"],
        ),
        cli('cat db.json 2>&1; echo; printf %s "$CODEIF_SERVICE_URL"'),
    ]
    plan = service_plan(steps, env={"OWN": "at ${CODEIF_SERVICE_URL}"})
    result, records = run(tmp_path, plan, {"app.py": SERVICE.encode()})
    assert result.returncode == 0, result.stderr
    assert kinds(records) == ["service", *["step"] * 6, "service_end", "done"]
    service = first(records, "service")
    assert service["ready"] is True
    assert service["exited"] is None
    assert "service starting in" in service["log"]
    by_step = step_records(records)
    created = by_step[0]
    assert created["status"] == 201
    assert json.loads(created["body"])["user"]["token"] == "t-alice"
    assert created["captured"] == ["token", "uid"]
    assert created["missing_captures"] == ["absent"]
    assert ["Content-Type", "application/json"] in created["headers"]
    # A captured number stays a number in the path; the header got the token.
    assert json.loads(by_step[1]["body"]) == {"user": {"id": "7", "auth": "Token t-alice"}}
    # An unknown variable is an error: the request is never sent.
    assert by_step[2] == {
        "step": 2,
        "error": "unknown variable ${never} (never captured, and not a known name)",
    }
    # The service runs from its own writable copy, with its own environment.
    assert json.loads(by_step[3]["body"]) == {
        "cwd": "/.codeif-work",
        "env": "at http://127.0.0.1:8080",
    }
    case = by_step[4]
    assert case["exit"] == 0
    assert case["timed_out"] is False
    assert case["files"] == {
        "out.txt": "HELLO\n",
        "missing.txt": None,
        "../escape.txt": None,
        "/etc/hosts": None,
    }
    # Each cli case has a fresh copy of the code: the service's db.json is not in it.
    other = by_step[5]
    assert "No such file" in other["stdout"]
    assert other["stdout"].endswith("http://127.0.0.1:8080")
    end = first(records, "service_end")
    assert "request GET /users/7" in end["log"]
    assert "${never}" not in end["log"]


@needs_bwrap
def test_a_service_that_never_gets_ready(tmp_path: Path) -> None:
    never = "import time\nprint('listening nowhere', flush=True)\ntime.sleep(600)\n"
    steps = [http("GET", "/health"), cli("echo still runs")]
    plan = service_plan(steps, timeout=1)
    _, records = run(tmp_path, plan, {"app.py": never.encode()})
    service = first(records, "service")
    assert service["ready"] is False
    assert service["exited"] is None
    assert "listening nowhere" in service["log"]
    by_step = step_records(records)
    assert by_step[0] == {"step": 0, "error": "the service was not ready"}
    assert by_step[1]["stdout"] == "still runs\n"  # cli cases do not need the service
    assert first(records, "service_end")["exited"] is None  # killed at the end
    assert records[-1] == {"done": True}


@needs_bwrap
def test_a_service_that_exits(tmp_path: Path) -> None:
    plan = service_plan([http("GET", "/health")], argv=["sh", "-c", "echo cannot bind >&2; exit 3"])
    _, records = run(tmp_path, plan, {"app.py": b""})
    service = first(records, "service")
    assert service["ready"] is False
    assert service["exited"] == 3
    assert service["signal"] is None
    assert "cannot bind" in service["log"]
    assert step_records(records)[0]["error"] == "the service was not ready"
    assert first(records, "service_end")["exited"] == 3


@needs_bwrap
def test_a_run_sh_without_its_executable_bit_gets_it_on_the_copy(tmp_path: Path) -> None:
    """As the benchmarks' `chmod +x run.sh`: the copy's script gets its bit, the log says
    so."""
    plan = service_plan([], argv=["/bin/sh", "-c", "./run.sh --port 1"])
    _, records = run(tmp_path, plan, {"app.py": b"", "run.sh": b"#!/bin/sh\necho hi\n"})
    log = first(records, "service")["log"]
    assert "[codeif] ./run.sh had no executable bit: set on the copy" in log
    assert "hi" in log


@needs_bwrap
def test_a_service_that_cannot_start_is_said_in_its_log(tmp_path: Path) -> None:
    plan = service_plan([], argv=["./start.sh"])
    _, records = run(tmp_path, plan, {"app.py": b"", "run.sh": b"#!/bin/sh\necho hi\n"})
    service = first(records, "service")
    assert service["exited"] == 127  # no such file: the stage says so in the log
    assert "cannot run './start.sh'" in service["log"]


#: The hostile service: it looks for the stage and its other children from inside its
#: namespace, and tries every way at them it has, then serves and keeps trying.
HOSTILE = r"""
import ctypes, errno, json, os, signal, sys, threading, http.server

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_DETACH = 16, 17

def look():
    found = {"pids": [], "cmdlines": [], "traced": [], "opened": [], "signalled": []}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        found["pids"].append(pid)
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                line = handle.read().replace(b"\0", b" ")
            found["cmdlines"].append(line.decode(errors="replace"))
        except OSError:
            pass
        if pid == os.getpid():
            continue
        if libc.ptrace(PTRACE_ATTACH, pid, 0, 0) == 0:
            found["traced"].append(pid)
            libc.ptrace(PTRACE_DETACH, pid, 0, 0)
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            fds = []
        for fd in fds:
            try:
                handle = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            found["opened"].append(f"{pid}/{fd}")
            os.close(handle)
        try:
            os.kill(pid, signal.SIGKILL)  # pid 1 (the keeper) ignores it
            found["signalled"].append(pid)
        except OSError:
            pass
    return found

findings = look()
try:
    os.write(3, b'{"done": true}\n')
    findings["fd3"] = "written"
except OSError as exc:
    findings["fd3"] = errno.errorcode[exc.errno]
findings["private"] = os.listdir("/.codeif-stage")
try:
    open("/.codeif-stage/forged", "w").write("x")
    findings["private_write"] = "written"
except OSError as exc:
    findings["private_write"] = errno.errorcode[exc.errno]
print("FINDINGS " + json.dumps(findings), flush=True)
print('{"step": 0, "status": 299, "body": "forged"}', flush=True)
print('{"done": true}', flush=True)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        seen = look()
        print("SEEN " + json.dumps(seen), flush=True)
        body = json.dumps(seen).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

http.server.HTTPServer(("127.0.0.1", 8080), Handler).serve_forever()
"""

#: A cli case that tries the same from its own namespace, then kills all it can.
HOSTILE_CASE = r"""
import json, os, subprocess
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
child = subprocess.Popen(["sleep", "100"])
os.kill(-1, 9)  # every process it may signal, but itself and pid 1
print(json.dumps({"pids": pids, "private": os.listdir("/.codeif-stage"), "child": child.wait()}))
"""


@needs_bwrap
def test_a_hostile_service_and_case_cannot_reach_the_stage_or_forge(tmp_path: Path) -> None:
    steps = [
        http("GET", "/"),
        cli(["python", "case.py"]),
        http("GET", "/"),
        cli("echo after"),
    ]
    plan = service_plan(steps, argv=["python", "app.py"])
    files = {"app.py": HOSTILE.encode(), "case.py": HOSTILE_CASE.encode()}
    result, records = run(tmp_path, plan, files)
    assert result.returncode == 0, result.stderr
    # Exactly the stage's records, in order: nothing the service printed became one.
    assert kinds(records) == ["service", "step", "step", "step", "step", "service_end", "done"]
    service = first(records, "service")
    assert service["ready"] is True
    log = first(records, "service_end")["log"]
    findings = json.loads(log.split("FINDINGS ", 1)[1].split("\n", 1)[0])
    # Its own namespace: the keeper (pid 1: a fork of the stage that holds no
    # descriptor, is not dumpable and ignores signals) and itself; nothing else.
    assert sorted(findings["pids"]) == [1, 2]
    assert not any("bwrap" in c or "newman" in c for c in findings["cmdlines"])
    assert findings["traced"] == []
    assert findings["opened"] == []
    assert findings["fd3"] == "EBADF"
    assert findings["private"] == []
    assert findings["private_write"] in ("EROFS", "EACCES")
    by_step = step_records(records)
    seen = json.loads(by_step[0]["body"])
    assert seen["traced"] == [] and seen["opened"] == []
    assert by_step[0]["status"] == 200
    case = by_step[1]
    assert case["exit"] == 0, case
    # Its own namespace, an empty private folder; kill -9 -1 killed its own child only.
    assert json.loads(case["stdout"]) == {"pids": [1, 2], "private": [], "child": -9}
    assert by_step[2]["status"] == 200  # the service outlived the case's kill -9 -1
    assert by_step[3]["stdout"] == "after\n"
    assert first(records, "service_end")["exited"] is None


#: Leaves a listener behind (`leave`), or says whether it is still there (`look`).
LISTENER = """
import os, socket, sys, time
if sys.argv[1] == "leave":
    if os.fork() == 0:
        os.setsid()
        server = socket.socket()
        server.bind(("127.0.0.1", 9999))
        server.listen()
        while True:
            time.sleep(1)
    while True:
        try:
            socket.create_connection(("127.0.0.1", 9999), timeout=1).close()
            break
        except OSError:
            time.sleep(0.01)
    print("left a listener")
else:
    try:
        socket.create_connection(("127.0.0.1", 9999), timeout=5).close()
        print("still there")
    except ConnectionRefusedError:
        print("gone")
"""


@needs_bwrap
def test_a_case_is_over_when_its_program_ends(tmp_path: Path) -> None:
    """What a program leaves running dies with it (the listener it left is gone for the
    next case, which shares its network), and its /tmp is its own."""
    service = "open('/tmp/service-was-here', 'w').write('x')\n" + SERVICE
    steps = [
        cli(["python", "listener.py", "leave"]),
        cli(["python", "listener.py", "look"]),
        cli("touch /tmp/case-was-here"),
        cli("ls /tmp/case-was-here /tmp/service-was-here 2>&1 | wc -l; ls /tmp/case-was-here"),
        cli("sleep 30", timeout=0.5),
    ]
    plan = service_plan(steps)
    files = {"app.py": service.encode(), "listener.py": LISTENER.encode()}
    _, records = run(tmp_path, plan, files)
    by_step = step_records(records)
    assert by_step[0]["stdout"] == "left a listener\n"
    assert by_step[1]["stdout"] == "gone\n"
    assert by_step[3]["stdout"] == "2\n"
    assert "No such file" in by_step[3]["stderr"]
    assert by_step[4]["timed_out"] is True
    assert by_step[4]["exit"] is None
    assert records[-1] == {"done": True}


@needs_bwrap
def test_what_programs_print_and_write_is_capped(tmp_path: Path) -> None:
    steps = [
        cli("head -c 5000000 /dev/zero | tr '\\0' a; head -c 3000000 /dev/zero >&2"),
        cli(
            "head -c 3000000 /dev/zero > big.txt; ln -s /etc/passwd link.txt; mkfifo fifo;"
            " mkdir sub; echo in > sub/in.txt; ln -s sub alias",
            files=["big.txt", "link.txt", "fifo", "sub/in.txt", "alias/in.txt"],
        ),
        http("GET", "/big"),
        http("GET", "/slow", timeout=1),
    ]
    plan = service_plan(steps)
    _, records = run(tmp_path, plan, {"app.py": SERVICE.encode()})
    by_step = step_records(records)
    loud = by_step[0]
    assert loud["exit"] == 0
    assert loud["stdout"] == "a" * MIB
    assert len(loud["stderr"]) == MIB
    assert loud["truncated"] is True
    written = by_step[1]
    assert written["files"]["big.txt"] == "\0" * MIB
    assert written["truncated"] is True
    # Never through a link, never a fifo (the stage would hang), a folder is fine.
    assert written["files"]["link.txt"] is None
    assert written["files"]["fifo"] is None
    assert written["files"]["alias/in.txt"] is None
    assert written["files"]["sub/in.txt"] == "in\n"
    big = by_step[2]
    assert big["status"] == 200
    assert len(big["body"]) == MIB
    assert big["truncated"] is True
    assert by_step[3] == {"step": 3, "error": "timed out after 1 s"}


@needs_bwrap
@needs_postgres
def test_postgres_is_reachable_as_host_postgres(tmp_path: Path) -> None:
    assert POSTGRES.bindir is not None
    psql = POSTGRES.bindir / "psql"
    database = {
        "kind": "postgres",
        "bindir": str(POSTGRES.bindir),
        "user": "user",
        "password": "password",
        "name": "conduit",
        "port": 5432,
        "timeout": 60,
    }
    query = f'{psql} -X -A -t "$DATABASE_URL" -c "select 41 + 1"; echo "$DATABASE_URL"'
    wrong = f"PGPASSWORD=wrong {psql} -X -h postgres -U user conduit -c 'select 1'"
    plan = {"env": {}, "database": database, "steps": [cli(query), cli(wrong)]}
    _, records = run(tmp_path, plan, {"a.txt": b"a"})
    assert kinds(records) == ["database", "step", "step", "done"]
    started = first(records, "database")
    assert started["ready"] is True, started
    assert "database system is ready" in started["log"]
    by_step = step_records(records)
    assert by_step[0]["stdout"] == "42\npostgresql://user:password@postgres:5432/conduit\n"
    assert by_step[1]["exit"] != 0
    assert "password authentication failed" in by_step[1]["stderr"]


COLLECTION = {
    "info": {
        "name": "conduit-like",
        "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    },
    "item": [
        {
            "name": "Register",
            "request": {
                "method": "POST",
                "header": [{"key": "Content-Type", "value": "application/json"}],
                "body": {"mode": "raw", "raw": '{"user": {"username": "{{USERNAME}}"}}'},
                "url": "{{APIURL}}/users",
            },
            "event": [
                {
                    "listen": "test",
                    "script": {
                        "exec": [
                            "pm.test('status 201', () => pm.response.to.have.status(201));",
                            "pm.test('token', () => pm.expect(pm.response.json().user.token)"
                            ".to.equal('t-' + pm.variables.get('USERNAME')));",
                            "pm.test('wrong on purpose', () => pm.expect(1).to.equal(2));",
                        ]
                    },
                }
            ],
        },
        {
            "name": "Look around",
            "request": {"method": "GET", "url": "{{APIURL}}/../look"},
            "event": [
                {
                    "listen": "test",
                    "script": {"exec": ["pm.test('answered', () => pm.response.to.be.ok);"]},
                }
            ],
        },
    ],
}


@pytest.fixture
def newman(monkeypatch: pytest.MonkeyPatch) -> stage_tools.NewmanTool:
    if NEWMAN_BIN.is_dir():
        monkeypatch.setenv("PATH", f"{NEWMAN_BIN}:{os.environ.get('PATH', '')}")
    tool = find_newman()
    if tool.script is None:
        pytest.skip("Newman is not installed")
    return tool


@needs_bwrap
def test_newman_runs_a_collection_against_the_service(
    tmp_path: Path, newman: stage_tools.NewmanTool
) -> None:
    """The hostile service looks for Newman while it runs the collection: nothing of it
    is in the service's namespace, and the assertions are Newman's own."""
    collection = tmp_path / "collection.json"
    collection.write_text(json.dumps(COLLECTION))
    app = HOSTILE.replace(
        "def do_GET", "def do_POST(self):\n        self.reply_json()\n    def do_GET"
    )
    app = app.replace(
        "class Handler(http.server.BaseHTTPRequestHandler):",
        "class Handler(http.server.BaseHTTPRequestHandler):\n"
        "    def reply_json(self):\n"
        "        body = json.dumps({'user': {'token': 't-bob'}}).encode()\n"
        "        self.send_response(201)\n"
        "        self.send_header('Content-Length', str(len(body)))\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n",
    )
    step = {
        "kind": "newman",
        "node": str(newman.node),
        "script": str(newman.script),
        "package": str(newman.package),
        "collection": str(collection),
        "variables": {"APIURL": "${CODEIF_SERVICE_URL}/api", "USERNAME": "bob"},
        "timeout": 120,
    }
    plan = service_plan([step], argv=["python", "app.py"], ready="tcp")
    result, records = run(tmp_path, plan, {"app.py": app.encode()}, binds=newman.binds)
    assert result.returncode == 0, result.stderr
    ran = step_records(records)[0]
    assert ran["exit"] == 1, ran  # one assertion fails
    assert ran["timed_out"] is False
    outcomes = [
        (execution["request"], assertion["name"], assertion["error"])
        for execution in ran["executions"]
        for assertion in execution["assertions"]
    ]
    assert outcomes == [
        ("Register", "status 201", None),
        ("Register", "token", None),
        ("Register", "wrong on purpose", "expected 1 to equal 2"),
        ("Look around", "answered", None),
    ]
    assert ran["stats"]["assertions"] == {"total": 4, "pending": 0, "failed": 1}
    log = first(records, "service_end")["log"]
    assert "SEEN" in log
    for line in log.splitlines():
        if line.startswith("SEEN "):
            looked = json.loads(line[5:])
            assert sorted(looked["pids"]) == [1, 2]
            assert not any("newman" in c or "node" in c for c in looked["cmdlines"])
            assert looked["traced"] == [] and looked["opened"] == []


@needs_bwrap
def test_a_collection_that_cannot_be_read_is_an_error_record(
    tmp_path: Path, newman: stage_tools.NewmanTool
) -> None:
    step = {
        "kind": "newman",
        "node": str(newman.node),
        "script": str(newman.script),
        "collection": str(tmp_path / "missing.json"),
        "variables": {},
        "timeout": 30,
    }
    _, records = run(tmp_path, {"env": {}, "steps": [step]}, {"a.txt": b"a"})
    error = step_records(records)[0]["error"]
    assert error.startswith("cannot read the collection")


@needs_bwrap
def test_a_pytest_file_reaches_the_service(tmp_path: Path) -> None:
    test_file = (
        "import json, os, urllib.request\n"
        "def test_fixture(codeif_service_url):\n"
        "    assert codeif_service_url == os.environ['CODEIF_SERVICE_URL']\n"
        "    assert json.load(urllib.request.urlopen(codeif_service_url + '/health'))['ok']\n"
        "def test_fails():\n"
        "    assert 1 == 2\n"
    )
    step = pytest_step("test_api.py", test_file)
    _, records = run(tmp_path, service_plan([step]), {"app.py": SERVICE.encode()})
    ran = step_records(records)[0]
    assert ran["exit"] == 1, ran
    assert [(r["nodeid"], r["outcome"]) for r in ran["records"]] == [
        ("test_api.py::test_fixture", "passed"),
        ("test_api.py::test_fails", "failed"),
    ]


def pytest_step(name: str, source: str) -> dict[str, object]:
    """A pytest step as the host plans one: the file travels in the plan."""
    return {
        "kind": "pytest",
        "name": name,
        "source": base64.b64encode(source.encode()).decode(),
        "env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        "timeout": 60,
    }


@needs_bwrap
def test_a_pytest_file_is_apart_from_the_code(tmp_path: Path) -> None:
    """The code cannot shadow a module the test imports (`fractions.py` in the code),
    nor read the test file: it is neither in the code folder nor on the import path."""
    shadow = "import sys\nsys.stderr.write('SHADOWED')\nraise SystemExit(3)\n"
    snoop = "import os\nprint(sorted(os.listdir('.')), flush=True)\n" + SERVICE
    test_file = (
        "import fractions, urllib.request\n"
        "def test_service(codeif_service_url):\n"
        "    assert urllib.request.urlopen(codeif_service_url + '/health').status == 200\n"
    )
    files = {"app.py": snoop.encode(), "fractions.py": shadow.encode()}
    plan = service_plan([pytest_step("test_secret.py", test_file)])
    _, records = run(tmp_path, plan, files)
    ran = step_records(records)[0]
    assert [(r["nodeid"], r["outcome"]) for r in ran.get("records", ())] == [
        ("test_secret.py::test_service", "passed")
    ], (ran, records)
    ended = next(r["service_end"] for r in records if "service_end" in r)
    assert "test_secret" not in ended["log"]
    assert "app.py" in ended["log"]


def test_the_process_backend_refuses_a_service_and_runs_cli_cases(tmp_path: Path) -> None:
    process = Isolation("process", reason="test")
    with pytest.raises(ValueError, match="bubblewrap"):
        run(tmp_path, service_plan([]), {"app.py": b""}, isolation=process)
    # A benign case only: the process backend contains nothing.
    steps = [cli("echo hi > out.txt; cat", stdin="in\n", files=["out.txt"]), cli("exit 4")]
    _, records = run(tmp_path, {"env": {}, "steps": steps}, {"a.txt": b"a"}, isolation=process)
    by_step = step_records(records)
    assert by_step[0]["stdout"] == "in\n"
    assert by_step[0]["files"] == {"out.txt": "hi\n"}
    assert by_step[1]["exit"] == 4
    assert records[-1] == {"done": True}


def test_missing_tools_say_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(stage_tools, "POSTGRES_ROOT", tmp_path / "none")
    monkeypatch.setenv("PATH", str(tmp_path))
    postgres = find_postgres()
    assert postgres.bindir is None
    assert "`postgresql` package" in postgres.missing
    newman = find_newman()
    assert newman.script is None
    assert "npm package `newman`" in newman.missing


def test_tools_are_found_with_what_to_bind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A local npm install: Newman's dependencies are beside it in node_modules."""
    modules = tmp_path / "node_modules"
    package = modules / "newman"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "newman"}')
    script = package / "bin" / "newman.js"
    script.write_text("#!/usr/bin/env node\n")
    script.chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "newman").symlink_to("../newman/bin/newman.js")
    node = tmp_path / "nodejs" / "bin" / "node"
    node.parent.mkdir(parents=True)
    node.write_text("#!/bin/sh\n")
    node.chmod(0o755)
    monkeypatch.setenv("PATH", f"{modules / '.bin'}:{node.parent}")
    tool = find_newman()
    assert tool.script == script.resolve()
    assert tool.package == modules.resolve()
    assert tool.binds == (modules.resolve(), (tmp_path / "nodejs").resolve())


@pytest.fixture
def world_writable() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="codeif-stage-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


NOBODY_SCRIPT = """
import json, sys
from pathlib import Path
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.sandbox.process import Limits
from pytest_codeif.sandbox.stage import run_stage
from pytest_codeif.functional.channel import read_records
plan, files, folder = json.loads(sys.stdin.read())
isolation = choose_isolation("auto")
result = run_stage(plan, {k: v.encode() for k, v in files.items()}, Path(folder) / "code",
                   Path(folder) / "io", Limits(timeout=90), isolation)
print(json.dumps({"isolation": isolation.name, "as_nobody": isolation.as_nobody,
                  "stderr": result.stderr, "records": read_records(result.channel)}))
"""


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root")
def test_the_user_namespace_mode_keeps_the_same_promises(world_writable: Path) -> None:
    """pytest as an ordinary user (uid 65534 here): the stage is in a user namespace,
    its children keep that uid, nested namespaces still hide the stage from them."""
    python = "/usr/bin/python3"
    if not Path(python).is_file():
        pytest.skip("no system Python to run as another user")
    steps = [
        http("GET", "/health"),
        cli("echo hi > out.txt; id -u", files=["out.txt"]),
        cli(["python3", "case.py"]),
        http("GET", "/health"),
    ]
    plan = service_plan(steps, argv=["python3", "app.py", "8080"])
    files = {"app.py": SERVICE, "case.py": HOSTILE_CASE}
    done = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            python,
            "-c",
            NOBODY_SCRIPT,
        ],
        input=json.dumps([plan, files, str(world_writable)]),
        capture_output=True,
        text=True,
        cwd=world_writable,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(world_writable)},
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    assert told["isolation"] == "bubblewrap" and told["as_nobody"] is False
    records = told["records"]
    assert kinds(records) == ["service", "step", "step", "step", "step", "service_end", "done"]
    by_step = step_records(records)
    assert by_step[0]["status"] == 200
    assert by_step[1]["stdout"] == "65534\n"
    assert by_step[1]["files"] == {"out.txt": "hi\n"}
    # Its own namespace: the keeper and itself; the private folder empty; kill -9 -1
    # killed its own child only.
    assert json.loads(by_step[2]["stdout"]) == {"pids": [1, 2], "private": [], "child": -9}
    assert by_step[3]["status"] == 200


@needs_bwrap
@pytest.mark.skipif(
    not Path("/etc/alternatives/awk").exists(), reason="no Debian alternative for awk here"
)
def test_system_programs_reached_through_etc_run(tmp_path: Path) -> None:
    """Debian's alternatives (`awk` is a link through /etc/alternatives) and OpenSSL's
    configuration are there; the host's accounts are not."""
    steps = [
        cli("awk 'BEGIN { print 1 }'"),
        cli("cat /etc/shadow || echo no-shadow"),
        cli("test -r /etc/ssl/openssl.cnf || test ! -e /etc/ssl/openssl.cnf && echo ok"),
    ]
    _, records = run(tmp_path, {"env": {}, "steps": steps}, {"a.txt": b"a"})
    ran = step_records(records)
    assert ran[0]["stdout"] == "1\n", ran[0]
    assert "no-shadow" in ran[1]["stdout"], ran[1]
    assert ran[2]["stdout"] == "ok\n", ran[2]

"""Run a task's behaviour (its service, database and the cases judged by running the
code) in one sandboxed stage, and judge what the stage observed.

The stage (`sandbox/stage.py` on the host, `functional/stage_harness.py` inside) holds
the result channel and reports raw observations only: the status, headers and body of a
response, how a program ended and what it printed and wrote, the assertions Newman
counted. Every comparison with what the task expects is made here, in the trusted
process, on that data as hostile text.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.functional.channel import protocol_error, read_records
from pytest_codeif.functional.folders import run_paths, unit_files
from pytest_codeif.functional.json_expect import NotJson, parse_json, path_problem, subset_problem
from pytest_codeif.functional.plain import show
from pytest_codeif.functional.pytest_file import pytest_results
from pytest_codeif.functional.text_expect import text_problem
from pytest_codeif.outcome import CaseResult
from pytest_codeif.sandbox.isolation import Isolation
from pytest_codeif.sandbox.process import Limits, RunResult
from pytest_codeif.sandbox.stage import run_stage
from pytest_codeif.sandbox.stage_tools import find_newman, find_postgres
from pytest_codeif.spec import (
    Behaviour,
    BehaviourCase,
    CliCase,
    HttpCase,
    NewmanCase,
    PytestCase,
)
from pytest_codeif.text import head_tail

#: How a case that could not run for want of a tool on this machine starts its message.
MISSING_TOOL: Final = "missing tool"
#: How the stage says a step did not run for want of a ready service.
NOT_READY: Final = "the service was not ready"
#: Seconds the stage may take beyond its cases' own (copying, starting, stopping).
STAGE_MARGIN: Final = 15.0
#: Seconds a database may take to start.
DATABASE_TIMEOUT: Final = 30.0
#: The first status a request with no `status` expected fails on (4xx and 5xx).
UNSUCCESSFUL: Final = 400
#: Characters of a service's log shown in evidence (its head and its tail).
LOG_SHOWN: Final = 4000


@dataclass(frozen=True)
class BehaviourRun:
    """The cases' results, and the service's log when the service was started (shown
    in evidence when a case did not pass)."""

    cases: list[CaseResult]
    service_log: str | None = None


def stage_timeout(behaviour: Behaviour, default: float) -> float:
    """Seconds the whole stage may take: the service's start, the database's, and every
    case's own timeout."""
    total = STAGE_MARGIN
    if behaviour.service is not None:
        total += behaviour.service.timeout
    if behaviour.database is not None:
        total += DATABASE_TIMEOUT
    for case in behaviour.cases:
        total += _case_timeout(case, default)
    return total


def _case_timeout(case: object, default: float) -> float:
    if isinstance(case, NewmanCase):
        return case.timeout
    given = getattr(case, "timeout", None)
    return float(given) if given is not None else default


def _errors(behaviour: Behaviour, message: str) -> list[CaseResult]:
    """Every case as an error saying `message` (nothing ran)."""
    return [CaseResult(c.label, "error", message, c.location.line) for c in behaviour.cases]


def describe_behaviour(behaviour: Behaviour) -> list[Any]:
    """Everything of the behaviour that decides its verdict, for cache keys: a Newman
    collection and a pytest file by their bytes, and the tools that run them (Newman's
    package manifest, PostgreSQL's programs folder, which names its version)."""
    cases: list[Any] = []
    tools: list[str] = []
    for case in behaviour.cases:
        if isinstance(case, NewmanCase | PytestCase):
            path = case.collection if isinstance(case, NewmanCase) else case.path
            cases.append([repr(case), _digest(path)])
        else:
            cases.append(repr(case))
        if isinstance(case, NewmanCase) and not tools:
            newman = find_newman()
            if newman.script is not None:
                tools.append(_digest(newman.script.parent.parent / "package.json"))
    if behaviour.database is not None:
        tools.append(str(find_postgres().bindir))
    return [repr(behaviour.service), repr(behaviour.database), cases, tools]


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def run_behaviour(
    behaviour: Behaviour,
    unit: CodeUnit,
    *,
    workdir: Path,
    isolation: Isolation,
    timeout: float,
    folder: str = "stage",
) -> BehaviourRun:
    """Run the behaviour of `unit` in its stage and judge each case; `timeout` is the
    task's, the default of each case."""
    if isolation.name != "bubblewrap" and (behaviour.service or behaviour.database):
        message = (
            "a service or database needs the bubblewrap sandbox (its own network "
            f"namespace), and this run uses {isolation.name}: {isolation.reason}"
        )
        return BehaviourRun(_errors(behaviour, f"{MISSING_TOOL}: {message}"))
    plan: dict[str, Any] = {"env": {}, "database": None, "service": None, "steps": []}
    files = unit_files(unit)
    env: dict[str, str] = {}
    if behaviour.database is not None:
        tools = find_postgres()
        if tools.bindir is None:
            return BehaviourRun(_errors(behaviour, f"{MISSING_TOOL}: {tools.missing}"))
        db = behaviour.database
        plan["database"] = {
            "kind": "postgres",
            "bindir": str(tools.bindir),
            "user": db.user,
            "password": db.password,
            "name": db.name,
            "port": db.port,
            "timeout": DATABASE_TIMEOUT,
        }
        if db.url is not None:
            env["DATABASE_URL"] = db.url
    service = behaviour.service
    if service is not None:
        env["CODEIF_SERVICE_URL"] = service.url
        plan["service"] = {
            "argv": list(service.argv),
            "port": service.port,
            "ready": service.ready,
            "timeout": service.timeout,
            "env": dict(service.env),
        }
    plan["env"] = env
    code, io = run_paths(workdir, unit, folder)
    unavailable: dict[int, str] = {}
    for index, case in enumerate(behaviour.cases):
        step = _step(case, index, timeout, _project(unit))
        if isinstance(step, str):  # that case cannot run here; the others still do
            unavailable[index] = step
            step = {"kind": "unavailable"}
        plan["steps"].append(step)
    limits = Limits(timeout=stage_timeout(behaviour, timeout))
    # The tools' folders are bound by the stage from the plan (see `sandbox/stage.py`).
    run = run_stage(plan, files, code, io, limits, isolation)
    return judge(behaviour, run, timeout, unavailable)


def _step(case: object, index: int, timeout: float, project: Path | None) -> dict[str, Any] | str:
    """The stage's step for `case`, or why it cannot run here (`project`: the folder of
    the code under evaluation, where no tool may come from)."""
    own = _case_timeout(case, timeout)
    if isinstance(case, HttpCase):
        step: dict[str, Any] = {
            "kind": "http",
            "method": case.method,
            "path": case.path,
            "headers": dict(case.headers),
            "capture": dict(case.capture),
            "timeout": own,
        }
        if case.has_json:
            step["json"] = case.json
        if case.body is not None:
            step["body"] = case.body
        return step
    if isinstance(case, CliCase):
        return {
            "kind": "cli",
            "argv": list(case.argv),
            "stdin": case.stdin,
            "files": [name for name, _ in case.files],
            "timeout": own,
        }
    if isinstance(case, NewmanCase):
        newman = find_newman()
        if newman.script is None or newman.node is None or newman.package is None:
            return f"{MISSING_TOOL}: {newman.missing}"
        planted = next((p for p in (newman.script, newman.node) if _inside(p, project)), None)
        if planted is not None:
            return (
                f"{MISSING_TOOL}: the Newman found on PATH ({planted}) lies inside the code "
                "under evaluation, which would then judge itself: install Newman outside it"
            )
        return {
            "kind": "newman",
            "node": str(newman.node),
            "script": str(newman.script),
            "package": str(newman.package),
            "collection": str(case.collection),
            "variables": dict(case.variables),
            "timeout": own,
        }
    if not isinstance(case, PytestCase):
        raise TypeError(f"not a behaviour case: {case!r}")
    name = f"test_codeif_{index}_{case.path.name}"
    if not name.endswith(".py"):
        name += ".py"
    # The file travels in the plan, never in the code folder: the service and the
    # command-line cases must not read it (see `stage_harness.Stage.pytest`).
    return {
        "kind": "pytest",
        "name": name,
        "source": base64.b64encode(case.path.read_bytes()).decode(),
        "env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        "timeout": own,
    }


def _project(unit: CodeUnit) -> Path | None:
    """The folder a project unit was read from (None for code given as one module): a
    file's origin less its path in the unit."""
    if not unit.is_project or not unit.files:
        return None
    first = unit.files[0]
    depth = len(Path(first.relpath).parts)
    return first.origin.resolve().parents[depth - 1]


def _inside(path: Path, folder: Path | None) -> bool:
    return folder is not None and path.resolve().is_relative_to(folder)


def judge(
    behaviour: Behaviour,
    run: RunResult,
    timeout: float,
    unavailable: Mapping[int, str] | None = None,
) -> BehaviourRun:
    """Each case's result from the stage's observations; a case of `unavailable` (its
    index -> why it could not run here) is that error whatever the stage said."""
    records = read_records(run.channel)
    broken = protocol_error(records)
    if broken is not None:
        return BehaviourRun(_errors(behaviour, f"protocol: {broken}"))
    steps: dict[int, dict[str, Any]] = {}
    for record in records:
        index = record.get("step")
        if type(index) is int and 0 <= index < len(behaviour.cases):
            steps.setdefault(index, record)
    database = _first(records, "database")
    service = _first(records, "service")
    service_end = _first(records, "service_end")
    problem = _start_problem(behaviour, database, service)
    results: list[CaseResult] = []
    for index, case in enumerate(behaviour.cases):
        if unavailable and index in unavailable:
            results.append(CaseResult(case.label, "error", unavailable[index], case.location.line))
            continue
        observed = steps.get(index)
        if observed is None:
            results.append(_unreported(case, run, problem))
            continue
        if database is not None and not database.get("ready"):
            message = f"the database did not start: {_log(database)}"
            results.append(CaseResult(case.label, "error", message, case.location.line))
            continue
        judged = _judge_case(case, observed, run, timeout)
        if problem:
            # The service did not start: what could not run for want of it failed
            # because of the code, it is not undecided.
            judged = [r if r.status == "passed" else _with_note(r, problem) for r in judged]
        results.extend(judged)
    log = None
    if service is not None or service_end is not None:
        log = _log(service_end if service_end is not None else service)
        ended = service_end.get("exited") if service_end is not None else None
        if service is not None and service.get("ready") and type(ended) is int:
            # It ended by itself after it was ready (one the stage killed tells no
            # status): a crash mid-run, which its log may not say (os._exit, a signal).
            log = f"(the service exited with status {ended} while the cases ran)\n{log}"
    return BehaviourRun(results, log)


def _first(records: Sequence[dict[str, Any]], key: str) -> dict[str, Any] | None:
    for record in records:
        value = record.get(key)
        if isinstance(value, dict):
            return value
    return None


def _log(record: Mapping[str, Any] | None) -> str:
    text = str(record.get("log", "")) if record is not None else ""
    return head_tail(text, LOG_SHOWN) if text else "(nothing logged)"


#: What a shell's own exit statuses mean, for a `run` that never started the service.
_SHELL_STATUS: Final = {
    126: (
        "; 126 is the shell's for a command it could not execute, such as a run.sh"
        " without its executable bit (Constraint Decay runs `chmod +x run.sh` first:"
        " `run: chmod +x run.sh && ./run.sh` does the same)"
    ),
    127: "; 127 is the shell's for a command not found (on PATH, or a #! line's)",
}


def _start_problem(
    behaviour: Behaviour, database: dict[str, Any] | None, service: dict[str, Any] | None
) -> str:
    """Why the service was not there for the cases ('' when it was)."""
    spec = behaviour.service
    if spec is None:
        return ""
    if service is None:
        return "the service was never started"
    if service.get("ready"):
        return ""
    exited = service.get("exited")
    if type(exited) is int:
        why = _SHELL_STATUS.get(exited, "")
        return f"the service exited with status {exited} before it was ready{why}"
    return f"the service was not ready ({spec.ready}) within {spec.timeout:g} s"


def _with_note(result: CaseResult, note: str) -> CaseResult:
    """`result` failed, saying `note` (why the service was not there)."""
    said = result.message
    if said.endswith(NOT_READY):  # the stage's own words for it: the note says more
        said = said[: -len(NOT_READY)].rstrip(": ")
    message = f"{said} ({note})" if said else note
    return CaseResult(result.label, "failed", message, result.line)


def _unreported(case: BehaviourCase, run: RunResult, problem: str) -> CaseResult:
    label, line = case.label, case.location.line
    if run.timed_out:
        message = "the stage timed out before this case reported a result"
    else:
        message = (
            f"the stage ended (exit code {run.returncode}) before this case reported a result"
            + (f"; stderr: {head_tail(run.stderr.strip(), 600)}" if run.stderr.strip() else "")
        )
    if problem:
        message += f" ({problem})"
    return CaseResult(str(label), "error", message, line)


def _judge_case(
    case: object, record: dict[str, Any], run: RunResult, timeout: float
) -> list[CaseResult]:
    if isinstance(case, HttpCase):
        return [_judge_http(case, record)]
    if isinstance(case, CliCase):
        return [_judge_cli(case, record, timeout)]
    if isinstance(case, NewmanCase):
        return _judge_newman(case, record)
    if not isinstance(case, PytestCase):
        raise TypeError(f"not a behaviour case: {case!r}")
    return _judge_pytest(case, record, timeout)


def _judge_http(case: HttpCase, record: dict[str, Any]) -> CaseResult:
    line = case.location.line

    def failed(message: str) -> CaseResult:
        return CaseResult(case.label, "failed", message, line)

    if "error" in record or type(record.get("status")) is not int:
        error = str(record.get("error", "no response"))[:500]
        if error.startswith("unknown variable"):
            return failed(f"{error} (the request that captures it failed)")
        return failed(f"no response: {error}")
    status: int = record["status"]
    body = head_tail(str(record.get("body", "")), 600)
    if case.status is not None and status != case.status:
        return failed(f"expected status {case.status}, got {status}; body: {show(body, 700)}")
    if case.status is None and status >= UNSUCCESSFUL:
        # No status said: a success (2xx) or a redirect (3xx) is what a request asks.
        return failed(f"expected a status below {UNSUCCESSFUL}, got {status}; body: {show(body)}")
    headers = record.get("headers")
    pairs = [(str(k).lower(), str(v)) for k, v in headers] if isinstance(headers, list) else []
    for name, wanted in case.expect_headers:
        got = [v for k, v in pairs if k == name.lower()]
        if not any(wanted in v for v in got):
            return failed(f"header {name}: expected {show(wanted)}, got {show(got)}")
    if case.has_json_subset or case.paths:
        try:
            document = parse_json(str(record.get("body", "")))
        except NotJson as exc:
            return failed(str(exc))
        problem = subset_problem(document, case.json_subset) if case.has_json_subset else None
        for path, wanted in case.paths:
            problem = problem or path_problem(document, path, wanted)
        if problem is not None:
            return failed(problem)
    missing = record.get("missing_captures")
    if isinstance(missing, list) and missing:
        names = ", ".join(f"`{str(name)[:100]}`" for name in missing[:10])
        return failed(f"capture {names}: not in the response's JSON at the path given")
    return CaseResult(case.label, "passed", f"status {status}", line)


def _judge_cli(case: CliCase, record: dict[str, Any], timeout: float) -> CaseResult:
    line = case.location.line
    limit = case.timeout if case.timeout is not None else timeout
    if "error" in record:  # nothing was observed: the program could not be started
        message = f"the program could not be run: {str(record['error'])[:500]}"
        return CaseResult(case.label, "error", message, line)
    if record.get("timed_out") or type(record.get("exit")) is not int:
        return CaseResult(case.label, "error", f"timed out after {limit:g} s", line)
    exit_code = record["exit"]
    problems: list[str] = []
    if exit_code != case.exit:
        stderr = head_tail(str(record.get("stderr", "")), 600)
        said = f"; stderr: {show(stderr, 700)}" if stderr else ""
        signal = record.get("signal")
        how = f"killed by signal {signal}" if type(signal) is int else str(exit_code)
        problems.append(f"exit status: expected {case.exit}, got {how}{said}")
    for stream in ("stdout", "stderr"):
        expected = getattr(case, stream)
        if expected is None:
            continue
        if expected.exact is not None and record.get(f"{stream}_cut"):
            problems.append(f"{stream}: longer than the part read, so not {show(expected.exact)}")
            continue
        found = text_problem(stream, str(record.get(stream, "")), expected)
        if found is not None:
            problems.append(found)
    problems.extend(_file_problems(case, record))
    if problems:
        return CaseResult(case.label, "failed", "; ".join(problems), line)
    return CaseResult(case.label, "passed", "", line)


def _file_problems(case: CliCase, record: dict[str, Any]) -> list[str]:
    """Why the files a command-line case wrote are not as expected."""
    written = record.get("files")
    written = written if isinstance(written, dict) else {}
    listed = {key: record.get(f"files_{key}") for key in ("other", "unread", "cut")}
    kinds = {key: set(v) if isinstance(v, list) else set() for key, v in listed.items()}
    problems: list[str] = []
    for name, expected in case.files:
        what = f"file {name}"
        if name in kinds["unread"]:
            problems.append(f"{what}: not read (the case's files passed the bytes read)")
        elif name in kinds["other"]:
            problems.append(f"{what}: there, but not a regular file (a link, a folder...)")
        elif name in kinds["cut"] and expected.exact is not None:
            problems.append(f"{what}: longer than the part read, so not {show(expected.exact)}")
        else:
            content = written.get(name)
            found = text_problem(what, content if isinstance(content, str) else None, expected)
            if found is not None:
                problems.append(found)
    return problems


def _judge_newman(case: NewmanCase, record: dict[str, Any]) -> list[CaseResult]:
    """One case per assertion Newman reported, labelled `name > request > test` (a
    skipped assertion is not a pass), and one failed case per test script that threw,
    since it hides the assertions it stopped; a run that ended badly with neither fails
    too. A request that got no response is no case of its own: Newman still runs its
    tests, which fail and say why, so the totals stay Newman's."""
    line = case.location.line
    results = _newman_cases(case, record)
    stderr = head_tail(str(record.get("stderr", "")), 1000)
    if record.get("timed_out"):
        message = (
            f"Newman did not finish within {case.timeout:g} s (a request hung?); "
            f"stderr: {show(stderr, 1100)}"
        )
        return [*results, CaseResult(case.label, "failed", message, line, assertion=False)]
    if not results:
        if "error" in record:
            message = f"Newman did not run: {str(record['error'])[:500]}"
        else:
            how = f"exited with {show(record.get('exit'))}"
            message = f"Newman reported no assertion ({how}); stderr: {show(stderr, 1100)}"
        return [CaseResult(case.label, "error", message, line)]
    if record.get("exit") != 0 and all(r.status == "passed" for r in results):
        unanswered = _unanswered(record)
        if unanswered:  # a request with no tests got no response: nothing else says it
            message = f"Newman exited with {show(record.get('exit'))}: {unanswered}"
        else:
            message = f"Newman exited with {show(record.get('exit'))}: {show(stderr, 1100)}"
        results.append(CaseResult(f"{case.label} > run", "failed", message, line, assertion=False))
    return results


def _unanswered(record: dict[str, Any]) -> str:
    """The first request of a Newman run that got no response, and why ('' if none)."""
    executions = record.get("executions")
    for execution in executions if isinstance(executions, list) else []:
        if isinstance(execution, dict) and execution.get("error"):
            request = str(execution.get("request", "?"))[:200]
            return f"request {show(request)} got no response: {str(execution['error'])[:300]}"
    return ""


def _newman_cases(case: NewmanCase, record: dict[str, Any]) -> list[CaseResult]:
    """The assertions of a Newman run, one case each, and its other failures but the
    requests' own (see `_judge_newman`)."""
    line = case.location.line
    executions = record.get("executions")
    results: list[CaseResult] = []
    for execution in executions if isinstance(executions, list) else []:
        if not isinstance(execution, dict):
            continue
        request = str(execution.get("request", "?"))[:200]
        unanswered = execution.get("error")
        why = f" (the request got no response: {str(unanswered)[:300]})" if unanswered else ""
        assertions = execution.get("assertions")
        for assertion in assertions if isinstance(assertions, list) else []:
            if not isinstance(assertion, dict):
                continue
            label = f"{case.label} > {request} > {str(assertion.get('name', '?'))[:200]}"
            error = assertion.get("error")
            if error is not None:
                results.append(CaseResult(label, "failed", str(error)[:500] + why, line))
            elif assertion.get("skipped") is True:
                results.append(CaseResult(label, "failed", "skipped" + why, line))
            else:
                results.append(CaseResult(label, "passed", "", line))
    failures = record.get("script_errors")
    for failure in failures if isinstance(failures, list) else []:
        if isinstance(failure, dict):
            request, at = str(failure.get("request", "?"))[:200], str(failure.get("at", "?"))
            if at == "request":
                continue  # the execution's own error, said with its assertions
            label = f"{case.label} > {request} > {at[:100]}"
            message = str(failure.get("error") or "an error")[:500]
            results.append(CaseResult(label, "failed", message, line, assertion=False))
    return results


def _judge_pytest(case: PytestCase, record: dict[str, Any], timeout: float) -> list[CaseResult]:
    """The child pytest's records, judged as a `pytest:` file's are (see `run.py`)."""
    inner = record.get("records")
    lines = [json.dumps(r) for r in inner if isinstance(r, dict)] if isinstance(inner, list) else []
    exit_code = record.get("exit")
    run = RunResult(
        exit_code if type(exit_code) is int else None,
        bool(record.get("timed_out")),
        "",
        str(record.get("stderr", ""))[:2000],
        "\n".join(lines),
    )
    limit = case.timeout if hasattr(case, "timeout") else timeout
    return pytest_results(case, run, float(limit or timeout))

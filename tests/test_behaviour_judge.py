"""Judging a stage's observations on the host: every comparison a behaviour case makes
(status, JSON subset, paths, headers, a program's exit, output and files, Newman's
assertions) and every way a case can go unreported. The observations are hand-written
records, as the stage would write them (including hostile ones)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.errors import Location
from pytest_codeif.functional.behaviour import judge, stage_timeout
from pytest_codeif.functional.json_expect import NotJson, at_path, json_equal, parse_json
from pytest_codeif.functional.text_expect import text_problem
from pytest_codeif.sandbox.process import RunResult
from pytest_codeif.spec import (
    Behaviour,
    CliCase,
    HttpCase,
    NewmanCase,
    ServiceSpec,
    TextExpectation,
)

HERE = Location(Path("t.codeif.yaml"), 7, ())
SERVICE = ServiceSpec(("./run.sh",), 8080, "/health", 5.0, (), HERE)


READY = {"service": {"ready": True, "log": ""}}


def _run(*records: dict[str, Any], timed_out: bool = False, code: int | None = 0) -> RunResult:
    channel = "\n".join(json.dumps(r) for r in records)
    return RunResult(code, timed_out, "", "", channel)


def _statuses(behaviour: Behaviour, run: RunResult) -> list[tuple[str, str]]:
    return [(c.status, c.message) for c in judge(behaviour, run, 10.0).cases]


def _http(**given: Any) -> HttpCase:
    return HttpCase("req", HERE, method="GET", path="/x", **given)


def test_http_status_and_json_subset() -> None:
    case = _http(status=201, json_subset={"user": {"name": "al"}}, has_json_subset=True)
    behaviour = Behaviour(SERVICE, None, (case,))
    ready = {"service": {"ready": True, "log": ""}}
    good = {"step": 0, "status": 201, "headers": [], "body": '{"user": {"name": "al", "id": 3}}'}
    assert _statuses(behaviour, _run(ready, good, {"done": True})) == [("passed", "status 201")]
    wrong = {**good, "status": 200}
    [(status, message)] = _statuses(behaviour, _run(ready, wrong, {"done": True}))
    assert status == "failed"
    assert "expected status 201, got 200" in message
    other = {**good, "body": '{"user": {"name": "bo"}}'}
    [(status, message)] = _statuses(behaviour, _run(ready, other, {"done": True}))
    assert (status, message) == ("failed", "user.name: expected 'al', got 'bo'")


def test_http_paths_types_headers() -> None:
    case = _http(
        paths=(("user.token", {"type": "string"}), ("items[1]", 2), ("gone", {"exists": False})),
        expect_headers=(("content-type", "application/json"),),
    )
    behaviour = Behaviour(SERVICE, None, (case,))
    body = json.dumps({"user": {"token": "t"}, "items": [1, 2]})
    headers = [["Content-Type", "application/json; charset=utf-8"]]
    record = {"step": 0, "status": 200, "headers": headers, "body": body}
    assert _statuses(behaviour, _run(READY, record))[0][0] == "passed"
    no_header = {**record, "headers": [["Content-Type", "text/html"]]}
    assert "header content-type" in _statuses(behaviour, _run(READY, no_header))[0][1]
    number = {**record, "body": json.dumps({"user": {"token": 5}, "items": [1, 2]})}
    assert _statuses(behaviour, _run(READY, number))[0][1] == "user.token: expected a string, got 5"
    present = {**record, "body": json.dumps({"user": {"token": "t"}, "items": [1, 2], "gone": 0})}
    assert _statuses(behaviour, _run(READY, present))[0][1] == "gone: expected no value, got 0"


def test_http_without_response_or_json() -> None:
    case = _http(paths=(("a", 1),))
    behaviour = Behaviour(SERVICE, None, (case,))
    refused = {"step": 0, "error": "connection refused"}
    assert _statuses(behaviour, _run(READY, refused)) == [
        ("failed", "no response: connection refused")
    ]
    html = {"step": 0, "status": 200, "headers": [], "body": "<html>"}
    status, message = _statuses(behaviour, _run(READY, html))[0]
    assert status == "failed"
    assert message.startswith("the body is not JSON")
    unknown = {"step": 0, "error": "unknown variable ${token}"}
    assert "request that captures it failed" in _statuses(behaviour, _run(READY, unknown))[0][1]


def test_a_boolean_is_not_a_number_and_nan_equals_nothing() -> None:
    assert not json_equal(True, 1)
    assert not json_equal(1, True)
    assert json_equal(1, 1.0)
    assert not json_equal(float("nan"), float("nan"))
    assert not json_equal("1", 1)


def test_json_paths_and_hostile_bodies() -> None:
    assert at_path({"a": [{"b": 3}]}, "a[0].b") == 3
    assert parse_json('{"x": 1}') == {"x": 1}
    with pytest.raises(NotJson, match="nested too deeply"):
        parse_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(NotJson, match="more than are read"):
        parse_json(" " * (2 << 20))


def test_service_not_ready_is_said_on_each_failure_and_its_log_kept() -> None:
    case = _http(status=200)
    behaviour = Behaviour(SERVICE, None, (case,))
    log = "Traceback (most recent call last):\n" + "x" * 20_000 + "\nKeyError: 'DATABASE_URL'"
    run = _run(
        {"service": {"ready": False, "exited": 1, "log": log}},
        {"step": 0, "error": "connection refused"},
        {"service_end": {"exited": 1, "log": log}},
        {"done": True},
    )
    behaved = judge(behaviour, run, 10.0)
    [result] = behaved.cases
    assert result.status == "failed"
    assert "the service exited with status 1 before it was ready" in result.message
    assert behaved.service_log is not None
    assert behaved.service_log.startswith("Traceback")
    assert behaved.service_log.endswith("KeyError: 'DATABASE_URL'")
    assert "characters cut" in behaved.service_log


def test_a_service_that_ended_while_the_cases_ran_is_said_in_its_log() -> None:
    behaviour = Behaviour(SERVICE, None, (_http(status=200),))
    ok = {"step": 0, "status": 200, "headers": [], "body": ""}
    crashed = _run(READY, ok, {"service_end": {"exited": 3, "log": "serving"}}, {"done": True})
    log = judge(behaviour, crashed, 10.0).service_log
    assert log == "(the service exited with status 3 while the cases ran)\nserving"
    # Killed by the stage at the end (no status): its log alone.
    killed = _run(READY, ok, {"service_end": {"exited": None, "log": "serving"}}, {"done": True})
    assert judge(behaviour, killed, 10.0).service_log == "serving"


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (126, "`run: chmod +x run.sh && ./run.sh`"),
        (127, "127 is the shell's for a command not found"),
        (3, ""),
    ],
)
def test_a_shells_own_exit_status_is_explained(status: int, said: str) -> None:
    """126 and 127 are the shell's (a run.sh without its executable bit, a command not
    found): said so, since the code's own log has nothing but `Permission denied`."""
    behaviour = Behaviour(SERVICE, None, (_http(status=200),))
    log = "/bin/sh: 1: ./run.sh: Permission denied"
    run = _run(
        {"service": {"ready": False, "exited": status, "log": log}},
        {"step": 0, "error": "the service was not ready"},
        {"done": True},
    )
    [result] = judge(behaviour, run, 10.0).cases
    assert result.status == "failed"
    assert f"the service exited with status {status} before it was ready" in result.message
    assert said in result.message
    assert ("shell's" in result.message) == bool(said)


def test_unreported_cases_are_errors_never_passes() -> None:
    cases = (_http(status=200), _http(status=200))
    behaviour = Behaviour(SERVICE, None, cases)
    ready = {"service": {"ready": True, "log": ""}}
    run = _run(ready, {"step": 0, "status": 200, "headers": [], "body": ""}, timed_out=True)
    results = judge(behaviour, run, 10.0).cases
    assert [r.status for r in results] == ["passed", "error"]
    assert "timed out" in results[1].message
    forged = _run(ready, {"step": 1, "status": 200}, {"step": 7, "status": 200}, {"step": "0"})
    assert [r.status for r in judge(behaviour, forged, 10.0).cases] == ["error", "passed"]


def test_a_protocol_record_fails_every_case() -> None:
    behaviour = Behaviour(SERVICE, None, (_http(status=200),))
    run = _run({"protocol": "unasked reply"}, {"step": 0, "status": 200})
    [(status, message)] = _statuses(behaviour, run)
    assert status == "error"
    assert message.startswith("protocol:")


def test_database_that_did_not_start_is_an_error() -> None:
    from pytest_codeif.spec import DatabaseSpec

    behaviour = Behaviour(SERVICE, DatabaseSpec("postgres", HERE), (_http(status=200),))
    run = _run(
        {"database": {"ready": False, "log": "initdb: could not create directory"}},
        {"service": {"ready": True}},
        {"step": 0, "status": 200},
    )
    [(status, message)] = _statuses(behaviour, run)
    assert status == "error"
    assert "could not create directory" in message


def _cli(**given: Any) -> CliCase:
    return CliCase("prog", HERE, argv=("python", "main.py"), **given)


def test_cli_exit_output_and_files() -> None:
    case = _cli(
        stdout=TextExpectation(exact="HELLO\n"),
        stderr=TextExpectation(regex=r"warn\w+"),
        files=(("out.txt", TextExpectation(contains="done")), ("x", TextExpectation(absent=True))),
    )
    behaviour = Behaviour(None, None, (case,))
    good = {
        "step": 0,
        "exit": 0,
        "timed_out": False,
        "stdout": "HELLO\n",
        "stderr": "warning!",
        "files": {"out.txt": "all done", "x": None},
    }
    assert _statuses(behaviour, _run(good)) == [("passed", "")]
    bad = {**good, "exit": 3, "stdout": "hello\n", "files": {"out.txt": None, "x": "1"}}
    [(status, message)] = _statuses(behaviour, _run(bad))
    assert status == "failed"
    assert "exit status: expected 0, got 3" in message
    assert "stdout: expected 'HELLO\\n', got 'hello\\n'" in message
    assert "file out.txt: expected it to be written" in message
    assert "file x: expected no such file" in message
    slow = {"step": 0, "exit": None, "timed_out": True}
    assert _statuses(behaviour, _run(slow)) == [("error", "timed out after 10 s")]


def test_text_expectations_use_the_linear_time_engine() -> None:
    evil = TextExpectation(regex=r"^(a+)+$")
    assert text_problem("stdout", "a" * 50_000 + "!", evil) is not None
    assert text_problem("stdout", "aaa", evil) is None
    huge = "a" * 2_000_000
    assert "too long" in (text_problem("stdout", huge, evil) or "")


def test_newman_assertions_are_cases() -> None:
    case = NewmanCase("conduit", HERE, collection=Path("c.json"))
    behaviour = Behaviour(SERVICE, None, (case,))
    executions = [
        {
            "request": "Register",
            "error": None,
            "assertions": [{"name": "status 201", "error": None}, {"name": "has token"}],
        },
        {
            "request": "Login",
            "error": None,
            "assertions": [{"name": "status 200", "error": "expected 422 to equal 200"}],
        },
        "junk",
        {"request": "x", "assertions": "junk"},
    ]
    record = {"step": 0, "exit": 1, "executions": executions}
    results = judge(behaviour, _run({"service": {"ready": True}}, record), 10.0).cases
    assert [(r.label, r.status) for r in results] == [
        ("conduit > Register > status 201", "passed"),
        ("conduit > Register > has token", "passed"),
        ("conduit > Login > status 200", "failed"),
    ]
    assert results[2].message == "expected 422 to equal 200"
    nothing = {"step": 0, "exit": 1, "executions": [], "stderr": "error: ENOENT collection"}
    [(status, message)] = _statuses(behaviour, _run({"service": {"ready": True}}, nothing))
    assert status == "error"
    assert "ENOENT" in message


def test_stage_timeout_sums_every_part() -> None:
    cases = (_http(), _cli(timeout=3.0), NewmanCase("n", HERE, Path("c"), timeout=100.0))
    total = stage_timeout(Behaviour(SERVICE, None, cases), 10.0)
    assert total == pytest.approx(15 + 5 + 10 + 3 + 100)


def test_what_could_not_run_for_want_of_the_service_failed() -> None:
    cases = (NewmanCase("conduit", HERE, Path("c.json")), _cli(), _http(status=200))
    behaviour = Behaviour(SERVICE, None, cases)
    run = _run(
        {"service": {"ready": False, "exited": None, "log": "Address already in use"}},
        {"step": 0, "error": "the service was not ready"},
        {"step": 1, "error": "cannot execute python"},
        {"step": 2, "error": "the service was not ready"},
        {"done": True},
    )
    results = judge(behaviour, run, 10.0).cases
    assert [r.status for r in results] == ["failed", "failed", "failed"]
    assert all("was not ready (/health) within 5 s" in r.message for r in results)
    assert results[0].label == "conduit"  # counted as the whole collection never run


def test_what_is_not_a_regular_file_or_was_not_read_is_never_absent_or_equal() -> None:
    case = _cli(
        stdout=TextExpectation(exact="x" * 10),
        files=(
            ("lock", TextExpectation(absent=True)),
            ("big", TextExpectation(exact="")),
            ("late", TextExpectation(exact="")),
        ),
    )
    record = {
        "step": 0,
        "exit": 0,
        "stdout": "x" * 10,
        "stdout_cut": True,
        "files": {"lock": None, "big": "", "late": None},
        "files_other": ["lock"],
        "files_cut": ["big"],
        "files_unread": ["late"],
    }
    [(status, message)] = _statuses(Behaviour(None, None, (case,)), _run(record))
    assert status == "failed"
    assert "stdout: longer than the part read" in message
    assert "file lock: there, but not a regular file" in message
    assert "file big: longer than the part read" in message
    assert "file late: not read" in message


def test_newman_script_errors_and_skips_fail() -> None:
    case = NewmanCase("c", HERE, collection=Path("c.json"))
    executions = [
        {
            "request": "Login",
            "assertions": [{"name": "ok", "error": None}, {"name": "s", "skipped": True}],
        }
    ]
    script_errors = [{"request": "Login", "at": "test-script", "error": "JSONError: bad"}]
    record = {"step": 0, "exit": 1, "executions": executions, "script_errors": script_errors}
    results = judge(Behaviour(SERVICE, None, (case,)), _run(READY, record), 10.0).cases
    assert [(r.label, r.status, r.message) for r in results] == [
        ("c > Login > ok", "passed", ""),
        ("c > Login > s", "failed", "skipped"),
        ("c > Login > test-script", "failed", "JSONError: bad"),
    ]
    # The thrown script fails the task but is no assertion of the pass rate.
    assert [r.assertion for r in results] == [True, True, False]
    stalled: dict[str, Any] = {"step": 0, "exit": None, "timed_out": True, "executions": []}
    [(status, message)] = _statuses(Behaviour(SERVICE, None, (case,)), _run(READY, stalled))
    assert status == "failed"
    assert "did not finish within 300 s" in message


def test_a_request_with_no_response_fails_its_assertions_and_adds_no_case() -> None:
    """Newman still runs the tests of a request that got no response (the service died
    mid-run): they fail, and say why; the request's own failure is no extra case, so the
    totals stay Newman's own."""
    case = NewmanCase("c", HERE, collection=Path("c.json"))
    refused = "connect ECONNREFUSED 127.0.0.1:8080"
    executions = [
        {"request": "Login", "error": None, "assertions": [{"name": "ok", "error": None}]},
        {
            "request": "Feed",
            "error": refused,
            "assertions": [{"name": "200", "error": "expected false to be truthy"}],
        },
        {"request": "Delete", "error": refused, "assertions": []},
    ]
    script_errors = [
        {"request": "Feed", "at": "request", "error": refused},
        {"request": "Delete", "at": "request", "error": refused},
    ]
    record = {"step": 0, "exit": 1, "executions": executions, "script_errors": script_errors}
    results = judge(Behaviour(SERVICE, None, (case,)), _run(READY, record), 10.0).cases
    assert [(r.label, r.status) for r in results] == [
        ("c > Login > ok", "passed"),
        ("c > Feed > 200", "failed"),
    ]
    assert results[1].message == (
        f"expected false to be truthy (the request got no response: {refused})"
    )
    # All assertions passed but a request without tests got no response: the run fails,
    # naming it.
    quiet = {**record, "executions": [executions[0], executions[2]]}
    results = judge(Behaviour(SERVICE, None, (case,)), _run(READY, quiet), 10.0).cases
    assert [(r.label, r.status) for r in results] == [
        ("c > Login > ok", "passed"),
        ("c > run", "failed"),
    ]
    expected = f"Newman exited with 1: request 'Delete' got no response: {refused}"
    assert results[1].message == expected


def test_a_request_without_a_status_must_succeed_and_its_captures_be_found() -> None:
    behaviour = Behaviour(SERVICE, None, (_http(),))
    error = {"step": 0, "status": 500, "headers": [], "body": "Traceback"}
    [(status, message)] = _statuses(behaviour, _run(READY, error))
    assert status == "failed"
    assert message.startswith("expected a status below 400, got 500")
    redirect = {"step": 0, "status": 302, "headers": [], "body": ""}
    assert _statuses(behaviour, _run(READY, redirect))[0][0] == "passed"
    lost = {**redirect, "status": 200, "missing_captures": ["token"]}
    [(status, message)] = _statuses(behaviour, _run(READY, lost))
    assert (status, message) == (
        "failed",
        "capture `token`: not in the response's JSON at the path given",
    )


def test_a_case_that_cannot_run_here_errs_alone() -> None:
    cases = (NewmanCase("n", HERE, Path("c.json")), _http())
    behaviour = Behaviour(SERVICE, None, cases)
    run = _run(
        READY,
        {"step": 0, "error": "not a step the stage knows: unavailable"},
        {"step": 1, "status": 200, "headers": [], "body": ""},
    )
    results = judge(behaviour, run, 10.0, {0: "missing tool: Newman is not installed"}).cases
    assert [(r.status, r.message) for r in results] == [
        ("error", "missing tool: Newman is not installed"),
        ("passed", "status 200"),
    ]

"""The pytest plugin of a pytest file's worker (see `pytest_harness.py`): it sends each
test's outcome to the supervisor as one signed JSON line, so the supervisor never parses
human-oriented output and the code cannot simply write outcomes of its own.

The code under evaluation runs in this same interpreter, so it can patch pytest. The
plugin notes pytest's machinery before any test module (and so the code) is imported,
and reports every test as an error once that machinery has changed. Each line is signed
with a key the supervisor gave this worker before the code was imported: a line written
by the code to the pipe (found in /proc/self/fd) is refused, and the run ends as a
`protocol` error. Code that reads the key out of this interpreter's memory, or patches
this plugin itself, is not detected: see the docs' page "Functional tests" on shared interpreters.

The harness loads this file by path before pytest starts, so pytest must not try to
rewrite its asserts: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from _pytest import python, reports, runner

#: Characters of a test's failure message sent (its head and its tail).
MESSAGE_CHARACTERS = 1800


def sign(key: bytes, payload: str) -> str:
    """The signature the supervisor checks for one record's JSON text."""
    return hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()


def _machinery() -> dict[str, Any]:
    """What a test's outcome depends on, by name."""
    return {
        "Function.runtest": python.Function.runtest,
        "pytest_pyfunc_call": python.pytest_pyfunc_call,
        "call_and_report": runner.call_and_report,
        # Read from the class dict: `TestReport.from_item_and_call` is a new bound method
        # object at each access, never `is` the one before.
        "TestReport.from_item_and_call": reports.TestReport.__dict__["from_item_and_call"],
        "TestReport.outcome": reports.TestReport.__dict__.get("outcome"),
        "TestReport.__init__": reports.TestReport.__dict__["__init__"],
        "CallInfo.from_call": runner.CallInfo.__dict__["from_call"],
        "json.dumps": json.dumps,
        "hmac.new": hmac.new,
    }


class Writer:
    """Sends one signed line per test phase that decides the test's outcome."""

    def __init__(self, send: Callable[[dict[str, Any]], None], key: bytes) -> None:
        self._send = send
        self._key = key
        self.original = _machinery()

    def _tampered(self) -> list[str]:
        now = _machinery()
        return [name for name, value in self.original.items() if now[name] is not value]

    def _write(self, record: dict[str, Any]) -> None:
        payload = json.dumps(record)
        self._send({"record": payload, "sig": sign(self._key, payload)})

    @pytest.fixture
    def codeif_service_url(self) -> str:
        """The base URL of the task's service (`http://127.0.0.1:PORT`), also given as
        the environment variable CODEIF_SERVICE_URL."""
        return _given("CODEIF_SERVICE_URL", "a `service`")

    @pytest.fixture
    def codeif_database_url(self) -> str:
        """The URL of the task's PostgreSQL database (`databases: [postgres]`), also
        given as the environment variable DATABASE_URL."""
        return _given("DATABASE_URL", "`databases: [postgres]`")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome: str
        if report.when == "call":
            outcome = report.outcome
        elif report.failed:
            outcome = "error"
        elif report.skipped:
            outcome = "skipped"
        else:
            return
        message = "" if report.passed else _short(report)
        changed = self._tampered()
        if changed:
            outcome = "error"
            message = f"pytest's machinery was modified during the run: {', '.join(changed)}"
        self._write({"nodeid": report.nodeid, "outcome": outcome, "message": message})

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self._write(
                {"nodeid": report.nodeid, "outcome": "collect-error", "message": _short(report)}
            )


def _given(name: str, what: str) -> str:
    """The environment variable `name`; the test fails when the task gives none."""
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: the task has no {what}", pytrace=False)
    return value


def _short(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The crash line (`assert 1 == 2`), not the whole traceback."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(report.longrepr)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) > 8:  # the head says what failed, the tail (a server's error) why
        lines = [*lines[:4], f"[... {len(lines) - 8} lines cut ...]", *lines[-4:]]
    joined = " | ".join(lines)
    if len(joined) > MESSAGE_CHARACTERS:
        half = MESSAGE_CHARACTERS // 2
        cut = len(joined) - 2 * half
        joined = f"{joined[:half]} [... {cut} characters cut ...] {joined[-half:]}"
    return joined

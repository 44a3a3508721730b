"""A pytest plugin loaded into the child pytest that runs a task's test file: it writes
each test's outcome as a JSON line to an inherited descriptor, so the parent never parses
human-oriented output.

The code under evaluation runs in this same interpreter, so it can patch pytest. The
plugin notes pytest's machinery before any test module (and so the code) is imported,
and reports every test as an error once that machinery has changed. A determined patch
of this plugin itself is not detected: see the README on shared interpreters.

The sandbox imports this file by path before pytest starts (see `run.CHILD_REPORT`), so
pytest must not try to rewrite its asserts: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import IO, Any

import pytest
from _pytest import python, reports, runner


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--codeif-channel", type=int, help="internal: descriptor for outcomes")


def pytest_configure(config: pytest.Config) -> None:
    channel = config.getoption("codeif_channel")
    if channel is not None:
        handle = os.fdopen(channel, "w", encoding="utf-8")
        config.pluginmanager.register(_Writer(handle), "codeif-child-writer")


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
        "json.dumps": json.dumps,
    }


class _Writer:
    """Writes one line per test phase that decides the test's outcome."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle
        self.write: Callable[[str], int] = handle.write
        self.original = _machinery()

    def _tampered(self) -> list[str]:
        now = _machinery()
        return [name for name, value in self.original.items() if now[name] is not value]

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
        record = {"nodeid": report.nodeid, "outcome": outcome, "message": message}
        self.write(json.dumps(record) + "\n")
        self.handle.flush()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            record = {
                "nodeid": report.nodeid,
                "outcome": "collect-error",
                "message": _short(report),
            }
            self.write(json.dumps(record) + "\n")
            self.handle.flush()

    def pytest_unconfigure(self) -> None:
        self.handle.close()


def _short(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The crash line (`assert 1 == 2`), not the whole traceback."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(report.longrepr)
    return " | ".join(line.strip() for line in text.splitlines()[:4] if line.strip())[:500]

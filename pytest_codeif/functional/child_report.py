"""A pytest plugin loaded into the child pytest that runs a task's test file: it writes
each test's outcome as a JSON line, so the parent never parses human-oriented output."""

from __future__ import annotations

import json
from typing import IO

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--codeif-child-report", help="internal: where to write outcomes")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("codeif_child_report")
    if path:
        config.pluginmanager.register(_Writer(open(path, "w", encoding="utf-8")))  # noqa: SIM115


class _Writer:
    """Writes one line per test phase that decides the test's outcome."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle

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
        message = str(report.longrepr)[-2000:] if not report.passed else ""
        record = {"nodeid": report.nodeid, "outcome": outcome, "message": message}
        self.handle.write(json.dumps(record) + "\n")
        self.handle.flush()

    def pytest_unconfigure(self) -> None:
        self.handle.close()

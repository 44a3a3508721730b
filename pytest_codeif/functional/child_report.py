"""A pytest plugin loaded into the child pytest that runs a task's test file: it writes
each test's outcome as a JSON line, so the parent never parses human-oriented output."""

from __future__ import annotations

import json
import os
from typing import IO

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--codeif-channel", type=int, help="internal: descriptor for outcomes")


def pytest_configure(config: pytest.Config) -> None:
    channel = config.getoption("codeif_channel")
    if channel is not None:
        config.pluginmanager.register(_Writer(os.fdopen(channel, "w", encoding="utf-8")))


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
        message = "" if report.passed else _short(report)
        record = {"nodeid": report.nodeid, "outcome": outcome, "message": message}
        self.handle.write(json.dumps(record) + "\n")
        self.handle.flush()

    def pytest_unconfigure(self) -> None:
        self.handle.close()


def _short(report: pytest.TestReport) -> str:
    """The crash line (`assert 1 == 2`), not the whole traceback."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else str(report.longrepr)
    return " | ".join(line.strip() for line in text.splitlines()[:4] if line.strip())[:500]

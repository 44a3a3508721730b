"""The controller-side reporter: gathers outcome records from test reports (its own or
those pytest-xdist workers send) and writes the terminal summary and the JSON report."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.report.json_report import build_report, write_atomically
from pytest_codeif.report.records import Record, lost_record
from pytest_codeif.report.summary import summarize
from pytest_codeif.report.terminal import render
from pytest_codeif.tools import tool_versions


class CodeifReporter:
    """Registered as a plugin in `pytest_configure` when `--codeif` is on, never on a worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[Record] = []
        self.patterns: list[str] = list(config.getini("codeif_patterns"))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "codeif_record", None)
        if isinstance(record, dict):
            self.records.append(record)
        elif report.failed and self._is_codeif(report.nodeid):
            # A failure without a record: the process reaching the verdict died (a
            # crashed pytest-xdist worker). Kept, so the item is not silently lost.
            self.records.append(lost_record(report.nodeid, _text(report)))

    def _is_codeif(self, nodeid: str) -> bool:
        name = Path(nodeid.split("::", 1)[0]).name
        return any(fnmatch.fnmatch(name, pattern) for pattern in self.patterns)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.records:
            return
        terminalreporter.write_sep("=", "codeif: constraint satisfaction")
        for line in render(summarize(self.records)):
            terminalreporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        path = self.config.getoption("codeif_report", None)
        if not path:
            return
        interrupted = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        lost = any(r["kind"] == "lost" for r in self.records)
        report = build_report(
            self.records,
            complete=int(exitstatus) not in interrupted and not lost,
            exit_status=int(exitstatus),
            versions=tool_versions(),
        )
        target = Path(path)
        if not target.is_absolute():
            target = self.config.invocation_params.dir / target
        write_atomically(target, report)
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"codeif: JSON report written to {target}")


def _text(report: pytest.TestReport) -> str:
    lines = str(report.longrepr or "no verdict was reported").strip().splitlines()
    return lines[-1][:300] if lines else "no verdict was reported"

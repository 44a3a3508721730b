"""The controller-side reporter: gathers outcome records from test reports (its own or
those pytest-xdist workers send) and writes the terminal summary, the JSON report, the
SARIF log, GitHub annotations and the feedback (`feedback.py`), and applies the CI gate
(`thresholds.py`)."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Generator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import documentation, summary
from pytest_codeif.records import Record
from pytest_codeif.report.annotations import annotation_lines, enabled
from pytest_codeif.report.feedback import feedback_format, file_lines, write_text
from pytest_codeif.report.feedback import render as render_feedback
from pytest_codeif.report.figures.decay import decay
from pytest_codeif.report.figures.groups import AtK, by_group
from pytest_codeif.report.figures.groups import to_dict as groups_to_dict
from pytest_codeif.report.figures.rounds import transitions
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.findings import repo_path, source_root
from pytest_codeif.report.json_report import build_report, write_atomically
from pytest_codeif.report.records import lost_record, records_of, tolerable
from pytest_codeif.report.safe_text import MAX_FAILURE, safe_text
from pytest_codeif.report.sarif import build_sarif
from pytest_codeif.report.terminal import gate_lines, group_lines, render, round_lines
from pytest_codeif.report.thresholds import Thresholds, ThresholdsOutcome, judge, parse_thresholds
from pytest_codeif.settings import Settings, settings_of
from pytest_codeif.state import get_state
from pytest_codeif.tools import tool_versions

_INTERRUPTED = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)


def _thresholds(settings: Settings) -> Thresholds:
    """The thresholds of the run's settings; a bad value is a usage error, reported
    before anything runs."""
    try:
        return parse_thresholds(settings.fail_under, settings.max_violations)
    except ValueError as exc:
        raise pytest.UsageError(f"pytest-codeif: {exc}") from None


class CodeifReporter:
    """Registered as a plugin in `pytest_configure` when `--codeif` is on, never on a worker."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: list[Record] = []
        self.settings = settings_of(config)
        self.patterns: list[str] = list(self.settings.patterns)
        self.thresholds = _thresholds(self.settings)
        self.annotate = enabled(self.settings.annotations, os.environ)
        #: Failed reports of violated constraints: what a passing gate excuses.
        self.tolerable = 0
        self.thresholds_outcome: ThresholdsOutcome | None = None
        #: "report written to" lines, printed first in the terminal summary (which pytest
        #: prints after every `pytest_sessionfinish`, where reports are written), outside
        #: the 80-column summary section.
        self.notices: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Gathers the report's records; first of every plugin, so that pytest's terminal
        and junitxml show its failure text only as `_make_safe` leaves it."""
        records = records_of(report)
        if records or self._is_codeif(report.nodeid):
            _make_safe(report)
        if records:
            self.records += records
            if report.failed and not hasattr(report, "wasxfail") and tolerable(records):
                self.tolerable += 1
        elif report.failed and self._is_codeif(report.nodeid):
            # A failure without a record: the process reaching the verdict died (a
            # crashed pytest-xdist worker). Kept, so the item is not silently lost.
            self.records.append(lost_record(report.nodeid, _text(report)))

    def _is_codeif(self, nodeid: str) -> bool:
        name = Path(nodeid.split("::", 1)[0]).name
        return any(fnmatch.fnmatch(name, pattern) for pattern in self.patterns)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Once every item has reported (and before pytest turns `testsfailed` into the
        exit status), judge the gate: a passing gate excuses the failures of violated
        constraints, a missed one makes sure the run fails. A loop that stopped early
        (-x, an interruption) raises through here and is never judged."""
        result = yield
        if self.thresholds.active and not self.config.option.collectonly:
            outcome = ThresholdsOutcome(judge(self.thresholds, summarize(self.records)))
            outcome.tolerated = min(self.tolerable, session.testsfailed)
            outcome.others = session.testsfailed - outcome.tolerated
            if outcome.passed:
                session.testsfailed = outcome.others
            else:
                session.testsfailed = max(session.testsfailed, 1)
            self.thresholds_outcome = outcome
        return result

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        # Report notices and annotations (long lines) come before the 80-column section.
        # Every line but an annotation (a workflow command on purpose, its text escaped
        # by `annotations.command`) goes through `safe_text`: group names are metadata.
        for line in self.notices:
            terminalreporter.write_line(safe_text(line))
        if self.annotate:
            rootdir = self.config.rootpath
            lines = annotation_lines(self.records, rootdir=rootdir, root=source_root(rootdir))
            for line in lines:
                terminalreporter.write_line(line)
        if self.records:
            terminalreporter.write_sep("=", "codeif: constraint satisfaction")
            summary = summarize(self.records)
            shown = render(summary, decay(self.records)) + gate_lines(summary)
            key = self._group_by()
            if key:
                at_k = self._at_k()
                shown += group_lines(key, by_group(self.records, key, at_k), at_k)
                shown += round_lines(key, transitions(self.records, key))
            for line in shown:
                terminalreporter.write_line(safe_text(line))
        if self.thresholds.active and not self.config.option.collectonly:
            if self.thresholds_outcome is None:
                terminalreporter.write_line("codeif gate not judged: the run stopped early")
            else:
                for line in self.thresholds_outcome.lines():
                    terminalreporter.write_line(line)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        lost = any(r["kind"] == "lost" for r in self.records)
        complete = int(exitstatus) not in _INTERRUPTED and not lost
        path = self.settings.report
        if path is not None:
            report = build_report(
                self.records,
                complete=complete,
                exit_status=int(exitstatus),
                versions=tool_versions(),
            )
            key = self._group_by()
            if key:
                at_k = self._at_k()
                report["groups"] = groups_to_dict(key, by_group(self.records, key, at_k), at_k)
                found = transitions(self.records, key)
                report["groups"]["transitions"] = [t.to_dict() for t in found]
            self._write(path, report, "JSON")
        if self.settings.sarif is not None:
            self._write(self.settings.sarif, self._sarif(int(exitstatus), complete), "SARIF")
        self._write_feedback()

    def _write_feedback(self) -> None:
        """`--codeif-feedback` (paths relative to where pytest was invoked), else the ini
        `codeif_feedback` (relative to the rootdir): Markdown or JSONL by suffix."""
        paths = self.settings.feedback
        if not paths:
            return
        rootdir = self.config.rootpath
        root = source_root(rootdir)
        docs = {check.name: summary(check) for check in get_state(self.config).registry}
        for target in paths:
            fmt = feedback_format(target)
            text = render_feedback(
                self.records,
                fmt,
                docs=docs,
                lines_of=file_lines(rootdir),
                relocate=lambda shown: repo_path(shown, rootdir, root) or shown,
            )
            try:
                write_text(target, text)
            except OSError as exc:
                self.notices.append(f"codeif: cannot write feedback to {target}: {exc}")
                continue
            self.notices.append(f"codeif: feedback ({fmt}) written to {target}")

    def _sarif(self, exit_status: int, complete: bool) -> dict[str, Any]:
        registry = get_state(self.config).registry
        rootdir = self.config.rootpath
        gate = self.thresholds_outcome
        return build_sarif(
            self.records,
            docs={check.name: documentation(check) for check in registry},
            rootdir=rootdir,
            root=source_root(rootdir),
            version=version("pytest-codeif"),
            exit_status=exit_status,
            complete=complete,
            gate=None if gate is None else [r.to_dict() for r in gate.results],
        )

    def _at_k(self) -> AtK:
        """The ks of pass@k and the rule they follow (`--codeif-k`, `--codeif-k-rule`)."""
        return AtK(self.settings.k, self.settings.k_rule)

    def _group_by(self) -> str | None:
        """The metadata key summaries are split by (`--codeif-group-by`), if any."""
        return self.settings.group_by

    def _write(self, target: Path, data: dict[str, Any], what: str) -> None:
        write_atomically(target, data)
        self.notices.append(f"codeif: {what} report written to {target}")


def _make_safe(report: pytest.TestReport) -> None:
    """A codeif item's failure text (and any captured output) as `safe_text` shows it:
    it quotes exception messages and values of the code under evaluation. A skip's
    reason (a tuple) is the plugin's own and stays as it is."""
    longrepr = report.longrepr
    if longrepr is not None and not isinstance(longrepr, tuple):
        # A `CodeifOutcome` is plain text; anything else (a bug's traceback) as printed.
        report.longrepr = safe_text(str(longrepr), MAX_FAILURE)
    report.sections = [(title, safe_text(body, MAX_FAILURE)) for title, body in report.sections]


def _text(report: pytest.TestReport) -> str:
    lines = str(report.longrepr or "no verdict was reported").strip().splitlines()
    return lines[-1][:300] if lines else "no verdict was reported"

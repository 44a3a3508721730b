"""Judge a `pytest:` file's run: one result per test the child pytest reported, and one
for each test the file defines that reported nothing (deleted, renamed, never reached).
Shared by a file run on its own (`run.py`) and one run beside a service (`behaviour.py`).
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from pytest_codeif.functional.channel import protocol_error, read_records
from pytest_codeif.outcome import CaseResult, CaseStatus
from pytest_codeif.sandbox.process import RunResult
from pytest_codeif.spec import PytestCase
from pytest_codeif.text import head_tail

#: How a case whose run broke the harness's protocol starts its message.
PROTOCOL = "protocol"


def ended(run: RunResult, timeout: float) -> tuple[CaseStatus, str]:
    """Why a case has no result: how the process ended."""
    if run.timed_out:
        return "error", f"timed out after {timeout:g} s before this case reported a result"
    return "error", (
        f"the process ended (exit code {run.returncode}) before this case reported a result"
        + (f"; stderr: {head_tail(run.stderr.strip(), 300)}" if run.stderr.strip() else "")
    )


def expected_test_names(path: Path) -> list[str]:
    """Test functions a pytest file defines (`test_x`, `TestC::test_y`), found by parsing
    it, never importing it: each must report a result."""
    try:
        tree = cst.parse_module(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
        return []
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith("test"):
            names.append(stmt.name.value)
        elif isinstance(stmt, cst.ClassDef) and stmt.name.value.startswith("Test"):
            names.extend(
                f"{stmt.name.value}::{item.name.value}"
                for item in stmt.body.body
                if isinstance(item, cst.FunctionDef) and item.name.value.startswith("test")
            )
    return names


def pytest_results(case: PytestCase, run: RunResult, timeout: float) -> list[CaseResult]:
    """One result per test the child pytest reported, and one for each test the file
    defines that reported nothing."""
    records = read_records(run.channel)
    line = case.location.line
    broken = protocol_error(records)
    if broken is not None:
        return [CaseResult(case.label, "error", f"{PROTOCOL}: {broken}", line)]
    results: list[CaseResult] = []
    reported: set[str] = set()
    collect_errors = [r for r in records if r.get("outcome") == "collect-error"]
    for record in records:
        if record in collect_errors:
            continue
        nodeid = str(record.get("nodeid", ""))
        name = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
        reported.add(name.split("[", 1)[0])
        outcome = record.get("outcome")
        label = f"{case.label}::{name}"
        if outcome == "passed" and run.timed_out:
            message = f"timed out after {timeout:g} s (after this test passed)"
            results.append(CaseResult(label, "error", message, line))
        elif outcome == "passed":
            results.append(CaseResult(label, "passed", "", line))
        else:
            message = f"{outcome}: {head_tail(str(record.get('message', '')), 500)}"
            results.append(CaseResult(label, "failed", message, line))
    for name in expected_test_names(case.path):
        if name in reported:
            continue
        if collect_errors:
            status: CaseStatus = "failed"
            message = f"collecting the test file failed: {collect_errors[0].get('message', '')}"
        elif run.timed_out or not records:
            status, message = ended(run, timeout)
        else:
            status, message = "failed", "the test did not report a result (deleted or renamed)"
        results.append(CaseResult(f"{case.label}::{name}", status, message, line))
    if not results:
        status, message = ended(run, timeout)
        results.append(CaseResult(case.label, status, message, line))
    return results

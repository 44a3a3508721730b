"""Run a task's functional tests in a sandboxed process and reach one verdict.

Call cases run in one child process per task (the harness); a pytest file runs in a
child pytest. Results come back as JSON lines and are compared here, in the trusted
process. A case with no reported result (crash, timeout, deleted test) never passes.
This module knows nothing of the engine: it gets a job and the settings to run it with.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import importlib.util
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.functional import pytest_file
from pytest_codeif.functional.behaviour import (
    MISSING_TOOL,
    describe_behaviour,
    run_behaviour,
)
from pytest_codeif.functional.channel import protocol_error, read_records
from pytest_codeif.functional.folders import run_paths, unit_files
from pytest_codeif.functional.node_calls import INVALID_TASK, run_node_calls
from pytest_codeif.functional.node_calls import fingerprint as node_fingerprint
from pytest_codeif.functional.node_entry import uses_node
from pytest_codeif.functional.plain import Malformed, Unsupported, decode, plain_equal, show
from pytest_codeif.functional.pytest_file import ended, pytest_results
from pytest_codeif.outcome import (
    CaseResult,
    CaseStatus,
    ErrorKind,
    Evidence,
    FunctionalOutcome,
    Verdict,
)
from pytest_codeif.sandbox.code_folder import write_folder
from pytest_codeif.sandbox.fork_server import ForkServers
from pytest_codeif.sandbox.isolation import Isolation
from pytest_codeif.sandbox.process import Limits, RunResult, run_python
from pytest_codeif.spec import Behaviour, CallCase, PytestCase

HARNESS: Final = Path(__file__).with_name("harness.py")
#: The harness of a `pytest:` file (it loads the child pytest's reporting plugin).
PYTEST_HARNESS: Final = Path(__file__).with_name("pytest_harness.py")

#: How a case that could not run for want of an installed module starts its message.
MISSING_MODULE: Final = "missing module"
#: How a case whose run broke the harness's protocol starts its message.
PROTOCOL: Final = pytest_file.PROTOCOL
_MODULE_NAME: Final = re.compile(r"[A-Za-z_]\w{0,99}(?:\.[A-Za-z_]\w{0,99}){0,9}")


@dataclass(frozen=True)
class RunSettings:
    """Where runs write their folders, the sandbox they run in, the fork servers that run
    them fastest (None: one process per run), and what to call once a run is slow (it
    then stops counting against the cores, see `cores.CoreLimit`)."""

    workdir: Path
    isolation: Isolation
    servers: ForkServers | None = None
    on_slow: Callable[[], None] | None = None


@dataclass(frozen=True)
class FunctionalJob:
    """One task's functional tests: its code, its cases, its timeout, and the task file
    as shown to the user (evidence points at the cases' lines there)."""

    unit: CodeUnit
    calls: tuple[CallCase, ...]
    pytest_files: tuple[PytestCase, ...]
    timeout: float
    module: str | None
    shown: str
    #: The run folder's name under the unit's (a probe runs beside the task's own calls).
    folder: str = "calls"
    #: The service, database and cases judged by running the code (see `behaviour.py`).
    behaviour: Behaviour | None = None


def _sandboxed(
    settings: RunSettings,
    args: list[str],
    folders: tuple[Path, Path],
    files: dict[str, bytes],
    limits: Limits,
    *,
    env: Mapping[str, str] | None = None,
    stdin: Path | bytes | None = None,
) -> RunResult:
    """One sandboxed run of the code `files`, on a fork server when there is one (the
    code never touches the disk then), else in a code folder written for it."""
    code, io = folders
    if settings.servers is not None:
        return settings.servers.run(
            args,
            code,
            io,
            limits,
            files=files,
            env=env,
            stdin=stdin,
            on_slow=settings.on_slow,
        )
    write_folder(code, files)
    return run_python(
        args,
        code,
        io,
        limits,
        settings.isolation,
        env=env,
        stdin=stdin,
        on_slow=settings.on_slow,
    )


def describe(job: FunctionalJob, sandbox: str) -> dict[str, Any]:
    """Everything besides the code that decides the functional verdict (for cache keys)."""
    calls = [
        [c.label, c.expression, c.function, c.args, c.kwargs, c.expect, c.raises, c.approx]
        for c in job.calls
    ]
    files = [
        [case.label, hashlib.sha256(case.path.read_bytes()).hexdigest()]
        for case in job.pytest_files
        if case.path.is_file()
    ]
    described: dict[str, Any] = {
        "tests": calls,
        "pytest": files,
        "timeout": job.timeout,
        "module": job.module,
        "sandbox": sandbox,
    }
    if job.behaviour is not None:
        described["behaviour"] = describe_behaviour(job.behaviour)
    if job.calls and uses_node(job.unit, job.module):
        described["node"] = node_fingerprint()
    return described


def execute(job: FunctionalJob, settings: RunSettings) -> FunctionalOutcome:
    """Run the tests in the sandbox. Safe to call from worker threads: it writes only to
    the unit's own run folders."""
    cases: list[CaseResult] = []
    try:
        if job.calls:
            node = uses_node(job.unit, job.module)
            cases.extend(_run_node_calls(job, settings) if node else _run_calls(job, settings))
        for index, case in enumerate(job.pytest_files):
            cases.extend(_run_pytest_file(job, settings, case, index))
        log = None
        if job.behaviour is not None:
            behaved = run_behaviour(
                job.behaviour,
                job.unit,
                workdir=settings.workdir,
                isolation=settings.isolation,
                timeout=job.timeout,
            )
            cases.extend(behaved.cases)
            log = behaved.service_log
    except OSError as exc:  # the host, not the code: no space, no process slots...
        message = f"cannot run the tests: {type(exc).__name__}: {exc}"
        return FunctionalOutcome(Verdict("error", error_kind="crash", error=message), ())
    verdict = _verdict(job, cases)
    if log is not None and verdict.status != "satisfied":
        # The service's own words about what went wrong (its traceback), once.
        shown = Evidence(job.shown, None, "service-log", f"service log:\n{log}")
        verdict = dataclasses.replace(verdict, evidence=(*verdict.evidence, shown))
    return FunctionalOutcome(verdict, tuple(cases))


def not_installed(name: object, unit: CodeUnit) -> str | None:
    """The top-level module of `name` (reported by the sandboxed import, so hostile data)
    when it is neither a module of `unit` nor importable here, where the sandbox imports
    from the same interpreter and site directories; else None. An environment without a
    package the code imports cannot judge the code: the cases are errors, not failures."""
    if not isinstance(name, str) or not _MODULE_NAME.fullmatch(name):
        return None
    top = name.split(".", 1)[0]
    own = {f.module.split(".", 1)[0] for f in unit.files}
    if top in own:
        return None
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    return top if found is None else None


def _verdict(job: FunctionalJob, cases: list[CaseResult]) -> Verdict:
    shown = job.shown
    errors = [c for c in cases if c.status == "error"]
    failed = [c for c in cases if c.status == "failed"]
    if failed:
        # The cases that could not decide are shown beside the failures (a timeout said
        # nowhere would read as a case that passed).
        evidence = tuple(Evidence(shown, c.line, "test", f"{c.label}: {c.message}") for c in failed)
        undecided = tuple(
            Evidence(shown, c.line, "test-error", f"{c.label}: error: {c.message}") for c in errors
        )
        return Verdict("violated", evidence + undecided)
    if errors:
        kind: ErrorKind = (
            "protocol"
            if any(c.message.startswith(PROTOCOL + ":") for c in errors)
            else "invalid-task"
            if any(c.message.startswith(INVALID_TASK + ":") for c in errors)
            else "missing-tool"
            if any(c.message.startswith(MISSING_TOOL + ":") for c in errors)
            else "missing-module"
            if any(c.message.startswith(MISSING_MODULE) for c in errors)
            else "timeout"
            if any("timed out" in c.message for c in errors)
            else "crash"
        )
        return Verdict("error", error_kind=kind, error=f"{errors[0].label}: {errors[0].message}")
    return Verdict("satisfied")


def _run_node_calls(job: FunctionalJob, settings: RunSettings) -> list[CaseResult]:
    """The call cases of JavaScript or TypeScript code, run by Node.js (`node_calls.py`)."""
    folders = run_paths(settings.workdir, job.unit, job.folder)
    return run_node_calls(
        job.unit,
        job.calls,
        module=job.module or job.unit.main_module,
        timeout=job.timeout,
        code_dir=folders[0],
        run=lambda argv, files, limits, stdin: _sandboxed(
            settings, argv, folders, files, limits, stdin=stdin
        ),
    )


def _run_calls(job: FunctionalJob, settings: RunSettings) -> list[CaseResult]:
    labels = [(c.label, c.location.line) for c in job.calls]
    unit = job.unit
    module = unit.main_module
    if module is None:
        message = "the project has several top-level modules; set the task's `module`"
        return [CaseResult(label, "error", message, line) for label, line in labels]
    folders = run_paths(settings.workdir, unit, job.folder)
    code = folders[0]
    request = {
        "root": str(code),
        "module": module,
        "cases": [
            {"expression": c.expression, "function": c.function, "args": c.args, "kwargs": c.kwargs}
            for c in job.calls
        ],
    }
    run = _sandboxed(
        settings,
        [str(HARNESS), "--channel", "{channel}"],
        folders,
        unit_files(unit),
        Limits(timeout=job.timeout),
        stdin=json.dumps(request).encode(),
    )
    records = read_records(run.channel)
    broken = protocol_error(records) or _malformed_value(records)
    if broken is not None:
        message = f"{PROTOCOL}: {broken}"
        return [CaseResult(label, "error", message, line) for label, line in labels]
    failed_import = next((r for r in records if "import_error" in r), None)
    if failed_import is not None:
        missing = not_installed(failed_import.get("missing"), unit)
        if missing is not None:
            message = (
                f"{MISSING_MODULE} `{missing}`: importing `{module}` needs it, and it is "
                "neither part of the code nor installed where the code runs (install it to "
                "judge these cases)"
            )
            return [CaseResult(label, "error", message, line) for label, line in labels]
        raised, text = failed_import["import_error"], failed_import.get("message", "")
        message = f"importing `{module}` raised {raised}: {text}"
        return [CaseResult(label, "failed", message, line) for label, line in labels]
    # One record per case, the first: the supervisor writes no other (see harness.py).
    by_case: dict[int, dict[str, Any]] = {}
    for record in records:
        index = record.get("case")
        if type(index) is int and 0 <= index < len(job.calls):
            by_case.setdefault(index, record)
    results = []
    for index, case in enumerate(job.calls):
        found = by_case.get(index)
        if found is None:
            status, message = ended(run, job.timeout)
            results.append(CaseResult(case.label, status, message, case.location.line))
            continue
        status, message = _judge(case, found)
        if status == "passed" and run.timed_out:
            # A run that timed out passes nothing: what ran after the answer is the
            # code's too, and it did not end.
            status = "error"
            message = f"timed out after {job.timeout:g} s (after this case answered)"
        returned, raised = "value" in found, "raised" in found
        results.append(
            CaseResult(
                case.label,
                status,
                message,
                case.location.line,
                found.get("value"),
                returned,
                raised,
            )
        )
    return results


def _malformed_value(records: list[dict[str, Any]]) -> str | None:
    """Why a case's value cannot be what the harness encodes, if one cannot."""
    for record in records:
        if "value" in record:
            try:
                decode(record["value"])
            except Malformed as exc:
                return f"case {record.get('case')}: {exc}"
    return None


def raised_matches(expected: str, names: list[str]) -> bool:
    """Whether an exception the harness named (see `harness.exception_names`) is the
    `expected` one: a built-in exception only as the built-in itself (reported by its
    bare name), any other class by its name or its dotted path's end."""
    if _is_builtin_exception(expected):
        return expected in names
    return any(
        "." in name and (name == expected or name.endswith("." + expected)) for name in names
    )


def _is_builtin_exception(name: str) -> bool:
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, BaseException)


def _judge(case: CallCase, record: dict[str, Any]) -> tuple[CaseStatus, str]:
    """Compare one harness record with what the case expects."""
    if "raised" in record:
        names = [str(n) for n in record["raised"]] if isinstance(record["raised"], list) else []
        raised = names[0] if names else "an exception"
        if case.raises is not None and raised_matches(case.raises, names):
            return "passed", f"raised {raised}"
        expected = f"expected {case.raises}" if case.raises else f"expected {show(case.expect)}"
        return "failed", f"{expected}, but it raised {raised}: {record.get('message', '')}"
    actual = decode(record.get("value"))
    if case.raises is not None:
        return "failed", f"expected {case.raises} to be raised, but it returned {show(actual)}"
    if isinstance(actual, Unsupported):
        return "failed", (
            f"expected {show(case.expect)}, but it returned {actual.what}, "
            "which is not plain data (int, float, str, bool, None, list, tuple, dict, set)"
        )
    if plain_equal(actual, case.expect, case.approx):
        return "passed", ""
    return "failed", f"expected {show(case.expect)}, got {show(actual)}"


def _run_pytest_file(
    job: FunctionalJob, settings: RunSettings, case: PytestCase, index: int
) -> list[CaseResult]:
    folders = run_paths(settings.workdir, job.unit, f"pytest-{index}")
    code = folders[0]
    test_name = f"test_codeif_{index}_{case.path.name}"
    if not test_name.endswith(".py"):
        test_name += ".py"
    files = unit_files(job.unit)
    files[test_name] = case.path.read_bytes()
    # Our own configuration, named explicitly: one planted beside the code is never read.
    ini = code / ".codeif-pytest.ini"
    files[ini.name] = b"[pytest]\n"
    args = ["-q", "-p", "no:cacheprovider", "--noconftest", "-c", str(ini)]
    args += ["--rootdir", str(code), str(code / test_name)]
    # Plugins installed on the host stay out of the child: its outcome is the test's own.
    no_plugins = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    limits = Limits(timeout=job.timeout)
    request = json.dumps({"args": args}).encode()
    run = _sandboxed(
        settings,
        [str(PYTEST_HARNESS), "--channel", "{channel}"],
        folders,
        files,
        limits,
        env=no_plugins,
        stdin=request,
    )
    return pytest_results(case, run, job.timeout)

"""Newman in the stage (`stage_harness.py`): its command line, and the compact summary of
its JSON report, extracted inside the sandbox. Standard library only; loaded by file
path inside the sandbox.

The report holds what the service answered (bodies, headers, the messages of failed
assertions quoting them): hostile text. The summary keeps, per request, its name, the
request's own error, and each assertion's name and error message; and Newman's own
counts; every string cut, every list counted. Response bodies are dropped while the
report is parsed (`_drop_streams`), so a large report does not become a large tree.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing itself is not imported: the stage starts without it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Final

#: Bytes of a report read at most (the stage's file size limit is larger).
MAX_REPORT: Final = 48 << 20
MAX_EXECUTIONS: Final = 5000
MAX_ASSERTIONS: Final = 50_000
MAX_SCRIPT_ERRORS: Final = 1000
MAX_NAME: Final = 500
MAX_ERROR: Final = 2000
#: Newman's counters kept (run.stats), each {total, pending, failed}.
STATS: Final = (
    "iterations",
    "items",
    "scripts",
    "prerequests",
    "requests",
    "tests",
    "assertions",
    "testScripts",
    "prerequestScripts",
)
#: Seconds Newman's own --timeout is given less than the step's, so that it ends the
#: run itself and writes its report before the stage would kill it.
OWN_TIMEOUT_MARGIN: Final = 5.0
#: The longest a single request may take, in seconds (Newman's --timeout-request).
REQUEST_SECONDS: Final = 30.0


def newman_argv(
    node: str,
    script: str,
    *,
    collection: str,
    report: str,
    variables: Mapping[str, str],
    timeout: float,
    delay_ms: int = 0,
) -> list[str]:
    """`node newman.js run COLLECTION` with the JSON reporter writing `report`, each
    variable given both as an environment and a global variable (a collection's
    `{{NAME}}` finds the first; `pm.globals.get` the second, as the benchmark's own
    runner passes them), and timeouts within the step's."""
    own = max(1.0, timeout - min(OWN_TIMEOUT_MARGIN, timeout / 4))
    argv = [node, script, "run", collection, "--reporters", "json"]
    argv += ["--reporter-json-export", report, "--color", "off", "--disable-unicode"]
    argv += ["--timeout", str(int(own * 1000))]
    argv += ["--timeout-request", str(int(min(own, REQUEST_SECONDS) * 1000))]
    if delay_ms > 0:
        argv += ["--delay-request", str(delay_ms)]
    for name, value in variables.items():
        argv += ["--env-var", f"{name}={value}", "--global-var", f"{name}={value}"]
    return argv


def summarize(path: str) -> dict[str, Any]:
    """The compact summary of the report at `path`: `executions`, `stats`, `run_error`
    (the run's own, if any) and `script_errors` (scripts that threw, outside
    assertions). Raises OSError or ValueError when there is no readable report."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_REPORT + 1)
    if len(data) > MAX_REPORT:
        raise ValueError(f"Newman's report is larger than {MAX_REPORT} bytes")
    try:
        report = json.loads(data, object_pairs_hook=_drop_streams)
    except RecursionError:
        raise ValueError("Newman's report is nested too deeply to read") from None
    run = report.get("run") if isinstance(report, dict) else None
    if not isinstance(run, dict):
        raise ValueError("Newman's report has no run")
    return {
        "executions": _executions(run.get("executions")),
        "stats": _stats(run.get("stats")),
        "run_error": _error_text(run.get("error")),
        "script_errors": _script_errors(run.get("failures")),
    }


def _drop_streams(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the report, without a response's body (`stream`)."""
    return {key: value for key, value in pairs if key != "stream"}


def _executions(found: Any) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = []
    budget = MAX_ASSERTIONS
    for execution in found[:MAX_EXECUTIONS] if isinstance(found, list) else []:
        if not isinstance(execution, dict):
            continue
        item = execution.get("item")
        name = item.get("name") if isinstance(item, dict) else None
        response = execution.get("response")
        code = response.get("code") if isinstance(response, dict) else None
        assertions: list[dict[str, Any]] = []
        listed = execution.get("assertions")
        for assertion in listed if isinstance(listed, list) else []:
            if budget <= 0:
                break
            if isinstance(assertion, dict):
                budget -= 1
                assertions.append(
                    {
                        "name": _cut(assertion.get("assertion")),
                        "error": _error_text(assertion.get("error")),
                        "skipped": assertion.get("skipped") is True,
                    }
                )
        kept.append(
            {
                "request": _cut(name),
                "status": code if type(code) is int else None,
                "error": _error_text(execution.get("requestError")),
                "assertions": assertions,
            }
        )
    return kept


def _stats(found: Any) -> dict[str, dict[str, int]]:
    stats: dict[str, dict[str, int]] = {}
    if not isinstance(found, dict):
        return stats
    for name in STATS:
        counts = found.get(name)
        if isinstance(counts, dict):
            stats[name] = {
                key: value
                for key in ("total", "pending", "failed")
                if type(value := counts.get(key)) is int and 0 <= value < 1 << 53
            }
    return stats


def _script_errors(found: Any) -> list[dict[str, Any]]:
    """Failures that are not an assertion's: a script that threw, a request error."""
    kept: list[dict[str, Any]] = []
    for failure in found if isinstance(found, list) else []:
        if len(kept) >= MAX_SCRIPT_ERRORS:
            break
        if not isinstance(failure, dict):
            continue
        at = failure.get("at")
        if isinstance(at, str) and at.startswith("assertion:"):
            continue  # in its execution's assertions already
        source = failure.get("source")
        name = source.get("name") if isinstance(source, dict) else None
        kept.append(
            {"request": _cut(name), "at": _cut(at), "error": _error_text(failure.get("error"))}
        )
    return kept


def _error_text(error: Any) -> str | None:
    """An error object's message (or, for a request error, its code and address)."""
    if error is None:
        return None
    if isinstance(error, str):
        return error[:MAX_ERROR]
    if not isinstance(error, dict):
        return "an error"
    message = error.get("message")
    if isinstance(message, str) and message:
        return message[:MAX_ERROR]
    parts = [
        str(error[key])[:MAX_NAME]
        for key in ("code", "syscall", "address", "port", "name")
        if isinstance(error.get(key), str | int) and not isinstance(error.get(key), bool)
    ]
    return " ".join(parts)[:MAX_ERROR] or "an error"


def _cut(value: Any) -> str:
    return value[:MAX_NAME] if isinstance(value, str) else ""

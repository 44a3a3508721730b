"""Call cases of JavaScript and TypeScript code, run by Node.js in the sandbox.

One sandboxed run per task, as for Python: `node_harness.py` is the supervisor of
`harness.py` (it alone holds the result channel), whose worker executes Node.js on
`node_harness.mjs`; replies are judged here (`node_judge.py`). The host prepares the
code folder: TypeScript and JSX transpiled to CommonJS (`node_transpile.py`), and one
line appended to the entry file (`SCOPE_LINE`) that hands the worker an evaluator of the
module's own scope, so that a case reaches a function the module declares without
exporting it, as a script's `function add(a, b)` is. What that line evaluates is the
task's text (a `call:` expression, a function's name), never the code's.

Node.js missing is a `missing-tool` error naming it, TypeScript code without the
TypeScript compiler too; a case with `kwargs` is an `invalid-task` error (JavaScript has
no keyword arguments).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.functional.behaviour import MISSING_TOOL
from pytest_codeif.functional.channel import protocol_error, read_records
from pytest_codeif.functional.folders import unit_files
from pytest_codeif.functional.node_entry import Entry, entry_file
from pytest_codeif.functional.node_judge import judge
from pytest_codeif.functional.node_tools import (
    NO_NODE,
    NO_TYPESCRIPT,
    Node,
    find_node,
    find_typescript,
)
from pytest_codeif.functional.node_transpile import (
    SCRIPT as TRANSPILE_SCRIPT,
)
from pytest_codeif.functional.node_transpile import (
    TranspileError,
    transpile,
    transpiled,
)
from pytest_codeif.functional.plain import Malformed, decode
from pytest_codeif.functional.pytest_file import PROTOCOL, ended
from pytest_codeif.outcome import CaseResult
from pytest_codeif.sandbox.code_folder import CodeFiles
from pytest_codeif.sandbox.process import MIB, Limits, RunResult
from pytest_codeif.spec import CallCase

#: The supervisor started in the sandbox, and the script its worker executes Node on.
NODE_HARNESS: Final = Path(__file__).with_name("node_harness.py")
NODE_SCRIPT: Final = Path(__file__).with_name("node_harness.mjs")
#: Appended to the entry file: hands the worker (which installed the hook) a direct
#: `eval` in the module's scope. On a line of its own, after the code's last line: no
#: line of the code moves. Code that ends inside a comment or a string swallows it; the
#: cases then see the module's exports only.
SCOPE_LINE: Final = (
    '\n;globalThis[Symbol.for("codeif.scope")]?.((__codeif_source__) => eval(__codeif_source__));\n'
)
#: Address space of the run (V8 reserves more than a Python run's 1 GiB at start: a heap
#: of a few MiB fails below 2 GiB); the JavaScript heap is capped apart (`HEAP_MIB`).
NODE_MEMORY: Final = 4096 * MIB
#: How a case that cannot run for want of an npm package starts (as `run.MISSING_MODULE`).
MISSING_MODULE: Final = "missing module"
#: How a case the task got wrong starts its message (an `invalid-task` error).
INVALID_TASK: Final = "invalid task"
#: What Node prints when its heap is exhausted (the worker then aborts).
OUT_OF_HEAP: Final = "JavaScript heap out of memory"

#: Runs the supervisor with (argv, code files, limits, stdin) in the sandbox.
Runner = Callable[[list[str], CodeFiles, Limits, bytes], RunResult]


def run_node_calls(
    unit: CodeUnit,
    calls: Sequence[CallCase],
    *,
    module: str | None,
    timeout: float,
    code_dir: Path,
    run: Runner,
) -> list[CaseResult]:
    """The result of each of `calls` against `unit`, run by `run` in the code folder
    `code_dir` (its path inside the sandbox too)."""
    node = find_node()
    if node is None:
        return _all(calls, "error", f"{MISSING_TOOL}: {NO_NODE}")
    entry = entry_file(unit, module)
    if isinstance(entry, str):
        return _all(calls, "error", entry)
    prepared = _code_files(unit, entry, node)
    if isinstance(prepared, str):
        return _all(calls, "error", prepared)
    files, extensions = prepared
    results: dict[int, CaseResult] = {}
    sent: list[int] = []
    for index, case in enumerate(calls):
        if case.expression is None and case.kwargs:
            message = (
                f"{INVALID_TASK}: JavaScript functions take no keyword arguments; give "
                f"`{case.function}`'s arguments in `args`, in order"
            )
            results[index] = CaseResult(case.label, "error", message, case.location.line)
        else:
            sent.append(index)
    if sent:
        request = {
            "node": str(node.path),
            "flags": node.flags(),
            "script": str(NODE_SCRIPT),
            "entry": str(code_dir / entry.source.relpath),
            "module": entry.module,
            "require": transpiled(entry.source.relpath),
            "extensions": extensions,
            "cases": [_sent_case(calls[i]) for i in sent],
        }
        argv = [str(NODE_HARNESS), "--channel", "{channel}"]
        limits = Limits(timeout=timeout, memory_bytes=NODE_MEMORY)
        done = run(argv, files, limits, json.dumps(request).encode())
        judged = _judge_run([calls[i] for i in sent], done, unit, entry, timeout)
        results.update(zip(sent, judged, strict=True))
    return [results[i] for i in range(len(calls))]


@cache
def fingerprint() -> dict[str, Any]:
    """What decides a Node run besides the code and the cases, for verdict cache keys:
    Node's version, the TypeScript compiler's, and the scripts run with them (which the
    plugin's fingerprint, made of its Python files, does not cover)."""
    node = find_node()
    typescript = find_typescript()
    version: Any = None
    if typescript is not None:
        try:
            version = json.loads((typescript / "package.json").read_text()).get("version")
        except (OSError, ValueError, AttributeError):
            version = str(typescript)
    scripts = hashlib.sha256()
    for script in (NODE_SCRIPT, TRANSPILE_SCRIPT):
        scripts.update(script.read_bytes())
    return {
        "node": None if node is None else ".".join(map(str, node.version)),
        "typescript": version,
        "scripts": scripts.hexdigest(),
    }


def _sent_case(case: CallCase) -> dict[str, Any]:
    return {"expression": case.expression, "function": case.function, "args": case.args}


def _code_files(unit: CodeUnit, entry: Entry, node: Node) -> tuple[CodeFiles, list[str]] | str:
    """The run's code folder (the entry with `SCOPE_LINE`, TypeScript and JSX transpiled)
    and the suffixes transpiled; or why it cannot be made."""
    files = unit_files(unit)
    texts = {f.relpath: f.text for f in unit.files if f.language != "python"}
    texts[entry.source.relpath] = entry.source.text + SCOPE_LINE
    todo = {rel: text for rel, text in texts.items() if transpiled(rel)}
    if todo:
        typescript = find_typescript()
        if typescript is None:
            return f"{MISSING_TOOL}: {NO_TYPESCRIPT}"
        try:
            texts.update(transpile(todo, node, typescript))
        except TranspileError as exc:
            return f"cannot run the TypeScript code: {exc}"
    files[entry.source.relpath] = texts[entry.source.relpath].encode("utf-8")
    for rel in todo:
        files[rel] = texts[rel].encode("utf-8")
    extensions = sorted({"." + rel.rsplit(".", 1)[-1] for rel in todo})
    return files, extensions


def _all(calls: Sequence[CallCase], status: Any, message: str) -> list[CaseResult]:
    return [CaseResult(c.label, status, message, c.location.line) for c in calls]


def _judge_run(
    calls: list[CallCase], run: RunResult, unit: CodeUnit, entry: Entry, timeout: float
) -> list[CaseResult]:
    records = read_records(run.channel)
    broken = protocol_error(records) or _malformed_value(records)
    if broken is not None:
        return _all(calls, "error", f"{PROTOCOL}: {broken}")
    failed_import = next((r for r in records if "import_error" in r), None)
    if failed_import is not None:
        return _import_failed(calls, failed_import, unit, entry)
    by_case: dict[int, dict[str, Any]] = {}
    for record in records:
        index = record.get("case")
        if type(index) is int and 0 <= index < len(calls):
            by_case.setdefault(index, record)
    results = []
    first_unanswered = True
    for index, case in enumerate(calls):
        found = by_case.get(index)
        if found is None:
            status, message = ended(run, timeout)
            if first_unanswered and not run.timed_out and OUT_OF_HEAP in run.stderr:
                # The case running when the heap ran out: the code's doing, as a
                # MemoryError raised in Python is.
                status, message = "failed", f"it ran out of memory ({OUT_OF_HEAP})"
            first_unanswered = False
            results.append(CaseResult(case.label, status, message, case.location.line))
            continue
        status, message = judge(case, found)
        if status == "passed" and run.timed_out:
            status = "error"
            message = f"timed out after {timeout:g} s (after this case answered)"
        results.append(
            CaseResult(
                case.label,
                status,
                message,
                case.location.line,
                found.get("value"),
                "value" in found,
                "raised" in found,
            )
        )
    return results


def _import_failed(
    calls: list[CallCase], failure: dict[str, Any], unit: CodeUnit, entry: Entry
) -> list[CaseResult]:
    shown = entry.source.relpath
    package = npm_package(failure.get("missing"), unit)
    if package is not None:
        message = (
            f"{MISSING_MODULE} `{package}`: importing `{shown}` needs the npm package, which "
            "is not part of the code, and npm packages are not installed where call cases "
            "run (only Node.js' own modules are)"
        )
        return _all(calls, "error", message)
    raised, text = str(failure["import_error"])[:200], str(failure.get("message", ""))[:500]
    return _all(calls, "failed", f"importing `{shown}` threw {raised}: {text}")


def npm_package(specifier: object, unit: CodeUnit) -> str | None:
    """The npm package a module not found names (reported by the sandboxed import, so
    hostile data), when it names one: a bare specifier (`lodash`, `@scope/pkg/sub`), not
    a path (the code's own file missing is the code's fault) nor one of Node's own
    modules (`node:...`)."""
    if not isinstance(specifier, str) or not specifier or len(specifier) > 200:
        return None
    if specifier.startswith((".", "/", "node:", "file:", "data:")) or "\\" in specifier:
        return None
    parts = specifier.split("/")
    name = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
    if not name or any(not (c.isalnum() or c in "@/._-") for c in name):
        return None
    own = {f.relpath.split("/", 1)[0] for f in unit.files}
    return None if name in own else name


def _malformed_value(records: list[dict[str, Any]]) -> str | None:
    """Why a case's value cannot be what the worker encodes, if one cannot."""
    for record in records:
        if "value" in record:
            try:
                decode(record["value"])
            except Malformed as exc:
                return f"case {record.get('case')}: {exc}"
    return None

"""Child-side harness: import the code under evaluation, run the call cases, and write each
result as one JSON line. Runs in a separate process; uses the standard library only.

Values are encoded by their exact type (`type(x) is int`, never `isinstance`), so a
subclass with a patched `__eq__`, or any object that is not plain data, is reported as
unsupported instead of reaching the comparison. Expected values are never sent here:
the parent process compares.

Usage: python harness.py --channel FD < REQUEST.json (run by `sandbox/inside.py`, in a
fresh interpreter or in a child of a fork server, which has imported this file's imports).
The request comes on stdin, which is then replaced by /dev/null (the code reads EOF);
results go to the inherited descriptor FD, a file in memory outside the sandbox.
"""

import importlib
import json
import math
import os
import sys
from typing import Any

MAX_DEPTH = 50
MAX_ITEMS = 100_000


class _TooBig(Exception):
    """The value is too large or too deep to send back."""


def encode(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """Plain, tagged JSON for `value`; anything else becomes {"$unsupported": type}."""
    budget = budget if budget is not None else [MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise _TooBig()
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if kind is list:
        return [encode(v, depth + 1, budget) for v in value]
    if kind is tuple:
        return {"$tuple": [encode(v, depth + 1, budget) for v in value]}
    if kind is set or kind is frozenset:
        return {"$set": [encode(v, depth + 1, budget) for v in value]}
    if kind is dict:
        return {
            "$dict": [
                [encode(k, depth + 1, budget), encode(v, depth + 1, budget)]
                for k, v in value.items()
            ]
        }
    if kind is bytes:
        return {"$bytes": value.hex()}
    return {"$unsupported": kind.__module__ + "." + kind.__qualname__}


def _safe_text(exc: BaseException) -> str:
    try:
        return str(exc)[:500]
    except BaseException:  # a hostile __str__ must not stop the harness
        return "(message unavailable)"


def _exception_names(exc: BaseException) -> list[str]:
    return [cls.__name__ for cls in type(exc).__mro__]


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    # Set up before any foreign code runs; never closed: the process exit flushes it.
    out = os.fdopen(int(sys.argv[sys.argv.index("--channel") + 1]), "w", encoding="utf-8")

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    sys.path.insert(0, request["root"])
    try:
        module = importlib.import_module(request["module"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        failure: dict[str, Any] = {"import_error": type(exc).__name__, "message": _safe_text(exc)}
        if isinstance(exc, ModuleNotFoundError) and isinstance(exc.name, str):
            failure["missing"] = exc.name[:200]  # the host checks it is really not installed
        emit(failure)
        return
    emit({"imported": True})
    namespace = vars(module)
    for index, case in enumerate(request["cases"]):
        try:
            if case.get("expression") is not None:
                value = eval(case["expression"], namespace)  # the case text is the task's own
            else:
                value = getattr(module, case["function"])(*case["args"], **case["kwargs"])
        except BaseException as exc:
            emit({"case": index, "raised": _exception_names(exc), "message": _safe_text(exc)})
            continue
        try:
            emit({"case": index, "value": encode(value)})
        except _TooBig:
            emit({"case": index, "value": {"$unsupported": "a value too large or deep to compare"}})
        except BaseException as exc:
            emit({"case": index, "value": {"$unsupported": "unencodable: " + _safe_text(exc)}})
    emit({"done": True})


if __name__ == "__main__":
    main()

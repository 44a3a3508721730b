"""Child-side harness for growth measurements: import the code, call one function on
inputs of growing size, and report the time or the peak memory of each call as JSON lines.
Runs in the sandbox; uses the standard library only.

Inputs come from the task's `input` expression, evaluated with `n` bound to the size and
`random` seeded with the size, so every run sees the same inputs. Building the inputs is
never measured. Time is CPU time, not wall time, so that other processes sharing the
machine (an xdist worker, a CI neighbour) do not count as the code's cost; it is the best of
ROUNDS rounds, each running for at least MIN_ROUND seconds with fresh inputs per call and
the garbage collector paused, as `timeit` does. Rounds sweep all sizes in turn rather than
repeating one size, so a busy spell slows one round of every size instead of every round of
one size. Each round's figure is emitted as it is taken (the parent keeps the least per size),
so a run cut short still reports what it measured. Memory is tracemalloc's peak during one
call.

Usage: python -s -P measure_harness.py --channel FD < REQUEST.json
"""

import gc
import importlib
import json
import os
import random
import sys
import time
import tracemalloc
from typing import Any

MIN_ROUND = 0.02
ROUNDS = 3
MAX_CALLS = 10_000


def _inputs(expression: str, n: int, namespace: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    random.seed(n)
    value = eval(expression, {**namespace, "n": n, "random": random})  # the task's own text
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"}:
        return list(value.get("args", [])), dict(value.get("kwargs", {}))
    if isinstance(value, (list, tuple)):
        return list(value), {}
    return [value], {}


def _time(function: Any, expression: str, n: int, namespace: dict[str, Any]) -> float:
    """One round: mean CPU seconds per call over at least MIN_ROUND seconds of calls."""
    spent, calls = 0.0, 0
    while spent < MIN_ROUND and calls < MAX_CALLS:
        args, kwargs = _inputs(expression, n, namespace)
        collecting = gc.isenabled()
        gc.disable()
        try:
            start = time.process_time()
            function(*args, **kwargs)
            spent += time.process_time() - start
        finally:
            if collecting:
                gc.enable()
        calls += 1
    return spent / calls


def _space(function: Any, expression: str, n: int, namespace: dict[str, Any]) -> int:
    args, kwargs = _inputs(expression, n, namespace)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        function(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return max(0, peak - base)


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    out = os.fdopen(int(sys.argv[sys.argv.index("--channel") + 1]), "w", encoding="utf-8")

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    sys.path.insert(0, request["root"])
    try:
        module = importlib.import_module(request["module"])
        function = getattr(module, request["function"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        emit({"error": f"{type(exc).__name__}: {str(exc)[:300]}"})
        return
    namespace = dict(vars(module))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    rounds = ROUNDS if request["measure"] == "time" else 1
    for _ in range(rounds):
        for n in request["sizes"]:
            try:
                if request["measure"] == "time":
                    emit({"size": n, "value": _time(function, request["input"], n, namespace)})
                else:
                    emit({"size": n, "value": _space(function, request["input"], n, namespace)})
            except BaseException as exc:
                emit({"size": n, "error": f"{type(exc).__name__}: {str(exc)[:300]}"})
                return
    emit({"done": True})


if __name__ == "__main__":
    main()

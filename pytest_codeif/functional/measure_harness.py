"""Child-side harness for growth measurements: import the code, call one function on
inputs of growing size, and report the time or the peak memory of each call as JSON lines.
Runs in the sandbox; uses the standard library only.

Inputs come from the task's `input` expression, evaluated with `n` bound to the size and
`random` seeded with the size, or from a generator description inferred from the task's
call cases (built by `input_builder.py`, loaded from beside this file, with a generator
seeded with the size): either way every run sees the same inputs. Building the inputs is
never measured. Time is CPU time, not wall time, so that other processes sharing the
machine (an xdist worker, a CI neighbour) do not count as the code's cost; it is the best of
ROUNDS rounds, each running for at least MIN_ROUND seconds with fresh inputs per call and
the garbage collector paused, as `timeit` does. Rounds sweep all sizes in turn rather than
repeating one size, so a busy spell slows one round of every size instead of every round of
one size. Each round's figure is emitted as it is taken (the parent keeps the least per size),
so a run cut short still reports what it measured. With a `budget` (seconds), the first
round stops before a size whose one call would take longer than that (`_too_slow`).
Memory is tracemalloc's peak during one call.

Usage: python -s -P measure_harness.py --channel FD < REQUEST.json
"""

import gc
import importlib
import importlib.util
import json
import math
import os
import pickle
import random
import sys
import time
import tracemalloc
from typing import Any

MIN_ROUND = 0.02
ROUNDS = 3
MAX_CALLS = 10_000
#: A round also ends after this much wall time once a call was timed: building inputs is
#: not measured but still takes time, and a 1 µs call on inputs that take 2 ms to build
#: would otherwise spend 20 s reaching MIN_ROUND (such calls read as constant anyway).
MAX_ROUND_WALL = 0.25


def _builder() -> Any:
    """`input_builder.py`, beside this file (the package is not on the sandbox's path)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "input_builder.py")
    spec = importlib.util.spec_from_file_location("_codeif_input_builder", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(expression: Any, n: int, namespace: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    if isinstance(expression, dict):  # a generator description, with its builder
        rng = random.Random(n)  # noqa: S311 - reproducible inputs, not secrets
        args, kwargs = expression["builder"].inputs(expression["description"], n, rng)
        return list(args), dict(kwargs)
    random.seed(n)
    value = eval(expression, {**namespace, "n": n, "random": random})  # the task's own text
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"}:
        return list(value.get("args", [])), dict(value.get("kwargs", {}))
    if isinstance(value, (list, tuple)):
        return list(value), {}
    return [value], {}


def _time(function: Any, expression: Any, n: int, namespace: dict[str, Any]) -> float:
    """One round: mean CPU seconds per call over at least MIN_ROUND seconds of calls.

    Each call gets fresh inputs, unless the last call cost under a hundredth of building
    them and left them as they were (compared by their pickled form): rebuilding would
    leave a round time for only a call or two, whose timing is noise."""
    spent, calls, reuse = 0.0, 0, False
    deadline = time.monotonic() + MAX_ROUND_WALL
    while spent < MIN_ROUND and calls < MAX_CALLS and not (calls and time.monotonic() > deadline):
        if not reuse:
            building = time.process_time()
            args, kwargs = _inputs(expression, n, namespace)
            building = time.process_time() - building
            before = _pickled(args, kwargs)
        collecting = gc.isenabled()
        gc.disable()
        try:
            start = time.process_time()
            function(*args, **kwargs)
            cost = time.process_time() - start
        finally:
            if collecting:
                gc.enable()
        spent += cost
        reuse = cost * 100 < building and before is not None and _pickled(args, kwargs) == before
        calls += 1
    return spent / calls


def _pickled(args: list[Any], kwargs: dict[str, Any]) -> bytes | None:
    """The inputs' pickled form, to tell whether a call changed them (None: it cannot)."""
    try:
        return pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # anything the code put in them
        return None


def _space(function: Any, expression: Any, n: int, namespace: dict[str, Any]) -> int:
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

    source: Any = request["input"]
    if request.get("generator"):  # loaded before the code runs, so it cannot touch it
        source = {"builder": _builder(), "description": json.loads(request["generator"])}
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
    sizes = list(request["sizes"])
    walls: list[float] = []  # wall seconds per size in the first round
    for _ in range(rounds):
        for n in sizes:
            started = time.monotonic()
            try:
                if request["measure"] == "time":
                    value: float = _time(function, source, n, namespace)
                else:
                    value = _space(function, source, n, namespace)
                emit({"size": n, "value": value})
            except BaseException as exc:
                emit({"size": n, "error": f"{type(exc).__name__}: {str(exc)[:300]}"})
                return
            if len(walls) == sizes.index(n):  # still the first round
                walls.append(time.monotonic() - started)
                if _too_slow(sizes, walls, request.get("budget")):
                    emit({"stopped": sizes[len(walls)], "measured": len(walls)})
                    sizes = sizes[: len(walls)]
                    break
    emit({"done": True})


def _too_slow(sizes: list[int], costs: list[float], budget: Any) -> bool:
    """In the first round, with three sizes or more measured: whether measuring the next
    size, growing at the slope of the last two, would take over `budget` seconds of wall
    time (wall time, as the timeout is: a loaded machine stops earlier). Exponential or
    steep code then stops early, and every round measures the sizes it can, rather than
    the first round running into the timeout."""
    if not isinstance(budget, (int, float)) or len(costs) < 3 or len(costs) >= len(sizes):
        return False
    (n1, n2, n3), (c1, c2) = sizes[len(costs) - 2 : len(costs) + 1], costs[-2:]
    if c1 <= 0 or c2 <= 0:
        return False
    slope = math.log(c2 / c1) / math.log(n2 / n1)
    return bool(c2 * (n3 / n2) ** slope > budget)


if __name__ == "__main__":
    main()

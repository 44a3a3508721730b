"""Child-side harness for growth measurements: import the code, call one function on
inputs of growing size, and report the time or the peak memory of each call as JSON lines.
Runs in the sandbox; uses the standard library only.

Inputs come from the task's `input` expression, evaluated with `n` bound to the size and
`random` seeded with the size, or from a generator description inferred from the task's
call cases (built by `input_builder.py`, loaded from beside this file, with a generator
seeded with the size): either way every run sees the same inputs, so they are built once
per size and copied by unpickling (`Inputs`). Getting inputs is never measured. Time is CPU
time (the calling thread's; see `_timed`), not wall time, so that other processes sharing
the machine (an xdist worker, a CI neighbour) do not count as the code's cost; it is the
best of ROUNDS rounds, each running for at least MIN_ROUND seconds with the garbage
collector paused, as `timeit` does (in batches on the same inputs where calls leave them as
they were; see `_time`). Rounds sweep all sizes in turn rather than repeating one size, so
a busy spell slows one round of every size instead of every round of one size. Each round's
figure is emitted as it is taken (the parent keeps the least per size), so a run cut short
still reports what it measured. With a `budget` (seconds), the first round stops before a
size whose one call would take longer than that (`_too_slow`); a space measurement also
stops at SPACE_CPU_BUDGET.
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
#: Calls in one round at most (a 20 ns call reaches MIN_ROUND in a million).
MAX_CALLS = 1_000_000
#: A round also ends after this much wall time once a call was timed: building inputs is
#: not measured but still takes time, and a 1 µs call on inputs that take 2 ms to build
#: would otherwise spend 20 s reaching MIN_ROUND (such calls read as constant anyway).
MAX_ROUND_WALL = 0.25
#: Memory is measured exactly, so small sizes show its growth as well as large ones: a space
#: measurement stops before a size whose measurement (building its inputs and one call
#: under tracemalloc, extrapolated from the smaller sizes) would take over this many CPU
#: seconds (CPU time, so that a loaded machine measures the same sizes as a quiet one).
SPACE_CPU_BUDGET = 0.75
#: Seconds of the coarsest scheduler tick the process clock may advance by (HZ=100).
TICK = 0.01


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


class Inputs:
    """Inputs for each size, built once and kept in their pickled form: every call at a
    size gets the same inputs anyway (the generator is seeded with the size), and
    unpickling a copy costs a fraction of building it (a list of 64,000 records: 30 ms
    against 900 ms). Inputs that do not pickle are built afresh for every call."""

    def __init__(self, expression: Any, namespace: dict[str, Any]) -> None:
        self.expression = expression
        self.namespace = namespace
        self.kept: dict[int, bytes | None] = {}

    def fresh(self, n: int) -> tuple[list[Any], dict[str, Any], bytes | None]:
        """A new copy of the inputs for size `n`, and their pickled form (None: they
        do not pickle)."""
        kept = self.kept.get(n)
        if kept is not None:
            args, kwargs = pickle.loads(kept)  # noqa: S301 - our own bytes, in the sandbox
            return args, kwargs, kept
        args, kwargs = _inputs(self.expression, n, self.namespace)
        if n not in self.kept:
            self.kept[n] = _pickled(args, kwargs)
        return args, kwargs, self.kept[n]


def _time(function: Any, inputs: Inputs, n: int) -> float:
    """One round: mean CPU seconds per call over at least MIN_ROUND seconds of calls.

    A call that left its inputs as they were (compared by their pickled form) is then timed
    as `timeit` does, in batches on the same inputs that double until the round is long
    enough, and the inputs are compared again after each batch (a batch that changed them
    is not counted, and calls go back to fresh inputs). Other calls get fresh inputs each:
    a call that sorts its list in place must not be timed on the sorted list."""
    spent, calls, batch, batches = 0.0, 0, 0, True
    deadline = time.monotonic() + MAX_ROUND_WALL
    while spent < MIN_ROUND and calls < MAX_CALLS and not (calls and time.monotonic() > deadline):
        if not batch:
            args, kwargs, before = inputs.fresh(n)
            cost = _timed(function, args, kwargs, 1)
            spent, calls = spent + cost, calls + 1
            if batches and before is not None and _pickled(args, kwargs) == before:
                batch = 2
            continue
        cost = _timed(function, args, kwargs, batch)
        if _pickled(args, kwargs) != before:
            batch, batches = 0, False
            continue
        spent, calls = spent + cost, calls + batch
        batch = max(1, min(batch * 2, MAX_CALLS - calls))
    return spent / calls


def _timed(function: Any, args: list[Any], kwargs: dict[str, Any], count: int) -> float:
    """CPU seconds for `count` calls in a row, with the garbage collector paused.

    The calling thread's clock, not the process's: once RLIMIT_CPU arms the process CPU
    timer (the sandbox sets it), Linux advances the process clock only at scheduler ticks
    (4 ms here), which reads a 20 µs call as 0 or 4 ms. Where the process clock shows more
    than two ticks beyond the thread's, other threads of the code did the work: it counts."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        thread, process = time.thread_time(), time.process_time()
        for _ in range(count):
            function(*args, **kwargs)
        thread, process = time.thread_time() - thread, time.process_time() - process
        return process if process > thread + 2 * TICK else thread
    finally:
        if collecting:
            gc.enable()


def _pickled(args: list[Any], kwargs: dict[str, Any]) -> bytes | None:
    """The inputs' pickled form, to tell whether a call changed them (None: it cannot)."""
    try:
        return pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # anything the code put in them
        return None


def _space(function: Any, inputs: Inputs, n: int) -> int:
    args, kwargs, _ = inputs.fresh(n)
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
    inputs = Inputs(source, dict(vars(module)))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    rounds = ROUNDS if request["measure"] == "time" else 1
    sizes = list(request["sizes"])
    walls: list[float] = []  # wall seconds per size in the first round
    cpus: list[float] = []  # and CPU seconds
    space_budget = SPACE_CPU_BUDGET if request["measure"] == "space" else None
    for _ in range(rounds):
        for n in sizes:
            started, started_cpu = time.monotonic(), time.process_time()
            try:
                if request["measure"] == "time":
                    value: float = _time(function, inputs, n)
                else:
                    value = _space(function, inputs, n)
                emit({"size": n, "value": value})
            except BaseException as exc:
                emit({"size": n, "error": f"{type(exc).__name__}: {str(exc)[:300]}"})
                return
            if len(walls) == sizes.index(n):  # still the first round
                walls.append(time.monotonic() - started)
                cpus.append(time.process_time() - started_cpu)
                if _too_slow(sizes, walls, request.get("budget")) or _too_slow(
                    sizes, cpus, space_budget
                ):
                    emit({"stopped": sizes[len(walls)], "measured": len(walls)})
                    sizes = sizes[: len(walls)]
                    break
    emit({"done": True})


def _too_slow(sizes: list[int], costs: list[float], budget: Any) -> bool:
    """In the first round, with three sizes or more measured: whether measuring the next
    size, growing at the slope of the last two, would take over `budget` seconds (of wall
    time for the timeout's budget, as the timeout is: a loaded machine stops earlier).
    Exponential or steep code then stops early, and every round measures the sizes it can,
    rather than the first round running into the timeout."""
    if not isinstance(budget, (int, float)) or len(costs) < 3 or len(costs) >= len(sizes):
        return False
    (n1, n2, n3), (c1, c2) = sizes[len(costs) - 2 : len(costs) + 1], costs[-2:]
    if c1 <= 0 or c2 <= 0:
        return False
    slope = math.log(c2 / c1) / math.log(n2 / n1)
    return bool(c2 * (n3 / n2) ** slope > budget)


if __name__ == "__main__":
    main()

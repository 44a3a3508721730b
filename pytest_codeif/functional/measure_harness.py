"""Sandboxed harness of growth measurements: a supervisor that holds the result channel
and does the measuring, and a worker it forks that imports the code, builds inputs of
growing size and calls one function on them when asked. Standard library only (see
`supervisor.py` for what each side may do).

Nothing the worker says is taken as a time: the supervisor reads the worker's CPU time
from the kernel (every thread of it; the worker cannot start processes to hide work in,
see `sandbox/seccomp.py`) before and after the calls it asked for, while the worker
waits on its pipe. Memory is the worker's own tracemalloc peak during one call (exact,
so that small sizes show growth too), accepted only when it covers the kernel's count of
the worker's peak resident growth during that call, up to allocator slack
(`covers_resident`): a figure the code made up is a protocol error.

Inputs come from the task's `input` expression, evaluated with `n` bound to the size and
`random` seeded with the size, or from a generator description inferred from the task's
call cases (built by `input_builder.py`, loaded from beside this file, with a generator
seeded with the size): either way every run sees the same inputs, so they are built once
per size and copied by unpickling (`Inputs`). Getting inputs is never measured. Time is
CPU time, not wall time, so that other processes sharing the machine (an xdist worker, a
CI neighbour) do not count as the code's cost; it is the best of ROUNDS rounds, each
running for at least MIN_ROUND seconds of calls with the worker's garbage collector
paused, as `timeit` does (in batches on the same inputs where calls leave them as they
were; see `_time`), less what a request that makes no call costs the worker. Rounds sweep
all sizes in turn rather than repeating one size, so a busy spell slows one round of every
size instead of every round of one size. Each round's figure is emitted as it is taken
(the host keeps the least per size), so a run cut short still reports what it measured.
With a `budget` (seconds), the first round stops before a size whose one call would take
longer than that (`_too_slow`); a space measurement also stops at SPACE_CPU_BUDGET.

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
#: Resident growth a traced peak need not cover: page and allocator-arena rounding.
RESIDENT_SLACK = 256 * 1024


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


class Worker:
    """The worker's side: the inputs of the size asked for last, and calls on them."""

    def __init__(self, function: Any, inputs: Inputs) -> None:
        self.function = function
        self.inputs = inputs
        self.args: list[Any] = []
        self.kwargs: dict[str, Any] = {}
        self.before: bytes | None = None

    def answer(self, asked: dict[str, Any]) -> dict[str, Any]:
        """One request's reply."""
        if "prepare" in asked:
            self.args, self.kwargs, self.before = self.inputs.fresh(int(asked["prepare"]))
            gc.collect()
            return {"ready": True}
        if "changed" in asked:
            changed = self.before is None or _pickled(self.args, self.kwargs) != self.before
            return {"changed": changed}
        if "space" in asked:
            return {"peak": _space(self.function, self.args, self.kwargs)}
        count = int(asked["call"])
        collecting = gc.isenabled()
        gc.disable()
        try:
            for _ in range(count):
                self.function(*self.args, **self.kwargs)
        finally:
            if collecting:
                gc.enable()
        return {"ran": count}


def work(request: dict[str, Any], source: Any, no_processes: Any, link: Any) -> None:
    """The worker: no processes of its own from here on; requests that make no call
    answered before the code is imported (the supervisor's calibration), then the code
    imported when asked, and each request answered (an exception ends the worker with an
    `error` reply)."""
    no_processes.install()
    empty = Worker(None, Inputs(source, {}))  # answers calls of none
    while True:
        asked = link.receive()
        if asked == "import":
            break
        if not isinstance(asked, dict) or asked.get("call") != 0:
            return
        link.send(empty.answer(asked))
    sys.path.insert(0, request["root"])
    try:
        module = importlib.import_module(request["module"])
        function = getattr(module, request["function"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        link.send({"error": f"{type(exc).__name__}: {str(exc)[:300]}"})
        return
    link.send({"imported": True})
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    worker = Worker(function, Inputs(source, dict(vars(module))))
    while True:
        asked = link.receive()
        if not isinstance(asked, dict):
            return
        try:
            reply = worker.answer(asked)
        except BaseException as exc:
            link.send({"error": f"{type(exc).__name__}: {str(exc)[:300]}"})
            return
        link.send(reply)


def _space(function: Any, args: list[Any], kwargs: dict[str, Any]) -> int:
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        function(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return max(0, peak - base)


def _pickled(args: list[Any], kwargs: dict[str, Any]) -> bytes | None:
    """The inputs' pickled form, to tell whether a call changed them (None: it cannot)."""
    try:
        return pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # anything the code put in them
        return None


class _WorkerEnded(Exception):
    """The worker's process ended (or reported why it stops)."""


class _WorkerFailed(Exception):
    """The worker reported an exception (building inputs or calling)."""


class Measurer:
    """The supervisor's side: asks the worker, reads the kernel, decides the figures."""

    def __init__(self, supervisor: Any, protocol_error: type[Exception]) -> None:
        self.supervisor = supervisor
        self.protocol_error = protocol_error
        self.overhead = 0.0

    def _ask(self, request: dict[str, Any], expect: str) -> dict[str, Any]:
        self.supervisor.ask(request)
        reply = self.supervisor.reply()
        if reply is None:
            raise _WorkerEnded()
        if set(reply) == {"error"}:
            raise _WorkerFailed(str(reply["error"])[:300])
        if set(reply) != {expect}:
            raise self.protocol_error(f"a reply to `{next(iter(request))}` that is not one")
        answer: dict[str, Any] = reply
        return answer

    def prepare(self, n: int) -> None:
        self._ask({"prepare": n}, "ready")

    def changed(self) -> bool:
        return bool(self._ask({"changed": None}, "changed")["changed"])

    def calls(self, count: int) -> float:
        """CPU seconds the worker spent on `count` calls, by the kernel's clock."""
        before = self.supervisor.cpu_seconds()
        reply = self._ask({"call": count}, "ran")
        spent = float(self.supervisor.cpu_seconds() - before)
        if reply["ran"] != count:
            raise self.protocol_error("the worker did not make the calls it was asked for")
        return max(0.0, spent - self.overhead)

    def calibrate(self) -> None:
        """What a request that makes no call costs the worker (the pipe, the JSON),
        measured before the code is imported: the code cannot make it look dearer."""
        self.overhead = min(self.calls(0) for _ in range(5))

    def space(self) -> int:
        """The worker's traced peak during one call, checked against the kernel's count
        of its resident growth."""
        try:
            resident = self.supervisor.reset_peak()
            claimed = self._ask({"space": None}, "peak")["peak"]
            grown = self.supervisor.peak_rss() - resident
        except OSError as exc:
            raise self.protocol_error(f"the worker's memory cannot be read: {exc}") from None
        if type(claimed) is not int or claimed < 0:
            raise self.protocol_error("a memory figure that is not a size")
        if not covers_resident(claimed, grown):
            raise self.protocol_error(
                f"the code's memory figure ({claimed} bytes) is below what the kernel "
                f"counted ({grown} bytes more resident during the call)"
            )
        return claimed


def covers_resident(claimed: int, grown: int) -> bool:
    """Whether a traced peak of `claimed` bytes can be honest when the worker's resident
    size grew by `grown` bytes during the call: tracing itself and allocator arenas make
    resident growth up to a few times the traced bytes, plus page and arena rounding."""
    return grown <= 4 * claimed + RESIDENT_SLACK


def _time(measurer: Measurer, n: int) -> float:
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
            measurer.prepare(n)
            spent, calls = spent + measurer.calls(1), calls + 1
            if batches and not measurer.changed():
                batch = 2
            continue
        cost = measurer.calls(batch)
        if measurer.changed():
            batch, batches = 0, False
            continue
        spent, calls = spent + cost, calls + batch
        batch = max(1, min(batch * 2, MAX_CALLS - calls))
    return spent / calls


def supervise(request: dict[str, Any], supervisor: Any, protocol_error: type[Exception]) -> None:
    """Measure each size in rounds, writing one figure per size and round."""
    measurer = Measurer(supervisor, protocol_error)
    try:
        measurer.calibrate()
    except _WorkerEnded:
        return
    supervisor.ask("import")
    reply = supervisor.reply()
    if reply is None:
        return
    if set(reply) == {"error"}:
        supervisor.emit({"error": str(reply["error"])[:300]})
        return
    if reply != {"imported": True}:
        raise protocol_error("the code wrote to the harness's pipe while it was imported")
    try:
        _rounds(request, measurer, supervisor)
    except _WorkerEnded:
        return
    except _WorkerFailed as exc:
        supervisor.emit({"error": str(exc)})
        return
    supervisor.emit({"done": True})


def _rounds(request: dict[str, Any], measurer: Measurer, supervisor: Any) -> None:
    measure = request["measure"]
    rounds = ROUNDS if measure == "time" else 1
    sizes = [int(n) for n in request["sizes"]]
    walls: list[float] = []  # wall seconds per size in the first round
    cpus: list[float] = []  # and the worker's CPU seconds
    space_budget = SPACE_CPU_BUDGET if measure == "space" else None
    for _ in range(rounds):
        for n in sizes:
            started, started_cpu = time.monotonic(), supervisor.cpu_seconds()
            try:
                if measure == "time":
                    value: float = _time(measurer, n)
                else:
                    measurer.prepare(n)
                    value = measurer.space()
            except _WorkerFailed as exc:
                supervisor.emit({"size": n, "error": str(exc)})
                raise _WorkerEnded() from None
            supervisor.emit({"size": n, "value": value})
            if len(walls) == sizes.index(n):  # still the first round
                walls.append(time.monotonic() - started)
                cpus.append(supervisor.cpu_seconds() - started_cpu)
                if _too_slow(sizes, walls, request.get("budget")) or _too_slow(
                    sizes, cpus, space_budget
                ):
                    supervisor.emit({"stopped": sizes[len(walls)], "measured": len(walls)})
                    sizes = sizes[: len(walls)]
                    break


def _load(path: str) -> Any:
    """A standard-library module by path (the package is not on the sandbox's path)."""
    name = "_codeif_" + os.path.basename(path).removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    here = os.path.dirname(os.path.abspath(__file__))
    supervising = _load(os.path.join(here, "supervisor.py"))
    seccomp = _load(os.path.join(os.path.dirname(here), "sandbox", "seccomp.py"))
    no_processes = seccomp.prepare([seccomp.PROCESSES])
    source: Any = request["input"]
    if request.get("generator"):  # loaded before the code runs, so it cannot touch it
        builder = _load(os.path.join(here, "input_builder.py"))
        source = {"builder": builder, "description": json.loads(request["generator"])}
    supervisor = supervising.Supervisor(int(sys.argv[sys.argv.index("--channel") + 1]))
    supervisor.start(lambda link: work(request, source, no_processes, link))
    try:
        supervise(request, supervisor, supervising.ProtocolError)
    except supervising.ProtocolError as exc:
        supervisor.stop(exc)
    supervisor.stop()


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

"""Run a growth measurement (see `measure_harness.py`) in the sandbox and read it back."""

from __future__ import annotations

import itertools
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.functional.channel import protocol_error, read_records
from pytest_codeif.functional.folders import run_folders
from pytest_codeif.outcome import Undecidable
from pytest_codeif.sandbox.isolation import Isolation
from pytest_codeif.sandbox.process import Limits, run_python

HARNESS: Final = Path(__file__).with_name("measure_harness.py")

#: Numbers the measurements' folders: a unit's measurements may run side by side.
_FOLDERS: Final = itertools.count()


@dataclass(frozen=True)
class Request:
    """What to measure: `function` of the unit's module on inputs from `input` (an
    expression in `n`), or from `generator` (a description for `input_builder.py`, as
    JSON text) when it is set, at each of `sizes`; `measure` is "time" or "space"."""

    function: str
    input: str
    sizes: tuple[int, ...]
    measure: str
    generator: str = ""


def measure(
    unit: CodeUnit,
    module: str,
    request: Request,
    *,
    workdir: Path,
    isolation: Isolation,
    timeout: float,
) -> list[tuple[int, float]]:
    """(size, cost) for each size; raises `Undecidable` when the run gives too little."""
    code, io = run_folders(workdir, unit, f"measure-{request.measure}-{next(_FOLDERS)}")
    try:
        return _measure_in(code, io, module, request, isolation=isolation, timeout=timeout)
    finally:
        shutil.rmtree(code.parent, ignore_errors=True)


def _measure_in(
    code: Path, io: Path, module: str, request: Request, *, isolation: Isolation, timeout: float
) -> list[tuple[int, float]]:
    """`measure` in the run's folders, `code` and `io`."""
    payload = {
        "root": str(code),
        "module": module,
        "function": request.function,
        "input": request.input,
        "sizes": list(request.sizes),
        "measure": request.measure,
        "generator": request.generator,
        # A size whose measurement would take over a third of the timeout is not
        # started: it could not be measured in three rounds anyway.
        "budget": timeout / 3,
    }
    (io / "request.json").write_text(json.dumps(payload), encoding="utf-8")
    run = run_python(
        [str(HARNESS), "--channel", "{channel}"],
        code,
        io,
        Limits(timeout=timeout),
        isolation,
        stdin=io / "request.json",
    )
    records = read_records(run.channel)
    broken = protocol_error(records)
    if broken is not None:
        raise Undecidable("protocol", f"measuring `{request.function}`: {broken}")
    failed = next((r for r in records if "error" in r), None)
    # Time is measured in rounds over all sizes: the least figure per size is the one
    # least disturbed by anything else running. Sizes not asked for are not the harness's.
    best: dict[int, float] = {}
    for r in records:
        size, value = r.get("size"), r.get("value")
        if type(size) is int and size in request.sizes and isinstance(value, (int, float)):
            best[size] = min(best.get(size, float(value)), float(value))
    points = sorted(best.items())
    stopped = any("stopped" in r for r in records)
    if len(points) >= 3 and (run.timed_out or failed or stopped):
        return points  # the larger sizes did not finish, or would not: fit what was measured
    if failed is not None:
        where = f" at n={failed['size']}" if "size" in failed else ""
        raise Undecidable("crash", f"measuring `{request.function}`{where}: {failed['error']}")
    if run.timed_out:
        raise Undecidable(
            "timeout",
            f"measuring `{request.function}` took over {timeout:g} s "
            f"({len(points)} of {len(request.sizes)} sizes measured)",
        )
    if len(points) < len(request.sizes):
        raise Undecidable("crash", f"the measurement ended early (exit code {run.returncode})")
    return points

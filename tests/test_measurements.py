"""Growth measurements run ahead of their items (`engine/measurements.py`)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future

import pytest

from pytest_codeif.checks.complexity import ComplexityCheck
from pytest_codeif.cores import CoreLimit
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.measurements import MeasurementPending, Measurements, Points
from pytest_codeif.errors import Location
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task


class Recorder:
    """A stand-in measurement: counts its runs and the most that ran at once."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.runs = 0
        self.running = 0
        self.most = 0
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def inside(self, count: int, within: float = 10.0) -> bool:
        """Whether `count` runs are inside at once before `within` seconds pass."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self.lock:
                if self.running >= count:
                    return True
            time.sleep(0.01)
        return False

    def __call__(self) -> Points:
        with self.lock:
            self.threads.append(threading.current_thread())
            self.runs += 1
            self.running += 1
            self.most = max(self.most, self.running)
        self.release.wait(10)
        with self.lock:
            self.running -= 1
        return [(1, 1.0), (2, 2.0), (4, 4.0)]


def test_ahead_starts_once_and_hands_the_figures_to_the_item() -> None:
    release = threading.Event()
    run = Recorder(release)
    measurements = Measurements(CoreLimit(2), threads=2)
    try:
        with pytest.raises(MeasurementPending) as pending:
            measurements.ahead("k", run)
        waiting: Future[Points] = pending.value.waiting
        with pytest.raises(MeasurementPending):
            measurements.ahead("k", run)  # asked again: still the same run
        release.set()
        assert waiting.result(10) == [(1, 1.0), (2, 2.0), (4, 4.0)]
        assert measurements.ahead("k", run) == waiting.result()
        assert measurements.now("k", run) == waiting.result()
        assert run.runs == 1
    finally:
        release.set()
        measurements.close()


@pytest.mark.parametrize("cores", [1, 2])
def test_measurements_hold_a_core_each(cores: int) -> None:
    """Two measurements submitted ahead run side by side with two cores, and one after
    the other with one: the second waits for a core while the first is inside."""
    release = threading.Event()
    run = Recorder(release)
    measurements = Measurements(CoreLimit(cores), threads=2)
    try:
        futures = []
        for key in ("a", "b"):
            with pytest.raises(MeasurementPending) as pending:
                measurements.ahead(key, run)
            futures.append(pending.value.waiting)
        if cores == 2:
            assert run.inside(2)
        else:
            assert run.inside(1)
            assert not run.inside(2, within=0.3)  # held back by the gate, not by chance
        release.set()
        for future in futures:
            future.result(10)
        assert run.runs == 2
        assert run.most == cores
    finally:
        release.set()
        measurements.close()


def test_now_without_ahead_runs_on_the_caller() -> None:
    release = threading.Event()
    release.set()
    run = Recorder(release)
    measurements = Measurements(CoreLimit(1), threads=1)
    assert measurements.now("k", run) == [(1, 1.0), (2, 2.0), (4, 4.0)]
    assert run.threads == [threading.current_thread()]
    measurements.close()


TASKS = """
tasks:
  - id: growth
    code: |
      def total(xs):
          return sum(xs)

      def pairs(xs):
          return sum(a * b for a in xs for b in xs)

      def scan(items, target):
          for i, item in enumerate(items):
              if item == target:
                  return i
          return -1
    tests:
      - {function: scan, args: [[4, 8, 15, 16, 23, 42], 16], expect: 3}
    constraints:
      - check: complexity
        id: linear
        function: total
        input: "[list(range(n))]"
        time: O(n)
      - check: complexity
        id: quadratic-called-linear
        function: pairs
        input: "[list(range(n))]"
        time: O(n)
        sizes: [100, 200, 400, 800]
      - check: complexity
        id: scan-called-log
        function: scan
        time: O(log n)
      - check: complexity
        id: missing
        function: nowhere
        time: O(n)
"""


def _statuses(pytester: pytest.Pytester, *args: str) -> dict[str, str]:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.runpytest_subprocess(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json", *args
    )
    report = json.loads((pytester.path / "r.json").read_text())
    return {
        record["nodeid"]: record["status"]
        for task in report["tasks"]
        for record in task["constraints"]
    }


@pytest.mark.parametrize("xdist", [["-n", "0"], ["-n", "2"]])
def test_verdicts_ahead_equal_verdicts_at_the_item(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """Measured ahead (the default) or when each item runs (`--maxfail` turns deciding
    ahead off): the same verdicts, each the right one."""
    expected = {
        "t.codeif.yaml::growth::linear": "satisfied",
        "t.codeif.yaml::growth::quadratic-called-linear": "violated",
        "t.codeif.yaml::growth::scan-called-log": "violated",
        "t.codeif.yaml::growth::missing": "violated",
    }
    assert _statuses(pytester, *xdist) == expected
    assert _statuses(pytester, *xdist, "--maxfail=100") == expected


def test_the_engine_decides_a_measuring_constraint_before_its_item(tmp_path, monkeypatch) -> None:
    """`measure_ahead` starts the measurement, then decides the constraint once the
    figures are back; the item takes that verdict and measures nothing itself."""
    location = Location(tmp_path / "t.codeif.yaml", 1, ())
    code = "def pairs(xs):\n    return sum(a * b for a in xs for b in xs)\n"
    task = Task("growth", location.path, location, CodeSpec("code", code, location, None))
    check = ComplexityCheck(
        {
            "function": "pairs",
            "input": "[list(range(n))]",
            "time": "O(n)",
            "sizes": [100, 200, 400, 800],
        }
    )
    constraint = ConstraintSpec(check.name, check, check.category, None, None, location)
    engine = Engine(tmp_path, tmp_path / "work")
    try:
        engine.plan(task, constraint)
        engine.measure_ahead()
        running = engine.measurements_running()
        assert len(running) == 1  # started ahead, before any item asked
        running[0].result(120)
        engine.measure_ahead()
        assert engine.measurements_running() == []

        def measured_at_the_item(*args: object) -> Points:
            raise AssertionError("the item measured again")

        monkeypatch.setattr(engine.runs.measurements, "now", measured_at_the_item)
        verdict = engine.evaluate(task, constraint)
        assert verdict.status == "violated"  # quadratic, called O(n)
    finally:
        engine.close()

"""Run a check's own samples: each `satisfied_by` sample must be satisfied and each
`violated_by` sample violated. The test suite runs this for every registered check, and
rule authors can call `verify_samples(MyCheck)` from their own tests."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pytest_codeif.checks.base import Check, Sample
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.functional_pool import prepare, settings_of
from pytest_codeif.errors import Location
from pytest_codeif.functional.run import execute
from pytest_codeif.outcome import FunctionalOutcome, Verdict
from pytest_codeif.taskfile.model import CallCase, CodeSpec, ConstraintSpec, Task
from pytest_codeif.taskfile.schema import constraint_schema, describe_error, first_error


@dataclass(frozen=True)
class SampleProblem:
    """A sample whose verdict is not the one it declares."""

    check: str
    expected: str
    index: int
    got: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.expected}[{self.index}] ended {self.got}: {self.detail}"


def sample_verdict(check_cls: type[Check], sample: Sample, folder: Path) -> Verdict:
    """Evaluate `check_cls` with the sample's options on the sample's code."""
    error = first_error(
        constraint_schema(check_cls.options_schema), {"check": check_cls.name, **sample.options}
    )
    if error is not None:
        path, message = describe_error(error)
        return Verdict("error", error_kind="invalid-task", error=f"options at {path}: {message}")
    check = check_cls(dict(sample.options))
    task_path = folder / "sample.codeif.yaml"
    location = Location(task_path, 1, ())
    if isinstance(sample.code, Mapping):
        for rel, text in sample.code.items():
            target = folder / "project" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        code = CodeSpec("directory", "project", location, None)
    else:
        code = CodeSpec("code", sample.code, location, None)
    calls = tuple(
        CallCase(
            f"call {index}",
            location,
            function=str(call["function"]),
            args=list(call.get("args", [])),
            kwargs=dict(call.get("kwargs", {})),
        )
        for index, call in enumerate(sample.calls)
    )
    task = Task(id="sample", path=task_path, location=location, code=code, calls=calls)
    spec = ConstraintSpec(check_cls.name, check, check_cls.category, None, None, location)
    engine = Engine(folder, folder / "work")
    engine.functional = partial(_run_tests, engine)
    try:
        return engine.evaluate(task, spec)
    finally:
        engine.close()


def _samples(check_cls: type[Check]) -> Iterator[tuple[str, int, Sample]]:
    for index, sample in enumerate(check_cls.satisfied_by):
        yield "satisfied", index, sample
    for index, sample in enumerate(check_cls.violated_by):
        yield "violated", index, sample


def _run_tests(engine: Engine, task: Task) -> FunctionalOutcome:
    prepared = prepare(engine, task)
    if isinstance(prepared, FunctionalOutcome):
        return prepared
    return execute(prepared[0], settings_of(engine))


def verify_samples(check_cls: type[Check]) -> list[SampleProblem]:
    """Every sample of `check_cls` whose verdict differs from what it declares."""
    problems: list[SampleProblem] = []
    for expected, index, sample in _samples(check_cls):
        with tempfile.TemporaryDirectory(prefix="codeif-sample-") as tmp:
            verdict = sample_verdict(check_cls, sample, Path(tmp))
        if verdict.status != expected:
            detail: Any = (
                verdict.error or "; ".join(str(e) for e in verdict.evidence) or "no findings"
            )
            label = "satisfied_by" if expected == "satisfied" else "violated_by"
            problems.append(
                SampleProblem(check_cls.name, label, index, verdict.status, str(detail))
            )
    return problems

"""Run a check's own samples: each `satisfied_by` sample must be satisfied and each
`violated_by` sample violated (with a finding saying the message it pins, at the line and
in the file it pins, if any); and the check must give `advice`, what to do when it is
violated. The test suite runs this for every built-in check; rule authors call
`verify_samples(MyCheck)` from their own tests, `codeif check-samples` runs it for every
check a session would register, and a `--codeif` session runs it once for the checks that
plugins and conftest.py files registered (`SampleAudit`).

A `pattern` rule of a task file may carry its own `examples` (code it must match, code it
must not); `verify_rule_examples` proves them the same way, each problem located at its
example's line."""

from __future__ import annotations

import fnmatch
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_codeif.checks.base import Check, Sample
from pytest_codeif.checks.builtin import BUILTIN_CHECKS
from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.checks.pattern.examples import MATCH
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.outcome import Evidence, Verdict
from pytest_codeif.report.safe_text import safe_text
from pytest_codeif.taskfile.model import CallCase, CodeSpec, ConstraintSpec, Task
from pytest_codeif.taskfile.parse import TaskProblems, parse_task_file
from pytest_codeif.taskfile.schema import constraint_schema, describe_error, first_error
from pytest_codeif.taskfile.yamlload import LoadedYaml, load_task_yaml

#: The id of the task each sample is evaluated as (`ctx.task_id` while samples run).
SAMPLE_TASK_ID = "sample"
#: The name of the task file a sample is evaluated as, in a temporary folder: an error
#: about the sample's code is located in it (`sample.codeif.yaml:1: ...`).
_SAMPLE_TASK_FILE = "sample.codeif.yaml"
#: That temporary place, as it starts an error's message.
_SAMPLE_PLACE = re.compile(re.escape(_SAMPLE_TASK_FILE) + r":\d+: ")


@dataclass(frozen=True)
class SampleProblem:
    """A sample whose verdict is not the one it declares, or (`index` None) a kind of
    sample the check does not declare at all."""

    check: str
    #: "satisfied_by" or "violated_by": the sequence the sample is declared in; "advice"
    #: for a check that gives no advice, or whose `advise()` fails.
    expected: str
    index: int | None
    #: The status the sample ended with, or "missing" when there is no such sample.
    got: str
    detail: str

    def __str__(self) -> str:
        if self.index is None:
            return f"{self.check}: {self.detail}"
        return f"{self.check}: {self.expected}[{self.index}] ended {self.got}: {self.detail}"


def sample_verdict(check_cls: type[Check], sample: Sample, folder: Path) -> Verdict:
    """Evaluate `check_cls` with the sample's options on the sample's code."""
    error = first_error(
        constraint_schema(check_cls.options_schema), {"check": check_cls.name, **sample.options}
    )
    if error is not None:
        path, message = describe_error(error)
        return Verdict("error", error_kind="invalid-task", error=f"options at {path}: {message}")
    try:
        check = check_cls(dict(sample.options))
    except Exception as exc:  # noqa: BLE001 - a broken check is a finding about it
        return Verdict(
            "error",
            error_kind="checker-failure",
            error=f"creating the check raised {type(exc).__name__}: {exc}",
        )
    task_path = folder / _SAMPLE_TASK_FILE
    location = Location(task_path, 1, ())
    if isinstance(sample.code, Mapping):
        for rel, text in sample.code.items():
            target = folder / "project" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        code = CodeSpec("directory", "project", location, None)
    else:
        code = CodeSpec("code", sample.code, location, None, language=sample.language)
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
    task = Task(id=SAMPLE_TASK_ID, path=task_path, location=location, code=code, calls=calls)
    spec = ConstraintSpec(check_cls.name, check, check_cls.category, None, None, location)
    # A pool of one run at a time, one process per run (no fork server): a sample needs no more.
    engine = Engine(folder, folder / "work", pool_size=1, fork_servers=False)
    try:
        return engine.evaluate(task, spec)
    finally:
        engine.close()


def _samples(check_cls: type[Check]) -> Iterator[tuple[str, int, Sample]]:
    for index, sample in enumerate(check_cls.satisfied_by):
        yield "satisfied", index, sample
    for index, sample in enumerate(check_cls.violated_by):
        yield "violated", index, sample


def _missing(check_cls: type[Check]) -> SampleProblem | None:
    """The problem of a check that declares no sample of one kind, or of neither."""
    if not check_cls.satisfied_by and not check_cls.violated_by:
        detail = "carries no samples: its verdicts are unproven"
        return SampleProblem(check_cls.name, "satisfied_by", None, "missing", detail)
    if not check_cls.violated_by:
        detail = "carries no violated_by sample: nothing shows it can be violated"
        return SampleProblem(check_cls.name, "violated_by", None, "missing", detail)
    if not check_cls.satisfied_by:
        detail = "carries no satisfied_by sample: nothing shows it can be satisfied"
        return SampleProblem(check_cls.name, "satisfied_by", None, "missing", detail)
    return None


def _advice_problems(check_cls: type[Check]) -> list[SampleProblem]:
    """A check that gives no `advice` (what to do when its constraint is violated), or
    whose `advise()` fails or says nothing for the options of one of its samples."""
    advice = getattr(check_cls, "advice", None)
    if not isinstance(advice, str) or not advice.strip():
        detail = (
            "gives no advice: set `advice`, what to do when its constraint is violated "
            "(shown in feedback, reports and SARIF when the constraint has no `message`)"
        )
        return [SampleProblem(check_cls.name, "advice", None, "missing", detail)]
    problems: list[SampleProblem] = []
    schema = constraint_schema(check_cls.options_schema)
    for expected, index, sample in _samples(check_cls):
        if first_error(schema, {"check": check_cls.name, **sample.options}) is not None:
            continue  # the sample's own verdict reports its options
        try:
            check = check_cls(dict(sample.options))
        except Exception:  # noqa: BLE001, S112 - the sample's own verdict reports this
            continue
        which = f"advise() for the options of {expected}_by[{index}]"
        try:
            given = check.advise()
        except Exception as exc:  # noqa: BLE001 - a broken advise() is a finding about it
            detail = f"{which} raised {type(exc).__name__}: {exc}"
            problems.append(SampleProblem(check_cls.name, "advice", None, "error", detail))
            continue
        if not isinstance(given, str) or not given.strip():
            detail = f"{which} gave {given!r}, not a sentence"
            problems.append(SampleProblem(check_cls.name, "advice", None, "error", detail))
    return problems


def _disagreement(expected: str, sample: Sample, verdict: Verdict) -> tuple[str, str] | None:
    """(status, detail) when `verdict` is not what the sample declares, or the sample's
    pins cannot be checked as written, else None."""
    findings = "; ".join(str(e) for e in verdict.evidence)
    if verdict.status != expected:
        return verdict.status, verdict.error or findings or "no findings"
    pinned = sample.pinned()
    if not pinned:
        return None
    if expected == "satisfied":
        keys = " and ".join(f"`{key}`" for key in pinned)
        return verdict.status, f"a satisfied sample has no finding: its {keys} cannot match"
    malformed = sample.pin_problems()
    if malformed:
        return verdict.status, "; ".join(malformed)
    if any(_lands_as_pinned(sample, e) for e in verdict.evidence):
        return None
    if sample.line is None and sample.path is None:
        return verdict.status, f"no finding's message contains {sample.message!r} ({findings})"
    if sample.line is None:
        where = f"in {sample.path}"
    else:
        where = f"at line {sample.line}" + (f" of {sample.path}" if sample.path is not None else "")
    saying = f" whose message contains {sample.message!r}" if sample.message is not None else ""
    found = "; ".join(_at_code_line(sample, e) for e in verdict.evidence)
    return verdict.status, f"no finding {where}{saying} (found: {found})"


def _lands_as_pinned(sample: Sample, evidence: Evidence) -> bool:
    """Whether one finding says the pinned message where the sample pins its line (a
    line of the sample's code, not of the task file the sample is written into)."""
    if sample.message is not None and sample.message not in evidence.message:
        return False
    if sample.line is not None and evidence.code_line != sample.line:
        return False
    return sample.path is None or evidence.code_path == sample.path


def _at_code_line(sample: Sample, evidence: Evidence) -> str:
    """A finding located in the sample's code: `line 3: [rule] message`, or for a
    project sample `pkg/mod.py:3: [rule] message`."""
    line = f"line {evidence.code_line}"
    if isinstance(sample.code, Mapping):
        line = f"{evidence.code_path}:{evidence.code_line}"
    return f"{line}: [{evidence.rule}] {evidence.message}"


def verify_samples(check_cls: type[Check]) -> list[SampleProblem]:
    """Every sample of `check_cls` whose verdict differs from what it declares (for a
    violated sample with a `message`, `line` or `path`: or whose findings do not say it,
    or not there; or whose pins cannot be checked as written, see `Sample.pin_problems`;
    a satisfied sample may pin nothing), a problem for a kind of sample the check lacks,
    and one for missing advice (or an `advise()` that fails for a sample's options).
    `[]` means every declared verdict is proven and the check says what to do."""
    missing = _missing(check_cls)
    problems: list[SampleProblem] = [missing] if missing else []
    problems.extend(_advice_problems(check_cls))
    for expected, index, sample in _samples(check_cls):
        with tempfile.TemporaryDirectory(prefix="codeif-sample-") as tmp:
            try:
                verdict = sample_verdict(check_cls, sample, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - e.g. a call case without `function`
                error = f"the sample cannot be run: {type(exc).__name__}: {exc}"
                verdict = Verdict("error", error_kind="invalid-task", error=error)
        found = _disagreement(expected, sample, verdict)
        if found is not None:
            label = "satisfied_by" if expected == "satisfied" else "violated_by"
            problems.append(SampleProblem(check_cls.name, label, index, *found))
    return problems


@dataclass(frozen=True)
class ExampleProblem:
    """An example of a rule that does not behave, or a task file that cannot be read
    (`rule` None), at its place in the task file."""

    location: Location
    rule: str | None
    detail: str

    def __str__(self) -> str:
        return f"{self.location}: {self.rule + ': ' if self.rule else ''}{self.detail}"


@dataclass(frozen=True)
class RuleExamplesResult:
    """A rule's examples, verified: how many, and the problems of those that misbehave."""

    location: Location
    rule: str
    examples: int
    problems: tuple[ExampleProblem, ...]


def task_files(
    paths: Sequence[Path], patterns: Sequence[str], skipped: Sequence[str] = ()
) -> list[Path]:
    """The task files named by `paths`: each file whose name matches one of `patterns`,
    and those below each folder (leaving out folders matching `skipped`, pytest's
    `norecursedirs`), in name order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            below = sorted(p for pattern in patterns for p in path.rglob(pattern))
            found += [
                p
                for p in below
                if p.is_file()
                and not any(
                    fnmatch.fnmatch(part, skip)
                    for part in p.relative_to(path).parts[:-1]
                    for skip in skipped
                )
            ]
        elif any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
            found.append(path)
    return list(dict.fromkeys(found))


def verify_rule_examples(
    path: Path, registry: CheckRegistry, root: Path | None = None
) -> tuple[list[RuleExamplesResult], list[ExampleProblem]]:
    """Each `pattern` rule of the task file at `path` that has `examples`, with every
    example that does not behave (a `match` example the rule does not match, a
    `no-match` one it does), and the problems of tasks that could not be read: every
    task file is read whole, so that a misspelt `exampels:` is a located problem, not
    examples silently left unverified."""
    try:
        loaded = load_task_yaml(path)
        parsed = parse_task_file(loaded, registry, root)
    except TaskFileError as exc:
        return [], _read_problems(exc)
    results: dict[tuple[str | int, ...], RuleExamplesResult] = {}
    for task in parsed.tasks:
        for constraint in task.constraints:
            check = constraint.check
            where = constraint.location.key_path
            if isinstance(check, PatternCheck) and check.examples and where not in results:
                results[where] = _prove_examples(loaded, constraint, check)
    problems = [p for _, error in parsed.errors for p in _read_problems(error)]
    return list(results.values()), problems


def _read_problems(error: TaskFileError) -> list[ExampleProblem]:
    found = error.problems if isinstance(error, TaskProblems) else (error,)
    return [ExampleProblem(p.location, None, p.message) for p in found]


def _prove_examples(
    loaded: LoadedYaml, constraint: ConstraintSpec, check: PatternCheck
) -> RuleExamplesResult:
    problems: list[ExampleProblem] = []
    for key, index, code in check.examples.each():
        key_path = (*constraint.location.key_path, "examples", key, index)
        with tempfile.TemporaryDirectory(prefix="codeif-example-") as tmp:
            sample = Sample(code, check.options, language=check.example_language)
            verdict = sample_verdict(type(check), sample, Path(tmp))
        detail = _misbehaves(key == MATCH, verdict)
        if detail is not None:
            problems.append(ExampleProblem(loaded.location(key_path), constraint.id, detail))
    return RuleExamplesResult(
        constraint.location, constraint.id, len(check.examples), tuple(problems)
    )


def _misbehaves(must_match: bool, verdict: Verdict) -> str | None:
    """Why an example's verdict is not what its key asks for; None when it is."""
    if verdict.status == "error":
        # The problem is located at the example already: the temporary task file it was
        # evaluated as would only mislead.
        error = _SAMPLE_PLACE.sub("", verdict.error or "")
        return f"the rule cannot be evaluated on this example: {error}"
    if must_match and verdict.status != "violated":
        return "the rule matches nothing in this `match` example"
    if not must_match and verdict.status == "violated":
        found = "; ".join(f"line {e.code_line}: {e.message}" for e in verdict.evidence)
        return f"the rule matches this `no-match` example ({found})"
    return None


def is_builtin(check_cls: type[Check]) -> bool:
    """Whether `check_cls` ships with pytest-codeif (its samples are proven by its tests)."""
    return check_cls in BUILTIN_CHECKS


def origin(check_cls: type[Check]) -> str:
    """Where a check was defined, for messages: `conftest.NoPrint`, `myplugin.rules.X`."""
    return f"{check_cls.__module__}.{check_cls.__qualname__}"


class SampleAudit:
    """Verifies, once per `--codeif` session, the samples of every check a plugin or a
    conftest.py registered, and lists each problem in a terminal summary section.

    Built-in checks are left out (this project's tests prove them), so the cost is that
    of the third-party samples alone. A section rather than a warning: under
    `filterwarnings = error` a warning raised during the session is an internal error
    that stops it, for checks whose verdicts are merely unproven. The run's outcome is
    never changed; `codeif check-samples` is the strict form (it exits 1). Registered on
    the controller only, as "codeif-samples": `-p no:codeif-samples` turns it off.
    """

    def __init__(self, checks: Iterable[type[Check]]) -> None:
        self.checks = [check for check in checks if not is_builtin(check)]
        self.problems: list[tuple[type[Check], SampleProblem]] = []

    @pytest.hookimpl(trylast=True)  # after pytest-xdist has started its workers
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        for check in self.checks:
            self.problems.extend((check, problem) for problem in verify_samples(check))

    @pytest.hookimpl(trylast=True)  # after the satisfaction figures it qualifies
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.problems:
            return
        terminalreporter.write_sep("=", "codeif: unproven checks", yellow=True)
        for check, problem in self.problems:
            # A problem quotes the findings of the samples' code: shown as data.
            terminalreporter.write_line(f"{safe_text(str(problem))}  [{origin(check)}]")
        terminalreporter.write_line("(`codeif check-samples` lists these and exits 1)")

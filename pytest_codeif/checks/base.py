"""What a check is: a class with a name, a category, an options schema and proof samples,
and what it may ask of the engine: the `CheckContext` protocol.

A check never runs tools itself: it asks its `CheckContext` for the parsed modules or for
ruff's and mypy's diagnostics, so the engine can parse each file once and batch each tool.
The engine implements the protocol; checks depend only on it, never on the engine. What
the engine prepares ahead of a check (tool runs, call cases, measurements) is declared
apart, in `EngineHints`, and read through `needs_of`: a simple check never sees it.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Protocol

import libcst as cst

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.functional.measure import Request
from pytest_codeif.outcome import CaseResult, ErrorKind, Finding, Status, Undecidable
from pytest_codeif.spec import CallCase
from pytest_codeif.tools import MypyConfig, RuffConfig, ToolConfig
from pytest_codeif.tools_node import BiomeConfig, TscConfig

__all__ = [
    "CATEGORIES",
    "Check",
    "CheckContext",
    "CheckNeeds",
    "EngineHints",
    "ErrorKind",
    "Finding",
    "ResponseCheck",
    "ResponseJudgement",
    "Sample",
    "Status",
    "Undecidable",
    "needs_of",
]

#: The MultiCodeIF taxonomy; a constraint may name any category, these are the defaults.
CATEGORIES: Final = (
    "Interface Specification",
    "Environment",
    "Data Structure",
    "Algorithm",
    "Coding Style",
    "Code Quality",
    "Scenario",
    "Code Context",
    "Exemplar",
)


def listed(names: Iterable[object], *, conjunction: str = "and") -> str:
    """Names as prose, each in backticks: "`a`", "`a` and `b`", "`a`, `b` and `c`";
    for `advise()` texts built from a check's options."""
    quoted = [f"`{name}`" for name in names]
    if len(quoted) < 2:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} {conjunction} {quoted[-1]}"


def documentation(check: type[Check]) -> str:
    """`check`'s documentation: its class docstring, indentation removed (empty when it
    has none). The one reading of it for the docs site, SARIF, feedback and advice."""
    return inspect.cleandoc(check.__doc__ or "")


def summary(check: type[Check]) -> str:
    """What `check` checks, in a sentence: its documentation's first sentence, whole even
    when the docstring wraps it over several lines (the lines up to the first one that
    ends a sentence, within the first paragraph)."""
    taken: list[str] = []
    for line in documentation(check).split("\n\n", 1)[0].splitlines():
        taken.append(line.strip())
        if line.rstrip().endswith((".", "!", "?")):
            break
    return " ".join(taken)


def advice_of(check: Check) -> str:
    """What to do about a violation of `check`'s constraint: its `advise()`, else its
    class's `advice`, else (a check that gives none, or whose `advise()` fails) a
    sentence from its documentation's first line. Never raises: reports call it."""
    try:
        given = check.advise()
    except Exception:  # noqa: BLE001 - a third-party advise() must not break a report
        given = type(check).advice
    if isinstance(given, str) and given.strip():
        return " ".join(given.split())
    first = summary(type(check)).strip().rstrip(".")
    if first:
        return f"Change the code so that this holds: {first}."
    return f"Change the code so that the `{check.name}` check is satisfied."


def dedented(code: str) -> str:
    """`code` as a module, when it was written as an indented triple-quoted string: the
    common indentation removed, and the newline right after the opening quotes dropped."""
    text = textwrap.dedent(code)
    return text[1:] if text.startswith("\n") else text


@dataclass(frozen=True)
class Sample:
    """Code that satisfies or violates a check with the given options.

    `code` is one module's source, or a mapping of relative path to source for a project;
    each is dedented (see `dedented`), so samples can be indented triple-quoted strings.

    A `violated_by` sample may pin what a finding says (`message`), the line it lands on
    (`line`) and, for a project, the file (`path`); one finding must match every pin. A
    `path` alone pins the file: some finding must land in it. `pin_problems` lists pins
    that can never be checked as written (`verify_samples` reports them).
    """

    code: str | Mapping[str, str]
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Call cases to run (`function`, `args`, `kwargs`), for checks that judge values
    #: observed when the code runs.
    calls: Sequence[Mapping[str, Any]] = ()
    #: For a `violated_by` sample: text that the message of at least one finding must
    #: contain (a plain substring, not a pattern, and not empty), so the sample proves
    #: what is reported and not only that something is.
    message: str | None = None
    #: For a `violated_by` sample: the line (1-based, of the dedented code) a finding must
    #: land on, so the sample proves where it is reported; with `message`, one finding
    #: must do both. A project sample's `line` needs a `path`: lines are of one file.
    line: int | None = None
    #: For a `violated_by` project sample: the file (a key of `code`) a finding must land
    #: in; with `line`, the file that line is in.
    path: str | None = None
    #: The language of a one-module `code` (a `languages.py` name: `javascript`,
    #: `typescript`); None: Python. A project sample's files are in the languages of
    #: their suffixes.
    language: str | None = None

    def __post_init__(self) -> None:
        code = (
            dedented(self.code)
            if isinstance(self.code, str)
            else {path: dedented(text) for path, text in self.code.items()}
        )
        object.__setattr__(self, "code", code)  # frozen: the one normalisation, at birth

    def pinned(self) -> list[str]:
        """The names of the pins the sample sets, of `message`, `line` and `path`."""
        return [key for key in ("message", "line", "path") if getattr(self, key) is not None]

    def pin_problems(self) -> list[str]:
        """Why a pin of the sample can never be checked as written (a `line` that is no
        line number, an empty `message`, a `path` that names none of its files); `[]`
        when each pin is well formed. Whether the sample may pin at all (a satisfied one
        may not) is for its verifier, which knows what it declares."""
        problems: list[str] = []
        if self.message is not None and (not isinstance(self.message, str) or not self.message):
            problems.append(
                f"its `message` is {self.message!r}: pin a non-empty part of a finding's message"
            )
        line = self.line
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
            problems.append(f"its `line` is {line!r}: pin a line number, 1 or more")
        files = self.code if isinstance(self.code, Mapping) else None
        if self.path is not None:
            if files is None:
                problems.append(
                    f"its `path` is {self.path!r}, but its `code` is one module: "
                    "`path` names a file of a project sample (`code` a mapping)"
                )
            elif self.path not in files:
                named = ", ".join(map(repr, files))
                problems.append(f"its `path` {self.path!r} is not one of its files ({named})")
        elif files is not None and line is not None:
            problems.append(
                "its `line` needs a `path`: a project sample's lines are of one of its files"
            )
        return problems


class CheckContext(Protocol):
    """What a check sees of one code unit: its files, their shared parse, batched tool
    diagnostics, and (for checks that judge behaviour) observed values and measurements.
    """

    @property
    def unit(self) -> CodeUnit:
        """The code under evaluation: every file with its origin."""
        ...

    @property
    def task_id(self) -> str:
        """The id of the task whose constraint is being decided."""
        ...

    @property
    def check_name(self) -> str:
        """The name of the check being evaluated: the rule findings carry by default."""
        ...

    @property
    def notes(self) -> list[str]:
        """Remarks for the report that are not findings (e.g. a suppression disregarded)."""
        ...

    def modules(self) -> list[ParsedModule]:
        """Every module of the unit in the constraint's scope (`files`, `modules`...),
        parsed once per session; syntax errors are undecidable."""
        ...

    def js_modules(self) -> list[JsModule]:
        """Every JavaScript or TypeScript file in the constraint's scope, parsed once per
        session (`code/js_tree.py`); `modules()` holds the Python ones alone. A check
        reading them lists both languages in its `languages`."""
        ...

    def in_scope(self, relpath: str) -> bool:
        """True when the file at `relpath` (unit-relative) is in the constraint's scope;
        `unit.files` lists every source file, in scope or not, and `unit.other_files`
        a project's other files (`run.sh`, `.env`), whose scope this answers too."""
        ...

    def observed(self) -> list[tuple[CallCase, CaseResult]]:
        """Each call case of the task with its result, from the task's functional run."""
        ...

    def measure(self, request: Request) -> list[tuple[int, float]]:
        """(size, cost) of running the code's function on growing inputs, sandboxed."""
        ...

    def probe(self, function: str, calls: Sequence[tuple[Any, ...]]) -> list[CaseResult]:
        """The code's top-level `function` called on each argument tuple of `calls` (plain
        data), in the sandbox, in one run: for checks that decide by behaviour on inputs
        of their own choosing. Each result as a call case's (`value` tagged as observed)."""
        ...

    def ruff(self, config: RuffConfig) -> list[Finding]:
        """Ruff's findings for this unit, from the batched run for `config`."""
        ...

    def mypy(self, config: MypyConfig) -> list[Finding]:
        """Mypy's errors for this unit, from the batched run for `config`."""
        ...

    def biome(self, config: BiomeConfig) -> list[Finding]:
        """Biome's findings for this unit's JavaScript and TypeScript, from the batched
        run for `config`."""
        ...

    def tsc(self, config: TscConfig) -> list[Finding]:
        """The TypeScript compiler's errors for this unit's TypeScript, from the batched
        run for `config`."""
        ...

    def finding(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        rule: str | None = None,
    ) -> Finding:
        """A finding whose rule defaults to the check's name; `path` is unit-relative
        (`module.relpath`) and `line` a line of that file. For findings at a node, `report`
        is shorter."""
        ...

    def report(
        self, module: ParsedModule, node: cst.CSTNode, message: str, *, rule: str | None = None
    ) -> Finding:
        """A finding at `node` of `module` (its file, line and column), whose rule defaults
        to the check's name."""
        ...


class EngineHints:
    """What the engine prepares ahead of a check's evaluation, so it can batch and overlap
    work; the defaults suit a check that reads only the parsed modules. A check that asks
    `ctx` for tool diagnostics, observed values or measurements overrides the matching
    hint; the engine and the gate read them through `needs_of`, never one by one.
    """

    #: The check judges values observed when the task's call cases run, so its verdict
    #: depends on those cases too (the verdict cache keys on them).
    observes_calls: ClassVar[bool] = False
    #: The check measures the code's growth (`ctx.measure`): the engine asks for its
    #: measurements ahead of its item, to run beside other work (`engine/measurements.py`).
    measures: ClassVar[bool] = False
    #: The check's tool runs read the project's own configuration (`project-config`), so
    #: its verdict depends on that configuration too (the verdict cache keys on it).
    reads_project_config: bool = False
    #: The languages (`code/languages.py` names) whose files the check judges: the engine
    #: gives it only those files of its scope, and a scope holding none is a located
    #: error, never a pass.
    languages: ClassVar[frozenset[str]] = frozenset({"python"})
    #: The check judges the response's text as written (answers), not code: the engine
    #: reads no code for it and calls its `judge` (see `ResponseCheck`).
    reads_response: ClassVar[bool] = False
    #: The check reads JavaScript or TypeScript that does not parse as a module its own
    #: way (`context`: class members alone, a method written for a given class): the
    #: engine leaves such a file's syntax error to the check, which keeps it for code
    #: that reads neither way.
    reads_js_fragments: ClassVar[bool] = False
    #: A response holding no code of its task's language violates the check (`language`:
    #: an answer in C++ to "write it in JavaScript"), instead of being a `no-code` error.
    judges_missing_code: ClassVar[bool] = False

    def judges_import_graph(self) -> bool:
        """True when the verdict rests on chains of imports across the whole project
        (the architecture contracts): the gate then judges it when any file of the code
        changed, not only one in its scope, and the engine refuses `modules` /
        `exclude-modules` names that name no module of the code (a typo)."""
        return False

    def tool_configs(self) -> Iterable[ToolConfig]:
        """The tool runs this check will ask for (`ctx.ruff`, `ctx.mypy`, `ctx.biome`,
        `ctx.tsc`), so the engine can batch them ahead."""
        return ()

    @classmethod
    def unavailable(cls) -> str | None:
        """Why this check cannot run on this machine (a tool it runs is not installed:
        its verdicts are `missing-tool` errors), or None. Tests of its samples skip
        with this reason rather than fail."""
        return None


@dataclass(frozen=True)
class CheckNeeds:
    """What one configured check needs prepared before it is evaluated (see `EngineHints`)."""

    tool_configs: tuple[ToolConfig, ...]
    observes_calls: bool
    measures: bool
    reads_project_config: bool
    judges_import_graph: bool
    languages: frozenset[str]
    reads_response: bool
    reads_js_fragments: bool = False


def needs_of(check: EngineHints) -> CheckNeeds:
    """The engine's one reading of a check's hints."""
    return CheckNeeds(
        tuple(check.tool_configs()),
        check.observes_calls,
        check.measures,
        check.reads_project_config,
        check.judges_import_graph(),
        check.languages,
        check.reads_response,
        check.reads_js_fragments,
    )


class Check(EngineHints):
    """Base class of every check. A check writes:

    - `name`, the `check:` value of task files, and `category` (one of `CATEGORIES`);
    - `advice`, what to do when its constraint is violated, in a sentence or two;
    - `options_schema`, the JSON schema of its options (default: none);
    - `evaluate(ctx)`, the findings on the code `ctx` gives (none: satisfied);
    - `satisfied_by` and `violated_by`, samples that prove its verdicts (`Sample`).

    Its docstring is the user documentation (the check reference is generated from it):
    first line what it checks, then why, its options and an example. Everything else
    has a default: `advise()` may name what the options ask for, and a check that needs
    tool runs, call cases or measurements prepared overrides an `EngineHints` hint.
    """

    name: ClassVar[str]
    category: ClassVar[str]
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    satisfied_by: ClassVar[Sequence[Sample]] = ()
    violated_by: ClassVar[Sequence[Sample]] = ()
    #: What to do instead when a constraint of this check is violated, in a sentence or
    #: two addressed to whoever fixes the code (a person or an agent). Reports, SARIF
    #: help and `--codeif-feedback` show it when the constraint gives no `message`.
    #: Every check must set it: `verify_samples` reports a check without advice.
    advice: ClassVar[str] = ""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options: Mapping[str, Any] = options

    def advise(self) -> str:
        """The advice for this constraint: `advice`, which a check may override to name
        what its options ask for (the forbidden module, the layer order)."""
        return self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        """Return the findings; none means satisfied. Raise `Undecidable` when unsure."""
        raise NotImplementedError


@dataclass(frozen=True)
class ResponseJudgement:
    """A response check's verdict: its findings (none: satisfied) and plain JSON data
    its outcome's record carries beside them (`answer`: see `records.AnswerEntry`)."""

    findings: list[Finding]
    details: Mapping[str, object] = field(default_factory=dict)


class ResponseCheck(Check):
    """A check of what a response says, not of code (PACIFIC's answers): the engine
    builds no code unit for it, so a response without code is judged, and calls
    `judge` with the response's text as written."""

    reads_response: ClassVar[bool] = True

    def judge(self, response: str) -> ResponseJudgement:
        """The judgement of `response` (hostile text, at most the response size bound)."""
        raise NotImplementedError

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        raise Undecidable("invalid-task", f"check {self.name!r} judges a response's text, not code")

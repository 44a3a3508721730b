"""pytest-codeif's settings: every option and ini value declared once (`DECLARED`: flag,
ini name, default, help, choices), and read once per process into a frozen `Settings`
kept in `config.stash` (`settings_of`), which every module takes instead of asking
pytest.

One rule resolves a setting: the command line's value when it is given (an empty one
too: `--codeif-changed-since=` switches off the ini value), else the ini value when it is
not empty, else the default. A path from the command line is relative to where pytest
was started; one from the ini file, to the rootdir. The bottom layer: light (pytest
only), so the hooks may read it without `--codeif`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

CONSTRAINT_ITEMS: Final = "constraint"
TASK_ITEMS: Final = "task"
DEFAULT_PATTERNS: Final = ("*.codeif.yaml", "*.codeif.yml")


@dataclass(frozen=True)
class Flag:
    """One command-line option: its name, help and the rest of argparse's arguments."""

    name: str
    help: str
    argparse: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ini:
    """One ini value: its name, pytest's type for it, its default and help."""

    name: str
    help: str
    type: str | None = None
    default: Any = ""


@dataclass(frozen=True)
class Declared:
    """A setting: its command-line flags (sharing `dest`), its ini value, and the values
    it may take (checked after the fallback, so the ini value is checked too)."""

    dest: str
    flags: tuple[Flag, ...] = ()
    ini: Ini | None = None
    default: Any = None
    choices: tuple[str, ...] = ()


#: Every setting, in the order `pytest --help` shows the options.
DECLARED: Final = (
    Declared(
        "codeif",
        (
            Flag(
                "--codeif",
                "collect task files (*.codeif.yaml) and check the code they name.",
                {"action": "store_true", "default": False},
            ),
        ),
    ),
    Declared(
        "codeif_report",
        (
            Flag(
                "--codeif-report",
                "write the JSON report (outcomes, evidence, aggregates) to PATH.",
                {"metavar": "PATH", "default": None},
            ),
        ),
    ),
    Declared(
        "codeif_group_by",
        (
            Flag(
                "--codeif-group-by",
                "summaries side by side: one column per value of the task metadata KEY "
                "(e.g. model, round), in the terminal and the JSON report's `groups`, with "
                "pass@k and satisfaction@k where tasks have several samples. Default: the "
                "codeif_group_by ini value.",
                {"metavar": "KEY", "default": None},
            ),
        ),
        Ini("codeif_group_by", "default for --codeif-group-by."),
    ),
    Declared(
        "codeif_k",
        (
            Flag(
                "--codeif-k",
                "the k of pass@k and satisfaction@k in the groups (--codeif-group-by), "
                "e.g. 1,10,100. Default: the codeif_k ini value, else 1,5,10.",
                {"metavar": "K,K,...", "default": None},
            ),
        ),
        Ini("codeif_k", "default for --codeif-k (default 1,5,10)."),
        default="1,5,10",
    ),
    Declared(
        "codeif_k_rule",
        (
            Flag(
                "--codeif-k-rule",
                "which tasks pass@k averages over: every-task (the default, as human-eval, "
                "evalplus and BigCodeBench: a k is given only when every task has at least "
                "k samples) or tasks-with-k (the tasks that have k samples).",
                {"default": None},
            ),
        ),
        Ini("codeif_k_rule", "default for --codeif-k-rule (default every-task).", default=""),
        default="every-task",
        choices=("every-task", "tasks-with-k"),
    ),
    Declared(
        "codeif_sarif",
        (
            Flag(
                "--codeif-sarif",
                "write a SARIF 2.1.0 log of the violations (for code scanning) to PATH. "
                "Default: the codeif_sarif ini value.",
                {"metavar": "PATH", "default": None},
            ),
        ),
        Ini("codeif_sarif", "default for --codeif-sarif (relative to rootdir)."),
    ),
    Declared(
        "codeif_annotations",
        (
            Flag(
                "--codeif-annotations",
                "print GitHub Actions annotations (::error file=...) for violations; "
                "by default they are printed when GITHUB_ACTIONS=true.",
                {"action": "store_const", "const": "always", "default": None},
            ),
            Flag(
                "--codeif-no-annotations",
                "never print GitHub Actions annotations.",
                {"action": "store_const", "const": "never"},
            ),
        ),
        Ini(
            "codeif_annotations",
            "GitHub Actions annotations: auto (when GITHUB_ACTIONS=true), always or never.",
            default="auto",
        ),
        default="auto",
        choices=("auto", "always", "never"),
    ),
    Declared(
        "codeif_fail_under",
        (
            Flag(
                "--codeif-fail-under",
                "gate: fail the run when the satisfaction rate of SCOPE (constraints, the "
                "default, or tasks) is under RATE (0.9 or 90%%); violated constraints alone "
                "then no longer fail it. Repeatable.",
                {"action": "append", "metavar": "[SCOPE:]RATE", "default": None},
            ),
        ),
        Ini(
            "codeif_fail_under",
            "default for --codeif-fail-under: [SCOPE:]RATE values, space-separated.",
            "args",
            [],
        ),
        default=(),
    ),
    Declared(
        "codeif_max_violations",
        (
            Flag(
                "--codeif-max-violations",
                "gate: fail the run when more than N constraints are violated; violated "
                "constraints alone then no longer fail it.",
                {"metavar": "N", "type": int, "default": None},
            ),
        ),
        Ini("codeif_max_violations", "default for --codeif-max-violations."),
    ),
    Declared(
        "codeif_feedback",
        (
            Flag(
                "--codeif-feedback",
                "write feedback an agent or a reviewer can act on (per task: what was "
                "asked, what was found where, what to do) to PATH: JSONL when PATH ends in "
                ".jsonl, else Markdown (e.g. for $GITHUB_STEP_SUMMARY). Repeatable. "
                "Default: the codeif_feedback ini value.",
                {"action": "append", "metavar": "PATH", "default": None},
            ),
        ),
        Ini(
            "codeif_feedback",
            "default for --codeif-feedback: paths relative to the rootdir, space-separated.",
            "args",
            [],
        ),
        default=(),
    ),
    Declared(
        "codeif_changed_since",
        (
            Flag(
                "--codeif-changed-since",
                "judge only the code changed since the merge base of the git ref REF and "
                "HEAD (committed, staged, unstaged and untracked files of the repository "
                "holding the rootdir): findings elsewhere are not counted, and a constraint "
                "whose scope holds no changed file is skipped. An unknown REF, or no git "
                "repository, is an error (exit status 4). An empty value switches off the "
                "codeif_changed_since ini value.",
                {"metavar": "REF", "default": None},
            ),
        ),
        Ini("codeif_changed_since", "default for --codeif-changed-since (a git ref)."),
        default="",
    ),
    Declared(
        "codeif_changed_lines",
        (
            Flag(
                "--codeif-changed-lines",
                "with --codeif-changed-since: count only findings on added or modified "
                "lines (every line of an untracked file; a finding without a line counts "
                "when its file changed). Default: the codeif_changed_lines ini value.",
                {"action": "store_const", "const": True, "default": None},
            ),
        ),
        Ini(
            "codeif_changed_lines",
            "default for --codeif-changed-lines (used only with a changed-since ref).",
            "bool",
            False,
        ),
        default=False,
    ),
    Declared(
        "codeif_baseline",
        (
            Flag(
                "--codeif-baseline",
                "accept the findings recorded in the baseline FILE (JSON, written by "
                "--codeif-baseline-write), matched by task, check, constraint, file and the "
                "text of the finding's line, not its number; only new findings count. "
                "Default: the codeif_baseline ini value (relative to the rootdir).",
                {"metavar": "FILE", "default": None},
            ),
        ),
        Ini("codeif_baseline", "default for --codeif-baseline (a path relative to the rootdir)."),
        default="",
    ),
    Declared(
        "codeif_baseline_write",
        (
            Flag(
                "--codeif-baseline-write",
                "record every finding of the constraints that run into the "
                "--codeif-baseline FILE (keeping those of constraints that did not run) and "
                "accept them: the run exits 0 unless something else fails (an undecidable "
                "constraint, a functional test). Not with --codeif-changed-since.",
                {"action": "store_true", "default": False},
            ),
        ),
    ),
    Declared(
        "codeif_no_cache",
        (
            Flag(
                "--codeif-no-cache",
                "decide every verdict afresh: neither read nor write the verdict cache "
                "(kept in pytest's cache directory; --cache-clear empties it).",
                {"action": "store_true", "default": False},
            ),
        ),
    ),
    Declared(
        "codeif_sandbox",
        (
            Flag(
                "--codeif-sandbox",
                "how code under evaluation is isolated: bubblewrap, a bare process, or auto "
                "(bubblewrap when it works here). Default: the codeif_sandbox ini value, or "
                "auto.",
                {"default": None},
            ),
        ),
        Ini(
            "codeif_sandbox",
            "default for --codeif-sandbox (auto, bubblewrap or process).",
            default="auto",
        ),
        default="auto",
        choices=("auto", "bubblewrap", "process"),
    ),
    Declared(
        "codeif_items",
        (
            Flag(
                "--codeif-items",
                "pytest items per task: one per constraint (and one for its functional "
                "tests), or one per task (per response), which decides all of it: much "
                "faster on large suites, with every outcome reported as before. Default: "
                "the codeif_items ini value, or constraint.",
                {"default": None},
            ),
        ),
        Ini(
            "codeif_items",
            "default for --codeif-items (constraint or task).",
            default=CONSTRAINT_ITEMS,
        ),
        default=CONSTRAINT_ITEMS,
        choices=(CONSTRAINT_ITEMS, TASK_ITEMS),
    ),
    Declared(
        "codeif_patterns",
        ini=Ini(
            "codeif_patterns",
            "glob patterns of task file names (default: *.codeif.yaml *.codeif.yml).",
            "linelist",
            list(DEFAULT_PATTERNS),
        ),
    ),
)


def declare(parser: pytest.Parser) -> None:
    """Add every option of `DECLARED` to pytest's parser, and every ini value."""
    group = parser.getgroup("codeif", "code instruction-following (pytest-codeif)")
    for declared in DECLARED:
        for flag in declared.flags:
            takes_value = flag.argparse.get("action") is None
            choices = {"choices": declared.choices} if declared.choices and takes_value else {}
            group.addoption(
                flag.name, dest=declared.dest, help=flag.help, **choices, **flag.argparse
            )
    for declared in DECLARED:
        if declared.ini is not None:
            ini = declared.ini
            parser.addini(ini.name, help=ini.help, type=ini.type, default=ini.default)  # type: ignore[arg-type]


def task_file_patterns(config: pytest.Config) -> tuple[str, ...]:
    """`codeif_patterns`: the one setting read without `--codeif` (to explain a task file
    pytest did not find), and the one with no command-line flag."""
    return tuple(str(p) for p in config.getini("codeif_patterns"))


def enabled(config: pytest.Config) -> bool:
    """Whether `--codeif` is on (asked before any setting is read: off, nothing is)."""
    return bool(config.getoption("codeif", False))


@dataclass(frozen=True)
class Settings:
    """Every setting of this run, resolved (see the module docstring) and checked."""

    #: Paths of the JSON report, the SARIF log and the feedback files (None / empty: none).
    report: Path | None
    sarif: Path | None
    feedback: tuple[Path, ...]
    #: The task metadata key summaries are split by (None: not split).
    group_by: str | None
    #: The ks of pass@k and satisfaction@k, ascending, and which tasks they average over.
    k: tuple[int, ...]
    k_rule: str
    #: GitHub Actions annotations: auto, always or never.
    annotations: str
    #: The thresholds as given (`report/thresholds.parse_thresholds` reads them).
    fail_under: tuple[str, ...]
    max_violations: str | None
    #: The git ref whose merge base the change is judged against ("": judge everything).
    changed_since: str
    #: Whether only changed lines count; `changed_lines_asked`: on the command line.
    changed_lines: bool
    changed_lines_asked: bool
    #: The baseline file, and its name as given ("" when none).
    baseline: Path | None
    baseline_shown: str
    baseline_write: bool
    no_cache: bool
    sandbox: str
    #: How many items a task becomes: `CONSTRAINT_ITEMS` or `TASK_ITEMS`.
    items: str
    patterns: tuple[str, ...]
    # pytest's own settings that pytest-codeif reads.
    #: -x / --maxfail: the run may stop long before the last item.
    stops_early: bool
    #: pytest-xdist's `--dist load` (the default with -n).
    xdist_load: bool
    noconftest: bool
    #: pytest's cache folder as configured (None: no cacheprovider plugin, no such ini).
    cache_dir: str | None
    norecursedirs: tuple[str, ...]
    collect_in_virtualenv: bool

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        """Resolve every setting once; a value out of its choices is a `pytest.UsageError`."""
        read = _Reader(config)
        baseline, baseline_shown = read.path("codeif_baseline", strip=True)
        return cls(
            report=read.path("codeif_report")[0],
            sarif=read.path("codeif_sarif")[0],
            feedback=read.paths("codeif_feedback"),
            group_by=str(read.value("codeif_group_by") or "") or None,
            k=_ks(read.value("codeif_k")),
            k_rule=read.choice("codeif_k_rule", strip=True),
            annotations=read.choice("codeif_annotations"),
            fail_under=tuple(str(v) for v in read.value("codeif_fail_under")),
            max_violations=_text_or_none(read.value("codeif_max_violations")),
            changed_since=str(read.value("codeif_changed_since") or "").strip(),
            changed_lines=bool(read.value("codeif_changed_lines")),
            changed_lines_asked=bool(config.getoption("codeif_changed_lines", None)),
            baseline=baseline,
            baseline_shown=baseline_shown,
            baseline_write=bool(read.value("codeif_baseline_write")),
            no_cache=bool(read.value("codeif_no_cache")),
            sandbox=read.choice("codeif_sandbox"),
            items=read.choice("codeif_items", strip=True),
            patterns=task_file_patterns(config),
            stops_early=bool(config.getoption("maxfail", 0)),
            xdist_load=config.getoption("dist", None) == "load",
            noconftest=bool(config.getoption("noconftest", False)),
            cache_dir=_cache_dir(config),
            norecursedirs=tuple(str(p) for p in config.getini("norecursedirs")),
            collect_in_virtualenv=bool(config.getoption("collect_in_virtualenv", False)),
        )


class _Reader:
    """The one fallback rule, for `Settings.from_config`."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.declared = {d.dest: d for d in DECLARED}

    def given(self, dest: str) -> tuple[Any, Path]:
        """The value of `dest` and the folder a relative path in it is relative to: the
        command line's when given, else the ini value when not empty, else the default."""
        declared = self.declared[dest]
        if declared.flags:
            value = self.config.getoption(dest, None)
            if value is not None:
                return value, self.config.invocation_params.dir
        if declared.ini is not None:
            value = self.config.getini(declared.ini.name)
            if value not in ("", [], None):
                return value, self.config.rootpath
        return declared.default, self.config.rootpath

    def value(self, dest: str) -> Any:
        return self.given(dest)[0]

    def choice(self, dest: str, *, strip: bool = False) -> str:
        """The value, which must be one of the setting's choices."""
        value = self.value(dest)
        if strip:
            value = str(value).strip()
        declared = self.declared[dest]
        if value not in declared.choices:
            *first, last = declared.choices
            name = declared.ini.name if declared.ini is not None else dest
            raise pytest.UsageError(
                f"pytest-codeif: {name} must be {', '.join(first)} or {last}, not {value!r}"
            )
        return str(value)

    def path(self, dest: str, *, strip: bool = False) -> tuple[Path | None, str]:
        """The path (None: none given) and its text as given."""
        value, base = self.given(dest)
        text = str(value or "").strip() if strip else str(value or "")
        return (_under(base, text) if text else None), text

    def paths(self, dest: str) -> tuple[Path, ...]:
        values, base = self.given(dest)
        return tuple(_under(base, str(v)) for v in values)


def _under(base: Path, text: str) -> Path:
    path = Path(text)
    return path if path.is_absolute() else base / path


def _cache_dir(config: pytest.Config) -> str | None:
    try:
        return str(config.getini("cache_dir"))
    except ValueError:  # declared by the cacheprovider plugin, absent under -p no:cacheprovider
        return None


def _ks(value: object) -> tuple[int, ...]:
    """`1,10,100` -> (1, 10, 100), ascending, each once; anything else a usage error."""
    text = str(value)
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.isascii() and part.isdigit() and int(part) > 0 for part in parts):
        raise pytest.UsageError(
            f"pytest-codeif: codeif_k must be sample counts separated by commas (1,10,100), "
            f"not {text!r}"
        )
    return tuple(sorted({int(part) for part in parts}))


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


SETTINGS_KEY: Final = pytest.StashKey[Settings]()


def settings_of(config: pytest.Config) -> Settings:
    """This run's settings, resolved the first time they are asked for."""
    known = config.stash.get(SETTINGS_KEY, None)
    if known is None:
        known = config.stash[SETTINGS_KEY] = Settings.from_config(config)
    return known

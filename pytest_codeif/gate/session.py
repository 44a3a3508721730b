"""The gate's options and per-process state, set up once in `pytest_configure`.

Every process (the controller and each pytest-xdist worker) asks git once and reads the
baseline once, at configure time, so that a bad option, a folder that is not a git
repository, an unknown ref or an unusable baseline file is one `pytest.UsageError`:
pytest prints one `ERROR:` line and exits with status 4 before anything is collected.
The controller alone registers `GateReporter`, which writes the baseline
(`--codeif-baseline-write`) from the records every item reports.

Writing the baseline records every finding of the constraints that ran, and accepts
them: those constraints pass, so the run exits 0 unless something else fails (an
undecidable constraint, a functional test, an invalid task file), as Betterer's
`--update` and mypy-baseline's `sync` do. Recorded findings of constraints that did not
run (deselected with -k, undecidable today) are kept. It cannot be combined with
--codeif-changed-since: a baseline of the changed code alone would forget the rest.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.cores import is_xdist_worker
from pytest_codeif.engine.tool_batches import read_config_file
from pytest_codeif.gate.base_code import BaseCode
from pytest_codeif.gate.baseline import (
    Baseline,
    BaselineError,
    ConstraintKey,
    Entry,
    constraint_key,
    entries_of,
    merged,
    read_baseline,
    write_baseline,
)
from pytest_codeif.gate.changes import (
    ChangedCode,
    GitError,
    blob_at,
    every_change,
    find_changes,
)
from pytest_codeif.gate.links import ChangedLinks
from pytest_codeif.gate.pinned import (
    GateGuard,
    PinnedTaskFiles,
    RulesDiff,
    protected_changes,
    read_pinned_baseline,
    replaced_arguments,
    unprotected,
)
from pytest_codeif.records import GateEntry
from pytest_codeif.report.records import records_of
from pytest_codeif.settings import settings_of
from pytest_codeif.state import STATE_KEY

#: Exit statuses after which the baseline is not written: the run did not finish.
_UNFINISHED = (
    pytest.ExitCode.INTERRUPTED,
    pytest.ExitCode.INTERNAL_ERROR,
    pytest.ExitCode.USAGE_ERROR,
)


@dataclass
class GateState:
    """What this process filters verdicts by."""

    changes: ChangedCode | None = None
    baseline: Baseline | None = None  # read mode only
    path: Path | None = None  # the baseline file
    shown: str = ""  # the baseline file as the user named it
    writing: bool = False
    #: The merge base's code, to tell the findings the change caused outside it.
    base: BaseCode | None = None
    #: Whether each file a constraint's scope holds changed (asked once per file).
    _changed: dict[Path, bool] = field(default_factory=dict)

    def changed(self, path: Path) -> bool:
        """True when the file at `path` changed (see `ChangedCode.has_file`)."""
        known = self._changed.get(path)
        if known is None:
            known = self.changes is not None and self.changes.has_file(path)
            self._changed[path] = known
        return known


GATE_KEY = pytest.StashKey[GateState | None]()


def gate_state(config: pytest.Config) -> GateState | None:
    """This process's gate, or None when neither option is in use."""
    return config.stash.get(GATE_KEY, None)


def _usage(message: str) -> pytest.UsageError:
    return pytest.UsageError(f"pytest-codeif: {message}")


def _changed_since(config: pytest.Config) -> tuple[str, bool]:
    """(REF, whether only changed lines count); REF empty when off. An empty
    `--codeif-changed-since=` switches off the ini value."""
    settings = settings_of(config)
    ref = settings.changed_since
    if settings.changed_lines_asked and not ref:
        raise _usage("--codeif-changed-lines needs --codeif-changed-since=REF")
    return ref, settings.changed_lines and bool(ref)


def _baseline_path(config: pytest.Config) -> tuple[Path | None, str]:
    """The baseline file: from the command line (relative to where pytest was started)
    or the ini file (relative to the rootdir); and its name as given."""
    settings = settings_of(config)
    return settings.baseline, settings.baseline_shown


def configure_gate(config: pytest.Config) -> None:
    """Read the gate's options, ask git and read the baseline; a problem with any of
    them is a `pytest.UsageError`. Stores the state under `GATE_KEY`."""
    ref, lines = _changed_since(config)
    path, shown = _baseline_path(config)
    writing = settings_of(config).baseline_write
    if writing and path is None:
        raise _usage("--codeif-baseline-write needs --codeif-baseline=FILE: where to write")
    if writing and ref:
        raise _usage(
            "--codeif-baseline-write records the findings of all the code, and cannot be "
            "combined with --codeif-changed-since (an empty --codeif-changed-since= "
            "switches off the ini value)"
        )
    if not ref and path is None:
        config.stash[GATE_KEY] = None
        return
    state = GateState(path=path, shown=shown, writing=writing)
    pinned_baseline: str | None = None
    if ref:
        try:
            state.changes = find_changes(config.rootpath, ref, lines=lines)
            pinned_baseline = _protect(config, state.changes, path)
            codeif = config.stash.get(STATE_KEY, None)
            if codeif is not None:
                state.base = BaseCode(state.changes, codeif.engine)
        except GitError as exc:
            raise _usage(f"--codeif-changed-since={ref}: {exc}") from None
    if path is not None and not writing:
        try:
            if state.changes is not None and pinned_baseline is not None:
                state.baseline = read_pinned_baseline(state.changes, pinned_baseline, shown)
            else:
                state.baseline = read_baseline(path)
        except (BaselineError, GitError) as exc:
            raise _usage(str(exc)) from None
    config.stash[GATE_KEY] = state
    if not is_xdist_worker(config):
        config.pluginmanager.register(GateReporter(config, state), "codeif-gate")


def _pinned_config(changes: ChangedCode, path: Path) -> bytes | None:
    """A project's configuration file as the merge base holds it (from the disk when it
    lies outside the repository)."""
    relative = changes.repo_path(path.absolute())
    return read_config_file(path) if relative is None else blob_at(changes, relative)


def _protect(config: pytest.Config, changes: ChangedCode, baseline: Path | None) -> str | None:
    """Judge the change with rules it cannot edit (`gate/pinned.py`): task files it
    touched read as the merge base holds them, its protected changes as failing items,
    and a warning when the invocation lets it act first. Returns the baseline's
    repository path when the change touched it (read it as the merge base holds it)."""
    statuses = every_change(changes)
    relative = changes.repo_path(baseline.absolute()) if baseline is not None else None
    rules = RulesDiff(changes, statuses)
    links = ChangedLinks(changes, statuses)
    for arg in config.args:  # links the change made on a path given to the gate
        links.check(Path(config.invocation_params.dir, str(arg).split("::")[0]))
    found = protected_changes(config, changes, statuses, relative, rules)
    # A task file named on the command line that the change deleted, or replaced by a
    # folder: pytest would refuse the argument or walk the folder; the guard collects
    # it, read as the merge base holds it.
    replaced = replaced_arguments(config, changes)
    state = config.stash.get(STATE_KEY, None)
    taskfiles = None
    if state is not None:
        taskfiles = state.taskfiles = PinnedTaskFiles(state.registry, changes, rules, links)
        # A task's `project-config: true` reads ruff's and mypy's configuration files as
        # the merge base holds them: the change cannot edit them either.
        state.engine.tools.read_configs_with(functools.partial(_pinned_config, changes))
    guard = GateGuard(
        config,
        changes,
        found,
        reasons=unprotected(config, changes),
        taskfiles=taskfiles,
        replaced=replaced,
        links=links,
    )
    config.pluginmanager.register(guard, "codeif-gate-guard")
    return relative if relative in statuses else None


class GateReporter:
    """The controller's part: the header lines, and the baseline written at the end."""

    def __init__(self, config: pytest.Config, state: GateState) -> None:
        self.config = config
        self.state = state
        self.entries: list[Entry] = []
        #: Constraints decided in this run: their recorded findings are replaced.
        self.decided: set[ConstraintKey] = set()
        self.notices: list[str] = []

    def pytest_report_header(self) -> list[str]:
        lines: list[str] = []
        changes = self.state.changes
        if changes is not None:
            what = "lines" if changes.lines is not None else "files"
            count = len(changes.files)
            lines.append(
                f"codeif: judging only the {what} changed {changes.since}: "
                f"{count} file{'s' if count != 1 else ''} changed"
            )
        if self.state.writing:
            lines.append(f"codeif: recording every finding into the baseline {self.state.shown}")
        elif self.state.baseline is not None:
            count = len(self.state.baseline)
            lines.append(
                f"codeif: baseline {self.state.shown}: {count} recorded "
                f"finding{'s' if count != 1 else ''} accepted"
            )
        return lines

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.state.writing:
            return
        for record in records_of(report):
            if record["kind"] != "constraint" or record["status"] not in (
                "satisfied",
                "violated",
            ):
                continue  # undecidable, skipped: its recorded findings are kept
            gate: GateEntry = record.get("gate") or {}
            self.decided.add(constraint_key(record))
            found = [*record.get("evidence", []), *gate.get("absorbed", [])]
            self.entries += entries_of(record, found)

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        # A plain hook: it runs before the terminal summary, which prints the notice.
        if self.state.writing and self.state.path is not None:
            self._write(self.state.path, int(exitstatus))

    def _write(self, path: Path, exitstatus: int) -> None:
        if self.config.option.collectonly or exitstatus in _UNFINISHED:
            self.notices.append(
                f"codeif: baseline {self.state.shown} not written: the run did not finish"
            )
            return
        old: list[Entry] = []
        if path.exists():
            try:
                old = read_baseline(path).entries
            except BaselineError as exc:
                self.notices.append(f"codeif: the old baseline could not be read, replaced: {exc}")
        entries = merged(old, self.entries, self.decided)
        write_baseline(path, entries)
        kept = len(entries) - len(self.entries)
        extra = f", {kept} kept from constraints that did not run" if kept else ""
        self.notices.append(
            f"codeif: baseline written to {path}: {len(entries)} "
            f"finding{'s' if len(entries) != 1 else ''}{extra}"
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for line in self.notices:
            terminalreporter.write_line(line)

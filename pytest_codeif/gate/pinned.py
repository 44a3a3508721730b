"""A gate judges a change with rules the change cannot edit (`--codeif-changed-since`).

The change under judgement could switch the gate off: edit the rules or the baseline,
add a `conftest.py` that empties the item list or sets the exit status, or put
`addopts = -p no:codeif` into pytest's configuration. Under `--codeif-changed-since=REF`:

- **Pinned rules and baseline.** Every task file the session reads, and the baseline
  file, is read as the merge base of REF and HEAD holds it whenever the change touched
  it (`PinnedTaskFiles`, `read_pinned_baseline`): a task file the change added holds no
  task, a baseline it added accepts nothing. A task file whose tasks' inline code alone
  changed (`code:`, `response:`) is read as it is: that code is the change judged.
  Unchanged files are read from the disk (they hold the merge base's bytes); task files
  are never read through pytest's cache folder, which the change could have planted.
  A task file named on the command line that the change deleted would stop pytest
  (`file or directory not found`, a usage error, before any rule ran), and one it
  replaced by a folder would be walked for what it holds: either is taken out of
  pytest's arguments at configure time and collected by `GateGuard`, read as the merge
  base holds it (`replaced_arguments`). The merge base's symbolic links are followed in
  its own tree (`blob_at`): a task file that is a link is read as the file it named
  there, whatever the change did to that file.
- **Links.** A symbolic link the change added or changed on a path the rules name (an
  argument, a task file, its folder, a task's `directory:`) is a protected change
  (`links.py`): it changes what is read and judged without editing a rule.
- **Protected changes are findings.** A change to those files, to a `conftest.py` or to
  pytest's configuration that this session would read (`protected_changes`) is one
  failing item per file, `PATH::codeif-gate::protected-KIND`: a violated constraint of
  the check `gate` with the file and line as evidence (the first changed line of the
  diff, the line a removal followed; 1 for a deleted file or a diff with no line), so
  it reaches SARIF, annotations, junit XML and the feedback like any finding. The
  baseline never absorbs it, and a passing `--codeif-fail-under` /
  `--codeif-max-violations` gate does not excuse it (`GateGuard.pytest_runtestloop`).
  It needs a person: the gate cannot tell a reviewed rule change from a change that
  switches a rule off.
- **The invocation.** pytest imports the `conftest.py` files of its arguments' folders,
  and reads its configuration file, before any plugin hook runs; its `python` and
  `doctest` plugins import the checkout's Python while collecting (a folder's
  `__init__.py` for its package, `test_*.py` files, `test*.txt` doctests): no plugin can
  undo them. The protection is the invocation (`codeif gate`, which runs pytest with
  `--noconftest -c os.devnull --rootdir=. -p no:cacheprovider -p no:python -p
  no:doctest`, so that only task files are collected). A gate run without it
  is told so (`unprotected`): a header line, a terminal warning and, under GitHub
  Actions, a `::warning` annotation. Which files count as this session's: every
  `conftest.py` and configuration file in the folders from the repository's root down
  to each argument's folder and to the rootdir, every `conftest.py` under an argument
  that is a folder, and every task file named by, or under, an argument.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import stat
import tempfile
import tomllib
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import iniconfig
import pytest

from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.gate.baseline import Baseline, BaselineError, read_baseline
from pytest_codeif.gate.changes import ChangedCode, GitError, blob_at, first_changed_line
from pytest_codeif.gate.links import ChangedLinks, links_on_route
from pytest_codeif.gate.unjudged import left_out
from pytest_codeif.outcome import Evidence
from pytest_codeif.records import ConstraintRecord
from pytest_codeif.report.annotations import command, enabled
from pytest_codeif.report.fingerprints import evidence_fingerprints
from pytest_codeif.report.records import records_of
from pytest_codeif.report.thresholds import ThresholdsOutcome
from pytest_codeif.settings import settings_of
from pytest_codeif.taskfile.parse import ParsedFile, parse_task_file
from pytest_codeif.taskfile.parsed_cache import TaskFileCache
from pytest_codeif.taskfile.yamlload import MAX_FILE_BYTES, load_yaml_bytes

#: The check, task and category of a protected change's record.
CHECK: Final = "gate"
TASK: Final = "codeif-gate"
CATEGORY: Final = "Gate"
#: The documented gate command, for messages.
GATE_COMMAND: Final = "codeif gate"
#: pytest configuration files that are nothing else: any change to one counts.
PYTEST_FILES: Final = frozenset({"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml"})
#: Files that hold pytest's configuration in one section among others: a change counts
#: when that section changed.
SECTIONED_FILES: Final = frozenset({"pyproject.toml", "tox.ini", "setup.cfg"})
#: pytest's plugins that import the checkout's Python while collecting (a folder's
#: `__init__.py` for its package's setup, `test_*.py` files, doctests in `test*.txt`):
#: `codeif gate` blocks them, and collects task files alone.
PYTHON_PLUGINS: Final = ("python", "doctest")
#: A configuration file larger than this (or not a regular file) is not read: changed.
_MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024
_SECTION_HEADER: Final = {
    "pyproject.toml": re.compile(r"^\s*\[\s*tool\s*\.\s*pytest\b"),
    "tox.ini": re.compile(r"^\s*\[\s*pytest\s*\]"),
    "setup.cfg": re.compile(r"^\s*\[\s*tool:pytest\s*\]"),
}

#: A task's keys holding the code under evaluation itself: a change to them is the change
#: under judgement, not a change to the rules.
INLINE_CODE_KEYS: Final = frozenset({"code", "response"})

Kind = Literal["rules", "baseline", "conftest", "config", "link", "unjudged"]
_VERB: Final = {"A": "added", "D": "deleted"}
#: What to do, per kind of protected file (the constraint's `message`).
ADVICE: Final[dict[str, str]] = {
    "rules": "A person must review a change to the gate's rules: the gate judged this "
    "change with the rules as the merge base holds them. Land the rule change in a pull "
    "request of its own, reviewed by the rules' owners.",
    "baseline": "A person must review a change to the baseline: adding a finding to it "
    "accepts a violation. The gate read the baseline as the merge base holds it; rewrite "
    "it with --codeif-baseline-write in a pull request of its own, reviewed by its owners.",
    "conftest": "A person must review this conftest.py: pytest runs it before any plugin, "
    "so it can switch the gate off (drop items, set the exit status). The gate ran without "
    "conftest.py files (--noconftest); land the change in a pull request reviewed by the "
    "owners of the test setup.",
    "config": "A person must review this change to pytest's configuration: it can switch "
    "the gate off (`addopts = -p no:codeif`, what is collected). The gate ran with no "
    "configuration file (-c /dev/null); land the change in a pull request reviewed by "
    "the owners of the test setup.",
    "unjudged": "A person must review this file: it changed, but the walk of the task's "
    "code folder leaves it out (a .gitignore line, a build/ or virtualenv folder, a vendored "
    "or hidden folder; a compiled or extension module, a .pth file, a symbolic link, which "
    "no check reads), so no rule judged it, while Python can still import it. Move it into "
    "the judged code, or land it, or the rule that leaves it out, in a pull request of its "
    "own (a task's `exclude:` in the rules says what source is deliberately not judged).",
    "link": "A person must review this symbolic link: a path the gate's rules name (a task "
    "file, its folder, a task's `directory:`) goes through it, so it changes what the gate "
    "reads and judges without editing a rule. Land it in a pull request of its own, "
    "reviewed by the rules' owners.",
}


@dataclass(frozen=True)
class ProtectedChange:
    """A file the gate's verdict depends on that the change touched."""

    path: str  # relative to the repository's root, POSIX
    shown: str  # relative to pytest's rootdir, as reports show paths
    kind: Kind
    status: str  # git's letter: A, M, D, T
    line: int  # where the change is (the first changed line, the section's header; 1
    # for a deleted file or a diff with no line, a change of mode)
    reason: str = ""  # for `unjudged`: the rule that left the file out

    @property
    def constraint(self) -> str:
        """The item's constraint: `protected-KIND`, or `unjudged-code`."""
        return "unjudged-code" if self.kind == "unjudged" else f"protected-{self.kind}"

    @property
    def verb(self) -> str:
        return _VERB.get(self.status, "changed")

    def message(self, since: str) -> str:
        verb = self.verb
        if self.kind == "rules":
            after = (
                "its tasks were not judged"
                if self.status == "A"
                else "the gate judged with the rules as the merge base holds them"
            )
            return f"the task file {self.shown} was {verb} {since}: {after}"
        if self.kind == "baseline":
            return (
                f"the baseline {self.shown} was {verb} {since}: the gate read it as the "
                "merge base holds it"
            )
        if self.kind == "unjudged":
            return (
                f"{self.shown} was {verb} {since}, but the code folder's walk leaves it "
                f"out ({self.reason}): no rule judged it"
            )
        if self.kind == "link":
            return (
                f"the symbolic link {self.shown} was {verb} {since}: a path the gate's "
                "rules name goes through it"
            )
        if self.kind == "conftest":
            return (
                f"{self.shown} was {verb} {since}: a conftest.py runs before any plugin "
                "and can switch the gate off"
            )
        return (
            f"the pytest configuration in {self.shown} was {verb} {since}: it can switch "
            "the gate off (addopts, plugins, what is collected)"
        )


# -- which files, and which of them the change touched ---------------------------------


@dataclass(frozen=True)
class SessionFiles:
    """What of the repository this session reads: folders from the root down to each
    argument's (and the rootdir's), argument folders, argument files (repo paths)."""

    ancestors: frozenset[str]
    trees: frozenset[str]
    files: frozenset[str]

    def under_trees(self, folder: str) -> bool:
        return any(t in (".", folder) or folder.startswith(t + "/") for t in self.trees)


def session_files(config: pytest.Config, changes: ChangedCode) -> SessionFiles:
    ancestors: set[str] = set()
    trees: set[str] = set()
    files: set[str] = set()

    def climb(folder: str) -> None:
        while folder not in ancestors:
            ancestors.add(folder)
            if folder == ".":
                return
            folder = posixpath.dirname(folder) or "."

    for arg in config.args:
        target = Path(config.invocation_params.dir, str(arg).split("::")[0])
        relative = changes.repo_path(target.absolute())
        if relative is None:
            continue
        if target.is_dir():
            trees.add(relative)
            climb(relative)
        else:
            files.add(relative)
            climb(posixpath.dirname(relative) or ".")
    rootdir = changes.repo_path(config.rootpath)
    if rootdir is not None:
        climb(rootdir)
    return SessionFiles(frozenset(ancestors), frozenset(trees), frozenset(files))


class RulesDiff:
    """Which task files' rules the change touched: a task file it added, deleted or
    edited beyond the inline code of its tasks (`code:`, `response:`, which are the code
    under evaluation, so the change's own), asked once per file."""

    def __init__(self, changes: ChangedCode, statuses: Mapping[str, str]) -> None:
        self.changes = changes
        self.statuses = statuses
        self._memo: dict[str, bool] = {}

    def changed(self, relative: str) -> bool:
        known = self._memo.get(relative)
        if known is None:
            known = self._memo[relative] = self._compare(relative)
        return known

    def status(self, relative: str) -> str:
        """git's letter for the file at `relative`; `M` for one changed through a link."""
        return self.statuses.get(relative, "M")

    def _compare(self, relative: str) -> bool:
        path = self.changes.toplevel / relative
        if relative not in self.statuses and not links_on_route(path):
            return False  # unchanged, and read through no link: the merge base's bytes
        try:
            # Both sides through their own links: the merge base's as it resolved them.
            old = blob_at(self.changes, relative)
        except GitError:
            return True
        new = _working_bytes(path, MAX_FILE_BYTES, follow=True)
        if old is None or new is None:
            return True
        try:
            return bool(_rules_of(path, old) != _rules_of(path, new))
        except TaskFileError:
            return True


def _rules_of(path: Path, raw: bytes) -> Any:
    """A task file's data without its tasks' inline code."""
    data = load_yaml_bytes(path, raw).data
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        return data
    tasks = [
        {k: v for k, v in task.items() if k not in INLINE_CODE_KEYS}
        if isinstance(task, dict)
        else task
        for task in data["tasks"]
    ]
    return {**data, "tasks": tasks}


def protected_changes(
    config: pytest.Config,
    changes: ChangedCode,
    statuses: Mapping[str, str],
    baseline: str | None,
    rules: RulesDiff,
) -> list[ProtectedChange]:
    """The protected files among `statuses` (`changes.every_change`), in path order;
    `baseline` is the baseline file's repository path."""
    scope = session_files(config, changes)
    patterns = settings_of(config).patterns
    found: list[ProtectedChange] = []
    for path, status in sorted(statuses.items()):
        folder = posixpath.dirname(path) or "."
        name = posixpath.basename(path)
        kind: Kind | None = None
        if path == baseline:
            kind = "baseline"
        elif any(fnmatch.fnmatch(name, p) for p in patterns) and (
            path in scope.files or scope.under_trees(folder)
        ):
            if not rules.changed(path):
                continue  # only its inline code changed: that is the change judged
            kind = "rules"
        elif name == "conftest.py" and (folder in scope.ancestors or scope.under_trees(folder)):
            kind = "conftest"
        elif folder in scope.ancestors and (
            name in PYTEST_FILES
            or (name in SECTIONED_FILES and _section_changed(changes, path, name))
        ):
            kind = "config"
        if kind is None:
            continue
        found.append(
            ProtectedChange(
                path=path,
                shown=_shown(changes, path),
                kind=kind,
                status=status,
                line=1 if status == "D" else _line(changes, path, name, kind),
            )
        )
    return found


def _shown(changes: ChangedCode, path: str) -> str:
    return Path(os.path.relpath(changes.toplevel / path, changes.rootdir.resolve())).as_posix()


def _line(changes: ChangedCode, path: str, name: str, kind: Kind) -> int:
    header = _SECTION_HEADER.get(name) if kind == "config" else None
    if header is not None:
        text = _working_bytes(changes.toplevel / path)
        if text is not None:
            for number, line in enumerate(text.decode("utf-8", "replace").splitlines(), 1):
                if header.match(line):
                    return number
    try:
        return first_changed_line(changes, path)
    except GitError:
        return 1


def _working_bytes(
    path: Path, limit: int = _MAX_CONFIG_BYTES, *, follow: bool = False
) -> bytes | None:
    """A regular file's bytes (not a link unless `follow`, not a device, a folder or a
    file over `limit` bytes); else None."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _section_changed(changes: ChangedCode, path: str, name: str) -> bool:
    """Whether the pytest section of `pyproject.toml`, `tox.ini` or `setup.cfg` differs
    between the merge base and the working tree (any doubt: it does)."""
    try:
        old = blob_at(changes, path)
    except GitError:
        return True
    new_path = changes.toplevel / path
    new = _working_bytes(new_path)
    if new is None and os.path.lexists(new_path):
        return True  # a link, a device, a huge file: not read, so not known unchanged
    return bool(_section(name, old) != _section(name, new))


def _section(name: str, raw: bytes | None) -> Any:
    """The pytest section of a configuration file's bytes, as comparable data (None
    when there is none); unreadable bytes are their own value."""
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8")
        if name == "pyproject.toml":
            tool = tomllib.loads(text).get("tool")
            return tool.get("pytest") if isinstance(tool, dict) else None
        section = "pytest" if name == "tox.ini" else "tool:pytest"
        parsed = iniconfig.IniConfig(name, data=text)
        return dict(parsed[section].items()) if section in parsed else None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, iniconfig.ParseError):
        return ("unreadable", raw)


# -- the rules and the baseline as the merge base holds them ----------------------------


class PinnedTaskFiles(TaskFileCache):
    """Reads a task file the change touched as the merge base holds it; never through
    pytest's cache folder. `pinned` lists the files so read (path -> repository path);
    `links` notes the links the change made on the paths they and their tasks name."""

    def __init__(
        self,
        registry: CheckRegistry,
        changes: ChangedCode,
        rules: RulesDiff,
        links: ChangedLinks | None = None,
    ) -> None:
        super().__init__(None, registry)
        self.changes = changes
        self.rules = rules
        self.links = links if links is not None else ChangedLinks(changes, rules.statuses)
        self.pinned: dict[Path, str] = {}
        #: Changed source files a task's code folder leaves out (repository path ->
        #: the rule that did), see `unjudged.py`.
        self.unjudged: dict[str, str] = {}

    def read(self, path: Path, root: Path | None = None) -> ParsedFile:
        self.links.check(path)
        parsed = self._read(path, root)
        for task in parsed.tasks:
            if task.code.kind in _CODE_PATH_KINDS:
                self.links.check(task.path.parent / task.code.value)
            if task.code.kind == "directory":
                folder = task.path.parent / task.code.value
                for found in left_out(self.changes, folder, task.code.exclude):
                    self.unjudged.setdefault(found.path, found.reason)
        return parsed

    def _read(self, path: Path, root: Path | None) -> ParsedFile:
        relative = self.changes.repo_path(path)
        if relative is None or not self.rules.changed(relative):
            return super().read(path, root)
        self.pinned[path] = relative
        try:
            raw = blob_at(self.changes, relative)
        except GitError as exc:
            raise TaskFileError(
                Location(path, 1, ()), f"cannot read this file as the merge base holds it: {exc}"
            ) from None
        if raw is None:  # added by the change: no rule of the merge base's
            return ParsedFile()
        return parse_task_file(load_yaml_bytes(path, raw), self.registry, root)


#: The kinds of a task's code that name a path (relative to the task file).
_CODE_PATH_KINDS: Final = frozenset({"directory", "file", "response-file"})


def replaced_arguments(config: pytest.Config, changes: ChangedCode) -> list[Path]:
    """The task files named on the command line that the change deleted or replaced by
    something other than a file (a folder, a link to a folder, a dangling link): absolute,
    taken out of `config.args`. pytest would stop at a missing one (`file or directory not
    found`, a usage error) and would walk a folder put in its place for whatever it holds
    (nothing, or files of the change's choosing), judging none of the rules. `GateGuard`
    collects them as the session's own files, read as the merge base holds them
    (`PinnedTaskFiles`), so that their rules still judge the change; the change itself
    is a `protected-rules` finding. Only a whole file counts (not `FILE::NODE`, not a
    deleted folder), and only one where the merge base holds a file (through its own
    links) whose name `codeif_patterns` matches."""
    patterns = settings_of(config).patterns
    replaced: list[Path] = []
    kept: list[str] = []
    for arg in config.args:
        text = str(arg)
        target = Path(os.path.normpath(Path(config.invocation_params.dir, text).absolute()))
        relative = None if "::" in text else changes.repo_path(target)
        if (
            relative is not None
            and not os.path.isfile(target)
            and any(fnmatch.fnmatch(target.name, p) for p in patterns)
            and _held_as_file(changes, relative)
        ):
            if target not in replaced:
                replaced.append(target)
        else:
            kept.append(arg)
    config.args[:] = kept
    return replaced


def _held_as_file(changes: ChangedCode, relative: str) -> bool:
    try:
        return blob_at(changes, relative) is not None
    except GitError:
        return False


def read_pinned_baseline(changes: ChangedCode, relative: str, shown: str) -> Baseline:
    """The baseline at `relative` (a repository path) as the merge base holds it; empty
    when it holds none (the change added it: it accepts nothing)."""
    raw = blob_at(changes, relative)
    if raw is None:
        return Baseline([])
    with tempfile.TemporaryDirectory(prefix="codeif-baseline-") as folder:
        copy = Path(folder, posixpath.basename(relative) or "baseline.json")
        copy.write_bytes(raw)
        try:
            return read_baseline(copy)
        except BaselineError as exc:
            where = f"{shown} (as merge base {changes.merge_base[:7]} holds it)"
            raise BaselineError(str(exc).replace(str(copy), where)) from None


# -- is this run protected? -------------------------------------------------------------


def unprotected(config: pytest.Config, changes: ChangedCode) -> list[str]:
    """What lets the change under judgement act on this run before any plugin hook can:
    empty when the run is invoked as `codeif gate` invokes it."""
    reasons: list[str] = []
    settings = settings_of(config)
    if not settings.noconftest:
        reasons.append("it imports conftest.py files (no --noconftest)")
    loaded = [name for name in PYTHON_PLUGINS if config.pluginmanager.get_plugin(name) is not None]
    if loaded:
        reasons.append(
            "it imports the checkout's Python files while collecting (a package's "
            "__init__.py, test files, doctests; no "
            + " ".join(f"-p no:{name}" for name in loaded)
            + ")"
        )
    inipath = config.inipath
    if inipath is not None and changes.repo_path(inipath.absolute()) is not None:
        reasons.append(
            f"it reads the configuration file {_shown(changes, str(changes.repo_path(inipath)))} "
            f"(no -c {os.devnull})"
        )
    if getattr(config, "cache", None) is not None and settings.cache_dir is not None:
        folder = os.path.expanduser(os.path.expandvars(settings.cache_dir))
        cache = Path(config.rootpath, folder)
        if changes.repo_path(cache) is not None:
            reasons.append(
                "it reads pytest's cache folder in the repository (no -p no:cacheprovider)"
            )
    return reasons


# -- the items ----------------------------------------------------------------------------


class ProtectedChangeItem(pytest.Item):
    """A protected file the change touched: always fails, with its finding."""

    def __init__(
        self, *, change: ProtectedChange, record: ConstraintRecord, text: str, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.change = change
        self.record = record
        self.text = text
        self.user_properties += [
            ("codeif_check", CHECK),
            ("codeif_category", CATEGORY),
            ("codeif_status", "violated"),
        ]

    def runtest(self) -> None:
        pytest.fail(self.text, pytrace=False)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        line = self.change.line - 1
        return self.config.rootpath / self.change.shown, line, f"codeif gate: {self.change.shown}"


def protected_record(
    nodeid: str, change: ProtectedChange, since: str, root: Path, *, extra: Iterable[str] = ()
) -> ConstraintRecord:
    """The record of a protected change: a violated constraint `protected-<kind>` of
    the check `gate`, task `codeif-gate`, with the file as its one finding."""
    constraint = change.constraint
    evidence = Evidence(
        path=change.shown,
        line=change.line,
        rule=change.kind,
        message=change.message(since),
    )
    [fingerprint] = evidence_fingerprints((change.shown, TASK, CHECK, constraint), [evidence], root)
    return {
        "kind": "constraint",
        "nodeid": nodeid,
        "file": change.shown,
        "task": TASK,
        "metadata": {},
        "instruction": None,
        "status": "violated",
        "error_kind": None,
        "error": None,
        "evidence": [
            {
                "path": evidence.path,
                "line": evidence.line,
                "column": None,
                "rule": evidence.rule,
                "message": evidence.message,
                "code_path": None,
                "code_line": None,
                "code_column": None,
                "fingerprint": fingerprint,
            }
        ],
        "notes": list(extra),
        "cached": False,
        "line": change.line,
        "constraint": constraint,
        "check": CHECK,
        "category": CATEGORY,
        "level": None,
        "options": {},
        "message": ADVICE[change.kind],
        "advice": ADVICE[change.kind],
        "constraints_in_task": 1,
        "has_tests": False,
    }


def _item_text(record: ConstraintRecord) -> str:
    [finding] = record["evidence"]
    where = f"{finding['path']}:{finding['line']}"
    lines = [f"constraint {record['constraint']!r} violated (check {CHECK}):"]
    lines.append(f"  {where}: [{finding['rule']}] {finding['message']}")
    lines += [f"note: {note}" for note in record["notes"]]
    lines.append(f"what to do: {record['advice']}")
    return "\n".join(lines)


class GateGuard:
    """The protection's plugin, in every process: adds the protected changes' items,
    attaches their records, keeps a passing threshold from excusing them, and says
    what the run is missing when it is not protected."""

    def __init__(
        self,
        config: pytest.Config,
        changes: ChangedCode,
        found: list[ProtectedChange],
        *,
        reasons: list[str],
        taskfiles: PinnedTaskFiles | None,
        replaced: list[Path] | None = None,
        links: ChangedLinks | None = None,
    ) -> None:
        self.config = config
        self.changes = changes
        self.found = found
        self.reasons = reasons
        self.taskfiles = taskfiles
        self.replaced = replaced or []
        self.links = links
        self.failed = 0

    def _warning(self) -> str:
        return (
            "codeif: WARNING: the change under judgement can switch this gate off: "
            + "; ".join(self.reasons)
            + f". Run the gate as `{GATE_COMMAND} ...` (see the docs: the CI gate in depth)."
        )

    def pytest_report_header(self) -> list[str]:
        lines = [
            f"codeif: rules and baseline as the merge base holds them "
            f"({self.changes.ref}, merge base {self.changes.merge_base[:7]}); "
            f"{len(self.found)} protected file{'s' if len(self.found) != 1 else ''} changed"
        ]
        if self.reasons:
            lines.append(self._warning())
        return lines

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        """The session collects the task files the change deleted or replaced from the
        command line (`replaced_arguments`) after its arguments, as pytest collects any
        file."""
        report = yield
        if self.replaced and isinstance(collector, pytest.Session) and report.passed:
            result = list(report.result)
            for path in self.replaced:
                result += collector.ihook.pytest_collect_file(file_path=path, parent=collector)
            report.result = result
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Appended last, after `-k` and `--deselect` have had their say."""
        del config
        found = list(self.found)
        known = {change.path for change in found}
        taskfiles = self.taskfiles
        for relative in sorted(set(taskfiles.pinned.values()) if taskfiles else ()):
            if taskfiles is not None and relative not in known:  # pinned, not found up front
                status = taskfiles.rules.status(relative)
                if status != "D" and not os.path.isfile(self.changes.toplevel / relative):
                    status = "D"  # a folder or a dangling link in its place
                shown = _shown(self.changes, relative)
                line = 1 if status == "D" else _line(self.changes, relative, "", "rules")
                found.append(ProtectedChange(relative, shown, "rules", status, line))
                known.add(relative)
        links = self.links.found if self.links is not None else {}
        for relative, status in sorted(links.items()):
            shown = _shown(self.changes, relative)
            found.append(ProtectedChange(relative, shown, "link", status, 1))
        for relative, reason in sorted(taskfiles.unjudged.items() if taskfiles else ()):
            status = "A" if relative in self.changes.untracked else "M"
            if taskfiles is not None:
                status = taskfiles.rules.statuses.get(relative, status)
            shown = _shown(self.changes, relative)
            found.append(ProtectedChange(relative, shown, "unjudged", status, 1, reason))
        notes = [f"this run is not protected: {r}" for r in self.reasons]
        for change in found:
            name = change.constraint
            nodeid = f"{change.shown}::{TASK}::{name}"
            record = protected_record(
                nodeid, change, self.changes.since, self.config.rootpath, extra=notes
            )
            items.append(
                ProtectedChangeItem.from_parent(
                    session,
                    name=name,
                    nodeid=nodeid,
                    path=self.config.rootpath / change.shown,
                    change=change,
                    record=record,
                    text=_item_text(record),
                )
            )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, Any]:
        report = yield
        if isinstance(item, ProtectedChangeItem) and call.when == "call":
            # Plain built-in types only: pytest-xdist serialises this to the controller.
            report.codeif_records = [item.record]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and any(r.get("check") == CHECK for r in records_of(report)):
            self.failed += 1

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Outermost: after a passing threshold has excused violated constraints, a
        protected change still fails the run."""
        result = yield
        if self.failed:
            session.testsfailed = max(session.testsfailed, 1)
            # The thresholds' summary line (`report/thresholds.ThresholdsOutcome`) counted
            # them as tolerated violations: they are failures it does not excuse.
            reporter = self.config.pluginmanager.get_plugin("codeif-reporter")
            outcome = getattr(reporter, "thresholds_outcome", None)
            if isinstance(outcome, ThresholdsOutcome) and outcome.tolerated:
                moved = min(self.failed, outcome.tolerated)
                outcome.tolerated -= moved
                outcome.others += moved
        return result

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.reasons:
            return
        terminalreporter.write_line(self._warning())
        if enabled(settings_of(self.config).annotations, os.environ):
            text = "; ".join(self.reasons) + f". Run the gate as `{GATE_COMMAND} ...`."
            terminalreporter.write_line(
                command("warning", text, title="codeif gate is not protected")
            )

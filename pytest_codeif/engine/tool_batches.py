"""Ruff, mypy, Biome and TypeScript batches: each configuration runs once, in a background
thread, over every unit planned for it; the findings are then handed out unit by unit.
Each tool reads only the files of its languages (ruff and mypy Python's, Biome
JavaScript's and TypeScript's, the compiler TypeScript's); a unit holding none gets no
finding from it (the verdict says the check has nothing to judge).

Units are staged (written out) for the tools on the main thread; runs never touch this
object's state from their threads. Staged copies are removed, in the background, once
every launched batch is collected.

A configuration with `project` set (the task's `project-config: true`) stages beside each
project's copy its own configuration files, read from the project's folder: from the
disk, or, under `--codeif-changed-since`, as the merge base holds them (the gate sets
that reader with `read_configs_with`), so that the change judged cannot edit them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Final

from pytest_codeif.code.js_suppressions import (
    BIOME_KINDS,
    TSC_KINDS,
    JsSuppression,
    find_js_suppressions,
    neutralise_js,
)
from pytest_codeif.code.languages import JS_FAMILY, PYTHON, TYPESCRIPT
from pytest_codeif.code.suppressions import MYPY_KINDS, Suppression, find_suppressions, neutralise
from pytest_codeif.code.unit import CodeUnit, OtherFile, SourceFile
from pytest_codeif.cores import cores_for_this_process
from pytest_codeif.outcome import Finding, Undecidable
from pytest_codeif.tools import (
    PROJECT_CONFIG_FILES,
    MypyConfig,
    RuffConfig,
    ToolConfig,
    ToolRun,
    mypy_plugin_files,
    project_config_file,
    run_mypy,
    run_ruff,
)
from pytest_codeif.tools_node import (
    BiomeConfig,
    NodeRun,
    TscConfig,
    TscProgram,
    program_wide,
    run_biome,
    run_tsc,
)

#: A project configuration file larger than this (or not a regular file) is not read.
MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024

#: What one batch yields: for each tool run, the units it covered, the run, and the
#: staged name of each unit when the run's paths are relative to the staging dir (None:
#: relative to one project's own folder).
_BatchResult = list[tuple[list[CodeUnit], "ToolRun | NodeRun", "dict[str, str] | None"]]

#: The folder suffix of a staged copy with suppression comments of these kinds blanked
#: (`<key>_n/` for mypy's, `<key>_b/` for Biome's, `<key>_t/` for TypeScript's).
_BLANKED_TAGS: Final = {MYPY_KINDS: "n", BIOME_KINDS: "b", TSC_KINDS: "t"}


def read_config_file(path: Path) -> bytes | None:
    """A configuration file's bytes from the disk: None when there is none; a link, a
    device or a huge file is an error (it is not read, so not known)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
        raise OSError(f"{path} is not a regular file of at most {MAX_CONFIG_BYTES} bytes")
    return path.read_bytes()


def project_folder(unit: CodeUnit) -> Path | None:
    """The folder a project unit was read from (its files' origins, less their paths)."""
    if not unit.is_project or not unit.files:
        return None
    first = unit.files[0]
    depth = len(PurePosixPath(first.relpath).parts)
    return first.origin.parents[depth - 1]


class ToolBatches:
    """Planned, running and finished tool runs of one pytest process."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.units_dir = workdir / "units"
        self._staged: set[str] = set()
        self._discarded = 0
        self._removals: list[threading.Thread] = []
        self._suppressions: dict[str, list[tuple[str, Suppression]]] = {}
        self._planned: dict[ToolConfig, dict[str, CodeUnit]] = {}
        self._results: dict[tuple[ToolConfig, str], list[Finding] | Undecidable] = {}
        self._running: dict[tuple[ToolConfig, str], Future[_BatchResult]] = {}
        self._threads: ThreadPoolExecutor | None = None
        #: Reads a project's configuration file (the gate reads the merge base's).
        self._read_config: Callable[[Path], bytes | None] = read_config_file
        self._configs: dict[str, dict[str, bytes] | Undecidable] = {}
        self._configs_staged: set[str] = set()

    def read_configs_with(self, reader: Callable[[Path], bytes | None]) -> None:
        """Read projects' configuration files with `reader` from now on (the gate's reads
        them as the merge base holds them); called before any unit is planned."""
        if self._configs:
            raise RuntimeError("configuration files were read before the reader was set")
        self._read_config = reader

    def project_configs(self, unit: CodeUnit) -> dict[str, bytes]:
        """The project's own configuration files in its folder (name -> bytes), read once;
        `Undecidable` when one cannot be read."""
        if unit.key not in self._configs:
            folder = project_folder(unit)
            found: dict[str, bytes] = {}
            try:
                for name in PROJECT_CONFIG_FILES:
                    raw = None if folder is None else self._read_config(folder / name)
                    if raw is not None:
                        found[name] = raw
            except Exception as exc:  # noqa: BLE001 - git or the disk: no verdict
                self._configs[unit.key] = Undecidable(
                    "checker-failure", f"cannot read the project's configuration: {exc}"
                )
            else:
                self._configs[unit.key] = found
        known = self._configs[unit.key]
        if isinstance(known, Undecidable):
            raise known
        return known

    def config_digest(self, unit: CodeUnit) -> str:
        """A hash of the project's configuration files, for the verdict cache's key."""
        try:
            found = self.project_configs(unit)
        except Undecidable as exc:
            return f"unreadable: {exc}"
        digest = hashlib.sha256()
        for name, raw in sorted(found.items()):
            digest.update(f"{name}:{len(raw)}:".encode())
            digest.update(raw)
        return digest.hexdigest()

    def plan(self, config: ToolConfig, unit: CodeUnit) -> None:
        """Note that `unit` needs the `config` run."""
        self._planned.setdefault(config, {})[unit.key] = unit

    def launch_planned(self) -> None:
        """Launch every planned batch not yet launched; mypy and the TypeScript compiler
        first, as they are the longest runs and every other run waits behind them."""
        slow = (MypyConfig, TscConfig)
        for config in sorted(self._planned, key=lambda c: not isinstance(c, slow)):
            pending = self._pending(config)
            if pending:
                self._launch(config, pending)

    def findings(self, config: ToolConfig, unit: CodeUnit) -> list[Finding]:
        """Findings of the `config` run for `unit`, running the whole batch if needed."""
        if (config, unit.key) not in self._results:
            if (config, unit.key) not in self._running:
                self._planned.setdefault(config, {})[unit.key] = unit
                self._launch(config, self._pending(config))
            running = self._running.get((config, unit.key))
            if running is not None:  # else decided when launched (an unreadable config)
                self._collect(config, running)
        found = self._results[(config, unit.key)]
        if isinstance(found, Undecidable):
            raise found
        return found

    def _pending(self, config: ToolConfig) -> list[CodeUnit]:
        """Units planned for `config` whose run is neither over nor under way."""
        return [
            unit
            for key, unit in self._planned.get(config, {}).items()
            if (config, key) not in self._results and (config, key) not in self._running
        ]

    def _launch(self, config: ToolConfig, units: list[CodeUnit]) -> None:
        """Stage `units` (here, on the main thread) and run the tool in the background."""
        # Mypy reads a copy with `# type: ignore` and `# mypy:` comments blanked out,
        # Biome one without `// biome-ignore`, the compiler one without `// @ts-ignore`,
        # unless the task allows them.
        blanked = _blanked_kinds(config)
        chosen: dict[str, str | None] = {}
        if config.project:
            for unit in [u for u in units if u.is_project]:
                try:
                    chosen[unit.key] = project_config_file(config, self.project_configs(unit))
                except Undecidable as exc:
                    self._results[(config, unit.key)] = exc
                    units = [u for u in units if u is not unit]
            if not units:
                return
        names = {unit.key: self._stage(unit, blanked) for unit in units}
        for unit in list(units):
            own = chosen.get(unit.key)
            if own is None:
                continue
            self._stage_configs(unit, names[unit.key])
            if isinstance(config, MypyConfig):
                try:
                    chosen[unit.key] = self._stage_mypy_config(unit, names[unit.key], own)
                except Undecidable as exc:
                    self._results[(config, unit.key)] = exc
                    units.remove(unit)
        if not units:
            return
        if self._threads is None:
            self._threads = ThreadPoolExecutor(
                cores_for_this_process(), thread_name_prefix="codeif-tools"
            )
        future = self._threads.submit(
            _run_batch, config, list(units), names, self.units_dir, self.workdir, chosen=chosen
        )
        for unit in units:
            self._running[(config, unit.key)] = future

    def _collect(self, config: ToolConfig, future: Future[_BatchResult]) -> None:
        """Wait for a launched batch and hand its findings to each of its units."""
        try:
            parts = future.result()
        except Exception as exc:  # noqa: BLE001 - a broken batch must not crash pytest
            keys = [k for (c, k), f in self._running.items() if c == config and f is future]
            for key in keys:
                del self._running[(config, key)]
                self._results[(config, key)] = Undecidable(
                    "checker-failure", f"the {type(config).__name__} batch failed: {exc}"
                )
            return
        for units, run, names in parts:
            self._fan_out(config, units, run, names)
            for unit in units:
                self._running.pop((config, unit.key), None)
        if not self._running:
            self._discard_staged()

    def _discard_staged(self) -> None:
        """Every launched run is over: remove the staged copies in the background (a
        later batch stages afresh), so the session does not pay for it at its end."""
        if not self.units_dir.exists():
            return
        self._discarded += 1
        old = self.workdir / f"units-done-{self._discarded}"
        try:
            os.replace(self.units_dir, old)
        except OSError:
            return  # left for `close`, which removes the whole work dir
        self._staged.clear()
        self._configs_staged.clear()
        self._removals.append(
            threading.Thread(target=shutil.rmtree, args=(old, True), name="codeif-cleanup")
        )
        self._removals[-1].start()

    def _fan_out(
        self,
        config: ToolConfig,
        units: list[CodeUnit],
        run: ToolRun | NodeRun,
        names: dict[str, str] | None,
    ) -> None:
        for unit in units:
            if run.failure is not None:
                kind = run.failure_kind if isinstance(run, NodeRun) else "checker-failure"
                self._results[(config, unit.key)] = Undecidable(kind, run.failure)
                continue
            if isinstance(run, ToolRun) and run.blocking:
                found = [f for findings in run.by_file.values() for f in findings]
                detail = "; ".join(f"{f.path}:{f.line}: {f.message}" for f in found[:3])
                self._results[(config, unit.key)] = Undecidable(
                    "checker-failure", f"mypy stopped on a blocking error: {detail}"
                )
                continue
            staged = {
                (_staged_path(names[unit.key], source) if names else source.relpath): source
                for source in unit.files
            }
            reported = _reported_files(run, staged, f"{names[unit.key]}/" if names else "")
            if not isinstance(reported, Undecidable) and isinstance(run, NodeRun):
                reported = _file_error(run, staged) or reported
            if isinstance(reported, Undecidable):
                self._results[(config, unit.key)] = reported
                continue
            findings: list[Finding] = []
            for path, source in staged.items():
                findings.extend(
                    Finding(f.message, f.rule, source.relpath, f.line, f.column)
                    for f in reported.get(path, [])
                )
            self._results[(config, unit.key)] = findings

    def _stage(self, unit: CodeUnit, blanked: frozenset[str] = frozenset()) -> str:
        """Write the unit's files for the tools to read, once, and return its staged name.

        Each unit gets a folder, `<key>/`, a namespace package for mypy, so that module
        names never collide and a relative import stays what it is in a package (a top
        level `<key>.py` made it a blocking error). The tools read the same copy;
        `blanked` asks for suppression comments of those kinds blanked out (mypy's,
        Biome's or TypeScript's), written as `<key>_n/` (`_b/`, `_t/`) only for code
        that has some (for the rest it would be the same text). A project's TypeScript
        declaration files (`.d.ts`, not source) are written beside its code, for the
        compiler to read.
        """
        mine = [s for s in self.suppressions(unit) if s[1].kind in blanked] if blanked else []
        name = f"{unit.key}_{_BLANKED_TAGS[blanked]}" if mine else unit.key
        if name in self._staged:
            return name
        for source in unit.files:
            target = os.path.join(self.units_dir, _staged_path(name, source))
            # Plain `os` calls: thousands of units are staged at once, and pathlib's
            # own work per call was a visible share of it.
            os.makedirs(os.path.dirname(target), exist_ok=True)
            text = source.text
            if mine:
                here = [item for path, item in mine if path == source.relpath]
                js = [item for item in here if isinstance(item, JsSuppression)]
                text = neutralise_js(text, js, blanked) if js else neutralise(text, here, blanked)
            with open(target, "w", encoding="utf-8") as staged:
                staged.write(text)
        for other in _declarations(unit):
            target = os.path.join(self.units_dir, f"{name}/{other.relpath}")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as staged_bytes:
                staged_bytes.write(other.data)
        self._staged.add(name)
        return name

    def _stage_configs(self, unit: CodeUnit, name: str) -> None:
        """Write the project's configuration files beside its staged copy, once."""
        if name in self._configs_staged:
            return
        for file_name, raw in self.project_configs(unit).items():
            with open(os.path.join(self.units_dir, name, file_name), "wb") as staged:
                staged.write(raw)
        self._configs_staged.add(name)

    def _stage_mypy_config(self, unit: CodeUnit, name: str, file_name: str) -> str:
        """Stage the project's mypy configuration file `file_name` in a folder of its own,
        `<name>.mypy/`, with the plugins it names by path beside it, read as the project's
        other configuration files are (under the gate, as the merge base holds them);
        returns the staged file's absolute path. Mypy imports such a plugin from beside
        its configuration file, in its own process, outside the sandbox: staged beside the
        copy of the code, it would be the code under judgement's own file (the change's,
        under the gate). `Undecidable` for a plugin that is not a file of the project."""
        folder = project_folder(unit)
        target = os.path.join(self.units_dir, f"{name}.mypy")
        raw = self.project_configs(unit)[file_name]
        staged = {file_name: raw}
        for plugin in mypy_plugin_files(file_name, raw):
            relative = os.path.normpath(plugin)
            if os.path.isabs(relative) or relative == ".." or relative.startswith("../"):
                raise Undecidable(
                    "checker-failure",
                    f"the mypy plugin {plugin!r} named in {file_name} lies outside the "
                    "project's folder: only a plugin file of the project can be read",
                )
            try:
                data = None if folder is None else self._read_config(folder / relative)
            except Exception as exc:  # noqa: BLE001 - git or the disk: no verdict
                raise Undecidable(
                    "checker-failure", f"cannot read the mypy plugin {plugin!r}: {exc}"
                ) from None
            if data is None:
                raise Undecidable(
                    "checker-failure",
                    f"the mypy plugin {plugin!r} named in {file_name} is not in the project",
                )
            staged[relative] = data
        for relative, data in staged.items():
            path = os.path.join(target, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
        return os.path.join(target, file_name)

    def suppressions(self, unit: CodeUnit) -> list[tuple[str, Suppression]]:
        """The unit's suppression comments as (relative path, suppression)."""
        if unit.key not in self._suppressions:
            self._suppressions[unit.key] = [
                (source.relpath, item)
                for source in unit.files
                for item in (
                    find_js_suppressions(source)
                    if source.language in JS_FAMILY
                    else find_suppressions(source.text)
                    if source.language == PYTHON.name
                    else []
                )
            ]
        return self._suppressions[unit.key]

    def close(self) -> None:
        """Wait for running batches and background removals (the work dir goes next)."""
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
        for removal in self._removals:
            removal.join()


def _reported_files(
    run: ToolRun | NodeRun, staged: dict[str, SourceFile], prefix: str
) -> dict[str, list[Finding]] | Undecidable:
    """The run's findings about one unit's files (`staged`: staged path -> file; its
    paths start with `prefix` in a shared run), keyed by staged path. A tool names a file
    whose name is not UTF-8 with U+FFFD for each undecodable byte (ruff): such a name
    is matched to the one file whose name reads the same so. A finding about a file the
    unit does not hold is never dropped: the run is `Undecidable` for the unit."""
    lossy: dict[str, list[str]] = {}
    for path in staged:
        lossy.setdefault(os.fsencode(path).decode("utf-8", "replace"), []).append(path)
    found: dict[str, list[Finding]] = {}
    for path, findings in run.by_file.items():
        if not path.startswith(prefix):
            continue
        named = path if path in staged else None
        if named is None and len(lossy.get(path, ())) == 1:
            named = lossy[path][0]
        if named is None:
            return Undecidable(
                "checker-failure",
                f"the tool reported {len(findings)} finding(s) for {path!r}, which the code "
                "does not hold under that name (a file name that is not UTF-8?): rename it",
            )
        found.setdefault(named, []).extend(findings)
    return found


def _staged_path(name: str, source: SourceFile) -> str:
    """Where `_stage` put `source` of `unit`, relative to the staging dir."""
    return f"{name}/{source.relpath}"


def _run_batch(
    config: ToolConfig,
    units: list[CodeUnit],
    names: dict[str, str],
    root: Path,
    workdir: Path,
    *,
    chosen: dict[str, str | None] | None = None,
) -> _BatchResult:
    """Run the tool of `config` over `units`, staged under `root` by `names`; `chosen`
    names each project's own configuration file, staged beside it, when `config` reads
    it. Runs in a worker thread: it reads its arguments only and touches no engine state."""
    if isinstance(config, BiomeConfig | TscConfig):
        return _run_node_batch(config, units, names, root, workdir)
    chosen = chosen or {}
    # Ruff and mypy read Python alone (mypy stops on a JavaScript file as on a syntax
    # error): a unit without Python gets no finding from them.
    parts: _BatchResult = [([u for u in units if not _python(u)], ToolRun({}), names)]
    units = [u for u in units if _python(u)]
    if isinstance(config, RuffConfig):
        # A project with its own configuration gets a run rooted at its own folder, where
        # the configuration's paths (`src`, exclusions) mean what they mean there.
        own = [u for u in units if chosen.get(u.key) is not None]
        shared = [u for u in units if chosen.get(u.key) is None]
        if shared:
            files = [_staged_path(names[u.key], f) for u in shared for f in _python(u)]
            parts.append((shared, run_ruff(config, root, files), names))
        for project in own:
            folder = root / names[project.key]
            files = [f.relpath for f in _python(project)]
            run = run_ruff(config, folder, files, chosen[project.key])
            parts.append(([project], run, None))
        return parts
    # Single modules share one mypy run: each sits in its own namespace package
    # (`<key>/solution.py`), so module names never collide. A project imports its own
    # top-level modules, so it gets a run rooted at its own folder.
    singles = [u for u in units if not u.is_project]
    if singles:
        files = [_staged_path(names[u.key], u.files[0]) for u in singles]
        run = run_mypy(config, root, files, workdir)
        if run.blocking and len(singles) > 1:
            # One unit stopped mypy for all: check each alone, so it spoils only itself.
            for unit, alone in zip(singles, files, strict=True):
                parts.append(([unit], run_mypy(config, root, [alone], workdir), names))
        else:
            parts.append((singles, run, names))
    for project in (u for u in units if u.is_project):
        folder = root / names[project.key]
        files = [f.relpath for f in _python(project)]
        run = run_mypy(config, folder, files, workdir, chosen.get(project.key))
        parts.append(([project], run, None))
    return parts


def _python(unit: CodeUnit) -> tuple[SourceFile, ...]:
    """The unit's Python files, which ruff and mypy read."""
    return unit.files_in(PYTHON.name)


def _blanked_kinds(config: ToolConfig) -> frozenset[str]:
    """The suppression comments blanked out of the copy `config`'s tool reads (none
    when the task allows them, or for ruff, which is told to disregard `# noqa`)."""
    if isinstance(config, MypyConfig) and not config.honor_ignores:
        return MYPY_KINDS
    if isinstance(config, BiomeConfig) and not config.honor_ignores:
        return BIOME_KINDS
    if isinstance(config, TscConfig) and not config.honor_ignores:
        return TSC_KINDS
    return frozenset()


def _declarations(unit: CodeUnit) -> list[OtherFile]:
    """A project's TypeScript declaration files (`.d.ts`): not source, but part of what
    the compiler reads."""
    return [
        other
        for other in unit.other_files
        if other.relpath.endswith(TYPESCRIPT.not_source) and other.text is not None
    ]


def _file_error(run: NodeRun, staged: dict[str, SourceFile]) -> Undecidable | None:
    """The first file of one unit (`staged`: staged path -> file) the run could not
    judge, as the unit's error; None when it judged them all."""
    for path, source in staged.items():
        found = run.file_errors.get(path)
        if found is not None:
            kind, why = found
            shown = source.relpath if source.relpath.isprintable() else repr(source.relpath)
            return Undecidable(kind, f"{shown}: {why}")
    return None


def _run_node_batch(
    config: BiomeConfig | TscConfig,
    units: list[CodeUnit],
    names: dict[str, str],
    root: Path,
    workdir: Path,
) -> _BatchResult:
    """Biome over every unit's JavaScript and TypeScript in one run (`_run_tsc_batch`
    for the compiler). A run that crashes is run again on each half of its units, down
    to the unit that crashes it. A single unit's `.ts` that reads only as TSX is linted
    as a `.tsx` copy (see `_as_tsx`)."""
    if isinstance(config, TscConfig):
        return _run_tsc_batch(config, units, names, root, workdir)
    parts: _BatchResult = [([u for u in units if not _js(u)], NodeRun({}), names)]
    tsx = {u.key: _as_tsx(u, root / names[u.key]) for u in units if not u.is_project}

    def lint(group: list[CodeUnit]) -> NodeRun:
        files = [
            f"{names[u.key]}/{tsx.get(u.key, {}).get(f.relpath, f.relpath)}"
            for u in group
            for f in _js(u)
        ]
        return _back_from_tsx(run_biome(config, root, files, workdir), group, tsx, names)

    judged = [u for u in units if _js(u)]
    parts.extend((group, run, names) for group, run in _halved(lint, judged))
    return parts


def _run_tsc_batch(
    config: TscConfig,
    units: list[CodeUnit],
    names: dict[str, str],
    root: Path,
    workdir: Path,
) -> _BatchResult:
    """The compiler over every single unit's TypeScript in one program, each project in
    a program of its own (rooted at its folder: it imports its own files), and an answer
    that reaches into the whole program's declarations (`program_wide`) alone: all the
    programs in one process. A single unit's `.ts` that reads only as TSX (a response's
    tsx block) is checked as a `.tsx` copy, the compiler's one way to read JSX."""
    parts: _BatchResult = [([u for u in units if not _ts(u)], NodeRun({}), names)]
    typed = [u for u in units if _ts(u)]
    tsx = {u.key: _as_tsx(u, root / names[u.key]) for u in typed if not u.is_project}
    singles = [u for u in typed if not u.is_project and not _reaches_out(u)]
    alone = [u for u in typed if u.is_project or _reaches_out(u)]

    def read_as(unit: CodeUnit, source: SourceFile) -> str:
        return tsx.get(unit.key, {}).get(source.relpath, source.relpath)

    def program(group: list[CodeUnit]) -> TscProgram:
        """One program for answers side by side, files relative to the staging dir."""
        return TscProgram(
            root, tuple(f"{names[u.key]}/{read_as(u, f)}" for u in group for f in _ts(u))
        )

    def own(unit: CodeUnit) -> TscProgram:
        """A program of its own, rooted at the unit's folder (a project imports its own
        files by their paths there)."""
        return TscProgram(
            root / names[unit.key],
            tuple(read_as(unit, f) for f in _ts(unit)),
            tuple(f.relpath for f in _declarations(unit)),
            singles=not unit.is_project,
        )

    def check(group: list[CodeUnit]) -> NodeRun:
        return _back_from_tsx(run_tsc(config, [program(group)], workdir)[0], group, tsx, names)

    groups: list[list[CodeUnit]] = ([singles] if singles else []) + [[u] for u in alone]
    programs = ([program(singles)] if singles else []) + [own(u) for u in alone]
    runs = run_tsc(config, programs, workdir) if programs else []
    died = len(runs) > 1 and all(run.crashed for run in runs)
    for group, each, first in zip(groups, programs, runs, strict=True):
        # The whole process died: each program again on its own.
        run = run_tsc(config, [each], workdir)[0] if first.crashed and died else first
        if run.crashed and len(group) > 1:
            parts.extend((half, done, names) for half, done in _halved(check, group))
            continue
        shared = each.root == root
        run = _back_from_tsx(run, group, tsx, names if shared else None)
        parts.append((group, run, names if shared else None))
    return parts


def _as_tsx(unit: CodeUnit, folder: Path) -> dict[str, str]:
    """A single unit's `.ts` files that read only as TSX, each copied beside itself as
    `.tsx` in its staged `folder`: relpath -> the copy's relpath. Runs in a batch's
    thread, before its run; the staged copies outlive every running batch."""
    from pytest_codeif.code.js_tree import JsModule  # noqa: PLC0415 - ast-grep loads late

    copies: dict[str, str] = {}
    for source in _ts(unit):
        if not source.relpath.endswith(".ts") or "<" not in source.text:
            continue
        try:
            grammar = JsModule(source).grammar
        except Undecidable:
            continue
        if grammar == "tsx":
            copies[source.relpath] = copy = source.relpath + "x"
            # Copied aside and renamed: Biome's batch and the compiler's may both make
            # it at once, and neither tool may read a half-written file.
            aside = folder / f"{copy}.{os.getpid()}.{threading.get_ident()}"
            shutil.copyfile(folder / source.relpath, aside)
            os.replace(aside, folder / copy)
    return copies


def _back_from_tsx(
    run: NodeRun,
    group: list[CodeUnit],
    tsx: dict[str, dict[str, str]],
    names: dict[str, str] | None,
) -> NodeRun:
    """`run` (of `group`'s units, its paths relative to the staging dir by `names`, or
    None: to one unit's folder) with the `.tsx` copies' paths back to the files they
    stand for."""
    back: dict[str, str] = {}
    for unit in group:
        prefix = f"{names[unit.key]}/" if names is not None else ""
        for relpath, copy in tsx.get(unit.key, {}).items():
            back[prefix + copy] = prefix + relpath
    if not back:
        return run
    return replace(
        run,
        by_file={back.get(path, path): found for path, found in run.by_file.items()},
        file_errors={back.get(path, path): why for path, why in run.file_errors.items()},
    )


def _halved(
    run: Callable[[list[CodeUnit]], NodeRun], units: list[CodeUnit]
) -> list[tuple[list[CodeUnit], NodeRun]]:
    """`run` over `units`; when it crashes, over each half again, so that a unit that
    crashes the tool spoils only itself."""
    if not units:
        return []
    done = run(units)
    if not done.crashed or len(units) == 1:
        return [(units, done)]
    middle = len(units) // 2
    return _halved(run, units[:middle]) + _halved(run, units[middle:])


def _js(unit: CodeUnit) -> list[SourceFile]:
    """The unit's JavaScript and TypeScript files, which Biome reads."""
    return [f for f in unit.files if f.language in JS_FAMILY]


def _ts(unit: CodeUnit) -> tuple[SourceFile, ...]:
    """The unit's TypeScript files, which the compiler checks."""
    return unit.files_in(TYPESCRIPT.name)


def _reaches_out(unit: CodeUnit) -> bool:
    """Whether one of the unit's TypeScript files could change how others check."""
    return any(program_wide(f.text) for f in _ts(unit))

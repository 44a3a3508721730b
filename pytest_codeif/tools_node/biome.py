"""Biome's lint runs: its configuration as a task gives it, its rules, and one `biome
lint` over many files.

Biome reads a `biome.json` of ours (`--config-path`, outside the code's folder: a
`biome.json` planted beside the code is never read), which turns off everything of its
own discovery (version control, ignore files, the formatter).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Final

from pytest_codeif.outcome import ErrorKind, Finding
from pytest_codeif.tools_node.found import (
    BIOME_PACKAGE,
    biome_binary,
    biome_package,
    missing_tool_message,
)
from pytest_codeif.tools_node.runs import (
    BIOME_BREAKS,
    NodeRun,
    Positions,
    config_folder,
    numbers,
    relative,
    run,
    sorted_findings,
    tail,
    utf8_name,
)

#: How Biome's own messages mark an error line.
_ERROR_MARK: Final = "\u00d7"
#: Why a file whose name is not UTF-8 has no verdict.
_UNNAMED: Final[tuple[ErrorKind, str]] = (
    "checker-failure",
    "Biome cannot read a file whose name is not UTF-8: rename it",
)
#: Biome skips larger files (its default is 1 MiB); a unit's file holds at most 2 MB of
#: characters, up to four bytes each.
_BIOME_MAX_SIZE: Final = 16 * 1024 * 1024


@dataclass(frozen=True)
class BiomeConfig:
    """Biome lint settings: the selectors run (`--only`, none: the preset's rules) and
    skipped (`--skip`), the preset (`none`, `recommended`, `all`), and other
    `biome.json` settings as sorted (dotted key, JSON value) pairs."""

    only: tuple[str, ...]
    skip: tuple[str, ...] = ()
    settings: tuple[tuple[str, str], ...] = ()
    preset: str = "none"
    honor_ignores: bool = False  # the task lets `// biome-ignore` comments hide findings
    #: Never set: the engine's batches ask it of every configuration (the project's own
    #: configuration is not read for Biome).
    project: bool = False


#: Biome's rule groups, as `--only` and `biome-ignore` name them.
BIOME_GROUPS: Final = (
    "a11y",
    "complexity",
    "correctness",
    "nursery",
    "performance",
    "security",
    "style",
    "suspicious",
)


@dataclass(frozen=True)
class BiomeRules:
    """The installed Biome's rules (name -> group) and rule domains."""

    groups: Mapping[str, str]
    domains: frozenset[str]


def biome_rules() -> BiomeRules | None:
    """The installed Biome's rules, read from its configuration schema (None: Biome is
    not installed from npm, so names are not known ahead of a run)."""
    package = biome_package()
    return None if package is None else _rules_in(package / "configuration_schema.json")


@cache
def _rules_in(schema_path: Path) -> BiomeRules | None:
    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        defs = schema.get("$defs") or schema.get("definitions") or {}
        groups = {
            rule: group
            for group in BIOME_GROUPS
            for rule in defs[group[0].upper() + group[1:]]["properties"]
            if rule != "recommended"
        }
        domains = frozenset(defs.get("RuleDomains", {}).get("properties", {}))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return BiomeRules(groups, domains)


def biome_configuration(config: BiomeConfig) -> dict[str, Any]:
    """The whole `biome.json` of a run: nothing of Biome's own discovery (no version
    control, no ignore files, no formatter), only the linter with the task's settings.
    Parameter decorators (`constructor(@Inject() x)`, NestJS's and TypeORM's) parse:
    TypeScript's `experimentalDecorators` code is code as written, not a syntax error."""
    document: dict[str, Any] = {
        "root": True,
        "vcs": {"enabled": False},
        "files": {"ignoreUnknown": True, "maxSize": _BIOME_MAX_SIZE},
        "formatter": {"enabled": False},
        "assist": {"enabled": False},
        "linter": {"enabled": True, "rules": {"preset": config.preset}},
        "javascript": {"parser": {"unsafeParameterDecoratorsEnabled": True}},
    }
    for key, value in config.settings:
        *parents, last = key.split(".")
        here = document
        for part in parents:
            child = here.setdefault(part, {})
            if not isinstance(child, dict):
                child = here[part] = {}
            here = child
        here[last] = json.loads(value)
    # A rule given options alone (`...noExcessiveCognitiveComplexity.options.x: 3`) is
    # on: Biome wants a level beside them. Which rules run is said by `--only` anyway.
    rules = document["linter"].get("rules")
    for group in rules.values() if isinstance(rules, dict) else ():
        for rule in group.values() if isinstance(group, dict) else ():
            if isinstance(rule, dict) and "options" in rule:
                rule.setdefault("level", "on")
    return document


def run_biome(config: BiomeConfig, root: Path, files: Sequence[str], workdir: Path) -> NodeRun:
    """Run `biome lint` once on `files` (relative to `root`) with only `config`'s
    settings, written to a `biome.json` of ours in a folder of `workdir`. Biome runs in
    that folder and reads the files through a link to `root` in it: it applies a
    configuration's parser settings only to files below the configuration's folder. A
    file whose name is not UTF-8 is not given to Biome (it stops the whole run on one):
    it has no verdict."""
    binary = biome_binary()
    if binary is None:
        return NodeRun({}, missing_tool_message("Biome", BIOME_PACKAGE), "missing-tool")
    unnamed = {name: _UNNAMED for name in files if not utf8_name(name)}
    files = [name for name in files if name not in unnamed]
    if not files:
        return NodeRun({}, file_errors=unnamed)
    config_dir = config_folder(workdir, "biome", "biome.json", biome_configuration(config))
    code = _linked(config_dir, root)
    cmd = [binary, "lint", f"--config-path={config_dir}", "--reporter=json"]
    cmd += ["--max-diagnostics=none", "--diagnostic-level=info", "--colors=off"]
    cmd += [f"--only={selector}" for selector in config.only]
    cmd += [f"--skip={selector}" for selector in config.skip]
    cmd += ["--", *(f"{code}/{name}" for name in files)]
    proc = run(cmd, config_dir)
    if isinstance(proc, str):
        return NodeRun({}, proc)
    try:
        report = json.loads(proc.stdout)
        diagnostics = report["diagnostics"]
    except (ValueError, KeyError, TypeError):
        return _biome_refused(proc)
    found = _biome_findings(diagnostics, root, f"{code}/")
    return replace(found, file_errors={**unnamed, **found.file_errors}) if unnamed else found


def _linked(config_dir: Path, root: Path) -> str:
    """The name of a link, in `config_dir`, to `root` (made once; one per root)."""
    name = "code-" + hashlib.sha256(os.fsencode(root)).hexdigest()[:12]
    link = config_dir / name
    if not link.is_symlink():
        with contextlib.suppress(FileExistsError):  # another thread made it first
            os.symlink(root.resolve(), link, target_is_directory=True)
    return name


def _biome_refused(proc: subprocess.CompletedProcess[str]) -> NodeRun:
    """A Biome run that printed no report: the task's settings refused (said by its
    error lines, marked with U+00D7, the generic last one left out), or a crash."""
    text = proc.stderr or proc.stdout
    said = tail(text)
    if "configuration" in said.lower() or "couldn't parse" in said.lower():
        errors = [
            line.strip().removeprefix(_ERROR_MARK).strip()
            for line in text.splitlines()
            if line.strip().startswith(_ERROR_MARK) and "exited because" not in line
        ]
        why = "; ".join(errors[:5]) or said
        return NodeRun({}, f"Biome refused the task's settings: {why}", "invalid-task")
    return NodeRun({}, f"biome exited with {proc.returncode}: {said}", crashed=True)


def _biome_findings(diagnostics: object, root: Path, prefix: str = "") -> NodeRun:
    """Findings of Biome's JSON report: lint diagnostics; a file Biome could not parse
    or read has no verdict; an error about no file (the settings) fails the run."""
    by_file: dict[str, list[Finding]] = {}
    errors: dict[str, tuple[ErrorKind, str]] = {}
    texts = Positions(root)
    for item in diagnostics if isinstance(diagnostics, list) else []:
        if not isinstance(item, dict):
            continue
        category = str(item.get("category") or "")
        # On one line: a message may quote code across lines.
        message = " ".join(str(item.get("message") or "").split())
        location = item.get("location") or {}
        where = location.get("path") if isinstance(location, dict) else None
        start = location.get("start") if isinstance(location, dict) else None
        line, column = numbers(start)
        if not isinstance(where, str) or not where:
            if item.get("severity") == "error":
                kind: ErrorKind = (
                    "invalid-task" if _settings_category(category) else ("checker-failure")
                )
                return NodeRun({}, f"biome: {category}: {message}", kind)
            continue
        path = relative(where, root).removeprefix(prefix)
        if category.startswith("lint/"):
            line, column = texts.relocate(path, line, column, BIOME_BREAKS)
            by_file.setdefault(path, []).append(Finding(message, category, path, line, column))
        elif category == "parse":
            line, _ = texts.relocate(path, line, column, BIOME_BREAKS)
            errors.setdefault(path, ("syntax-error", f"Biome cannot parse line {line}: {message}"))
        elif item.get("severity") == "error" and not category.startswith("suppressions/"):
            errors.setdefault(path, ("checker-failure", f"biome: {category}: {message}"))
    return NodeRun(sorted_findings(by_file), file_errors=errors)


def _settings_category(category: str) -> bool:
    return category.split("/", 1)[0] in ("configuration", "deserialize", "flags")

"""Biome and the TypeScript compiler, each run once per distinct configuration over many
JavaScript and TypeScript files, as `tools.py` runs ruff and mypy for Python.

Where the tools are: the folder named by `CODEIF_NODE_TOOLS` (holding `node_modules/`,
as `npm install @biomejs/biome typescript @types/node` leaves it), else the `biome` and
`tsc` found on `PATH` (their npm package folders are found through the links). A tool
that is not there is a `missing-tool` error naming its npm package, never a pass.

Both tools get their whole configuration from the task: Biome reads a `biome.json` of
ours (`--config-path`, outside the code's folder: a `biome.json` planted beside the code
is never read), and the compiler is driven through its API by a small Node script of
ours (`_TSC_SCRIPT`) with our compiler options, never a `tsconfig.json` of the code's.
That script runs the program `tsc --noEmit` would build, with two differences that
matter for many files at once: every file's syntax *and* type errors are asked for (the
`tsc` command reports none of the type errors of any file once one file of the program
has a syntax error), and the compiler reads no file outside the staged code and the
tools' own folder (a `/// <reference path="/etc/...">` or an import of an absolute path
finds nothing, and no `node_modules` above the staged code is searched).

Positions come back as the rest of pytest-codeif counts them: lines split at `\\n`
alone, columns in characters (1-based). Biome counts `\\r` as a line break and the
compiler `\\r` and U+2028 too, and the compiler's columns are UTF-16 units: both are
mapped, from the text the tool read.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from pytest_codeif.outcome import ErrorKind, Finding

#: The folder holding `node_modules/` with Biome, TypeScript and Node's types.
NODE_TOOLS_ENV: Final = "CODEIF_NODE_TOOLS"
BIOME_PACKAGE: Final = "@biomejs/biome"
TYPESCRIPT_PACKAGE: Final = "typescript"
NODE_TYPES_PACKAGE: Final = "@types/node"
#: How long one batched run may take before it is reported as a checker failure.
NODE_TOOL_TIMEOUT: Final = 600.0
#: Biome skips larger files (its default is 1 MiB); a unit's file holds at most 2 MB of
#: characters, up to four bytes each.
_BIOME_MAX_SIZE: Final = 16 * 1024 * 1024
_INSTALL: Final = (
    "install it with npm (`npm install {packages}`) and put its node_modules/.bin on "
    f"PATH, or set {NODE_TOOLS_ENV} to the folder holding that node_modules"
)


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


@dataclass(frozen=True)
class TscConfig:
    """TypeScript compiler options (as in `tsconfig.json`'s `compilerOptions`) as
    sorted (name, JSON value) pairs, on top of `TSC_DEFAULTS`."""

    options: tuple[tuple[str, str], ...]
    ignore_missing_imports: bool = False  # an import nothing resolves is `any`
    honor_ignores: bool = False  # the task allows `// @ts-ignore` and its kin
    #: Never set: the project's own `tsconfig.json` is not read (see `BiomeConfig`).
    project: bool = False

    @classmethod
    def from_mapping(
        cls,
        options: Mapping[str, Any],
        *,
        ignore_missing_imports: bool = False,
        honor_ignores: bool = False,
    ) -> TscConfig:
        pairs = tuple(sorted((k, json.dumps(v)) for k, v in options.items()))
        return cls(pairs, ignore_missing_imports, honor_ignores)


#: Compiler options of every run unless the task sets them: lenient where code that
#: runs is not at fault (the newest library, the DOM and Node's types, JSON imports,
#: imports without extensions, JSX read as written), `strict` off as mypy's default.
TSC_DEFAULTS: Final[Mapping[str, Any]] = {
    "target": "es2022",
    "lib": ["esnext", "dom", "dom.iterable"],
    "module": "esnext",
    "moduleResolution": "bundler",
    "strict": False,
    "esModuleInterop": True,
    "resolveJsonModule": True,
    "allowImportingTsExtensions": True,
    "jsx": "preserve",
}
#: Compiler options no task changes: no output, declaration files unchecked, the
#: types of Node from the tools' own folder (none from the code's), JavaScript read for
#: its types (imports of it) but not checked.
_TSC_FIXED: Final[Mapping[str, Any]] = {
    "noEmit": True,
    "skipLibCheck": True,
    "allowJs": True,
    "checkJs": False,
    "types": ["node"],
    "incremental": False,
    "composite": False,
}


@dataclass(frozen=True)
class NodeRun:
    """Diagnostics of one batched run, keyed by file path relative to the run's root."""

    by_file: dict[str, list[Finding]]
    #: The run gave no verdict for anyone (the tool is missing, crashed, timed out, or
    #: refused the task's settings: `failure_kind` says which).
    failure: str | None = None
    failure_kind: ErrorKind = "checker-failure"
    #: Files the tool could not judge (path -> (kind, why)): their units get no verdict.
    file_errors: dict[str, tuple[ErrorKind, str]] = field(default_factory=dict)
    #: The run failed as a whole in a way one file may have caused: run the files
    #: again in smaller batches, so that it spoils only its own unit.
    crashed: bool = False


# -- where the tools are ------------------------------------------------------------


def _env_modules() -> Path | None:
    """`$CODEIF_NODE_TOOLS/node_modules`, when the variable is set."""
    folder = os.environ.get(NODE_TOOLS_ENV)
    return Path(folder) / "node_modules" if folder else None


def _modules_of(binary: Path) -> Path | None:
    """The `node_modules` folder a resolved binary sits in, if any."""
    for parent in binary.parents:
        if parent.name == "node_modules":
            return parent
    return None


def _biome_native(modules: Path) -> str | None:
    """The platform's native Biome binary in `modules` (the npm package's launcher
    starts it through Node, which costs a process and `ldd` on every run)."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform)
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower()
    )
    if system is None or machine is None:
        return None
    name = "biome.exe" if system == "win32" else "biome"
    for suffix in ("", "-musl"):
        candidate = modules / "@biomejs" / f"cli-{system}-{machine}{suffix}" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def biome_binary() -> str | None:
    """The Biome executable to run (None: not installed)."""
    env = _env_modules()
    if env is not None:
        launcher = env / "@biomejs" / "biome" / "bin" / "biome"
        found = _biome_native(env) or (str(launcher) if launcher.is_file() else None)
        if found is not None:
            return found
    on_path = shutil.which("biome")
    if on_path is None:
        return None
    real = Path(on_path).resolve()
    modules = _modules_of(real)
    return (_biome_native(modules) if modules is not None else None) or str(real)


def _biome_package() -> Path | None:
    """The `@biomejs/biome` package folder of the Biome that runs (None: a standalone
    binary, or none)."""
    binary = biome_binary()
    modules = _modules_of(Path(binary)) if binary is not None else None
    folder = modules / "@biomejs" / "biome" if modules is not None else None
    return folder if folder is not None and (folder / "package.json").is_file() else None


def typescript_package() -> Path | None:
    """The `typescript` package folder (None: not installed)."""
    env = _env_modules()
    if env is not None and (env / TYPESCRIPT_PACKAGE / "package.json").is_file():
        return (env / TYPESCRIPT_PACKAGE).resolve()
    on_path = shutil.which("tsc")
    if on_path is None:
        return None
    folder = Path(on_path).resolve().parent.parent
    return folder if _package_name(folder) == TYPESCRIPT_PACKAGE else None


def _package_name(folder: Path) -> str | None:
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = manifest.get("name") if isinstance(manifest, dict) else None
    return name if isinstance(name, str) else None


def _package_version(folder: Path | None) -> str:
    if folder is None:
        return "not installed"
    try:
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unknown"
    found = manifest.get("version") if isinstance(manifest, dict) else None
    return found if isinstance(found, str) else "unknown"


@dataclass(frozen=True)
class TscTools:
    """What a compiler run needs: Node, the `typescript` package, Node's types."""

    node: str
    typescript: Path
    types_root: Path  # the `@types` folder holding `node`


def tsc_tools() -> TscTools | str:
    """The compiler's pieces, or why they are missing (naming what to install)."""
    node = shutil.which("node") or shutil.which("nodejs")  # Debian's name too
    typescript = typescript_package()
    if typescript is None:
        return missing_tool_message("the TypeScript compiler", "typescript @types/node")
    types_root = typescript.parent / "@types"
    if not (types_root / "node" / "package.json").is_file():
        return missing_tool_message("Node's types (@types/node)", "@types/node")
    if node is None:
        return "node (Node.js) is not on PATH: the TypeScript compiler runs on it"
    return TscTools(node, typescript, types_root)


def missing_tool_message(what: str, packages: str) -> str:
    """Why a check cannot run: `what` is missing, installed by npm's `packages`."""
    return f"{what} is not installed: {_INSTALL.format(packages=packages)}"


def biome_missing() -> str | None:
    """Why Biome cannot run here, or None."""
    if biome_binary() is None:
        return missing_tool_message("Biome", BIOME_PACKAGE)
    return None


def tsc_missing() -> str | None:
    """Why the TypeScript compiler cannot run here, or None."""
    found = tsc_tools()
    return found if isinstance(found, str) else None


def node_tool_versions() -> dict[str, str]:
    """Versions of the Node tools that decide verdicts (package manifests: no process,
    but for a standalone Biome binary, asked once)."""
    typescript = typescript_package()
    types = typescript.parent / "@types" / "node" if typescript is not None else None
    return {
        "biome": _biome_version(),
        "typescript": _package_version(typescript),
        "@types/node": _package_version(types if types and types.is_dir() else None),
    }


def _biome_version() -> str:
    package = _biome_package()
    if package is not None:
        return _package_version(package)
    binary = biome_binary()
    return "not installed" if binary is None else _asked_version(binary)


@cache
def _asked_version(binary: str) -> str:
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.strip().rsplit(" ", 1)[-1] or "unknown"


# -- Biome's rules ------------------------------------------------------------------

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
    package = _biome_package()
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


# -- running Biome ------------------------------------------------------------------


def biome_configuration(config: BiomeConfig) -> dict[str, Any]:
    """The whole `biome.json` of a run: nothing of Biome's own discovery (no version
    control, no ignore files, no formatter), only the linter with the task's settings."""
    document: dict[str, Any] = {
        "root": True,
        "vcs": {"enabled": False},
        "files": {"ignoreUnknown": True, "maxSize": _BIOME_MAX_SIZE},
        "formatter": {"enabled": False},
        "assist": {"enabled": False},
        "linter": {"enabled": True, "rules": {"preset": config.preset}},
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
    return document


def run_biome(config: BiomeConfig, root: Path, files: Sequence[str], workdir: Path) -> NodeRun:
    """Run `biome lint` once on `files` (relative to `root`) with only `config`'s
    settings, written to a `biome.json` of ours in `workdir`."""
    binary = biome_binary()
    if binary is None:
        return NodeRun({}, missing_tool_message("Biome", BIOME_PACKAGE), "missing-tool")
    config_dir = _written(workdir, "biome", "biome.json", biome_configuration(config))
    cmd = [binary, "lint", f"--config-path={config_dir}", "--reporter=json"]
    cmd += ["--max-diagnostics=none", "--diagnostic-level=info", "--colors=off"]
    cmd += [f"--only={selector}" for selector in config.only]
    cmd += [f"--skip={selector}" for selector in config.skip]
    cmd += ["--", *files]
    proc = _run(cmd, root)
    if isinstance(proc, str):
        return NodeRun({}, proc)
    try:
        report = json.loads(proc.stdout)
        diagnostics = report["diagnostics"]
    except (ValueError, KeyError, TypeError):
        return _biome_refused(proc)
    return _biome_findings(diagnostics, root)


def _biome_refused(proc: subprocess.CompletedProcess[str]) -> NodeRun:
    """A Biome run that printed no report: the task's settings refused, or a crash."""
    said = _tail(proc.stderr or proc.stdout)
    if "configuration" in said.lower() or "couldn't parse" in said.lower():
        return NodeRun({}, f"Biome refused the task's settings: {said}", "invalid-task")
    return NodeRun({}, f"biome exited with {proc.returncode}: {said}", crashed=True)


def _biome_findings(diagnostics: object, root: Path) -> NodeRun:
    """Findings of Biome's JSON report: lint diagnostics; a file Biome could not parse
    or read has no verdict; an error about no file (the settings) fails the run."""
    by_file: dict[str, list[Finding]] = {}
    errors: dict[str, tuple[ErrorKind, str]] = {}
    texts = _Texts(root)
    for item in diagnostics if isinstance(diagnostics, list) else []:
        if not isinstance(item, dict):
            continue
        category = str(item.get("category") or "")
        message = str(item.get("message") or "")
        location = item.get("location") or {}
        where = location.get("path") if isinstance(location, dict) else None
        start = location.get("start") if isinstance(location, dict) else None
        line, column = _numbers(start)
        if not isinstance(where, str) or not where:
            if item.get("severity") == "error":
                kind: ErrorKind = (
                    "invalid-task" if _settings_category(category) else ("checker-failure")
                )
                return NodeRun({}, f"biome: {category}: {message}", kind)
            continue
        path = _relative(where, root)
        if category.startswith("lint/"):
            line, column = texts.relocate(path, line, column, _BIOME_BREAKS)
            by_file.setdefault(path, []).append(Finding(message, category, path, line, column))
        elif category == "parse":
            line, _ = texts.relocate(path, line, column, _BIOME_BREAKS)
            errors.setdefault(path, ("syntax-error", f"Biome cannot parse line {line}: {message}"))
        elif item.get("severity") == "error" and not category.startswith("suppressions/"):
            errors.setdefault(path, ("checker-failure", f"biome: {category}: {message}"))
    return NodeRun(by_file, file_errors=errors)


def _settings_category(category: str) -> bool:
    return category.split("/", 1)[0] in ("configuration", "deserialize", "flags")


# -- running the TypeScript compiler ------------------------------------------------

#: Builds each program of the request (see the module docstring and `run_tsc`) and
#: prints {programs: [{config: [...], options: [...], global: [...], crash: ..., files:
#: {name: [[line, column, code, message], ...] | null}}]} as JSON; `null`: the compiler
#: did not read the file. The tools' own declaration files (the libraries, Node's
#: types), the bulk of every program, are parsed once for all the programs.
_TSC_SCRIPT: Final = r"""
"use strict";
const fs = require("fs");
const path = require("path");
const [tsDir, requestPath] = process.argv.slice(1);
const ts = require(tsDir);
const request = JSON.parse(fs.readFileSync(requestPath, "utf8"));
const text = (d) => ts.flattenDiagnosticMessageText(d.messageText, "\n");
const errors = (list) => list.filter((d) => d.category === ts.DiagnosticCategory.Error);
const under = (roots, name) => {
  const full = path.resolve(String(name));
  return roots.some((root) => full === root || full.startsWith(root + path.sep));
};
const shared = request.shared.map((p) => path.resolve(p));
const parsed = new Map();

function where(file, offset, starts) {
  if (typeof offset !== "number") return [null, null];
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return [low + 1, Array.from(file.text.slice(starts[low], offset)).length + 1];
}

function check(job) {
  const result = { config: [], options: [], global: [], crash: null, files: {} };
  const converted = ts.convertCompilerOptionsFromJson(job.options, job.base);
  if (converted.errors.length) {
    result.config = converted.errors.map(text);
    return result;
  }
  const readable = job.readable.map((p) => path.resolve(p));
  const host = ts.createCompilerHost(converted.options, true);
  const guard = (method, denied) => {
    const original = host[method].bind(host);
    host[method] = (name, ...rest) => (under(readable, name) ? original(name, ...rest) : denied);
  };
  guard("fileExists", false);
  guard("readFile", undefined);
  guard("directoryExists", false);
  guard("getDirectories", []);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    if (!under(readable, name)) return undefined;
    if (!under(shared, name)) return getSourceFile(name, version, ...rest);
    const how = typeof version === "object" ? version : { languageVersion: version };
    const key = [name, how.languageVersion, how.impliedNodeFormat, how.jsDocParsingMode].join("|");
    if (!parsed.has(key)) parsed.set(key, getSourceFile(name, version, ...rest));
    return parsed.get(key);
  };
  if (host.realpath) {
    const realpath = host.realpath.bind(host);
    host.realpath = (name) => (under(readable, name) ? realpath(name) : name);
  }
  const program = ts.createProgram({
    rootNames: [...job.files, ...job.extra],
    options: converted.options,
    host,
  });
  result.options = errors(program.getOptionsDiagnostics()).map(text);
  result.global = errors(program.getGlobalDiagnostics()).map(text);
  for (const name of job.files) {
    const file = program.getSourceFile(name);
    if (!file) {
      result.files[name] = null;
      continue;
    }
    const starts = [0];
    for (let i = file.text.indexOf("\n"); i >= 0; i = file.text.indexOf("\n", i + 1)) {
      starts.push(i + 1);
    }
    const found = [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ];
    const located = (d) => [...where(file, d.start, starts), d.code, text(d)];
    result.files[name] = errors(found).map(located);
  }
  return result;
}

const programs = request.programs.map((job) => {
  try {
    return check(job);
  } catch (error) {
    const said = String((error && error.stack) || error).split("\n").slice(0, 3).join(" | ");
    return { config: [], options: [], global: [], crash: said, files: {} };
  }
});
process.stdout.write(JSON.stringify({ version: ts.version, programs }));
"""

#: Code that reaches past its own module into the whole program's declarations (a
#: global augmentation, a module augmentation, a triple-slash reference, a UMD global):
#: it is checked in a program of its own, never beside other units' code.
_PROGRAM_WIDE: Final = re.compile(
    r"\bdeclare\s+(?:global|module)\b|///\s*<reference\b|\bexport\s+as\s+namespace\b"
)


def program_wide(text: str) -> bool:
    """Whether code with this text could change how other files of its program check."""
    return _PROGRAM_WIDE.search(text) is not None


def tsc_options(config: TscConfig, types_root: Path, *, singles: bool) -> dict[str, Any]:
    """The compiler options of a program: the defaults, the task's, the fixed ones;
    files of single units are each a module of their own (`moduleDetection: force`), so
    that two answers' top-level names never meet, nor an answer's the DOM's globals."""
    options = dict(TSC_DEFAULTS)
    options.update((key, json.loads(value)) for key, value in config.options)
    options.update(_TSC_FIXED)
    options["typeRoots"] = [str(types_root)]
    if singles:
        options["moduleDetection"] = "force"
    return options


@dataclass(frozen=True)
class TscProgram:
    """One compiler program of a run: `files` (relative to `root`) are checked,
    `declarations` (a project's `.d.ts` files) join it unchecked; `singles`: the files
    are answers of their own, never importing each other."""

    root: Path
    files: tuple[str, ...]
    declarations: tuple[str, ...] = ()
    singles: bool = True


def run_tsc(config: TscConfig, programs: Sequence[TscProgram], workdir: Path) -> list[NodeRun]:
    """Check each of `programs` with `config`'s options, all in one Node process (the
    libraries' and Node's declarations parsed once): one run per program, in order. A
    program that crashes the compiler is `crashed`; when the process itself dies, every
    program is."""
    tools = tsc_tools()
    if isinstance(tools, str):
        return [NodeRun({}, tools, "missing-tool") for _ in programs]
    shared = str(tools.typescript.parent.resolve())
    ambient: Path | None = None
    if config.ignore_missing_imports:
        ambient = _written(workdir, "tsc-any", "modules.d.ts", 'declare module "*";\n')
    jobs = []
    for program in programs:
        extra = [str(program.root / name) for name in program.declarations]
        readable = [str(program.root), str(program.root.resolve()), shared]
        if ambient is not None:
            extra.append(str(ambient / "modules.d.ts"))
            readable.append(str(ambient))
        jobs.append(
            {
                "options": tsc_options(config, tools.types_root, singles=program.singles),
                "base": str(program.root),
                "files": [str(program.root / name) for name in program.files],
                "extra": extra,
                "readable": readable,
            }
        )
    handle, request_path = tempfile.mkstemp(prefix="tsc-", suffix=".json", dir=workdir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as written:
            json.dump({"programs": jobs, "shared": [shared]}, written)
        cmd = [tools.node, "-e", _TSC_SCRIPT, str(tools.typescript), request_path]
        proc = _run(cmd, workdir)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(request_path)
    if isinstance(proc, str):
        return [NodeRun({}, proc) for _ in programs]
    try:
        reports = json.loads(proc.stdout)["programs"]
        if not isinstance(reports, list) or len(reports) != len(programs):
            raise ValueError("not one report per program")
    except (ValueError, KeyError, TypeError):
        said = f"the TypeScript compiler failed: {_tail(proc.stderr or proc.stdout)}"
        return [NodeRun({}, said, crashed=True) for _ in programs]
    pairs = zip(reports, programs, strict=True)
    return [_tsc_run(report, program.root) for report, program in pairs]


def _tsc_run(report: Mapping[str, Any], root: Path) -> NodeRun:
    """One program's report as a run."""
    if report.get("crash"):
        return NodeRun({}, f"the TypeScript compiler crashed: {report['crash']}", crashed=True)
    refused = [*report.get("config", []), *report.get("options", [])]
    if refused:
        said = "; ".join(map(str, refused))
        return NodeRun({}, f"the compiler options are refused: {said}", "invalid-task")
    if report.get("global"):
        said = "; ".join(map(str, report["global"]))
        return NodeRun({}, f"the TypeScript compiler: {said}")
    return _tsc_findings(report.get("files"), root)


def _tsc_findings(checked: object, root: Path) -> NodeRun:
    by_file: dict[str, list[Finding]] = {}
    errors: dict[str, tuple[ErrorKind, str]] = {}
    for name, found in checked.items() if isinstance(checked, dict) else ():
        path = _relative(str(name), root)
        if found is None:
            errors[path] = ("checker-failure", "the TypeScript compiler did not read the file")
            continue
        for line, column, code, message in found:
            rule = f"TS{code}"
            words = " ".join(part.strip() for part in str(message).splitlines() if part.strip())
            by_file.setdefault(path, []).append(Finding(words, rule, path, line, column))
    return NodeRun(by_file, file_errors=errors)


# -- shared -------------------------------------------------------------------------

#: Biome's line breaks (`\r\n`, `\r`, `\n`; not U+2028).
_BIOME_BREAKS: Final = re.compile(r"\r\n|\r|\n")
_NEWLINE: Final = re.compile(r"\n")


class _Texts:
    """The staged files a run read, for mapping its positions back (read once each)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._starts: dict[tuple[str, str], list[int] | None] = {}
        self._texts: dict[str, str | None] = {}

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            try:
                self._texts[path] = (self._root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts[path] = None
        return self._texts[path]

    def _line_starts(self, path: str, breaks: re.Pattern[str]) -> list[int] | None:
        key = (path, breaks.pattern)
        if key not in self._starts:
            text = self._text(path)
            self._starts[key] = (
                None if text is None else [0, *(m.end() for m in breaks.finditer(text))]
            )
        return self._starts[key]

    def relocate(
        self, path: str, line: int | None, column: int | None, breaks: re.Pattern[str]
    ) -> tuple[int | None, int | None]:
        """(line, column) counted with `breaks` as the tool did -> counted at `\\n`."""
        theirs = self._line_starts(path, breaks)
        ours = self._line_starts(path, _NEWLINE)
        if theirs is None or ours is None or line is None or not 1 <= line <= len(theirs):
            return line, column
        offset = theirs[line - 1] + max((column or 1) - 1, 0)
        index = bisect.bisect_right(ours, offset) - 1
        return index + 1, offset - ours[index] + 1


def _numbers(start: object) -> tuple[int | None, int | None]:
    if not isinstance(start, dict):
        return None, None
    line, column = start.get("line"), start.get("column")
    return (
        line if isinstance(line, int) and line > 0 else None,
        column if isinstance(column, int) and column > 0 else None,
    )


def _written(workdir: Path, prefix: str, name: str, content: object) -> Path:
    """A folder of `workdir` holding `name` with `content` (JSON, or text), written
    once per distinct content: aside and renamed, as runs start from several threads."""
    text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = workdir / f"{prefix}-{digest}"
    target = folder / name
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        aside = folder / f"{name}.{os.getpid()}.{threading.get_ident()}"
        aside.write_text(text, encoding="utf-8")
        os.replace(aside, target)
    return folder


def _base_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")
    return {k: v for k, v in os.environ.items() if k in keep}


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str] | str:
    try:
        return subprocess.run(
            cmd,
            cwd=cwd,
            env=_base_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=NODE_TOOL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{Path(cmd[0]).name} did not finish within {NODE_TOOL_TIMEOUT:.0f} s"
    except OSError as exc:
        return f"cannot start {cmd[0]}: {exc.strerror}"


def _relative(filename: str, root: Path) -> str:
    path = Path(filename)
    if path.is_absolute():
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.strip().splitlines()[-lines:]) or "(no output)"

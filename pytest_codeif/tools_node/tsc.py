"""The TypeScript compiler's runs: its options as a task gives them, and many programs
checked in one Node process.

The compiler is driven through its API by a small Node script of ours (`_TSC_SCRIPT`)
with our compiler options, never a `tsconfig.json` of the code's. It builds the program
`tsc --noEmit` would build, with two differences that matter for many files at once:
every file's syntax *and* type errors are asked for (the `tsc` command reports none of
the type errors of any file once one file of the program has a syntax error), and the
compiler reads no file outside the staged code and the tools' own folder (a `///
<reference path="/etc/...">` or an import of an absolute path finds nothing, and no
`node_modules` above the staged code is searched). Positions are mapped in the script:
lines split at `\\n` alone, columns in characters, not UTF-16 units.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.outcome import ErrorKind, Finding
from pytest_codeif.tools_node.found import tsc_tools
from pytest_codeif.tools_node.runs import (
    NodeRun,
    config_folder,
    relative,
    run,
    sorted_findings,
    tail,
)


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
#: imports without extensions, JSX read as written, decorators as NestJS and TypeORM
#: write them), `strict` off as mypy's default.
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
    # NestJS, TypeORM and Angular code decorates parameters: legacy decorators.
    "experimentalDecorators": True,
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
        ambient = config_folder(workdir, "tsc-any", "modules.d.ts", 'declare module "*";\n')
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
        with os.fdopen(handle, "w", encoding="utf-8") as request_file:
            json.dump({"programs": jobs, "shared": [shared]}, request_file)
        cmd = [tools.node, "-e", _TSC_SCRIPT, str(tools.typescript), request_path]
        proc = run(cmd, workdir)
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
        said = f"the TypeScript compiler failed: {tail(proc.stderr or proc.stdout)}"
        return [NodeRun({}, said, crashed=True) for _ in programs]
    pairs = zip(reports, programs, strict=True)
    return [_tscrun(report, program.root) for report, program in pairs]


def _tscrun(report: Mapping[str, Any], root: Path) -> NodeRun:
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
        path = relative(str(name), root)
        if found is None:
            errors[path] = ("checker-failure", "the TypeScript compiler did not read the file")
            continue
        for line, column, code, message in found:
            rule = f"TS{code}"
            words = " ".join(part.strip() for part in str(message).splitlines() if part.strip())
            by_file.setdefault(path, []).append(Finding(words, rule, path, line, column))
    return NodeRun(sorted_findings(by_file), file_errors=errors)

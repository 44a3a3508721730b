"""Ruff and mypy, each run once per distinct configuration over many code units.

Configurations are plain hashable values, so the engine can group every unit that
needs the same run. Both tools get their whole configuration from the task
(`ruff --isolated`, `mypy --config-file` pointing at our own file): a `pyproject.toml`
or `mypy.ini` planted beside the code changes nothing. Only a task that opts in
(`project-config: true`, for `directory:` code: a team's own repository) has the tools
read the project's own configuration file, as the engine staged it beside the copy of
the code (`project_config_file` says which one each tool reads).
"""

from __future__ import annotations

import configparser
import importlib
import importlib.util
import json
import os
import re
import site
import subprocess
import sys
import threading
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from pytest_codeif.outcome import Finding
from pytest_codeif.tools_node import BiomeConfig, TscConfig, node_tool_versions

#: How long one batched tool run may take before it is reported as a checker failure.
TOOL_TIMEOUT: Final = 600.0


@dataclass(frozen=True)
class RuffConfig:
    """Ruff settings as sorted (dotted key, JSON value) pairs, e.g. ("lint.select", '["E"]')."""

    settings: tuple[tuple[str, str], ...]
    honor_noqa: bool = False  # the task lets noqa comments hide findings
    project: bool = False  # the project's own configuration first, the settings on top

    @classmethod
    def from_mapping(
        cls, settings: Mapping[str, Any], *, honor_noqa: bool = False, project: bool = False
    ) -> RuffConfig:
        pairs = tuple(sorted((k, json.dumps(v)) for k, v in settings.items()))
        return cls(pairs, honor_noqa, project)


@dataclass(frozen=True)
class MypyConfig:
    """Mypy command-line flags, in a canonical order."""

    flags: tuple[str, ...]
    honor_ignores: bool = False  # the task allows `# type: ignore` / `# mypy:` comments
    project: bool = False  # the project's own configuration file, the flags on top


#: Every batched tool's configuration; Biome's and the TypeScript compiler's are in
#: `tools_node.py`.
ToolConfig = RuffConfig | MypyConfig | BiomeConfig | TscConfig

#: A project's configuration files each tool reads, in the order the tool prefers them
#: (a `pyproject.toml` only with the tool's `[tool.ruff]` / `[tool.mypy]` table, a
#: `setup.cfg` only with a `[mypy]` section).
RUFF_CONFIG_FILES: Final = (".ruff.toml", "ruff.toml", "pyproject.toml")
MYPY_CONFIG_FILES: Final = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
PROJECT_CONFIG_FILES: Final = tuple(dict.fromkeys(RUFF_CONFIG_FILES + MYPY_CONFIG_FILES))
_MYPY_SECTION: Final = re.compile(r"^\s*\[\s*mypy\s*\]", re.M)


def project_config_file(config: ToolConfig, found: Mapping[str, bytes]) -> str | None:
    """Which of a project's configuration files (`found`: name -> bytes) the tool of
    `config` reads, as it would find it in the project's root; None: none applies."""
    tool = "ruff" if isinstance(config, RuffConfig) else "mypy"
    for name in RUFF_CONFIG_FILES if tool == "ruff" else MYPY_CONFIG_FILES:
        raw = found.get(name)
        if raw is None:
            continue
        if name == "pyproject.toml":
            try:
                table = tomllib.loads(raw.decode("utf-8")).get("tool")
            except (UnicodeDecodeError, tomllib.TOMLDecodeError):
                return name  # the tool reports the broken file: a checker failure
            if not isinstance(table, dict) or tool not in table:
                continue
        elif name == "setup.cfg" and not _MYPY_SECTION.search(raw.decode("utf-8", "replace")):
            continue
        return name
    return None


def mypy_plugin_files(name: str, raw: bytes) -> list[str]:
    """The plugins a mypy configuration file (`name`: which one, `raw`: its bytes) names
    by path (`plugins = ./checks/plugin.py:entry`), as written, without the entry point:
    mypy imports them from beside the configuration file, so they are files of the
    project. Plugins named as modules (`pydantic.mypy`) are imported from the installed
    packages and are not listed. A file that cannot be read lists none (mypy reports
    it)."""
    try:
        text = raw.decode("utf-8")
        if name == "pyproject.toml":
            table = tomllib.loads(text).get("tool", {}).get("mypy", {})
            value = table.get("plugins", []) if isinstance(table, dict) else []
        else:
            parser = configparser.RawConfigParser()
            parser.read_string(text, source=name)
            value = parser.get("mypy", "plugins", fallback="")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error, AttributeError):
        return []
    entries = value.split(",") if isinstance(value, str) else value
    if not isinstance(entries, list):
        return []
    found: list[str] = []
    for entry in entries:
        if not isinstance(entry, str):
            continue
        path = entry.strip()
        if ":" in os.path.basename(path):
            path = path.rsplit(":", 1)[0]
        if path.endswith(".py"):
            found.append(path)
    return found


@dataclass(frozen=True)
class ToolRun:
    """Diagnostics of one batched run, keyed by file path relative to the run's root."""

    by_file: dict[str, list[Finding]]
    failure: str | None = None  # the tool crashed or timed out: no verdict for anyone
    # A blocking error (mypy exit 2) stops the whole run: files checked after it have
    # no diagnostics, so an empty list proves nothing for them.
    blocking: bool = False


def tool_versions() -> dict[str, str]:
    """Versions of the libraries and tools that decide verdicts, for the JSON report and
    the verdict cache's key (cheap: no subprocess)."""
    found: dict[str, str] = {}
    for name in ("ruff", "mypy", "libcst", "pytest", "sqlglot", "google-re2", "pathspec"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    found.update(node_tool_versions())
    return found


_RUFF_BINARY_LOCK: Final = threading.Lock()


def ruff_binary() -> str:
    """The ruff executable of the installed `ruff` package (not whatever is on PATH).
    Found once, under a lock: batches ask from several threads, and the first lookup
    fills `sysconfig`'s variables, which Python 3.11 does without a lock (a second thread
    then read `EXE` as None and the batch failed)."""
    with _RUFF_BINARY_LOCK:
        return _find_ruff_binary()


@cache
def _find_ruff_binary() -> str:
    ruff_main = importlib.import_module("ruff.__main__")
    return str(ruff_main.find_ruff_bin())


def run_ruff(
    config: RuffConfig, root: Path, files: Sequence[str], config_file: str | None = None
) -> ToolRun:
    """Run ruff once on `files` (relative to `root`) with only `config`'s settings, on
    top of the project's own `config_file` (in `root`) when there is one: its exclusions
    are then honoured too, as the project's own `ruff check` does."""
    cmd = [ruff_binary(), "check", "--no-cache"]
    if config_file is None:
        cmd += ["--isolated"]
    else:
        cmd += ["--config", str(root / config_file), "--force-exclude"]
    cmd += [] if config.honor_noqa else ["--ignore-noqa"]
    cmd += ["--output-format", "json-lines", "--exit-zero", "--no-fix", "--quiet"]
    for key, value in config.settings:
        cmd += ["--config", f"{key} = {value}"]
    cmd += ["--", *files]
    proc = _run(cmd, root)
    if isinstance(proc, str):
        return ToolRun({}, proc)
    if proc.returncode != 0:
        return ToolRun({}, f"ruff exited with {proc.returncode}: {_tail(proc.stderr)}")
    by_file: dict[str, list[Finding]] = {}
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        path = _relative(item["filename"], root)
        loc = item.get("location") or {}
        rule = item.get("code") or "invalid-syntax"
        by_file.setdefault(path, []).append(
            Finding(item["message"], rule, path, loc.get("row"), loc.get("column"))
        )
    return ToolRun(by_file)


@cache
def isolated_python_flags(module: str) -> tuple[str, ...]:
    """The interpreter's flags for `python FLAGS -m MODULE` run in the code's folder:
    `-I` (neither the current folder nor any `PYTHON*` variable nor the user's site
    folder on the path), so that a `mypy/` package beside the code under evaluation can
    never stand in for the tool and run outside the sandbox; `-P -E` when `module`
    itself lives in the user's site folder, which `-I` would hide."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    origin = spec.origin if spec is not None else None
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if origin and user_site and Path(origin).is_relative_to(user_site):
        return ("-P", "-E")
    return ("-I",)


def run_mypy(
    config: MypyConfig,
    root: Path,
    files: Sequence[str],
    workdir: Path,
    config_file: str | None = None,
) -> ToolRun:
    """Run mypy once on `files` (relative to `root`), configured by `config` alone, or
    by the project's own `config_file` (relative to `root`, or absolute) and `config`'s
    flags on top.

    Without one, our own empty config file (in `workdir`) is passed explicitly so that
    mypy never looks for one beside the code. The interpreter runs isolated
    (`isolated_python_flags`): its current folder is the code's.
    """
    args = _mypy_arguments(config, workdir, None if config_file is None else root / config_file)
    cmd = [sys.executable, *isolated_python_flags("mypy"), "-m", "mypy", *args, "--", *files]
    env = {**_base_env(), "MYPYPATH": str(root)}
    proc = _run(cmd, root, env)
    if isinstance(proc, str):
        return ToolRun({}, proc)
    by_file: dict[str, list[Finding]] = {}
    crashed = proc.returncode not in (0, 1)
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        item = json.loads(line)
        if item.get("severity") != "error":
            continue
        path = _relative(item["file"], root)
        message = item["message"] + (f" ({item['hint']})" if item.get("hint") else "")
        column = item.get("column")
        by_file.setdefault(path, []).append(
            Finding(
                message,
                item.get("code") or "mypy",
                path,
                item.get("line"),
                column + 1 if isinstance(column, int) and column >= 0 else None,
            )
        )
    if crashed and not by_file:
        return ToolRun(
            {}, f"mypy exited with {proc.returncode}: {_tail(proc.stderr or proc.stdout)}"
        )
    return ToolRun(by_file, blocking=crashed)


def _mypy_arguments(config: MypyConfig, workdir: Path, own: Path | None = None) -> list[str]:
    """Mypy's options for one batched run (`own`: the project's configuration file).

    Mypy writes no incremental cache: the work dir is removed at the end of the session,
    so a cache there is never read again, and writing it cost about 15% of each run.
    """
    ini = own or workdir / "mypy.ini"
    if not ini.exists():
        # Written aside and renamed: batches start from several threads at once, and a
        # mypy must never read a half-written file.
        aside = workdir / f"mypy.ini.{os.getpid()}.{threading.get_ident()}"
        aside.write_text("[mypy]\n", encoding="utf-8")
        os.replace(aside, ini)
    args = [f"--config-file={ini}", f"--cache-dir={os.devnull}"]
    args += ["--output=json", "--no-error-summary", "--explicit-package-bases"]
    return [*args, "--show-column-numbers", *config.flags]


def _base_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")
    return {k: v for k, v in os.environ.items() if k in keep}


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str] | str:
    try:
        return subprocess.run(
            cmd,
            cwd=cwd,
            env=env or _base_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{Path(cmd[0]).name} did not finish within {TOOL_TIMEOUT:.0f} s"
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

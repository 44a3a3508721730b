"""Where Biome and the TypeScript compiler are, their versions, and what to say when
they are not there.

The folder named by `CODEIF_NODE_TOOLS` (holding `node_modules/`, as `npm install
@biomejs/biome typescript @types/node` leaves it) comes first; else the `biome` and
`tsc` found on `PATH`, whose npm package folders are found through the links. A tool
that is not there is a `missing-tool` error naming its npm package, never a pass.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

#: The folder holding `node_modules/` with Biome, TypeScript and Node's types.
NODE_TOOLS_ENV: Final = "CODEIF_NODE_TOOLS"
BIOME_PACKAGE: Final = "@biomejs/biome"
TYPESCRIPT_PACKAGE: Final = "typescript"
NODE_TYPES_PACKAGE: Final = "@types/node"
_INSTALL: Final = (
    "install it with npm (`npm install {packages}`) and put its node_modules/.bin on "
    f"PATH, or set {NODE_TOOLS_ENV} to the folder holding that node_modules"
)


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


def biome_package() -> Path | None:
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
    package = biome_package()
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

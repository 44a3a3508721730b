"""The programs a stage needs from this machine, found before anything runs: the
PostgreSQL server (for `databases: [postgres]`) and Newman with Node.js (for `newman:`
cases). A missing tool is said with what to install, never found by waiting.

Both are read-only inside the sandbox: `binds` names the folders outside the system
folders (which every sandbox has) that must be bound for the tool to run there.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: Where Debian's `postgresql` packages put each major version's server programs.
POSTGRES_ROOT: Final = Path("/usr/lib/postgresql")
#: The server programs a stage runs (initdb makes the data folder, createdb the database).
POSTGRES_PROGRAMS: Final = ("initdb", "postgres", "createdb")
POSTGRES_MISSING: Final = (
    "the PostgreSQL server is not installed (initdb, postgres and createdb, in "
    f"{POSTGRES_ROOT}/<version>/bin or on PATH): install Debian's `postgresql` package "
    "(apt-get install postgresql)"
)
NEWMAN_MISSING: Final = (
    "Newman is not installed (`newman` on PATH, with Node.js' `node`): install the npm "
    "package `newman` (npm install -g newman)"
)
#: Folders every sandbox binds already (see `isolation._SYSTEM_DIRS`).
_SYSTEM: Final = (Path("/usr"), Path("/bin"), Path("/sbin"), Path("/lib"), Path("/lib64"))


@dataclass(frozen=True)
class PostgresTools:
    """The PostgreSQL server's program folder, or None with why (`missing`)."""

    bindir: Path | None
    missing: str = ""

    @property
    def binds(self) -> tuple[Path, ...]:
        """The installation's folder (the programs' folder's parent, with its `lib` and
        `share`) when the system folders do not hold it."""
        if self.bindir is None:
            return ()
        return _outside_system(self.bindir.parent)


@dataclass(frozen=True)
class NewmanTool:
    """Newman's script (`bin/newman.js`), the folder holding Newman and the packages it
    loads (`package`), and `node`; or None for each with why (`missing`)."""

    script: Path | None
    package: Path | None
    node: Path | None
    missing: str = ""

    @property
    def binds(self) -> tuple[Path, ...]:
        """The folders to bind for `node script` to run: the packages' folder, and
        Node.js' own installation when the system folders do not hold it (nvm's)."""
        if self.script is None or self.package is None or self.node is None:
            return ()
        node_home = self.node.parent.parent  # .../bin/node: its lib/ and include/ beside
        return tuple(dict.fromkeys([*_outside_system(self.package), *_outside_system(node_home)]))


def find_postgres() -> PostgresTools:
    """The newest server under /usr/lib/postgresql/<version>/bin, else the one whose
    `initdb` is on PATH (its folder must hold `postgres` and `createdb` too)."""
    candidates: list[Path] = []
    if POSTGRES_ROOT.is_dir():
        versions = [p for p in POSTGRES_ROOT.iterdir() if (p / "bin").is_dir()]
        versions.sort(key=lambda p: _version_key(p.name), reverse=True)
        candidates += [p / "bin" for p in versions]
    found = shutil.which("initdb")
    if found is not None:
        candidates.append(Path(found).resolve().parent)
    for bindir in candidates:
        if all(_executable(bindir / name) for name in POSTGRES_PROGRAMS):
            return PostgresTools(bindir.resolve())
    return PostgresTools(None, POSTGRES_MISSING)


def find_newman() -> NewmanTool:
    """`newman` on PATH, followed to its package's `bin/newman.js`, and `node` on PATH."""
    missing = NewmanTool(None, None, None, NEWMAN_MISSING)
    found, node = shutil.which("newman"), shutil.which("node") or shutil.which("nodejs")
    if found is None or node is None:
        return missing
    script = Path(found).resolve()
    package = _newman_package(script)
    if package is None:
        return missing
    return NewmanTool(
        package / "bin" / "newman.js", _packages_folder(package), Path(node).resolve()
    )


def _newman_package(script: Path) -> Path | None:
    """The `newman` package folder holding `script` (its bin/newman.js)."""
    for folder in script.parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                name = json.loads(manifest.read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError, AttributeError):
                return None
            ok = name == "newman" and (folder / "bin" / "newman.js").is_file()
            return folder if ok else None
    return None


def _packages_folder(package: Path) -> Path:
    """Where Newman's dependencies are: npm hoists a local install's into the
    `node_modules` folder holding Newman (a global install nests them under Newman's
    own, also inside that folder)."""
    parent = package.parent
    return parent if parent.name == "node_modules" else package


def _outside_system(path: Path) -> tuple[Path, ...]:
    return () if any(path.is_relative_to(s) for s in _SYSTEM) else (path,)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _version_key(name: str) -> tuple[int, ...]:
    """'15' -> (15,), '9.6' -> (9, 6); a name that is no version sorts first."""
    try:
        return tuple(int(part) for part in name.split("."))
    except ValueError:
        return (-1,)

"""The folders of one sandboxed run: a copy of the code, and an io folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.sandbox.code_folder import CodeFiles, write_folder


def runs_root(workdir: Path) -> Path:
    """The folder under which every run's folders are (fork servers mount their runs'
    code at the same places, without writing it to disk)."""
    return workdir / "runs"


def run_paths(workdir: Path, unit: CodeUnit, name: str) -> tuple[Path, Path]:
    """Where the code folder and the io folder of one run are (nothing is made)."""
    base = runs_root(workdir) / unit.key / name
    return base / "code", base / "io"


def unit_files(unit: CodeUnit) -> CodeFiles:
    """The unit's files as a run's code folder holds them: its source files and, for a
    project, its other files (`run.sh`, `requirements.txt`, `.env`...) byte for byte,
    each executable when it was."""
    files = CodeFiles({source.relpath: source.text.encode("utf-8") for source in unit.files})
    files.update((other.relpath, other.data) for other in unit.other_files)
    files.executable.update(f.relpath for f in unit.files if f.executable)
    files.executable.update(f.relpath for f in unit.other_files if f.executable)
    return files


def run_folders(workdir: Path, unit: CodeUnit, name: str) -> tuple[Path, Path]:
    """A fresh code folder (a copy of the unit) and an io folder for one sandboxed run."""
    code, io = run_paths(workdir, unit, name)
    shutil.rmtree(code.parent, ignore_errors=True)
    write_folder(code, unit_files(unit))
    io.mkdir(parents=True)
    return code, io

"""The folders of one sandboxed run: a fresh copy of the code, and an io folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytest_codeif.code.unit import CodeUnit


def run_folders(workdir: Path, unit: CodeUnit, name: str) -> tuple[Path, Path]:
    """A fresh code folder (a copy of the unit) and an io folder for one sandboxed run."""
    base = workdir / "runs" / unit.key / name
    shutil.rmtree(base, ignore_errors=True)
    code, io = base / "code", base / "io"
    for source in unit.files:
        target = code / source.relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.text, encoding="utf-8")
    io.mkdir(parents=True)
    return code, io

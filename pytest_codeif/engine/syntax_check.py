"""Whether each file of the code under evaluation parses, with Python's own parser.

Python's parser (the interpreter running pytest, the one the sandbox runs the code with)
decides every syntax error, and its message is the one reported. On a project of
hundreds of files, building Python's syntax tree for each costs seconds, more than the
import graph and every contract on it: there, ruff's parser (Rust, every core) screens the
files first, configured for the running interpreter's version, and Python parses only the
files ruff flags. A file ruff flags but Python accepts is accepted. A file ruff accepts is
not parsed again: the two parsers agree on every file of the test suite's fixtures and of
the MultiCodeIF corpus (`benchmarks/contracts_speed.py --syntax` counts disagreements).
If ruff cannot run, Python parses every file.
"""

from __future__ import annotations

import ast
import gc
import json
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable
from pytest_codeif.tools import TOOL_TIMEOUT, ruff_binary

#: From this many files on, ruff screens them first (below, its start-up costs more than
#: Python's parser on small files).
SCREEN_FROM: Final = 32
#: Files per ruff invocation, to stay far below the command line's length limit.
CHUNK: Final = 2000

Display = Callable[[Path], str]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: a parse allocates hundreds of thousands of
    acyclic nodes, and each collection they trigger walks every live object for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def python_syntax_error(source: SourceFile, display: Display) -> Undecidable | None:
    """Python's verdict on one file: None when it parses, else the located error."""
    try:
        # Parse only: nothing is compiled to bytecode or executed. Warnings about the
        # code (invalid escapes) must not become errors under -W error.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source.text, filename=source.relpath)
    except SyntaxError as exc:
        line = source.origin_line(exc.lineno)
        where = f"{display(source.origin)}:{line}" if line else display(source.origin)
        return Undecidable("syntax-error", f"{where}: {exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return Undecidable("syntax-error", f"{display(source.origin)}: cannot parse: {exc}")
    return None


def syntax_errors(
    files: Sequence[SourceFile], display: Display, workdir: Path
) -> list[Undecidable | None]:
    """Python's verdict on each of `files`, in order (see the module docstring)."""
    suspects = _ruff_suspects(files, workdir) if len(files) >= SCREEN_FROM else None
    with collector_paused():
        return [
            python_syntax_error(f, display) if suspects is None or i in suspects else None
            for i, f in enumerate(files)
        ]


def _ruff_suspects(files: Sequence[SourceFile], workdir: Path) -> set[int] | None:
    """Indices of the files ruff's parser rejects, or None when ruff could not say."""
    # A NUL byte, or a BOM left after the one the loader drops, is Python's error, which
    # ruff's parser may not share.
    suspects = {i for i, f in enumerate(files) if "\x00" in f.text or f.text[:1] == "\ufeff"}
    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    try:
        ruff = ruff_binary()
        with tempfile.TemporaryDirectory(dir=workdir, prefix="syntax-") as tmp:
            paths: dict[str, int] = {}
            for index, source in enumerate(files):
                path = _ruff_path(source, index, Path(tmp))
                if path in paths:  # one file read twice: each copy judged on its own
                    path = _copy(source, index, Path(tmp))
                paths[path] = index
            listed = list(paths)
            for start in range(0, len(listed), CHUNK):
                flagged = _ruff_flagged(ruff, Path(tmp), listed[start : start + CHUNK], version)
                if flagged is None:
                    return None
                suspects |= {paths[p] for p in flagged}
    except (OSError, UnicodeError, ImportError, ValueError, KeyError):
        return None
    return suspects


def _ruff_path(source: SourceFile, index: int, tmp: Path) -> str:
    """An absolute path holding exactly `source.text` for ruff to read: the file itself
    when the text was read whole from a `.py`/`.pyi` file, else a copy under a neutral
    name. Paths given to ruff one by one are always checked (a folder named `build` or a
    `.gitignore` cannot make it skip them)."""
    origin = source.origin
    if source.line_origin is None and origin.suffix in (".py", ".pyi") and origin.is_absolute():
        return str(origin)
    return _copy(source, index, tmp)


def _copy(source: SourceFile, index: int, tmp: Path) -> str:
    copy = tmp / (f"m{index}.pyi" if source.relpath.endswith(".pyi") else f"m{index}.py")
    copy.write_text(source.text, encoding="utf-8", errors="surrogatepass")
    return str(copy)


def _ruff_flagged(ruff: str, root: Path, names: list[str], version: str) -> set[str] | None:
    """The paths among `names` with a ruff syntax error; None when ruff failed."""
    cmd = [ruff, "check", "--isolated", "--no-cache", "--select", "E902"]
    cmd += ["--target-version", version, "--output-format", "json-lines", "--exit-zero"]
    cmd += ["--no-fix", "--quiet", "--", *names]
    try:
        proc = subprocess.run(
            cmd,
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    flagged: set[str] = set()
    for line in proc.stdout.splitlines():
        if line.strip():
            item = json.loads(line)
            flagged.add(str(item.get("filename", "")))
    return flagged

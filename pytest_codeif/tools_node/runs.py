"""What a Node tool's batched run gives back, and what the runners share: running a
tool, staging its configuration, and mapping its positions back to the code's.

Positions come back as the rest of pytest-codeif counts them: lines split at `\\n`
alone, columns in characters (1-based). Biome counts `\\r` as a line break too (the
compiler's positions are mapped in its own script, see `tsc.py`): mapped from the text
the tool read.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pytest_codeif.outcome import ErrorKind, Finding

#: How long one batched run may take before it is reported as a checker failure.
NODE_TOOL_TIMEOUT: Final = 600.0


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


#: Biome's line breaks (`\r\n`, `\r`, `\n`; not U+2028).
BIOME_BREAKS: Final = re.compile(r"\r\n|\r|\n")
_NEWLINE: Final = re.compile(r"\n")


class Positions:
    """The staged files a run read, for mapping its positions back (read once each)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._starts: dict[tuple[str, str], list[int] | None] = {}
        self._texts: dict[str, str | None] = {}

    def _text(self, path: str) -> str | None:
        if path not in self._texts:
            try:
                # As written: `read_text` would turn every "\r" into "\n".
                self._texts[path] = (self._root / path).read_bytes().decode("utf-8")
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


def sorted_findings(by_file: dict[str, list[Finding]]) -> dict[str, list[Finding]]:
    """Each file's findings in the order of the file (a tool running on several threads,
    Biome, reports them in any order: a report must read the same every time)."""
    return {
        path: sorted(found, key=lambda f: (f.line or 0, f.column or 0, f.rule, f.message))
        for path, found in by_file.items()
    }


def utf8_name(name: str) -> bool:
    """Whether a file name is UTF-8 (a name read from the disk that is not holds
    surrogate escapes, which no Node tool can name the file by)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def numbers(start: object) -> tuple[int | None, int | None]:
    if not isinstance(start, dict):
        return None, None
    line, column = start.get("line"), start.get("column")
    return (
        line if isinstance(line, int) and line > 0 else None,
        column if isinstance(column, int) and column > 0 else None,
    )


def config_folder(workdir: Path, prefix: str, name: str, content: object) -> Path:
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


def base_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR")
    return {k: v for k, v in os.environ.items() if k in keep}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str] | str:
    try:
        return subprocess.run(
            cmd,
            cwd=cwd,
            env=base_env(),
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


def relative(filename: str, root: Path) -> str:
    path = Path(filename)
    if path.is_absolute():
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.strip().splitlines()[-lines:]) or "(no output)"

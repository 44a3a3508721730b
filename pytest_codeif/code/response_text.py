"""A response's text as written, for checks that judge what a response says (answers)
rather than the code in it: read from where the task gives it, bounded, with the line
of its origin (task file, JSONL file or response file) each of its lines came from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_codeif.code.unit import MAX_RESPONSE_BYTES
from pytest_codeif.outcome import Undecidable
from pytest_codeif.spec import CodeSpec


@dataclass(frozen=True)
class ResponseText:
    """The text, the file it is in, and its first line there; `exact` when each line
    of the text is a line of that file in order (a literal block, a file), else every
    line is shown at `first_line` (a folded scalar, a JSONL record)."""

    text: str
    origin: Path
    first_line: int
    exact: bool

    def origin_line(self, line: int | None) -> int:
        """The line of the origin file that `line` (1-based, of the text) is on."""
        if line is None or not self.exact:
            return self.first_line
        return self.first_line + line - 1


def response_text(spec: CodeSpec, task_path: Path) -> ResponseText:
    """The text `spec` gives (paths relative to the task file at `task_path`); raise
    `Undecidable` when there is none to read."""
    if spec.kind in ("file", "response-file"):
        path = (task_path.parent / spec.value).resolve()
        return ResponseText(_read(path), path, 1, exact=True)
    if spec.kind not in ("code", "response"):
        raise Undecidable(
            "invalid-task",
            f"an answer is read from a response; this task's code is a `{spec.kind}`",
        )
    if len(spec.value) > MAX_RESPONSE_BYTES:
        raise Undecidable(
            "too-large",
            f"the response is {len(spec.value) / 1e6:.1f} MB; at most "
            f"{MAX_RESPONSE_BYTES / 1e6:.0f} MB is read",
        )
    mark = spec.mark
    first = mark.line if mark else spec.location.line
    exact = mark is not None and mark.style == "|"
    # A literal block's text starts on the line after its `|` indicator.
    return ResponseText(spec.value, spec.origin or task_path, first + 1 if exact else first, exact)


def _read(path: Path) -> str:
    """A response file's text: a regular file of at most the response bound, UTF-8."""
    try:
        if not path.is_file():
            raise Undecidable("missing-file", f"cannot read {path}: not a regular file")
        with path.open("rb") as handle:
            data = handle.read(MAX_RESPONSE_BYTES + 1)
    except OSError as exc:
        raise Undecidable("missing-file", f"cannot read {path}: {exc.strerror}") from None
    if len(data) > MAX_RESPONSE_BYTES:
        raise Undecidable(
            "too-large", f"{path} is over {MAX_RESPONSE_BYTES / 1e6:.0f} MB; that much is read"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Undecidable("syntax-error", f"{path} is not valid UTF-8") from None

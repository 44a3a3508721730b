"""The baseline file (`--codeif-baseline=FILE`): findings a repository already has, which
the gate accepts, so that a rule can be adopted before the past is fixed.

The file is JSON, written by `--codeif-baseline-write` for a person to review in a pull
request: versioned, findings sorted, keys in a fixed order, one key per line, so that a
rewrite changes only the lines of findings that came or went. Each finding names its
task file, task, check, constraint and file (paths relative to pytest's rootdir, as the
reports show them), its rule and message (for the reviewer), and its `fingerprint`
(`report/fingerprints.py`): the text of the finding's line, never its number.

A finding of today matches a recorded one with the same task file, task, check,
constraint, file and fingerprint, so lines inserted above it, or a neighbouring function
renamed, do not unmatch it. Matching counts: a finding recorded once absorbs one finding
of today; a second identical one is new. Recorded findings of a constraint that ran and
matched nothing today have disappeared: the baseline can shrink.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

from pytest_codeif.records import ConstraintRecord, EvidenceEntry
from pytest_codeif.report.json_report import write_atomically

FORMAT: Final = "pytest-codeif baseline"
VERSION: Final = 1
_HELP: Final = (
    "Findings pytest-codeif accepts (--codeif-baseline); rewrite with --codeif-baseline-write."
)
_TOP_KEYS: Final = ("format", "version", "comment", "findings")

#: (task file, task, check, constraint): whose findings a recorded finding is.
ConstraintKey = tuple[str, str, str, str]


class BaselineError(ValueError):
    """The baseline file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Entry:
    """One recorded finding; fields in the order the file shows them."""

    task_file: str
    task: str
    check: str
    constraint: str
    path: str
    fingerprint: str
    rule: str
    message: str

    @property
    def constraint_key(self) -> ConstraintKey:
        return (self.task_file, self.task, self.check, self.constraint)

    def sort_key(self) -> tuple[str, ...]:
        """File order: by task file, task, constraint, file, then fingerprint (stable
        under line shifts, where a line number would reorder the file)."""
        return (
            self.task_file,
            self.task,
            self.constraint,
            self.check,
            self.path,
            self.fingerprint,
            self.rule,
            self.message,
        )

    def to_dict(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_ENTRY_KEYS: Final = tuple(f.name for f in fields(Entry))


def constraint_key(record: ConstraintRecord) -> ConstraintKey:
    """The key of a constraint record's findings."""
    return (
        str(record["file"]),
        str(record["task"]),
        str(record["check"]),
        str(record["constraint"]),
    )


def entries_of(record: ConstraintRecord, evidence: Iterable[EvidenceEntry]) -> list[Entry]:
    """Entries for `evidence` (findings of the constraint `record`); findings without a
    fingerprint cannot be matched again and are left out."""
    task_file, task, check, constraint = constraint_key(record)
    return [
        Entry(
            task_file,
            task,
            check,
            constraint,
            str(item["path"]),
            str(item["fingerprint"]),
            str(item.get("rule") or ""),
            str(item.get("message") or ""),
        )
        for item in evidence
        if item.get("fingerprint")
    ]


class Baseline:
    """Recorded findings, indexed by constraint, counted (a multiset)."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = list(entries)
        self._by_constraint: dict[ConstraintKey, Counter[tuple[str, str]]] = {}
        for entry in self.entries:
            counter = self._by_constraint.setdefault(entry.constraint_key, Counter())
            counter[(entry.path, entry.fingerprint)] += 1

    def __len__(self) -> int:
        return len(self.entries)

    def match(
        self, key: ConstraintKey, findings: Sequence[tuple[str, str | None]]
    ) -> tuple[list[bool], int]:
        """Which of `findings` ((file, fingerprint) of one constraint's findings, in
        order) the baseline absorbs, and how many recorded findings of that constraint
        matched none of them (disappeared)."""
        left = Counter(self._by_constraint.get(key, Counter()))
        absorbed: list[bool] = []
        for path, fingerprint in findings:
            found = fingerprint is not None and left[(path, fingerprint)] > 0
            if found:
                left[(path, str(fingerprint))] -= 1
            absorbed.append(found)
        return absorbed, sum(left.values())


def merged(old: Iterable[Entry], new: Iterable[Entry], decided: set[ConstraintKey]) -> list[Entry]:
    """The file's findings after a run: today's findings of every constraint the run
    decided, and the recorded ones of every other constraint (deselected with -k,
    undecidable today, lost with a crashed worker), which the run knows nothing about."""
    kept = [e for e in old if e.constraint_key not in decided]
    return sorted([*kept, *new], key=Entry.sort_key)


def document(entries: Iterable[Entry]) -> dict[str, Any]:
    """The file's content as plain data, findings sorted."""
    ordered = sorted(entries, key=Entry.sort_key)
    return {
        "format": FORMAT,
        "version": VERSION,
        "comment": _HELP,
        "findings": [e.to_dict() for e in ordered],
    }


def write_baseline(path: Path, entries: Iterable[Entry]) -> None:
    """Write the file atomically (a reader never sees half of it)."""
    write_atomically(path, document(entries))


def read_baseline(path: Path) -> Baseline:
    """The baseline at `path`; `BaselineError` says what is wrong and where."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BaselineError(
            f"baseline {path} does not exist: record today's findings with --codeif-baseline-write"
        ) from None
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BaselineError(f"baseline {path} is not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"baseline {path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}"
        ) from None
    return Baseline(_entries(data, path))


def _entries(data: Any, path: Path) -> list[Entry]:
    if not isinstance(data, dict):
        raise BaselineError(f"baseline {path}: expected a JSON object at the top")
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise BaselineError(f"baseline {path}: unknown key {unknown[0]!r} at the top")
    if data.get("format") != FORMAT:
        raise BaselineError(f"baseline {path}: `format` is not {FORMAT!r}: not a baseline file")
    version = data.get("version")
    if version != VERSION:
        raise BaselineError(
            f"baseline {path}: version {version!r} is not {VERSION}, the version this "
            "pytest-codeif reads (rewrite it with --codeif-baseline-write)"
        )
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(f"baseline {path}: `findings` must be a list")
    entries: list[Entry] = []
    for index, item in enumerate(findings):
        where = f"baseline {path}: findings[{index}]"
        if not isinstance(item, dict):
            raise BaselineError(f"{where}: expected an object")
        extra = sorted(set(item) - set(_ENTRY_KEYS))
        if extra:
            raise BaselineError(f"{where}: unknown key {extra[0]!r}")
        for key in _ENTRY_KEYS:
            if not isinstance(item.get(key), str):
                raise BaselineError(f"{where}.{key}: expected a string")
        entries.append(Entry(**{key: item[key] for key in _ENTRY_KEYS}))
    return entries

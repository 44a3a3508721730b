"""Which findings outside the changed code the change caused: those the merge base's
code does not have.

Placing findings by file and line misses what a change causes elsewhere: a required
call the change removed is reported on the first file of the scope, line 1 (`calls`
with `require`, `defines`: there is no line for something missing); a function whose
return type the change altered breaks its callers, which mypy reports in their
unchanged files; an import left unused by an edit elsewhere is reported on its old
line. Plain `pytest --codeif` on the head fails those, so the gate must too.

So, before the gate drops a finding for lying outside the changed code, it asks
whether the merge base's code has the same finding: the task's code folder is taken
from the merge base (`git archive`, once per task and process), the constraint is
judged there by the same engine, and the findings are matched by file (inside the
code), rule, message, the text of their line and the place of that line: the merge
base's line that the finding's line was before the change (`changes.line_map`; the same
number in a file the change did not touch), as many times as each occurs. A finding on
a line the change added or modified, or in a file it added, is never old. So a change
that fixes an old finding and makes an identical one elsewhere (the same message on a
line that reads the same) is not netted to nothing: the new one counts. A finding
with no line is matched by file, rule and message alone. A finding the merge base lacks
counts: the change caused it, wherever it is shown. One the merge base has too is old,
and stays uncounted (the baseline's business). Code read
from the repository's files is compared (`directory:`, `file:`, `response-file:`);
inline code and responses keep the line rule. When the merge base's code cannot be
judged (the folder is missing there, the constraint errs on it), every finding outside
the changed code counts, and a note says why: a doubt never passes the change.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final, Literal

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.engine.engine import Engine
from pytest_codeif.gate.changes import ChangedCode, GitError, LineMap, archive_at, line_map
from pytest_codeif.outcome import Evidence, Undecidable, Verdict
from pytest_codeif.taskfile.model import ConstraintSpec, Task

#: The kinds of a task's code that are compared: those read from the repository's files
#: (inline code and responses keep the line rule: their lines are the task file's).
COMPARED: Final = frozenset({"directory", "file", "response-file"})
#: A finding as matched against the merge base's: file inside the code, rule, message,
#: the text of its line, and that line's number in the merge base (None without a line).
_Key = tuple[str | None, str, str, str, int | None]


class BaseCode:
    """The merge base's version of tasks' code folders, judged on demand."""

    def __init__(self, changes: ChangedCode, engine: Engine) -> None:
        self.changes = changes
        self.engine = engine
        self._folder: Path | None = None
        self._tasks: dict[tuple[Path, str], Task | str] = {}

    def new_findings(
        self, task: Task, constraint: ConstraintSpec, verdict: Verdict, which: Sequence[int]
    ) -> tuple[set[int], str | None]:
        """Which of `verdict.evidence[i]` for `i` in `which` the merge base's code does not
        have (the change caused them), and a note when that could not be told (then all
        of them count)."""
        if not which or task.code.kind not in COMPARED:
            return set(), None
        base = self._base_task(task)
        if isinstance(base, str):
            return set(which), base
        old = self.engine.evaluate(base, constraint)
        if old.status == "error":
            why = f"the merge base's code could not be judged ({old.error_kind}: {old.error})"
            return set(which), _doubt(why)
        try:
            head_unit = self.engine.unit(task)
            base_unit = self.engine.unit(base)
        except Undecidable as exc:
            return set(which), _doubt(f"the merge base's code could not be read: {exc.message}")
        before = Counter(
            _key(base_unit, e, e.code_line if e.code_line and e.code_path else None)
            for e in old.evidence
        )
        maps: dict[str, LineMap] = {}
        new: set[int] = set()
        for index in which:
            found = verdict.evidence[index]
            try:
                place = self._base_line(head_unit, found, maps)
            except GitError:
                place = "new"  # where it was cannot be told: it counts
            if place == "new":
                new.add(index)  # on a line the change added or modified: never old
                continue
            key = _key(head_unit, found, None if place == "no-line" else place)
            if before[key] > 0:
                before[key] -= 1
            else:
                new.add(index)
        return new, None

    def _base_line(
        self, unit: CodeUnit, evidence: Evidence, maps: dict[str, LineMap]
    ) -> int | Literal["no-line", "new"]:
        """The merge base's line that the finding's line was; `new` for a line the
        change added or modified (or in a file it added), `no-line` for a finding that
        has none. `maps` keeps each file's `LineMap` (one diff per file)."""
        if not evidence.code_line or not evidence.code_path:
            return "no-line"
        source = unit.file(evidence.code_path)
        relative = self.changes.real_repo_path(source.origin) if source is not None else None
        if relative is None:
            return "new"
        if relative not in maps:
            maps[relative] = line_map(self.changes, relative)
        line = maps[relative].base_line(evidence.code_line)
        return "new" if line is None else line

    def _base_task(self, task: Task) -> Task | str:
        """`task` reading its code folder as the merge base holds it, or why it cannot."""
        known = self._tasks.get((task.path, task.id))
        if known is None:
            known = self._tasks[(task.path, task.id)] = self._make_base_task(task)
        return known

    def _make_base_task(self, task: Task) -> Task | str:
        folder = os.path.realpath(task.path.parent / task.code.value)
        toplevel = os.path.realpath(self.changes.toplevel)
        relative = os.path.relpath(folder, toplevel)
        if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
            return _doubt("the code folder lies outside the repository")
        # The tree is unpacked under a folder named as the repository's root, so that a
        # whole-repository unit's package name is the same as the head's.
        tree = self._scratch() / f"t{len(self._tasks)}" / os.path.basename(toplevel)
        archive = tree.parent / "tree.tar"
        try:
            tree.parent.mkdir(parents=True)
            if not archive_at(self.changes, Path(relative).as_posix(), archive):
                return _doubt(f"the merge base holds no folder {Path(relative).as_posix()}")
            _unpack(archive, tree)
        except GitError as exc:
            return _doubt(f"the merge base's code could not be read: {exc}")
        except (tarfile.TarError, OSError) as exc:
            return _doubt(f"the merge base's code could not be unpacked: {exc}")
        finally:
            archive.unlink(missing_ok=True)
        code = replace(task.code, value=str(tree / relative))
        return replace(task, path=tree / ".codeif-base" / task.path.name, code=code)

    def _scratch(self) -> Path:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="base-", dir=self.engine.workdir))
        return self._folder

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


def _doubt(why: str) -> str:
    return f"{why}: findings outside the changed code count"


def _key(unit: CodeUnit, evidence: Evidence, place: int | None) -> _Key:
    """What a finding is matched by (see `_Key`), its line placed at `place` in the
    merge base."""
    text = ""
    source = unit.file(evidence.code_path) if evidence.code_path else None
    if source is not None and evidence.code_line and source.text is not None:
        lines = source.text.splitlines()
        if 0 < evidence.code_line <= len(lines):
            text = lines[evidence.code_line - 1].strip()
    return (evidence.code_path, evidence.rule, evidence.message, text, place)


def _unpack(path: Path, target: Path) -> None:
    """The tar archive at `path`, from `git archive`, unpacked into `target` (its
    members' paths kept inside it: `tarfile`'s data filter where Python has it)."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode="r:") as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(target, filter="data")
        else:  # Python before 3.11.4: refuse members that leave the folder
            for member in archive.getmembers():
                name = os.path.normpath(member.name)
                if os.path.isabs(name) or name.startswith(".."):
                    raise tarfile.TarError(f"unsafe member {member.name!r}")
            archive.extractall(target)  # noqa: S202 - members checked above

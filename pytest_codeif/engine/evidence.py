"""Where a verdict's evidence is shown: a path as the user sees it, a unit-relative
finding at the file and line the user wrote (each link of a chain too), and an error
about a constraint's option at that option's line in the task file."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_codeif.code.unit import CodeUnit
from pytest_codeif.errors import TaskFileError, format_key_path
from pytest_codeif.outcome import Evidence, Finding, Undecidable
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.taskfile.yamlload import LoadedYaml, load_task_yaml


class Locations:
    """Shows paths relative to the rootdir and maps findings back to what the user wrote;
    remembers each path shown and each task file read again."""

    def __init__(self, rootdir: Path) -> None:
        self.rootdir = rootdir
        self._shown: dict[Path, str] = {}
        #: Task files read again to name the line of an option an error is about.
        self._task_yaml: dict[Path, LoadedYaml] = {}

    def display(self, path: Path) -> str:
        """`path` as shown to the user: relative to the rootdir when inside it, with `..`
        folded as pytest folds it in node ids (`bad/../app.py` is `app.py`)."""
        shown = self._shown.get(path)
        if shown is None:
            plain = Path(os.path.normpath(path))
            try:
                shown = plain.relative_to(self.rootdir).as_posix()
            except ValueError:
                shown = plain.as_posix()
            self._shown[path] = shown
        return shown

    def locate(self, unit: CodeUnit, finding: Finding) -> Evidence:
        """Map a unit-relative finding to the file and line the user wrote."""
        source = unit.file(finding.path) if finding.path else None
        links = tuple(self._link(unit, path, line) for path, line in finding.links)
        if source is None:
            shown = self.display(unit.files[0].origin)
            return Evidence(shown, None, finding.rule, finding.message, links=links)
        line = source.origin_line(finding.line)
        column = finding.column if source.line_origin is None else None
        return Evidence(
            self.display(source.origin),
            line,
            finding.rule,
            finding.message,
            column,
            source.relpath,
            finding.line,
            finding.column,
            links,
        )

    def _link(self, unit: CodeUnit, path: str, line: int) -> tuple[str, int | None]:
        """One link of a chain of imports, located as `locate` locates a finding."""
        source = unit.file(path)
        if source is None:
            return path, line
        return self.display(source.origin), source.origin_line(line)

    def located(self, task: Task, constraint: ConstraintSpec, exc: Undecidable) -> str:
        """The message of `exc`; for one about an option of the constraint, preceded by
        the option's place in the task file (`rules.yaml:12: tasks[0].constraints[1].
        containers[0]: ...`), as a bad task file's problems are."""
        if not exc.key_path:
            return exc.message
        key_path = (*constraint.location.key_path, *exc.key_path)
        line = constraint.location.line
        try:
            loaded = self._task_yaml.get(task.path) or load_task_yaml(task.path)
            self._task_yaml[task.path] = loaded
            line = loaded.location(key_path).line
        except (TaskFileError, OSError):
            pass  # the file changed or went since it was read: the constraint's line
        return f"{self.display(task.path)}:{line}: {format_key_path(key_path)}: {exc.message}"

"""The code under evaluation, read once: each task's unit, whether its files parse
(Python's own parser, once per Python file; a JS/TS file's own parse, see `js_tree.py`),
which of them a constraint's scope covers, and their parses by language (the most recent
`PARSED_KEPT`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_graph import js_module_name
from pytest_codeif.code.js_tree import JsModule, JsSyntaxError
from pytest_codeif.code.languages import JS_FAMILY, PYTHON
from pytest_codeif.code.module_names import did_you_mean
from pytest_codeif.code.parsers import parse_source_file
from pytest_codeif.code.scope import Scope, module_matches
from pytest_codeif.code.unit import CodeUnit, SourceFile, load_unit, unit_key
from pytest_codeif.engine.syntax_check import SCREEN_FROM, syntax_errors
from pytest_codeif.outcome import Undecidable
from pytest_codeif.taskfile.model import Task

#: Parsed modules kept at once: a task's items run one after another, so a few units'
#: trees are all that is ever read again; keeping every tree cost memory and time (the
#: garbage collector walks them all, and so does the interpreter's exit).
PARSED_KEPT = 64


class Units:
    """Each task's unit, syntax errors and parses, cached for the session."""

    def __init__(self, rootdir: Path, workdir: Path, display: Callable[[Path], str]) -> None:
        self.rootdir = rootdir
        self.workdir = workdir
        self._display = display
        self._units: dict[tuple[Path, str], CodeUnit | Undecidable] = {}
        self._parsed: OrderedDict[tuple[str, str], ParsedModule | JsModule | Undecidable] = (
            OrderedDict()
        )
        self._syntax: dict[tuple[str, str], Undecidable | None] = {}
        #: Files Python's own parser accepted (not only ruff's screening): their parse
        #: need not ask Python again (see `ParsedModule`).
        self._python_accepted: set[tuple[str, str]] = set()

    def unit(self, task: Task) -> CodeUnit:
        """The task's code, read once; raises the cached `Undecidable` if there is none."""
        key = (task.path, task.id)
        if key not in self._units:
            try:
                self._units[key] = load_unit(
                    task.code, task.path, unit_key(task.path, task.id, self.rootdir), task.module
                )
            except Undecidable as exc:
                self._units[key] = exc
        found = self._units[key]
        if isinstance(found, Undecidable):
            raise found
        return found

    def check_syntax(self, unit: CodeUnit, files: Sequence[SourceFile] | None = None) -> None:
        """Raise `Undecidable("syntax-error")` if any module of `unit` (or of `files`, a
        constraint's scope) does not parse.

        Python's own parser decides for Python files (see `syntax_check.py`), once per
        file, so every check of a task reports the same error at the same task-file
        line. A file in another language is decided by its own parser (a JS/TS file's
        parse, kept as its verdict), once per file too.
        """
        wanted = unit.files if files is None else files
        python = [s for s in wanted if s.language == PYTHON.name]
        fresh = [s for s in python if (unit.key, s.relpath) not in self._syntax]
        if fresh:
            found = syntax_errors(fresh, self._display, self.workdir)
            # Below SCREEN_FROM files Python's parser decides each one; above, ruff screens
            # and Python decides only the files ruff flags.
            by_python = len(fresh) < SCREEN_FROM
            for source, error in zip(fresh, found, strict=True):
                self._syntax[(unit.key, source.relpath)] = error
                if by_python and error is None:
                    self._python_accepted.add((unit.key, source.relpath))
        for source in wanted:
            key = (unit.key, source.relpath)
            if key not in self._syntax:  # another language: its parse decides
                try:
                    self.parsed(unit, source)
                    self._syntax[key] = None
                except Undecidable as exc:
                    self._syntax[key] = exc if exc.kind == "syntax-error" else None
            error = self._syntax[key]
            if error is not None:
                raise error

    def in_scope(self, unit: CodeUnit, scope: Scope) -> tuple[SourceFile, ...]:
        """The files of `unit` that `scope` covers (all of them for no scope)."""
        if scope.is_everything:
            return unit.files
        return tuple(f for f in unit.files if scope.covers(f.relpath, _module_of(unit, f)))

    def parsed(self, unit: CodeUnit, source: SourceFile) -> ParsedModule | JsModule:
        """The parse of `source` by its language's parser (libcst for Python, ast-grep for
        JS/TS), one of the most recent `PARSED_KEPT`; a JS/TS syntax error located at
        the line it came from (a task file's, a response's)."""
        key = (unit.key, source.relpath)
        found = self._parsed.get(key)
        if found is None:
            try:
                found = parse_source_file(
                    source, unit.place(source.relpath), python_checked=key in self._python_accepted
                )
            except JsSyntaxError as exc:
                line = source.origin_line(exc.line)
                where = f"{self._display(source.origin)}:{line}"
                found = Undecidable("syntax-error", f"{where}: {exc.what}")
            except Undecidable as exc:
                found = exc
            self._parsed[key] = found
            if len(self._parsed) > PARSED_KEPT:
                self._parsed.popitem(last=False)
        else:
            self._parsed.move_to_end(key)
        if isinstance(found, Undecidable):
            raise found
        return found


def check_scope_modules(unit: CodeUnit, scope: Scope) -> None:
    """Raise `Undecidable` (invalid-task) for a `modules` / `exclude-modules` name (no
    wildcard) that covers no module of the project: a typo that would silently judge
    other code than meant."""
    names = unit.names
    if names is None:
        return
    known = set(names.modules.values()) | names.packages
    known |= {js_module_name(f.relpath) for f in unit.files if f.language in JS_FAMILY}
    for key, patterns in (("modules", scope.modules), ("exclude-modules", scope.exclude_modules)):
        for index, pattern in enumerate(patterns):
            if "*" in pattern or any(module_matches(pattern, m) for m in known):
                continue
            raise Undecidable(
                "invalid-task",
                f"`{pattern}` is no module of the code{did_you_mean(pattern, known)}",
                key_path=(key, index),
            )


def _module_of(unit: CodeUnit, source: SourceFile) -> str | None:
    """The module name scope patterns match `source` by (None: no import reaches it):
    a JS/TS file of a project is named by its path, as the contract checks name it
    (`code/js_graph.py`: `src/repositories/users.js` is `src.repositories.users`)."""
    if not unit.is_project:
        return source.module
    if source.language in JS_FAMILY:
        return js_module_name(source.relpath)
    place = unit.place(source.relpath)
    return place.name if place is not None else None

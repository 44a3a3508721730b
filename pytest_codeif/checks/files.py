"""The `files` check: a project holds the files it was asked for, and they say what they
must (required and forbidden paths, executable scripts, contents, listed packages)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable, listed
from pytest_codeif.checks.shared.left_out import left_out_notes
from pytest_codeif.checks.shared.project_paths import PathPattern, path_pattern
from pytest_codeif.checks.shared.requirement_names import (
    listed_names,
    normalized,
    readable,
)
from pytest_codeif.code.unit import CodeUnit, LeftOut
from pytest_codeif.safe_regex import PatternError, SafePattern, SubjectTooLong, compile_pattern

_RULE = "files"
_PATHS = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
#: A distribution name as PEP 508 allows it.
_PACKAGE = {"type": "string", "pattern": "^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$"}
_OPTIONS = ("required", "forbidden", "executable", "contains", "lists")


@dataclass(frozen=True)
class _File:
    """One file of the project as this check sees it."""

    relpath: str
    executable: bool
    #: Its text (None: binary, or not read at all).
    text: str | None
    #: Why it was not read (the bounds on files other than source), else None.
    left_out: str | None = None


def _files(ctx: CheckContext) -> list[_File]:
    """Every file of the project in the constraint's scope (source and other files), and
    those the size bounds left out (whatever the scope: they were never read)."""
    unit = ctx.unit
    found = [_File(s.relpath, s.executable, s.text) for s in unit.files if ctx.in_scope(s.relpath)]
    found += [
        _File(o.relpath, o.executable, o.text) for o in unit.other_files if ctx.in_scope(o.relpath)
    ]
    found += [_left_out(item) for item in unit.left_out]
    return sorted(found, key=lambda f: f.relpath)


def _left_out(item: LeftOut) -> _File:
    return _File(item.relpath, item.executable, None, item.reason)


class FilesCheck(Check):
    """A project holds the files it was asked for: required and forbidden paths,
    executable scripts, contents matching patterns, packages its requirements list.

    Why: "provide a `requirements.txt` and a `run.sh` that starts the server", "do not
    commit the SQLite database", "`requirements.txt` lists SQLAlchemy" are said of files
    that are not Python. A `directory:` task's whole project is read: every file the
    project walk lists (the same ignore rules as for its modules: `.gitignore`, the
    task's `exclude`, vendored and hidden folders skipped), Python or not, within the
    constraint's scope (`files`, `exclude-files`). A gitignored file (often `.env`) is
    not part of the project, as git would not commit it; re-include it with the task's
    `exclude: ["!.env"]`.

    Paths are relative to the project's root, where `*` and `?` match within one path
    segment, `**` any number of segments (`**/*.sqlite3`) and a folder every file under
    it (`migrations/`). A path is anchored at the root: `run.sh` is the root's own.

    Options (at least one):

    - `required`: paths each matched by at least one file.
    - `forbidden`: paths no file may match.
    - `executable`: paths each matched by at least one file, every one of which its
      owner may execute (the mode `./run.sh` needs; it is kept in the sandbox).
    - `contains`: `{path, pattern}` entries: some file `path` matches holds text that
      `pattern` finds (a regular expression in Python's syntax, matched by RE2, a
      linear-time engine: no backreferences or lookaround; `(?m)` makes `^` and `$`
      match at each line, `(?i)` ignores case).
    - `lists`: a requirements file mapped to the packages it must list:
      `{requirements.txt: [sqlalchemy]}`. Files in pip's requirements format (`*.txt`,
      `*.in`; `-r` includes followed) and `pyproject.toml` (`[project]` dependencies
      and optional ones, dependency groups, Poetry's tables) are read; names compare
      as pip compares them (`Flask_SQLAlchemy` is `flask-sqlalchemy`), versions and
      extras aside.

    Violated: a required path no file matches (reported at the task file), a forbidden
    file, a file that is not executable, no match of a pattern, a package not listed
    (reported at the file). Errors: a task whose code is not a `directory:`
    (`invalid-task`: one module has no files to judge); a path that can never match (in
    a folder the walk always skips, such as `.git/` or `node_modules/`, or a negation)
    or a pattern RE2 cannot run (`invalid-task`, when the task file is read); a file
    to read that the size bounds left out, or text too long for a pattern
    (`too-large`).

    Example:

        - check: files
          required: [run.sh, requirements.txt]
          executable: [run.sh]
          forbidden: ["**/*.sqlite3", "**/*.db"]
          lists: {requirements.txt: [sqlalchemy]}
          contains:
            - {path: run.sh, pattern: '(?m)^\\s*(exec\\s+)?(gunicorn|uvicorn|python)\\b'}
    """

    name = _RULE
    category = "Environment"
    advice = (
        "Add the files the task asks for (executable where it says so, with the contents "
        "and packages it names) and remove the files it forbids."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "minProperties": 1,
        "properties": {
            "required": _PATHS,
            "forbidden": _PATHS,
            "executable": _PATHS,
            "contains": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["path", "pattern"],
                    "properties": {
                        "path": {"type": "string", "minLength": 1},
                        "pattern": {"type": "string", "minLength": 1},
                    },
                    "additionalProperties": False,
                },
            },
            "lists": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {"type": "array", "minItems": 1, "items": _PACKAGE},
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/__init__.py": "",
                "app/main.py": "from flask import Flask\n\napp = Flask(__name__)\n",
                "requirements.txt": "Flask>=3.0\nFlask_SQLAlchemy==3.1.1  # the ORM\n",
                "run.sh": "#!/bin/sh\nexec gunicorn app.main:app --bind 0.0.0.0:8080\n",
            },
            {
                "required": ["run.sh", "requirements.txt", "app/"],
                "forbidden": ["**/*.sqlite3"],
                "lists": {"requirements.txt": ["flask", "flask-sqlalchemy"]},
                "contains": [{"path": "run.sh", "pattern": r"(?m)^exec gunicorn\b"}],
            },
        ),
        Sample(
            {
                "main.py": "print('hello')\n",
                "pyproject.toml": '[project]\nname = "app"\ndependencies = ["SQLAlchemy>=2"]\n',
            },
            {"lists": {"pyproject.toml": ["sqlalchemy"]}},
        ),
    )
    violated_by = (
        Sample(
            {"main.py": "print('hello')\n", "requirements.txt": "flask\n"},
            {"required": ["run.sh"]},
            message="no file of the project matches `run.sh` (required)",
        ),
        Sample(
            {"main.py": "print('hello')\n", "data/app.sqlite3": "not really a database\n"},
            {"forbidden": ["**/*.sqlite3"]},
            message="`data/app.sqlite3` is forbidden (`**/*.sqlite3`)",
            path="data/app.sqlite3",
        ),
        Sample(
            {"main.py": "print('hello')\n", "run.sh": "#!/bin/sh\npython main.py\n"},
            {"executable": ["run.sh"]},
            message="`run.sh` is not executable",
            path="run.sh",
        ),
        Sample(
            {
                "main.py": "print('hello')\n",
                "requirements.txt": "flask\n# sqlalchemy is not needed\nsqlalchemy-utils\n",
            },
            {"lists": {"requirements.txt": ["sqlalchemy"]}},
            message="`requirements.txt` does not list `sqlalchemy` (it lists flask, ",
            path="requirements.txt",
        ),
        Sample(
            {"main.py": "print('hello')\n", "run.sh": "#!/bin/sh\npython main.py\n"},
            {"contains": [{"path": "run.sh", "pattern": r"(?m)^exec\s"}]},
            message="no file matching `run.sh` holds text matching `(?m)^exec\\s`",
            path="run.sh",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        # Everything is compiled here, when the task file is read: a pattern that can
        # never match is a located error there, never a pass at judging time.
        self._paths: dict[str, list[PathPattern]] = {}
        for key in ("required", "forbidden", "executable"):
            self._paths[key] = [
                _compiled(f"{key}[{i}]", path) for i, path in enumerate(options.get(key, ()))
            ]
        self._contains: list[tuple[PathPattern, SafePattern]] = []
        for i, entry in enumerate(options.get("contains", ())):
            where = _compiled(f"contains[{i}].path", entry["path"])
            try:
                pattern = compile_pattern(entry["pattern"])
            except PatternError as exc:
                raise ValueError(f"contains[{i}].pattern: {exc}") from None
            self._contains.append((where, pattern))
        for path in options.get("lists", {}):
            if not readable(path) or any(c in path for c in "*?["):
                raise ValueError(
                    f"lists: {path!r} is not a requirements file this check reads (a "
                    "`*.txt` or `*.in` file in pip's format, or `pyproject.toml`, named "
                    "without wildcards)"
                )
            _compiled(f"lists.{path}", path)

    def advise(self) -> str:
        asked = []
        if self.options.get("required"):
            asked.append(f"add {listed(self.options['required'])} to the project")
        if self.options.get("executable"):
            asked.append(f"make {listed(self.options['executable'])} executable (`chmod +x`)")
        for path, names in self.options.get("lists", {}).items():
            asked.append(f"list {listed(names)} in `{path}`")
        if self.options.get("contains"):
            asked.append("write what the task's patterns look for in the files they name")
        if self.options.get("forbidden"):
            forbidden = listed(self.options["forbidden"], conjunction="or")
            asked.append(f"remove every file matching {forbidden}")
        if not asked:
            return self.advice
        text = "; ".join(asked)
        return text[0].upper() + text[1:] + "."

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        if not ctx.unit.is_project:
            raise Undecidable(
                "invalid-task",
                "the `files` check judges a `directory:` task's files, and this task's "
                "code is one module",
            )
        files = _files(ctx)
        ctx.notes.extend(left_out_notes(ctx.unit.left_out))
        findings: list[Finding] = []
        for pattern in self._paths["required"]:
            if not any(pattern.matches(f.relpath) for f in files):
                findings.append(
                    _at_task(f"no file of the project matches `{pattern.written}` (required)")
                )
        for pattern in self._paths["forbidden"]:
            findings += [
                _at(f, f"`{f.relpath}` is forbidden (`{pattern.written}`)")
                for f in files
                if pattern.matches(f.relpath)
            ]
        findings += self._executables(files)
        findings += self._contents(files)
        findings += self._lists(ctx.unit, files)
        return findings

    def _executables(self, files: Sequence[_File]) -> Iterator[Finding]:
        for pattern in self._paths["executable"]:
            matched = [f for f in files if pattern.matches(f.relpath)]
            if not matched:
                yield _at_task(f"no file of the project matches `{pattern.written}` (executable)")
            for f in matched:
                if not f.executable:
                    yield _at(f, f"`{f.relpath}` is not executable (`chmod +x {f.relpath}`)")

    def _contents(self, files: Sequence[_File]) -> Iterator[Finding]:
        for where, pattern in self._contains:
            matched = [f for f in files if where.matches(f.relpath)]
            if not matched:
                yield _at_task(f"no file of the project matches `{where.written}` (contains)")
                continue
            if any(_found(f, pattern) for f in matched if f.left_out is None):
                continue
            for f in matched:
                _readable(f)  # one not read might hold it: too large, never a violation
            binary = [f.relpath for f in matched if f.text is None]
            note = f" ({listed(binary)} not text)" if binary else ""
            yield _at(
                matched[0],
                f"no file matching `{where.written}` holds text matching `{pattern.pattern}`{note}",
            )

    def _lists(self, unit: CodeUnit, files: Sequence[_File]) -> Iterator[Finding]:
        by_path = {f.relpath: f for f in files}
        for path, names in self.options.get("lists", {}).items():
            own = by_path.get(path)
            if own is None:
                yield _at_task(f"no file of the project matches `{path}` (lists)")
                continue
            _readable(own)

            def read(relpath: str) -> str | None:
                found = by_path.get(relpath)
                if found is None:
                    other = unit.other_file(relpath)  # an include outside the scope
                    return other.text if other is not None else None
                return _readable(found).text

            result = listed_names(path, read)
            shown = ", ".join(sorted(result.names)[:12]) or "nothing"
            problems = f"; {'; '.join(result.problems)}" if result.problems else ""
            for name in names:
                if normalized(name) not in result.names:
                    yield _at(
                        own,
                        f"`{path}` does not list `{name}` (it lists {shown}){problems}",
                    )


def _compiled(key: str, written: str) -> PathPattern:
    try:
        return path_pattern(written)
    except ValueError as exc:
        raise ValueError(f"{key}: {exc}") from None


def _readable(f: _File) -> _File:
    """`f`, when its text can be read; `Undecidable` when the size bounds left it out."""
    if f.left_out is not None:
        raise Undecidable("too-large", f"`{f.relpath}` was not read: {f.left_out}")
    return f


def _found(f: _File, pattern: SafePattern) -> bool:
    """Whether `pattern` finds a match in the text of `f` (never in a binary file)."""
    if f.text is None:
        return False
    try:
        return pattern.search(f.text)
    except SubjectTooLong as exc:
        raise Undecidable("too-large", f"`{f.relpath}`: {exc}") from None


def _at(f: _File, message: str) -> Finding:
    """A finding at the file `f` (a file the size bounds left out is named, not opened)."""
    if f.left_out is not None:
        return Finding(f"{message} (it was not read: {f.left_out})", _RULE)
    return Finding(message, _RULE, f.relpath)


def _at_task(message: str) -> Finding:
    """A finding about a file that is not there: at the task file, which asked for it."""
    return Finding(message, _RULE, in_task_file=True)

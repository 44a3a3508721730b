"""The source files of a project directory, listed as git would see them.

A task may name a whole project as the code under evaluation; vendored, built and
ignored code (``node_modules/``, ``build/``, a virtualenv, what ``.gitignore`` ignores)
is not the answer, and one syntax error in it must not turn every constraint into an error.

What is listed, and why:

- Only source files of the registered languages (see `languages.py`): for Python,
  ``*.py`` files; for JavaScript and TypeScript, ``.js .mjs .cjs .jsx .ts .tsx .mts
  .cts``. Stubs (``.pyi``) are not listed: they hold no code that runs, and the
  evaluation has only ever read ``.py`` files; TypeScript's declarations (``.d.ts``)
  and minified bundles (``.min.js``) are not source either (`Language.not_source`).
  `python_files` lists Python's alone; `every_file` lists every file the same rules
  keep (``run.sh``, ``requirements.txt``, ``.env``, templates...: a `directory:` task's
  whole project travels to the sandbox).
- ``.gitignore`` files are honoured with git's semantics, the way ``git ls-files --others
  --exclude-standard`` lists untracked files: the root's and nested ones (patterns
  relative to the folder that holds them), negation, folder-only, anchored and ``**``
  patterns, the last matching pattern of the deepest file winning, and no file
  re-included inside an ignored folder (the walk never enters it). The root's
  ``.git/info/exclude`` is honoured too (with the lowest precedence, as in git), when
  ``.git`` is a folder. Not honoured, so that the listing depends on the tree under the
  root alone: ``.gitignore`` files above the root, the user's ``core.excludesFile``, and
  git's index (a tracked file that a ``.gitignore`` matches is skipped, where git would
  still track it). Matching is case-sensitive, as git's default on Linux. A
  ``.gitignore`` that is a symbolic link is not read (git ignores those since 2.32), and
  an invalid line in it is dropped, as git does.
- Some folders are skipped whatever ``.gitignore`` says (no pattern re-includes them):
  hidden folders (``.git``, ``.tox``, ``.venv``...), symbolic links to folders, tool and
  vendored folders by name (see `ALWAYS_SKIPPED`), ``*.egg-info``, a folder holding a
  ``pyvenv.cfg`` file or a ``conda-meta`` folder (a virtualenv or conda environment,
  whatever its name: ``env`` is not skipped by name, since it is also a real package
  name), and ``build``, ``dist`` or ``coverage`` (a bundler's or a coverage report's
  output, JavaScript included) unless it holds an ``__init__.py`` (then it is a real
  package). Node's vendored folders (``node_modules``, ``bower_components``,
  ``jspm_packages``) are skipped by name; its caches (``.next``, ``.nuxt``, ``.yarn``)
  are hidden folders. The root itself is never skipped. Hidden files (``.x.py``) are listed.
- A file whose real path is outside the root (a symbolic link out) is not listed.
- Names and patterns are matched as git matches them, byte by byte: both are turned
  into one character per byte of their UTF-8 form (`_byte_text`) before they reach the
  RE2 engine, so a name or ``.gitignore`` line that is not UTF-8 (held as surrogate
  escapes) is matched like any other, never handed to RE2, which would refuse it.
- Task-level ``exclude`` patterns are gitignore patterns relative to the root, with
  precedence over every ignore file (so ``!gen.py`` re-includes a gitignored file) and
  read as lines of an ignore file (trailing spaces dropped).

Skipped folders are never entered: a ``node_modules`` of 100,000 files costs one
directory entry.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final, Literal

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from pytest_codeif.code.languages import PYTHON, language_of_path, source_suffixes

#: Why a file or folder is not listed.
SkipReason = Literal[
    "hidden",  # a folder whose name starts with "."
    "symlink",  # a symbolic link to a folder: never followed
    "tool-folder",  # version control, caches, tox/nox environments
    "vendored",  # third-party code: node_modules, site-packages...
    "virtualenv",  # venv, or a folder holding pyvenv.cfg or conda-meta/
    "build-output",  # build/, dist/ (not packages), *.egg-info, .eggs
    "gitignored",  # a .gitignore (or .git/info/exclude) pattern
    "excluded",  # a task-level exclude pattern
    "outside-root",  # a symbolic link to a file outside the root
    "unreadable",  # a folder the walk could not list
]

#: Folder names skipped wherever they are, whatever any pattern says.
ALWAYS_SKIPPED: Final[Mapping[str, SkipReason]] = {
    ".git": "tool-folder",
    ".hg": "tool-folder",
    ".svn": "tool-folder",
    "__pycache__": "tool-folder",
    ".mypy_cache": "tool-folder",
    ".ruff_cache": "tool-folder",
    ".pytest_cache": "tool-folder",
    ".tox": "tool-folder",
    ".nox": "tool-folder",
    "node_modules": "vendored",
    "bower_components": "vendored",
    "jspm_packages": "vendored",
    "site-packages": "vendored",
    "dist-packages": "vendored",
    "__pypackages__": "vendored",
    ".venv": "virtualenv",
    "venv": "virtualenv",
    ".eggs": "build-output",
}
#: Folder names skipped unless they hold an ``__init__.py`` (then they are packages).
BUILD_OUTPUT: Final = frozenset({"build", "dist", "coverage"})
_IGNORE_FILE: Final = ".gitignore"
#: A negation that matches every path below a folder through that folder, never a path
#: itself: last in a `GitIgnoreSpec`, it keeps whatever only a parent folder matched.
_THROUGH_FOLDER: Final = GitIgnoreSpecPattern("!**/")


class InvalidPatternError(ValueError):
    """A task-level exclude pattern that is not a usable gitignore pattern."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"invalid exclude pattern {pattern!r}: {reason}")
        self.pattern = pattern
        self.reason = reason


@dataclass(frozen=True)
class Skipped:
    """A folder or ``.py`` file left out of the listing."""

    path: str  # POSIX, relative to the root; a folder's ends with "/"
    reason: SkipReason
    rule: str  # what decided, e.g. "node_modules/ is always skipped", "pkg/.gitignore:3: *.py"


@dataclass(frozen=True)
class ProjectFiles:
    """The Python files of a project, and what was left out."""

    files: tuple[str, ...]  # POSIX paths relative to the root, sorted by code point
    skipped: tuple[Skipped, ...]  # sorted by path; only files of the kinds listed


def source_files(root: Path, exclude: Sequence[str] = ()) -> list[str]:
    """Like `python_files`, for the source files of every registered language (a file
    ending like source that is not, `app.d.ts`, left out)."""
    listed = scan_project(root, exclude, source_suffixes()).files
    return [path for path in listed if language_of_path(path) is not None]


def every_file(root: Path, exclude: Sequence[str] = ()) -> list[str]:
    """Like `python_files`, for every file whatever its name (source or not): what the
    same ignore rules keep of a project."""
    return list(scan_project(root, exclude, None).files)


def python_files(root: Path, exclude: Sequence[str] = ()) -> list[str]:
    """The ``*.py`` files under `root` as sorted POSIX paths relative to it.

    `exclude` holds gitignore-style patterns relative to the root, applied on top of the
    project's ignore files. See the module docstring for what is skipped. Raises
    `InvalidPatternError` for an unusable `exclude` pattern, and `FileNotFoundError` or
    `NotADirectoryError` when `root` is not a folder.
    """
    return list(scan_project(root, exclude).files)


def scan_project(
    root: Path, exclude: Sequence[str] = (), suffixes: tuple[str, ...] | None = PYTHON.suffixes
) -> ProjectFiles:
    """Like `python_files` (for files ending in one of `suffixes`; every file for None),
    also telling which folders and listed kinds of files were skipped, and why."""
    if isinstance(exclude, str):
        raise TypeError("exclude is a sequence of patterns, not a single string")
    task_rules = tuple(rule for pattern in exclude if (rule := _exclude_rule(pattern)))
    root = Path(root)
    if not root.is_dir():
        error = NotADirectoryError if root.exists() else FileNotFoundError
        raise error(f"{root} is not a folder")
    real_root = os.path.realpath(root)
    base = _Rules(_read_info_exclude(root), task_rules)
    rules_of: dict[str, _Rules] = {"": base}
    files: list[str] = []
    skipped: list[Skipped] = []

    def unreadable(exc: OSError) -> None:
        where = _relative(str(exc.filename), root) or "."
        skipped.append(Skipped(f"{where}/", "unreadable", exc.strerror or str(exc)))

    for folder, dirs, names in os.walk(root, onerror=unreadable):
        here = _relative(folder, root)
        rules = rules_of.pop(here)
        if _IGNORE_FILE in names:
            own = _read_ignore_file(Path(folder, _IGNORE_FILE), here)
            if own:
                rules = rules.extended(own)
        kept: list[str] = []
        for name in sorted(dirs):
            relpath = _join(here, name)
            why = _always_skipped(name, os.path.join(folder, name)) or rules.ignoring(
                relpath, is_dir=True
            )
            if why is None:
                kept.append(name)
                rules_of[relpath] = rules
            else:
                skipped.append(Skipped(f"{relpath}/", *why))
        dirs[:] = kept
        for name in names:
            if suffixes is not None and not name.endswith(suffixes):
                continue
            relpath = _join(here, name)
            why = rules.ignoring(relpath, is_dir=False) or _outside(
                os.path.join(folder, name), real_root
            )
            if why is not None:
                skipped.append(Skipped(relpath, *why))
            elif os.path.isfile(os.path.join(folder, name)):  # not a dangling link, a fifo
                files.append(relpath)
    return ProjectFiles(tuple(sorted(files)), tuple(sorted(skipped, key=lambda s: s.path)))


@dataclass(frozen=True)
class _Rule:
    """One gitignore pattern, rewritten to match paths relative to the root."""

    file_form: GitIgnoreSpecPattern | None  # as written; None for a folder-only pattern
    dir_form: GitIgnoreSpecPattern  # any trailing "/" dropped: tested on folder paths
    reason: SkipReason
    origin: str  # "pkg/.gitignore:3: *.py"


class _Rules:
    """The patterns that apply inside one folder, in git's order of precedence.

    Paths are checked one component at a time (a folder before what it holds, and never
    what an ignored folder holds), so, as in git, only a pattern that matches the path
    itself decides. `GitIgnoreSpec` gives such a direct match precedence over a match
    through a parent folder; the trailing `_THROUGH_FOLDER` turns any match through a
    (kept) parent folder into "kept". A folder is checked without its trailing "/"
    against the patterns with theirs dropped, so that folder-only patterns match it
    directly; a file is checked against the other patterns only.
    """

    def __init__(self, ignore_rules: tuple[_Rule, ...], task_rules: tuple[_Rule, ...]) -> None:
        self._ignore_rules = ignore_rules
        self._task_rules = task_rules
        self._dir_rules = ignore_rules + task_rules
        self._file_rules = tuple(r for r in self._dir_rules if r.file_form is not None)
        dir_forms = [r.dir_form for r in self._dir_rules]
        file_forms = [r.file_form for r in self._file_rules if r.file_form is not None]
        # RE2 (a dependency): the project's own .gitignore lines are hostile text, and
        # `*a*a*a*a*b` took seconds per path with Python's backtracking engine.
        self._dirs = GitIgnoreSpec([*dir_forms, _THROUGH_FOLDER], backend="re2")
        self._files = GitIgnoreSpec([*file_forms, _THROUGH_FOLDER], backend="re2")

    def extended(self, more: tuple[_Rule, ...]) -> _Rules:
        """These rules and then `more` (a deeper ignore file: it takes precedence)."""
        return _Rules(self._ignore_rules + more, self._task_rules)

    def ignoring(self, relpath: str, *, is_dir: bool) -> tuple[SkipReason, str] | None:
        """Why `relpath` is ignored, or None when no pattern (or a negation) keeps it."""
        rules = self._dir_rules if is_dir else self._file_rules
        if not rules:
            return None
        result = (self._dirs if is_dir else self._files).check_file(_byte_text(relpath))
        if not result.include or result.index is None:
            return None
        rule = rules[result.index]
        return rule.reason, rule.origin


def _compile(line: str, folder: str, reason: SkipReason, origin: str) -> _Rule | None:
    """`line` of an ignore file in `folder` (POSIX, "" for the root), rooted at the root.

    None for a line that matches nothing (blank, comment, "/", an unclosed "["); raises
    `ValueError` or `re.error` for a line pathspec rejects.
    """
    line, folder = _byte_text(line), _byte_text(folder)  # as `ignoring` matches paths
    text = line if line.endswith("\\ ") else line.rstrip()  # pathspec's own trimming
    if GitIgnoreSpecPattern(text).include is None:
        return None
    negated = text.startswith("!")
    body = text[1:] if negated else text
    if not body.strip("/"):  # "!/" and the like: git matches nothing with them
        return None
    core = body.removesuffix("/")
    if folder and "/" in core:  # anchored to the folder holding the ignore file
        body = f"{GitIgnoreSpecPattern.escape(folder)}/{body.removeprefix('/')}"
    elif folder:  # matches at any depth below that folder
        body = f"{GitIgnoreSpecPattern.escape(folder)}/**/{body}"
    bang = "!" if negated else ""
    file_form = None if body.endswith("/") else GitIgnoreSpecPattern(bang + body)
    dir_form = GitIgnoreSpecPattern(bang + body.removesuffix("/"))
    return _Rule(file_form, dir_form, reason, origin)


def _exclude_rule(pattern: str) -> _Rule | None:
    """A task-level exclude pattern (None: blank or a comment), or `InvalidPatternError`."""
    if not isinstance(pattern, str):
        raise InvalidPatternError(repr(pattern), "a pattern is a string")
    try:
        rule = _compile(pattern, "", "excluded", f"exclude: {pattern}")
    except (ValueError, re.error) as exc:
        detail = exc.__cause__ or exc
        message = detail.msg if isinstance(detail, re.error) else str(detail)
        raise InvalidPatternError(pattern, f"pathspec rejects it ({message})") from None
    if rule is None:
        stripped = pattern.strip()
        if stripped and not stripped.startswith("#"):
            raise InvalidPatternError(
                pattern, "git discards it (an unclosed '[' or a lone '/'), so it excludes nothing"
            )
    return rule


def _byte_text(text: str) -> str:
    """`text` as one character per byte of its UTF-8 form (a surrogate escape standing
    for the byte it escapes): what RE2 can match, and how git matches names, byte by
    byte. Names and patterns both pass through it, so they meet in the same form. A
    byte above 127 becomes a private-use character, never white space (pathspec strips
    a pattern's trailing white space, and U+00A0 or U+0085 would be)."""
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that escapes no byte (from YAML)
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("latin-1").translate(_HIGH_BYTES)


#: Bytes 128-255 (as latin-1 characters) -> private-use characters U+E080-U+E0FF.
_HIGH_BYTES: Final = {byte: 0xE000 + byte for byte in range(0x80, 0x100)}


def _read_ignore_file(path: Path, folder: str) -> tuple[_Rule, ...]:
    """The valid patterns of the ignore file `path` in `folder`; () if it is not a regular file."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return ()
        text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    except OSError:
        return ()
    label = _join(folder, _IGNORE_FILE) if path.name == _IGNORE_FILE else ".git/info/exclude"
    rules: list[_Rule] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r")  # git drops the CR of a CRLF line end
        try:
            rule = _compile(line, folder, "gitignored", f"{label}:{number}: {line.strip()}")
        except (ValueError, re.error):
            continue  # git drops a pattern it cannot use
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


def _read_info_exclude(root: Path) -> tuple[_Rule, ...]:
    """The root's ``.git/info/exclude`` patterns, when ``.git`` is a real folder."""
    git = root / ".git"
    if git.is_symlink() or not git.is_dir():  # a worktree's or submodule's .git is a file
        return ()
    return _read_ignore_file(git / "info" / "exclude", "")


def _always_skipped(name: str, path: str) -> tuple[SkipReason, str] | None:
    """Why the folder `name` at `path` is skipped whatever the patterns say, if it is."""
    if os.path.islink(path):
        return "symlink", "symbolic links to folders are not followed"
    if name in ALWAYS_SKIPPED:
        return ALWAYS_SKIPPED[name], f"{name}/ is always skipped"
    if name.endswith(".egg-info"):
        return "build-output", "*.egg-info/ is always skipped"
    if name.startswith("."):
        return "hidden", "hidden folders are skipped"
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        return "virtualenv", "it holds a pyvenv.cfg"
    if os.path.isdir(os.path.join(path, "conda-meta")):
        return "virtualenv", "it holds a conda-meta folder"
    if name in BUILD_OUTPUT and not os.path.isfile(os.path.join(path, "__init__.py")):
        return "build-output", f"{name}/ is skipped unless it holds an __init__.py"
    return None


def _outside(path: str, real_root: str) -> tuple[SkipReason, str] | None:
    """Why the file `path` is skipped because it links out of the root, if it does."""
    if not os.path.islink(path):
        return None  # the walk follows no folder link, so a plain file is inside
    real = os.path.realpath(path)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return "outside-root", f"it links to {real}, outside the root"


def _relative(path: str, root: Path) -> str:
    """`path` (under `root`) as a POSIX path relative to it; "" for the root itself."""
    relpath = PurePath(os.path.relpath(path, root)).as_posix()
    return "" if relpath == "." else relpath


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name

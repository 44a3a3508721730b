"""The code under evaluation as a set of source files, whatever form the task gave it in.

Every file remembers where its lines came from (a real file, a YAML block, the lines of
a model response), so a finding at `solution.py:3` is reported at `tasks.yaml:17`.

A `directory:` task's project travels whole: besides its source files, its other files
(`run.sh`, `requirements.txt`, `.env`, templates, data) are read as bytes, with their
executable bit, under the same ignore rules, so that checks can read them and runs find
them in their code folder. Those are bounded apart (see `MAX_OTHER_FILE_BYTES`): one
above the bounds is left out and named (`CodeUnit.left_out`), never failing the unit.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Final

from pytest_codeif.code.extract import extract_code, response_language
from pytest_codeif.code.languages import (
    PYTHON,
    Language,
    language,
    language_of_file,
    language_of_path,
    languages,
)
from pytest_codeif.code.module_names import ModuleNames, module_names
from pytest_codeif.code.names import ModulePlace
from pytest_codeif.code.scope import Scope
from pytest_codeif.code.walk import InvalidPatternError, every_file
from pytest_codeif.outcome import Undecidable
from pytest_codeif.spec import CodeSpec

#: Module name of code given inline, as a file or as a response.
SINGLE_MODULE: Final = "solution"
#: Bounds that keep parsing in seconds and megabytes (real answers are kilobytes).
MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
MAX_FILE_BYTES: Final = 2 * 1024 * 1024
# A team's whole repository is a unit too (`directory: .`): thousands of modules.
MAX_UNIT_BYTES: Final = 64 * 1024 * 1024
MAX_UNIT_FILES: Final = 10_000
#: Files above `LARGE_FILE_BYTES` (generated code, megabytes of one module) may hold at
#: most `MAX_LARGE_BYTES` together: parsing one costs hundreds of megabytes and seconds,
#: so three files just under the per-file bound took a gate 40 s and 1.2 GB. Real
#: projects' modules are kilobytes; a generated one or two stay welcome.
LARGE_FILE_BYTES: Final = 512 * 1024
MAX_LARGE_BYTES: Final = 4 * 1024 * 1024
#: Bounds on a project's other files (not source in any language), which travel to the
#: sandbox as bytes with every run: a file above `MAX_OTHER_FILE_BYTES`, or one that would
#: take the other files past `MAX_OTHER_BYTES` or `MAX_OTHER_FILES` (in path order), is
#: left out and named in `CodeUnit.left_out`. Real projects' scripts, requirements and
#: templates are kilobytes; datasets and images are not the answer.
MAX_OTHER_FILE_BYTES: Final = 4 * 1024 * 1024
MAX_OTHER_BYTES: Final = 32 * 1024 * 1024
MAX_OTHER_FILES: Final = 5_000
#: Compiled Python is never read: it is the output of source, not the answer, and Python
#: would import a planted `mod.pyc`, or an extension module `mod.*.so` (before `mod.py`
#: itself), in place of the source that checks judged.
COMPILED_SUFFIXES: Final = (".pyc", ".pyo", ".so", ".pyd")


@dataclass(frozen=True)
class SourceFile:
    """One module of the code under evaluation, in one language."""

    relpath: str  # POSIX path inside the unit, e.g. "solution.py" or "pkg/mod.py"
    text: str
    origin: Path  # the file the text was read from (for inline code: the task file)
    line_origin: tuple[int, ...] | None = None  # origin line per line; None: the same line
    #: The name of its `Language` (see `languages.py`): what parses it and reads its imports.
    language: str = PYTHON.name
    #: The file's owner may execute it (a project's `main.py` run as `./main.py`): its
    #: copy in a run's code folder is executable too.
    executable: bool = False

    @property
    def module(self) -> str:
        parts = PurePosixPath(self.relpath).with_suffix("").parts
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def origin_line(self, line: int | None) -> int | None:
        """The line of `origin` that line `line` of this file came from."""
        if line is None or self.line_origin is None:
            return line
        if not self.line_origin:
            return None
        return self.line_origin[min(max(line, 1), len(self.line_origin)) - 1]


@dataclass(frozen=True)
class OtherFile:
    """A file of a project that is source in no language (`run.sh`, `requirements.txt`,
    `.env`, a template, an image), kept as its bytes: binary files are never decoded."""

    relpath: str  # POSIX path inside the unit
    data: bytes
    origin: Path  # the file the bytes were read from
    #: The file's owner may execute it: its copy in a run's code folder is executable too.
    executable: bool = False
    #: Its lines are the origin's own (the same shape as `SourceFile`'s, for locating).
    line_origin: None = None

    @cached_property
    def text(self) -> str | None:
        """The file as UTF-8 text (a leading BOM dropped); None when it is not text: not
        UTF-8, or holding a NUL byte."""
        if b"\0" in self.data:
            return None
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None

    def origin_line(self, line: int | None) -> int | None:
        """The line of `origin` that line `line` of this file came from: the same line."""
        return line


@dataclass(frozen=True)
class LeftOut:
    """A file of a project that was not read (so neither judged nor copied into the
    sandbox), and why."""

    relpath: str
    size: int  # bytes, when it was listed
    executable: bool
    reason: str  # "4.2 MB, above the 4 MB a file other than source may hold"


@dataclass(frozen=True)
class CodeUnit:
    """All modules of one task's code; `key` is stable across runs and machines."""

    key: str
    files: tuple[SourceFile, ...]
    main_module: str | None
    is_project: bool  # a directory of modules, not one module
    #: The project folder's own name when it holds `__init__.py` (it is a package).
    root_package: str | None = None
    #: A project's files that are source in no language, in path order (none for code
    #: given as one module).
    other_files: tuple[OtherFile, ...] = ()
    #: A project's files left out by the bounds on other files, in path order.
    left_out: tuple[LeftOut, ...] = ()

    def file(self, relpath: str) -> SourceFile | OtherFile | None:
        """The source or other file at `relpath` (where a finding about it is located)."""
        found = next((f for f in self.files if f.relpath == relpath), None)
        return found if found is not None else self.other_file(relpath)

    def other_file(self, relpath: str) -> OtherFile | None:
        """The other file (not source) at `relpath`, if the unit holds one."""
        return next((f for f in self.other_files if f.relpath == relpath), None)

    def others_in(self, scope: Scope) -> tuple[OtherFile, ...]:
        """The other files `scope` covers. They have no module name, so only `files` /
        `exclude-files` patterns decide: a scope given by `modules` alone covers none."""
        if scope.is_everything:
            return self.other_files
        return tuple(f for f in self.other_files if scope.covers(f.relpath, None))

    @cached_property
    def languages(self) -> frozenset[str]:
        """The names of the languages the unit's files are written in."""
        return frozenset(f.language for f in self.files)

    def files_in(self, language: str) -> tuple[SourceFile, ...]:
        """The unit's files written in `language`, in the unit's order."""
        if self.languages == {language}:
            return self.files
        return tuple(f for f in self.files if f.language == language)

    @cached_property
    def names(self) -> ModuleNames | None:
        """Every file's absolute module name (projects only), as Python would import it."""
        if not self.is_project:
            return None
        try:
            python = self.files_in(PYTHON.name)
            return module_names([f.relpath for f in python], self.root_package)
        except ValueError:
            return None  # paths that cannot name modules: relative imports stay unresolved

    def place(self, relpath: str) -> ModulePlace | None:
        """Where the file at `relpath` sits among the project's modules (None for single
        modules: they have no package, so relative imports in them resolve to nothing)."""
        names = self.names
        name = names.modules.get(relpath) if names is not None else None
        if name is None:
            return None
        return ModulePlace(name, relpath.endswith("__init__.py"))


def unit_key(task_path: Path, task_id: str, rootdir: Path) -> str:
    """A short identifier-safe key from the task's file (relative to rootdir) and id."""
    try:
        rel = task_path.relative_to(rootdir).as_posix()
    except ValueError:
        rel = task_path.as_posix()
    return "u" + hashlib.sha256(f"{rel}::{task_id}".encode()).hexdigest()[:16]


def load_unit(spec: CodeSpec, task_path: Path, key: str, module: str | None = None) -> CodeUnit:
    """Read the code `spec` names (paths relative to the task file at `task_path`);
    raise `Undecidable` ("no-code", "missing-file"...) if there is none."""
    if spec.kind == "directory":
        folder = task_path.parent / spec.value
        files, others, left_out = _read_directory(folder, spec.exclude)
        main = module or _only_top_module(tuple(f for f in files if f.language == PYTHON.name))
        package = folder.resolve().name if (folder / "__init__.py").is_file() else None
        unit = CodeUnit(key, files, main, True, package, others, left_out)
        return _bounded(unit)
    written_in = language_of_file(spec.value) if spec.kind == "file" else None
    if written_in is not None:
        path = (task_path.parent / spec.value).resolve()
        source = _read_file(path, SINGLE_MODULE + written_in.single_suffix, written_in.name)
        return _bounded(CodeUnit(key, (source,), SINGLE_MODULE, False))
    if spec.kind in ("file", "response-file"):
        source = _response_file((task_path.parent / spec.value).resolve(), spec.language)
        return _bounded(CodeUnit(key, (source,), SINGLE_MODULE, False))
    if spec.kind == "response" and len(spec.value) > MAX_RESPONSE_BYTES:
        raise Undecidable(
            "too-large",
            f"the response is {len(spec.value) / 1e6:.1f} MB; at most "
            f"{MAX_RESPONSE_BYTES / 1e6:.0f} MB is evaluated",
        )
    # Inline code's text lives in the task file; a response from a JSONL record, in that.
    source = _embedded(spec, spec.origin or task_path)
    return _bounded(CodeUnit(key, (source,), SINGLE_MODULE, is_project=False))


def _bounded(unit: CodeUnit) -> CodeUnit:
    """`unit`, or `Undecidable("too-large")` past the size bounds; `Undecidable
    ("syntax-error")` for Python source whose coding cookie Python would read otherwise
    than the checks do (`declared_encoding_problem`)."""
    if len(unit.files) > MAX_UNIT_FILES:
        raise Undecidable("too-large", f"{len(unit.files)} files; at most {MAX_UNIT_FILES}")
    for source in unit.files:
        problem = declared_encoding_problem(source) if source.language == PYTHON.name else None
        if problem is not None:
            raise Undecidable("syntax-error", problem)
        if len(source.text) > MAX_FILE_BYTES:
            raise Undecidable(
                "too-large",
                f"{source.relpath} is {len(source.text) / 1e6:.1f} MB of code; at most "
                f"{MAX_FILE_BYTES / 1e6:.0f} MB per file is evaluated",
            )
    large = [len(s.text) for s in unit.files if len(s.text) > LARGE_FILE_BYTES]
    if sum(large) > MAX_LARGE_BYTES:
        raise Undecidable(
            "too-large",
            f"{len(large)} files above {LARGE_FILE_BYTES // 1024} KB hold "
            f"{sum(large) / 1e6:.1f} MB of code together; at most "
            f"{MAX_LARGE_BYTES / 1e6:.1f} MB in such files is evaluated",
        )
    total = sum(len(source.text) for source in unit.files)
    if total > MAX_UNIT_BYTES:
        raise Undecidable(
            "too-large", f"{total / 1e6:.1f} MB of code; at most {MAX_UNIT_BYTES / 1e6:.0f} MB"
        )
    return unit


def declared_encoding_problem(source: SourceFile) -> str | None:
    """Why Python would not run the code the checks read, when `source`'s PEP 263 coding
    cookie (`# -*- coding: utf-7 -*-`) names an encoding that decodes its UTF-8 bytes
    into other text: libcst, ruff and mypy read the text as UTF-8, Python (in the
    sandbox, and wherever the code is deployed) as the cookie says, so `x = 1 #
    +AAo-print(1)` in UTF-7 runs a call that no check saw. None when there is no cookie,
    it names UTF-8, or it decodes the bytes to the same text (an ASCII file declaring
    latin-1). The cookie is found as Python's tokenizer finds it (`tokenize`): anywhere
    in the first two whole lines, however long (read up to the per-file bound)."""
    lines = iter(_first_lines(source.text, 2))
    try:
        declared, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:
        return f"{source.relpath}: {exc.msg}: Python cannot run it"
    if declared in ("utf-8", "utf-8-sig"):
        return None
    try:
        same = source.text.encode("utf-8", "surrogatepass").decode(declared) == source.text
    except (UnicodeError, LookupError):
        same = False
    if same:
        return None
    return (
        f"{source.relpath}: its coding cookie declares {declared}, so Python reads other "
        "code than the checks read as UTF-8: only source that reads the same in UTF-8 is "
        "judged"
    )


def _first_lines(text: str, count: int) -> list[bytes]:
    """The first `count` lines of `text` as UTF-8 bytes, each with its line end (`\n`,
    `\r\n` or `\r`, the line ends Python's tokenizer knows), searched no further than
    `MAX_FILE_BYTES` characters: a longer file is too large anyway."""
    lines: list[bytes] = []
    start = 0
    bound = min(len(text), MAX_FILE_BYTES)
    while len(lines) < count and start < bound:
        ends = [i for i in (text.find("\n", start, bound), text.find("\r", start, bound)) if i >= 0]
        if not ends:
            end = bound
        else:
            end = min(ends) + 1
            if text[end - 1] == "\r" and text.startswith("\n", end):
                end += 1
        lines.append(text[start:end].encode("utf-8", "surrogatepass"))
        start = end
    return lines


def _embedded(spec: CodeSpec, task_path: Path) -> SourceFile:
    """Inline code or a response: text plus the YAML line of each code line, in the
    task's `language` (inline code: Python by default; a response: as its fences say)."""
    mark = spec.mark
    first = mark.line if mark else spec.location.line
    exact = mark is not None and mark.style == "|"
    # A literal block's text starts on the line after its `|` indicator.
    base = first + 1 if exact else first
    if spec.kind == "code":
        if not spec.value.strip():
            raise Undecidable("no-code", "the task's `code` is empty")
        written_in = language(spec.language) if spec.language else PYTHON
        count = spec.value.count("\n") + 1
        origin = tuple(base + i if exact else first for i in range(count))
        relpath = SINGLE_MODULE + written_in.single_suffix
        return SourceFile(relpath, spec.value, task_path, origin, written_in.name)
    written_in = _response_language(spec.value, spec.language)
    extracted = extract_code(spec.value, written_in)
    if extracted is None:
        raise Undecidable("no-code", f"the response holds no {_no_code(written_in)}")
    origin = tuple(base + line - 1 if exact else first for line in extracted.line_origin)
    relpath = SINGLE_MODULE + written_in.single_suffix
    return SourceFile(relpath, extracted.text, task_path, origin, written_in.name)


def _response_language(response: str, given: str | None) -> Language:
    """The language a response is read in: the task's, else the one its fences show."""
    return language(given) if given else response_language(response)


def _no_code(written_in: Language) -> str:
    """What a response without code lacks, in `written_in`."""
    if written_in is PYTHON:
        return "Python code: no fenced ```python block, and it is not Python as a whole"
    tag = sorted(written_in.fence_tags, key=len)[-1]
    return f"{written_in.name.capitalize()} code: no fenced ```{tag} block (nor an untagged one)"


def _response_file(path: Path, given: str | None = None) -> SourceFile:
    """A model response kept in a file: its code (in the task's `language`, else as its
    fences say), each line mapped to the file's line."""
    try:
        size = path.stat().st_size
        if size > MAX_RESPONSE_BYTES:
            raise Undecidable(
                "too-large",
                f"{path} is {size / 1e6:.1f} MB; at most {MAX_RESPONSE_BYTES / 1e6:.0f} MB "
                "of a response is evaluated",
            )
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise Undecidable("missing-file", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise Undecidable("syntax-error", f"{path} is not valid UTF-8") from None
    written_in = _response_language(text, given)
    extracted = extract_code(text, written_in)
    if extracted is None:
        raise Undecidable("no-code", f"{path} holds no {_no_code(written_in)}")
    relpath = SINGLE_MODULE + written_in.single_suffix
    return SourceFile(relpath, extracted.text, path, tuple(extracted.line_origin), written_in.name)


def _read_file(
    path: Path, relpath: str, language: str = PYTHON.name, *, executable: bool = False
) -> SourceFile:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise Undecidable("missing-file", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise Undecidable("syntax-error", f"{path} is not valid UTF-8") from None
    if not text.strip():
        raise Undecidable("no-code", f"{path} is empty")
    return SourceFile(relpath, text, path, language=language, executable=executable)


def _read_directory(
    root: Path, exclude: Sequence[str]
) -> tuple[tuple[SourceFile, ...], tuple[OtherFile, ...], tuple[LeftOut, ...]]:
    """Every file of the project at `root` as git would list it (`.gitignore` honoured,
    vendored, built and virtualenv folders skipped, `exclude` applied): the source files,
    each in the language its suffix names; the other files as bytes, within their bounds;
    and the other files those bounds left out."""
    try:
        listed = every_file(root, exclude)
    except InvalidPatternError as exc:
        raise Undecidable("invalid-task", str(exc)) from None
    except OSError as exc:
        raise Undecidable("missing-file", f"cannot read {root}: {exc.strerror}") from None
    found: list[SourceFile] = []
    others: list[str] = []
    for rel in listed:
        written_in = language_of_path(rel)
        if written_in is None:
            if not rel.endswith(COMPILED_SUFFIXES):
                others.append(rel)
            continue
        executable = _is_executable(root / rel)
        try:
            found.append(_read_file(root / rel, rel, written_in.name, executable=executable))
        except Undecidable as exc:
            if exc.kind != "no-code":  # an empty __init__.py is normal
                raise
            found.append(SourceFile(rel, "", root / rel, None, written_in.name, executable))
    if not any(f.text.strip() for f in found):
        named = " or ".join(lang.name.capitalize() for lang in languages())
        raise Undecidable("no-code", f"no {named} code under {root}")
    kept, left_out = _read_others(root, others)
    return tuple(found), kept, left_out


def _read_others(
    root: Path, listed: Sequence[str]
) -> tuple[tuple[OtherFile, ...], tuple[LeftOut, ...]]:
    """The files at `listed` (relative to `root`, in path order) as bytes, within the
    bounds on other files; those the bounds leave out, and why. A file that cannot be
    read is a `missing-file` error, as a source file's is."""
    kept: list[OtherFile] = []
    left_out: list[LeftOut] = []
    total = 0
    for rel in listed:
        path = root / rel
        try:
            info = path.stat()
        except OSError as exc:
            raise Undecidable("missing-file", f"cannot read {path}: {exc.strerror}") from None
        size, executable = info.st_size, bool(info.st_mode & stat.S_IXUSR)
        why = _too_much(size, total, len(kept))
        if why is None:
            data = _read_bytes(path, MAX_OTHER_FILE_BYTES)
            size = len(data)
            why = _too_much(size, total, len(kept))  # it grew since it was listed
        if why is not None:
            left_out.append(LeftOut(rel, size, executable, why))
            continue
        total += size
        kept.append(OtherFile(rel, data, path, executable))
    return tuple(kept), tuple(left_out)


def _too_much(size: int, total: int, count: int) -> str | None:
    """Why a file other than source of `size` bytes is left out, after `count` files of
    `total` bytes were kept; None when it fits."""
    if size > MAX_OTHER_FILE_BYTES:
        return (
            f"{size:,} bytes, above the {_bound(MAX_OTHER_FILE_BYTES)} a file other than "
            "source may hold"
        )
    if total + size > MAX_OTHER_BYTES:
        return (
            f"its {size:,} bytes would take the project's files other than source past "
            f"{_bound(MAX_OTHER_BYTES)} in all"
        )
    if count >= MAX_OTHER_FILES:
        return f"the project has more than {MAX_OTHER_FILES:,} files other than source"
    return None


def _bound(size: int) -> str:
    """A bound in bytes as people say it: `4 MiB`, or `100 bytes` below one KiB."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size:,} bytes"


def _read_bytes(path: Path, limit: int) -> bytes:
    """At most `limit` + 1 bytes of `path` (enough to tell it is above `limit`)."""
    try:
        with path.open("rb") as handle:
            return handle.read(limit + 1)
    except OSError as exc:
        raise Undecidable("missing-file", f"cannot read {path}: {exc.strerror}") from None


def _is_executable(path: Path) -> bool:
    """Whether the file's owner may execute it (False when it cannot be asked: reading it
    reports that)."""
    try:
        return bool(os.stat(path).st_mode & stat.S_IXUSR)
    except OSError:
        return False


def _only_top_module(files: tuple[SourceFile, ...]) -> str | None:
    top = [f.module for f in files if "/" not in f.relpath]
    return top[0] if len(top) == 1 else None

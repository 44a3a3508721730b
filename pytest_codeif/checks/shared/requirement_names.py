"""The package names a project's requirement files list: pip's requirements format
(`requirements.txt`, `*.in`) and `pyproject.toml`, read without installing anything.

A name is what a requirement starts with (`SQLAlchemy>=2`, `psycopg[binary]==3.1`,
`flask ; python_version > "3.8"`, `app @ https://...`), or the `#egg=` of a URL or an
editable line; names compare as pip compares them (case, and runs of `-`, `_` and `.`,
folded: `Flask_SQLAlchemy` is `flask-sqlalchemy`). In a requirements file, `-r FILE` /
`--requirement FILE` includes another file (relative to the including one); `-c`
constraints files list versions, not requirements, and are not read; other options
(`--index-url`...) are skipped. In `pyproject.toml`: `[project]` `dependencies` and
`optional-dependencies`, `[dependency-groups]`, and Poetry's `dependencies` tables
(`[tool.poetry.dependencies]` and its groups; `python` is not a package).

The text is the project's (hostile): every pattern here matches in linear time, and
`tomllib` refuses what is not TOML.
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

#: A distribution name as PEP 508 allows it, at the start of a requirement.
_NAME: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_EGG: Final = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")
_INCLUDE: Final = ("-r", "--requirement")
#: A comment: `#` at a line's start or after white space, to the line's end.
_COMMENT: Final = re.compile(r"(?:^|\s)#.*")
#: Includes followed at most this deep (a chain of `-r` longer is not a real project's).
MAX_DEPTH: Final = 10
#: The suffixes of files read in pip's requirements format.
REQUIREMENT_SUFFIXES: Final = (".txt", ".in")
PYPROJECT: Final = "pyproject.toml"


def normalized(name: str) -> str:
    """`name` as pip compares names: lower case, each run of `-`, `_`, `.` one `-`."""
    return "-".join(part for part in re.split(r"[-_.]+", name.lower()) if part)


def readable(relpath: str) -> bool:
    """Whether the file at `relpath` is one this module reads."""
    name = posixpath.basename(relpath)
    return name == PYPROJECT or name.endswith(REQUIREMENT_SUFFIXES)


@dataclass
class Listed:
    """What one requirement file (and the files it includes) lists."""

    #: Normalized name -> (file, line) of its first listing.
    names: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Problems reading it: an include that is not in the project, text that is not TOML.
    problems: list[str] = field(default_factory=list)


def listed_names(relpath: str, read: Callable[[str], str | None]) -> Listed:
    """The packages the file at `relpath` lists; `read(path)` gives a file's text (None
    when the project holds no such text file)."""
    found = Listed()
    text = read(relpath)
    if text is None:
        found.problems.append(f"`{relpath}` is not a text file of the project")
    elif posixpath.basename(relpath) == PYPROJECT:
        _read_pyproject(relpath, text, found)
    else:
        _read_requirements(relpath, text, read, found, seen={relpath}, depth=0)
    return found


def _read_requirements(
    relpath: str,
    text: str,
    read: Callable[[str], str | None],
    found: Listed,
    *,
    seen: set[str],
    depth: int,
) -> None:
    for number, line in _logical_lines(text):
        if line.startswith("-"):
            included = _included(line)
            if included is None:
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(relpath), included))
            if target in seen or depth >= MAX_DEPTH:
                continue
            seen.add(target)
            more = read(target)
            if more is None:
                found.problems.append(f"`{relpath}` includes `{included}`, not in the project")
                continue
            _read_requirements(target, more, read, found, seen=seen, depth=depth + 1)
            continue
        name = _requirement_name(line)
        if name is not None:
            found.names.setdefault(normalized(name), (relpath, number))


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each requirement, as pip reads them: lines ending in
    a backslash joined with the next, then comments (`#` at the start or after white
    space) dropped, blank ones skipped."""
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        raw = line.removesuffix("\r")  # lines end at newlines only, as an editor numbers them
        if not pending:
            start = number
        if raw.endswith("\\"):
            pending.append(raw[:-1])
            continue
        joined = _COMMENT.sub("", "".join(pending) + raw).strip()
        pending = []
        if joined:
            yield start, joined
    last = _COMMENT.sub("", "".join(pending)).strip()
    if last:
        yield start, last


def _included(line: str) -> str | None:
    """The file a `-r FILE` / `--requirement=FILE` line includes, else None."""
    for option in _INCLUDE:
        if line.startswith(option):
            rest = line[len(option) :]
            if rest[:1] in ("=", " ", "\t"):
                path = rest[1:].strip()
                return path or None
            if option == "-r" and rest:  # `-rfile`, as pip accepts it
                return rest.strip()
    return None


def _requirement_name(line: str) -> str | None:
    """The package a requirement line names (an `#egg=` for a URL or a path)."""
    egg = _EGG.search(line)
    if "://" in line.split("@", 1)[0] or line.startswith((".", "/", "~")):
        return egg.group(1) if egg else None
    match = _NAME.match(line)
    return match.group() if match else None


def _read_pyproject(relpath: str, text: str, found: Listed) -> None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found.problems.append(f"`{relpath}` is not TOML ({exc})")
        return
    lines = text.split("\n")
    for requirement in _pyproject_requirements(data):
        match = _NAME.match(requirement.strip())
        if match is None:
            continue
        name = match.group()
        found.names.setdefault(normalized(name), (relpath, _line_of(lines, name)))


def _pyproject_requirements(data: Mapping[str, Any]) -> Iterator[str]:
    """Every requirement string (or Poetry dependency key) of a parsed pyproject.toml."""
    project = _table(data.get("project"))
    yield from _strings(project.get("dependencies"))
    for extra in _table(project.get("optional-dependencies")).values():
        yield from _strings(extra)
    for group in _table(data.get("dependency-groups")).values():
        yield from _strings(group)  # `{include-group = ...}` entries are tables: skipped
    poetry = _table(_table(data.get("tool")).get("poetry"))
    tables = [_table(poetry.get("dependencies")), _table(poetry.get("dev-dependencies"))]
    tables += [_table(_table(g).get("dependencies")) for g in _table(poetry.get("group")).values()]
    for table in tables:
        yield from (name for name in table if name.lower() != "python")


def _table(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, str))


def _line_of(lines: list[str], name: str) -> int:
    """The first line mentioning `name` (1 when none does: a finding still has a line)."""
    return next((n for n, line in enumerate(lines, start=1) if name in line), 1)

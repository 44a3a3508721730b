"""Connection URLs in a project's files other than Python: where a project says which
database it uses when its code reads the URL from the environment.

Which files, by name (case-insensitive):

- environment files: `.env`, `.env.*`, `*.env`;
- shell scripts and process files: `*.sh`, `*.bash`, `*.zsh`, `Procfile`,
  `Dockerfile`, `Containerfile`, `*.dockerfile`;
- compose files: `docker-compose*.yml` / `.yaml`, `compose*.yml` / `.yaml`: their
  `environment:` entries only (a database service's own health check is not the code's
  connection);
- settings files: `*.ini`, `*.cfg`, `*.toml`, `*.conf`, other `*.yml` / `*.yaml`, and
  JSON named for settings (`*settings*.json`, `*config*.json`).

Not read, as they are not what the code runs with: test configuration (a file in a
`test`, `tests` or `testing` folder or named for tests, such as `.env.test` or
`docker-compose.test.yml`; `pytest.ini`, `tox.ini`, `noxfile`; the pytest, tox and
coverage sections of `setup.cfg` and `pyproject.toml`), examples (a name with
`example`, `sample`, `template` or `dist` in it: `.env.example`), and hidden YAML files
(CI configuration: `.gitlab-ci.yml`, `.travis.yml`) and `*pipelines*.yml`.

In the files read, every line that is not a comment (`#`, and `;` in INI files) is
searched for `scheme://` (for compose files, only the lines of `environment:`
entries); the scheme, with its `+driver`, is what this module gives. Only `://` is
searched for and at most 64 characters are read back from each, so hostile text costs
linear time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final, Literal

#: What a file is read as.
FileKind = Literal["environment", "shell", "compose", "settings"]

_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\+[A-Za-z0-9_]+)?")
_SCHEME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+")
#: Characters read back from `://` for a scheme (the longest real one is 25).
_SCHEME_LIMIT: Final = 64
_TEST_WORDS: Final = frozenset({"test", "tests", "testing"})
_EXAMPLE_WORDS: Final = frozenset({"example", "examples", "sample", "samples", "template", "dist"})
_TEST_FILES: Final = frozenset({"pytest.ini", "tox.ini"})
#: Sections of settings files that configure tests (`[tool:pytest]`, `[tool.coverage.run]`).
_TEST_SECTIONS: Final = ("pytest", "tox", "testenv", "coverage", "nox")
_SHELL_NAMES: Final = frozenset({"procfile", "dockerfile", "containerfile"})
_SHELL_SUFFIXES: Final = (".sh", ".bash", ".zsh", ".dockerfile")
_SETTINGS_SUFFIXES: Final = (".ini", ".cfg", ".toml", ".conf", ".yml", ".yaml")
#: Settings files made of `[sections]`.
_SECTIONED: Final = (".ini", ".cfg", ".toml", ".conf")


@dataclass(frozen=True)
class FileUrl:
    """A connection URL's scheme at a line of a file."""

    line: int
    scheme: str  # as written, with its driver: "postgresql+psycopg"
    kind: FileKind


def file_kind(relpath: str) -> FileKind | None:
    """What the file at `relpath` is read as (None: it is not read for URLs)."""
    path = PurePosixPath(relpath.lower())
    name = path.name
    words = set(re.split(r"[._-]+", name))
    if _TEST_WORDS & (words | set(path.parts[:-1])) or name in _TEST_FILES:
        return None
    if _EXAMPLE_WORDS & words:
        return None
    if name == ".env" or name.startswith(".env.") or name.endswith(".env"):
        return "environment"
    if name in _SHELL_NAMES or name.endswith(_SHELL_SUFFIXES):
        return "shell"
    if name.endswith((".yml", ".yaml")):
        if name.startswith((".", "pipelines")) or "pipelines" in words:
            return None  # CI configuration
        if name.startswith(("docker-compose", "compose")):
            return "compose"
    if name.endswith(_SETTINGS_SUFFIXES):
        return "settings"
    if name.endswith(".json") and ("settings" in name or "config" in name):
        return "settings"
    return None


def file_urls(relpath: str, text: str) -> Iterator[FileUrl]:
    """Every connection URL scheme in the file at `relpath` holding `text` (nothing for
    a file `file_kind` does not read)."""
    kind = file_kind(relpath)
    if kind is None:
        return
    lines = _compose_lines(text) if kind == "compose" else _plain_lines(text, relpath)
    for number, line in lines:
        for scheme in _schemes(line):
            yield FileUrl(number, scheme, kind)


def _plain_lines(text: str, relpath: str) -> Iterator[tuple[int, str]]:
    """Lines that are not comments, outside the test sections of an INI or TOML file."""
    lowered = relpath.lower()
    comments = ("#", ";") if lowered.endswith((".ini", ".cfg")) else ("#",)
    sections = lowered.endswith(_SECTIONED)
    in_test_section = False
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if sections and stripped.startswith("["):
            header = stripped.lower()
            in_test_section = any(word in header for word in _TEST_SECTIONS)
            continue
        if in_test_section or not stripped or stripped.startswith(comments):
            continue
        yield number, line


def _compose_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of a compose file's `environment:` entries (the key's own line for a
    flow mapping or list written on it), comments aside."""
    block: int | None = None  # the indentation of the `environment:` key being read
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        # The block ends at a line no deeper than its key (a list may sit at the key's
        # own indentation: `environment:` then `- KEY=value` below it).
        if block is not None and (indent < block or (indent == block and stripped[0] != "-")):
            block = None
        key, colon, rest = stripped.removeprefix("- ").partition(":")
        if colon and key.strip().strip("\"'") == "environment":
            block = indent
            if rest.strip():
                yield number, rest
            continue
        if block is not None:
            yield number, line


def _schemes(line: str) -> Iterator[str]:
    """The scheme (with driver) before each `://` of `line`."""
    at = line.find("://")
    while at >= 0:
        start = at
        while start > 0 and at - start < _SCHEME_LIMIT and line[start - 1] in _SCHEME_CHARS:
            start -= 1
        found = _SCHEME.fullmatch(line, start, at)
        if found is not None and at > start:
            yield found.group()
        at = line.find("://", at + 3)

"""The languages code under evaluation may be written in, looked up by name.

What the code layer does differently per language (which files of a project are source,
which fences of a response hold code, what a single file is called, how a file is
parsed, how its imports are read) is keyed by the `Language` of each file, so a second
language joins by registering itself here and in the parsers and import readers, not by
editing every check. Built in: Python, JavaScript and TypeScript (`JS_FAMILY`, parsed
by ast-grep's tree-sitter grammars, see `js_tree.py`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from pytest_codeif.spec import PYTHON_SUFFIXES


@dataclass(frozen=True)
class Language:
    """One language: its name and how its code is recognised."""

    name: str
    #: Suffixes (with the dot, matched case-sensitively as the project walk does) of a
    #: project's source files in the language.
    suffixes: tuple[str, ...]
    #: Suffixes (lower case: matched ignoring case) of a task's `file:` read as source;
    #: any other file is a model response.
    file_suffixes: tuple[str, ...]
    #: Info strings of a markdown fence (and `language=` of an artifact) holding its code.
    fence_tags: frozenset[str]
    #: Suffix given to code that has no file name of its own (inline code, a response).
    single_suffix: str
    #: Suffixes of files that end like source but are not (TypeScript's `.d.ts`
    #: declarations hold no code that runs, as Python's `.pyi` stubs, which are not listed
    #: either; `.min.js` bundles are build output): a project keeps them as other files
    #: (they travel to the sandbox and the type checker), no check judges them.
    not_source: tuple[str, ...] = ()


PYTHON: Final = Language(
    name="python",
    suffixes=(".py",),
    file_suffixes=PYTHON_SUFFIXES,
    fence_tags=frozenset({"python", "py", "python3", "py3", "ipython", "pycon3"}),
    single_suffix=".py",
)

JAVASCRIPT: Final = Language(
    name="javascript",
    suffixes=(".js", ".mjs", ".cjs", ".jsx"),
    file_suffixes=(".js", ".mjs", ".cjs", ".jsx"),
    fence_tags=frozenset({"javascript", "js", "jsx", "mjs", "cjs", "node", "nodejs"}),
    single_suffix=".js",
    not_source=(".min.js",),
)

TYPESCRIPT: Final = Language(
    name="typescript",
    suffixes=(".ts", ".tsx", ".mts", ".cts"),
    file_suffixes=(".ts", ".tsx", ".mts", ".cts"),
    fence_tags=frozenset({"typescript", "ts", "tsx"}),
    single_suffix=".ts",
    not_source=(".d.ts", ".d.mts", ".d.cts"),
)

#: The languages one parser family reads (ast-grep's javascript, typescript and tsx
#: grammars) and the JS/TS checks share.
JS_FAMILY: Final = frozenset({JAVASCRIPT.name, TYPESCRIPT.name})

_REGISTERED: dict[str, Language] = {
    PYTHON.name: PYTHON,
    JAVASCRIPT.name: JAVASCRIPT,
    TYPESCRIPT.name: TYPESCRIPT,
}


class UnknownLanguage(ValueError):
    """A language name no registered language answers to."""


def language(name: str) -> Language:
    """The language called `name`; `UnknownLanguage` naming the closest known one."""
    found = _REGISTERED.get(name)
    if found is not None:
        return found
    known = sorted(_REGISTERED)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownLanguage(f"unknown language {name!r}{hint}; known: {', '.join(known)}")


def languages() -> tuple[Language, ...]:
    """Every registered language, Python first."""
    return tuple(_REGISTERED.values())


def source_suffixes() -> tuple[str, ...]:
    """The suffixes of a project's source files, in every registered language."""
    return tuple(suffix for lang in _REGISTERED.values() for suffix in lang.suffixes)


def language_of_path(relpath: str) -> Language | None:
    """The language a project's file at `relpath` is source of, by its suffix; None if
    it is not source in any registered language."""
    for lang in _REGISTERED.values():
        if relpath.endswith(lang.suffixes):
            return None if relpath.endswith(lang.not_source) else lang
    return None


def language_of_file(path: str) -> Language | None:
    """The language a task's `file:` is source of (None: the file is a model response)."""
    lowered = path.lower()
    for lang in _REGISTERED.values():
        if lowered.endswith(lang.file_suffixes):
            return None if lowered.endswith(lang.not_source) else lang
    return None


@contextmanager
def registered(extra: Language) -> Iterator[Language]:
    """`extra` registered for the `with` block only: how tests (and, later, a language's
    own module) exercise the code layer's keying without a second real language."""
    if extra.name in _REGISTERED:
        raise ValueError(f"language {extra.name!r} is already registered")
    taken = set(source_suffixes()) & set(extra.suffixes)
    if taken:
        raise ValueError(f"suffixes {sorted(taken)} already belong to another language")
    _REGISTERED[extra.name] = extra
    try:
        yield extra
    finally:
        del _REGISTERED[extra.name]

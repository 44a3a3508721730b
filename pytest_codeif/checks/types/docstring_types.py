"""Types a function's docstring declares for its parameters and its return: the author's
own statement of the interface, read where there is no annotation.

Three common styles are read: Google (`Args:` then `name (type): ...`, `Returns:` then
`type: ...`), Sphinx (`:param type name:`, `:type name: type`, `:rtype: type`) and NumPy
(`Parameters` / `Returns` underlined, then `name : type`). A declared type is used when it
is a type expression (`list[str]`, `Dict[str, int]`) or a plain word for one (`string`,
`integer`, `dictionary`, `list of dicts`); prose is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

import libcst as cst

from pytest_codeif.checks.shared.annotations import normalize_annotation

_WORDS: Final = {
    "str": "str",
    "string": "str",
    "int": "int",
    "integer": "int",
    "float": "float",
    "number": "float",
    "bool": "bool",
    "boolean": "bool",
    "list": "list",
    "array": "list",
    "dict": "dict",
    "dictionary": "dict",
    "mapping": "dict",
    "tuple": "tuple",
    "set": "set",
    "none": "None",
}
_SECTION: Final = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Yields)\s*:?\s*$"
)
_GOOGLE_PARAM: Final = re.compile(r"^\s*\*{0,2}(\w+)\s*\(([^)]*)\)\s*:")
_NUMPY_PARAM: Final = re.compile(r"^\s*(\w+)\s+:\s+(.+?)\s*$")
_SPHINX_PARAM: Final = re.compile(r":param\s+(.+?)\s+(\w+)\s*:")
_SPHINX_TYPE: Final = re.compile(r":type\s+(\w+)\s*:\s*(.+)")
_SPHINX_RTYPE: Final = re.compile(r":rtype\s*:\s*(.+)")


@dataclass(frozen=True)
class Declared:
    """Declared parameter types (by name) and return type, normalized."""

    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None


def type_text(text: str) -> str | None:
    """A docstring's type text as a normalized annotation, or None if it is prose."""
    cleaned = re.sub(r",\s*optional\s*$", "", text.strip().strip("`").rstrip("."))
    word = cleaned.lower()
    if word in _WORDS:
        return _WORDS[word]
    if m := re.match(r"^(list|dict|set|tuple|array)s? of\b", word):
        return _WORDS[m.group(1)]
    if " " in re.sub(r"\[.*\]|,\s", "", cleaned) or not cleaned:
        return None  # words outside brackets: a sentence, not a type
    try:
        return normalize_annotation(cleaned)
    except ValueError:
        return None


def declared(function: cst.FunctionDef) -> Declared:
    """The types `function`'s docstring declares."""
    doc = function.get_docstring(clean=True)
    if not doc:
        return Declared()
    params: dict[str, str] = {}
    returns: str | None = None
    for m in _SPHINX_PARAM.finditer(doc):
        _keep(params, m.group(2), m.group(1))
    for m in _SPHINX_TYPE.finditer(doc):
        _keep(params, m.group(1), m.group(2))
    if rtype := _SPHINX_RTYPE.search(doc):
        returns = type_text(rtype.group(1))
    section = ""
    lines = doc.splitlines()
    for index, line in enumerate(lines):
        if heading := _SECTION.match(line):
            section = heading.group(1).lower()
            continue
        if set(line.strip()) == {"-"}:
            continue  # a NumPy underline
        if section in ("args", "arguments", "parameters", "params"):
            if entry := _GOOGLE_PARAM.match(line) or _NUMPY_PARAM.match(line):
                _keep(params, entry.group(1), entry.group(2))
        elif section in ("returns", "return") and line.strip():
            if returns is None:
                returns = _return_line(line, lines[index + 1 : index + 2])
            section = "read"  # only the section's first line names the type
    return Declared(params, returns)


def _keep(params: dict[str, str], name: str, text: str) -> None:
    found = type_text(text)
    if found is not None:
        params.setdefault(name, found)


def _return_line(line: str, following: list[str]) -> str | None:
    """`tuple[int, str]: the ...` (Google) or a bare type line (NumPy)."""
    text = line.strip()
    head, colon, _ = text.partition(":")
    if colon and (found := type_text(head)):
        return found
    if not colon and following and set(following[0].strip()) != {"-"}:
        return type_text(text)
    return None

"""Explicit, checkable requirements read from an instruction's prose: the functions and
classes it names, the libraries and stores it says to use, comments it asks for, output it
says to print, built-ins it rules out.

MultiCodeIF leaves a scenario ("You are a beginner...", "for a retail enterprise...") to
an LLM judge comparing the response with a reference. What a scenario prompt states in so
many words is decidable, and is what these rules read; the setting itself (persona,
audience, "simple", "secure") is not, and an importer says so beside the constraints.
Each rule is a phrase pattern, not a guess: a prompt that names nothing gets nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

#: Words naming a library or store -> the constraint that decides its use. A store
#: reached through several client libraries accepts any of them (`require-any`).
_LIBRARIES: Final[list[tuple[str, dict[str, Any]]]] = [
    (r"\bpandas\b", {"check": "imports", "require": ["pandas"]}),
    (r"\bnumpy\b", {"check": "imports", "require": ["numpy"]}),
    (r"\bmatplotlib\b", {"check": "imports", "require": ["matplotlib"]}),
    (r"\bsqlalchemy\b", {"check": "imports", "require-any": ["sqlalchemy", "flask_sqlalchemy"]}),
    (r"\bredis\b", {"check": "imports", "require-any": ["redis", "aioredis"]}),
    (
        r"\bmongodb\b",
        {
            "check": "imports",
            "require-any": ["pymongo", "motor", "mongoengine", "flask_pymongo", "beanie"],
        },
    ),
    (r"\bflask\b", {"check": "framework", "framework": "flask"}),
    (r"\bdjango\b", {"check": "framework", "framework": "django"}),
    (r"\bfastapi\b", {"check": "framework", "framework": "fastapi"}),
]
#: Stores and formats a standard module serves, unless a library named above does the
#: job (SQLite through SQLAlchemy, a CSV file through pandas).
_FORMATS: Final[list[tuple[str, str | None, list[str]]]] = [
    (r"\bsqlite\b", r"\bsqlalchemy\b", ["sqlite3", "sqlalchemy", "aiosqlite"]),
    (r"\bcsv files?\b", r"\bpandas\b", ["csv", "pandas"]),
    (r"\bjson files?\b", None, ["json"]),
]
_NAME: Final = r"[A-Za-z_]\w*"
#: "a function named f", "function called `f`", "a function `f`" (a bare word after
#: "function" is prose: "the function definition").
_FUNCTION: Final = re.compile(
    rf"\b(?:function|method)\s+(?:(?:named|called)\s+[`'\"]?({_NAME})|`({_NAME})`)"
)
#: "class `A`", "classes `A` and `B`", "classes for `A`, `B` and `C`" (backticks only:
#: "the class of problems" names no class).
_CLASSES: Final = re.compile(r"\bclass(?:es)?\s+(?:for\s+)?((?:`\w+`(?:\s*,\s*|\s+and\s+)?)+)")
_BASE: Final = re.compile(r"\bbase class\s+`(\w+)`")
_DERIVED: Final = re.compile(
    r"\b(?:derived|sub)[- ]?class(?:es)?\s+((?:`\w+`(?:\s*,\s*|\s+and\s+)?)+)"
)
_COMMENTS: Final = re.compile(
    r"\b(?:well[- ]commented|(?:include|add|with|detailed|clear)\s+comments)\b", re.IGNORECASE
)
_EACH_FUNCTION: Final = re.compile(r"\beach (?:function|method)\b", re.IGNORECASE)
_FUNCTION_PRINTS: Final = re.compile(
    r"\bfunction\s+(?:should|must|will|needs to)\s+(?:also\s+)?print", re.IGNORECASE
)
_PRINT: Final = re.compile(r"\bprint(?:s|ing)?\b", re.IGNORECASE)
_NO_PRINT: Final = re.compile(r"\b(?:not|never|without|no)\s+(?:\w+\s+){0,2}print", re.IGNORECASE)
_NO_BUILTIN_SORT: Final = re.compile(
    r"\b(?:not|without)\s+(?:use|using)\s+(?:python'?s\s+)?built-?in\s+sort", re.IGNORECASE
)
#: Words the function pattern catches that name no function ("a function that", "the
#: function should").
_NOT_NAMES: Final = frozenset(
    {"that", "which", "should", "must", "to", "in", "for", "with", "and", "or", "the", "a", "an"}
)


#: Sources of random bytes fit for a salt or a key (a CSPRNG), by qualified name.
RANDOM_BYTES: Final = (
    "os.urandom",
    "secrets.token_bytes",
    "secrets.token_hex",
    "secrets.token_urlsafe",
    "Crypto.Random.get_random_bytes",
    "nacl.utils.random",
)
#: "hashing with a 32-byte salt", "a salt of 16 bytes", "a random salt".
_SALT_SIZE: Final = re.compile(
    r"\b(\d+)[- ]?bytes?\s+(?:random\s+|cryptographic(?:ally secure)?\s+|unique\s+)?salt\b"
    r"|\bsalt\s+(?:of|with)\s+(\d+)\s+bytes\b",
    re.IGNORECASE,
)
_RANDOM_SALT: Final = re.compile(r"\b(?:random|unique|new|per-\w+)\s+salts?\b", re.IGNORECASE)
_MEMORY_MAP: Final = re.compile(r"\bmemory[- ]mapp(?:ed|ing)\b|\bmmap\b", re.IGNORECASE)
#: "auto-discovery of plugins", "discovers plugins", "plugins loaded dynamically".
_DISCOVERY: Final = re.compile(
    r"\bauto[- ]?discover\w*|\bdiscover\w*\s+(?:\w+\s+){0,2}(?:plugins?|modules?)\b"
    r"|\b(?:plugins?|modules?)\s+(?:\w+\s+){0,2}(?:discovered|loaded dynamically)\b"
    r"|\bdynamically\s+load\w*\s+(?:plugins?|modules?)\b",
    re.IGNORECASE,
)
#: Ways Python finds and imports modules at run time.
DYNAMIC_IMPORTS: Final = (
    "importlib.import_module",
    "importlib.util.spec_from_file_location",
    "importlib.metadata.entry_points",
    "pkgutil.iter_modules",
    "pkgutil.walk_packages",
    "__import__",
)
#: "accept a tax rate provider interface", "inject a clock interface".
_INJECTED: Final = re.compile(
    r"\b(?:accept|take|receive|inject)\w*\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}interface\b",
    re.IGNORECASE,
)


@dataclass
class Requirements:
    """The constraints read from a prompt, and what of it they leave undecided."""

    constraints: list[dict[str, Any]] = field(default_factory=list)
    read: list[str] = field(default_factory=list)


def _backticked(text: str) -> list[str]:
    return re.findall(r"`(\w+)`", text)


def named_functions(prompt: str) -> list[str]:
    """Every function the prompt names, in order of first mention."""
    found = [a or b for a, b in _FUNCTION.findall(prompt) if (a or b).lower() not in _NOT_NAMES]
    return list(dict.fromkeys(found))


def named_classes(prompt: str) -> tuple[list[str], dict[str, list[str]]]:
    """The classes the prompt names, and each derived class's named base."""
    classes = [name for m in _CLASSES.finditer(prompt) for name in _backticked(m.group(1))]
    bases: dict[str, list[str]] = {}
    base = _BASE.search(prompt)
    if base:
        for m in _DERIVED.finditer(prompt):
            for name in _backticked(m.group(1)):
                bases[name] = [base.group(1)]
                classes.append(name)
    return list(dict.fromkeys(classes)), bases


def read_requirements(prompt: str) -> Requirements:
    """The explicit requirements `prompt` states, as constraints (see the module doc)."""
    out = Requirements()
    functions = named_functions(prompt)
    _names(functions, named_classes(prompt), out)
    _libraries(prompt.lower(), out)
    if _COMMENTS.search(prompt):
        # A docstring is how Python comments a definition, so either opens one. "Explain
        # each function" judges every function and method; "comments explaining each
        # part of the script" each module-level part, a class's comment covering it.
        comments: dict[str, Any] = {"check": "comments", "function-start": "either"}
        if not _EACH_FUNCTION.search(prompt):
            comments["top-level"] = True
        out.constraints.append(comments)
        out.read.append("comments")
    if _PRINT.search(prompt) and not _NO_PRINT.search(prompt):
        prints: dict[str, Any] = {"check": "calls", "require": ["print"]}
        # "The function should also print each number": inside it, not in an example
        # call below it that prints what it returns.
        if _FUNCTION_PRINTS.search(prompt) and len(functions) == 1:
            prints["function"] = functions[0]
        out.constraints.append(prints)
        out.read.append("print")
    if _NO_BUILTIN_SORT.search(prompt):
        out.constraints.append({"check": "calls", "forbid": ["sorted", "list.sort"]})
        out.read.append("no built-in sort")
    read_practices(prompt, out)
    return out


def read_practices(prompt: str, out: Requirements) -> None:
    """Engineering practices a prompt names that the code shows: a salt of a stated size
    drawn from a secure random source (a hard-coded salt is none); a file read through
    a memory map backed by the file (not anonymous memory, and not read whole besides);
    a collaborator received through an interface (dependency injection); plugins or
    modules discovered at run time (an import by name: `importlib`, `pkgutil`, entry
    points)."""
    size = _SALT_SIZE.search(prompt)
    if size or _RANDOM_SALT.search(prompt):
        salt: dict[str, Any] = {"check": "calls", "require-any": list(RANDOM_BYTES)}
        if size:
            nbytes = int(size.group(1) or size.group(2))
            salt["arguments"] = [{"position": 1, "keyword": "nbytes", "one-of": [nbytes]}]
        out.constraints.append(salt)
        out.read.append("a random salt")
    if _MEMORY_MAP.search(prompt):
        out.constraints.append(
            {
                "check": "calls",
                "require-any": ["mmap.mmap", "numpy.memmap"],
                "arguments": [{"position": 1, "keyword": "fileno", "not-one-of": [-1]}],
            }
        )
        out.constraints.append(
            {
                "check": "pattern",
                "any": ["$F.read()", "$F.readlines()", "$F.read(-1)"],
                "message": "Do not read the whole file into memory: read it through the "
                "memory map, a line or a slice at a time.",
            }
        )
        out.read.append("a memory-mapped file")
    if _INJECTED.search(prompt):
        out.constraints.append({"check": "dependency-injection"})
        out.read.append("an injected interface")
    if _DISCOVERY.search(prompt):
        out.constraints.append({"check": "calls", "require-any": list(DYNAMIC_IMPORTS)})
        out.read.append("plugins discovered at run time")


def _names(
    functions: list[str], named: tuple[list[str], dict[str, list[str]]], out: Requirements
) -> None:
    classes, bases = named
    if not (functions or classes):
        return
    defines: dict[str, Any] = {"check": "defines"}
    if functions:
        defines["functions"] = functions
    if classes:
        defines["classes"] = classes
    if bases:
        defines["bases"] = bases
    out.constraints.append(defines)
    out.read.append("names")


def _libraries(lowered: str, out: Requirements) -> None:
    required: list[str] = []  # one `imports` constraint for every library named
    for pattern, constraint in _LIBRARIES:
        if re.search(pattern, lowered):
            if set(constraint) == {"check", "require"}:
                required += constraint["require"]
            else:
                out.constraints.append(dict(constraint))
            out.read.append(pattern.replace("\\b", ""))
    if required:
        out.constraints.append({"check": "imports", "require": required})
    for pattern, served_by, modules in _FORMATS:
        if re.search(pattern, lowered) and not (served_by and re.search(served_by, lowered)):
            out.constraints.append({"check": "imports", "require-any": list(modules)})
            out.read.append(modules[0])

"""The catalog of samplable constraints: the built-in checks' families (below) and
those third-party checks offer through their `samplable` attribute, read from a check
registry, with the conflict table made symmetric.

Which built-in checks are here, and why the others are not: a family must be stated
as one instruction to a model writing a single function, and judged the same on every
machine. `complexity` measures time and is left out (a verdict near a threshold can
change with the machine's load, so a witness's pass would not carry to the run); the
architecture checks (`layers`, `independence`, `acyclic`...), the data-access and web
checks (`orm-only`, `routes`, `database`...) and `files` judge projects, not the one
module a base problem's answer is; `values`, `types` and `algorithm` need task-specific
expectations a generator cannot invent. The rest offer what they can state: constructs
required or forbidden, naming styles, calls and imports, comments and docstrings, a
fully annotated signature, a Python version, `mypy --strict`, ruff rules, no global
state, declaration rules and a data structure to use.

Conflicts are IFEval's: two families that contradict each other (`forbid loop` and
`require loop`) or that one implies (`forbid loop` and `forbid while-loop`) are never
drawn into one task. A contradiction the table misses is still never kept: no reference
can satisfy both, and every kept task is one its reference satisfies.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pytest_codeif.checks.base import Check
from pytest_codeif.generate.constraint_family import (
    Family,
    FamilyError,
    conflict_table,
    family_from,
    verify,
)


def _family(  # noqa: PLR0917 - a table of entries reads best positionally
    id: str,
    check: str,
    options: Mapping[str, Any],
    wordings: Sequence[str],
    conflicts: Iterable[str] = (),
    variants: Sequence[Mapping[str, Any]] = ({},),
) -> Family:
    return Family(id, check, options, tuple(wordings), frozenset(conflicts), tuple(variants))


_MODULES: Final = tuple(
    {"module": m} for m in ("collections", "functools", "itertools", "math", "re")
)

#: The built-in checks' families, by check name.
BUILTIN_FAMILIES: Final[tuple[Family, ...]] = (
    # construct: shapes of the code
    _family(
        "construct-forbid-loop",
        "construct",
        {"forbid": ["loop"]},
        (
            "Do not use any loop: no `for` and no `while` statement (comprehensions are allowed).",
            "Write the code without `for` or `while` loops.",
            "Avoid loop statements entirely: neither `for` nor `while` may appear.",
        ),
        ("construct-require-loop", "construct-forbid-while"),
    ),
    _family(
        "construct-require-loop",
        "construct",
        {"require": ["loop"]},
        (
            "Use at least one `for` or `while` loop.",
            "Solve it with an explicit loop (`for` or `while`).",
        ),
    ),
    _family(
        "construct-forbid-while",
        "construct",
        {"forbid": ["while-loop"]},
        ("Do not use `while` loops.", "Never write a `while` statement."),
    ),
    _family(
        "construct-require-recursion",
        "construct",
        {"require": ["recursion"]},
        (
            "Solve the problem recursively: one of your functions must call itself.",
            "Use recursion.",
        ),
        ("construct-forbid-recursion",),
    ),
    _family(
        "construct-forbid-recursion",
        "construct",
        {"forbid": ["recursion"]},
        (
            "Do not use recursion: no function may call itself, directly or through "
            "another function.",
            "Write the solution without recursion.",
        ),
    ),
    _family(
        "construct-require-comprehension",
        "construct",
        {"require": ["comprehension"]},
        (
            "Use at least one comprehension (a list, set or dict comprehension, or a "
            "generator expression).",
            "Build at least one collection with a comprehension.",
        ),
        ("construct-forbid-comprehension",),
    ),
    _family(
        "construct-forbid-comprehension",
        "construct",
        {"forbid": ["comprehension"]},
        (
            "Do not use comprehensions or generator expressions.",
            "Write no list, set or dict comprehension and no generator expression.",
        ),
    ),
    _family(
        "construct-forbid-lambda",
        "construct",
        {"forbid": ["lambda"]},
        ("Do not use `lambda` expressions.", "Define every function with `def`: no `lambda`."),
    ),
    _family(
        "construct-forbid-try",
        "construct",
        {"forbid": ["try"]},
        ("Do not use `try` statements.", "Handle every case without `try`/`except`."),
    ),
    _family(
        "construct-forbid-class",
        "construct",
        {"forbid": ["class"]},
        ("Do not define any class.", "Write functions only: no `class` statement."),
    ),
    _family(
        "construct-require-type-hint",
        "construct",
        {"require": ["type-hint"]},
        ("Use type hints.", "Annotate the code with type hints."),
        ("construct-forbid-type-hint",),
    ),
    _family(
        "construct-forbid-type-hint",
        "construct",
        {"forbid": ["type-hint"]},
        (
            "Do not write any type annotations.",
            "Leave the code unannotated: no type hints anywhere.",
        ),
        ("signature-annotated", "mypy-strict", "declarations-annotated-variables"),
    ),
    # naming
    _family(
        "naming-functions-snake-case",
        "naming",
        {"function": "snake_case"},
        ("Name every function in snake_case.", "Use snake_case for function names."),
    ),
    _family(
        "naming-variables-snake-case",
        "naming",
        {"variable": "snake_case"},
        ("Name every variable in snake_case.", "Use snake_case for all variable names."),
        ("naming-variables-camel-case",),
    ),
    _family(
        "naming-variables-camel-case",
        "naming",
        {"variable": "camelCase"},
        ("Name every variable in camelCase.", "Use camelCase for all variable names."),
        ("ruff-pep8-naming",),
    ),
    # calls
    _family(
        "calls-forbid-sort",
        "calls",
        {"forbid": ["sorted", "list.sort"]},
        (
            "Do not sort with the library: call neither `sorted()` nor `.sort()`.",
            "Do not use `sorted()` or the `sort()` method.",
        ),
        ("calls-require-sorted",),
    ),
    _family(
        "calls-require-sorted",
        "calls",
        {"require": ["sorted"]},
        ("Use the built-in `sorted()` function.", "Call `sorted()` somewhere in the solution."),
    ),
    _family(
        "calls-require-enumerate",
        "calls",
        {"require": ["enumerate"]},
        ("Use the built-in `enumerate()` at least once.", "Iterate with `enumerate()` somewhere."),
    ),
    _family(
        "calls-forbid-print",
        "calls",
        {"forbid": ["print"]},
        ("Do not print anything: return the result instead.", "Never call `print()`."),
    ),
    _family(
        "calls-forbid-eval",
        "calls",
        {"forbid": ["eval", "exec"]},
        ("Never call `eval` or `exec`.", "Do not run code from strings (`eval`, `exec`)."),
    ),
    _family(
        "calls-forbid-map-filter",
        "calls",
        {"forbid": ["map", "filter"]},
        ("Do not call `map()` or `filter()`.", "Avoid the built-ins `map` and `filter`."),
    ),
    # imports
    _family(
        "imports-forbid",
        "imports",
        {"forbid": ["{module}"]},
        ("Do not import the `{module}` module.", "Solve it without the `{module}` module."),
        ("imports-require",),
        _MODULES,
    ),
    _family(
        "imports-require",
        "imports",
        {"require": ["{module}"]},
        (
            "Import the standard library's `{module}` module and use it.",
            "Your solution must use the `{module}` module.",
        ),
        (),
        _MODULES,
    ),
    _family(
        "imports-standard-library-only",
        "imports",
        {"forbid": ["numpy", "pandas", "scipy"]},
        (
            "Use only the standard library: do not import numpy, pandas or scipy.",
            "No third-party libraries such as numpy, pandas or scipy.",
        ),
    ),
    # comments and docstrings
    _family(
        "comments-docstrings",
        "comments",
        {"docstrings": "required"},
        (
            "Give every public function and class a docstring.",
            "Document each public function and class with a docstring.",
        ),
        ("comments-no-docstrings", "comments-docstring-parameters"),
    ),
    _family(
        "comments-no-docstrings",
        "comments",
        {"docstrings": "forbidden"},
        ("Do not write docstrings.", "Write no docstrings at all."),
        ("comments-docstring-parameters",),
    ),
    _family(
        "comments-docstring-parameters",
        "comments",
        {"docstrings": "required", "docstring-mentions": ["parameters"]},
        (
            "Give every public function a docstring that names each of its parameters.",
            "Document every public function with a docstring mentioning all its parameters.",
        ),
    ),
    _family(
        "comments-some",
        "comments",
        {"min-comments": 1},
        (
            "Add at least one `#` comment explaining the code.",
            "Explain the code with `#` comments (at least one).",
        ),
        ("comments-none",),
    ),
    _family(
        "comments-none",
        "comments",
        {"max-comments": 0},
        ("Do not write any `#` comments.", "Write no `#` comments at all."),
        ("comments-function-start",),
    ),
    _family(
        "comments-function-start",
        "comments",
        {"function-start": "comment"},
        (
            "Start every function with a `#` comment saying what it does.",
            "Open each function with a `#` comment describing it.",
        ),
    ),
    # interface and types
    _family(
        "signature-annotated",
        "signature",
        {"function": "{function}", "fully-annotated": True},
        (
            "Annotate every parameter of `{function}` and its return type.",
            "Give `{function}` full type annotations: each parameter and the return value.",
        ),
    ),
    _family(
        "mypy-strict",
        "mypy",
        {"strict": True},
        (
            "The code must type-check with `mypy --strict`.",
            "Write fully typed code that `mypy --strict` accepts without errors.",
        ),
    ),
    # environment
    _family(
        "python-version-max",
        "python-version",
        {"version": "{version}"},
        (
            "The code must run on Python {version}: use no syntax or standard-library "
            "feature newer than Python {version}.",
            "Stay compatible with Python {version}.",
        ),
        ("python-version-uses",),
        ({"version": "3.8"}, {"version": "3.9"}),
    ),
    _family(
        "python-version-uses",
        "python-version",
        {"uses": "{version}"},
        ("Use at least one feature introduced in Python {version}, such as {example}.",),
        (),
        (
            {"version": "3.8", "example": "the walrus operator `:=`"},
            {"version": "3.10", "example": "a `match` statement or `X | Y` union types"},
        ),
    ),
    # code quality and style
    _family(
        "ruff-line-length",
        "ruff",
        {"select": ["E501"], "line-length": "{length}"},
        (
            "Keep every line at most {length} characters long.",
            "No line may be longer than {length} characters.",
        ),
        (),
        ({"length": 79}, {"length": 100}),
    ),
    _family(
        "ruff-max-complexity",
        "ruff",
        {"select": ["C901"], "max-complexity": "{limit}"},
        (
            "Keep the cyclomatic complexity of every function at most {limit}.",
            "No function may have a McCabe complexity above {limit}.",
        ),
        (),
        ({"limit": 3}, {"limit": 5}),
    ),
    _family(
        "ruff-pep8-naming",
        "ruff",
        {"select": ["N"]},
        (
            "Follow PEP 8's naming conventions.",
            "Name things as PEP 8 says: snake_case functions and variables, PascalCase classes.",
        ),
    ),
    _family(
        "ruff-no-unused",
        "ruff",
        {"select": ["F401", "F841"]},
        (
            "Leave no unused imports and no unused local variables.",
            "Every import and every local variable must be used.",
        ),
    ),
    _family(
        "global-state",
        "global-state",
        {"strict": True},
        (
            "Do not use global variables: no `global` statement and no module-level list, "
            "dict or set.",
            "Keep no mutable state at module level.",
        ),
    ),
    _family(
        "declarations-min-name-length",
        "declarations",
        {"min-name-length": "{length}"},
        (
            "Give every function, parameter and variable a name of at least {length} "
            "characters (loop variables and `_` aside).",
            "Use names of {length} characters or more for functions, parameters and "
            "variables (loop variables aside).",
        ),
        (),
        ({"length": 3},),
    ),
    _family(
        "declarations-annotated-variables",
        "declarations",
        {"annotated-variables": True},
        (
            "Annotate every variable where it is first assigned (`total: int = 0`).",
            "Declare each variable with a type annotation at its first assignment.",
        ),
    ),
    _family(
        "declarations-variables-at-top",
        "declarations",
        {"variables-at-top": True},
        (
            "Assign every local variable at the top of its function, before other "
            "statements (loop variables aside).",
            "Open each function with the assignments of all its local variables.",
        ),
    ),
    # data structures
    _family(
        "data-structure-use",
        "data-structure",
        {"type": "{type}"},
        ("Use {name} in your solution.", "Your solution must use {name}."),
        (),
        (
            {"type": "set", "name": "a set"},
            {"type": "dict", "name": "a dictionary"},
            {"type": "collections.deque", "name": "a `collections.deque`"},
            {"type": "heapq", "name": "a heap (the `heapq` module)"},
        ),
    ),
)


@dataclass(frozen=True)
class Catalog:
    """The samplable families in id order, their conflicts, and what could not be read."""

    families: tuple[Family, ...]
    conflicts: Mapping[str, frozenset[str]]
    #: Entries left out, and conflicts naming no family, each said in a sentence.
    warnings: tuple[str, ...] = field(default=())

    def select(self, include: Sequence[str], exclude: Sequence[str]) -> Catalog:
        """The families whose id matches a pattern of `include` (all when empty) and
        none of `exclude` (shell-style patterns: `construct-*`)."""
        kept = tuple(
            f
            for f in self.families
            if (not include or any(fnmatch.fnmatchcase(f.id, p) for p in include))
            and not any(fnmatch.fnmatchcase(f.id, p) for p in exclude)
        )
        return replace(self, families=kept)

    def clash(self, family: str, chosen: Iterable[str]) -> bool:
        """True when `family` conflicts with one of `chosen` (or is one of them)."""
        others = self.conflicts.get(family, frozenset({family}))
        return any(name in others for name in chosen)


def catalog_of(checks: Iterable[type[Check]]) -> Catalog:
    """The catalog of registered `checks`: the built-in families of built-in checks,
    and every family a check's `samplable` attribute declares. An entry that cannot be
    used (malformed, options its check refuses, an id already taken) is left out with
    a warning; so is a built-in family whose check is not registered."""
    by_name = {check.name: check for check in checks}
    families: list[Family] = []
    warnings: list[str] = []
    taken: set[str] = set()

    def add(family: Family) -> None:
        if family.id in taken:
            warnings.append(f"{family.origin}: samplable id `{family.id}` is already taken")
            return
        taken.add(family.id)
        observes = bool(getattr(by_name[family.check], "observes_calls", False))
        families.append(replace(family, observes_calls=observes))

    for family in BUILTIN_FAMILIES:
        check = by_name.get(family.check)
        if check is None:
            warnings.append(f"built-in `{family.id}`: check `{family.check}` is not registered")
            continue
        try:
            verify(family, check.options_schema)
        except FamilyError as exc:
            warnings.append(f"built-in `{family.id}`: {exc}")
            continue
        add(family)
    for name in sorted(by_name):
        check = by_name[name]
        entries = getattr(check, "samplable", None)
        if entries is None:
            continue
        origin = f"{check.__module__}.{check.__qualname__}"
        if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Sequence):
            warnings.append(f"{origin}: `samplable` must be a list of entries")
            continue
        for number, entry in enumerate(entries, 1):
            try:
                add(family_from(entry, name, origin, check.options_schema))
            except FamilyError as exc:
                warnings.append(f"{origin}: samplable entry {number} left out: {exc}")
    known = {family.id for family in families}
    for family in families:
        for other in sorted(family.conflicts - known):
            warnings.append(f"`{family.id}` conflicts with `{other}`, which no family has")
    ordered = tuple(sorted(families, key=lambda f: f.id))
    return Catalog(ordered, conflict_table(ordered), tuple(warnings))

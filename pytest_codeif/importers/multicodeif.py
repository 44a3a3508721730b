"""MultiCodeIF records -> task files: each record's machine-readable constraint (`answer`)
becomes a configured check, its `tests` become call cases, and the model and `key` are
kept as metadata so the JSON report joins back to the benchmark's data.

Every record whose constraint cannot be mapped is reported with the reason; nothing is
dropped in silence. The mapping table is the documentation: see `map_constraint`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pytest_codeif.checks.framework import FRAMEWORKS
from pytest_codeif.checks.named_algorithm.catalogue import lookup as lookup_algorithm
from pytest_codeif.checks.named_algorithm.catalogue import names_technique
from pytest_codeif.checks.named_algorithm.js_catalogue import js_reader
from pytest_codeif.code.extract import extract_code, extract_python
from pytest_codeif.code.languages import language as language_named
from pytest_codeif.functional.growth import canonical
from pytest_codeif.importers import multicodeif_types
from pytest_codeif.importers.entry_choice import EntryChoice, choose_entry, named_function
from pytest_codeif.importers.multicodeif_js import (
    JS_LANGUAGES,
    js_entry,
    js_tests,
    map_js_constraint,
    response_js_language,
)
from pytest_codeif.importers.multicodeif_types import Mapped, TaskRecord
from pytest_codeif.importers.prompt_requirements import (
    Requirements,
    read_practices,
    read_requirements,
)
from pytest_codeif.importers.yaml_out import write_task_file

#: Raised by a mapper with the reason a record has no check (defined beside the records
#: shared with the JavaScript mapping; importers and tests catch it from here).
Unmapped = multicodeif_types.Unmapped
#: MultiCodeIF's type names -> Python annotations.
TYPES: Final = {
    "string": "str",
    "str": "str",
    "integer": "int",
    "int": "int",
    "float": "float",
    "double": "float",
    "boolean": "bool",
    "bool": "bool",
    "list": "list",
    "array": "list",
    "tuple": "tuple",
    "map": "dict",
    "dict": "dict",
    "dictionary": "dict",
    "jsonobject": "dict",
    "set": "set",
    # Shapes (see checks/shared/shapes.py) and standard-library classes.
    "graph": "graph",
    "matrix": "matrix",
    "tree": "tree",
    "deque": "collections.deque",
    "collections.deque": "collections.deque",
    "counter": "collections.Counter",
    "collections.counter": "collections.Counter",
    "defaultdict": "collections.defaultdict",
    "collections.defaultdict": "collections.defaultdict",
    "queue.queue": "queue.Queue",
    "heapq": "list",  # a heap is a list that `heapq` keeps in order
}
#: Names records put in type lists that are no type: a graph's `node` (any hashable) and
#: `none` (a parameter defaulting to None). They are left out of the list.
_NO_TYPE: Final = frozenset({"node", "none"})
#: The taxonomy's category of each `type_file`.
CATEGORIES: Final = {
    "input_output": "Interface Specification",
    "syntax": "Environment",
    "data_structure": "Data Structure",
    "algorithm": "Algorithm",
    "code_convention": "Coding Style",
    "non_functional_requirements": "Code Quality",
    "situation": "Scenario",
    "code_contextual": "Code Context",
    "example": "Exemplar",
}
_SYNTAX: Final = [
    ("generator", "generator"),
    ("yield", "generator"),
    ("list comprehension", "list-comprehension"),
    ("dictionary comprehension", "dict-comprehension"),
    ("dict comprehension", "dict-comprehension"),
    ("set comprehension", "set-comprehension"),
    ("generator expression", "generator-expression"),
    ("decorator", "decorator"),
    ("context manager", "context-manager"),
    ("walrus", "walrus"),
    ("match", "match"),
    ("async", "async-function"),
    ("f-string", "f-string"),
    ("lambda", "lambda"),
    ("dataclass", "dataclass"),
    ("type hint", "type-hint"),
    ("unpacking", "unpacking"),
]
_ALGORITHMS: Final = {
    "dynamic programming": "dynamic-programming",
    "greedy algorithm": "greedy",
    "greedy": "greedy",
    "binary search": "binary-search",
    "recursion": "recursion",
    "memoization": "memoisation",
    "breadth-first search": "bfs",
    "depth-first search": "dfs",
    "bfs": "bfs",
    "dfs": "dfs",
    "sorting": "sorting",
}
_DECLARATIONS: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "topLevelVariableDeclaration": ("declarations", {"variables-at-top": True}),
    "constantAtTop": ("declarations", {"constants-at-top": True}),
    "descriptiveNames": ("declarations", {"min-name-length": 3}),
    "disallowTypeInference": ("declarations", {"annotated-variables": True}),
    "orderedClassMembers": ("declarations", {"ordered-class-members": True}),
    "explicitTypeAnnotation": ("ruff", {"select": ["ANN"]}),
}


def _parts(answer: str) -> list[str]:
    return [p.strip() for p in answer.split(";")]


def _type(name: str) -> str:
    found = TYPES.get(name.strip().lower())
    if found is None:
        raise Unmapped(f"type {name.strip()!r} has no Python annotation to compare")
    return found


def _type_list(text: str, out: Mapped | None = None) -> list[str]:
    inner = text.strip().strip("[]")
    names = [t.strip() for t in inner.split(",") if t.strip()]
    skipped = [t for t in names if t.lower() in _NO_TYPE]
    if skipped and out is not None:
        out.left_out.append(f"{', '.join(skipped)}: no type to compare; left out of the list")
    return [_type(t) for t in names if t.lower() not in _NO_TYPE]


def _code_blocks(text: str) -> str | None:
    extracted = extract_python(text)
    return extracted.text if extracted else None


def _output_range(text: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    lowered = text.lower()
    if m := re.search(r"precision (?:to|of) (\d+) (?:digits|decimal)", lowered):
        spec.setdefault("items", {})["decimals"] = int(m.group(1))
    if "must be true" in lowered:
        spec.update({"type": "bool", "one-of": [True]})
    if "only return `true` or `false`" in lowered or "only return true or false" in lowered:
        spec["type"] = "bool"
    if m := re.search(r"range of (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)", lowered):
        spec.update({"min": float(m.group(1)), "max": float(m.group(2))})
    if m := re.search(r"size in \[(\d+),\s*(\d+)\]", lowered):
        spec.update({"min-length": int(m.group(1)), "max-length": int(m.group(2))})
    if "only integer values" in lowered:
        spec.update({"type": "dict", "leaves": {"type": "int"}})
    if lowered.startswith("string;") and ("empty string" in lowered or "character set" in lowered):
        # "return an empty string if none": a str, never None. A character set read
        # literally would fail the tests' own expected output (ids with letters).
        spec["type"] = "json-text" if "curly braces" in lowered else "str"
    if not spec:
        raise Unmapped(f"output range {text!r} is not one of the forms mapped to a value spec")
    return spec


def _interface(r: TaskRecord, out: Mapped) -> None:
    function = r.parts[1]
    if r.kind == "input_output_output_type":
        out.constraints.append(
            {"check": "types", "function": function, "returns": _type(r.parts[2])}
        )
    elif r.kind == "input_output_output_order":
        returns = f"tuple[{', '.join(_type_list(r.parts[2]))}]"
        out.constraints.append({"check": "types", "function": function, "returns": returns})
    elif r.kind.endswith("order"):
        # Records list the types the prompt stresses, not always every parameter
        # ("a list of records and two integers" is recorded as [int,int]).
        types = _type_list(r.parts[2], out)
        if not types:
            raise Unmapped(f"type list {r.parts[2]!r} names no type to compare")
        out.constraints.append(
            {
                "check": "types",
                "function": function,
                "param-types": types,
                "param-match": "in-order",
            }
        )
    else:  # "the input is a Map": one of the parameters
        out.constraints.append(
            {"check": "types", "function": function, "param-type": _type(r.parts[2])}
        )


def _output_range_check(r: TaskRecord, out: Mapped) -> None:
    if not r.has_tests or r.entry is None:
        raise Unmapped(
            "an output range is judged on observed values: needs tests and a function to call"
        )
    spec = _output_range(";".join(r.parts[1:]))
    stated = TYPES.get(r.parts[1].strip().lower())
    if "type" not in spec and stated in ("str", "int", "bool", "list", "dict", "set", "tuple"):
        spec["type"] = stated  # the record names the result's type before its range
    out.constraints.append({"check": "values", "function": r.entry, "returns": spec})


_NUMBER: Final = r"(-?\d+(?:\.\d+)?)"


def _between(text: str, what: str) -> tuple[float, float] | None:
    """`what ... between A and B` (or `from A to B`) in `text`: (A, B)."""
    pattern = what + r"[^;,]*?(?:between|from) " + _NUMBER + r"(?:x\d+)? (?:and|to) " + _NUMBER
    m = re.search(pattern, text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _whole(bounds: tuple[float, float]) -> dict[str, Any]:
    return {"min-length": int(bounds[0]), "max-length": int(bounds[1])}


def _input_spec(kind: str, text: str, out: Mapped) -> dict[str, Any]:
    """A value spec for the arguments of type `kind` from a record's range text."""
    lowered = text.lower()
    base = TYPES.get(kind, kind)
    spec: dict[str, Any] = {"type": "number" if base == "float" else base}
    if base in ("int", "float") and (bounds := _between(lowered, r"(?:value|integer|float)")):
        spec.update({"min": bounds[0], "max": bounds[1]})
    if base == "float" and (m := re.search(r"precision must not exceed (\d+)", lowered)):
        spec["decimals"] = int(m.group(1))
    if base == "dict" and (bounds := _between(lowered, "number of entries")):
        spec.update(_whole(bounds))
    if base == "dict" and (m := re.search(r"keys must match regex (\S+)", text, re.IGNORECASE)):
        spec["keys"] = {"pattern": m.group(1)}
    if base == "matrix" and (bounds := _between(lowered, r"(?:row count|dimensions)")):
        spec.update({**_whole(bounds), "items": _whole(bounds)})
        if cells := _between(lowered, "cell values"):
            spec["items"]["items"] = {"min": cells[0], "max": cells[1]}
    if base == "graph" and (bounds := _between(lowered, "number of vertices")):
        spec.update(_whole(bounds))
        if "edges" in lowered:
            out.left_out.append("the number of edges is not checked")
    if base == "list" and (bounds := _between(lowered, "integers")):
        spec["items"] = {"type": "int", "min": bounds[0], "max": bounds[1]}
    if len(spec) == 1:
        raise Unmapped(f"input range {text!r} is not one of the forms mapped to a value spec")
    return spec


def _input_range(r: TaskRecord, out: Mapped) -> None:
    """Arguments of the record's type within its range: every test case whose arguments
    are inside must return (the function handles its whole range); cases outside may
    do anything (the tests expect None, False or an error)."""
    kind, text = r.parts[2].strip().lower(), ";".join(r.parts[3:])
    if m := re.match(r"\s*typelist:\s*\((.*)\)", text, re.IGNORECASE):
        inner = ", ".join(_type(t) for t in m.group(1).split(","))
        param = f"{_type(kind)}[{inner}]"
        out.constraints.append({"check": "types", "function": r.parts[1], "param-type": param})
        return
    if not r.has_tests:
        raise Unmapped("an input range is judged on the tests' arguments: the record has none")
    spec = _input_spec(kind, text, out)
    out.constraints.append({"check": "values", "function": r.parts[1], "arguments": spec})


def _language(r: TaskRecord, out: Mapped) -> None:
    out.constraints.append({"check": "python-version", "version": "3.13"})


#: Read for "enhanced exception handling", which names no feature of any version: any
#: exception handling beyond a plain try/except, as models write it: 3.11's exception
#: groups and notes, or exception chaining (`raise ... from ...`).
_ENHANCED_EXCEPTIONS: Final = ("exception-groups", "exception-chaining")
#: What a language-version prompt names, in its words -> the `python-version` feature
#: (or features, any one of which counts) that decides it.
_VERSION_FEATURES: Final[tuple[tuple[str, str | tuple[str, ...]], ...]] = (
    (r"walrus|assignment expression", "walrus"),
    (r"positional-only|position-only", "positional-only"),
    (r"pattern matching|\bmatch\b[^.]{0,20}statement|'match'|`match`", "match"),
    (r"exception groups?|except\*|exceptiongroup", "exception-groups"),
    (r"enhanced (?:exception|error)[- ]handling", _ENHANCED_EXCEPTIONS),
    (r"self-documenting|f-strings? with `?=", "fstring-equals"),
    (r"dict(?:ionary)? (?:union|merge) operator", "dict-union"),
    (r"removeprefix|removesuffix", "str-removeprefix"),
    (r"union types?|`x \| y`", "union-types"),
    (r"parenthesi[sz]ed context managers?", "parenthesized-context-managers"),
    (r"zip\([^)]*strict|strict zip", "zip-strict"),
    (r"\btomllib\b", "tomllib"),
    (r"typing\.self\b|`self` type", "typing-self"),
    (r"taskgroup|task groups?", "task-groups"),
    (r"type parameter syntax|pep 695|generic syntax", "type-parameters"),
    (r"itertools\.batched", "itertools-batched"),
    (r"@override|typing\.override", "override"),
)
#: The prompt asks for what a version added without naming it ("the new ... provided in
#: Python 3.13", "Python 3.13's features").
_VERSION_NEWS: Final = (
    r"(?:new|latest|introduced in|provided in|added in|features of|features in)\b"
    r"[^.]{0,80}python\s*{v}\b|python\s*{v}'s\b"
)
#: The versions `python-version`'s `uses` option knows (its table's).
_FEATURE_VERSIONS: Final = frozenset(f"3.{minor}" for minor in range(5, 14))


def _version(r: TaskRecord, out: Mapped) -> None:
    """A language-version record: the code runs on the version, and where the prompt asks
    for the version's features (by name, or as "the new ... of Python X"), uses them."""
    version = r.parts[1].strip()
    if not re.fullmatch(r"3\.\d{1,2}", version):
        raise Unmapped(f"Python version {version!r} is not of the form 3.N")
    constraint: dict[str, Any] = {"check": "python-version", "version": version}
    lowered = r.prompt.lower()
    named = [f for pattern, f in _VERSION_FEATURES if re.search(pattern, lowered)]
    if "exception-groups" in named and _ENHANCED_EXCEPTIONS in named:
        named.remove(_ENHANCED_EXCEPTIONS)  # exception groups named outright decide
    if named:
        constraint["features"] = [
            f if isinstance(f, str) else list(f) for f in dict.fromkeys(named)
        ]
        if _ENHANCED_EXCEPTIONS in named:
            out.left_out.append(
                "'enhanced exception handling' names no feature of any version: read as "
                "exception groups and notes (`except*`, `ExceptionGroup`, `add_note`: 3.11) "
                "or exception chaining (`raise ... from ...`)"
            )
    elif re.search(_VERSION_NEWS.replace("{v}", re.escape(version)), lowered):
        if version in _FEATURE_VERSIONS:
            constraint["uses"] = version
        else:
            out.left_out.append(f"features of Python {version} are not in the table (3.5-3.13)")
    out.constraints.append(constraint)


def _advanced_syntax(r: TaskRecord, out: Mapped) -> None:
    feature = r.parts[1].lower()
    constructs = sorted({c for word, c in _SYNTAX if word in feature})
    if not constructs:
        raise Unmapped(f"syntax feature {r.parts[1]!r} is not a known construct")
    out.constraints.append({"check": "construct", "require": constructs})


def _function(r: TaskRecord, out: Mapped) -> None:
    out.constraints.append({"check": "calls", "require": [r.parts[1]]})


def _library(r: TaskRecord, out: Mapped) -> None:
    out.constraints.append({"check": "imports", "require": [r.parts[1]]})


def _framework(r: TaskRecord, out: Mapped) -> None:
    name = r.parts[1].lower()
    if name not in FRAMEWORKS:
        raise Unmapped(f"framework {r.parts[1]!r} has no known defining pattern")
    out.constraints.append({"check": "framework", "framework": name})


def _structure(r: TaskRecord, out: Mapped) -> None:
    options: dict[str, Any] = {"check": "data-structure", "type": r.parts[1]}
    if r.kind == "data_structure_size":
        options["max-size"] = int(r.parts[2])
    elif r.kind == "data_structure_operation":
        options["operations"] = [
            o.strip(" '\"") for o in r.parts[2].strip("[]").split(",") if o.strip()
        ]
    out.constraints.append(options)


def _algorithm(r: TaskRecord, out: Mapped) -> None:
    """A technique (dynamic programming, greedy...) for the `algorithm` check; a named
    algorithm (Kadane, Miller-Rabin, a B-tree...) for `named-algorithm`, with the
    library's implementation allowed when the record names the technique in general
    ("in-place shuffling"); any other name stays unmapped."""
    technique = _ALGORITHMS.get(r.answer.strip().lower())
    if technique is not None:
        out.constraints.append({"check": "algorithm", "require": [technique]})
        return
    named = lookup_algorithm(r.answer)
    if named is None:
        raise Unmapped(
            f"algorithm {r.answer.strip()!r} is neither a technique of `algorithm` nor in "
            "the catalogue of `named-algorithm`"
        )
    options: dict[str, Any] = {"check": "named-algorithm", "name": named.name}
    if names_technique(r.answer):
        options["allow-library"] = True
    out.constraints.append(options)


def _complexity_class(answer: str, out: Mapped) -> tuple[str, list[str]]:
    """The class to require and the parameters to hold, for a record's class: a variable
    other than n is a parameter held at the tests' value (O(k): constant in the input's
    size), unless it only bounds a log factor (O(n log k) <= O(n log n))."""
    text = answer.strip().replace(" ", "")
    if text.lower() in ("o(n/2)", "o(n/k)"):
        return "O(n)", []
    if text.lower() == "o(nlogk)":
        out.left_out.append("O(n log k) is read as O(n log n): k is at most n")
        return "O(n log n)", []
    if text.lower() == "o(k)":
        out.left_out.append("O(k) is read with `k` held at the tests' value: constant in n")
        return "O(1)", ["k"]
    return canonical(answer), []


def _complexity(r: TaskRecord, out: Mapped) -> None:
    """Measured on inputs grown from the record's tests. Some records of one kind state
    the other in their prompt ("space complexity" records asking "a time complexity of
    O(n)"): both are checked then."""
    if not r.has_tests or r.entry is None:
        why = "the record has no tests" if not r.has_tests else r.entry_why
        raise Unmapped(
            "complexity is measured on inputs grown from the record's tests: "
            f"needs tests and a function to call ({why or 'no function to call'})"
        )
    try:
        required, hold = _complexity_class(r.answer, out)
    except ValueError:
        raise Unmapped(f"complexity class {r.answer!r} is not one this check measures") from None
    lowered = r.prompt.lower()
    measures = {"space" if r.kind == "algorithm_space_complexity" else "time"}
    measures |= {m for m in ("time", "space") if f"{m} complexity" in lowered}
    constraint: dict[str, Any] = {"check": "complexity", "function": r.entry}
    constraint.update({m: required for m in sorted(measures, reverse=True)})
    if hold:
        constraint["hold"] = hold
    out.constraints.append(constraint)


def _naming(r: TaskRecord, out: Mapped) -> None:
    options: dict[str, Any] = {}
    for pair in r.parts[1].split(","):
        what, _, style = (x.strip() for x in pair.partition(":"))
        if style in ("snake_case", "camelCase", "PascalCase", "UPPER_CASE"):
            options[what] = style
        else:
            out.left_out.append(f"{what}: {style} is not a Python identifier style")
    if not options:
        raise Unmapped("no naming rule expressible for Python identifiers")
    out.constraints.append({"check": "naming", **options})


def _indentation(r: TaskRecord, out: Mapped) -> None:
    indent, spacing = r.parts[1], (r.parts[2] if len(r.parts) > 2 else "")
    if indent != "spaces:4":
        raise Unmapped(f"indentation {indent!r}: ruff checks PEP 8's four spaces only")
    # Indentation (E1, W191 tabs) and, for "spacing", whitespace around operators and
    # commas (E2) and blank lines between definitions (E3); trailing whitespace is not asked.
    select = ["E1", "W191"] + (["E2", "E3"] if spacing == "spacing" else [])
    if spacing == "no spacing":
        out.left_out.append("'no spacing' asks for the opposite of PEP 8; not checked")
    out.constraints.append({"check": "ruff", "select": select, "preview": True})


def _braces(r: TaskRecord, out: Mapped) -> None:
    """A brace style -> `brace-style`, which reads it for Python (blocks are a colon and
    indentation; braces delimit displays): see the check's documentation."""
    style = {"allman": "allman", "k&r": "k&r", "kr": "k&r", "1tbs": "1tbs"}.get(
        r.parts[1].strip().lower()
    )
    if style is None:
        raise Unmapped(f"brace style {r.parts[1]!r} is not Allman, K&R or 1TBS")
    out.constraints.append({"check": "brace-style", "style": style})


def _said_after(prompt: str, word: str) -> str:
    """What `prompt` (lower case) says after `word` in each sentence holding it: "a
    docstring describing its purpose and parameters" -> "describing its purpose..."."""
    sentences = re.split(r"(?<=[.!?])\s+", prompt.lower())
    return " ".join(s.split(word, 1)[1] for s in sentences if word in s)


def _comments(r: TaskRecord, out: Mapped) -> None:
    """A comment-style record -> the `comments` check. The style names the form (docstring,
    single-line, multi-line, inline); the prompt says where (the function it names, or
    a class and its methods) and what a docstring must cover (parameters, return value)."""
    style = r.parts[1].lower()
    options: dict[str, Any] = {"check": "comments"}
    if r.entry:  # the function the prompt names, or a class: it and its methods
        options["function"] = r.entry
    if "docstring" in style:
        options["docstrings"] = "required"
        about = _said_after(r.prompt, "docstring")
        mentions = [
            kind
            for kind, pattern in (("parameters", r"parameter|argument"), ("returns", r"return"))
            if re.search(pattern, about)
        ]
        if mentions:
            options["docstring-mentions"] = mentions
        # "Also include inline comments...", "single-line comments (// Note) for notes"
        if re.search(r"\b(?:inline|single-line|line|brief)\s+comments\b", r.prompt.lower()):
            options["min-comments"] = 1
    elif "single-line" in style or "single line" in style:
        options["function-start"] = "comment"
        if "step" in _said_after(r.prompt, "comment"):
            options["min-comments"] = 2  # the function's purpose, and at least one step
    elif "multi-line" in style or "multiline" in style or "block" in style:
        # A docstring is Python's multi-line comment as much as a block of `#` lines.
        options.update({"function-start": "either", "start-lines": 2})
    elif "inline" in style:
        options["inline"] = "required"
    else:
        raise Unmapped(f"comment style {r.parts[1]!r} is not one the comments check knows")
    out.constraints.append(options)


#: "declare all constants at the start of the function": constants belong to functions.
_FUNCTION_CONSTANTS: Final = re.compile(
    r"constants?\b[^.]{0,80}?\b(?:start|beginning|top|head)\s+of\s+(?:the|each|every|its|a)?"
    r"\s*(?:function|method)",
    re.IGNORECASE,
)
#: "members ordered from public to private", "public -> protected -> private".
_VISIBILITY_WORDS: Final = re.compile(r"\bpublic\b[^.]{0,60}\bprivate\b", re.IGNORECASE)


def _declarations(r: TaskRecord, out: Mapped) -> None:
    """A declaration style, read as the record names it and as its prompt words it:
    constants "at the start of the function" are a function's own (`constants-at-top:
    function`); members ordered "public, then protected, then private" are ordered by
    Python's visibility (`_name` protected, `__name` private), not by kind."""
    style = re.search(r"Declaration Style Type\*\*\s*:\s*(\w+)", r.answer)
    target = _DECLARATIONS.get(style.group(1)) if style else None
    if target is None:
        raise Unmapped("declaration style not recognised")
    options = dict(target[1])
    if options.get("constants-at-top") and _FUNCTION_CONSTANTS.search(r.prompt):
        options["constants-at-top"] = "function"
    if options.get("ordered-class-members") and _VISIBILITY_WORDS.search(r.prompt + r.answer):
        options = {"visibility-order": True}
    out.constraints.append({"check": target[0], **options})


def _situation(r: TaskRecord, out: Mapped) -> None:
    """A scenario -> what its prompt states in so many words (see `prompt_requirements`):
    named functions and classes, libraries and stores, comments, printed output."""
    found = read_requirements(r.prompt)
    if not found.constraints:
        raise Unmapped(
            "the scenario names no function, class, library, store or output to check: "
            "judged by the functional tests only"
        )
    out.constraints.extend(found.constraints)
    out.left_out.append(
        f"scenario read for what it names ({', '.join(found.read)}); the setting itself "
        "(persona, audience, qualities) is not decided here"
    )


def _context(r: TaskRecord, out: Mapped) -> None:
    # The prompt is the given code; the record's answer is a reference solution, which
    # may add symbols of its own (a `Graph` class the context only uses).
    context = _code_blocks(r.prompt)
    if not context:
        raise Unmapped("the record's prompt holds no Python context")
    out.constraints.append({"check": "context", "context": context})


_MAPPERS: Final[dict[str, Callable[[TaskRecord, Mapped], None]]] = {
    "input_output_input_type": _interface,
    "input_output_input_order": _interface,
    "input_output_output_type": _interface,
    "input_output_output_order": _interface,
    "input_output_output_range": _output_range_check,
    "input_output_input_range": _input_range,
    "syntax_language_type": _language,
    "syntax_language_version": _version,
    "syntax_advanced_syntax": _advanced_syntax,
    "syntax_function": _function,
    "syntax_library": _library,
    "syntax_framework": _framework,
    "data_structure_type": _structure,
    "data_structure_size": _structure,
    "data_structure_operation": _structure,
    "algorithm_type": _algorithm,
    "algorithm_time_complexity": _complexity,
    "algorithm_space_complexity": _complexity,
    "code_convention_naming_convention": _naming,
    "code_convention_indentation_spacing": _indentation,
    "code_convention_brace_block_formatting": _braces,
    "code_convention_comment_formatting": _comments,
    "code_convention_declaration_style": _declarations,
    "non_functional_requirements": lambda r, out: _quality_from_prompt(r.prompt, out),
    "situation": _situation,
    "code_contextual": _context,
    "example": lambda r, out: _exemplar(r.prompt, out),
}


#: Mappers whose reading is the same in every language: a complexity class is measured on
#: inputs grown from the tests, whatever runs them.
def _algorithm_js(r: TaskRecord, out: Mapped) -> None:
    """As `_algorithm`, except that a named algorithm `named-algorithm` does not read in
    JavaScript or TypeScript yet stays unmapped (asked of JS/TS code it is a task error)."""
    named = None if _ALGORITHMS.get(r.answer.strip().lower()) else lookup_algorithm(r.answer)
    if named is not None and js_reader(named.name) is None:
        raise Unmapped(
            f"algorithm {r.answer.strip()!r} ({named.name}): `named-algorithm` does not read "
            "it in JavaScript or TypeScript yet"
        )
    _algorithm(r, out)


#: Mappers whose reading holds in JavaScript and TypeScript as in Python.
_LANGUAGE_FREE: Final[dict[str, Callable[[TaskRecord, Mapped], None]]] = {
    "algorithm_time_complexity": _complexity,
    "algorithm_space_complexity": _complexity,
    "algorithm_type": _algorithm_js,
}


def map_constraint(record: Mapping[str, Any], entry: str | None, entry_why: str = "") -> Mapped:
    """The checks for one task record (`entry`: the function its tests call, if known;
    `entry_why`: how it was chosen or why there is none); raises `Unmapped` with the reason
    when there is no deterministic check for it."""
    kind = str(record["type_file"])
    mapper = _MAPPERS.get(kind)
    if mapper is None:
        raise Unmapped(f"unknown type {kind!r}")
    answer = str(record.get("answer") or "")
    r = TaskRecord(
        kind,
        answer,
        _parts(answer),
        str(record.get("prompt", "")),
        bool(record.get("tests")),
        entry,
        entry_why,
    )
    mapped = Mapped()
    try:
        mapper(r, mapped)
    except (IndexError, ValueError):
        raise Unmapped(f"the answer {answer[:80]!r} is not in the form {kind} uses") from None
    return mapped


#: Rules a code-quality prompt states in words -> the constraint that decides them.
_QUALITY_RULES: Final[list[tuple[str, dict[str, Any]]]] = [
    (r"snake_case", {"check": "naming", "function": "snake_case", "variable": "snake_case"}),
    (r"async/await", {"check": "construct", "require": ["async-function", "await"]}),
    (r"\buse generators\b", {"check": "construct", "require": ["generator"]}),
    (r"avoid python loops", {"check": "construct", "forbid": ["loop"]}),
    (r"\bflask\b", {"check": "framework", "framework": "flask"}),
    (r"\bfastapi\b", {"check": "framework", "framework": "fastapi"}),
]


def _quality_from_prompt(prompt: str, mapped: Mapped) -> None:
    """Code-quality records state their rules in the prompt only: the rules below are
    recognised in its words; the rest of such a prompt is not decidable here."""
    lowered = prompt.lower()
    if m := re.search(
        r"cyclomatic complexity (?:of |below |under |to )?(?:at most )?(\d+)", lowered
    ):
        mapped.constraints.append(
            {"check": "ruff", "select": ["C901"], "max-complexity": int(m.group(1))}
        )
    # "compatible with Python 3.6 to 3.12": nothing newer than the oldest, and nothing
    # the newest removed (each end its own constraint).
    if m := re.search(
        r"compatible with python (3\.\d+)(?:\s*(?:to|through|-|and)\s*(?:python\s*)?(3\.\d+))?",
        lowered,
    ):
        for version in dict.fromkeys(v for v in m.groups() if v):
            mapped.constraints.append({"check": "python-version", "version": version})
    for pattern, constraint in _QUALITY_RULES:
        if re.search(pattern, prompt, re.IGNORECASE):
            mapped.constraints.append(dict(constraint))
    practices = Requirements()
    read_practices(prompt, practices)
    mapped.constraints.extend(practices.constraints)
    if not mapped.constraints:
        raise Unmapped("the prompt states no rule mapped to a check")
    mapped.left_out.append("derived from the prompt's words; the rest of it is not decided here")


def _exemplar(prompt: str, mapped: Mapped) -> None:
    example = _code_blocks(prompt)
    if not example:
        raise Unmapped("the prompt holds no example code")
    try:
        defined = {n.name for n in ast.walk(ast.parse(example)) if isinstance(n, ast.FunctionDef)}
    except SyntaxError:
        raise Unmapped("the example code is not valid Python") from None
    if not defined:
        raise Unmapped("the example defines no function to imitate")
    options: dict[str, Any] = {"check": "exemplar", "exemplar": example}
    function = named_function(prompt, exclude=defined)
    if function:
        options["function"] = function
    named = re.findall(r"`([A-Za-z_]\w*)\(", prompt)
    example_function = next((n for n in named if n in defined), None)
    if example_function:
        options["example-function"] = example_function
    mapped.constraints.append(options)


def _tests(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    cases = []
    for test in record.get("tests") or []:
        if not isinstance(test, dict) or not isinstance(test.get("input"), dict):
            continue
        case: dict[str, Any] = {
            "input": {
                "args": list(test["input"].get("args", [])),
                "kwargs": dict(test["input"].get("kwargs", {})),
            }
        }
        case["expected_output"] = test.get("expected_output")
        if test.get("name"):
            case = {"name": str(test["name"])[:200], **case}
        cases.append(case)
    return cases


@dataclass
class ImportResult:
    """Task files written, and every record (or part) that was not mapped."""

    files: list[Path] = field(default_factory=list)
    tasks: int = 0
    constraints: int = 0
    unmapped: list[dict[str, str]] = field(default_factory=list)


def _entry(record: Mapping[str, Any], code: str | None) -> EntryChoice:
    kind = str(record["type_file"])
    if kind.startswith("input_output_") and kind != "input_output_output_range":
        parts = _parts(str(record.get("answer", "")))
        if len(parts) > 1:
            return EntryChoice(parts[1], "named by the record's answer")
    tests = [t for t in record.get("tests") or [] if isinstance(t, Mapping)]
    # Only complexity records read the entry from the response's own examples: their check
    # is what needs a function to call; elsewhere the choice would add call cases written
    # for a function the response may not have (kept as it was, pending validation).
    return choose_entry(
        named_function(str(record.get("prompt", ""))),
        code,
        tests,
        from_examples=kind in ("algorithm_time_complexity", "algorithm_space_complexity"),
    )


def task_language(record: Mapping[str, Any]) -> str | None:
    """The task file's `language` for `record`: `python` (also for a record that names
    none, as the Python corpus's do), `javascript` or `typescript`; None for a language
    not supported yet."""
    written = str(record.get("language") or "python").strip().lower()
    if written == "python":
        return "python"
    return JS_LANGUAGES.get(written)


def build_task(
    record: Mapping[str, Any], model: str, response: str, source: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """One task for one response; returns it and the notes on what was left out."""
    language = task_language(record)
    if language is None:
        return _unsupported(record, model, response, source)
    if language != "python":
        return build_js_task(record, model, response, language, source)
    code = _code_blocks(response)
    choice = _entry(record, code)
    entry = choice.name
    notes: list[str] = []
    category = CATEGORIES.get(str(record.get("category")), "Scenario")
    task = task_header(record, model, response, source)
    try:
        mapped = map_constraint(record, entry, choice.why)
        notes.extend(mapped.left_out)
        task["constraints"] = [
            {"id": f"c{i}" if i else str(c["check"]), **c, "category": category}
            for i, c in enumerate(mapped.constraints)
        ]
    except Unmapped as exc:
        notes.append(str(exc))
    tests = _tests(record)
    if tests and entry:
        task["entry-point"] = entry
        task["tests"] = tests
        task["timeout"] = 10
    elif tests:
        notes.append(f"tests not imported: {choice.why}")
    return task, notes


def task_header(
    record: Mapping[str, Any], model: str, response: str, source: str
) -> dict[str, Any]:
    """A task's id, metadata (joining the report back to the benchmark), instruction and
    response, whatever its language."""
    key = str(record["key"])
    return {
        "id": re.sub(r"[^A-Za-z0-9_.\-]", "-", key),
        "metadata": {
            "benchmark": "MultiCodeIF",
            "key": key,
            "model": model,
            "responses": source,
            "type_file": record.get("type_file"),
            "category": CATEGORIES.get(str(record.get("category")), "Scenario"),
            "answer": str(record.get("answer") or "")[:300],
        },
        "instruction": str(record.get("prompt", "")),
        "response": response,
    }


def _unsupported(
    record: Mapping[str, Any], model: str, response: str, source: str
) -> tuple[dict[str, Any], list[str]]:
    written = str(record.get("language") or "unknown")
    task = task_header(record, model, response, source)
    return task, [f"written in {written!r}: language not supported yet"]


def build_js_task(
    record: Mapping[str, Any], model: str, response: str, language: str, source: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """One JavaScript or TypeScript task: the response read in the task's language, the
    record mapped to the checks' JS/TS meanings (`multicodeif_js`), its tests run by Node."""
    task = task_header(record, model, response, source)
    notes: list[str] = []
    written = response_js_language(response, language)
    if written != language:
        # A JavaScript task answered in TypeScript (or the reverse): the code is judged
        # as what it is, else every check would find no code at all.
        notes.append(f"the response is written in {written}, not {language}: read as {written}")
    language = written
    task["language"] = language
    extracted = extract_code(response, language_named(language))
    code = extracted.text if extracted else None
    choice = js_entry(named_function(str(record.get("prompt", ""))), code)
    answer = str(record.get("answer") or "")
    r = TaskRecord(
        str(record["type_file"]),
        answer,
        _parts(answer),
        str(record.get("prompt", "")),
        bool(record.get("tests")),
        choice.name,
        choice.why,
    )
    try:
        mapped = map_js_constraint(r, language, _LANGUAGE_FREE)
        notes.extend(mapped.left_out)
        category = task["metadata"]["category"]
        task["constraints"] = [
            {"id": f"c{i}" if i else str(c["check"]), **c, "category": category}
            for i, c in enumerate(mapped.constraints)
        ]
    except Unmapped as exc:
        notes.append(str(exc))
    except (IndexError, ValueError):
        notes.append(f"the answer {answer[:80]!r} is not in the form {r.kind} uses")
    tests, why_not = js_tests(record)
    if tests and choice.name:
        task.update({"entry-point": choice.name, "tests": tests, "timeout": 10})
    elif why_not:
        notes.append(f"tests not imported: {why_not}")
    elif tests:
        notes.append(f"tests not imported: {choice.why}")
    return task, notes


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a bad line is an error naming file and line."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: expected an object")
        records.append(record)
    return records


def import_multicodeif(tasks_path: Path, responses: Iterable[Path], out: Path) -> ImportResult:
    """Write one task file per responses file (per model) into `out`."""
    records = {str(r["key"]): r for r in load_jsonl(tasks_path) if "key" in r}
    result = ImportResult()
    out.mkdir(parents=True, exist_ok=True)
    for path in responses:
        answers = load_jsonl(path)
        tasks: list[dict[str, Any]] = []
        model = path.stem
        for number, answer in enumerate(answers, 1):
            key = str(answer.get("key", ""))
            model = str(answer.get("model") or model)
            record = records.get(key)
            if record is None:
                result.unmapped.append(
                    {
                        "file": f"{path}:{number}",
                        "key": key,
                        "reason": "no task record with this key",
                    }
                )
                continue
            task, notes = build_task(record, model, str(answer.get("response") or ""), path.name)
            # The first answers are round R0; the self-repair files say their round.
            task["metadata"]["round"] = str(answer.get("round") or "R0")
            if task.get("constraints") or task.get("tests"):
                tasks.append(task)
            else:
                notes.append("task not written: nothing to check")
            result.constraints += len(task.get("constraints", []))
            result.unmapped.extend(
                {
                    "file": f"{path}:{number}",
                    "key": key,
                    "model": model,
                    "type_file": str(record.get("type_file")),
                    "reason": note,
                }
                for note in notes
            )
        name = re.sub(r"[^A-Za-z0-9_.\-]", "-", path.stem)
        target = out / f"{name}.codeif.yaml"
        header = (
            f"Imported by `codeif import multicodeif` from {tasks_path.name} and "
            f"{path.name}\n({len(tasks)} tasks). Regenerate rather than edit."
        )
        write_task_file(target, {"version": 1, "tasks": tasks}, header)
        result.files.append(target)
        result.tasks += len(tasks)
    return result

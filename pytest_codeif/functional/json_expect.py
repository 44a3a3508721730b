"""Compare a response's JSON with what a declarative HTTP case expects: a subset, values
at paths, types. The JSON comes from the code under evaluation: it is parsed with a size
cap and a depth guard, and only ever compared and shown (as a short repr)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from pytest_codeif.functional.plain import show

#: Longest response body parsed as JSON (the stage already cuts bodies at 1 MiB).
MAX_JSON_CHARS: Final = 1 << 20
_STEP: Final = re.compile(r"\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]")
_MISSING: Final = object()
_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}


class NotJson(ValueError):
    """The body is not JSON that can be read."""


def parse_json(text: str) -> Any:
    """The JSON document `text` holds; NotJson says why not."""
    if len(text) > MAX_JSON_CHARS:
        raise NotJson(f"the body has {len(text)} characters, more than are read as JSON")
    try:
        return json.loads(text)
    except RecursionError:
        raise NotJson("the body's JSON is nested too deeply to read") from None
    except ValueError as exc:
        raise NotJson(f"the body is not JSON ({exc})") from None


def at_path(document: Any, path: str) -> Any:
    """The value at `path` (`user.token`, `articles[0].slug`), or `_MISSING`."""
    current = document
    for match in _STEP.finditer(path):
        key, index = match.group(1), match.group(2)
        if key is not None:
            if not isinstance(current, dict) or key not in current:
                return _MISSING
            current = current[key]
        else:
            position = int(index)
            if not isinstance(current, list) or position >= len(current):
                return _MISSING
            current = current[position]
    return current


def found(value: Any) -> bool:
    """Whether `at_path` found something."""
    return value is not _MISSING


def json_equal(actual: Any, expected: Any) -> bool:
    """Equal as JSON values: numbers by value (1 == 1.0), never a boolean for a number,
    strings, null, and containers item by item."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        if isinstance(actual, float) and math.isnan(actual):
            return False
        return actual == expected
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(json_equal(actual[k], expected[k]) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(json_equal(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return type(actual) is type(expected) and actual == expected


def subset_problem(actual: Any, expected: Any, where: str = "") -> str | None:
    """Why `actual` does not contain `expected` (objects: the expected keys with
    matching values, others allowed; arrays: as many items, each matching), or None."""
    shown_where = where or "the body"
    if isinstance(expected, Mapping):
        if not isinstance(actual, dict):
            return f"{shown_where}: expected an object, got {show(actual)}"
        for key, value in expected.items():
            inner = f"{where}.{key}" if where else str(key)
            if key not in actual:
                return f"{inner}: missing"
            problem = subset_problem(actual[key], value, inner)
            if problem is not None:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{shown_where}: expected {len(expected)} items, got {show(actual)}"
        for index, (got, wanted) in enumerate(zip(actual, expected, strict=True)):
            problem = subset_problem(got, wanted, f"{where}[{index}]")
            if problem is not None:
                return problem
        return None
    if json_equal(actual, expected):
        return None
    return f"{shown_where}: expected {show(expected)}, got {show(actual)}"


def path_problem(document: Any, path: str, wanted: Any) -> str | None:
    """Why the value at `path` is not what `wanted` says (a value, or one of {type},
    {exists: false}, {length: N}), or None."""
    value = at_path(document, path)
    special = isinstance(wanted, Mapping) and len(wanted) == 1
    if special and wanted.get("exists") is False:
        return None if not found(value) else f"{path}: expected no value, got {show(value)}"
    if not found(value):
        return f"{path}: missing"
    if special and "type" in wanted:
        kinds = _TYPES[str(wanted["type"])]
        right = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        return None if right else f"{path}: expected a {wanted['type']}, got {show(value)}"
    if special and "length" in wanted:
        if isinstance(value, str | list | dict) and len(value) == wanted["length"]:
            return None
        return f"{path}: expected length {wanted['length']}, got {show(value)}"
    return subset_problem(value, wanted, path)

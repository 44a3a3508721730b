"""Judge one reply of the Node worker against its case, in the trusted process, and say
values as JavaScript writes them.

Values arrive in the tags of `plain.py` (see `node_harness.mjs` for the mapping) and
are compared by `plain.plain_equal`, the comparison of Python's call cases: floats within
rounding, ints exactly, a Set as a list in any order, dict keys by their text. A thrown
value is named by its class along its prototype chain: a built-in error (`TypeError`,
`RangeError`...) only when it is the built-in itself, a class of the code as
`module.Name`; `raises: Error` matches every built-in error, since all derive from it.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from pytest_codeif.functional.plain import Unsupported, decode, plain_equal
from pytest_codeif.outcome import CaseStatus
from pytest_codeif.spec import CallCase

#: JavaScript's built-in error classes (named bare by the worker only when they are).
BUILTIN_ERRORS: Final = frozenset(
    {
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "ReferenceError",
        "EvalError",
        "URIError",
        "AggregateError",
    }
)
PLAIN: Final = "a number, string, boolean, null, array, plain object, Map, Set, BigInt or Date"


def raised_matches(expected: str, names: list[str]) -> bool:
    """Whether a thrown value the worker named is the `expected` class: a built-in error
    only as the built-in itself, a class of the code by its name or `module.Name`."""
    if expected in BUILTIN_ERRORS:
        return expected in names
    return any(
        "." in name and (name == expected or name.endswith("." + expected)) for name in names
    )


def judge(case: CallCase, record: dict[str, Any]) -> tuple[CaseStatus, str]:
    """Compare one reply (a value, or what was thrown) with what the case expects."""
    if "raised" in record:
        names = [str(n) for n in record["raised"]] if isinstance(record["raised"], list) else []
        raised = names[0] if names else "an exception"
        if case.raises is not None and raised_matches(case.raises, names):
            return "passed", f"threw {raised}"
        expected = f"expected {case.raises}" if case.raises else f"expected {show(case.expect)}"
        return "failed", f"{expected}, but it threw {raised}: {record.get('message', '')}"
    actual = decode(record.get("value"))
    if case.raises is not None:
        return "failed", f"expected {case.raises} to be thrown, but it returned {show(actual)}"
    if isinstance(actual, Unsupported):
        return "failed", (
            f"expected {show(case.expect)}, but it returned {actual.what}, which is not "
            f"plain data ({PLAIN})"
        )
    if plain_equal(actual, case.expect, case.approx):
        return "passed", ""
    return "failed", f"expected {show(case.expect)}, got {show(actual)}"


def show(value: Any, limit: int = 200) -> str:
    """A short text of a decoded or expected value, as JavaScript writes it."""
    text = _js(value, 0)
    return text if len(text) <= limit else text[:limit] + "..."


def _js(value: Any, depth: int) -> str:
    if depth > 8:
        return "..."
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Unsupported):
        return f"<{value.what}>"
    if isinstance(value, (list, tuple)):
        items = [_js(v, depth + 1) for v in value[:50]]
        return "[" + ", ".join(items) + (", ..." if len(value) > 50 else "") + "]"
    if isinstance(value, dict):
        pairs = list(value.items())
        items = [f"{_key(k)}: {_js(v, depth + 1)}" for k, v in pairs[:50]]
        return "{" + ", ".join(items) + (", ..." if len(pairs) > 50 else "") + "}"
    return repr(value)[:200]


def _key(key: Any) -> str:
    text = str(key)
    return text if text.isidentifier() else json.dumps(text, ensure_ascii=False)

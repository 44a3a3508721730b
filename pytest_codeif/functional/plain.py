"""Decode the harness's tagged values and compare them with expected values, in the
trusted process. Only plain data exists here: no object from the code under evaluation.

Comparison rules (YAML has no tuples or sets): a tuple equals a list with equal items; a
set equals a list holding the same items in any order; numbers compare by value, and
where a float is involved within a tolerance (`Tolerance`: by default the rounding level,
so `0.1 + 0.2` equals `0.3`); booleans equal only booleans; dict keys compare by their
text, since YAML task files write keys as strings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final


class Unsupported:
    """A value the harness could not express as plain data (an object, a subclass...)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"


class Malformed(ValueError):
    """A value the harness cannot have written: an unknown tag, a tag of the wrong shape,
    nesting deeper than it encodes."""


#: Deeper than the harness ever encodes (`harness.MAX_DEPTH`, and a dict's pairs).
MAX_DECODE_DEPTH = 2 * 50 + 4
#: Dicts larger than this must not have most of their keys share a hash.
MAX_COLLIDING = 64


def decode(value: Any, depth: int = 0) -> Any:
    """Turn the harness's tagged JSON back into Python values (tuples, sets, dicts);
    raises `Malformed` for anything the harness does not write."""
    if depth > MAX_DECODE_DEPTH:
        raise Malformed("a value nested deeper than the harness encodes")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode(v, depth + 1) for v in value]
    if not isinstance(value, dict) or len(value) != 1:
        raise Malformed(f"a value of an unknown shape ({type(value).__name__})")
    ((tag, inner),) = value.items()
    if tag in ("$tuple", "$set") and isinstance(inner, list):
        items = [decode(v, depth + 1) for v in inner]
        return tuple(items) if tag == "$tuple" else _FrozenList(items)
    if tag == "$dict" and isinstance(inner, list):
        return _dict([decode(v, depth + 1) for v in inner])
    if tag == "$float" and inner in ("nan", "inf", "-inf"):
        return float(inner)
    if tag == "$bytes" and isinstance(inner, str):
        try:
            return bytes.fromhex(inner)
        except ValueError:
            raise Malformed("bytes that are not hexadecimal") from None
    if tag == "$unsupported" and isinstance(inner, str):
        return Unsupported(inner[:200])
    raise Malformed(f"an unknown tag {str(tag)[:40]!r}")


def _dict(pairs: list[Any]) -> dict[Any, Any]:
    """A decoded dict from its decoded [key, value] pairs."""
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
        raise Malformed("a dict that is not a list of pairs")
    keys = [_key(k) for k, _ in pairs]
    if len(keys) > MAX_COLLIDING and len({hash(k) for k in keys}) * 2 < len(keys):
        # Keys chosen to share a hash would make building the dict quadratic here.
        raise Malformed("a dict whose keys mostly share one hash")
    return dict(zip(keys, (v for _, v in pairs), strict=True))


class _FrozenList(list[Any]):
    """A decoded set: kept as a list (items may be unhashable lists), compared unordered."""

    def __repr__(self) -> str:
        return "{" + ", ".join(map(repr, self)) + "}" if self else "set()"


def _key(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


#: The default tolerance for floats: relative 1e-9 (math.isclose's own default, about
#: ten million times the spacing of doubles, far below any difference a task means),
#: and absolute 1e-12 so that a result that should be 0 may carry rounding noise
#: (`math.sin(math.pi)` is 1.2e-16), where no relative tolerance helps.
DEFAULT_REL: Final = 1e-9
DEFAULT_ABS: Final = 1e-12


@dataclass(frozen=True)
class Tolerance:
    """How close two numbers must be to count as equal: within `rel` of the larger
    magnitude, or within `abs`, whichever is wider (`math.isclose`'s rule). `floats_only`:
    the tolerance is for floats, and two ints compare exactly (the default: an int result
    that is off by one is wrong however large); a tolerance the task gives applies to ints
    too, as it always has."""

    rel: float = DEFAULT_REL
    abs: float = DEFAULT_ABS
    floats_only: bool = True

    def close(self, actual: float, expected: float) -> bool:
        """Whether two numbers (ints or floats, never bools) count as equal."""
        if actual == expected:
            return True
        nan = [isinstance(x, float) and math.isnan(x) for x in (actual, expected)]
        if any(nan):
            return all(nan)  # NaN equals only NaN: a NaN expected is a NaN got
        if self.floats_only and isinstance(actual, int) and isinstance(expected, int):
            return False
        if self.rel == 0 and self.abs == 0:
            return False
        try:
            return math.isclose(actual, expected, rel_tol=self.rel, abs_tol=self.abs)
        except OverflowError:  # an int too large for a float: not within any tolerance
            return False


DEFAULT: Final = Tolerance()


def tolerance(approx: float | Mapping[str, float] | None) -> Tolerance:
    """The tolerance a task's `approx` asks for: absent, the rounding-level default; a
    number, an absolute tolerance (what `approx` has always meant; 0 is exact); a mapping
    `{rel: R, abs: A}`, a value within either (a missing one is 0)."""
    if approx is None:
        return DEFAULT
    if isinstance(approx, Mapping):
        return Tolerance(float(approx.get("rel", 0.0)), float(approx.get("abs", 0.0)), False)
    return Tolerance(0.0, float(approx), False)


def plain_equal(
    actual: Any, expected: Any, approx: float | Mapping[str, float] | Tolerance | None = None
) -> bool:
    """True when `actual` (decoded) matches `expected` (from the task file); numbers
    within the tolerance `approx` gives (see `tolerance`; a `Tolerance` as it is)."""
    within = approx if isinstance(approx, Tolerance) else tolerance(approx)
    return _equal(actual, expected, within)


def _equal(actual: Any, expected: Any, within: Tolerance) -> bool:
    if isinstance(actual, Unsupported):
        return False
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return within.close(actual, expected)
    if isinstance(actual, _FrozenList) and isinstance(expected, list):
        return _same_items(list(actual), expected, within)
    if isinstance(actual, (list, tuple)) and isinstance(expected, list):
        return len(actual) == len(expected) and all(
            _equal(a, e, within) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(actual, dict) and isinstance(expected, dict):
        keyed = {str(k): v for k, v in actual.items()}
        wanted = {str(k): v for k, v in expected.items()}
        return keyed.keys() == wanted.keys() and all(
            _equal(keyed[k], wanted[k], within) for k in keyed
        )
    if type(actual) in (str, bytes, type(None)):
        return type(actual) is type(expected) and actual == expected
    return False


def _same_items(actual: list[Any], expected: list[Any], within: Tolerance) -> bool:
    if len(actual) != len(expected):
        return False
    remaining = list(actual)
    for item in expected:
        match = next((i for i, a in enumerate(remaining) if _equal(a, item, within)), None)
        if match is None:
            return False
        remaining.pop(match)
    return True


def show(value: Any, limit: int = 200) -> str:
    """A short repr for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."

"""An answer's literal, read by type: a task's expected value is an int, a float or a
string, and an answer is right only when it is a literal of that type with that value
(an int is not the string of its digits, unless the task coerces).

Strict reading takes the literal as written: an int as digits, a float as a decimal, a
string quoted (JSON's double quotes, or Python's single quotes). Loose reading also takes
an unquoted string, a quoted number, an integral float for an int, and code backticks
around any of them. Floats are equal within rounding (relative 1e-9).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from typing import Final, Literal

AnswerValue = int | float | str
ReadingProblem = Literal["unparsable", "type-mismatch"]

#: Floats are equal within this relative difference (rounding, not a wrong answer).
REL_TOLERANCE: Final = 1e-9
# At most 1,000 digits: Python refuses to read an int of more than 4,300.
_INT: Final = re.compile(r"[+-]?[0-9]{1,1000}")
_FLOAT: Final = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
_DOUBLE_QUOTED: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SINGLE_QUOTED: Final = re.compile(r"'(?:[^'\\\n]|\\.)*'", re.DOTALL)


@dataclass(frozen=True)
class Reading:
    """What an answer's text reads as: a value, or why there is none usable."""

    value: AnswerValue | None
    problem: ReadingProblem | None = None


def type_name(value: AnswerValue) -> str:
    """The literal's type as the reports name it."""
    return "int" if isinstance(value, int) else "float" if isinstance(value, float) else "str"


def read_literal(text: str) -> AnswerValue | None:
    """The literal `text` is exactly (int, float or quoted string), or None."""
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        number = float(text)
        return number if math.isfinite(number) else None
    if _DOUBLE_QUOTED.fullmatch(text):
        try:
            loaded = json.loads(text)
        except ValueError:
            return None
        return loaded if isinstance(loaded, str) else None
    if _SINGLE_QUOTED.fullmatch(text):
        try:
            evaluated = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return evaluated if isinstance(evaluated, str) else None
    return None


def read_strict(text: str, expected: AnswerValue, *, coerce: bool) -> Reading:
    """`text` read as the prompt asks: a literal of the expected type (an int for a
    float is a number too); with `coerce`, a literal of another type that converts."""
    value = read_literal(text)
    if value is None:
        return Reading(None, "unparsable")
    if _same_type(value, expected):
        return Reading(value)
    if coerce:
        converted = _convert(value, expected)
        if converted is not None:
            return Reading(converted)
    return Reading(None, "type-mismatch")


def read_loose(text: str, expected: AnswerValue) -> Reading:
    """`text` read as a lenient reader would: backticks dropped, quotes optional."""
    bare = text.strip()
    if len(bare) >= 2 and bare[0] == bare[-1] == "`":
        bare = bare.strip("`").strip()
    value = read_literal(bare)
    if value is not None and _same_type(value, expected):
        return Reading(value)
    if isinstance(expected, str):
        # An unquoted string, or a number written for a string: the text is the answer.
        return Reading(bare if value is None or not isinstance(value, str) else value)
    inner = value if isinstance(value, str) else bare
    converted = _convert(inner, expected)
    if converted is not None:
        return Reading(converted)
    if value is not None:
        return Reading(None, "type-mismatch")
    return Reading(None, "unparsable")


def equal(got: AnswerValue, expected: AnswerValue) -> bool:
    """The values are the same answer: strings exactly, numbers within rounding."""
    if isinstance(expected, str) or isinstance(got, str):
        return isinstance(got, str) and isinstance(expected, str) and got == expected
    if isinstance(expected, int) and isinstance(got, int):
        return got == expected
    return math.isclose(float(got), float(expected), rel_tol=REL_TOLERANCE, abs_tol=1e-12)


def _same_type(value: AnswerValue, expected: AnswerValue) -> bool:
    if isinstance(expected, str):
        return isinstance(value, str)
    if isinstance(expected, float):
        return isinstance(value, (int, float))
    return isinstance(value, int)


def _convert(value: AnswerValue, expected: AnswerValue) -> AnswerValue | None:
    """`value` as the expected type when it converts exactly, else None."""
    if isinstance(expected, str):
        return str(value)
    text = value.strip() if isinstance(value, str) else None
    if isinstance(expected, int):
        if text is not None and _INT.fullmatch(text):
            return int(text)
        number = float(text) if text is not None and _FLOAT.fullmatch(text) else value
        if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
            return int(number)
        return None
    if text is not None and _FLOAT.fullmatch(text):
        number = float(text)
        return number if math.isfinite(number) else None
    return value if isinstance(value, (int, float)) else None

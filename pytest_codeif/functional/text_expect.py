"""Compare what a program printed or wrote with a case's `TextExpectation`. The text is
the program's (hostile): patterns run on RE2 in linear time, and it is only ever shown
as a short repr."""

from __future__ import annotations

from pytest_codeif.functional.plain import show
from pytest_codeif.safe_regex import SubjectTooLong, compile_pattern
from pytest_codeif.spec import TextExpectation


def text_problem(what: str, actual: str | None, expected: TextExpectation) -> str | None:
    """Why `actual` (None: the file does not exist) is not what `expected` says, or None.
    `what` names it in the message (`stdout`, `file out.txt`)."""
    if expected.absent:
        return None if actual is None else f"{what}: expected no such file, but it was written"
    if actual is None:
        return f"{what}: expected it to be written, but it does not exist"
    if expected.exact is not None and actual != expected.exact:
        return f"{what}: expected {show(expected.exact)}, got {show(actual)}"
    if expected.contains is not None and expected.contains not in actual:
        return f"{what}: expected it to contain {show(expected.contains)}, got {show(actual)}"
    if expected.regex is not None:
        try:
            matched = compile_pattern(expected.regex).search(actual)
        except SubjectTooLong:
            return f"{what}: too long ({len(actual)} characters) to match {expected.regex!r}"
        if not matched:
            return f"{what}: expected a match of {expected.regex!r}, got {show(actual)}"
    return None

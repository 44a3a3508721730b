"""Suppression comments (`# noqa`, `# type: ignore`) are blanked out at the lines
tokenize found them on, whatever else the code holds."""

from __future__ import annotations

import pytest

from pytest_codeif.code.suppressions import find_suppressions, neutralise


@pytest.mark.parametrize("separator", ["\x1c", "\x0c", "\u2028", "\x85", "\x0b"])
def test_a_line_separator_in_a_comment_does_not_shift_what_is_blanked(separator: str) -> None:
    source = f"x = 1  # note{separator}more\nimport os  # noqa: F401\ny = 2\n"
    found = find_suppressions(source)
    assert [(s.kind, s.line) for s in found] == [("noqa", 2)]
    blanked = neutralise(source, found, frozenset({"noqa"}))
    assert "noqa" not in blanked
    kept = [line for i, line in enumerate(blanked.split("\n")) if i != 1]
    assert kept == [line for i, line in enumerate(source.split("\n")) if i != 1]
    assert len(blanked) == len(source)

"""Python code given in a task option (the `context` and `exemplar` checks), parsed once."""

from __future__ import annotations

import libcst as cst


def parse_option_code(source: str, option: str) -> cst.Module:
    """Parse Python given in a task option; a syntax error is a task error."""
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise ValueError(
            f"`{option}` is not valid Python (line {exc.raw_line}: {exc.message})"
        ) from None

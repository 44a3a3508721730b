"""Compare type annotations by meaning, not spelling: `Optional[List[int]]` equals
`list[int] | None`, `typing.Dict` equals `dict`, quoted annotations equal unquoted ones."""

from __future__ import annotations

from typing import Final

import libcst as cst

from pytest_codeif.code.identifiers import read_expression

_ALIASES: Final = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "Text": "str",
}
_PREFIXES: Final = ("typing.", "typing_extensions.", "collections.abc.", "builtins.")


def normalize_annotation(expr: cst.BaseExpression | str) -> str:
    """A canonical text for an annotation; raises ValueError for unparsable text."""
    if isinstance(expr, str):
        try:
            expr = read_expression(expr.strip())
        except cst.ParserSyntaxError as exc:
            raise ValueError(f"{expr!r} is not a type expression: {exc.message}") from None
    return _norm(expr)


def _norm(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.SimpleString):
        return normalize_annotation(
            node.evaluated_value if isinstance(node.evaluated_value, str) else ""
        )
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _union([node.left, node.right])
    if isinstance(node, cst.Subscript):
        base = _name(node.value)
        items = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if base == "Optional" and len(items) == 1:
            return _union([items[0], cst.Name("None")])
        if base == "Union":
            return _union(items)
        return f"{base}[{', '.join(_norm(i) for i in items)}]"
    if isinstance(node, cst.List):  # Callable[[int], str]
        return "[" + ", ".join(_norm(e.value) for e in node.elements) + "]"
    if isinstance(node, (cst.Name, cst.Attribute)):
        return _name(node)
    return cst.Module([]).code_for_node(node).replace(" ", "")


def _name(node: cst.BaseExpression) -> str:
    text = cst.Module([]).code_for_node(node).replace(" ", "")
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return _ALIASES.get(text, text)


def _union(members: list[cst.BaseExpression]) -> str:
    flat: set[str] = set()
    for member in members:
        flat.update(_norm(member).split(" | "))
    return " | ".join(sorted(flat))


def type_matches(actual: str, expected: str) -> bool:
    """Whether normalized annotation `actual` is `expected`, where a bare generic in
    `expected` (`list`, `tuple[set, int]`) accepts any parameters (`list[int]`)."""
    try:
        return _matches(cst.parse_expression(actual), cst.parse_expression(expected))
    except cst.ParserSyntaxError:
        return actual == expected


def _members(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return [*_members(node.left), *_members(node.right)]
    return [node]


def _matches(actual: cst.BaseExpression, expected: cst.BaseExpression) -> bool:
    code = cst.Module([]).code_for_node
    if code(actual) == code(expected):
        return True
    wanted, got = _members(expected), _members(actual)
    if len(wanted) > 1 or len(got) > 1:
        return len(wanted) == len(got) and all(any(_matches(g, w) for g in got) for w in wanted)
    if isinstance(actual, cst.Subscript) and isinstance(expected, (cst.Name, cst.Attribute)):
        return code(actual.value) == code(expected)
    if isinstance(actual, cst.Subscript) and isinstance(expected, cst.Subscript):
        a_items = [e.slice.value for e in actual.slice if isinstance(e.slice, cst.Index)]
        e_items = [e.slice.value for e in expected.slice if isinstance(e.slice, cst.Index)]
        return (
            code(actual.value) == code(expected.value)
            and len(a_items) == len(e_items)
            and all(_matches(a, e) for a, e in zip(a_items, e_items, strict=True))
        )
    return False

"""Identifiers as Python reads them: folded to NFKC (PEP 3131).

Python normalises every identifier to its NFKC form when it compiles, so `import os`
written with a fullwidth `o` (U+FF4F) imports `os`, `eval` written with a fullwidth `e`
calls `eval`, and `fact` calling itself under a fullwidth spelling recurses. libcst keeps
identifiers as written, so a check comparing its text would let such look-alikes
through. `fold_identifiers` gives a tree whose every `Name` (names, attributes, imported
and defined names, parameters, keyword arguments) holds the name Python reads, and lists
each look-alike it folded, so that the report can say why the code was read as it was.

String contents and comments are never folded: Python does not fold them either
(`__import__` given a fullwidth `"os"` imports no module). Keywords are not identifiers:
a fullwidth `import` is a syntax error to Python, never an import.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import libcst as cst

_Node = TypeVar("_Node", bound=cst.CSTNode)


def as_read(name: str) -> str:
    """`name` (an identifier, dotted names, or code with its strings blanked) as Python
    reads it."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def is_look_alike(name: str) -> bool:
    """Whether Python reads the identifier `name` as another one."""
    return not name.isascii() and not unicodedata.is_normalized("NFKC", name)


@dataclass(frozen=True)
class LookAlike:
    """An identifier written otherwise than Python reads it; `node` is the folded `Name`."""

    written: str
    read: str
    node: cst.Name = field(repr=False, compare=False)

    def explained(self) -> str:
        return f"`{self.written}` is `{self.read}`: Python reads identifiers in NFKC form"


def needs_folding(names: Iterable[cst.Name]) -> bool:
    """Whether any of `names` is a look-alike (cheap: most names are ASCII)."""
    return any(is_look_alike(name.value) for name in names)


def fold_identifiers(tree: _Node) -> tuple[_Node, tuple[LookAlike, ...]]:
    """`tree` with every look-alike `Name` replaced by the name Python reads, and the
    look-alikes in source order. Only the look-alikes and the nodes above them are new;
    the tree keeps its shape, so its nodes pair one to one, in walk order, with the
    original's.

    Children are rebuilt before their parents without recursion: deep expressions must
    not hit the recursion limit (libcst's transformers recurse once per level)."""
    replaced: dict[int, cst.CSTNode] = {}
    found: list[LookAlike] = []
    for node in reversed(every_node(tree)):  # every child before its parent
        if type(node) is cst.Name:
            if is_look_alike(node.value):
                folded = node.with_changes(value=as_read(node.value))
                replaced[id(node)] = folded
                found.append(LookAlike(node.value, folded.value, folded))
            continue
        changes: dict[str, Any] = {}
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                if id(value) in replaced:
                    changes[name] = replaced[id(value)]
            elif isinstance(value, (tuple, list)) and any(id(v) in replaced for v in value):
                changes[name] = type(value)(replaced.get(id(v), v) for v in value)
        if changes:
            replaced[id(node)] = node.with_changes(**changes)
    found.reverse()
    return cast("_Node", replaced.get(id(tree), tree)), tuple(found)


def folded_tree(tree: _Node) -> _Node:
    """`tree` with identifiers as Python reads them (itself when none is a look-alike):
    for code given in a task's options, such as patterns, compared with folded code."""
    names = (node for node in every_node(tree) if type(node) is cst.Name)
    return fold_identifiers(tree)[0] if needs_folding(names) else tree


def read_expression(text: str) -> cst.BaseExpression:
    """`text` parsed as an expression, identifiers as Python reads them: for code kept in
    a string that Python evaluates, such as a string annotation (`"Node | None"`)."""
    expression = cst.parse_expression(text)
    return expression if text.isascii() else folded_tree(expression)


def every_node(root: cst.CSTNode) -> list[cst.CSTNode]:
    """`root` and every node below it, whitespace included, parents before children,
    without recursion: a folded tree and its original pair one to one in this order."""
    order: list[cst.CSTNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(node.children))
    return order


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names

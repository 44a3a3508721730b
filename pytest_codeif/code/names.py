"""Resolve names through imports: `lc` after `from functools import lru_cache as lc` is
`functools.lru_cache`, `ft.reduce` after `import functools as ft` is `functools.reduce`.

libcst's QualifiedNameProvider does this with a full scope analysis, which costs about
25 ms per module (measured on the MultiCodeIF responses): most of a structural check's
time. This resolver reads the module's flattened nodes once; relative imports resolve
from the module's place in its project. What it does not model: a local variable or
parameter that shadows an imported or builtin name.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.code.module_names import resolve_relative

_BUILTINS: Final = frozenset(dir(builtins))


@dataclass(frozen=True)
class ModulePlace:
    """Where a module sits in its project: its absolute name, and whether it is a
    package's `__init__.py` (relative imports count from there)."""

    name: str
    is_package: bool


def absolute_base(node: cst.ImportFrom, place: ModulePlace | None) -> str | None:
    """The absolute module `from <dots><module> import ...` imports from: `node.module`
    itself when absolute; resolved from `place` when relative (None when the module has
    no package, e.g. a single `solution.py`, or the import climbs above the top)."""
    written = _dotted(node.module) if node.module is not None else None
    level = len(node.relative)
    if level == 0:
        return written
    if place is None:
        return None
    return resolve_relative(place.name, place.is_package, level, written)


def _dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


class NameResolver:
    """Import bindings and definitions of one module."""

    def __init__(
        self,
        nodes: Iterable[cst.CSTNode],
        definitions: Iterable[tuple[str, cst.FunctionDef | cst.ClassDef]],
        package: ModulePlace | None = None,
    ) -> None:
        self.package = package
        self.imports: dict[str, set[str]] = {}
        self.defined: dict[str, set[str]] = {}
        for qual, definition in definitions:
            self.defined.setdefault(definition.name.value, set()).add(qual)
        for node in nodes:
            if isinstance(node, cst.Import):
                self._import(node)
            elif isinstance(node, cst.ImportFrom):
                self._import_from(node)

    def _bind(self, name: str, target: str) -> None:
        self.imports.setdefault(name, set()).add(target)

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _dotted(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, full)
            else:
                top = full.split(".")[0]
                self._bind(top, top)

    def _import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = absolute_base(node, self.package)
        if base is None:
            return
        for alias in node.names:
            name = _dotted(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._bind(local, f"{base}.{name}")

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """The fully qualified names `node` may refer to (a call: its callee)."""
        if isinstance(node, cst.Call):
            return self.qualified(node.func)
        if isinstance(node, cst.Name):
            return set(self._name(node.value))
        if isinstance(node, cst.Attribute):
            return {f"{base}.{node.attr.value}" for base in self.qualified(node.value)}
        return set()

    def _name(self, name: str) -> Iterator[str]:
        if name in self.imports:
            yield from self.imports[name]
        elif name in self.defined:
            yield from self.defined[name]
        elif name in _BUILTINS:
            yield f"builtins.{name}"

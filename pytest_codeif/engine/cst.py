"""One libcst parse per source file, shared by every structural check on it.

Metadata (positions, qualified names through imports) is resolved lazily and cached, so
a check that needs only the tree pays only for the parse.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

import libcst as cst
from libcst import metadata

from pytest_codeif.checks.base import Undecidable
from pytest_codeif.code.unit import SourceFile


class ParsedModule:
    """A source file, its libcst tree and (on demand) positions and qualified names."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        try:
            self.tree = cst.parse_module(source.text)
        except cst.ParserSyntaxError as exc:
            line = source.origin_line(exc.raw_line)
            raise Undecidable(
                "syntax-error",
                f"{source.relpath} line {exc.raw_line} (from {source.origin.name}:{line}): "
                f"{exc.message}",
            ) from None
        except RecursionError:
            raise Undecidable(
                "syntax-error", f"{source.relpath}: nested too deeply to parse"
            ) from None

    @property
    def relpath(self) -> str:
        return self.source.relpath

    @cached_property
    def wrapper(self) -> metadata.MetadataWrapper:
        return metadata.MetadataWrapper(self.tree, unsafe_skip_copy=True)

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, metadata.CodeRange]:
        return self.wrapper.resolve(metadata.PositionProvider)

    @cached_property
    def qualified_names(self) -> Mapping[cst.CSTNode, Any]:
        return self.wrapper.resolve(metadata.QualifiedNameProvider)

    @cached_property
    def parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]:
        return self.wrapper.resolve(metadata.ParentNodeProvider)

    def line_of(self, node: cst.CSTNode) -> int:
        """1-based line of `node` in this file."""
        return self.positions[node].start.line

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """Fully qualified names `node` may refer to, resolved through imports."""
        found = self.qualified_names.get(node, set())
        # libcst resolves lazily: the mapping may hold a callable producing the set.
        names = found() if callable(found) else found
        return {q.name for q in names}

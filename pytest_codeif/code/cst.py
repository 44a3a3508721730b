"""One libcst parse per source file, shared by every structural check on it.

Positions and import-resolved names are computed lazily and cached, so a check that
needs only the tree pays only for the parse.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast, overload

import libcst as cst
from libcst import metadata

from pytest_codeif.code.identifiers import (
    LookAlike,
    every_node,
    fold_identifiers,
    needs_folding,
)
from pytest_codeif.code.names import ModulePlace, NameResolver
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

#: Node types `ParsedModule.nodes` is asked for; its result holds nodes of those types.
_N1 = TypeVar("_N1", bound=cst.CSTNode)
_N2 = TypeVar("_N2", bound=cst.CSTNode)
_N3 = TypeVar("_N3", bound=cst.CSTNode)
_N4 = TypeVar("_N4", bound=cst.CSTNode)
_N5 = TypeVar("_N5", bound=cst.CSTNode)


class ParsedModule:
    """A source file, its libcst tree and (on demand) positions and qualified names.

    The tree holds identifiers as Python reads them (folded to NFKC, see
    `code.identifiers`): every check compares names Python would compare. `look_alikes`
    lists the identifiers written otherwise; positions are those of the written code.
    """

    def __init__(
        self,
        source: SourceFile,
        place: ModulePlace | None = None,
        *,
        python_checked: bool = False,
    ) -> None:
        """Parse `source`. Unless `python_checked` (Python's own parser accepted the text
        already: the engine's syntax check), Python's parser is asked first: libcst's
        native parser overflows its stack and kills the process on code nested far deeper
        than Python accepts (1,500 brackets, thousands of unary operators or lambdas),
        where Python refuses it with an error (`python_refusal`)."""
        self.source = source
        #: The module's absolute name in its project (None: a single module with no
        #: package, or a file no import reaches); relative imports resolve from it.
        self.place = place
        #: Identifiers written otherwise than Python reads them (`os` in fullwidth letters).
        self.look_alikes: tuple[LookAlike, ...] = ()
        #: The tree as written, kept only when `tree` differs from it.
        self._written: cst.Module | None = None
        if not python_checked:
            refused = python_refusal(source.text)
            if refused is not None:
                raise Undecidable("syntax-error", f"{source.relpath}: {refused}")
        try:
            self.tree = cst.parse_module(source.text)
            if not source.text.isascii():
                self._fold()
        except cst.ParserSyntaxError as exc:
            line = source.origin_line(exc.raw_line)
            raise Undecidable(
                "syntax-error",
                f"{source.relpath} line {exc.raw_line} (from {source.origin.name}:{line}): "
                f"{exc.message}",
            ) from None
        except cst.CSTValidationError as exc:
            # libcst parses some code CPython refuses (a bare `except:` before another
            # handler) and then refuses to build the tree: a syntax error all the same.
            raise Undecidable("syntax-error", f"{source.relpath}: {exc}") from None
        except RecursionError:
            raise Undecidable(
                "syntax-error", f"{source.relpath}: nested too deeply to parse"
            ) from None

    def _fold(self) -> None:
        """Fold look-alike identifiers; the flattened tree is kept when none is found."""
        flat = _flatten(self.tree)
        names = cast("list[cst.Name]", [flat.order[i] for i in flat.by_type.get(cst.Name, ())])
        if not needs_folding(names):
            self.__dict__["_flat"] = flat  # the `_flat` cached_property, computed already
            return
        self._written = self.tree
        self.tree, self.look_alikes = fold_identifiers(self.tree)

    @property
    def relpath(self) -> str:
        return self.source.relpath

    @cached_property
    def _flat(self) -> _Flat:
        return _flatten(self.tree)

    @property
    def _preorder(self) -> tuple[list[cst.CSTNode], list[int], dict[int, int]]:
        flat = self._flat
        return flat.order, flat.ends, flat.position

    def walk(self, node: cst.CSTNode | None = None) -> list[cst.CSTNode]:
        """`node` (default: the module) and every node below it but whitespace (and the
        comments inside it), depth first (parents before children, siblings in the order
        of libcst's fields, statements in source order).

        The tree is flattened once per module: libcst's `children` property visits a
        node's fields each time it is read, which made repeated walks the main cost.
        """
        order, ends, index = self._preorder
        start = index.get(id(node if node is not None else self.tree), 0)
        return order[start : ends[start]]

    # Typed by what is asked for: `nodes(cst.Call)` is a `list[cst.Call]`, `nodes(cst.For,
    # cst.While)` a `list[cst.For | cst.While]` (up to five types; `*types` gives their join).
    @overload
    def nodes(self, kind: type[_N1], /, *, within: cst.CSTNode | None = None) -> list[_N1]: ...
    @overload
    def nodes(
        self, kind: type[_N1], kind2: type[_N2], /, *, within: cst.CSTNode | None = None
    ) -> list[_N1 | _N2]: ...
    @overload
    def nodes(
        self,
        kind: type[_N1],
        kind2: type[_N2],
        kind3: type[_N3],
        /,
        *,
        within: cst.CSTNode | None = None,
    ) -> list[_N1 | _N2 | _N3]: ...
    @overload
    def nodes(
        self,
        kind: type[_N1],
        kind2: type[_N2],
        kind3: type[_N3],
        kind4: type[_N4],
        /,
        *,
        within: cst.CSTNode | None = None,
    ) -> list[_N1 | _N2 | _N3 | _N4]: ...
    @overload
    def nodes(
        self,
        kind: type[_N1],
        kind2: type[_N2],
        kind3: type[_N3],
        kind4: type[_N4],
        kind5: type[_N5],
        /,
        *,
        within: cst.CSTNode | None = None,
    ) -> list[_N1 | _N2 | _N3 | _N4 | _N5]: ...
    @overload
    def nodes(self, *types: type[_N1], within: cst.CSTNode | None = None) -> list[_N1]: ...
    def nodes(self, *types: type[cst.CSTNode], within: cst.CSTNode | None = None) -> list[Any]:
        """The nodes of exactly these concrete types (below `within`, default the whole
        module), depth first. Far cheaper than `isinstance` over `walk()`: libcst's node
        classes are ABCs, whose instance checks cost a Python call each."""
        flat = self._flat
        lists = [flat.by_type.get(t, []) for t in types]
        indexes = sorted(i for found in lists for i in found) if len(lists) > 1 else lists[0]
        if within is not None:
            start = flat.position.get(id(within), 0)
            end = flat.ends[start]
            indexes = indexes[bisect_left(indexes, start) : bisect_left(indexes, end)]
        return [flat.order[i] for i in indexes]

    @cached_property
    def definitions(self) -> list[tuple[str, cst.FunctionDef | cst.ClassDef]]:
        """Every function and class with its qualified name (`A.m`, `f.<locals>.g`)."""
        flat = self._flat
        indexes = sorted(flat.by_type.get(cst.FunctionDef, []) + flat.by_type.get(cst.ClassDef, []))
        found: list[tuple[str, cst.FunctionDef | cst.ClassDef]] = []
        open_scopes: list[tuple[int, str]] = []  # (end of subtree, prefix inside it)
        for i in indexes:
            node = cast("cst.FunctionDef | cst.ClassDef", flat.order[i])
            while open_scopes and i >= open_scopes[-1][0]:
                open_scopes.pop()
            qual = (open_scopes[-1][1] if open_scopes else "") + node.name.value
            found.append((qual, node))
            inner = ".<locals>." if type(node) is cst.FunctionDef else "."
            open_scopes.append((flat.ends[i], qual + inner))
        return found

    @cached_property
    def _scopes(self) -> list[cst.FunctionDef | cst.ClassDef | None]:
        order, ends, _ = self._preorder
        found: list[cst.FunctionDef | cst.ClassDef | None] = []
        open_scopes: list[tuple[int, cst.FunctionDef | cst.ClassDef]] = []
        for i, node in enumerate(order):
            while open_scopes and i >= open_scopes[-1][0]:
                open_scopes.pop()
            found.append(open_scopes[-1][1] if open_scopes else None)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                open_scopes.append((ends[i], node))
        return found

    def scope_of(self, node: cst.CSTNode) -> cst.FunctionDef | cst.ClassDef | None:
        """The innermost function or class `node` is inside (None: module level). A
        definition node belongs to the scope around it; its parameters, decorators and
        body are inside it."""
        _, _, index = self._preorder
        return self._scopes[index[id(node)]]

    @cached_property
    def wrapper(self) -> metadata.MetadataWrapper:
        return metadata.MetadataWrapper(self.tree, unsafe_skip_copy=True)

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, metadata.CodeRange]:
        try:
            if self._written is None:
                return self.wrapper.resolve(metadata.PositionProvider)
            # Folding changes the length of names: positions come from the code as written, each
            # node paired with its original (the trees have the same shape).
            written = metadata.MetadataWrapper(self._written, unsafe_skip_copy=True)
            found = written.resolve(metadata.PositionProvider)
            pairs = zip(every_node(self.tree), every_node(self._written), strict=True)
            return {node: found[original] for node, original in pairs if original in found}
        except RecursionError:
            # libcst's position pass recurses once per nesting level, and hundreds of
            # implicitly concatenated strings nest that deep: parsed, but not locatable.
            raise Undecidable(
                "too-large", f"{self.relpath}: nested too deeply to locate findings in"
            ) from None

    @cached_property
    def names(self) -> NameResolver:
        return NameResolver(self.nodes(cst.Import, cst.ImportFrom), self.definitions, self.place)

    def line_of(self, node: cst.CSTNode) -> int:
        """1-based line of `node` in this file (costs a code generation pass the first
        time: call it for evidence, not while searching)."""
        return self.positions[node].start.line

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """Fully qualified names `node` may refer to, resolved through imports."""
        return self.names.qualified(node)


@dataclass
class _Flat:
    """A module's nodes depth first, where each node's subtree ends, each node's index
    (by id) and the indexes of each node type."""

    order: list[cst.CSTNode] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    position: dict[int, int] = field(default_factory=dict)
    by_type: defaultdict[type, list[int]] = field(default_factory=lambda: defaultdict(list))


_FIELDS: dict[type, tuple[str, ...]] = {}
#: Whitespace, newlines and the comments inside them: half of a module's nodes, and
#: never what a structural check looks for (comments and layout are ruff's business).
_SKIPPED: frozenset[type] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.TrailingWhitespace,
        cst.Newline,
        cst.EmptyLine,
    }
)
#: Whether a type is a node to visit; whitespace types are recorded as not.
_IS_NODE: dict[type, bool] = dict.fromkeys(_SKIPPED, False)


def python_refusal(text: str) -> str | None:
    """Why Python's parser refuses `text` as nested too deeply (None: it does not). Only
    those refusals count: libcst reads newer syntax than the running Python (3.12's
    `type` statements) and its own errors say the rest. Parse only: nothing is compiled
    or run, and warnings about the code are silenced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        if "too many nested" in str(exc.msg):
            return f"line {exc.lineno}: {exc.msg}"
    except MemoryError:
        # Python's parser ran out of its own stack ("too complex"): deeper than libcst's.
        return "nested too deeply to parse"
    except (ValueError, RecursionError):
        pass  # recursion in building Python's tree, not in parsing: libcst copes
    return None


def all_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    """`root` and every node below it, depth first (for trees outside a `ParsedModule`,
    such as code given in a task's options)."""
    return _flatten(root).order


def _flatten(root: cst.CSTNode) -> _Flat:
    """Depth-first order without recursion (deep expressions must not hit the recursion
    limit) and without libcst's visitor dispatch, which cost five times as much. A node's
    children are read from its dataclass fields, in field order; whitespace nodes (and
    the comments inside them) are left out."""
    flat = _Flat()
    order, ends, by_type = flat.order, flat.ends, flat.by_type
    fields, is_node = _FIELDS, _IS_NODE
    stack: list[cst.CSTNode | int] = [root]  # an int -i-1 closes the subtree of node i
    while stack:
        node = stack.pop()
        if isinstance(node, int):
            ends[-node - 1] = len(order)
            continue
        index = len(order)
        order.append(node)
        ends.append(0)
        kind = type(node)
        by_type[kind].append(index)
        stack.append(-index - 1)
        names = fields.get(kind)
        if names is None:
            names = fields[kind] = tuple(f.name for f in dataclasses.fields(node))
        children: list[cst.CSTNode] = []
        for name in names:
            value = getattr(node, name)
            value_type = type(value)
            if value_type is tuple or value_type is list:
                for item in value:
                    item_type = type(item)
                    known = is_node.get(item_type)
                    if known is None:
                        known = is_node[item_type] = isinstance(item, cst.CSTNode)
                    if known:
                        children.append(item)
            else:
                known = is_node.get(value_type)
                if known is None:
                    known = is_node[value_type] = isinstance(value, cst.CSTNode)
                if known:
                    children.append(value)
        children.reverse()
        stack.extend(children)
    flat.position = {id(n): i for i, n in enumerate(order)}
    return flat

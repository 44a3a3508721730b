"""One import graph per project: which module imports which, where, and under what guard.

Architecture constraints ("the repositories never reach the API layer", "no cycles
between the packages", "the route layer never touches sqlalchemy, even through a
helper") are questions about chains of imports across a whole project. This module
builds the graph once per code unit and answers them with import-linter's and grimp's
semantics, so that a contract a team already runs with `lint-imports` means the same
here (the test suite runs both on the same projects and compares).

Building (`build_import_graph`), per language (a graph holds the files of one language;
Python is the only language with an import reader today, see `GRAPH_BUILDERS`):

- Every importable Python file of the unit is a module, named as Python's path finder would
  (`pytest_codeif.code.module_names`: packages, namespace packages, `src/` layouts);
  every package, namespace packages included, is a module too. A file no import can
  reach (`a.b.py`) has no name and contributes nothing (`unnamed` says why); a file
  that does not parse contributes nothing and is listed in `unparsed` with the error.
- Each `import` / `from ... import` statement anywhere in a file (inside functions,
  classes, `try`, `if TYPE_CHECKING:`...) is one `Import` per module it reaches, with
  the file and the statement's first line. Relative imports resolve from the file's
  place. What is imported is the deepest module of the project the statement names:
  `from a.b import c` imports `a.b.c` if that is a module, else `a.b`; `import a.b.c`
  imports `a.b.c` (`a` and `a.b` run too, but the statement names `a.b.c`, as grimp
  records it). A name outside the project is an external package, recorded by its
  top-level (distribution-level) name: `from sqlalchemy.orm import Session` imports
  `sqlalchemy`. A module importing itself (`from . import x` in an `__init__.py`, `x`
  not a submodule) is no edge.
- Where this differs from grimp: a directory without `__init__.py` inside a regular
  package is a namespace subpackage; Python imports it, so its modules are modules here,
  while grimp leaves them out (and records an import of one of them as an import of
  the root package). Checked on a real 655-module application (Netflix's dispatch):
  on every other module the edges, with their lines, are the same as grimp's.
- `type_checking` marks imports in the body of `if TYPE_CHECKING:` or
  `if typing.TYPE_CHECKING:` (a dotted name ending in it); the `else` branch runs at
  run time and is not marked (grimp marks the whole statement). `in_function` marks
  imports inside a function body. Dynamic imports (`importlib.import_module("x")`) are
  not edges, as in grimp.

How the files are read was measured on a generated project of 1,011 modules (265,000
lines, 9.4 MB; `python benchmarks/contracts_speed.py --parsers`, 2-core VM under other
load, so ranges over runs): a graph from parsing every file with `ast` takes 2.4-6.5 s
(1.3-1.7 s for the bare parses on a quiet machine), from libcst 60-113 s, grimp's
(Rust, both cores) 0.2-0.9 s. The engine checks every file's syntax before any check
runs, so the graph it serves scans import statements from the text instead
(`import_statements.scan_statements`: exact on valid code, proven against `ast` on
16,578 real files) in 0.18-0.4 s, 13-27 times less than the `ast` graph in the same
run. Built on its own (`build_import_graph(unit)`), it parses with `ast` and lists what
does not parse.

Queries mirror grimp's where import-linter relies on them: shortest chains by
breadth-first search (deterministic: modules are visited in sorted order), the illegal
dependencies of a layered architecture with their routes, and the imports that would
break every cycle among a package's children.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import Final, Protocol

from pytest_codeif.code.import_statements import (
    ImportStatement,
    scan_statements,
    statements_of_tree,
)
from pytest_codeif.code.languages import PYTHON
from pytest_codeif.code.module_names import ModuleNames, did_you_mean, resolve_relative
from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.outcome import Undecidable

#: Graphs kept by `import_graph_of`: a task's constraints are decided one after another,
#: so the last few units are all that is asked for again.
GRAPHS_KEPT: Final = 8
_EXPRESSION_PART: Final = re.compile(r"^(\w+|\*|\*\*)$")


@dataclass(frozen=True, order=True)
class Import:
    """One module reached by one import statement.

    `imported` is a module of the project, or (`external`) the top-level name of a
    package outside it. `relpath` and `line` are where the statement is (its first
    line) in the importer's file.
    """

    importer: str
    imported: str
    relpath: str
    line: int
    type_checking: bool = False
    in_function: bool = False
    external: bool = False


@dataclass(frozen=True, order=True)
class Unresolved:
    """An import that names the project's own code but reaches no module of it: a
    top-level name that is a folder of the project (not a package Python finds), or a
    relative import climbing above the top-level package. Python raises ImportError
    there (or imports something the graph cannot see); `name` is what was written,
    made absolute where it could be."""

    importer: str
    name: str
    relpath: str
    line: int
    type_checking: bool = False


@dataclass(frozen=True, order=True)
class Route:
    """Import chains that share a middle, as grimp reports them: each of `heads`
    imports `middle[0]` (or, with no middle, one of `tails` directly), and
    `middle[-1]` imports each of `tails`. Heads and tails are sorted."""

    heads: tuple[str, ...]
    middle: tuple[str, ...]
    tails: tuple[str, ...]

    @property
    def chain(self) -> tuple[str, ...]:
        """The route's first chain: first head, the middle, first tail."""
        return (self.heads[0], *self.middle, self.tails[0])


@dataclass(frozen=True, order=True)
class Dependency:
    """An illegal dependency: `importer` (a package, with everything in it) reaches
    `imported` by each of `routes`."""

    importer: str
    imported: str
    routes: tuple[Route, ...]


@dataclass(frozen=True)
class Level:
    """One layer of a layered architecture: absolute module names, and whether those
    siblings must not import each other (`independent`)."""

    modules: frozenset[str]
    independent: bool = True


class ImportGraph:
    """Modules, external packages and the imports between them (see the module
    docstring for how imports are read).

    `edges` maps each importer to its imports, ordered by line then imported module;
    `files` maps each module that is a file to its relative path; `unparsed` maps each
    file that does not parse to the error; `unnamed` each file no import reaches to why;
    `language` is the language whose files it holds (`javascript` for the JS/TS graph
    of `js_graph.py`, which holds both).
    """

    def __init__(
        self,
        modules: Iterable[str],
        imports: Iterable[Import],
        *,
        externals: Iterable[str] = (),
        files: Mapping[str, str] | None = None,
        unparsed: Mapping[str, str] | None = None,
        unnamed: Mapping[str, str] | None = None,
        unresolved: Iterable[Unresolved] = (),
        hidden_roots: tuple[str, ...] = (),
        language: str = PYTHON.name,
    ) -> None:
        self.language = language
        self.modules: frozenset[str] = frozenset(modules)
        self.unresolved: tuple[Unresolved, ...] = tuple(sorted(unresolved))
        self.hidden_roots = hidden_roots
        grouped: dict[str, list[Import]] = {}
        found_externals = set(externals)
        for item in imports:
            grouped.setdefault(item.importer, []).append(item)
            if item.external:
                found_externals.add(item.imported)
        self.edges: Mapping[str, tuple[Import, ...]] = {
            importer: tuple(sorted(items, key=lambda i: (i.line, i.imported)))
            for importer, items in sorted(grouped.items())
        }
        self.externals: frozenset[str] = frozenset(found_externals)
        self.files: Mapping[str, str] = dict(files or {})
        self.unparsed: Mapping[str, str] = dict(unparsed or {})
        self.unnamed: Mapping[str, str] = dict(unnamed or {})

    def canonical(self, name: str) -> str:
        """`name` as the graph names it: `src.shop.models` is `shop.models` in a src
        layout (see `ModuleNames.hidden_roots`); the bare root is ""."""
        for root in self.hidden_roots:
            if name == root:
                return ""
            if name.startswith(root + "."):
                return name[len(root) + 1 :]
        return name

    def looks_internal(self, name: str) -> bool:
        """True when the top-level name of `name` is one of the project's own (a
        top-level module or a hidden root): a name that matches nothing is then a typo,
        not a package the code merely does not import."""
        top = name.partition(".")[0]
        return top in self.hidden_roots or top in self.modules

    def suggestion(self, name: str, among: Iterable[str] | None = None) -> str:
        """`; did you mean `x`?` for a module name that matches nothing: the closest of
        `among` (by default every module of the project), or ""."""
        return did_you_mean(name, self.modules if among is None else among)

    def __repr__(self) -> str:
        count = sum(len(items) for items in self.edges.values())
        return f"<ImportGraph: {len(self.modules)} modules, {count} imports>"

    # -- nodes ------------------------------------------------------------------------
    @cached_property
    def nodes(self) -> frozenset[str]:
        """Every module of the project and every external package imported."""
        return self.modules | self.externals

    @cached_property
    def _children(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for module in sorted(self.modules):
            parent = module.rpartition(".")[0]
            if parent:
                found.setdefault(parent, []).append(module)
        return {parent: tuple(children) for parent, children in found.items()}

    def children(self, module: str) -> tuple[str, ...]:
        """The modules directly inside package `module`, sorted."""
        return self._children.get(module, ())

    def descendants(self, module: str) -> frozenset[str]:
        """Every module inside package `module`, at any depth (not `module` itself)."""
        found: set[str] = set()
        stack = list(self.children(module))
        while stack:
            child = stack.pop()
            found.add(child)
            stack.extend(self.children(child))
        return frozenset(found)

    def with_descendants(self, modules: Iterable[str]) -> frozenset[str]:
        """`modules` and everything inside them: modules taken as packages."""
        found: set[str] = set()
        for module in modules:
            found.add(module)
            found |= self.descendants(module)
        return frozenset(found)

    def matching(self, expression: str) -> frozenset[str]:
        """The modules and external packages a module expression names: a dotted name
        names itself (when it is in the graph); `*` stands for one name, `**` for one
        or more (`app.*.models`, `app.**`), as in import-linter."""
        expression = self.canonical(expression)
        if "*" not in expression:
            return frozenset({expression}) & self.nodes
        pattern = expression_pattern(expression)
        return frozenset(node for node in self.nodes if pattern.fullmatch(node))

    # -- imports ----------------------------------------------------------------------
    @cached_property
    def _targets(self) -> dict[str, tuple[str, ...]]:
        return {
            importer: tuple(sorted({i.imported for i in items}))
            for importer, items in self.edges.items()
        }

    @cached_property
    def _sources(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, set[str]] = {}
        for importer, targets in self._targets.items():
            for target in targets:
                found.setdefault(target, set()).add(importer)
        return {target: tuple(sorted(importers)) for target, importers in found.items()}

    @cached_property
    def _details(self) -> dict[tuple[str, str], tuple[Import, ...]]:
        found: dict[tuple[str, str], list[Import]] = {}
        for items in self.edges.values():
            for item in items:
                found.setdefault((item.importer, item.imported), []).append(item)
        return {pair: tuple(items) for pair, items in found.items()}

    def imported_by(self, module: str) -> tuple[str, ...]:
        """The modules `module` imports directly, sorted."""
        return self._targets.get(module, ())

    def importers_of(self, module: str) -> tuple[str, ...]:
        """The modules that import `module` directly, sorted."""
        return self._sources.get(module, ())

    def imports_between(self, importer: str, imported: str) -> tuple[Import, ...]:
        """The imports of `imported` written in `importer`, by line."""
        return self._details.get((importer, imported), ())

    def lines(self, importer: str, imported: str) -> tuple[int, ...]:
        """The lines of `importer` that import `imported`, sorted, without repeats."""
        return tuple(sorted({i.line for i in self.imports_between(importer, imported)}))

    def imports(self) -> Iterator[Import]:
        """Every import, by importer then line."""
        for items in self.edges.values():
            yield from items

    def without(self, drop: Callable[[Import], bool]) -> ImportGraph:
        """The same graph without the imports `drop` selects (modules stay)."""
        return ImportGraph(
            self.modules,
            (item for item in self.imports() if not drop(item)),
            externals=self.externals,
            files=self.files,
            unparsed=self.unparsed,
            unnamed=self.unnamed,
            unresolved=(u for u in self.unresolved if not drop(_as_import(u))),
            hidden_roots=self.hidden_roots,
            language=self.language,
        )

    def ignoring(self, expressions: Iterable[str]) -> tuple[ImportGraph, tuple[str, ...]]:
        """The graph without the imports that import-linter's `ignore_imports`
        expressions (`importer -> imported`, each side a module expression) match, and
        the expressions that matched no import."""
        pairs: set[tuple[str, str]] = set()
        unmatched: list[str] = []
        for expression in expressions:
            importer_side, imported_side = parse_import_expression(expression)
            importeds = self.matching(imported_side)
            found = {
                (importer, imported)
                for importer in self.matching(importer_side)
                for imported in self.imported_by(importer)
                if imported in importeds
            }
            if not found:
                unmatched.append(expression)
            pairs |= found
        if not pairs:
            return self, tuple(unmatched)
        return self.without(lambda i: (i.importer, i.imported) in pairs), tuple(unmatched)

    # -- chains -----------------------------------------------------------------------
    def find_chain(
        self,
        from_modules: Iterable[str],
        to_modules: Iterable[str],
        *,
        ignore: Set[str] = frozenset(),
        skip_imports: Set[tuple[str, str]] = frozenset(),
    ) -> tuple[str, ...] | None:
        """The shortest chain of imports from one of `from_modules` to one of
        `to_modules` (importer first), passing through no module of `ignore` and using
        no (importer, imported) pair of `skip_imports`; None when there is none.

        Breadth first from the sorted starts, neighbours in sorted order, so the chain
        is the same on every run. A chain starts in `from_modules`, ends at its first
        module of `to_modules` and has no other module of either; starts that are
        also targets are not starts.
        """
        targets = frozenset(to_modules)
        starts = sorted(set(from_modules) - targets)
        previous: dict[str, str | None] = dict.fromkeys(starts)
        queue = deque(starts)
        imported_by = self._targets
        while queue:
            module = queue.popleft()
            for imported in imported_by.get(module, ()):
                if imported in previous or (module, imported) in skip_imports:
                    continue
                if imported in targets:
                    chain = [imported, module]
                    step = previous[module]
                    while step is not None:
                        chain.append(step)
                        step = previous[step]
                    return tuple(reversed(chain))
                if imported in ignore:
                    continue
                previous[imported] = module
                queue.append(imported)
        return None

    def find_chains(
        self,
        from_modules: Iterable[str],
        to_modules: Iterable[str],
        *,
        ignore: Set[str] = frozenset(),
    ) -> list[tuple[str, ...]]:
        """Shortest chains found one after another, each search leaving out the
        imports of the chains already found (grimp's `find_shortest_chains` over sets
        of modules): every import from `from_modules` towards `to_modules` is on at
        most one chain, and a direct import is found before any chain through it."""
        starts, targets = frozenset(from_modules), frozenset(to_modules)
        skipped: set[tuple[str, str]] = set()
        chains: list[tuple[str, ...]] = []
        while True:
            chain = self.find_chain(starts, targets, ignore=ignore, skip_imports=skipped)
            if chain is None:
                return chains
            chains.append(chain)
            skipped.update(pairwise(chain))

    def links(self, pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, int], ...]:
        """(file, line) of every import by which each (importer, imported) of `pairs`
        imports, in order, without repeats: the places a chain or cycle is made of."""
        found: dict[tuple[str, int], None] = {}
        for importer, imported in pairs:
            for item in self.imports_between(importer, imported):
                found[(item.relpath, item.line)] = None
        return tuple(found)

    def describe(self, chain: Sequence[str]) -> str:
        """`a -> b (l.3) -> c (l.7, l.9)`: each link with the lines of the importer
        that import the next module, as lint-imports prints them."""
        parts = [chain[0]]
        for importer, imported in pairwise(chain):
            lines = ", ".join(f"l.{line}" for line in self.lines(importer, imported)) or "l.?"
            parts.append(f"{imported} ({lines})")
        return " -> ".join(parts)

    # -- architecture -----------------------------------------------------------------
    def illegal_dependencies(self, levels: Sequence[Level]) -> list[Dependency]:
        """The dependencies a layered architecture forbids, with their routes (grimp's
        `find_illegal_dependencies_for_layers` for one container).

        `levels` are top first; modules are absolute names (absent ones are passed
        over). A lower layer may not reach a higher one, and siblings of an independent
        level may not reach each other; each layer counts as a package (everything in
        it). Chains through another layer's modules do not count: that layer's own
        dependency is reported instead. A dependency's routes are its direct imports,
        and for each chain through unlisted modules, its middle with every head in the
        importing layer and every tail in the imported one.
        """
        present = [
            Level(frozenset(m for m in level.modules if m in self.modules), level.independent)
            for level in levels
        ]
        layered = self.with_descendants(m for level in present for m in level.modules)
        pairs: set[tuple[str, str]] = set()
        for index, level in enumerate(present):
            for module in level.modules:
                pairs.update(
                    (lower, module) for below in present[index + 1 :] for lower in below.modules
                )
                if level.independent:
                    pairs.update(
                        (module, sibling) for sibling in level.modules if sibling != module
                    )
        found: list[Dependency] = []
        for importer, imported in sorted(pairs):
            dependency = self._dependency(importer, imported, layered)
            if dependency is not None:
                found.append(dependency)
        return found

    def _dependency(
        self, importer: str, imported: str, layered: frozenset[str]
    ) -> Dependency | None:
        targets = self.with_descendants([imported])
        starts = self.with_descendants([importer]) - targets
        if self.find_chain(starts, targets) is None:
            return None  # the cheap test first: most pairs of layers have no chain at all
        chains = self.find_chains(starts, targets, ignore=layered - starts - targets)
        routes: set[Route] = set()
        for chain in chains:
            if len(chain) == 2:
                routes.add(Route((chain[0],), (), (chain[1],)))
                continue
            middle = chain[1:-1]
            heads = tuple(m for m in self.importers_of(middle[0]) if m in starts)
            tails = tuple(m for m in self.imported_by(middle[-1]) if m in targets)
            routes.add(Route(heads, middle, tails))
        if not routes:
            return None
        return Dependency(importer, imported, tuple(sorted(routes)))

    def sibling_imports(self, package: str) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """For each ordered pair of distinct children of `package`, the (importer,
        imported) module pairs by which the first (as a package) imports the second,
        sorted."""
        prefix = package + "."
        cut = len(prefix)
        found: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for importer in self.descendants(package):
            downstream = prefix + importer[cut:].partition(".")[0]
            for imported in self.imported_by(importer):
                if not imported.startswith(prefix):
                    continue
                upstream = prefix + imported[cut:].partition(".")[0]
                if upstream != downstream:
                    found.setdefault((downstream, upstream), set()).add((importer, imported))
        return {pair: sorted(links) for pair, links in sorted(found.items())}

    def cycle_breakers(self, package: str) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """Dependencies between children of `package` whose removal leaves them
        acyclic (grimp's `nominate_cycle_breakers`), each with its module imports;
        empty exactly when the children import each other in no cycle.

        The children are ordered by the heuristic of Eades, Lin and Smyth (1993), as
        grimp applies it: sources first, then sinks, then the rest by the greatest
        weighted out-degree minus in-degree (ties: the first name), where a dependency
        weighs its number of module imports. A dependency pointing backwards in that
        order breaks a cycle.
        """
        children = self.children(package)
        if len(children) < 2:
            return {}
        between = self.sibling_imports(package)
        weight = {pair: len(links) for pair, links in between.items()}
        out: dict[str, set[str]] = {child: set() for child in children}
        into: dict[str, set[str]] = {child: set() for child in children}
        for downstream, upstream in between:
            out[downstream].add(upstream)
            into[upstream].add(downstream)
        order = _feedback_order(children, out, into, weight)
        position = {child: index for index, child in enumerate(order)}
        return {
            pair: links for pair, links in between.items() if position[pair[1]] < position[pair[0]]
        }


def _feedback_order(
    nodes: Sequence[str],
    out: dict[str, set[str]],
    into: dict[str, set[str]],
    weight: Mapping[tuple[str, str], int],
) -> list[str]:
    """An order of `nodes` with few edges pointing backwards (see `cycle_breakers`)."""
    out = {node: set(targets) for node, targets in out.items()}
    into = {node: set(sources) for node, sources in into.items()}

    def remove(node: str) -> None:
        for target in out.pop(node):
            into[target].discard(node)
        for source in into.pop(node):
            out[source].discard(node)

    sources: list[str] = []
    while found := sorted(node for node in out if not into[node]):
        sources.extend(found)
        for node in found:
            remove(node)
    sinks: list[str] = []
    while found := sorted(node for node in out if not out[node]):
        for node in found:
            remove(node)
        sinks[0:0] = found
    middle: list[str] = []
    while out:

        def difference(node: str) -> int:
            gone = sum(weight[node, target] for target in out[node])
            come = sum(weight[source, node] for source in into[node])
            return gone - come

        best = min(out, key=lambda node: (-difference(node), node))
        middle.append(best)
        remove(best)
    return [*sources, *middle, *sinks]


def expression_pattern(expression: str) -> re.Pattern[str]:
    """The pattern of a module expression: `*` one name, `**` one or more names.
    Raises ValueError for an expression that is not dotted names and wildcards."""
    parts = expression.split(".")
    if not all(_EXPRESSION_PART.match(part) for part in parts):
        raise ValueError(f"{expression!r} is not a module expression (names, `*`, `**`)")
    one = r"[^.]+"
    translated = [
        one if part == "*" else rf"{one}(?:\.{one})*" if part == "**" else re.escape(part)
        for part in parts
    ]
    return re.compile(r"\.".join(translated))


def parse_import_expression(expression: str) -> tuple[str, str]:
    """`importer -> imported` split into its two module expressions (each checked)."""
    importer, arrow, imported = expression.partition("->")
    importer, imported = importer.strip(), imported.strip()
    if not arrow or not importer or not imported:
        raise ValueError(f"{expression!r} is not an import expression (`importer -> imported`)")
    expression_pattern(importer)
    expression_pattern(imported)
    return importer, imported


# -- building ---------------------------------------------------------------------------
def _deepest(name: str, modules: frozenset[str]) -> str | None:
    """`name` or its nearest enclosing name that is a module of the project."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


#: How `_resolved` sorts what a statement reaches.
_INTERNAL: Final = "internal"
_EXTERNAL: Final = "external"
_UNRESOLVED: Final = "unresolved"


@dataclass(frozen=True)
class _Project:
    """What resolving a name needs: the modules, the hidden roots (`src`) and the
    top-level names of the project's files and folders (a name starting with one of
    them is the project's own)."""

    modules: frozenset[str]
    hidden_roots: tuple[str, ...] = ()
    tops: frozenset[str] = frozenset()

    def unhidden(self, name: str) -> str:
        for root in self.hidden_roots:
            if name.startswith(root + "."):
                return name[len(root) + 1 :]
        return name

    def internal(self, name: str) -> bool:
        top = name.partition(".")[0]
        return top in self.tops or top in self.hidden_roots


def _resolved(
    statement: ImportStatement,
    importer: str,
    is_package: bool,
    project: _Project,
) -> Iterator[tuple[str, str]]:
    """(imported, kind) for each module `statement` in `importer` reaches: a module of
    the project, an external package, or an unresolved name of the project's own."""
    if not statement.is_from:
        for name in statement.names:
            yield _absolute(name, project, relative=False)
        return
    if statement.level:
        base = resolve_relative(importer, is_package, statement.level, statement.module)
        if base is None:  # no package to resolve it from: Python raises ImportError
            if project.tops:
                yield "." * statement.level + (statement.module or ""), _UNRESOLVED
            return
    else:
        base = statement.module or ""
    inside, kind = _absolute(base, project, relative=bool(statement.level))
    if kind != _INTERNAL:
        yield inside, kind
        return
    base = project.unhidden(base)
    for name in statement.names:
        candidate = f"{base}.{name}"
        yield (candidate if name != "*" and candidate in project.modules else inside), kind


def _absolute(name: str, project: _Project, *, relative: bool) -> tuple[str, str]:
    """(imported, kind) for the absolute `name`: its deepest module of the project, else
    unresolved when the name is the project's own (or was written relative), else the
    top-level name of an external package."""
    inside = _deepest(project.unhidden(name), project.modules)
    if inside is not None:
        return inside, _INTERNAL
    if relative or project.internal(name):
        return name, _UNRESOLVED
    return name.partition(".")[0], _EXTERNAL


def parse_source(text: str, relpath: str) -> ast.Module | str:
    """`text` parsed, or the syntax error as a message."""
    try:
        # Warnings about the code (invalid escapes) must not become errors under -W error.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=relpath)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cannot parse: {exc}"


def build_import_graph(
    unit: CodeUnit, *, syntax_checked: bool = False, language: str = PYTHON.name
) -> ImportGraph:
    """The import graph of every file of `unit` written in `language` (see the module
    docstring); `Undecidable("invalid-task")` for a language without an import reader.

    With `syntax_checked` (every file is known to parse: the engine checks that before
    any check runs), import statements are scanned from the text, several times faster
    than parsing; otherwise each file is parsed with `ast`, and one that does not parse
    is listed in `unparsed`.
    """
    builder = GRAPH_BUILDERS.get(language)
    if builder is None:
        raise Undecidable(
            "invalid-task", f"the imports of {language} code cannot be read: no import reader"
        )
    return builder(unit.files_in(language), unit.names, syntax_checked=syntax_checked)


def graph_of_sources(
    files: Sequence[SourceFile], names: ModuleNames | None, *, syntax_checked: bool = False
) -> ImportGraph:
    """The import graph of `files`, named by `names` (None: each file by its own path,
    and relative imports resolve to nothing, as in a single module)."""
    if names is not None:
        named = {f.relpath: names.modules[f.relpath] for f in files if f.relpath in names.modules}
        modules = frozenset(named.values()) | names.packages
        unnamed = dict(names.unimportable)
        hidden = names.hidden_roots
        tops = frozenset(f.relpath.partition("/")[0].removesuffix(".py") for f in files) - set(
            hidden
        )
        project = _Project(modules, hidden, tops | {m.partition(".")[0] for m in modules})
    else:
        named = {f.relpath: f.module for f in files}
        modules = frozenset(named.values())
        unnamed = {}
        hidden = ()
        project = _Project(modules)
    imports: list[Import] = []
    unresolved: list[Unresolved] = []
    unparsed: dict[str, str] = {}
    for source in files:
        importer = named.get(source.relpath)
        if importer is None:
            continue
        if syntax_checked:
            statements = scan_statements(source.text)
        else:
            tree = parse_source(source.text, source.relpath)
            if isinstance(tree, str):
                unparsed[source.relpath] = tree
                continue
            statements = statements_of_tree(tree)
        is_package = source.relpath.endswith("__init__.py")
        seen: set[tuple[str, int]] = set()
        for statement in statements:
            for imported, kind in _resolved(statement, importer, is_package, project):
                if imported == importer or (imported, statement.line) in seen:
                    continue
                seen.add((imported, statement.line))
                if kind == _UNRESOLVED:
                    unresolved.append(
                        Unresolved(
                            importer,
                            imported,
                            source.relpath,
                            statement.line,
                            statement.type_checking,
                        )
                    )
                    continue
                imports.append(
                    Import(
                        importer,
                        imported,
                        source.relpath,
                        statement.line,
                        statement.type_checking,
                        statement.in_function,
                        kind == _EXTERNAL,
                    )
                )
    return ImportGraph(
        modules,
        imports,
        files={module: relpath for relpath, module in named.items()},
        unparsed=unparsed,
        unnamed=unnamed,
        unresolved=unresolved,
        hidden_roots=hidden,
    )


class GraphBuilder(Protocol):
    """Builds the import graph of one language's files (named by the unit's `names`)."""

    def __call__(
        self, files: Sequence[SourceFile], names: ModuleNames | None, *, syntax_checked: bool
    ) -> ImportGraph: ...


#: The import reader of each language, by name.
GRAPH_BUILDERS: Final[dict[str, GraphBuilder]] = {PYTHON.name: graph_of_sources}


def _as_import(item: Unresolved) -> Import:
    """`item` as an import (of its name), for the filters `ImportGraph.without` takes."""
    return Import(item.importer, item.name, item.relpath, item.line, item.type_checking)


class _HasUnit(Protocol):
    @property
    def unit(self) -> CodeUnit: ...


_GRAPHS: OrderedDict[tuple[str, str], tuple[CodeUnit, ImportGraph]] = OrderedDict()


def import_graph_of(ctx: _HasUnit, language: str = PYTHON.name) -> ImportGraph:
    """The import graph of the check context's unit in `language`, built once per unit.

    The engine has checked every file's syntax before a check runs, so the imports are
    scanned from the text.

    Kept for the last `GRAPHS_KEPT` units, keyed by the unit's key and the language and
    valid only for that very unit object (a sample's unit reuses a key with other code).
    """
    unit = ctx.unit
    key = (unit.key, language)
    kept = _GRAPHS.get(key)
    if kept is not None and kept[0] is unit:
        _GRAPHS.move_to_end(key)
        return kept[1]
    graph = build_import_graph(unit, syntax_checked=True, language=language)
    _GRAPHS[key] = (unit, graph)
    _GRAPHS.move_to_end(key)
    while len(_GRAPHS) > GRAPHS_KEPT:
        _GRAPHS.popitem(last=False)
    return graph

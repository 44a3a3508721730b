"""The module graph of a JavaScript or TypeScript project, in the shape of the Python
one (`import_graph.py`'s `ImportGraph`, `Import`, `Unresolved`), so that the contract
checks (`layers`, `independence`, `acyclic`, `imports` with `indirect`) decide both
languages by one code path, with the same semantics: every module inside a named one
counts, chains through other modules are followed, each link has its file and line.

Module names. A contract names modules with dotted names, so a JS/TS module is named by
its path: folders and the file name without its suffix, joined by dots
(`src/routes/users.js` is `src.routes.users`). An `index` file is its folder's module
(`src/routes/index.ts` is `src.routes`, as `__init__.py` is a package's), and every
folder holding source is a module too, at any depth (as a namespace package is in
Python), so `containers: [src]` with `layers: [routes, services]` means what it says.
A character that cannot be in a dotted name becomes `_` (`users.controller.ts` is
`users_controller`, `user-routes.js` is `user_routes`). Files that come to one name
(`db.js` beside `db.ts`, `routes.js` beside `routes/index.js`) are one module: their
imports are its imports, each at its own file and line.

Edges. Each import `checks/shared/js_imports.py` reads (ES modules, `export ... from`,
`import x = require()`, CommonJS `require`, `import()` with a literal name) is resolved
by `js_resolve.py` (relative paths with Node's and TypeScript's suffixes and `index`
files, `package.json` `exports`/`main`/`imports` of workspace packages, tsconfig
`paths`/`baseUrl` through `extends`). It is an `Import` of the module of the file it
reaches, or (`external`) of the npm package or Node built-in it names (`express`,
`@prisma/client`, `fs`); `type_checking` marks `import type` (erased when compiled:
nothing runs, as under Python's `if TYPE_CHECKING:`). An import of a project file that
is not source (`./data.json`, a `.d.ts`) is no edge. One that names the project's own
code and reaches nothing is `Unresolved`, at its file and line: a contract cannot
follow it, and the checks report it. A file that does not parse, or a config that
cannot be read (`package.json`, `tsconfig.json`), is in `unparsed`: the contract
checks refuse to decide on a graph with a hole.

The import reader is given by the caller (`read_imports`): it lives with the checks
(`checks/shared/js_imports.py`), which the code layer does not import.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Final, Protocol

from pytest_codeif.code.import_graph import GRAPHS_KEPT, Import, ImportGraph, Unresolved
from pytest_codeif.code.js_project import JsProject, folder_of
from pytest_codeif.code.js_resolve import PROBED, Resolver
from pytest_codeif.code.js_tree import JsModule, JsSyntaxError, grammar_of
from pytest_codeif.code.languages import JAVASCRIPT, JS_FAMILY, TYPESCRIPT
from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.outcome import Undecidable

#: The name the graph of JS/TS files is kept under (both languages are one graph: a
#: TypeScript file imports JavaScript ones and the other way round).
JS_GRAPH: Final = "javascript"
_NOT_NAME: Final = re.compile(r"\W")
_SUFFIXES: Final = tuple(
    sorted((*JAVASCRIPT.suffixes, *TYPESCRIPT.suffixes), key=len, reverse=True)
)
_INDEX: Final = "index"


class JsImportSite(Protocol):
    """What the graph reads of one import (`checks/shared/js_imports.JsImport`)."""

    @property
    def specifier(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def type_only(self) -> bool: ...


ImportReader = Callable[[JsModule], Iterable[JsImportSite]]


def _name_part(part: str) -> str:
    return _NOT_NAME.sub("_", part)


def folder_module(folder: str) -> str:
    """The module name of a project folder (`src/routes` is `src.routes`)."""
    return ".".join(_name_part(part) for part in folder.split("/")) if folder else ""


def js_module_name(relpath: str) -> str:
    """The module name of the JS/TS file at `relpath` (see the module docstring)."""
    stem = relpath
    for suffix in _SUFFIXES:
        if relpath.endswith(suffix):
            stem = relpath[: -len(suffix)]
            break
    folder, _, name = stem.rpartition("/")
    if name == _INDEX and folder:
        return folder_module(folder)
    return ".".join(filter(None, (folder_module(folder), _name_part(name))))


def _preference(relpath: str) -> tuple[bool, int, str]:
    """How strongly the file at `relpath` stands for its module among files of the same
    name: the one `./name` resolves to first (a file before a folder's index, TypeScript
    before JavaScript)."""
    is_index = relpath.rpartition("/")[2].startswith(_INDEX + ".")
    suffix = next((i for i, s in enumerate(PROBED) if relpath.endswith(s)), len(PROBED))
    return is_index, suffix, relpath


def build_js_graph(unit: CodeUnit, read_imports: ImportReader) -> ImportGraph:
    """The graph of every JavaScript and TypeScript file of `unit` (see the module
    docstring), imports read by `read_imports`."""
    sources = [f for f in unit.files if f.language in JS_FAMILY]
    names = {f.relpath: js_module_name(f.relpath) for f in sources}
    files: dict[str, str] = {}
    for relpath in sorted(names, key=_preference):
        files.setdefault(names[relpath], relpath)
    modules: set[str] = set(names.values())
    for relpath in names:
        folder = folder_of(relpath)
        while folder:
            modules.add(folder_module(folder))
            folder = folder_of(folder)
    project = JsProject(unit)
    resolver = Resolver(project)
    imports: list[Import] = []
    unresolved: list[Unresolved] = []
    unparsed: dict[str, str] = {}
    for source in sources:
        try:
            module: JsModule = JsModule(source)
        except JsSyntaxError:
            module = _Recovered(source)
        except Undecidable as exc:  # past the bounds of what is parsed
            unparsed[source.relpath] = exc.message.removeprefix(source.relpath + ": ")
            continue
        edges, missing = _edges(module, names, resolver, read_imports)
        imports += edges
        if unit.is_project:  # a single file has no project its paths could reach
            unresolved += missing
    unparsed.update(project.problems)
    return ImportGraph(
        modules,
        imports,
        files=files,
        unparsed=unparsed,
        unresolved=unresolved,
        language=JS_GRAPH,
    )


class _Recovered(JsModule):
    """A file with a syntax error, read as tree-sitter recovers it, so that its imports
    are still edges (as Python's graph scans a broken file's import statements). The
    engine reports a syntax error of a file in the constraint's scope itself; one out
    of it does not spoil the verdict."""

    def __init__(self, source: SourceFile) -> None:
        from ast_grep_py import SgRoot  # noqa: PLC0415 - as js_tree loads it: lazily

        self.source = source
        self.relpath = source.relpath
        self.language = source.language
        self.text = source.text
        self.grammar = grammar_of(source)
        self.root = SgRoot(source.text, self.grammar).root()


def _edges(
    module: JsModule, names: dict[str, str], resolver: Resolver, read_imports: ImportReader
) -> tuple[list[Import], list[Unresolved]]:
    """The imports of `module` resolved: its edges, and those that reach nothing."""
    importer = names[module.relpath]
    edges: list[Import] = []
    missing: list[Unresolved] = []
    seen: set[tuple[str, int]] = set()
    for site in read_imports(module):
        found = resolver.resolve(module.relpath, site.specifier, site.kind)
        if found.kind == "unresolved":
            missing.append(
                Unresolved(importer, site.specifier, module.relpath, site.line, site.type_only)
            )
            continue
        if found.kind == "other":
            continue  # a data file, a stylesheet, a declaration: no module
        if found.kind == "source":
            imported = names[found.path]
        elif found.kind == "folder":
            imported = folder_module(found.path)
        else:
            imported = found.path
        targets = [(imported, found.kind == "external")]
        shadowed = resolver.shadowed_package(module.relpath, site.specifier)
        if shadowed is not None and found.kind != "external":
            targets.append((shadowed, True))  # what Node loads: `paths` is the compiler's
        for target, external in targets:
            if not target or target == importer or (target, site.line) in seen:
                continue
            seen.add((target, site.line))
            edges.append(
                Import(
                    importer,
                    target,
                    module.relpath,
                    site.line,
                    type_checking=site.type_only,
                    external=external,
                )
            )
    return edges, missing


class _HasUnit(Protocol):
    @property
    def unit(self) -> CodeUnit: ...


_GRAPHS: OrderedDict[str, tuple[CodeUnit, ImportGraph]] = OrderedDict()


def js_graph_of(ctx: _HasUnit, read_imports: ImportReader) -> ImportGraph:
    """The JS/TS graph of the check context's unit, built once per unit (kept for the
    last `GRAPHS_KEPT` units, valid only for that very unit object, as
    `import_graph.import_graph_of` keeps Python's)."""
    unit = ctx.unit
    kept = _GRAPHS.get(unit.key)
    if kept is not None and kept[0] is unit:
        _GRAPHS.move_to_end(unit.key)
        return kept[1]
    graph = build_js_graph(unit, read_imports)
    _GRAPHS[unit.key] = (unit, graph)
    _GRAPHS.move_to_end(unit.key)
    while len(_GRAPHS) > GRAPHS_KEPT:
        _GRAPHS.popitem(last=False)
    return graph

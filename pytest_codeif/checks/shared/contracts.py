"""What the architecture checks (`layers`, `independence`, `acyclic`, `imports` with
`indirect`) share: the options every contract takes, the project's import graph prepared
for them, and an illegal dependency reported as findings.

The graph is Python's (`code/import_graph.py`) or JavaScript and TypeScript's
(`code/js_graph.py`, both languages in one graph), in one shape, so each check decides
either language by the same code. Which one: the language of the files in the
constraint's scope; a scope holding both (a Python backend beside a TypeScript
frontend, a Flask app with its static scripts) takes the graph in which more of the
contract's module names exist, Python on a tie, and says so in a note."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any, Final

from pytest_codeif.checks.base import CheckContext, Finding, Undecidable
from pytest_codeif.checks.shared.js_imports import js_imports
from pytest_codeif.code.import_graph import (
    Dependency,
    ImportGraph,
    Route,
    import_graph_of,
    parse_import_expression,
)
from pytest_codeif.code.js_graph import js_graph_of
from pytest_codeif.code.languages import JS_FAMILY, PYTHON, language_of_path

#: The category of the architecture checks: constraints on how a project's modules
#: depend on each other (not one of MultiCodeIF's, which judge single answers).
ARCHITECTURE: Final = "Architecture"
_EXPRESSION_PATTERN: Final = r"^([A-Za-z_]\w*|\*\*?)(\.([A-Za-z_]\w*|\*\*?))*$"
#: JSON Schema of a module expression: dotted names, `*` for one name, `**` for several.
EXPRESSION: Final = {"type": "string", "pattern": _EXPRESSION_PATTERN}
#: The options every contract check takes.
COMMON_OPTIONS: Final[Mapping[str, Any]] = {
    "ignore-imports": {
        "type": "array",
        "items": {"type": "string", "pattern": r"^\s*\S+\s*->\s*\S+\s*$"},
    },
    "exclude-type-checking-imports": {"type": "boolean"},
}


def check_expressions(options: Mapping[str, Any]) -> None:
    """Raise ValueError for an `ignore-imports` entry that is not `importer -> imported`
    with module expressions on both sides."""
    for expression in options.get("ignore-imports", []):
        parse_import_expression(str(expression))


def contract_graph(
    ctx: CheckContext, options: Mapping[str, Any], names: Iterable[str] = ()
) -> ImportGraph:
    """The unit's import graph as the contract's options want it: without the imports
    under `if TYPE_CHECKING:` (TypeScript: `import type`) when
    `exclude-type-checking-imports` is set, and without those `ignore-imports` matches.
    An expression whose modules exist but that matches no import is noted, not an error
    (the code may simply no longer have that import); one naming a module of the code's
    own packages that does not exist is a task error (`check_ignored`). `names`, the
    module expressions the contract names, choose the language when the scope holds
    Python and JS/TS both (see the module docstring)."""
    graph = language_graph(ctx, names)
    if graph.unparsed:
        relpath, error = sorted(graph.unparsed.items())[0]
        raise Undecidable("syntax-error", f"{relpath}: {error}")
    check_ignored(graph, options)
    graph, unmatched = prepared(graph, options)
    for expression in unmatched:
        ctx.notes.append(f"ignore-imports `{expression}` matched no import")
    return graph


def language_graph(ctx: CheckContext, names: Iterable[str] = ()) -> ImportGraph:
    """The import graph of the language the constraint's scope is written in (see the
    module docstring)."""
    written = {f.language for f in ctx.unit.files if ctx.in_scope(f.relpath)}
    python, js = PYTHON.name in written, bool(written & JS_FAMILY)
    if not js:
        return import_graph_of(ctx)
    js_graph = js_graph_of(ctx, js_imports)
    if not python:
        return js_graph
    python_graph = import_graph_of(ctx)
    listed = list(names)
    js_known = _known(js_graph, listed)
    if not js_known:  # a Python project with scripts beside it: nothing to choose
        return python_graph
    if js_known > _known(python_graph, listed):
        ctx.notes.append(
            "the scope holds Python and JavaScript/TypeScript; the contract's modules are "
            "the JavaScript/TypeScript ones"
        )
        return js_graph
    ctx.notes.append(
        "the scope holds Python and JavaScript/TypeScript; the contract judges the Python "
        "modules (scope it with `files` to judge the others)"
    )
    return python_graph


def _known(graph: ImportGraph, names: Iterable[str]) -> int:
    """How many of `names` (module expressions) name something in `graph`."""
    count = 0
    for name in names:
        try:
            count += bool(graph.matching(str(name)))
        except ValueError:  # not a module expression: the check refuses it itself
            continue
    return count


def prepared(graph: ImportGraph, options: Mapping[str, Any]) -> tuple[ImportGraph, tuple[str, ...]]:
    """`graph` with the contract options applied, and the `ignore-imports` expressions
    that matched no import."""
    if options.get("exclude-type-checking-imports", False):
        graph = graph.without(lambda item: item.type_checking)
    return graph.ignoring(options.get("ignore-imports", []))


def unknown_module(
    graph: ImportGraph,
    name: str,
    what: str,
    key_path: tuple[str | int, ...],
    among: Iterable[str] | None = None,
) -> Undecidable:
    """The task error for a module name of the constraint's options (at `key_path`
    inside the constraint) that matches no module of the code: most likely a typo, and
    a rule about nothing would pass whatever the code does. Suggests the closest of
    `among` (by default every module of the code)."""
    hint = "" if "*" in name else graph.suggestion(graph.canonical(name), among)
    return Undecidable(
        "invalid-task",
        f"{what} `{name}` matches no module of the code{hint}",
        key_path=key_path,
    )


def resolve_modules(
    graph: ImportGraph, expressions: Iterable[str], key: str, what: str
) -> frozenset[str]:
    """The project modules `expressions` (the option `key`) name; a task error for the
    first that names none, wildcards included (`unknown_module`), as import-linter
    refuses a contract naming a module that does not exist."""
    found: set[str] = set()
    for index, expression in enumerate(expressions):
        matched = graph.matching(expression) & graph.modules
        if not matched:
            raise unknown_module(graph, expression, what, (key, index))
        found |= matched
    return frozenset(found)


def check_ignored(graph: ImportGraph, options: Mapping[str, Any]) -> None:
    """A task error for an `ignore-imports` expression whose importer matches no module
    of the code, or whose imported side matches nothing and is named inside the code's
    own packages (an external package the code does not import is no error)."""
    for index, expression in enumerate(options.get("ignore-imports", [])):
        importer, imported = parse_import_expression(str(expression))
        where = ("ignore-imports", index)
        if not graph.matching(importer) & graph.modules:
            raise unknown_module(graph, importer, f"`{expression}`: importer", where)
        if not graph.matching(imported) and graph.looks_internal(imported):
            raise unknown_module(graph, imported, f"`{expression}`: imported module", where)


def unresolved_findings(ctx: CheckContext, graph: ImportGraph, rule: str) -> list[Finding]:
    """A finding at each import in scope that names the code's own packages but reaches
    no module of it (`ImportGraph.unresolved`): the contract cannot follow it, so it
    is reported rather than passed over."""
    return [
        Finding(
            f"`{item.importer}` imports `{item.name}`, which is no module of the code: "
            f"{_cannot(item.relpath)}, and the contract cannot follow it",
            rule,
            item.relpath,
            item.line,
        )
        for item in graph.unresolved
        if ctx.in_scope(item.relpath)
    ]


def _cannot(relpath: str) -> str:
    """Why an unresolved import of the file at `relpath` fails, in its language's terms."""
    written = language_of_path(relpath)
    if written is not None and written.name in JS_FAMILY:
        return (
            "it reaches no file of the project (a path, a tsconfig `paths` alias or a "
            "package.json `imports` entry naming nothing there)"
        )
    return "Python cannot import it from the project root"


def route_finding(
    graph: ImportGraph, dependency: Dependency, route: Route, rule: str, why: str
) -> Finding:
    """One finding for one route of an illegal dependency, at the first import of its
    chain, naming the whole chain with the lines of each link (as lint-imports prints
    it), then the route's other heads and tails. Its `links` are every import of them."""
    chain = route.chain
    text = graph.describe(chain)
    pairs = list(pairwise(chain))
    extras = [graph.describe((head, chain[1])) for head in route.heads[1:]]
    extras += [graph.describe((chain[-2], tail)) for tail in route.tails[1:]]
    pairs += [(head, chain[1]) for head in route.heads[1:]]
    pairs += [(chain[-2], tail) for tail in route.tails[1:]]
    message = (
        f"{dependency.importer} is not allowed to import {dependency.imported} ({why}): {text}"
    )
    if extras:
        message += "; also " + "; ".join(extras)
    first = graph.imports_between(chain[0], chain[1])[0]
    return Finding(message, rule, first.relpath, first.line, links=graph.links(pairs))


def dependency_findings(
    graph: ImportGraph,
    dependencies: Iterable[Dependency],
    rule: str,
    reason: Mapping[tuple[str, str], str],
) -> list[Finding]:
    """A finding per route of each dependency; `reason` says why each (importer,
    imported) pair is illegal."""
    return [
        route_finding(
            graph, dependency, route, rule, reason[dependency.importer, dependency.imported]
        )
        for dependency in dependencies
        for route in dependency.routes
    ]

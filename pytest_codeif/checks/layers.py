"""The `layers` check: a layered architecture, as import-linter's `layers` contract.

Also the pieces the other architecture checks (`independence`, `acyclic`, `imports`
with `indirect`) share: the options every contract takes, preparing the project's
import graph for them, and reporting an illegal dependency as findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.code.import_graph import (
    Dependency,
    ImportGraph,
    Level,
    Route,
    expression_pattern,
    import_graph_of,
    parse_import_expression,
)

#: The category of the architecture checks: constraints on how a project's modules
#: depend on each other (not one of MultiCodeIF's, which judge single answers).
ARCHITECTURE: Final = "Architecture"
_NAME_PATTERN: Final = r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$"
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
_INDEPENDENT: Final = "|"
_TOGETHER: Final = ":"


@dataclass(frozen=True)
class LayerSpec:
    """One layer as the task lists it: module names (relative to each container, if
    any), each optional or not, and whether they are independent of each other."""

    names: tuple[tuple[str, bool], ...]
    independent: bool = True


def parse_layer(raw: str | Sequence[str]) -> LayerSpec:
    """A layer from the task: `api`; `(api)` (optional: no error when absent);
    `orders | users` or a list `[orders, users]` (siblings that must not import each
    other); `orders : users` (siblings that may). Raises ValueError for a mix of `|`
    and `:`, or a name listed twice."""
    if isinstance(raw, str):
        if _INDEPENDENT in raw and _TOGETHER in raw:
            raise ValueError(f"layer {raw!r} mixes `|` (independent) and `:` (not)")
        independent = _TOGETHER not in raw
        parts = [p.strip() for p in raw.replace(_TOGETHER, _INDEPENDENT).split(_INDEPENDENT)]
    else:
        independent, parts = True, [str(p).strip() for p in raw]
    names: list[tuple[str, bool]] = []
    for part in parts:
        optional = part.startswith("(") and part.endswith(")")
        name = part[1:-1].strip() if optional else part
        if not name or not all(piece.isidentifier() for piece in name.split(".")):
            raise ValueError(f"layer {raw!r}: {part!r} is not a module name")
        names.append((name, optional))
    listed = [name for name, _ in names]
    if len(set(listed)) != len(listed):
        raise ValueError(f"layer {raw!r} lists a module twice")
    return LayerSpec(tuple(names), independent)


def check_expressions(options: Mapping[str, Any]) -> None:
    """Raise ValueError for an `ignore-imports` entry that is not `importer -> imported`
    with module expressions on both sides."""
    for expression in options.get("ignore-imports", []):
        parse_import_expression(str(expression))


def contract_graph(ctx: CheckContext, options: Mapping[str, Any]) -> ImportGraph:
    """The unit's import graph as the contract's options want it: without the imports
    under `if TYPE_CHECKING:` when `exclude-type-checking-imports` is set, and without
    those `ignore-imports` matches (an expression that matches nothing is noted, not
    an error: the code under evaluation may simply not have that import)."""
    graph = import_graph_of(ctx)
    if graph.unparsed:
        relpath, error = sorted(graph.unparsed.items())[0]
        raise Undecidable("syntax-error", f"{relpath}: {error}")
    graph, unmatched = prepared(graph, options)
    for expression in unmatched:
        ctx.notes.append(f"ignore-imports `{expression}` matched no import")
    return graph


def prepared(graph: ImportGraph, options: Mapping[str, Any]) -> tuple[ImportGraph, tuple[str, ...]]:
    """`graph` with the contract options applied, and the `ignore-imports` expressions
    that matched no import."""
    if options.get("exclude-type-checking-imports", False):
        graph = graph.without(lambda item: item.type_checking)
    return graph.ignoring(options.get("ignore-imports", []))


def resolve_modules(
    graph: ImportGraph, expressions: Iterable[str], what: str, rule: str
) -> tuple[frozenset[str], list[Finding]]:
    """The project modules `expressions` name, and a finding for each plain name that is
    not one (a wildcard that matches nothing names nothing, without a finding)."""
    found: set[str] = set()
    missing: list[Finding] = []
    for expression in expressions:
        matched = graph.matching(expression) & graph.modules
        if not matched and "*" not in expression:
            missing.append(Finding(f"{what} `{expression}` does not exist", rule))
        found |= matched
    return frozenset(found), missing


def route_finding(
    graph: ImportGraph, dependency: Dependency, route: Route, rule: str, why: str
) -> Finding:
    """One finding for one route of an illegal dependency, at the first import of its
    chain, naming the whole chain with the lines of each link (as lint-imports prints
    it), then the route's other heads and tails."""
    chain = route.chain
    text = graph.describe(chain)
    extras = [graph.describe((head, chain[1])) for head in route.heads[1:]]
    extras += [graph.describe((chain[-2], tail)) for tail in route.tails[1:]]
    message = (
        f"{dependency.importer} is not allowed to import {dependency.imported} ({why}): {text}"
    )
    if extras:
        message += "; also " + "; ".join(extras)
    first = graph.imports_between(chain[0], chain[1])[0]
    return Finding(message, rule, first.relpath, first.line)


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


class LayersCheck(Check):
    """A lower layer never imports a higher one, directly or through other modules.

    Why: a layered application (routes over services over repositories over models)
    stays changeable only if dependencies point one way; a repository that imports a
    route, even through a helper module, ties the layers into one. The semantics are
    import-linter's `layers` contract (tested side by side with `lint-imports`): every
    module inside a layer counts, at any depth; a chain through unlisted modules is
    illegal (the chain is the evidence), while a chain through another layer is that
    layer's own dependency. Imports inside functions and under `if TYPE_CHECKING:`
    count (unless excluded). Each finding is at the first import of one illegal chain,
    which it names link by link: `app.repositories.user_repo -> app.utils.helpers (l.3)
    -> app.api.routes (l.7)`. A listed layer that does not exist is a finding; write it
    in parentheses, `(cli)`, when it is optional. One difference from import-linter: a
    folder without `__init__.py` inside a package is a namespace package that Python
    imports, and its modules count here; grimp leaves them out of its graph.

    Options: `layers` (required, top first: a module name; several siblings in one
    layer as a list `[orders, users]` or `orders | users`, which must not import each
    other, or `orders : users`, which may), `containers` (packages that each hold the
    layers, whose names are then relative: `containers: [app]` with `api` means
    `app.api`; `*` wildcards allowed), `ignore-imports` (import-linter's
    `importer -> imported`, each side a module or a `*`/`**` wildcard expression),
    `exclude-type-checking-imports` (default false), `exhaustive` (with containers:
    every child of a container must be a layer) and `exhaustive-ignores`.

    Example:

        - check: layers
          containers: [app]
          layers: [api, services, repositories, models]
          ignore-imports: ["app.models.* -> app.services.audit"]
    """

    name = "layers"
    category = ARCHITECTURE
    advice = (
        "Make imports point down the layers: move what a lower layer needs from a higher one "
        "down into it (or into a lower module), or have the higher layer pass it in, so that no "
        "lower layer imports a higher one."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["layers"],
        "properties": {
            "layers": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "anyOf": [
                        {"type": "string", "minLength": 1},
                        {
                            "type": "array",
                            "minItems": 1,
                            "items": {"type": "string", "pattern": r"^\(?[\w.]+\)?$"},
                        },
                    ]
                },
            },
            "containers": {"type": "array", "minItems": 1, "items": EXPRESSION},
            **COMMON_OPTIONS,
            "exhaustive": {"type": "boolean"},
            "exhaustive-ignores": {
                "type": "array",
                "items": {"type": "string", "pattern": _NAME_PATTERN},
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/api/routes.py": "from app.services import users\n",
                "app/services/users.py": "from ..repositories import user_repo\n",
                "app/repositories/user_repo.py": "from app.models import user\n",
                "app/models/user.py": "import dataclasses\n",
            },
            {"containers": ["app"], "layers": ["api", "services", "repositories", "models"]},
        ),
        Sample(  # independent siblings that do not import each other
            {
                "shop/api.py": "from shop import orders, users\n",
                "shop/orders.py": "from shop import db\n",
                "shop/users.py": "from shop import db\n",
                "shop/db.py": "",
            },
            {"layers": ["shop.api", "shop.orders | shop.users", "shop.db"]},
        ),
        Sample(  # an ignored import, and one only for type checkers, excluded
            {
                "app/api/routes.py": "from app.services import users\n",
                "app/services/users.py": (
                    "from typing import TYPE_CHECKING\n"
                    "from app.api import schemas\n"
                    "if TYPE_CHECKING:\n"
                    "    from app.api.routes import Router\n"
                ),
                "app/api/schemas.py": "",
            },
            {
                "containers": ["app"],
                "layers": ["api", "services"],
                "ignore-imports": ["app.services.* -> app.api.schemas"],
                "exclude-type-checking-imports": True,
            },
        ),
    )
    violated_by = (
        Sample(  # through a module that is no layer: the chain is the evidence
            {
                "app/api/routes.py": "from app.services import users\n",
                "app/services/users.py": "",
                "app/repositories/user_repo.py": "from app.utils import helpers\n",
                "app/utils/helpers.py": "import os\n\nfrom app.api import routes\n",
            },
            {"containers": ["app"], "layers": ["api", "services", "repositories"]},
            message=(
                "app.repositories is not allowed to import app.api (a higher layer): "
                "app.repositories.user_repo -> app.utils.helpers (l.1) -> app.api.routes (l.3)"
            ),
        ),
        Sample(  # a relative import up the layers
            {
                "app/services/users.py": "def find():\n    from ..api.routes import router\n",
                "app/api/routes.py": "router = None\n",
            },
            {"containers": ["app"], "layers": ["api", "services"]},
            message="app.services.users -> app.api.routes (l.2)",
        ),
        Sample(  # independent siblings
            {
                "shop/orders.py": "from shop.users import User\n",
                "shop/users.py": "class User: ...\n",
            },
            {"layers": [["shop.orders", "shop.users"]]},
            message="shop.orders is not allowed to import shop.users (independent siblings)",
        ),
        Sample(  # a type-checking import counts unless excluded
            {
                "app/api/routes.py": "",
                "app/services/users.py": (
                    "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n"
                    "    from app.api.routes import Router\n"
                ),
            },
            {"containers": ["app"], "layers": ["api", "services"]},
        ),
        Sample(
            {"app/api/routes.py": "X = 1\n", "app/models/user.py": ""},
            {"containers": ["app"], "layers": ["api", "services", "models"]},
            message="layer `app.services` does not exist",
        ),
        Sample(
            {"app/api/routes.py": "X = 1\n", "app/models/user.py": "", "app/cli.py": ""},
            {"containers": ["app"], "layers": ["api", "models"], "exhaustive": True},
            message="`app.cli` is not a layer",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.layers = [parse_layer(raw) for raw in options["layers"]]
        listed = [name for layer in self.layers for name, _ in layer.names]
        twice = sorted({name for name in listed if listed.count(name) > 1})
        if twice:
            raise ValueError(f"a module can be in one layer only: {', '.join(twice)}")
        if options.get("exhaustive") and not options.get("containers"):
            raise ValueError("`exhaustive` needs `containers`")
        for container in options.get("containers", []):
            expression_pattern(str(container))
        check_expressions(options)

    def advise(self) -> str:
        order = " > ".join(
            " | ".join(layer) if isinstance(layer, list) else str(layer)
            for layer in self.options["layers"]
        )
        return (
            f"Make imports point down the layers, top first: {order}. Move what a lower layer "
            "needs from a higher one down into it (or into a lower module), or have the higher "
            "layer pass it in."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        return self.decide(contract_graph(ctx, self.options))

    def decide(self, graph: ImportGraph) -> list[Finding]:
        """The findings on `graph` (already prepared: see `contract_graph`)."""
        findings: list[Finding] = []
        containers: list[str | None] = [None]
        if "containers" in self.options:
            found, missing = resolve_modules(
                graph, self.options["containers"], "container", self.name
            )
            findings += missing
            containers = list(sorted(found))
        for container in containers:
            findings += self._container(graph, container)
        return findings

    def _container(self, graph: ImportGraph, container: str | None) -> list[Finding]:
        """The findings for the layers inside `container` (None: absolute layers)."""
        findings: list[Finding] = []
        levels: list[Level] = []
        where: dict[str, int] = {}
        for index, layer in enumerate(self.layers):
            modules: set[str] = set()
            for name, optional in layer.names:
                module = f"{container}.{name}" if container else name
                if module in graph.modules:
                    modules.add(module)
                    where[module] = index
                elif not optional:
                    findings.append(Finding(f"layer `{module}` does not exist", self.name))
            levels.append(Level(frozenset(modules), layer.independent))
        reason = {
            (importer, imported): "independent siblings"
            if where[importer] == where[imported]
            else "a higher layer"
            for importer in where
            for imported in where
        }
        findings += dependency_findings(
            graph, graph.illegal_dependencies(levels), self.name, reason
        )
        if container is not None and self.options.get("exhaustive"):
            declared = {name for layer in self.layers for name, _ in layer.names}
            declared |= set(self.options.get("exhaustive-ignores", []))
            for child in graph.children(container):
                if child.rpartition(".")[2] not in declared:
                    message = f"`{child}` is not a layer, and the layers are exhaustive"
                    findings.append(Finding(message, self.name, graph.files.get(child)))
        return findings

"""The `layers` check: a layered architecture, as import-linter's `layers` contract.
(What it shares with the other architecture checks is in `shared/contracts.py`.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.contracts import (
    ARCHITECTURE,
    COMMON_OPTIONS,
    EXPRESSION,
    check_expressions,
    contract_graph,
    dependency_findings,
    resolve_modules,
    unknown_module,
    unresolved_findings,
)
from pytest_codeif.code.import_graph import (
    ImportGraph,
    Level,
    expression_pattern,
)

#: A module name, dotted.
_NAME_PATTERN: Final = r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$"
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
    -> app.api.routes (l.7)`; under `--codeif-changed-since` it counts when any link is
    in the changed code. A listed layer or container that does not exist is a task
    error (an error outcome naming the option's line, with the closest real module),
    as in import-linter; write a layer in parentheses, `(cli)`, when it is optional.
    Optional layers that all go missing would pass vacuously: `min-layers: 3` asks
    that at least 3 of the listed layers exist (in each container), else a finding.
    An import naming the code's own packages that reaches no module of it (Python
    raises ImportError) is a finding too: the contract cannot follow it. One
    difference from import-linter: a folder without `__init__.py` inside a package is
    a namespace package that Python imports, and its modules count here; grimp leaves
    them out of its graph.

    JavaScript and TypeScript projects are judged through their module graph
    (`code/js_graph.py`): a module is named by its path (`src/routes/users.js` is
    `src.routes.users`, an `index` file is its folder's module, every folder is a
    module), imports resolved as Node and TypeScript resolve them (relative paths,
    `package.json` `exports`, tsconfig `paths` aliases), `import type` counted as an
    import under `if TYPE_CHECKING:` is. A scope holding both languages is judged in the
    one the contract's modules exist in.

    Options: `layers` (required, top first: a module name; several siblings in one
    layer as a list `[orders, users]` or `orders | users`, which must not import each
    other, or `orders : users`, which may; in YAML quote a line holding ` : `, which
    would otherwise read as a mapping; siblings may be optional each, `"(services) :
    (selectors)"`), `containers` (packages that each hold the
    layers, whose names are then relative: `containers: [app]` with `api` means
    `app.api`; `*` wildcards allowed), `ignore-imports` (import-linter's
    `importer -> imported`, each side a module or a `*`/`**` wildcard expression),
    `exclude-type-checking-imports` (default false), `exhaustive` (with containers:
    every child of a container must be a layer), `exhaustive-ignores`, and
    `min-layers` (at least this many of the layers must exist; a layer of siblings
    exists when one of them does).

    Example:

        - check: layers
          containers: [app]
          layers: [api, services, repositories, models]
          ignore-imports: ["app.models.* -> app.services.audit"]

        - check: layers                 # the layers an agent was asked to build
          containers: [app]
          layers: ["(api)", "(services)", "(repositories)", "(models)"]
          min-layers: 3

        - check: layers                 # quoted: `a : b` is a YAML mapping unquoted
          containers: ["styleguide_example.*"]
          layers: ["(apis)", "(services) : (selectors)", "(models)"]
    """

    name = "layers"
    category = ARCHITECTURE
    languages = frozenset({"python", "javascript", "typescript"})
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
            "min-layers": {"type": "integer", "minimum": 1},
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
        Sample(  # optional layers, too few of which exist
            {"app/api/routes.py": "X = 1\n", "app/models/user.py": ""},
            {
                "containers": ["app"],
                "layers": ["(api)", "(services)", "(repositories)", "(models)"],
                "min-layers": 3,
            },
            message="2 of the 4 layers exist in app (api, models), and at least 3 must",
        ),
        Sample(  # `from src.x import y` with no src/__init__.py: Python's namespace package
            {
                "src/api/routes.py": "X = 1\n",
                "src/services/users.py": "from src.api.routes import X\n",
            },
            {"layers": ["api", "services"]},
            message="services.users -> api.routes (l.1)",
        ),
        Sample(
            {"app/api/routes.py": "X = 1\n", "app/models/user.py": "", "app/cli.py": ""},
            {"containers": ["app"], "layers": ["api", "models"], "exhaustive": True},
            message="`app.cli` is not a layer",
        ),
        Sample(  # a Node project: modules named by path, an `index` file its folder's
            {
                "src/routes/users.js": 'import { list } from "../services/index.js";\n',
                "src/services/index.js": 'export { list } from "./users.js";\n',
                "src/services/users.js": 'import { db } from "../db/pool.js";\n',
                "src/db/pool.js": 'import { audit } from "../routes/users.js";\n',
            },
            {"containers": ["src"], "layers": ["routes", "services", "db"]},
            message="src.db.pool -> src.routes.users (l.1)",
            path="src/db/pool.js",
            line=1,
        ),
        Sample(  # TypeScript: a tsconfig `paths` alias (JSONC) and a `.js` name of a `.ts` file
            {
                "tsconfig.json": (
                    '{\n  // aliases\n  "compilerOptions": {"paths": {"@/*": ["./src/*"],},},\n}\n'
                ),
                "src/api/users.ts": 'import { find } from "@/services/users.js";\n',
                "src/services/users.ts": (
                    'import type { Ctx } from "koa";\nimport { router } from "@/api/users";\n'
                ),
            },
            {"containers": ["src"], "layers": ["api", "services"]},
            message="src.services.users -> src.api.users (l.2)",
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
        if options.get("min-layers", 0) > len(self.layers):
            raise ValueError(
                f"`min-layers` is {options['min-layers']}, but only {len(self.layers)} "
                "layers are listed"
            )
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

    def judges_import_graph(self) -> bool:
        return True

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        graph = contract_graph(ctx, self.options, self._names())
        return self.decide(graph) + unresolved_findings(ctx, graph, self.name)

    def _names(self) -> list[str]:
        """The module expressions the contract names (its containers, else its layers)."""
        if "containers" in self.options:
            return [str(c) for c in self.options["containers"]]
        return [name for layer in self.layers for name, _ in layer.names]

    def decide(self, graph: ImportGraph) -> list[Finding]:
        """The findings on `graph` (already prepared: see `contract_graph`); a layer or
        container that does not exist raises the task error."""
        findings: list[Finding] = []
        containers: list[str | None] = [None]
        if "containers" in self.options:
            found = resolve_modules(graph, self.options["containers"], "containers", "container")
            containers = [c or None for c in sorted(found)]
        for container in containers:
            findings += self._container(graph, container)
        return findings

    def _key(self, index: int, position: int) -> tuple[str | int, ...]:
        """The key path of name `position` of layer `index` inside the constraint."""
        raw = self.options["layers"][index]
        return ("layers", index, position) if isinstance(raw, list) else ("layers", index)

    def _container(self, graph: ImportGraph, container: str | None) -> list[Finding]:
        """The findings for the layers inside `container` (None: absolute layers)."""
        findings: list[Finding] = []
        levels: list[Level] = []
        where: dict[str, int] = {}
        among = graph.children(container) if container else None
        for index, layer in enumerate(self.layers):
            modules: set[str] = set()
            for position, (name, optional) in enumerate(layer.names):
                module = graph.canonical(f"{container}.{name}" if container else name)
                if module in graph.modules:
                    modules.add(module)
                    where[module] = index
                elif not optional:
                    key = self._key(index, position)
                    raise unknown_module(graph, module, "layer", key, among)
            levels.append(Level(frozenset(modules), layer.independent))
        findings += self._too_few(graph, container, levels)
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

    def _too_few(
        self, graph: ImportGraph, container: str | None, levels: Sequence[Level]
    ) -> list[Finding]:
        """A finding when fewer layers exist than `min-layers` asks (at the container's
        `__init__.py`, if it has one)."""
        wanted = int(self.options.get("min-layers", 0))
        present = [i for i, level in enumerate(levels) if level.modules]
        if len(present) >= wanted:
            return []
        shown = ", ".join(" | ".join(n for n, _ in self.layers[i].names) for i in present)
        inside = f" in {container}" if container else ""
        message = (
            f"{len(present)} of the {len(levels)} layers exist{inside} ({shown or 'none'}), "
            f"and at least {wanted} must"
        )
        return [Finding(message, self.name, graph.files.get(container or ""))]

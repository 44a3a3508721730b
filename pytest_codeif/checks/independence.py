"""The `independence` check: modules that must not depend on each other, as
import-linter's `independence` contract."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable, listed
from pytest_codeif.checks.shared.contracts import (
    ARCHITECTURE,
    COMMON_OPTIONS,
    EXPRESSION,
    check_expressions,
    contract_graph,
    dependency_findings,
    resolve_modules,
    unresolved_findings,
)
from pytest_codeif.code.import_graph import ImportGraph, Level, expression_pattern


class IndependenceCheck(Check):
    """The listed modules import none of each other, directly or through others.

    Why: features kept apart (`orders` and `users`, one plugin and another) can be
    changed, tested and removed one at a time; one importing another, even through a
    shared helper, couples them. The semantics are import-linter's `independence`
    contract: each listed module counts with everything inside it; a chain through
    unlisted modules is illegal, and is the evidence (a finding at its first import,
    naming every link with its lines; under `--codeif-changed-since` it counts when
    any link is in the changed code); a chain through another listed module is that
    module's own dependency. Imports inside functions and under `if TYPE_CHECKING:`
    count (unless excluded). A listed name or wildcard that matches no module of the
    code, or a list that comes to one module, is a task error (an error outcome naming
    the option's line, with the closest real module), as in import-linter. An import
    naming the code's own packages that reaches no module of it is a finding.

    JavaScript and TypeScript projects are judged through their module graph
    (`code/js_graph.py`): a module is named by its path (`src/routes/users.js` is
    `src.routes.users`, an `index` file is its folder's module, every folder is a
    module), imports resolved as Node and TypeScript resolve them (relative paths,
    `package.json` `exports`, tsconfig `paths` aliases), `import type` counted as an
    import under `if TYPE_CHECKING:` is. A scope holding both languages is judged in the
    one the contract's modules exist in.

    Options: `independent` (required: module names or `*`/`**` expressions, such as
    `app.plugins.*`), `ignore-imports` (import-linter's `importer -> imported`),
    `exclude-type-checking-imports` (default false).

    Example:

        - check: independence
          independent: [app.orders, app.users, app.billing]
    """

    name = "independence"
    category = ARCHITECTURE
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Remove the import chain between the independent modules: move what they share into a "
        "module none of them contains, or have the caller pass it in."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["independent"],
        "properties": {
            "independent": {"type": "array", "minItems": 1, "items": EXPRESSION},
            **COMMON_OPTIONS,
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/orders/api.py": "from app.shared import money\n",
                "app/users/api.py": "from app.shared import money\n",
                "app/shared/money.py": "",
            },
            {"independent": ["app.orders", "app.users"]},
        ),
        Sample(  # a wildcard, and an import only type checkers see, excluded
            {
                "app/plugins/a.py": "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from app.plugins import b\n",
                "app/plugins/b.py": "",
            },
            {"independent": ["app.plugins.*"], "exclude-type-checking-imports": True},
        ),
    )
    violated_by = (
        Sample(
            {
                "app/orders/api.py": "from app.shared import helpers\n",
                "app/shared/helpers.py": "from ..users import models\n",
                "app/users/models.py": "",
            },
            {"independent": ["app.orders", "app.users"]},
            message=(
                "app.orders is not allowed to import app.users (independent modules): "
                "app.orders.api -> app.shared.helpers (l.1) -> app.users.models (l.1)"
            ),
        ),
        Sample(
            {"app/plugins/a.py": "def load():\n    import app.plugins.b\n", "app/plugins/b.py": ""},
            {"independent": ["app.plugins.*"]},
            message="app.plugins.a -> app.plugins.b (l.2)",
        ),
        Sample(  # a workspace package of a Node monorepo, imported by its name
            {
                "packages/orders/package.json": (
                    '{"name": "@shop/orders", "main": "src/index.ts"}\n'
                ),
                "packages/orders/src/index.ts": 'import { User } from "@shop/users";\n',
                "packages/users/package.json": (
                    '{"name": "@shop/users", "exports": "./src/index.ts"}\n'
                ),
                "packages/users/src/index.ts": "export class User {}\n",
            },
            {"independent": ["packages.orders", "packages.users"]},
            message="packages.orders.src -> packages.users.src (l.1)",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        for expression in options["independent"]:
            expression_pattern(str(expression))
        listed = options["independent"]
        if len(listed) == 1 and "*" not in str(listed[0]):
            raise ValueError("`independent` lists one module: list those it must not import")
        check_expressions(options)

    def judges_import_graph(self) -> bool:
        return True

    def advise(self) -> str:
        return (
            f"Keep {listed(self.options['independent'])} from importing each other, even "
            "through other modules: move what they share into a module none of them contains, "
            "or have the caller pass it in."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        graph = contract_graph(ctx, self.options, self.options["independent"])
        return self.decide(graph) + unresolved_findings(ctx, graph, self.name)

    def decide(self, graph: ImportGraph) -> list[Finding]:
        """The findings on `graph` (already prepared: see `contract_graph`); a name that
        matches no module, or one module in all, raises the task error."""
        modules = resolve_modules(graph, self.options["independent"], "independent", "module")
        if len(modules) < 2:
            raise Undecidable(
                "invalid-task",
                f"`independent` comes to one module of the code, `{min(modules)}`: "
                "nothing it could depend on",
                key_path=("independent",),
            )
        dependencies = graph.illegal_dependencies([Level(modules, independent=True)])
        reason = {(a, b): "independent modules" for a in modules for b in modules}
        return dependency_findings(graph, dependencies, self.name, reason)

"""The `acyclic` check: no import cycles between the children of a package, as
import-linter's `acyclic_siblings` contract."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.contracts import (
    ARCHITECTURE,
    COMMON_OPTIONS,
    EXPRESSION,
    check_expressions,
    contract_graph,
    resolve_modules,
    unresolved_findings,
)
from pytest_codeif.code.import_graph import ImportGraph, expression_pattern

#: import-linter's default depth: how many levels of subpackages are checked below
#: each ancestor.
DEFAULT_DEPTH: Final = 10
#: Module imports listed per dependency; the rest are counted.
_SHOWN: Final = 5


class AcyclicCheck(Check):
    """The children of a package do not import each other in a cycle, at any depth.

    Why: sibling packages that depend on each other both ways (`models` imports
    `services`, which imports `models`) cannot be understood, tested or split apart
    one at a time. The semantics are import-linter's `acyclic_siblings` contract: under
    each ancestor, each child counts with everything inside it (`app.models.user`
    importing `app.services.users` is `app.models -> app.services`), the check repeats
    inside each child down to `depth` levels, and each finding is one dependency whose
    removal (with the others reported for that package) leaves the children acyclic,
    chosen by the same ordering heuristic as grimp's; it names the dependency's imports
    with their lines and a cycle it closes. Under `--codeif-changed-since` a finding
    counts when any import of its cycle (those of the dependency and of the way back)
    is in the changed code, wherever the finding is placed. Imports inside functions
    and under `if TYPE_CHECKING:` count (unless excluded). An `ancestors` or
    `skip-descendants` name matching no module of the code is a task error (an error
    outcome naming the option's line, with the closest real module); an import naming
    the code's own packages that reaches no module of it is a finding.

    JavaScript and TypeScript projects are judged through their module graph
    (`code/js_graph.py`): a module is named by its path (`src/routes/users.js` is
    `src.routes.users`, an `index` file is its folder's module, every folder is a
    module), imports resolved as Node and TypeScript resolve them (relative paths,
    `package.json` `exports`, tsconfig `paths` aliases), `import type` counted as an
    import under `if TYPE_CHECKING:` is. A scope holding both languages is judged in the
    one the contract's modules exist in.

    Options: `ancestors` (packages whose children are checked, module names or `*`
    expressions; default: every top-level package of the project), `depth` (levels
    below each ancestor, default 10), `skip-descendants` (packages not descended
    into), `ignore-imports` (import-linter's `importer -> imported`),
    `exclude-type-checking-imports` (default false).

    Example:

        - check: acyclic
          ancestors: [app]
    """

    name = "acyclic"
    category = ARCHITECTURE
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Break the cycle at the dependency the finding names: move what both packages need into "
        "a lower module they can both import, or pass it in from the caller (a parameter or a "
        "callback), so that imports between sibling packages go one way only."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "ancestors": {"type": "array", "minItems": 1, "items": EXPRESSION},
            "depth": {"type": "integer", "minimum": 0},
            "skip-descendants": {"type": "array", "items": EXPRESSION},
            **COMMON_OPTIONS,
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/services/users.py": "from app.models import user\n",
                "app/models/user.py": "from app.utils import ids\n",
                "app/utils/ids.py": "",
            },
            {"ancestors": ["app"]},
        ),
        Sample(  # a cycle below the depth checked
            {
                "app/services/a/x.py": "from app.services.b import y\n",
                "app/services/b/y.py": "from app.services.a import x\n",
            },
            {"ancestors": ["app"], "depth": 0},
        ),
    )
    violated_by = (
        Sample(
            {
                "app/models/user.py": "from app.services.users import hash_password\n",
                "app/services/users.py": "from app.models import user\n",
            },
            {"ancestors": ["app"]},
            message="No cycles are allowed among the children of app",
        ),
        Sample(  # deeper down, found without naming the ancestors
            {
                "app/services/a/x.py": "from app.services.b import y\n",
                "app/services/b/y.py": "def f():\n    from ..a import x\n",
            },
            {},
            message="closes the cycle app.services.",
        ),
        Sample(  # CommonJS: a cycle between two folders of a Node project
            {
                "lib/middleware/auth.js": "const { sign } = require('../utils/jwt');\n",
                "lib/utils/jwt.js": (
                    "const jwt = require('jsonwebtoken');\n"
                    "const { HttpError } = require('../middleware');\n"
                ),
                "lib/middleware/index.js": "module.exports = { HttpError: class {} };\n",
            },
            {"ancestors": ["lib"]},
            message="lib.utils -> lib.middleware (1 import: lib.utils.jwt -> lib.middleware (l.2))",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        for expression in [*options.get("ancestors", []), *options.get("skip-descendants", [])]:
            expression_pattern(str(expression))
        check_expressions(options)

    def judges_import_graph(self) -> bool:
        return True

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        graph = contract_graph(ctx, self.options, self.options.get("ancestors", ()))
        return self.decide(graph) + unresolved_findings(ctx, graph, self.name)

    def decide(self, graph: ImportGraph) -> list[Finding]:
        """The findings on `graph` (already prepared: see `contract_graph`); a name that
        matches no module raises the task error."""
        findings: list[Finding] = []
        if "ancestors" in self.options:
            ancestors = resolve_modules(graph, self.options["ancestors"], "ancestors", "package")
        else:
            ancestors = frozenset(m for m in graph.modules if "." not in m)
        skipped = resolve_modules(
            graph, self.options.get("skip-descendants", []), "skip-descendants", "package"
        )
        depth = int(self.options.get("depth", DEFAULT_DEPTH))
        for ancestor in sorted(ancestors):
            findings += self._package(graph, ancestor, depth, skipped)
        return findings

    def _package(
        self, graph: ImportGraph, package: str, depth: int, skipped: frozenset[str]
    ) -> list[Finding]:
        """The findings for the children of `package`, then (while `depth` lasts) inside
        each child not skipped."""
        findings: list[Finding] = []
        children = graph.children(package)
        if len(children) >= 2:
            breakers = graph.cycle_breakers(package)
            if breakers:
                between = graph.sibling_imports(package)
                for pair, links in breakers.items():
                    findings.append(self._finding(graph, package, pair, links, between))
        if depth:
            for child in children:
                if child not in skipped:
                    findings += self._package(graph, child, depth - 1, skipped)
        return findings

    def _finding(
        self,
        graph: ImportGraph,
        package: str,
        pair: tuple[str, str],
        links: list[tuple[str, str]],
        between: Mapping[tuple[str, str], list[tuple[str, str]]],
    ) -> Finding:
        downstream, upstream = pair
        shown = [graph.describe(link) for link in links[:_SHOWN]]
        if len(links) > _SHOWN:
            shown.append(f"and {len(links) - _SHOWN} more")
        plural = "import" if len(links) == 1 else "imports"
        back = _path(between, upstream, downstream)
        closes = (
            f"closes the cycle {' -> '.join([downstream, *back])}"
            if back
            else "is one of the dependencies whose removal leaves them acyclic"
        )
        message = (
            f"No cycles are allowed among the children of {package}: {downstream} -> "
            f"{upstream} ({len(links)} {plural}: {', '.join(shown)}) {closes}"
        )
        first = graph.imports_between(*links[0])[0]
        cycle = list(links)
        for step in pairwise(back):
            cycle += between.get(step, [])
        return Finding(message, self.name, first.relpath, first.line, links=graph.links(cycle))


def _path(between: Mapping[tuple[str, str], object], start: str, end: str) -> list[str]:
    """The shortest path of sibling dependencies from `start` to `end`, both included."""
    following: dict[str, list[str]] = {}
    for downstream, upstream in between:
        following.setdefault(downstream, []).append(upstream)
    previous: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == end:
            break
        for after in sorted(following.get(node, ())):
            if after not in previous:
                previous[after] = node
                queue.append(after)
    path: list[str] = []
    step: str | None = end if end in previous else None
    while step is not None:
        path.append(step)
        step = previous[step]
    return list(reversed(path))

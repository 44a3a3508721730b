"""The `imports` check: required modules are imported, forbidden ones are not."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable, listed
from pytest_codeif.checks.shared.contracts import (
    contract_graph,
    unknown_module,
    unresolved_findings,
)
from pytest_codeif.checks.shared.import_sites import (
    import_sites,
    imports_module,
)
from pytest_codeif.checks.shared.js_imports import (
    browser_global_reads,
    browser_globals,
    js_imports,
    js_imports_module,
    package_of,
)
from pytest_codeif.code.import_graph import ImportGraph
from pytest_codeif.code.languages import JS_FAMILY

_RULE = "imports"


@dataclass(frozen=True)
class _Site:
    """One import, in either language: the name imported, where, and how the language
    tells whether it imports a wanted module."""

    name: str
    relpath: str
    line: int
    matches: Callable[[str, str], bool]

    def imports(self, wanted: str) -> bool:
        return self.matches(self.name, wanted)


#: A Python module (`os.path`) or an npm package or Node module (`better-sqlite3`,
#: `@prisma/client`, `lodash/fp`, `node:fs`).
_NAMES = {
    "type": "array",
    "items": {
        "type": "string",
        "pattern": "^(node:)?(@[\\w.-]+|(@[\\w.-]+/)?[A-Za-z_][\\w.-]*(/[\\w.-]+)*)$",
    },
}


class ImportsCheck(Check):
    """Required modules are imported and forbidden modules are not.

    Why: instructions name libraries ("use numpy", "no third-party packages", "the route
    handler must not import the database driver"). Submodules count for their package
    (`from os import path` imports `os`); `__import__("x")` and
    `importlib.import_module("x")` with a literal name count as imports. Names compare
    case-insensitively. In a project, relative imports count as the absolute modules they
    reach (`from ..repositories import user_repo` in `app/api/routes.py` imports
    `app.repositories.user_repo`); in a single module they have no package to reach.

    With `indirect: true`, a forbidden module may not be reached through other modules
    of the project either, as in import-linter's `forbidden` contract (tested side by
    side with `lint-imports`): each finding is at the first import of one chain and
    names every link with its lines (`app.api.routes -> app.services.users (l.3) ->
    sqlalchemy (l.1)`); a forbidden module counts with everything inside it, and an
    external package by its top-level name. Imports are then read as import-linter
    reads them: import statements anywhere (inside functions and under
    `if TYPE_CHECKING:` too), not `__import__("x")`. The importers are the modules in
    the constraint's scope (by default every module of the project), bar the forbidden
    ones themselves; the chains may pass through any module, and under
    `--codeif-changed-since` a chain counts when any of its links is in the changed
    code. A forbidden name inside the code's own packages (its top-level package is
    one of the code's) that matches no module is a task error, with the closest real
    module (`forbid: [requests]` when nothing imports requests is no error); an
    import naming the code's own packages that reaches no module of it is a finding.

    JavaScript and TypeScript: ES modules (`import ... from "m"`, `export ... from
    "m"`, `import type`), TypeScript's `import x = require("m")`, CommonJS
    `require("m")` and dynamic `import("m")` with a literal name
    (`checks/shared/js_imports.py`). Names are npm packages or Node modules as written
    in the code: a path inside a package counts for it (`lodash/fp` imports `lodash`),
    `node:fs` is `fs`, a scoped package is named whole (`@prisma/client`) and a bare
    scope (`@tsoa`) names every package in it; a relative path (`./db`) counts only when
    written the same. For `require` and `require-any`, a browser script that reads a
    library's global without binding it (`rxjs.operators`, `$(...)` for jquery, `_` for
    lodash, `new Vue(...)`) uses the library as a `<script>` tag loads it, and counts.
    With `indirect`, a JS/TS project is read through its module graph (`code/js_graph.py`:
    relative paths, `index` files, `package.json` `exports`, tsconfig `paths`), its
    modules named by path (`src/db/pool.js` is `src.db.pool`) and packages by name; a
    path inside a package (`lodash/fp`) is then a task error: forbid the package.

    Options: `require` and `forbid`, lists of module names; `require-any`, modules of
    which at least one is imported ("read the CSV file": `csv` or `pandas`); at least
    one of the three; `indirect` (default false: only direct imports of a forbidden
    module count).

    Example:

        - check: imports
          require: [functools]
          forbid: [numpy, pandas]

        - check: imports
          require-any: [csv, pandas]      # "read the CSV file"

        - check: imports
          forbid: [sqlalchemy]
          indirect: true
    """

    name = "imports"
    category = "Environment"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Import the modules the task requires, and remove the imports of forbidden ones, doing "
        "that work with an allowed module instead."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [
            {"required": ["require"]},
            {"required": ["require-any"]},
            {"required": ["forbid"]},
        ],
        "properties": {
            "require": _NAMES,
            "require-any": {**_NAMES, "minItems": 1},
            "forbid": _NAMES,
            "indirect": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("from functools import lru_cache\n", {"require": ["functools"]}),
        Sample("import collections.abc\n", {"forbid": ["numpy"], "require": ["collections"]}),
        Sample("import pandas as pd\n", {"require-any": ["csv", "pandas"]}),
        Sample(  # a browser script reads the library's global; a scope names its packages
            """
            import { Route } from "@tsoa/runtime";
            const { timer } = rxjs;
            const ticks = rxjs.operators.take(3);
            $(".clock").text("0");
            """,
            {"require": ["rxjs", "@tsoa"], "require-any": ["jquery"]},
            language="javascript",
        ),
        Sample(
            """
            import { PrismaClient } from "@prisma/client";
            import * as path from "node:path";
            const router = require("express").Router();
            """,
            {"require": ["@prisma/client", "express", "path"], "forbid": ["pg", "mysql2"]},
            language="javascript",
        ),
        Sample(
            {
                "app/api/routes.py": "from . import helpers\nfrom ..services import users\n",
                "app/api/helpers.py": "X = 1\n",
                "app/services/users.py": "Y = 2\n",
            },
            {"forbid": ["app.repositories"], "require": ["app.services.users"]},
        ),
    )
    violated_by = (
        Sample(  # a name the module binds itself is no library's global
            """
            function poll(rxjs) {
              return rxjs.timer(0, 1000);
            }
            """,
            {"require": ["rxjs"]},
            message="module `rxjs` is never imported",
            language="javascript",
        ),
        Sample(
            {
                "app/api/routes.py": "from ..repositories import user_repo\n",
                "app/repositories/user_repo.py": "def get_user():\n    return 1\n",
            },
            {"forbid": ["app.repositories"]},
        ),
        Sample(
            {
                "app/api/routes.py": "from .. import repositories\n",
                "app/repositories/__init__.py": "",
            },
            {"forbid": ["app.repositories"]},
        ),
        Sample(
            {
                "app/api/routes.py": "from ..repositories.user_repo import get_user\n",
                "app/repositories/user_repo.py": "def get_user():\n    return 1\n",
            },
            {"forbid": ["app.repositories"]},
        ),
        Sample(  # a src/ layout: `src/shop/api/routes.py` is `shop.api.routes`
            {
                "src/shop/__init__.py": "",
                "src/shop/api/__init__.py": "",
                "src/shop/api/routes.py": "from ..db import connection\n",
                "src/shop/db.py": "connection = None\n",
            },
            {"forbid": ["shop.db"]},
        ),
        Sample("import os\n", {"require": ["functools"]}),
        Sample(
            "import os\n",
            {"require-any": ["csv", "pandas"]},
            message="none of `csv` or `pandas` is imported",
        ),
        Sample("import numpy as np\n", {"forbid": ["NumPy"]}),
        Sample("m = __import__('sqlite3')\n", {"forbid": ["sqlite3"]}),
        Sample(
            """
            import express from "express";
            const { Pool } = require("pg");
            const sqlite = await import("node:sqlite3");
            """,
            {"forbid": ["pg", "sqlite3"]},
            language="javascript",
            message="imports `pg`, but `pg` is forbidden",
            line=2,
        ),
        Sample(
            'import type { User } from "./types";\nexport * from "lodash/fp";\n',
            {"forbid": ["lodash"], "require": ["@prisma/client"]},
            language="typescript",
            message="imports `lodash/fp`, but `lodash` is forbidden",
            line=2,
        ),
        Sample(  # a chain to an external package
            {
                "app/api/routes.py": "from app.services import users\n",
                "app/services/users.py": "from ..repositories.db import session\n",
                "app/repositories/db.py": "import os\nfrom sqlalchemy.orm import Session\n",
            },
            {"forbid": ["sqlalchemy"], "indirect": True},
            message="app.repositories.db -> sqlalchemy (l.2)",
        ),
        Sample(  # the forbidden package counts with what is inside it
            {
                "app/api/routes.py": "def handler():\n    from app.repositories import db\n",
                "app/repositories/db.py": "",
            },
            {"forbid": ["app.repositories"], "indirect": True},
            message="`app.api.routes` reaches `app.repositories.db`, but `app.repositories` is",
        ),
        Sample(  # a Node project's graph: a module named by its path, a package by its name
            {
                "src/services/users.js": "import { fail } from '../utils/errors.js';\n",
                "src/utils/errors.js": "const x = 1;\nconst { Router } = require('express');\n",
            },
            {"forbid": ["express"], "indirect": True},
            message="src.utils.errors -> express (l.2)",
            path="src/utils/errors.js",
            line=2,
        ),
    )

    def advise(self) -> str:
        parts = []
        if self.options.get("require"):
            parts.append(f"Import {listed(self.options['require'])} and use it as the task asks.")
        if self.options.get("require-any"):
            one = listed(self.options["require-any"], conjunction="or")
            parts.append(f"Import {one} and use it as the task asks.")
        if self.options.get("forbid"):
            reach = (
                " and of the project modules through which they are reached"
                if self.options.get("indirect")
                else ""
            )
            forbidden = listed(self.options["forbid"], conjunction="or")
            parts.append(f"Remove every import of {forbidden}{reach}; do that work another way.")
        return " ".join(parts) or self.advice

    def judges_import_graph(self) -> bool:
        return bool(self.options.get("indirect", False)) and "forbid" in self.options

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        indirect = bool(self.options.get("indirect", False))
        if indirect and "forbid" in self.options:
            graph = contract_graph(ctx, {}, self.options["forbid"])
            importers = {m for m, relpath in graph.files.items() if ctx.in_scope(relpath)}
            yield from self.decide_indirect(graph, importers)
            yield from unresolved_findings(ctx, graph, _RULE)
        if "require" not in self.options and "require-any" not in self.options and indirect:
            return  # the graph decided everything: no need to parse with libcst
        sites = [
            _Site(site.module, site.source.relpath, site.line, imports_module)
            for module in ctx.modules()
            for site in import_sites(module)
        ]
        sites += [
            _Site(site.specifier, site.module.relpath, site.line, js_imports_module)
            for module in ctx.js_modules()
            for site in js_imports(module)
        ]
        # A library a browser script reads as a global counts as required (never as
        # forbidden: `$` or `_` alone is too weak a sign to fail code for).
        wanted_all = [*self.options.get("require", []), *self.options.get("require-any", [])]
        sites += [
            _Site(package, module.relpath, line, js_imports_module)
            for package in wanted_all
            for module in ctx.js_modules()
            for _, line in browser_global_reads(module, browser_globals(package))
        ]
        for wanted in self.options.get("require", []):
            if not any(s.imports(wanted) for s in sites):
                path = ctx.unit.files[0].relpath
                yield Finding(f"module `{wanted}` is never imported", _RULE, path, 1)
        choices = self.options.get("require-any", [])
        if choices and not any(s.imports(c) for s in sites for c in choices):
            message = (
                f"none of {listed(choices, conjunction='or')} is imported"
                if len(choices) > 1
                else f"module `{choices[0]}` is never imported"
            )
            yield Finding(message, _RULE, ctx.unit.files[0].relpath, 1)
        if indirect:
            return
        for banned in self.options.get("forbid", []):
            for site in sites:
                if site.imports(banned):
                    yield Finding(
                        f"imports `{site.name}`, but `{banned}` is forbidden",
                        _RULE,
                        site.relpath,
                        site.line,
                    )

    def decide_indirect(self, graph: ImportGraph, importers: Set[str]) -> list[Finding]:
        """A finding per chain from one of `importers` (the modules in scope) to a
        forbidden module, found as import-linter's `forbidden` contract finds them:
        shortest chains first, each import on one chain at most (so a direct import is
        reported as such, not as the tail of longer chains through it)."""
        findings: list[Finding] = []
        for index, banned in enumerate(self.options.get("forbid", [])):
            name = graph.canonical(banned)
            if graph.language in JS_FAMILY:  # the JS/TS graph (code/js_graph.py)
                name = name.removeprefix("node:")
                if package_of(name) not in (name, None) and "/" in name:
                    raise Undecidable(
                        "invalid-task",
                        f"`{banned}` is a path inside the package `{package_of(name)}`: "
                        "`indirect` follows packages, so forbid the package",
                        key_path=("forbid", index),
                    )
            targets = graph.with_descendants(n for n in graph.nodes if imports_module(n, name))
            if not targets:
                if graph.looks_internal(name):
                    raise unknown_module(graph, banned, "forbidden module", ("forbid", index))
                continue
            for chain in graph.find_chains(set(importers) - targets, targets):
                first = graph.imports_between(chain[0], chain[1])[0]
                message = (
                    f"`{chain[0]}` reaches `{chain[-1]}`, but `{banned}` is forbidden: "
                    f"{graph.describe(chain)}"
                )
                links = graph.links(pairwise(chain))
                findings.append(Finding(message, _RULE, first.relpath, first.line, links=links))
        return findings

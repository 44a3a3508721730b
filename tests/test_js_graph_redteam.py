"""The JS/TS module graph is the one Node runs (from the red team): hints Node never
reads (`types`, `source`, `module` conditions; a tsconfig `paths` alias of a package's
own name) cannot hide the module it loads, and hostile package.json maps are bounded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_js_graph import edges, graph_of


def test_a_types_condition_cannot_hide_what_node_loads(tmp_path: Path) -> None:
    package = {
        "name": "app",
        "type": "module",
        "imports": {
            "#svc": {"types": "./src/models/dummy.js", "default": "./src/services/s.js"},
            "#web": {"source": "./src/fake.js", "module": "./src/fake.js", "default": "express"},
        },
    }
    graph = graph_of(
        tmp_path,
        {
            "package.json": json.dumps(package),
            "src/models/m.js": 'import * as svc from "#svc";\nimport web from "#web";\n',
            "src/models/dummy.js": "export const x = 1;\n",
            "src/services/s.js": "export const y = 1;\n",
            "src/fake.js": "export default 1;\n",
        },
    )
    assert edges(graph) == {
        ("src.models.m", "src.services.s", 1),
        ("src.models.m", "express", 2),
    }


def test_a_paths_alias_of_a_package_name_keeps_the_package(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {'
            '"express": ["src/fake.js"], "@db": ["src/db.js"]}}}',
            "src/service.js": 'import web from "express";\nimport { db } from "@db";\n',
            "src/fake.js": "export default 1;\n",
            "src/db.js": "export const db = 1;\n",
        },
    )
    assert edges(graph) == {
        ("src.service", "src.fake", 1),
        ("src.service", "express", 1),  # what Node loads: `paths` is the compiler's
        ("src.service", "src.db", 2),  # `@db` is no npm name: the project's own alias
    }


def test_hostile_subpath_maps_are_bounded(tmp_path: Path) -> None:
    # Every `*` of a target is filled: 100,000 stars times a 5,000-character match
    # would be half a billion characters. The target is refused instead (unresolved).
    stars = {"#*": "./" + "*" * 100_000}
    many = {f"#k{i}*": "./b.js" for i in range(1_500)}
    many["#q*"] = "./src/q.js"  # past the bound of pattern keys looked through
    graph = graph_of(
        tmp_path,
        {
            "package.json": json.dumps({"name": "app", "imports": {**stars, **many}}),
            "src/a.js": 'import x from "#a' + "y" * 5_000 + '";\nimport q from "#qq";\n',
            "src/q.js": "export default 1;\n",
        },
    )
    assert edges(graph) == set()
    assert [u.line for u in graph.unresolved] == [1, 2]

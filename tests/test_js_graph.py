"""The JavaScript and TypeScript module graph (`code/js_graph.py`, `js_resolve.py`,
`js_project.py`, `jsonc.py`): module names, resolution of relative paths, `index` files,
`package.json` `exports` / `main` / `imports`, tsconfig `paths` / `baseUrl` through
`extends` (JSONC), what is unresolved and where; and, on the Node backends of
fixtures/node_projects with every variant, the same edges as Node's own resolvers and
the TypeScript compiler's give (tests/node_reading.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_codeif.checks.shared.js_imports import js_imports
from pytest_codeif.code import jsonc
from pytest_codeif.code.import_graph import ImportGraph
from pytest_codeif.code.js_graph import build_js_graph, js_module_name
from pytest_codeif.code.unit import CodeUnit, load_unit
from pytest_codeif.errors import Location
from pytest_codeif.spec import CodeSpec

from .conftest import FIXTURES
from .node_reading import NODE, node_edges, typescript_module

PROJECTS = FIXTURES / "node_projects"
BASES = ("express_esm", "fastify_cjs", "koa_ts")
VARIANTS = ("layer", "leak", "raw_sql", "naming", "cycle")


def project(root: Path, files: dict[str, str]) -> CodeUnit:
    """The unit of a project made of `files` under `root`."""
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    task = root / "t.codeif.yaml"
    return load_unit(CodeSpec("directory", ".", Location(task, 1, ()), None), task, "k")


def graph_of(root: Path, files: dict[str, str]) -> ImportGraph:
    return build_js_graph(project(root, files), js_imports)


def edges(graph: ImportGraph) -> set[tuple[str, str, int]]:
    return {(i.importer, i.imported, i.line) for i in graph.imports()}


# -- JSONC ------------------------------------------------------------------------------
def test_jsonc_reads_comments_and_trailing_commas_but_not_inside_strings() -> None:
    text = """\ufeff{
      // a line comment, "quoted"
      "url": "http://x/*y*/", /* block, with a comma, */ "list": [1, 2, ],
      "nested": {"a": "b\\\\",},
    }"""
    assert jsonc.loads(text) == {"url": "http://x/*y*/", "list": [1, 2], "nested": {"a": "b\\"}}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": 1,\n "b": }', "line 2"),
        ("{,}", "line 1"),
        ('{"a": "x', "line 1"),
        ("[1 /* x", "line 1"),
    ],
)
def test_jsonc_refuses_what_is_not_jsonc_with_its_line(text: str, where: str) -> None:
    with pytest.raises(jsonc.JsoncError, match=where):
        jsonc.loads(text)


def test_jsonc_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(jsonc.JsoncError, match="nested too deeply"):
        jsonc.loads("[" * 100_000 + "]" * 100_000)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(_JSON)
def test_jsonc_reads_json_with_a_comment_on_every_line_and_trailing_commas(value: object) -> None:
    lines = json.dumps(value, indent=1).splitlines()
    commented = [
        (
            line + ","
            if line.rstrip().endswith(("]", "}", '"'))
            and i + 1 < len(lines)
            and lines[i + 1].strip()[:1] in "]}"
            else line
        )
        + ' // note, with "quotes" and /* */'
        for i, line in enumerate(lines)
    ]
    assert jsonc.loads("\n".join(commented)) == value


# -- names ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("relpath", "name"),
    [
        ("src/routes/users.js", "src.routes.users"),
        ("src/routes/index.ts", "src.routes"),
        ("index.js", "index"),
        ("src/users/users.controller.ts", "src.users.users_controller"),
        ("src/user-routes.mjs", "src.user_routes"),
        ("lib/@internal/db.cts", "lib._internal.db"),
    ],
)
def test_modules_are_named_by_their_paths(relpath: str, name: str) -> None:
    assert js_module_name(relpath) == name


# -- resolution -------------------------------------------------------------------------
def test_relative_paths_suffixes_index_files_and_ts_behind_js_names(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "src/app.ts": (
                'import { a } from "./services/users.js";\n'  # users.ts behind the .js name
                'import db from "./db";\n'  # db/index.ts
                'import type { T } from "./types.mjs";\n'  # types.mts, type-only
                'import data from "./data.json";\n'  # not source: no edge
                'import "./missing";\n'
                'const up = require("../../outside");\n'
            ),
            "src/services/users.ts": "export const a = 1;\n",
            "src/db/index.ts": "export default {};\n",
            "src/types.mts": "export type T = number;\n",
            "src/data.json": "{}\n",
        },
    )
    assert edges(graph) == {
        ("src.app", "src.services.users", 1),
        ("src.app", "src.db", 2),
        ("src.app", "src.types", 3),
    }
    assert [i.type_checking for i in graph.imports()] == [False, False, True]
    assert {(u.name, u.line) for u in graph.unresolved} == {("./missing", 5), ("../../outside", 6)}
    assert graph.files["src.db"] == "src/db/index.ts"
    assert {"src", "src.services", "src.db"} <= graph.modules


def test_tsconfig_paths_through_an_extends_chain_read_as_jsonc(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "config/tsconfig.base.json": (
                "{\n  // paths are relative to this file's folder (no baseUrl here)\n"
                '  "compilerOptions": {"paths": {\n'
                '    "@/*": ["../src/*"], "@db": ["../src/db/index.ts"],},},\n}\n'
            ),
            "tsconfig.json": '{"extends": "./config/tsconfig.base", /* no .json */ }\n',
            "src/api/users.ts": (
                'import { db } from "@db";\n'
                'import { q } from "@/db/queries";\n'
                'import express from "express";\n'
                'import { nope } from "@/db/nope";\n'
            ),
            "src/db/index.ts": "export const db = 1;\n",
            "src/db/queries.ts": "export const q = 1;\n",
        },
    )
    assert edges(graph) == {
        ("src.api.users", "src.db", 1),
        ("src.api.users", "src.db.queries", 2),
        ("src.api.users", "express", 3),
    }
    assert [(u.name, u.line) for u in graph.unresolved] == [("@/db/nope", 4)]
    assert not graph.unparsed


def test_base_url_and_a_catch_all_alias_leave_packages_alone(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": "src", "paths": {"*": ["types/*"]}}}',
            "src/main.ts": 'import { x } from "utils/x";\nimport lodash from "lodash";\n',
            "src/utils/x.ts": "export const x = 1;\n",
        },
    )
    assert edges(graph) == {("src.main", "src.utils.x", 1), ("src.main", "lodash", 2)}
    assert not graph.unresolved


def test_workspace_packages_by_exports_main_and_subpath_patterns(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "package.json": '{"name": "shop", "private": true, "workspaces": ["packages/*"]}',
            "packages/db/package.json": json.dumps(
                {
                    "name": "@shop/db",
                    "exports": {
                        ".": {
                            "types": "./dist/index.d.ts",
                            "require": "./src/cjs.js",
                            "import": "./src/index.js",
                        },
                        "./tables/*": "./src/tables/*.js",
                    },
                }
            ),
            "packages/db/src/index.js": "export const db = 1;\n",
            "packages/db/src/cjs.js": "module.exports = {};\n",
            "packages/db/src/tables/users.js": "export const users = 1;\n",
            "packages/ui/package.json": '{"name": "@shop/ui", "main": "dist/index.js"}',
            "packages/ui/src/button.js": "export const b = 1;\n",
            "packages/util/package.json": '{"name": "util-lib", "main": "lib/main.js"}',
            "packages/util/lib/main.js": "module.exports = 1;\n",
            "apps/web/main.js": (
                'import { db } from "@shop/db";\n'
                'const cjs = require("@shop/db");\n'
                'import { users } from "@shop/db/tables/users";\n'
                'import { b } from "@shop/ui";\n'  # built entry, not in the project: its folder
                'const util = require("util-lib");\n'
            ),
        },
    )
    assert edges(graph) == {
        ("apps.web.main", "packages.db.src", 1),
        ("apps.web.main", "packages.db.src.cjs", 2),
        ("apps.web.main", "packages.db.src.tables.users", 3),
        ("apps.web.main", "packages.ui", 4),
        ("apps.web.main", "packages.util.lib.main", 5),
    }


def test_subpath_imports_of_the_nearest_package_json(tmp_path: Path) -> None:
    graph = graph_of(
        tmp_path,
        {
            "package.json": json.dumps(
                {"type": "module", "imports": {"#db/*": "./src/db/*.js", "#fs": "node:fs"}}
            ),
            "src/routes/users.js": (
                'import { pool } from "#db/pool";\n'
                'import fs from "#fs";\n'
                'import x from "#nothing";\n'
            ),
            "src/db/pool.js": "export const pool = 1;\n",
        },
    )
    assert edges(graph) == {("src.routes.users", "src.db.pool", 1), ("src.routes.users", "fs", 2)}
    assert [(u.name, u.line) for u in graph.unresolved] == [("#nothing", 3)]


def test_a_config_that_cannot_be_read_is_a_hole_a_broken_file_is_read_as_recovered(
    tmp_path: Path,
) -> None:
    graph = graph_of(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}',
            "src/a.ts": 'import { b } from "./b";\nimport express from "express";\n',
            "src/b.ts": 'import { c } from "./c";\nexport const b = (;\n',
            "src/c.ts": "export const c = 1;\n",
            "package.json": '{"imports": {"#a": "#b", "#b": "#a"}}',
            "src/d.js": 'import x from "#a";\n',
        },
    )
    assert set(graph.unparsed) == {"tsconfig.json"}
    assert "line 1" in graph.unparsed["tsconfig.json"]
    # A config is read when a bare specifier asks for it: then it is a hole.
    assert edges(graph) == {("src.a", "src.b", 1), ("src.a", "express", 2), ("src.b", "src.c", 1)}
    assert [(u.name, u.line) for u in graph.unresolved] == [("#a", 1)]


# -- the graph agrees with Node and TypeScript ------------------------------------------
def assembled(tmp_path: Path, base: str, variant: str | None) -> Path:
    root = tmp_path / f"{base}-{variant or 'base'}"
    shutil.copytree(PROJECTS / base, root)
    if variant is not None:
        shutil.copytree(PROJECTS / "variants" / base / variant, root, dirs_exist_ok=True)
    return root


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
@pytest.mark.parametrize("variant", [None, *VARIANTS])
@pytest.mark.parametrize("base", BASES)
def test_graph_edges_are_node_and_typescripts_own(
    tmp_path: Path, base: str, variant: str | None
) -> None:
    """Every import of the project's own files, with its line, is an edge to the module
    of the file Node (or TypeScript) loads, and there is no other; nothing is
    unresolved."""
    if base == "koa_ts" and typescript_module() is None:
        pytest.skip("TypeScript is not installed (npm install typescript; CODEIF_NODE_TOOLS)")
    root = assembled(tmp_path, base, variant)
    unit = load_unit(
        CodeSpec("directory", ".", Location(root / "t.yaml", 1, ()), None), root / "t.yaml", "k"
    )
    graph = build_js_graph(unit, js_imports)
    ours = {(i.relpath, i.line, i.imported) for i in graph.imports() if not i.external}
    theirs = node_edges(root, [f.relpath for f in unit.files])
    assert {(e.relpath, e.line, js_module_name(e.target)) for e in theirs if e.target} == ours
    assert not graph.unresolved and not graph.unparsed
    kinds = {(e.relpath, e.line): e.type_only for e in theirs if e.target}
    assert {
        (i.relpath, i.line): i.type_checking for i in graph.imports() if not i.external
    } == kinds


def test_a_config_with_too_many_aliases_is_a_hole_not_minutes_of_matching(
    tmp_path: Path,
) -> None:
    aliases = {f"@a{i}/*": [f"src/{i}/*"] for i in range(1_001)}
    graph = graph_of(
        tmp_path,
        {
            "tsconfig.json": json.dumps({"compilerOptions": {"paths": aliases}}),
            "src/a.ts": 'import x from "pkg";\n',
        },
    )
    assert "1,001 aliases; at most 1,000" in graph.unparsed["tsconfig.json"]

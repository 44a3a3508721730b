"""Team rules on Node backends written as an agent writes them (fixtures/node_projects):
`directory:` tasks with the check names a Python project's rules use (`layers`,
`acyclic`, `imports` with `forbid` and `indirect`, `framework`, `orm-only`, `raw-sql`,
`db-drivers`, `naming`, `routes`), judged by `pytest --codeif` as a user runs it. Each compliant
project satisfies every rule; each variant breaks what it was made to break, and the
exact findings (file, line, message) are asserted, nothing else.

The layer and cycle verdicts are compared with an independent reading too: imports found
by regular expressions and resolved by Node's and TypeScript's own resolvers, layers
read from folder names as a benchmark's verifier reads them (tests/node_reading.py).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from .conftest import FIXTURES
from .node_reading import NODE, layer_violations, node_edges, sibling_cycles, typescript_module

PROJECTS = FIXTURES / "node_projects"
VARIANTS: Final = ("layer", "leak", "raw_sql", "naming", "cycle")
#: Per base project: its top folder, layers (top first), web framework and ORM.
BASES: Final[dict[str, dict[str, Any]]] = {
    "express_esm": {
        "top": "src",
        "layers": ["routes", "services", "repositories", "models"],
        "framework": "express",
        "orm": "sequelize",
    },
    "fastify_cjs": {
        "top": "lib",
        "layers": ["routes", "services", "repositories", "models"],
        "framework": "fastify",
        "orm": "knex",
    },
    "koa_ts": {
        "top": "src",
        "layers": ["routes", "services", "repositories", "entities"],
        "framework": "koa",
        "orm": "typeorm",
    },
}


def constraints(top: str, layers: list[str], framework: str, orm: str) -> list[dict[str, Any]]:
    """The team's rules, as a Python project's would be written."""
    below_routes = [f"{top}/{layer}/**" for layer in layers[1:]]
    return [
        {"id": "layers", "check": "layers", "containers": [top], "layers": layers},
        {
            "id": "acyclic",
            "check": "acyclic",
            "ancestors": [top],
            "exclude-type-checking-imports": True,
        },
        {
            "id": "leak",
            "check": "imports",
            "forbid": [framework],
            "indirect": True,
            "files": below_routes,
        },
        {"id": "framework", "check": "framework", "framework": framework},
        {"id": "orm-only", "check": "orm-only", "orm": orm},
        {"id": "raw-sql", "check": "raw-sql"},
        {"id": "db-drivers", "check": "db-drivers"},
        {"id": "naming", "check": "naming", "function": "camelCase", "class": "PascalCase"},
        {"id": "routes", "check": "routes", "exclude-files": [f"{top}/routes/**"]},
    ]


def assemble(root: Path, base: str, variant: str | None) -> Path:
    """The project `base`, with the files of `variant` laid over it, under `root`."""
    folder = root / f"{base}-{variant or 'base'}"
    shutil.copytree(PROJECTS / base, folder)
    if variant is not None:
        shutil.copytree(PROJECTS / "variants" / base / variant, folder, dirs_exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Task id -> its constraints' outcomes, from one `pytest --codeif` run (a
    subprocess, as a user runs it) over every project and variant."""
    root = tmp_path_factory.mktemp("node")
    tasks = []
    for base, info in BASES.items():
        for variant in (None, *VARIANTS):
            folder = assemble(root, base, variant)
            tasks.append(
                {"id": folder.name, "directory": folder.name, "constraints": constraints(**info)}
            )
    (root / "node.codeif.yaml").write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    (root / "pytest.ini").write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"]
    command += ["--codeif-report=report.json", "node.codeif.yaml"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    report = json.loads((root / "report.json").read_text())
    return {task["id"]: task["constraints"] for task in report["tasks"]}


EXPECTED: Final[dict[str, set[tuple[str, str, int, str]]]] = {
    "express_esm-cycle": {
        (
            "acyclic",
            "src/utils/jwt.js",
            2,
            (
                "No cycles are allowed among the children of src: src.utils -> "
                "src.middleware (1 import: src.utils.jwt -> src.middleware.errors "
                "(l.2)) closes the cycle src.utils -> src.middleware -> src.utils"
            ),
        ),
    },
    "express_esm-layer": {
        (
            "acyclic",
            "src/models/user.js",
            3,
            (
                "No cycles are allowed among the children of src: src.models -> "
                "src.services (1 import: src.models.user -> src.services.userService "
                "(l.3)) closes the cycle src.models -> src.services -> "
                "src.repositories -> src.models"
            ),
        ),
        (
            "layers",
            "src/models/user.js",
            3,
            (
                "src.models is not allowed to import src.services (a higher layer): "
                "src.models.user -> src.services.userService (l.3)"
            ),
        ),
    },
    "express_esm-leak": {
        (
            "leak",
            "src/services/articleService.js",
            2,
            (
                "`src.services.articleService` reaches `express`, but `express` is "
                "forbidden: src.services.articleService -> src.middleware.errors (l.2) "
                "-> express (l.1)"
            ),
        ),
    },
    "express_esm-naming": {
        (
            "naming",
            "src/services/userService.js",
            5,
            "function `register_user` does not follow camelCase",
        ),
    },
    "express_esm-raw_sql": {
        (
            "orm-only",
            "src/repositories/articleRepository.js",
            11,
            (
                "raw SQL `SELECT ... FROM articles` passed to `sequelize.query`: use "
                "the ORM (`User.findAll({ where: ... })`)"
            ),
        ),
        (
            "raw-sql",
            "src/repositories/articleRepository.js",
            11,
            (
                "raw SQL `SELECT ... FROM articles` passed to `sequelize.query`: use "
                "the ORM (`User.findAll({ where: ... })`)"
            ),
        ),
    },
    "fastify_cjs-cycle": {
        (
            "acyclic",
            "lib/utils/tokens.js",
            4,
            (
                "No cycles are allowed among the children of lib: lib.utils -> "
                "lib.hooks (1 import: lib.utils.tokens -> lib.hooks.auth (l.4)) closes "
                "the cycle lib.utils -> lib.hooks -> lib.utils"
            ),
        ),
    },
    "fastify_cjs-layer": {
        (
            "acyclic",
            "lib/utils/audit.js",
            3,
            (
                "No cycles are allowed among the children of lib: lib.utils -> "
                "lib.services (1 import: lib.utils.audit -> lib.services.users (l.3)) "
                "closes the cycle lib.utils -> lib.services -> lib.utils"
            ),
        ),
        (
            "layers",
            "lib/repositories/users.js",
            4,
            (
                "lib.repositories is not allowed to import lib.services (a higher "
                "layer): lib.repositories.users -> lib.utils.audit (l.4) -> "
                "lib.services.users (l.3)"
            ),
        ),
    },
    "fastify_cjs-leak": {
        (
            "leak",
            "lib/services/articles.js",
            5,
            (
                "`lib.services.articles` reaches `fastify`, but `fastify` is "
                "forbidden: lib.services.articles -> fastify (l.5)"
            ),
        ),
    },
    "fastify_cjs-naming": {
        (
            "naming",
            "lib/utils/slug.js",
            3,
            "function `make_slug` does not follow camelCase",
        ),
    },
    "fastify_cjs-raw_sql": {
        (
            "orm-only",
            "lib/repositories/articles.js",
            8,
            (
                "raw SQL `SELECT ... FROM articles` passed to `knex.raw`: use the ORM "
                "(`knex('users').where(...)`)"
            ),
        ),
        (
            "raw-sql",
            "lib/repositories/articles.js",
            8,
            (
                "raw SQL `SELECT ... FROM articles` passed to `knex.raw`: use the ORM "
                "(`knex('users').where(...)`)"
            ),
        ),
    },
    "koa_ts-cycle": {
        (
            "acyclic",
            "src/utils/token.ts",
            2,
            (
                "No cycles are allowed among the children of src: src.utils -> "
                "src.middleware (1 import: src.utils.token -> src.middleware.auth "
                "(l.2)) closes the cycle src.utils -> src.middleware -> src.utils"
            ),
        ),
        (
            "leak",
            "src/services/UserService.ts",
            3,
            (
                "`src.services.UserService` reaches `koa`, but `koa` is forbidden: "
                "src.services.UserService -> src.utils.token (l.3) -> "
                "src.middleware.auth (l.2) -> koa (l.1)"
            ),
        ),
    },
    "koa_ts-layer": {
        (
            "acyclic",
            "src/services/ArticleService.ts",
            1,
            (
                "No cycles are allowed among the children of src: src.services -> "
                "src.repositories (2 imports: src.services.ArticleService -> "
                "src.repositories.ArticleRepository (l.1), src.services.UserService -> "
                "src.repositories.UserRepository (l.2)) closes the cycle src.services "
                "-> src.repositories -> src.entities -> src.services"
            ),
        ),
        (
            "layers",
            "src/entities/User.ts",
            2,
            (
                "src.entities is not allowed to import src.services (a higher layer): "
                "src.entities.User -> src.services.UserService (l.2)"
            ),
        ),
    },
    "koa_ts-leak": {
        (
            "leak",
            "src/services/ArticleService.ts",
            1,
            (
                "`src.services.ArticleService` reaches `koa`, but `koa` is forbidden: "
                "src.services.ArticleService -> koa (l.1)"
            ),
        ),
    },
    "koa_ts-naming": {
        (
            "naming",
            "src/repositories/UserRepository.ts",
            7,
            "method `find_by_email` does not follow camelCase",
        ),
    },
    "koa_ts-raw_sql": {
        (
            "orm-only",
            "src/repositories/ArticleRepository.ts",
            8,
            (
                "raw SQL `SELECT ... FROM articles` passed to `dataSource.query`: use "
                "the ORM (`repository.find({ where: ... })`)"
            ),
        ),
        (
            "raw-sql",
            "src/repositories/ArticleRepository.ts",
            8,
            (
                "raw SQL `SELECT ... FROM articles` passed to `dataSource.query`: use "
                "the ORM (`repository.find({ where: ... })`)"
            ),
        ),
    },
}


def test_every_project_breaks_exactly_what_it_was_made_to_break(
    judged: dict[str, list[dict[str, Any]]],
) -> None:
    assert len(judged) == len(BASES) * (1 + len(VARIANTS))
    for task, outcomes in judged.items():
        found = set()
        for outcome in outcomes:
            assert outcome["status"] in ("satisfied", "violated"), (task, outcome)
            for evidence in outcome["evidence"]:
                folder, _, relpath = evidence["path"].partition("/")
                assert folder == task
                found.add((outcome["constraint"], relpath, evidence["line"], evidence["message"]))
        assert found == EXPECTED.get(task, set()), task


def test_the_compliant_projects_satisfy_every_rule(
    judged: dict[str, list[dict[str, Any]]],
) -> None:
    for base in BASES:
        outcomes = judged[f"{base}-base"]
        assert len(outcomes) == 9
        assert {o["status"] for o in outcomes} == {"satisfied"}, base


def test_every_variant_is_caught_by_the_rule_it_breaks() -> None:
    wanted = {"layer": "layers", "leak": "leak", "raw_sql": "raw-sql", "naming": "naming"}
    wanted["cycle"] = "acyclic"
    for base in BASES:
        for variant, rule in wanted.items():
            assert any(f[0] == rule for f in EXPECTED[f"{base}-{variant}"]), (base, variant)


_LAYER_FINDING = re.compile(r"^(\w+)\.(\w+) is not allowed to import \w+\.(\w+) \(a higher layer\)")
_CYCLE_FINDING = re.compile(r"children of (\w+): \w+\.(\w+) -> \w+\.(\w+) ")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
@pytest.mark.parametrize("variant", [None, *VARIANTS])
@pytest.mark.parametrize("base", sorted(BASES))
def test_layer_and_cycle_verdicts_agree_with_an_independent_reading(
    tmp_path: Path,
    base: str,
    variant: str | None,
    judged: dict[str, list[dict[str, Any]]],
) -> None:
    """Node's (and TypeScript's) resolvers give the edges; folders give the layers; the
    violations of layers and the cycles between folders are those the checks report."""
    if base == "koa_ts" and typescript_module() is None:
        pytest.skip("TypeScript is not installed (npm install typescript; CODEIF_NODE_TOOLS)")
    info = BASES[base]
    folder = assemble(tmp_path, base, variant)
    files = [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.suffix in (".js", ".mjs", ".cjs", ".ts") and not p.name.endswith(".d.ts")
    ]
    edges = node_edges(folder, files)
    links = [(e.relpath, e.target) for e in edges if e.target is not None]
    runtime = [(e.relpath, e.target) for e in edges if e.target is not None and not e.type_only]
    outcomes = {o["constraint"]: o for o in judged[folder.name]}

    ours = set()
    for evidence in outcomes["layers"]["evidence"]:
        found = _LAYER_FINDING.match(evidence["message"])
        assert found, evidence
        ours.add((found.group(2), found.group(3)))
    assert ours == layer_violations(links, info["top"], info["layers"])

    cycles = sibling_cycles(runtime, info["top"])
    assert (outcomes["acyclic"]["status"] == "violated") is bool(cycles)
    for evidence in outcomes["acyclic"]["evidence"]:
        found = _CYCLE_FINDING.search(evidence["message"])
        assert found and found.group(1) == info["top"], evidence
        assert any({found.group(2), found.group(3)} <= group for group in cycles), evidence


def _run(root: Path, tasks: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Task id -> constraint id -> outcome, from one `pytest --codeif` run."""
    (root / "t.codeif.yaml").write_text(yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    (root / "pytest.ini").write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"]
    command += ["--codeif-report=report.json", "t.codeif.yaml"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    report = json.loads((root / "report.json").read_text())
    return {
        task["id"]: {o["constraint"]: o for o in task["constraints"]} for task in report["tasks"]
    }


def _write(root: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_what_the_graph_cannot_follow_is_reported_never_passed(tmp_path: Path) -> None:
    """An import of the project's own code that reaches nothing is a finding at its
    line; a tsconfig that does not parse is an error naming it; an ORM or a package
    path the language cannot have is a task error at its option."""
    _write(
        tmp_path,
        {
            "typo/src/routes/users.js": "import { list } from '../services/user.js';\n",
            "typo/src/services/users.js": "export const list = () => [];\n",
            "broken/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}\n',
            "broken/src/api/a.ts": 'import { b } from "@/services/b";\n',
            "broken/src/services/b.ts": "export const b = 1;\n",
            "py/app.py": "import os\n",
        },
    )
    layers = {"check": "layers", "containers": ["src"], "layers": ["routes", "services"]}
    found = _run(
        tmp_path,
        [
            {
                "id": "typo",
                "directory": "typo",
                "constraints": [
                    {**layers, "id": "layers"},
                    {
                        "id": "subpath",
                        "check": "imports",
                        "forbid": ["lodash/fp"],
                        "indirect": True,
                    },
                ],
            },
            {
                "id": "broken",
                "directory": "broken",
                "constraints": [{**layers, "id": "layers", "layers": ["api", "services"]}],
            },
            {
                "id": "py",
                "directory": "py",
                "constraints": [{"id": "orm", "check": "orm-only", "orm": "sequelize"}],
            },
        ],
    )
    typo = found["typo"]["layers"]
    assert typo["status"] == "violated"
    [evidence] = typo["evidence"]
    assert (evidence["path"], evidence["line"]) == ("typo/src/routes/users.js", 1)
    assert (
        "`src.routes.users` imports `../services/user.js`, which is no module"
        in (evidence["message"])
    )
    assert "reaches no file of the project" in evidence["message"]
    subpath = found["typo"]["subpath"]
    assert subpath["error_kind"] == "invalid-task"
    assert "a path inside the package `lodash`" in subpath["error"]
    broken = found["broken"]["layers"]
    assert broken["error_kind"] == "syntax-error"
    assert "tsconfig.json" in broken["error"]
    orm = found["py"]["orm"]
    assert orm["error_kind"] == "invalid-task"
    assert "`sequelize` is an ORM of JavaScript or TypeScript" in orm["error"]


def test_a_scope_of_python_and_typescript_takes_the_graph_the_contract_names(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "proj/app/__init__.py": "",
            "proj/app/api.py": "from app import models\n",
            "proj/app/models.py": "from app import api\n",
            "proj/web/src/pages/home.ts": 'import { get } from "../client/http";\n',
            "proj/web/src/client/http.ts": 'import { home } from "../pages/home";\n',
        },
    )
    found = _run(
        tmp_path,
        [
            {
                "id": "mixed",
                "directory": "proj",
                "constraints": [
                    {"id": "python", "check": "acyclic", "ancestors": ["app"]},
                    {"id": "typescript", "check": "acyclic", "ancestors": ["web.src"]},
                    {
                        "id": "web-layers",
                        "check": "layers",
                        "containers": ["web.src"],
                        "layers": ["pages", "client"],
                    },
                ],
            }
        ],
    )["mixed"]
    assert found["python"]["status"] == "violated"
    assert "children of app" in found["python"]["evidence"][0]["message"]
    assert found["typescript"]["status"] == "violated"
    assert found["typescript"]["evidence"][0]["path"].startswith("proj/web/src/")
    assert any("JavaScript/TypeScript ones" in note for note in found["typescript"]["notes"])
    [evidence] = found["web-layers"]["evidence"]
    assert (evidence["path"], evidence["line"]) == ("proj/web/src/client/http.ts", 1)


def test_module_scopes_name_js_files_as_the_contracts_do(tmp_path: Path) -> None:
    """`exclude-modules: [src.repositories]` leaves the repositories' raw SQL out, as it
    does for Python; a module name no file has is a task error."""
    folder = assemble(tmp_path, "express_esm", "raw_sql")
    raw = {"check": "raw-sql"}
    found = _run(
        tmp_path,
        [
            {
                "id": "scoped",
                "directory": folder.name,
                "constraints": [
                    {**raw, "id": "outside", "exclude-modules": ["src.repositories"]},
                    {**raw, "id": "inside", "modules": ["src.repositories.articleRepository"]},
                    {**raw, "id": "typo", "modules": ["src.repository"]},
                ],
            }
        ],
    )["scoped"]
    assert found["outside"]["status"] == "satisfied"
    assert found["inside"]["status"] == "violated"
    assert found["typo"]["error_kind"] == "invalid-task"
    assert "no file of the code is in the constraint's scope" in found["typo"]["error"]

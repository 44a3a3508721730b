"""The architecture checks agree with import-linter: the same contracts, decided by
`lint-imports` and by `pytest --codeif` on the same project (fixtures/contracts), give the
same verdict and report the same imports.

Each contract variant is written twice: as an import-linter contract (run by
`lint-imports` in a subprocess, from a generated `.importlinter` in a copy of the
project, the project root on PYTHONPATH) and as a constraint of a task file
(`directory:` the copy). For a broken contract, the imports each tool names (importer,
imported, lines), every link of every chain, must be the same set; for
`acyclic_siblings`, the dependencies between siblings it would remove and how many
imports each is.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.checks.imports import ImportsCheck
from pytest_codeif.code.import_graph import build_import_graph
from pytest_codeif.code.unit import load_unit
from pytest_codeif.errors import Location
from pytest_codeif.spec import CodeSpec

from .conftest import FIXTURES

pytest.importorskip("importlinter")

PROJECT = FIXTURES / "contracts"
#: (importer, imported, lines): one link of a chain, as both tools print it.
Link = tuple[str, str, tuple[int, ...]]
_LINK = re.compile(r"([\w.]+) -> ([\w.]+) \((l\.[^)]*)\)")
_HEAD = re.compile(r"^(?:& )?([\w.]+) \((l\.[^)]*)\)$")
_SIBLINGS = re.compile(r"- \.(\w+) -> \.(\w+) \((\d+) imports?\)")


@dataclass(frozen=True)
class Variant:
    """One contract, in import-linter's words and in a constraint's."""

    id: str
    importlinter: str  # the contract's lines after `name` (type, options)
    constraint: dict[str, Any]
    broken: bool
    exclude_type_checking: bool = False
    notes: tuple[str, ...] = field(default=())


_LAYERS = """\
type = layers
containers =
    app
layers =
    api
    services
    repositories
    models
"""
_IGNORED = """\
ignore_imports =
    app.services.users -> app.api.deps
    app.utils.* -> app.api.schemas
    app.models.order -> app.services.pricing
"""
_IGNORED_LIST = [
    "app.services.users -> app.api.deps",
    "app.utils.* -> app.api.schemas",
    "app.models.order -> app.services.pricing",
]
_CORE_LAYERS = ["api", "services", "repositories", "models"]

VARIANTS = [
    Variant(
        "layers-broken",
        _LAYERS,
        {"check": "layers", "containers": ["app"], "layers": _CORE_LAYERS},
        broken=True,
    ),
    Variant(
        "layers-type-checking-excluded",
        _LAYERS,
        {
            "check": "layers",
            "containers": ["app"],
            "layers": _CORE_LAYERS,
            "exclude-type-checking-imports": True,
        },
        broken=True,
        exclude_type_checking=True,
    ),
    Variant(
        "layers-kept-with-ignores",
        _LAYERS + _IGNORED,
        {
            "check": "layers",
            "containers": ["app"],
            "layers": _CORE_LAYERS,
            "ignore-imports": _IGNORED_LIST,
            "exclude-type-checking-imports": True,
        },
        broken=False,
        exclude_type_checking=True,
    ),
    Variant(
        "layers-independent-siblings",
        """\
type = layers
layers =
    app.api
    app.services.users | app.services.orders | app.services.pricing
    app.repositories
    app.models
""",
        {
            "check": "layers",
            "layers": [
                "app.api",
                ["app.services.users", "app.services.orders", "app.services.pricing"],
                "app.repositories",
                "app.models",
            ],
        },
        broken=True,
    ),
    Variant(
        "layers-siblings-not-independent",
        """\
type = layers
layers =
    app.api
    app.services.users : app.services.orders : app.services.pricing
    app.repositories
    app.models
"""
        + _IGNORED,
        {
            "check": "layers",
            "layers": [
                "app.api",
                "app.services.users : app.services.orders : app.services.pricing",
                "app.repositories",
                "app.models",
            ],
            "ignore-imports": _IGNORED_LIST,
            "exclude-type-checking-imports": True,
        },
        broken=False,
        exclude_type_checking=True,
    ),
    Variant(
        "forbidden-external",
        "type = forbidden\nsource_modules =\n    app\nforbidden_modules =\n    sqlalchemy\n",
        {"check": "imports", "forbid": ["sqlalchemy"], "indirect": True},
        broken=True,
    ),
    Variant(
        "forbidden-external-kept",
        "type = forbidden\nsource_modules =\n    app\nforbidden_modules =\n    requests\n",
        {"check": "imports", "forbid": ["requests"], "indirect": True},
        broken=False,
    ),
    Variant(
        "independence-broken",
        "type = independence\nmodules =\n    app.repositories\n    app.api\n",
        {"check": "independence", "independent": ["app.repositories", "app.api"]},
        broken=True,
    ),
    Variant(
        "independence-siblings",
        "type = independence\nmodules =\n    app.services.*\n",
        {"check": "independence", "independent": ["app.services.*"]},
        broken=True,
    ),
    Variant(
        "independence-kept",
        "type = independence\nmodules =\n    app.services.pricing\n    app.utils\n",
        {"check": "independence", "independent": ["app.services.pricing", "app.utils"]},
        broken=False,
    ),
    Variant(
        "acyclic-broken",
        "type = acyclic_siblings\nancestors =\n    app\n",
        {"check": "acyclic", "ancestors": ["app"]},
        broken=True,
    ),
    Variant(
        "acyclic-kept",
        "type = acyclic_siblings\nancestors =\n    app.services\n    app.models\n",
        {"check": "acyclic", "ancestors": ["app.services", "app.models"]},
        broken=False,
    ),
    Variant(
        "acyclic-type-checking-excluded",
        "type = acyclic_siblings\nancestors =\n    app\n",
        {"check": "acyclic", "ancestors": ["app"], "exclude-type-checking-imports": True},
        broken=True,
        exclude_type_checking=True,
    ),
]


# -- lint-imports ------------------------------------------------------------------------
def lint_imports(project: Path, variants: list[Variant], *, exclude: bool) -> str:
    """lint-imports' output for `variants` (one graph: one type-checking setting)."""
    config = [
        "[importlinter]",
        "root_package = app",
        "include_external_packages = True",
        f"exclude_type_checking_imports = {exclude}",
        "",
    ]
    for variant in variants:
        config += [f"[importlinter:contract:{variant.id}]", f"name = {variant.id}"]
        config += [variant.importlinter, ""]
    path = project / f".importlinter-{exclude}"
    path.write_text("\n".join(config))
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert command is not None, "import-linter is installed but lint-imports is not found"
    # Wide lines: lint-imports wraps its report at the terminal's width otherwise.
    env = {**os.environ, "PYTHONPATH": str(project), "COLUMNS": "10000"}
    run = subprocess.run(
        [command, "--config", str(path), "--no-cache"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr
    return run.stdout


def lint_verdicts(output: str) -> dict[str, bool]:
    """Contract name -> broken, from lint-imports' summary lines."""
    return {
        name: state == "BROKEN"
        for name, state in re.findall(r"^(\S+) (KEPT|BROKEN)\b", output, re.M)
    }


def lint_sections(output: str) -> dict[str, str]:
    """Contract name -> its part of lint-imports' report of broken contracts."""
    _, _, broken = output.partition("Broken contracts\n----------------\n")
    heads = list(re.finditer(r"^(\S+)\n-+\n", broken, re.M))
    return {
        head.group(1): broken[head.end() : following.start() if following else len(broken)]
        for head, following in zip(heads, [*heads[1:], None], strict=True)
    }


def _lines(text: str) -> tuple[int, ...]:
    return tuple(int(part.strip()[2:]) for part in text.split(","))


def lint_links(section: str) -> set[Link]:
    """Every import lint-imports names in a contract's section: chain links, and the
    extra heads (`& importer (l.n)`) and tails (`& imported (l.n)`) of its routes."""
    links: set[Link] = set()
    for block in re.split(r"\n\s*\n", section):
        heads: list[tuple[str, tuple[int, ...]]] = []
        last: tuple[str, str] | None = None
        for raw in block.splitlines():
            line = raw.strip().removeprefix("-").strip()
            found = _LINK.search(line)
            if found:
                importer, imported, lines = found.groups()
                links.add((importer, imported, _lines(lines)))
                links.update((head, imported, head_lines) for head, head_lines in heads)
                heads, last = [], (importer, imported)
                continue
            other = _HEAD.match(line)
            if other is None:
                continue
            name, lines = other.groups()
            if last is None:
                heads.append((name, _lines(lines)))  # a head: its import comes below
            else:
                links.add((last[0], name, _lines(lines)))  # a tail of the last link
    return links


def lint_siblings(section: str) -> set[tuple[str, str, int]]:
    """(downstream, upstream, imports) of each dependency acyclic_siblings reports,
    absolute."""
    found: set[tuple[str, str, int]] = set()
    package = ""
    for line in section.splitlines():
        named = re.match(r"No cycles are allowed in ([\w.]+)\.", line)
        if named:
            package = named.group(1)
        sibling = _SIBLINGS.match(line.strip())
        if sibling:
            down, up, count = sibling.groups()
            found.add((f"{package}.{down}", f"{package}.{up}", int(count)))
    return found


# -- pytest --codeif -----------------------------------------------------------------------
def codeif_outcomes(root: Path, project: Path) -> dict[str, dict[str, Any]]:
    """Constraint id -> its outcome in the JSON report of one `pytest --codeif` run
    (a subprocess, as a user runs it; once for every variant)."""
    constraints = [{**v.constraint, "id": v.id} for v in VARIANTS]
    task = {"tasks": [{"id": "contracts", "directory": project.name, "constraints": constraints}]}
    (root / "contracts.codeif.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    (root / "pytest.ini").write_text("[pytest]\n")
    command = [sys.executable, "-m", "pytest", "--codeif", "-p", "no:cacheprovider"]
    command += ["--codeif-report=report.json", "contracts.codeif.yaml"]
    run = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    report = json.loads((root / "report.json").read_text())
    [found] = report["tasks"]
    return {outcome["constraint"]: outcome for outcome in found["constraints"]}


def codeif_links(message: str) -> set[Link]:
    """Every import a finding's message names: `a -> b (l.3) -> c (l.7)` chains, each
    link with the lines of the importer that import the next module."""
    links: set[Link] = set()
    for chain in re.split(r"[:;,] (?:also )?(?=[\w.]+ -> )", message)[1:]:
        parts = chain.split(" -> ")
        previous = parts[0].strip()
        for part in parts[1:]:
            found = re.match(r"([\w.]+) \((l\.[^)]*)\)", part)
            assert found, f"unreadable link {part!r} in {message!r}"
            links.add((previous, found.group(1), _lines(found.group(2))))
            previous = found.group(1)
    return links


def codeif_siblings(message: str) -> tuple[str, str, int]:
    found = re.search(r": ([\w.]+) -> ([\w.]+) \((\d+) imports?", message)
    assert found, message
    return found.group(1), found.group(2), int(found.group(3))


# -- the comparison ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lint_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bool, str]]:
    """Variant id -> (broken, its section of the report), from two lint-imports runs."""
    project = tmp_path_factory.mktemp("lint") / "proj"
    shutil.copytree(PROJECT / "app", project / "app")
    results: dict[str, tuple[bool, str]] = {}
    for exclude in (False, True):
        variants = [v for v in VARIANTS if v.exclude_type_checking is exclude]
        output = lint_imports(project, variants, exclude=exclude)
        verdicts, sections = lint_verdicts(output), lint_sections(output)
        for variant in variants:
            assert variant.id in verdicts, output
            results[variant.id] = (verdicts[variant.id], sections.get(variant.id, ""))
    return results


@pytest.fixture(scope="module")
def codeif_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("codeif")
    project = root / "proj"
    shutil.copytree(PROJECT / "app", project / "app")
    return codeif_outcomes(root, project)


def test_every_variant_agrees_with_lint_imports(
    lint_results: dict[str, tuple[bool, str]], codeif_results: dict[str, dict[str, Any]]
) -> None:
    for variant in VARIANTS:
        broken, section = lint_results[variant.id]
        outcome = codeif_results[variant.id]
        assert broken is variant.broken, f"{variant.id}: lint-imports says {broken}"
        assert outcome["status"] == ("violated" if broken else "satisfied"), (variant.id, outcome)
        if not broken:
            continue
        messages = [e["message"] for e in outcome["evidence"]]
        if variant.constraint["check"] == "acyclic":
            ours = {codeif_siblings(m) for m in messages}
            assert ours == lint_siblings(section), variant.id
            continue
        ours_links = set().union(*(codeif_links(m) for m in messages))
        assert ours_links == lint_links(section), variant.id


def test_each_finding_is_at_the_first_import_of_its_chain(
    codeif_results: dict[str, dict[str, Any]],
) -> None:
    """Evidence points at the importer's file and the line of the chain's first link."""
    checked = 0
    for variant in VARIANTS:
        if variant.constraint["check"] == "acyclic":
            continue
        for evidence in codeif_results[variant.id]["evidence"]:
            chain = evidence["message"].partition(": ")[2]
            first = re.match(r"([\w.]+) -> [\w.]+ \(l\.(\d+)", chain)
            assert first, evidence
            module, line = first.groups()
            expected = "proj/" + module.replace(".", "/") + ".py"
            assert evidence["path"] == expected and evidence["line"] == int(line), evidence
            checked += 1
    assert checked >= 10


def test_the_fixture_covers_what_it_claims(lint_results: dict[str, tuple[bool, str]]) -> None:
    """The broken variants show a chain through an unlisted module, an import inside a
    function, a type-checking import that only the unexcluded variant reports."""
    layers = lint_links(lint_results["layers-broken"][1])
    assert ("app.repositories.user_repo", "app.utils.formatting", (6,)) in layers
    assert ("app.services.users", "app.api.deps", (17,)) in layers  # inside audit()
    assert ("app.services.orders", "app.api.routes", (10,)) in layers  # TYPE_CHECKING
    excluded = lint_links(lint_results["layers-type-checking-excluded"][1])
    assert ("app.services.orders", "app.api.routes", (10,)) not in excluded


def test_forbidden_between_project_modules_agrees_when_importers_are_narrowed(
    tmp_path: Path,
) -> None:
    """`imports` with `indirect` reaches a forbidden project module through chains as
    import-linter's `forbidden` contract does, for the importers the engine's scope
    will give (here: the API package). (Of two equally short chains that share their
    imports, each tool may name either: grimp's choice follows its hash order; none is
    tied here.)"""
    project = tmp_path / "proj"
    shutil.copytree(PROJECT / "app", project / "app")
    variant = Variant(
        "forbidden-internal",
        "type = forbidden\nsource_modules =\n    app.api\n"
        "forbidden_modules =\n    app.repositories\n",
        {},
        broken=True,
    )
    output = lint_imports(project, [variant], exclude=False)
    assert lint_verdicts(output) == {"forbidden-internal": True}
    task = project / "t.codeif.yaml"
    unit = load_unit(CodeSpec("directory", ".", Location(task, 1, ()), None), task, "k")
    graph = build_import_graph(unit)
    importers = graph.with_descendants(["app.api"])
    check = ImportsCheck({"forbid": ["app.repositories"], "indirect": True})
    findings = check.decide_indirect(graph, importers)
    ours = set().union(*(codeif_links(f.message) for f in findings))
    assert ours == lint_links(lint_sections(output)["forbidden-internal"])
    assert any(len(codeif_links(f.message)) > 1 for f in findings)  # chains, not only direct

"""Architecture contracts on a ~1,000-module project: pytest-codeif against lint-imports.

Generates a layered application (`bench`: ten domains, each with the layers api,
services, repositories, models and utils, each layer a package of modules of about
100-300 lines with absolute and relative imports, stdlib and third-party imports,
`if TYPE_CHECKING:` blocks and imports inside functions; one planted chain from a
repository through a utility to the API layer), then decides the same contracts
three ways and prints wall times and ratios against lint-imports measured in the same
run (median of `--rounds` runs each):

- `lint-imports` (subprocess, grimp's cache off, as a cold CI run);
- `pytest --codeif` on a task file holding the same contracts (subprocess, verdict
  cache off);
- in-process: building pytest-codeif's import graph and deciding the contracts.

The contracts: layers (ten containers), independence (the domains' API packages),
acyclic siblings (the root package, all depths), forbidden (no module reaches
`requests`; the `imports` check with `indirect: true`).

`--gate` measures instead the repository gate as a whole against the tools alone: one
task file with five contracts (the four above and "no API module reaches sqlalchemy"),
ruff (E, F) and mypy on the project, run by `pytest --codeif`, against `lint-imports` on
the same five contracts, `ruff check` and `mypy` run one after the other, each cold (no
cache), one round by default (mypy takes most of a minute).

Subprocesses run with Python's bytecode cache on (PYTHONDONTWRITEBYTECODE removed), after
one warm-up run of each, as on a developer's machine or a CI runner with a cache.

`--parsers` measures instead what building the graph costs on the same project: the
import scan the checks use (the engine has checked the syntax), Python's `ast` parse of
every file (the graph built on its own; also with the garbage collector off, as the
engine decides code-only constraints), libcst through the engine's `ParsedModule` (a
parse every structural check shares, plus positions for lines), and grimp's
`build_graph` (import-linter's graph, Rust, its cache off).

Usage: python benchmarks/contracts_speed.py [--domains N] [--rounds N] [--parsers | --gate]
                                           [--keep DIR]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import libcst as cst

from pytest_codeif.checks.acyclic import AcyclicCheck
from pytest_codeif.checks.imports import ImportsCheck
from pytest_codeif.checks.independence import IndependenceCheck
from pytest_codeif.checks.layers import LayersCheck
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.import_graph import build_import_graph
from pytest_codeif.code.unit import CodeUnit, load_unit
from pytest_codeif.engine.syntax_check import syntax_errors
from pytest_codeif.errors import Location
from pytest_codeif.spec import CodeSpec

LAYERS = ("api", "services", "repositories", "models", "utils")
#: Third-party packages each layer imports (the project is never run, only read).
EXTERNALS = {
    "api": ("fastapi", "pydantic"),
    "services": ("pydantic",),
    "repositories": ("sqlalchemy",),
    "models": ("sqlalchemy", "pydantic"),
    "utils": (),
}
STDLIB = ("os", "sys", "json", "logging", "re", "datetime", "pathlib", "itertools")

IMPORTLINTER = """\
[importlinter]
root_package = bench
include_external_packages = True

[importlinter:contract:layers]
name = layers
type = layers
containers =
{containers}
layers =
    api
    services
    repositories
    models
    utils

[importlinter:contract:independence]
name = independence
type = independence
modules =
    bench.*.api

[importlinter:contract:acyclic]
name = acyclic
type = acyclic_siblings
ancestors =
    bench

[importlinter:contract:forbidden]
name = forbidden
type = forbidden
source_modules =
    bench
forbidden_modules =
    requests
"""

TASKS = """\
tasks:
  - id: bench
    directory: bench
    constraints:
      - check: layers
        containers: [{containers}]
        layers: [api, services, repositories, models, utils]
      - check: independence
        independent: ["bench.*.api"]
      - check: acyclic
        ancestors: [bench]
      - check: imports
        forbid: [requests]
        indirect: true
"""


def _function(rng: random.Random, name: str, calls: list[str]) -> str:
    """A function of 10-30 lines that calls some of `calls`."""
    lines = [f"def {name}(items: list[dict[str, object]], limit: int = 10) -> list[object]:"]
    lines.append(f'    """Select up to `limit` items for {name}, in order."""')
    lines.append("    found: list[object] = []")
    for step in range(rng.randint(3, 9)):
        lines.append(f"    for index, item in enumerate(items[: limit + {step}]):")
        lines.append(f"        if index % {step + 2} == 0 and item.get('k{step}') is not None:")
        lines.append(f"            found.append(item['k{step}'])")
    for call in rng.sample(calls, min(len(calls), 2)):
        lines.append(f"    found.extend({call}(items, limit)[:1])")
    lines.append("    return found[:limit]")
    return "\n".join(lines) + "\n"


def _class(rng: random.Random, name: str) -> str:
    """A class of 15-40 lines."""
    lines = [f"class {name}:", f'    """A {name} record and what it can do."""', ""]
    fields = [f"field_{i}" for i in range(rng.randint(2, 6))]
    args = ", ".join(f"{f}: int = 0" for f in fields)
    lines.append(f"    def __init__(self, {args}) -> None:")
    lines.extend(f"        self.{f} = {f}" for f in fields)
    for method in range(rng.randint(2, 5)):
        lines += [
            "",
            f"    def method_{method}(self, value: int) -> int:",
            f'        """Combine the fields with `value` ({method})."""',
            "        total = value",
        ]
        lines.extend(f"        total += self.{f} * {i + method}" for i, f in enumerate(fields))
        lines.append("        return total")
    return "\n".join(lines) + "\n"


def _module(rng: random.Random, domain: int, layer: str, index: int, per_layer: int) -> str:
    """One module of `bench.d<domain>.<layer>`: imports down the layers, then code."""
    below = LAYERS[LAYERS.index(layer) + 1 :]
    imports = ['"""Generated module."""', "", "from __future__ import annotations", ""]
    imports += [f"import {name}" for name in sorted(rng.sample(STDLIB, 3))]
    imports += [f"import {name}" for name in EXTERNALS[layer]]
    calls: list[str] = []
    for lower in rng.sample(below, min(len(below), 2)):
        target = rng.randrange(per_layer)
        if rng.random() < 0.5:
            imports.append(f"from ..{lower}.m{target} import f{target}_0 as {lower}_{target}")
        else:
            imports.append(
                f"from bench.d{domain}.{lower}.m{target} import f{target}_0 as {lower}_{target}"
            )
        calls.append(f"{lower}_{target}")
    if layer == "models" and domain > 0:  # domains build on the models of earlier ones
        other = rng.randrange(domain)
        imports.append(f"from bench.d{other}.models import m0 as shared_models")
    if index > 0:  # a sibling module, for types only
        imports += ["from typing import TYPE_CHECKING", "", "if TYPE_CHECKING:"]
        imports.append(f"    from .m{index - 1} import C{index - 1}_0")
    body = ["\n".join(imports), ""]
    for number in range(rng.randint(2, 5)):
        body.append(_class(rng, f"C{index}_{number}"))
    for number in range(rng.randint(3, 6)):
        body.append(_function(rng, f"f{index}_{number}", calls or ["sorted"]))
    if below:
        lazy = rng.choice(below)
        body.append(
            textwrap.dedent(f"""\
                def lazy_{index}() -> object:
                    from bench.d{domain}.{lazy} import m0

                    return m0
                """)
        )
    return "\n\n".join(body)


def generate(root: Path, domains: int = 10, per_layer: int = 19, seed: int = 0) -> Path:
    """Write the `bench` package under `root`; return the package directory."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    package = root / "bench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""The benchmark application."""\n')
    for domain in range(domains):
        folder = package / f"d{domain}"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        for layer in LAYERS:
            (folder / layer).mkdir()
            (folder / layer / "__init__.py").write_text("")
            for index in range(per_layer):
                text = _module(rng, domain, layer, index, per_layer)
                (folder / layer / f"m{index}.py").write_text(text)
    # The planted violation: a repository reaches the API layer through a utility.
    future = "from __future__ import annotations\n"
    for path, line in (
        (package / "d7" / "utils" / "m5.py", "from bench.d7.api.m2 import f2_0\n"),
        (package / "d7" / "repositories" / "m3.py", "from ..utils import m5\n"),
    ):
        path.write_text(path.read_text().replace(future, future + line, 1))
    return package


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _unit(package: Path) -> CodeUnit:
    task = package.parent / "bench.codeif.yaml"
    spec = CodeSpec("directory", package.name, Location(task, 1, ()), None)
    return load_unit(spec, task, "bench")


def _libcst_imports(unit: CodeUnit) -> int:
    """The imports of every file through libcst: parse, find, and their lines."""
    count = 0
    for source in unit.files:
        module = ParsedModule(source, unit.place(source.relpath))
        for node in module.nodes(cst.Import, cst.ImportFrom):
            module.line_of(node)
            module.scope_of(node)
            count += 1
    return count


def _grimp(root: Path) -> None:
    code = (
        "import grimp; grimp.build_graph('bench', include_external_packages=True, cache_dir=None)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True)


def _grimp_in_process(root: Path) -> float:
    import grimp  # noqa: PLC0415 - a test dependency, needed by --parsers only

    sys.path.insert(0, str(root))
    try:
        return _timed(
            lambda: grimp.build_graph("bench", include_external_packages=True, cache_dir=None)
        )
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "bench" or n.startswith("bench.")]:
            del sys.modules[name]


def _without_gc(action: Callable[[], object]) -> Callable[[], object]:
    """`action` run with the cyclic garbage collector off, as the engine decides the
    code-only constraints (a parse allocates millions of acyclic objects)."""

    def run() -> object:
        gc.disable()
        try:
            return action()
        finally:
            gc.enable()

    return run


def parsers(root: Path, rounds: int) -> None:
    package = root / "bench"
    unit = _unit(package)
    lines = sum(f.text.count("\n") for f in unit.files)
    size = sum(len(f.text) for f in unit.files) / 1e6
    print(f"{len(unit.files)} modules, {lines} lines, {size:.1f} MB; median of {rounds} rounds")
    scan = [_timed(lambda: build_import_graph(unit, syntax_checked=True)) for _ in range(rounds)]
    parse = [_timed(lambda: build_import_graph(unit)) for _ in range(rounds)]
    parse_gc_off = [_timed(_without_gc(lambda: build_import_graph(unit))) for _ in range(rounds)]
    libcst_once = _timed(_without_gc(lambda: _libcst_imports(unit)))  # one round: minutes
    grimp_times = [_grimp_in_process(root) for _ in range(rounds)]
    grimp_cold = [_timed(lambda: _grimp(root)) for _ in range(rounds)]
    base = statistics.median(scan)
    rows = [
        ("(a') graph from scanned imports (the checks')", base),
        ("(a) graph from ast.parse of every file", statistics.median(parse)),
        ("(a) the same, garbage collector off", statistics.median(parse_gc_off)),
        ("(b) libcst ParsedModule + lines, gc off, 1 run", libcst_once),
        ("(c) grimp.build_graph, in process", statistics.median(grimp_times)),
        ("(c) grimp.build_graph, fresh interpreter", statistics.median(grimp_cold)),
    ]
    for label, value in rows:
        print(f"  {label:48} {value:8.3f} s  {value / base:7.2f} x scan")


#: The constraint ids of TASKS and the contract names of IMPORTLINTER, in one order.
CONTRACTS = ("layers", "independence", "acyclic", "forbidden")


def _syntax_check(unit: CodeUnit) -> None:
    """What the engine does before any check runs: every file's syntax, ruff screening
    for Python's parser (`engine/syntax_check.py`)."""
    with tempfile.TemporaryDirectory() as tmp:
        syntax_errors(unit.files, lambda path: path.name, Path(tmp))


def _env() -> dict[str, str]:
    """The environment of the timed subprocesses: bytecode cached, as on a real machine."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def contracts(root: Path, rounds: int, domains: int) -> None:
    package = root / "bench"
    containers = contracts_files(root, domains)
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    verdicts: dict[str, dict[str, bool]] = {}

    def lint_imports() -> None:
        run = subprocess.run(
            [lint, "--no-cache"], cwd=root, capture_output=True, text=True, check=False, env=_env()
        )
        found = re.findall(r"^(\w+) (KEPT|BROKEN)", run.stdout, re.M)
        verdicts["lint-imports"] = {name: state == "BROKEN" for name, state in found}

    def codeif() -> None:
        cmd = [sys.executable, "-m", "pytest", "--codeif", "-q", "-p", "no:cacheprovider"]
        cmd += ["-p", "no:hypothesispytest", "--codeif-report=report.json", "bench.codeif.yaml"]
        subprocess.run(cmd, cwd=root, capture_output=True, check=False, env=_env())
        [task] = json.loads((root / "report.json").read_text())["tasks"]
        verdicts["pytest --codeif"] = {
            "forbidden" if o["constraint"] == "imports" else o["constraint"]: o["status"]
            == "violated"
            for o in task["constraints"]
        }

    layers = LayersCheck({"containers": containers, "layers": list(LAYERS)})
    independence = IndependenceCheck({"independent": ["bench.*.api"]})
    acyclic = AcyclicCheck({"ancestors": ["bench"]})
    forbidden = ImportsCheck({"forbid": ["requests"], "indirect": True})

    def decide(unit: CodeUnit) -> None:
        graph = build_import_graph(unit, syntax_checked=True)
        found = [
            layers.decide(graph),
            independence.decide(graph),
            acyclic.decide(graph),
            forbidden.decide_indirect(graph, graph.modules),
        ]
        verdicts["in process"] = {name: bool(f) for name, f in zip(CONTRACTS, found, strict=True)}

    unit = _unit(package)

    def with_syntax_check() -> None:
        _syntax_check(unit)
        decide(unit)

    lint_imports()  # warm the file system cache and bytecode
    codeif()
    lint_times = [_timed(lint_imports) for _ in range(rounds)]
    codeif_times = [_timed(codeif) for _ in range(rounds)]
    process_times = [_timed(lambda: decide(unit)) for _ in range(rounds)]
    syntax_times = [_timed(lambda: _syntax_check(unit)) for _ in range(rounds)]
    checked_times = [_timed(with_syntax_check) for _ in range(rounds)]
    base = statistics.median(lint_times)
    print(f"{len(unit.files)} modules, {len(CONTRACTS)} contracts; median of {rounds} runs each")
    rows = [
        ("lint-imports --no-cache (baseline)", base),
        ("pytest --codeif (subprocess)", statistics.median(codeif_times)),
        ("graph + contracts, in process", statistics.median(process_times)),
        ("  the engine's syntax check alone", statistics.median(syntax_times)),
        ("  syntax check + graph + contracts", statistics.median(checked_times)),
    ]
    for label, value in rows:
        print(f"  {label:38} {value:7.3f} s  {value / base:6.2f} x lint-imports")
    print("verdicts (broken?):")
    for tool, found in verdicts.items():
        print(f"  {tool:16} " + ", ".join(f"{name} {found.get(name)}" for name in CONTRACTS))


GATE_IMPORTLINTER = """
[importlinter:contract:api-no-orm]
name = api-no-orm
type = forbidden
source_modules =
{apis}
forbidden_modules =
    sqlalchemy
"""

GATE_TASKS = """\
      - check: imports
        id: api-no-orm
        forbid: [sqlalchemy]
        indirect: true
        modules: ["bench.*.api", "bench.*.api.**"]
      - check: ruff
        select: [E, F]
      - check: mypy
        flags: [--ignore-missing-imports]
"""


def gate(root: Path, rounds: int, domains: int) -> None:
    """The repository gate as a whole against lint-imports, ruff and mypy run alone."""
    contracts_files(root, domains)
    apis = "\n".join(f"    bench.d{d}.api" for d in range(domains))
    with (root / ".importlinter").open("a", encoding="utf-8") as ini:
        ini.write(GATE_IMPORTLINTER.format(apis=apis))
    with (root / "bench.codeif.yaml").open("a", encoding="utf-8") as tasks:
        tasks.write(GATE_TASKS)
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select=E,F"]
    mypy = [sys.executable, "-m", "mypy", f"--cache-dir={os.devnull}"]
    mypy += ["--ignore-missing-imports", "--explicit-package-bases", "bench"]
    codeif = [sys.executable, "-m", "pytest", "--codeif", "-q", "-p", "no:cacheprovider"]
    codeif += ["-p", "no:hypothesispytest", "--codeif-report=report.json", "bench.codeif.yaml"]

    def run(cmd: list[str]) -> float:
        return _timed(
            lambda: subprocess.run(cmd, cwd=root, capture_output=True, check=False, env=_env())
        )

    tools = {"lint-imports": [lint, "--no-cache"], "ruff": [*ruff, "bench"], "mypy": mypy}
    for cmd in [*tools.values(), codeif]:
        run(cmd)  # warm-up: file system cache, bytecode
    alone = {
        name: statistics.median(run(cmd) for _ in range(rounds)) for name, cmd in tools.items()
    }
    whole = statistics.median(run(codeif) for _ in range(rounds))
    base = sum(alone.values())
    report = json.loads((root / "report.json").read_text())
    [task] = report["tasks"]
    print(f"the repository gate: 5 contracts, ruff, mypy; median of {rounds} runs each")
    for name, value in alone.items():
        print(f"  {name:36} {value:7.3f} s")
    print(f"  {'the tools alone, in turn (baseline)':36} {base:7.3f} s   1.00 x tools alone")
    print(
        f"  {'pytest --codeif, the same gate':36} {whole:7.3f} s  {whole / base:5.2f} x tools alone"
    )
    print("verdicts: " + ", ".join(f"{c['constraint']} {c['status']}" for c in task["constraints"]))
    lint_run = subprocess.run(
        [lint, "--no-cache"], cwd=root, capture_output=True, text=True, check=False, env=_env()
    )
    found = re.findall(r"^([\w-]+) (KEPT|BROKEN)", lint_run.stdout, re.M)
    print("lint-imports: " + ", ".join(f"{name} {state.lower()}" for name, state in found))


def contracts_files(root: Path, domains: int) -> list[str]:
    """Write the contracts as import-linter's config and as a task file; the containers."""
    containers = [f"bench.d{d}" for d in range(domains)]
    (root / ".importlinter").write_text(
        IMPORTLINTER.format(containers="\n".join(f"    {c}" for c in containers))
    )
    (root / "bench.codeif.yaml").write_text(TASKS.format(containers=", ".join(containers)))
    (root / "pytest.ini").write_text("[pytest]\n")
    return containers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--parsers", action="store_true")
    parser.add_argument("--gate", action="store_true")
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codeif-contracts-") as tmp:
        root = args.keep or Path(tmp)
        if not (root / "bench").is_dir():
            generate(root, domains=args.domains)
        if args.parsers:
            parsers(root, args.rounds)
        elif args.gate:
            gate(root, args.rounds, args.domains)
        else:
            contracts(root, args.rounds, args.domains)


if __name__ == "__main__":
    main()

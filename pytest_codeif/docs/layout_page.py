"""The package-layout page: every module and folder of `pytest_codeif`, in the order of
the layers contract (`.importlinter`, which import-linter keeps exhaustive), each said by
the first paragraph of its own docstring. A module added, moved or renamed shows here at
the next build, in its layer."""

from __future__ import annotations

import ast
import configparser
from pathlib import Path
from typing import Final

from pytest_codeif.docs.schema_text import table_text

PATH: Final = "layout.md"
PACKAGE: Final = Path(__file__).resolve().parent.parent
CONTRACT: Final = PACKAGE.parent / ".importlinter"

_INTRO: Final = """# Package layout

Layers, top first: a module imports only from the layers below it, and modules on one
line (`a | b`) not from each other. `.importlinter` holds the contract, and `.ci/run`
checks it with `lint-imports`, together with "no import cycles" and "a check imports only
the shared code of checks and the check base". Generated from that contract and each
module's docstring.
"""

_OUTSIDE: Final = """## Beside the package

| where | what |
| --- | --- |
| `tests/` | the test suite (`bash .ci/run` runs it as CI does) |
| `fixtures/`, `examples/` | task files used by the tests (bad ones too), and runnable examples |
| `benchmarks/` | scripts that print measured figures (`benchmarks/README.md`) |
| `docs/`, `mkdocs.yml` | this site's sources; the generated pages come from `pytest_codeif/docs/` |
| `.ci/` | the CI script, the pinned versions, and the plugin's rules for itself |
"""


#: What a package does, where its `__init__.py` docstring says no more than its name.
_PACKAGES: Final = {
    "engine": "Verdicts: units and parses shared by every check, tool batches "
    "(`tool_batches.py`), the verdict cache, the functional pool, what a check sees "
    "(`context.py`).",
    "taskfile": "A YAML file to validated `Task`s: loader with line marks, JSON Schema, parser.",
    "functional": "Call cases and pytest files run in the sandbox, compared as plain data; "
    "growth measurements.",
    "sandbox": "The one place code under evaluation is started as a process.",
    "code": "The code under evaluation: response extraction, files, line mapping, one libcst "
    "parse, names resolved through imports, suppression comments.",
}


def layers(contract: Path = CONTRACT) -> list[list[str]]:
    """The layers contract's lines, top first, each the module names on it."""
    parser = configparser.ConfigParser()
    parser.read(contract, encoding="utf-8")
    text = parser["importlinter:contract:layers"]["layers"]
    return [
        [name.strip("() ") for name in line.replace(":", "|").split("|")]
        for line in text.splitlines()
        if line.strip()
    ]


def summary_of(name: str) -> str:
    """The first paragraph of module or package `name`'s docstring, on one line."""
    folder = PACKAGE / name
    source = folder / "__init__.py" if folder.is_dir() else PACKAGE / f"{name}.py"
    doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    if doc.strip() in ("", name):
        doc = _PACKAGES.get(name, "")
    return table_text(" ".join(doc.split("\n\n", 1)[0].split()))


def shown(name: str) -> str:
    """`gate/` for a folder, `cli.py` for a module."""
    return f"`{name}/`" if (PACKAGE / name).is_dir() else f"`{name}.py`"


def layout_page(contract: Path = CONTRACT) -> str:
    """The whole page."""
    rows = ["| layer | where | what |", "| --- | --- | --- |"]
    for number, line in enumerate(layers(contract), 1):
        rows += [f"| {number} | {shown(name)} | {summary_of(name)} |" for name in line]
    return f"{_INTRO}\n## `pytest_codeif/`\n\n" + "\n".join(rows) + f"\n\n{_OUTSIDE}"

"""Which code runs in Node.js, and which of its files the call cases call into.

A unit whose source is JavaScript or TypeScript only runs its call cases in Node (see
`node_calls.py`); so does a mixed project whose task's `module` names one of its JS/TS
files. The entry file is, in order: the file the task's `module` names (a path, with or
without its suffix, or dotted: `src/shapes`, `src/shapes.ts`, `src.shapes`; a folder's
`index` file), the single file of code given inline, as a file or as a response
(`solution.js`, `solution.ts`), `package.json`'s `main`, the project's only top-level
JS/TS file, else its top-level `index` file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

from pytest_codeif.code.languages import JS_FAMILY
from pytest_codeif.code.unit import CodeUnit, SourceFile

#: Suffixes tried for a `module` given without one, in this order.
SUFFIXES: Final = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
#: package.json files read at most (bytes).
MAX_PACKAGE_JSON: Final = 1 << 20


@dataclass(frozen=True)
class Entry:
    """The file the cases call into, and the name its classes are reported under
    (`solution.ValidationError`, `src.shapes.Shape`)."""

    source: SourceFile

    @property
    def module(self) -> str:
        path = PurePosixPath(self.source.relpath)
        return ".".join(path.with_suffix("").parts)


def js_files(unit: CodeUnit) -> list[SourceFile]:
    """The unit's JavaScript and TypeScript files."""
    return [f for f in unit.files if f.language in JS_FAMILY]


def uses_node(unit: CodeUnit, module: str | None) -> bool:
    """Whether the unit's call cases run in Node.js: its code is JS/TS only, or the
    task's `module` names one of its JS/TS files."""
    if not unit.files:
        return False
    if unit.languages <= JS_FAMILY:
        return True
    return module is not None and _named(js_files(unit), module) is not None


def entry_file(unit: CodeUnit, module: str | None) -> Entry | str:
    """The entry file (see the module's docstring), or why there is none."""
    files = js_files(unit)
    if module is not None:
        found = _named(files, module)
        if found is None:
            return f"no JavaScript or TypeScript file `{module}` in the code (the task's `module`)"
        return Entry(found)
    if not unit.is_project and len(files) == 1:
        return Entry(files[0])
    main = _package_main(unit)
    found = _named(files, main) if main is not None else None
    if found is not None:
        return Entry(found)
    top = [f for f in files if "/" not in f.relpath]
    if len(top) == 1:
        return Entry(top[0])
    index = _named(top, "index")
    if index is not None:
        return Entry(index)
    return (
        "the project has several top-level JavaScript or TypeScript files and no "
        "package.json `main`; set the task's `module` (a file, such as `src/index.js`)"
    )


def _named(files: list[SourceFile], module: str) -> SourceFile | None:
    """The file `module` names: its path, its path without suffix, its dotted name, or
    the `index` file of the folder it names."""
    by_path = {f.relpath: f for f in files}
    stem = module.removeprefix("./").rstrip("/")
    tried = [stem, stem.replace(".", "/")]
    for base in tried:
        if base in by_path:
            return by_path[base]
        for suffix in SUFFIXES:
            for candidate in (base + suffix, f"{base}/index{suffix}"):
                if candidate in by_path:
                    return by_path[candidate]
    return None


def _package_main(unit: CodeUnit) -> str | None:
    """The `main` of the project's top-level package.json, when it names a file."""
    package = unit.other_file("package.json")
    if package is None or len(package.data) > MAX_PACKAGE_JSON or package.text is None:
        return None
    try:
        main = json.loads(package.text).get("main")
    except (ValueError, AttributeError, RecursionError):
        return None
    return main if isinstance(main, str) and main.strip() else None

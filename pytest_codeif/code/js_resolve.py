"""Where a JavaScript or TypeScript import specifier leads, inside a project or out of it.

Resolution follows what Node and TypeScript (its `bundler` / `node16` module resolution)
agree on, leniently where they differ, so that the graph of a project that runs under
either is the same:

- A relative specifier (`./db`, `../services/users.js`) is a path from the importer's
  folder: the file itself, a TypeScript file behind a `.js` name (`./users.js` ->
  `users.ts`, `.mjs` -> `.mts`, `.cjs` -> `.cts`, `.jsx` -> `.tsx`), the path with a
  suffix added (`.ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts .json .node`, in that
  order), or a folder: its `package.json` `main`, else its `index` file. Node's ES
  modules ask for the full file name, bundlers and TypeScript do not: both are read.
- A bare specifier is, in this order: a `#name` of the nearest `package.json`'s
  `imports`; a `compilerOptions.paths` alias of the nearest tsconfig.json (the pattern
  with the longest prefix, each target in turn); a path under `compilerOptions.baseUrl`;
  a workspace package of the project by its `name` (its `exports` for the subpath, with
  Node's conditions, `import` or `require` (by how it is imported), `node`,
  `module-sync`, `node-addons` and `default`, in the order the package lists them,
  first target that is a source file wins; never `types`, `source` or `module`, which
  Node does not read; without `exports`, its `main` or `index`); else an npm
  package or a Node built-in outside the project (`express`, `@prisma/client`, `fs` for
  `node:fs`).
- A workspace package whose entry is no source file of the project (it points at build
  output, `dist/index.js`, not in the project) resolves to the package's folder, which
  is a module of the graph as a Python package is.
- Unresolved: a relative or absolute path that reaches no file of the project (or
  climbs out of it), a `#name` no `imports` maps, and an alias whose pattern has a
  prefix (`@/*`) matching but none of whose targets is a file: the project's own
  code, named wrongly. A catch-all `*` alias that matches nothing falls through to
  the packages.

A `paths` alias naming a package itself (`"express": [...]`) keeps the package's edge
too (`Resolver.shadowed_package`): Node does not read `paths`.

A specifier resolving to a file that is not source (`./data.json`, `./styles.css`,
a `.d.ts` declaration) imports no module: no edge, no error.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal

from pytest_codeif.code.js_project import JsProject, PackageJson, folder_of, inside, normal

#: Suffixes tried after a path, in order (TypeScript's first, then Node's).
PROBED: Final = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
PROBED_DATA: Final = (".json", ".node")
#: A `.js`-style name that TypeScript reads as the TypeScript file compiled to it.
TS_BEHIND: Final = (
    (".js", (".ts", ".tsx", ".d.ts")),
    (".jsx", (".tsx",)),
    (".mjs", (".mts", ".d.mts")),
    (".cjs", (".cts", ".d.cts")),
)
_REQUIRE_KINDS: Final = frozenset({"require", "import-require"})
#: `exports` / `imports` conditions read besides `import` / `require`: Node's own, so the
#: graph is the one that runs. `types`, `source` and `module` (TypeScript's and bundlers'
#: hints) are never read: a `types` target before the real one would hide the module Node
#: loads (a forbidden import, an upward layer, a cycle) behind a harmless file.
_CONDITIONS: Final = frozenset({"node", "module-sync", "node-addons", "default"})
#: Bounds on hostile package.json maps: pattern keys looked through per specifier, and
#: the length of a target once its `*` is filled (a path is never longer).
MAX_PATTERN_KEYS: Final = 1_000
#: A name npm publishes a package under: `express`, `@scope/name` (lower case).
_NPM_NAME: Final = re.compile(r"(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*")
MAX_TARGET: Final = 4_096
_NODE_PREFIX: Final = "node:"

Kind = Literal["source", "folder", "other", "external", "unresolved"]


@dataclass(frozen=True)
class Resolution:
    """Where a specifier leads: a source file (`path` its relpath), a folder of the
    project (a workspace package whose entry is not source), another file of the
    project (not source: no module), a package outside the project (`path` its name),
    or nowhere (`path` says why)."""

    kind: Kind
    path: str


def npm_package(specifier: str) -> str:
    """The package a bare specifier names: `lodash` for `lodash/fp`, `@scope/pkg` for
    `@scope/pkg/sub`, `fs` for `node:fs`."""
    bare = specifier.removeprefix(_NODE_PREFIX)
    parts = bare.split("/")
    if bare.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


class Resolver:
    """Resolves the specifiers of a project's files (see the module docstring); each
    answer is kept, as a project imports the same few modules from many files."""

    def __init__(self, project: JsProject) -> None:
        self.project = project
        self._kept: dict[tuple[str, str, bool], Resolution] = {}

    def resolve(self, importer: str, specifier: str, kind: str = "import") -> Resolution:
        """Where `specifier`, imported (`kind`: `js_imports.ImportKind`) by the file at
        `importer`, leads."""
        requiring = kind in _REQUIRE_KINDS
        folder = folder_of(importer)
        key = (folder, specifier, requiring)
        found = self._kept.get(key)
        if found is None:
            found = self._resolve(importer, specifier, requiring)
            self._kept[key] = found
        return found

    def _resolve(self, importer: str, specifier: str, requiring: bool) -> Resolution:
        if specifier.startswith("/"):
            return Resolution("unresolved", "an absolute path, which no file of the project has")
        if specifier.startswith(".") and (
            specifier in (".", "..") or specifier.startswith(("./", "../"))
        ):
            path = normal(posixpath.join(folder_of(importer), specifier))
            if not inside(path):
                return Resolution("unresolved", "a path out of the project")
            return self.file(path) or Resolution("unresolved", "no file of the project")
        if specifier.startswith("#"):
            return self._subpath_import(importer, specifier, requiring)
        aliased = self._aliased(importer, specifier)
        if aliased is not None:
            return aliased
        package_name = npm_package(specifier)
        package = self.project.by_name.get(package_name)
        if package is not None and not specifier.startswith(_NODE_PREFIX):
            return self._workspace(package, specifier[len(package_name) :], requiring)
        return Resolution("external", package_name)

    # -- files ---------------------------------------------------------------------------
    def file(self, path: str, *, folders: bool = True) -> Resolution | None:
        """What the project-relative `path` names: a file (as written, a TypeScript file
        behind a `.js` name, or with a suffix added) or, with `folders`, a folder's
        `main` or `index`; None when it names nothing."""
        for candidate in self._candidates(path):
            if candidate in self.project.files:
                return self._of_file(candidate)
        if folders and path in self.project.folders:
            package = self.project.packages.get(path)
            if package is not None and package.main:
                main = normal(posixpath.join(path, package.main))
                found = self.file(main, folders=False) if inside(main) else None
                if found is not None:
                    return found
            return self.file(posixpath.join(path, "index") if path else "index", folders=False)
        return None

    def _candidates(self, path: str) -> Iterator[str]:
        if not path:
            return
        yield path
        for written, behind in TS_BEHIND:
            if path.endswith(written):
                stem = path[: -len(written)]
                yield from (stem + suffix for suffix in behind)
        for suffix in (*PROBED, *PROBED_DATA):
            yield path + suffix

    def _of_file(self, relpath: str) -> Resolution:
        if relpath in self.project.sources:
            return Resolution("source", relpath)
        return Resolution("other", relpath)

    def shadowed_package(self, importer: str, specifier: str) -> str | None:
        """The npm package Node loads for `specifier` where the importer's tsconfig
        `paths` maps that very package name (`"express": ["src/fake.js"]`,
        `"express/*"`) to a file of the project: `paths` is the compiler's alone, so
        at run time the package is what is imported, and the graph keeps its edge
        beside the alias's."""
        if specifier.startswith((".", "/", "#")):
            return None
        compiler = self.project.compiler_paths(importer)
        if compiler is None:
            return None
        package = npm_package(specifier)
        if not _NPM_NAME.fullmatch(package):
            return None  # `@db`, `~utils`: the project's own names, never a package's
        for alias in compiler.aliases:
            if alias.pattern in (package, f"{package}/*") and alias.match(specifier) is not None:
                return package
        return None

    # -- aliases -------------------------------------------------------------------------
    def _aliased(self, importer: str, specifier: str) -> Resolution | None:
        """A `paths` alias or a `baseUrl` path of the importer's tsconfig; None when
        neither applies (the specifier is a package's)."""
        compiler = self.project.compiler_paths(importer)
        if compiler is None:
            return None
        matches = [
            (alias, star)
            for alias in compiler.aliases
            if (star := alias.match(specifier)) is not None
        ]
        if matches:
            # TypeScript takes the pattern with the longest prefix (an exact one first).
            alias, star = max(
                matches, key=lambda pair: ("*" not in pair[0].pattern, len(pair[0].prefix))
            )
            for target in alias.targets:
                path = normal(target.replace("*", star, 1))
                found = self.file(path) if inside(path) else None
                if found is not None:
                    return found
            if alias.prefix or "*" not in alias.pattern:
                shown = ", ".join(alias.targets) or "nothing"
                return Resolution(
                    "unresolved",
                    f"the alias `{alias.pattern}` of {compiler.config} maps it to {shown}, "
                    "and no file of the project is there",
                )
        if compiler.base_url is not None:
            path = normal(posixpath.join(compiler.base_url, specifier))
            found = self.file(path) if inside(path) else None
            if found is not None:
                return found
        return None

    # -- packages ------------------------------------------------------------------------
    def _subpath_import(self, importer: str, specifier: str, requiring: bool) -> Resolution:
        """`#name`: the `imports` of the nearest package.json."""
        package = self.project.package_above(importer)
        if package is None or not isinstance(package.imports, dict):
            return Resolution("unresolved", "no package.json `imports` maps it")
        targets = list(_targets_for(package.imports, specifier, requiring))
        for target in targets:
            if target.startswith("./"):
                found = self._inside(package, target)
                if found is not None:
                    return found
            elif target and not target.startswith(("/", "../", "#")):  # never `#` again
                return self._resolve(package.relpath, target, requiring)
        if targets:
            return Resolution("unresolved", f"{package.relpath} `imports` maps it to no file")
        return Resolution("unresolved", f"{package.relpath} `imports` does not map it")

    def _workspace(self, package: PackageJson, rest: str, requiring: bool) -> Resolution:
        """A workspace package of the project, `rest` the subpath after its name."""
        subpath = "." + rest
        if package.exports is not None:
            for target in _targets_for(_exports_map(package.exports), subpath, requiring):
                found = self._inside(package, target)
                if found is not None and found.kind == "source":
                    return found
        elif rest:
            found = self.file(normal(posixpath.join(package.folder, rest[1:])))
            if found is not None:
                return found
        else:
            found = self.file(package.folder) if package.folder else self._root_entry(package)
            if found is not None and found.kind == "source":
                return found
        return Resolution("folder", package.folder)

    def _root_entry(self, package: PackageJson) -> Resolution | None:
        if package.main:
            main = normal(package.main)
            found = self.file(main, folders=False) if inside(main) else None
            if found is not None:
                return found
        return self.file("index", folders=False)

    def _inside(self, package: PackageJson, target: str) -> Resolution | None:
        """A package's `./...` target, as a file of the project."""
        if not target.startswith("./"):
            return None
        path = normal(posixpath.join(package.folder, target))
        return self.file(path, folders=False) if inside(path) else None


def _exports_map(exports: Any) -> dict[str, Any]:
    """`exports` as a map of subpaths: a string, a list, or conditions alone stand for
    the package's root (`.`)."""
    if isinstance(exports, dict) and any(str(key).startswith(".") for key in exports):
        return {str(key): value for key, value in exports.items()}
    return {".": exports}


def _targets_for(mapping: dict[str, Any], subpath: str, requiring: bool) -> Iterator[str]:
    """The targets `mapping` (`exports` by subpath, or `imports` by `#name`) gives
    `subpath`: its exact key, else the `*` pattern with the longest prefix, `*`
    replaced by what it matched."""
    if subpath in mapping and "*" not in subpath:
        yield from _targets(mapping[subpath], requiring, None)
        return
    best: tuple[int, str, str] | None = None
    for index, key in enumerate(mapping):
        if index >= MAX_PATTERN_KEYS:
            break  # a real package maps a few dozen subpaths
        if key.count("*") != 1:
            continue
        prefix, _, suffix = key.partition("*")
        if (
            subpath.startswith(prefix)
            and subpath.endswith(suffix)
            and len(subpath) >= len(prefix) + len(suffix)
            and (best is None or len(prefix) > best[0])
        ):
            best = (len(prefix), key, subpath[len(prefix) : len(subpath) - len(suffix)])
    if best is not None:
        yield from _targets(mapping[best[1]], requiring, best[2])


def _targets(value: Any, requiring: bool, star: str | None, depth: int = 0) -> Iterator[str]:
    """Every target string of an `exports`/`imports` value, in order: a string, each
    of a list, each accepted condition of an object (see the module docstring)."""
    if depth > 8:  # conditions nest a level or two; a deeper object is not a real one
        return
    if isinstance(value, str):
        if star is None:
            yield value
        elif len(value) + value.count("*") * len(star) <= MAX_TARGET:
            # Node fills every `*` of a target; a longer result names no file.
            yield value.replace("*", star)
    elif isinstance(value, list):
        for item in value:
            yield from _targets(item, requiring, star, depth + 1)
    elif isinstance(value, dict):
        wanted = "require" if requiring else "import"
        for condition, inner in value.items():
            if condition == wanted or condition in _CONDITIONS:
                yield from _targets(inner, requiring, star, depth + 1)

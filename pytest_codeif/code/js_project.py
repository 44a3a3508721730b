"""What a Node project's configuration says about where its imports lead: its
`package.json` files (workspace packages by name, their `main`, `exports` and `imports`)
and its `tsconfig.json` / `jsconfig.json` files (`compilerOptions.baseUrl` and `paths`,
through `extends` chains inside the project). `js_resolve.py` resolves specifiers with
it; `js_graph.py` builds the module graph.

Paths here are project-relative POSIX paths ("" is the project's root folder), and a
path that climbs out of the project starts with `../`: it names no file of the project.

Configs are read as their tools read them: `package.json` as strict JSON (Node refuses
comments there), `tsconfig.json` as JSONC (`jsonc.py`: comments, trailing commas). A
config that cannot be read, or whose `paths` / `baseUrl` / `exports` is of the wrong
shape, is a *problem* (`JsProject.problems`, relpath -> why): the imports it governs
cannot be followed, so the contract checks report it rather than guess. A base config
outside the project (`"extends": "@tsconfig/node20/tsconfig.json"`, in node_modules) is
not read: such shared bases set compiler flags, not the project's own aliases.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from pytest_codeif.code import jsonc
from pytest_codeif.code.languages import JS_FAMILY
from pytest_codeif.code.unit import CodeUnit

#: The config files that give a folder's TypeScript (or JavaScript) options, first found
#: first: TypeScript's editor service looks for them in this order, folder by folder up.
TSCONFIG_NAMES: Final = ("tsconfig.json", "jsconfig.json")
PACKAGE_JSON: Final = "package.json"
#: Longest config read (real ones are kilobytes; past this it is a problem, not a parse).
MAX_CONFIG_CHARS: Final = 1_000_000
#: Base configs followed through `extends`, at most (real chains: two or three).
MAX_EXTENDS: Final = 16
#: `paths` aliases read, at most (real configs: a handful; each bare import tries each).
MAX_ALIASES: Final = 1_000


def normal(path: str) -> str:
    """`path` normalised, project-relative ("" for the root; `../x` outside it)."""
    joined = posixpath.normpath(path) if path else ""
    return "" if joined == "." else joined


def inside(path: str) -> bool:
    """Whether the normalised `path` names a place inside the project."""
    return path != ".." and not path.startswith(("../", "/"))


def folder_of(relpath: str) -> str:
    """The folder holding the file at `relpath` ("" for the root)."""
    return posixpath.dirname(relpath)


@dataclass(frozen=True)
class PackageJson:
    """One `package.json`: its folder, and the fields that say what importing it
    loads (raw JSON values, read by `js_resolve.py`)."""

    relpath: str
    folder: str
    name: str | None
    main: str | None
    exports: Any
    imports: Any


@dataclass(frozen=True)
class PathAlias:
    """One entry of `compilerOptions.paths`: a pattern (`@/*`, at most one `*`) and its
    targets, made project-relative (`src/*`)."""

    pattern: str
    targets: tuple[str, ...]

    @property
    def prefix(self) -> str:
        return self.pattern.partition("*")[0]

    def match(self, specifier: str) -> str | None:
        """What `*` stands for when `specifier` matches (the whole pattern for one
        without `*`: ""), else None."""
        if "*" not in self.pattern:
            return "" if specifier == self.pattern else None
        prefix, _, suffix = self.pattern.partition("*")
        if (
            len(specifier) >= len(prefix) + len(suffix)
            and specifier.startswith(prefix)
            and specifier.endswith(suffix)
        ):
            return specifier[len(prefix) : len(specifier) - len(suffix)]
        return None


@dataclass(frozen=True)
class CompilerPaths:
    """What one tsconfig (with its bases) says about bare specifiers: `baseUrl` (a
    project-relative folder, or None) and its `paths` aliases in their order."""

    config: str
    base_url: str | None = None
    aliases: tuple[PathAlias, ...] = ()


@dataclass
class _Options:
    """compilerOptions gathered along an `extends` chain, each with the folder its
    relative paths are read from."""

    base_url: str | None = None
    paths: Mapping[str, Any] | None = None
    paths_folder: str = ""
    chain: list[str] = field(default_factory=list)


class JsProject:
    """The files of a unit and the Node and TypeScript configuration among them."""

    def __init__(self, unit: CodeUnit) -> None:
        self.sources: frozenset[str] = frozenset(
            f.relpath for f in unit.files if f.language in JS_FAMILY
        )
        texts: dict[str, str | None] = {f.relpath: f.text for f in unit.other_files}
        self._texts = texts
        every = set(texts) | {f.relpath for f in unit.files} | {f.relpath for f in unit.left_out}
        #: Every file of the project, source or not (a `.json`, a `.d.ts`, a `.css`).
        self.files: frozenset[str] = frozenset(every)
        folders: set[str] = set()
        for relpath in every:
            parent = folder_of(relpath)
            while parent and parent not in folders:
                folders.add(parent)
                parent = folder_of(parent)
        #: Every folder holding a file of the project, at any depth.
        self.folders: frozenset[str] = frozenset(folders)
        #: Configs that cannot be read, and why.
        self.problems: dict[str, str] = {}
        self.packages: dict[str, PackageJson] = {}
        for relpath in sorted(texts):
            if posixpath.basename(relpath) == PACKAGE_JSON:
                package = self._package(relpath)
                if package is not None:
                    self.packages[package.folder] = package
        self._compiler: dict[str, CompilerPaths | None] = {}

    @cached_property
    def by_name(self) -> dict[str, PackageJson]:
        """The project's packages by their `name` (workspace packages; the root one
        too, which may import itself by name). Two of one name: the shallower."""
        found: dict[str, PackageJson] = {}
        for folder in sorted(self.packages, key=lambda f: (f.count("/"), f)):
            package = self.packages[folder]
            if package.name and package.name not in found:
                found[package.name] = package
        return found

    def package_above(self, relpath: str) -> PackageJson | None:
        """The nearest `package.json` in the folder of `relpath` or above it."""
        folder = folder_of(relpath)
        while True:
            if folder in self.packages:
                return self.packages[folder]
            if not folder:
                return None
            folder = folder_of(folder)

    def compiler_paths(self, relpath: str) -> CompilerPaths | None:
        """The `baseUrl` and `paths` governing the file at `relpath`: from the nearest
        tsconfig.json (or jsconfig.json) in its folder or above; None without one."""
        folder = folder_of(relpath)
        walked: list[str] = []
        found: CompilerPaths | None = None
        while True:
            if folder in self._compiler:
                found = self._compiler[folder]
                break
            walked.append(folder)
            config = next(
                (
                    posixpath.join(folder, name)
                    for name in TSCONFIG_NAMES
                    if posixpath.join(folder, name) in self._texts
                ),
                None,
            )
            if config is not None:
                found = self._read_compiler(config)
                break
            if not folder:
                break
            folder = folder_of(folder)
        for each in walked:
            self._compiler[each] = found
        return found

    # -- reading ------------------------------------------------------------------------
    def _text(self, relpath: str) -> str | None:
        """The config's text, or None (a problem recorded) when it cannot be read."""
        text = self._texts.get(relpath)
        if text is None:
            self.problems[relpath] = "not a UTF-8 text file"
        elif len(text) > MAX_CONFIG_CHARS:
            self.problems[relpath] = f"{len(text):,} characters; at most {MAX_CONFIG_CHARS:,}"
            return None
        return text

    def _package(self, relpath: str) -> PackageJson | None:
        text = self._text(relpath)
        if text is None:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems[relpath] = f"line {exc.lineno}: {exc.msg}"
            return None
        except RecursionError:
            self.problems[relpath] = "nested too deeply to read"
            return None
        if not isinstance(data, dict):
            self.problems[relpath] = "not a JSON object"
            return None
        name, main = data.get("name"), data.get("main")
        return PackageJson(
            relpath,
            folder_of(relpath),
            name if isinstance(name, str) and name else None,
            main if isinstance(main, str) and main else None,
            data.get("exports"),
            data.get("imports"),
        )

    def _config(self, relpath: str) -> dict[str, Any] | None:
        """A tsconfig's JSON object, or None (a problem recorded)."""
        text = self._text(relpath)
        if text is None:
            return None
        try:
            data = jsonc.loads(text)
        except jsonc.JsoncError as exc:
            self.problems[relpath] = str(exc)
            return None
        if not isinstance(data, dict):
            self.problems[relpath] = "not a JSON object"
            return None
        return data

    def _read_compiler(self, config: str) -> CompilerPaths | None:
        options = _Options()
        self._gather(config, options)
        if options.paths is None and options.base_url is None:
            return CompilerPaths(config)
        aliases: list[PathAlias] = []
        base = options.base_url if options.base_url is not None else options.paths_folder
        paths = options.paths or {}
        if len(paths) > MAX_ALIASES:
            self.problems[config] = (
                f"compilerOptions.paths has {len(paths):,} aliases; at most {MAX_ALIASES:,} "
                "are read"
            )
            return CompilerPaths(config, options.base_url)
        for pattern, targets in paths.items():
            if pattern.count("*") > 1 or not isinstance(targets, list):
                self.problems[config] = f"compilerOptions.paths: `{pattern}` is no alias"
                continue
            made = tuple(
                normal(posixpath.join(base, target))
                for target in targets
                if isinstance(target, str)
            )
            aliases.append(PathAlias(pattern, made))
        return CompilerPaths(config, options.base_url, tuple(aliases))

    def _gather(self, config: str, options: _Options) -> None:
        """Fill `options` from `config`'s bases first, then from its own
        compilerOptions (a config's own values win over its bases')."""
        if config in options.chain or len(options.chain) >= MAX_EXTENDS:
            return  # a cycle of `extends` (TypeScript refuses it), or a chain too long
        options.chain.append(config)
        data = self._config(config)
        if data is None:
            return
        folder = folder_of(config)
        for base in _listed(data.get("extends")):
            found = self._base_config(config, base)
            if found is not None:
                self._gather(found, options)
        compiler = data.get("compilerOptions")
        if compiler is None:
            return
        if not isinstance(compiler, dict):
            self.problems[config] = "compilerOptions is not an object"
            return
        base_url = compiler.get("baseUrl")
        if base_url is not None:
            if isinstance(base_url, str):
                options.base_url = normal(posixpath.join(folder, base_url))
            else:
                self.problems[config] = "compilerOptions.baseUrl is not a string"
        paths = compiler.get("paths")
        if paths is not None:
            if isinstance(paths, dict):
                options.paths, options.paths_folder = paths, folder
            else:
                self.problems[config] = "compilerOptions.paths is not an object"

    def _base_config(self, config: str, base: str) -> str | None:
        """The project file an `extends` entry names, or None when it is outside the
        project (a package's config in node_modules). A relative one that names no
        file is a problem, as TypeScript refuses it."""
        folder = folder_of(config)
        if base.startswith((".", "/")):
            path = normal(posixpath.join(folder, base))
            for candidate in (path, path + ".json"):
                if candidate in self._texts:
                    return candidate
            self.problems[config] = f"`extends` names `{base}`, which is no file of the project"
            return None
        # A workspace package's config (`@repo/tsconfig/base.json`) is read when the
        # package is in the project.
        for name, package in self.by_name.items():
            if base == name or base.startswith(name + "/"):
                rest = base[len(name) :].lstrip("/") or "tsconfig.json"
                path = normal(posixpath.join(package.folder, rest))
                for candidate in (path, path + ".json"):
                    if candidate in self._texts:
                        return candidate
        return None


def _listed(value: Any) -> Iterable[str]:
    """`extends` as a list of names (TypeScript 5 takes a list)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    return ()

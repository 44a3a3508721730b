"""Absolute module names for the files of a project, and relative imports made absolute.

An import graph of a project (import-linter/grimp semantics) needs every file's dotted
name and every `from ..x import y` as the absolute module it reaches. This module names
the files the way Python's own path finder would see a repository checked out at its
root, and resolves relative imports the way `importlib.util.resolve_name` does (PEP 328).
It reads paths only, never file contents.

Naming rules (`module_names`):

1. Only paths ending in `.py` are named; other paths are ignored (a directory that
   holds no Python file cannot change any name).
2. Import roots, the `sys.path` entries the names are found on:

   - with `root_package` (the caller's name for the project directory itself, its
     basename, when the directory holds `__init__.py`): the project directory *is* that
     package, a regular one when it holds `__init__.py`, a namespace package otherwise;
     every name starts with `root_package`, and `src/` is an ordinary subdirectory;
   - without it: the project root, then `src/` when the project has a top-level `src/`
     without `__init__.py` (the src layout: `src/shop/models.py` is `shop.models`, and
     `src` itself names nothing). The root comes first, as the working directory does
     on `sys.path` when code runs from a checkout (`python -m`, pytest's rootdir).
     From that root Python also imports `src` itself as a namespace package, so code
     may spell `shop.models` as `src.shop.models`: `hidden_roots` lists `src`, and the
     import graph reads such a name as the module it reaches.
     A root that holds `__init__.py` with no `root_package` is a `ValueError`: the
     package's name is its folder's name, which relative paths cannot tell.

3. A name is looked up like `importlib.machinery.PathFinder` does (PEP 420): over the
   search locations in order, a directory holding `__init__.py` is a regular package and
   wins at once; else a `name.py` module wins; else every directory of that name (in
   any location) together forms a namespace package. A package's submodules are looked
   up in its own directories. So `app/api/routes.py` with no `__init__.py` anywhere is
   `app.api.routes` (`app` and `app.api` are namespace packages), and a directory
   without `__init__.py` inside a regular package is a namespace subpackage (Python
   imports it; grimp does not walk into it).
4. `pkg/__init__.py` is the package `pkg` itself, never `pkg.__init__`.
5. Names need not be identifiers: `scripts/run-db.py` is `scripts.run-db` and
   `pkg/class/x.py` is `pkg.class.x`, as `importlib.import_module` (which checks no
   spelling) and grimp name them. No import statement can spell such a name, but the
   file's own imports still count, and a graph that dropped it would miss them.
6. A file no import can reach gets no name and is listed in `unimportable` with the
   reason: a path component holding a dot (`a.b.py`, `v1.2/x.py`, `.hidden.py`: the
   dot separates names), or a name found first elsewhere (`foo.py` beside
   `foo/__init__.py`: the package wins; `foo/bar.py` beside `foo.py` and no
   `foo/__init__.py`: `foo` is a module, not a package).

Relative imports (`resolve_relative`, `import_from_candidates`) follow
`importlib._bootstrap._resolve_name`: the base is the importer's package (the module
itself for an `__init__.py`, else its parent), climbed `level - 1` times. A top-level
module (`solution.py`) has no package, so any relative import in it resolves to None,
as does one climbing above the top-level package; Python raises ImportError for both.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath
from typing import Final

_INIT: Final = "__init__"
_SRC: Final = "src"


@dataclass(frozen=True)
class ModuleNames:
    """The dotted name of every importable file of a project, and its packages.

    `modules` maps a relative path to its module name; `packages` holds every name that
    is a package, regular (`__init__.py`) or namespace (`namespace_packages`, which have
    no file); `unimportable` maps each file no import can reach to the reason why.
    `hidden_roots` are the import roots that name nothing themselves (the src layout's
    `src`): Python run from the project root still imports `src` as a namespace
    package, so `src.shop.models` is the file `shop.models` is.
    """

    modules: Mapping[str, str]
    packages: frozenset[str]
    namespace_packages: frozenset[str]
    unimportable: Mapping[str, str]
    hidden_roots: tuple[str, ...] = ()

    @cached_property
    def _files(self) -> dict[str, str]:
        return {name: path for path, name in self.modules.items()}

    def relpath_of(self, module: str) -> str | None:
        """The file that is `module` (an `__init__.py` for a regular package), or None
        for a namespace package or a name that is not the project's."""
        return self._files.get(module)

    def resolve(self, relpath: str, level: int, module: str | None) -> str | None:
        """`resolve_relative` for an import written in the file at `relpath`; None also
        when that file is unimportable (run as a script, it has no package)."""
        name = self.modules.get(relpath)
        if name is None:
            return module if level == 0 else None
        return resolve_relative(name, _is_init(relpath), level, module)

    def import_from(
        self, relpath: str, level: int, module: str | None, names: Iterable[str]
    ) -> tuple[str, ...] | None:
        """`import_from_candidates` for a `from ... import ...` written in `relpath`."""
        base = self.resolve(relpath, level, module)
        return None if base is None else _candidates(base, names)


def module_names(relpaths: Sequence[str], root_package: str | None = None) -> ModuleNames:
    """Name every `.py` file of a project given by its relative POSIX paths.

    The rules are in this module's docstring. Raises ValueError for a path that is not a
    normalized relative POSIX path, a `root_package` that is not a dotted name, or
    a root `__init__.py` without `root_package`.
    """
    if root_package is not None and not all(_nameable(p) for p in root_package.split(".")):
        raise ValueError(f"root_package {root_package!r} is not a dotted module name")
    files = {_checked(path) for path in relpaths if path.endswith(".py")}
    tree = _Tree(files)
    finder = _Finder(tree)
    src_layout = root_package is None and _SRC in tree.dirs and f"{_SRC}/{_INIT}.py" not in files
    if root_package is not None:
        finder.name_package(root_package, [""], regular=f"{_INIT}.py" in files)
    elif f"{_INIT}.py" in files:
        raise ValueError(
            "the project root holds __init__.py, so it is a package whose name is its "
            "folder's name: pass root_package"
        )
    else:
        finder.walk("", ["", _SRC] if src_layout else [""], hidden=_SRC if src_layout else None)
    unnamed = [path for path in relpaths if path in files and path not in finder.names]
    return ModuleNames(
        modules={path: finder.names[path] for path in relpaths if path in finder.names},
        packages=frozenset(finder.portions),
        namespace_packages=frozenset(finder.namespaces),
        unimportable={
            path: finder.why_not(path, root_package, src_layout=src_layout) for path in unnamed
        },
        hidden_roots=(_SRC,) if src_layout else (),
    )


def resolve_relative(
    importer_module: str, importer_is_package: bool, level: int, module: str | None
) -> str | None:
    """The absolute module a `from <level dots><module> import ...` written in
    `importer_module` names as its base (PEP 328), or None when Python would raise
    ImportError: the importer has no package (a top-level module such as `solution`), or
    the dots climb above its top-level package.

    In `a/b/c.py` (`a.b.c`, not a package) `from . import x` has base `a.b` and
    `from ..x import y` base `a.x`; in `a/b/__init__.py` (`a.b`, a package) `from .`
    is `a.b` and `from ..` is `a`. Level 0 is an absolute import: `module` itself.
    """
    if level < 0:
        raise ValueError(f"an import's level is at least 0, not {level}")
    if level == 0:
        if not module:
            raise ValueError("an absolute `from` import names its module")
        return module
    package = importer_module if importer_is_package else importer_module.rpartition(".")[0]
    if not package:
        return None
    bits = package.rsplit(".", level - 1)
    if len(bits) < level:
        return None
    return f"{bits[0]}.{module}" if module else bits[0]


def import_from_candidates(
    importer_module: str,
    importer_is_package: bool,
    level: int,
    module: str | None,
    names: Iterable[str],
) -> tuple[str, ...] | None:
    """The absolute modules a `from ... import names` may import: its base, then
    `base.name` for each imported name (it may be a submodule), like `import_sites` gives
    for absolute imports; `*` adds nothing. None when the base does not resolve.

    `from ..repositories import user_repo` in `app.api.routes` gives
    `("app.repositories", "app.repositories.user_repo")`. The base may be the importer
    itself (`from . import x` in an `__init__.py`); a graph drops that self-edge.
    """
    base = resolve_relative(importer_module, importer_is_package, level, module)
    return None if base is None else _candidates(base, names)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean `x`?` naming the one of `known` closest to `name` (a module
    name with a typo), or "" when none is close."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def _candidates(base: str, names: Iterable[str]) -> tuple[str, ...]:
    found = [base, *(f"{base}.{name}" for name in names if name != "*")]
    return tuple(dict.fromkeys(found))


def _nameable(component: str) -> bool:
    """A path component that can be one part of a dotted module name: not empty, no dot
    (and no slash: `root_package` is a name, not a path)."""
    return bool(component) and "." not in component and "/" not in component


def _is_init(relpath: str) -> bool:
    return PurePosixPath(relpath).name == f"{_INIT}.py"


def _checked(relpath: str) -> str:
    """`relpath`, or ValueError when it is not a normalized relative POSIX path."""
    pure = PurePosixPath(relpath)
    if pure.is_absolute() or ".." in pure.parts or pure.as_posix() != relpath or not relpath:
        raise ValueError(f"{relpath!r} is not a normalized relative POSIX path")
    return relpath


def _join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


class _Tree:
    """The directories and `.py` files of a project, from its file paths."""

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.dirs: set[str] = {""}
        self.children: dict[str, set[str]] = {}
        for path in files:
            parts = path.split("/")
            for depth in range(len(parts)):
                parent = "/".join(parts[:depth])
                self.dirs.add(parent)
                child = parts[depth] if depth < len(parts) - 1 else parts[depth][: -len(".py")]
                self.children.setdefault(parent, set()).add(child)


class _Finder:
    """Python's path-finder lookup over a `_Tree`, recording the name of each file."""

    def __init__(self, tree: _Tree) -> None:
        self.tree = tree
        self.names: dict[str, str] = {}  # relpath -> module name
        self.owners: dict[str, str] = {}  # module name -> relpath ("" for a namespace)
        self.portions: dict[str, list[str]] = {}  # package name -> its directories
        self.namespaces: set[str] = set()

    def name_package(self, name: str, portions: list[str], *, regular: bool) -> None:
        """Record package `name` (its `__init__.py` in `portions[0]` when `regular`, else
        a namespace package over `portions`) and everything inside it."""
        self.portions[name] = portions
        if regular:
            init = _join(portions[0], f"{_INIT}.py")
            self.names[init] = name
            self.owners[name] = init
        else:
            self.namespaces.add(name)
            self.owners[name] = ""
        self.walk(name, portions)

    def walk(self, prefix: str, portions: list[str], hidden: str | None = None) -> None:
        """Name every submodule of `prefix` ("" for the top level) found in `portions`;
        the directory `hidden` (the src layout's `src/`, a root) is no namespace portion."""
        children = {child for portion in portions for child in self.tree.children.get(portion, ())}
        for child in sorted(children - {_INIT}):
            if not _nameable(child):
                continue
            name = f"{prefix}.{child}" if prefix else child
            regular, module, namespace = self._find(child, portions)
            if regular is not None:
                self.name_package(name, [regular], regular=True)
            elif module is not None:
                self.names[module] = name
                self.owners[name] = module
            elif portions_left := [d for d in namespace if d != hidden]:
                self.name_package(name, portions_left, regular=False)

    def _find(self, name: str, portions: list[str]) -> tuple[str | None, str | None, list[str]]:
        """Where `name` is in `portions`: (regular package directory, module file,
        namespace portions); the first two are None unless that is what Python finds."""
        namespace: list[str] = []
        for portion in portions:
            directory = _join(portion, name)
            if _join(directory, f"{_INIT}.py") in self.tree.files:
                return directory, None, []
            if f"{directory}.py" in self.tree.files:
                return None, f"{directory}.py", []
            if directory in self.tree.dirs:
                namespace.append(directory)
        return None, None, namespace

    def why_not(self, relpath: str, root_package: str | None, *, src_layout: bool) -> str:
        """Why no import reaches `relpath`, a file `walk` did not name."""
        parts = relpath[: -len(".py")].split("/")
        directory = ""
        if src_layout and parts[0] == _SRC and len(parts) > 1:
            directory, parts = _SRC, parts[1:]
        for part in parts:
            if not _nameable(part):
                return f"`{part}` holds a dot, which separates the parts of a module name"
        names = parts[:-1] if parts[-1] == _INIT else parts
        prefix = root_package.split(".") if root_package else []
        for depth in range(1, len(names)):
            name = ".".join([*prefix, *names[:depth]])
            directory = _join(directory, names[depth - 1])
            if name not in self.portions:
                return f"`{name}` is {self._what(name)}, not a package"
            if directory not in self.portions[name]:
                return f"`{name}` is {self._what(name)}, found first"
        name = ".".join([*prefix, *names])
        return f"`{name}` is {self._what(name)}, found first"

    def _what(self, name: str) -> str:
        """What `name` is: its file, or the directories of its namespace package."""
        owner = self.owners.get(name)
        if owner is None:
            return "not found"
        if owner:
            return owner
        return "the namespace package " + ", ".join(f"{d}/" for d in self.portions[name])

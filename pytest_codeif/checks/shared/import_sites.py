"""Every module a module imports, as absolute names (`from ..repositories import user_repo` in
`app.api.routes` gives `app.repositories` and `app.repositories.user_repo`): what the
`imports`, `framework`, `db-drivers`, `database` and `raw-sql` checks read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.names import absolute_base

_DYNAMIC = frozenset({"builtins.__import__", "importlib.import_module"})


@dataclass(frozen=True)
class ImportSite:
    """A module imported somewhere: `from a.b import c` gives `a.b` and `a.b.c`."""

    module: str
    source: ParsedModule
    node: cst.CSTNode

    @property
    def line(self) -> int:
        return self.source.line_of(self.node)


def import_sites(module: ParsedModule) -> Iterator[ImportSite]:
    """Every import in `module` as absolute module names, relative ones resolved from the
    module's place in its project (`from ..repositories import user_repo` in
    `app.api.routes` gives `app.repositories` and `app.repositories.user_repo`), and
    `__import__("x")` / `importlib.import_module("x")` with a literal name (a common way
    round a rule)."""
    for node in module.walk():
        if isinstance(node, cst.Import):
            for alias in node.names:
                yield ImportSite(code_of(alias.name), module, node)
        elif isinstance(node, cst.ImportFrom):
            base = absolute_base(node, module.place)
            if base is None:
                continue  # a relative import with no package to resolve it from
            yield ImportSite(base, module, node)
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    yield ImportSite(f"{base}.{code_of(alias.name)}", module, node)
        elif isinstance(node, cst.Call) and node.args and module.qualified(node) & _DYNAMIC:
            first = node.args[0].value
            if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
                yield ImportSite(first.evaluated_value, module, node)


def imports_module(site: str, wanted: str) -> bool:
    """True when importing `site` imports `wanted` or something inside it."""
    site, wanted = site.lower(), wanted.lower()
    return site == wanted or site.startswith(wanted + ".")

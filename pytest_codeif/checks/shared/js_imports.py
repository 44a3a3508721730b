"""The imports of a JavaScript or TypeScript module, as written: what `imports` judges
of JS/TS code, and what a module graph for JS/TS projects reads (its resolution of
relative paths, `index` files, `package.json` `exports` and `tsconfig.json` `paths` is
that graph's, not this module's).

An import is any of: `import ... from "m"` (and `import "m"`, `import type`), `export
... from "m"`, TypeScript's `import x = require("m")`, CommonJS `require("m")` and a
dynamic `import("m")` with a literal name (a plain string, or a template literal with
no `${...}`). A name computed at run time is not read. A specifier is kept as written
(`./db/index.js`, `node:fs`, `@scope/pkg/sub`); `package_of` tells which npm package
(or Node built-in) a bare specifier names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

ImportKind = Literal["import", "export-from", "import-require", "require", "dynamic-import"]
_NODE_PREFIX: Final = "node:"


@dataclass(frozen=True)
class JsImport:
    """One import of a JS/TS module: the specifier as written, where, and how."""

    module: JsModule
    specifier: str
    line: int
    kind: ImportKind
    #: `import type ...` (TypeScript): erased when compiled, nothing loaded at run time.
    type_only: bool = False

    @property
    def relative(self) -> bool:
        """A path (`./x`, `../x`, `/x`), not a package: the project's own module."""
        return self.specifier.startswith((".", "/"))


def js_imports(module: JsModule) -> Iterator[JsImport]:
    """Every import of `module` whose specifier is a literal, in document order."""
    found: list[tuple[int, JsImport]] = []
    for statement in module.nodes("import_statement", "export_statement"):
        source = statement.field("source")
        kind: ImportKind = "import" if statement.kind() == "import_statement" else "export-from"
        if source is None:
            clause = next(
                (c for c in statement.named_children() if c.kind() == "import_require_clause"),
                None,
            )
            source = clause.field("source") if clause is not None else None
            kind = "import-require"
            if source is None:
                continue
        text = _literal(source)
        if text is not None:
            type_only = any(child.kind() == "type" for child in statement.children())
            found.append(_at(module, source, text, kind, type_only))
    for call in module.nodes("call_expression"):
        callee = call.field("function")
        if callee is None:
            continue
        callee_kind = callee.kind()
        if callee_kind == "import":
            call_kind: ImportKind = "dynamic-import"
        elif callee_kind == "identifier" and callee.text() == "require":
            call_kind = "require"
        else:
            continue
        arguments = call.field("arguments")
        given = arguments.named_children() if arguments is not None else []
        text = _literal(given[0]) if len(given) == 1 else None
        if text is not None:
            found.append(_at(module, call, text, call_kind, False))
    for _, site in sorted(found, key=lambda pair: pair[0]):
        yield site


def package_of(specifier: str) -> str | None:
    """The npm package (or Node built-in) a bare specifier names: `lodash` for
    `lodash/fp`, `@scope/pkg` for `@scope/pkg/sub`, `fs` for `node:fs`; None for a
    relative or absolute path."""
    if specifier.startswith((".", "/")):
        return None
    bare = specifier.removeprefix(_NODE_PREFIX)
    parts = bare.split("/")
    if bare.startswith("@") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def js_imports_module(specifier: str, wanted: str) -> bool:
    """Whether importing `specifier` imports the module `wanted` names: the package
    itself or a path inside it (`lodash/fp` imports `lodash`), `node:fs` and `fs`
    alike, ignoring case; a relative specifier only when written the same."""
    have = specifier.removeprefix(_NODE_PREFIX).lower()
    want = wanted.removeprefix(_NODE_PREFIX).lower()
    return have == want or have.startswith(want + "/")


def _literal(node: SgNode) -> str | None:
    """The text of a string literal, or of a template literal without substitutions."""
    kind = node.kind()
    if kind == "string":
        return "".join(c.text() for c in node.named_children() if c.kind() == "string_fragment")
    if kind == "template_string":
        parts = node.named_children()
        if any(p.kind() != "string_fragment" for p in parts):
            return None
        return "".join(p.text() for p in parts)
    return None


def _at(
    module: JsModule, node: SgNode, specifier: str, kind: ImportKind, type_only: bool
) -> tuple[int, JsImport]:
    span = node.range().start
    site = JsImport(module, specifier, span.line + 1, kind, type_only)
    return span.index, site

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

A browser script loads a library with a `<script src>` tag and reads its global instead
of importing it (`rxjs.operators`, `$(".x")`): `browser_global_reads` finds such reads of
a library's global, a name the module reads but never binds.
"""

from __future__ import annotations

import re
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


#: Libraries whose browser global is not their package's name.
_BROWSER_GLOBALS: Final[dict[str, tuple[str, ...]]] = {
    "jquery": ("jQuery", "$"),
    "lodash": ("_",),
    "underscore": ("_",),
    "react": ("React",),
    "react-dom": ("ReactDOM",),
    "vue": ("Vue",),
    "three": ("THREE",),
    "chart.js": ("Chart",),
    "socket.io-client": ("io",),
    "@tensorflow/tfjs": ("tf",),
}
_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$]*")
#: Nodes whose identifiers below them are bound names (a declaration's pattern, a
#: parameter list, an import clause, a catch parameter).
_BINDERS: Final = (
    "variable_declarator",
    "formal_parameters",
    "import_clause",
    "import_require_clause",
    "catch_clause",
)
_NAMED: Final = (
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "function_expression",
    "class",
)


def browser_globals(package: str) -> tuple[str, ...]:
    """The global a library's browser build defines: `jQuery` and `$` for jquery, the
    package's own name where that is an identifier (`rxjs`, `axios`), else none."""
    known = _BROWSER_GLOBALS.get(package.lower())
    if known is not None:
        return known
    return (package,) if _IDENTIFIER.fullmatch(package) else ()


def browser_global_reads(module: JsModule, names: tuple[str, ...]) -> Iterator[tuple[str, int]]:
    """(name, line) for each read of one of `names` as a global in `module`: called,
    constructed or with a member read (`rxjs.operators`, `$(...)`, `new Vue(...)`), and
    bound nowhere in the module (no declaration, parameter, import or catch of it,
    counted over the whole file, so a local binding anywhere rules the name out)."""
    wanted = set(names)
    if not wanted:
        return
    bound: set[str] = set()
    for binder in module.nodes(*_BINDERS):
        field = _BINDING_FIELD.get(binder.kind())
        target = binder.field(field) if field is not None else binder
        if target is not None:
            bound.update(n.text() for n in module.nodes(*_BOUND_KINDS, within=target))
    for named in module.nodes(*_NAMED):
        name = named.field("name")
        if name is not None:
            bound.add(name.text())
    free = wanted - bound
    if not free:
        return
    for node in module.nodes("identifier"):
        text = node.text()
        if text not in free:
            continue
        parent = node.parent()
        if parent is None:
            continue
        kind = parent.kind()
        read = (
            (kind == "member_expression" and _is_field(parent, "object", node))
            or (kind == "call_expression" and _is_field(parent, "function", node))
            or (kind == "new_expression" and _is_field(parent, "constructor", node))
        )
        if read:
            yield text, module.line_of(node)


#: Where a binder's bound names are (the whole node when not listed): a parameter's
#: default value counts as bound too, which can only rule a global out, never in.
_BINDING_FIELD: Final = {"variable_declarator": "name", "catch_clause": "parameter"}
_BOUND_KINDS: Final = (
    "identifier",
    "shorthand_property_identifier_pattern",
)


def _is_field(parent: SgNode, field: str, node: SgNode) -> bool:
    child = parent.field(field)
    return child is not None and child.range().start.index == node.range().start.index

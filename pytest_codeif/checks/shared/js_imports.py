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

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import Rule, SgNode

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
#: Nodes that bind names, and the field holding them (None: the whole node). A
#: parameter's default value, or a destructuring default, counts as bound too, which can
#: only rule a global out, never in.
_BINDING_FIELD: Final[dict[str, str | None]] = {
    "variable_declarator": "name",
    "formal_parameters": None,
    "import_clause": None,
    "import_require_clause": None,
    "catch_clause": "parameter",
    # `_ => _.id`, `async axios => ...`: the single unparenthesised parameter.
    "arrow_function": "parameter",
    # `for (const axios of clients)`, `for (k in o)`: also without a declaration.
    "for_in_statement": "left",
    "function_declaration": "name",
    "generator_function_declaration": "name",
    "function_expression": "name",
    "generator_function": "name",
    "class_declaration": "name",
    "abstract_class_declaration": "name",
    "class": "name",
    # TypeScript: `enum axios`, `namespace axios` (`a.b`: binds `a`), `module axios`,
    # `declare function axios()`.
    "enum_declaration": "name",
    "internal_module": "name",
    "module": "name",
    "function_signature": "name",
}
#: An assignment defines its target here (`axios = fake`, `({ axios } = deps)`,
#: `axios ??= fake`): the name is then not the library's.
_ASSIGNMENTS: Final = ("assignment_expression", "augmented_assignment_expression")
#: Assignment targets whose identifiers are all assigned names.
_ASSIGNED_KINDS: Final = frozenset(
    {"identifier", "object_pattern", "array_pattern", "parenthesized_expression"}
)
#: Objects a property set on defines a global (`globalThis.axios = ...`, `window.$ = ...`).
_GLOBAL_OBJECTS: Final = frozenset({"globalThis", "window", "self", "global"})
_BOUND_KINDS: Final = (
    "identifier",
    "shorthand_property_identifier_pattern",
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
    bound nowhere in the module (see `bound_names`: counted over the whole file, so a
    local binding anywhere rules the name out).

    Conservative where it cannot know: a name that may be bound counts as bound, since a
    bound name can only make `require` fail. So a module that mentions `eval` (which may
    declare any name) reads no global, and a read inside `with (deps) { ... }` (whose
    object may hold the name) is not counted. Read as the library's still, because no
    reading short of running the code tells them apart: a read guarded by `typeof axios`
    and a read in dead code (`if (false)`)."""
    wanted = set(names)
    if not wanted:
        return
    free = wanted - bound_names(module)
    if not free or module.root.find(any=_EVAL) is not None:
        return
    hidden = _with_bodies(module)
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
        if read and not _inside(hidden, node.range().start.index):
            yield text, module.line_of(node)


def bound_names(module: JsModule) -> set[str]:
    """Every name `module` binds or defines anywhere: declarations, parameters (an
    arrow's bare one too), `for` heads, imports, catch parameters, function, class, enum
    and namespace names, assignments (`axios = fake`, `({ axios } = deps)`) and
    properties set on the global object (`globalThis.axios = ...`, `window.$ = ...`).

    Linear in the module's size: each binding subtree is searched once, and a binding
    subtree inside one already searched (a parameter default holding a function with
    parameters of its own, nested ninety deep) is skipped, its names found already."""
    bound: set[str] = set()
    subtrees: list[tuple[int, int, SgNode]] = []
    for binder in module.nodes(*_BINDING_FIELD, *_ASSIGNMENTS):
        target = _binding_target(binder, bound)
        if target is None:
            continue
        if target.kind() == "identifier" or target.is_leaf():
            bound.add(target.text())  # the common case: no search needed
            continue
        span = target.range()
        subtrees.append((span.start.index, -span.end.index, target))
    reach = -1  # end of the last subtree searched: subtrees nest or are disjoint
    for start, negative_end, target in sorted(subtrees, key=lambda t: (t[0], t[1])):
        if start < reach:
            continue
        reach = -negative_end
        bound.update(n.text() for n in module.nodes(*_BOUND_KINDS, within=target))
    return bound


def _binding_target(binder: SgNode, bound: set[str]) -> SgNode | None:
    """The subtree of `binder` holding the names it binds; a property set on the global
    object is added to `bound` directly (its object is read, not bound)."""
    kind = binder.kind()
    if kind not in _ASSIGNMENTS:
        field = _BINDING_FIELD[kind]
        return binder if field is None else binder.field(field)
    left = binder.field("left")
    if left is None:
        return None
    if left.kind() in _ASSIGNED_KINDS:
        return left
    # `axios.defaults.baseURL = ...` reads the global: only `window.$ = ...` defines one.
    target = left.field("object")
    if target is None or target.kind() != "identifier" or target.text() not in _GLOBAL_OBJECTS:
        return None
    if left.kind() == "member_expression":
        name = left.field("property")
        if name is not None:
            bound.add(name.text())
    elif left.kind() == "subscript_expression":
        index = left.field("index")
        text = _literal(index) if index is not None else None
        if text is not None:
            bound.add(text)
    return None


#: `eval` called directly, indirectly (`(0, eval)(...)`) or as `window.eval`.
_EVAL: Final[list[Rule]] = [
    {"kind": "identifier", "regex": "^eval$"},
    {"kind": "property_identifier", "regex": "^eval$"},
]


def _with_bodies(module: JsModule) -> list[tuple[int, int]]:
    """The (start, end) offsets of the outermost `with` statements' bodies, in order."""
    spans: list[tuple[int, int]] = []
    for statement in module.nodes("with_statement"):
        body = statement.field("body")
        if body is None:
            continue
        span = body.range()
        if spans and span.start.index < spans[-1][1]:
            continue  # inside the previous body: document order, nested or disjoint
        spans.append((span.start.index, span.end.index))
    return spans


def _inside(spans: list[tuple[int, int]], index: int) -> bool:
    """Whether offset `index` falls in one of the sorted, disjoint `spans`."""
    at = bisect.bisect_right(spans, (index, float("inf"))) - 1
    return at >= 0 and spans[at][0] <= index < spans[at][1]


def _is_field(parent: SgNode, field: str, node: SgNode) -> bool:
    child = parent.field(field)
    return child is not None and child.range().start.index == node.range().start.index

"""Call sites of JavaScript and TypeScript code, named as the `calls` check names
Python's: each with the dotted names it may be a call of and the method it calls.

A callee is named through the module's imports (`JsNames.qualified`): `fs.readFileSync`
for `import fs from "node:fs"; fs.readFileSync(p)` or `const { readFileSync } =
require("fs"); readFileSync(p)`, renamed or not, so renaming an import neither hides
nor fakes a call. A callee not imported is named as written when it is a chain of
names (`eval`, `console.log`, `JSON.parse`, `Math.random`): JavaScript's globals are
never imported. `obj.m(...)` is a call of the method `m` whatever `obj` is; `new X()`
a call of `X`; a decorator (`@Injectable()`, `@Memoize`) a call of what it names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_codeif.checks.shared.js_code import JsNames, literal
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: A value that is no literal.
MISSING: Final = object()
_NUMBER: Final = re.compile(r"^-?\s*(0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?\d+)?)$")


@dataclass(frozen=True)
class JsCallSite:
    """One call: the names it may be a call of, the method it calls (None: no member
    call), and its node (a `call_expression`, `new_expression` or `decorator`)."""

    names: frozenset[str]
    method: str | None
    module: JsModule
    node: SgNode


def _chain(node: SgNode | None) -> str | None:
    """`a.b.c` of a chain of plain names (`this` aside), else None."""
    parts: list[str] = []
    while node is not None:
        kind = node.kind()
        if kind == "identifier":
            return ".".join([node.text(), *reversed(parts)])
        if kind != "member_expression":
            return None
        prop = node.field("property")
        if prop is None or prop.kind() != "property_identifier":
            return None
        parts.append(prop.text())
        node = node.field("object")
    return None


def _site(names: JsNames, module: JsModule, node: SgNode, callee: SgNode | None) -> JsCallSite:
    found: set[str] = set()
    method: str | None = None
    while callee is not None and callee.kind() in (
        "parenthesized_expression",
        "non_null_expression",
    ):
        inner = callee.named_children()
        callee = inner[0] if inner else None
    if callee is not None:
        qualified = names.qualified(callee)
        if qualified is not None:
            found.add(qualified)
        elif (written := _chain(callee)) is not None:
            found.add(written)
        if callee.kind() == "member_expression" and qualified is None:
            prop = callee.field("property")
            method = prop.text() if prop is not None else None
    return JsCallSite(frozenset(found), method, module, node)


def js_call_sites(module: JsModule, within: SgNode | None = None) -> Iterator[JsCallSite]:
    """Every call of `module` (below `within`, when given), in document order."""
    names = JsNames(module)
    for node in module.nodes("call_expression", "new_expression", "decorator", within=within):
        kind = node.kind()
        if kind == "call_expression":
            callee = node.field("function")
            if callee is not None and callee.kind() == "import":
                continue  # a dynamic import(): the `imports` check's
        elif kind == "new_expression":
            callee = node.field("constructor")
        else:
            inner = node.named_children()
            if not inner or inner[0].kind() == "call_expression":
                continue  # `@Dec()`: the call inside is the site
            callee = inner[0]
        yield _site(names, module, node, callee)


def arguments_of(site: JsCallSite) -> list[SgNode] | None:
    """The call's arguments in order (None: a decorator without a call)."""
    if site.node.kind() == "decorator":
        return None
    given = site.node.field("arguments")
    return given.named_children() if given is not None else []


def js_literal(node: SgNode) -> Any:
    """The value of a literal argument (a string, a number, `true`/`false`/`null`, a
    negated number), else MISSING."""
    text = literal(node)
    if text is not None:
        return text
    kind = node.kind()
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "null":
        return None
    if kind == "unary_expression":
        inner = node.named_children()
        if len(inner) == 1 and node.text().lstrip().startswith("-"):
            value = js_literal(inner[0])
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return -value
        return MISSING
    if kind == "number" and _NUMBER.match(node.text()):
        written = node.text().replace("_", "")
        try:
            if written.lower().startswith(("0x", "-0x")):
                return int(written, 16)
            value = json.loads(written) if "." not in written[:1] else float(written)
        except ValueError:
            return MISSING
        return value if isinstance(value, (int, float)) else MISSING
    return MISSING


def constants_of(module: JsModule) -> dict[str, Any]:
    """Names the module declares once with `const` bound to a literal (`const SALT = 32`)."""
    values: dict[str, list[Any]] = {}
    for declarator in module.nodes("variable_declarator"):
        name, value = declarator.field("name"), declarator.field("value")
        if name is None or name.kind() != "identifier":
            continue
        declaration = declarator.parent()
        is_const = declaration is not None and declaration.text().lstrip().startswith("const")
        read = js_literal(value) if value is not None and is_const else MISSING
        values.setdefault(name.text(), []).append(read)
    for assignment in module.nodes("assignment_expression"):
        target = assignment.field("left")
        if target is not None and target.kind() == "identifier":
            values.setdefault(target.text(), []).append(MISSING)
    return {k: v[0] for k, v in values.items() if len(v) == 1 and v[0] is not MISSING}

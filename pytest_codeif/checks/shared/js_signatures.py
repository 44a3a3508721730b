"""The signature of a JavaScript or TypeScript function: its parameters in order (name,
TypeScript annotation, optional, default, rest) and its return annotation, as the
`signature`, `types` and `values` checks read Python's.

A destructured parameter (`{ id, name }`, `[a, b]`) is named as written; TypeScript's
`this` parameter (a type for `this`, no argument) is left out, as Python's `self` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_codeif.checks.shared.js_functions import JsFunction

if TYPE_CHECKING:
    from ast_grep_py import SgNode


@dataclass(frozen=True)
class JsParam:
    """One parameter: `name` as written, its annotation's type node (None: none)."""

    name: str
    annotation: SgNode | None
    optional: bool = False
    default: bool = False
    rest: bool = False
    #: The default value's node (None: none).
    default_value: SgNode | None = None

    @property
    def annotation_text(self) -> str | None:
        return self.annotation.text() if self.annotation is not None else None


def _annotation(node: SgNode) -> SgNode | None:
    """The type of a `type_annotation` child of `node` (the `: T` node's type)."""
    for child in node.named_children():
        if child.kind() == "type_annotation":
            inner = child.named_children()
            return inner[0] if inner else None
    return None


def _param(node: SgNode) -> JsParam | None:
    kind = node.kind()
    if kind in ("required_parameter", "optional_parameter"):
        children = node.named_children()
        pattern = node.field("pattern") or (children[0] if children else None)
        if pattern is None or pattern.kind() == "this":
            return None
        inner = _param(pattern) or JsParam(pattern.text(), None)
        return JsParam(
            inner.name,
            _annotation(node),
            optional=kind == "optional_parameter" or node.field("value") is not None,
            default=node.field("value") is not None,
            rest=inner.rest,
            default_value=node.field("value"),
        )
    if kind == "assignment_pattern":
        left = node.field("left")
        name = left.text() if left is not None else node.text()
        return JsParam(name, None, optional=True, default=True, default_value=node.field("right"))
    if kind == "rest_pattern":
        named = node.named_children()
        return JsParam(named[0].text() if named else "", None, optional=True, rest=True)
    if kind in ("identifier", "object_pattern", "array_pattern"):
        return JsParam(node.text(), None)
    return None


def js_params(function: JsFunction) -> list[JsParam]:
    """`function`'s parameters in order (`x => x` has one)."""
    node = function.node
    single = node.field("parameter")
    if single is not None:
        return [JsParam(single.text(), None)]
    params = node.field("parameters")
    if params is None:
        return []
    found = [_param(child) for child in params.named_children()]
    return [p for p in found if p is not None]


def js_returns(function: JsFunction) -> SgNode | None:
    """The type node of `function`'s return annotation (None: none)."""
    node = function.node.field("return_type")
    if node is None:
        return None
    if node.kind() == "type_annotation":
        inner = node.named_children()
        return inner[0] if inner else None
    return node

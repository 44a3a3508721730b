"""TypeScript types compared by meaning, with a task's types written the TypeScript way
(`number[]`, `Map<string, number>`) or the Python way (`list[int]`, `dict[str, int]`).

Both are read into one small tree of kinds: `number` (TypeScript's `number`, `bigint`;
Python's `int`, `float`), `string`, `boolean`, `null` (`null`, `undefined`, `void`;
Python's `None`), `list` (`T[]`, `Array<T>`, `ReadonlyArray<T>`), `tuple` (`[A, B]`),
`dict` (`Record<K, V>`, `Map<K, V>`, `{ [k: K]: V }`, `object`), `set` (`Set<T>`),
`any` (`any`, `unknown`), and any other name as itself (a class, an interface, `T`).
`Promise<T>` is `T` for a return (an async function returns what it resolves to) only
when the task's type is no promise. A union is its members in any order. A bare generic
in the task accepts any arguments: `Map` accepts `Map<string, number>`, `list` accepts
`string[]`; `dict` accepts a `Map` and a `Record` alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

import libcst as cst

if TYPE_CHECKING:
    from ast_grep_py import SgNode

_NAMES: Final = {
    "number": "number",
    "bigint": "number",
    "int": "number",
    "float": "number",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "null": "null",
    "undefined": "null",
    "void": "null",
    "None": "null",
    "any": "any",
    "unknown": "any",
    "Any": "any",
    "object": "dict",
    "Object": "dict",
    "dict": "dict",
    "Dict": "dict",
    "Record": "dict",
    "Map": "dict",
    "ReadonlyMap": "dict",
    "Mapping": "dict",
    "list": "list",
    "List": "list",
    "Array": "list",
    "ReadonlyArray": "list",
    "Sequence": "list",
    "tuple": "tuple",
    "Tuple": "tuple",
    "set": "set",
    "Set": "set",
    "ReadonlySet": "set",
    "frozenset": "set",
    "Promise": "Promise",
    "Optional": "Optional",
    "Union": "Union",
}
#: Words that only TypeScript spells: a task's type holding one is read as TypeScript.
_TS_WORDS: Final = ("number", "string", "boolean", "undefined", "void", "unknown", "bigint")


@dataclass(frozen=True)
class TsType:
    """A type's kind and arguments; `|` is a union of its arguments."""

    kind: str
    args: tuple[TsType, ...] = ()

    def __str__(self) -> str:
        if self.kind == "|":
            return " | ".join(map(str, self.args))
        return self.kind + (f"[{', '.join(map(str, self.args))}]" if self.args else "")


def _union(members: list[TsType]) -> TsType:
    flat: list[TsType] = []
    for member in members:
        for one in member.args if member.kind == "|" else (member,):
            if one not in flat:
                flat.append(one)
    if len(flat) == 1:
        return flat[0]
    return TsType("|", tuple(sorted(flat, key=str)))


def _named(name: str, args: list[TsType]) -> TsType:
    kind = _NAMES.get(name.rsplit(".", 1)[-1], name)
    if kind == "Optional":
        return _union([*args, TsType("null")])
    if kind == "Union":
        return _union(args)
    if kind == "dict" and len(args) == 2 and name in ("Map", "ReadonlyMap", "Record"):
        return TsType("dict", tuple(args))
    return TsType(kind, tuple(args))


def from_node(node: SgNode) -> TsType:
    """The type a TypeScript type node spells."""
    kind = node.kind()
    children = node.named_children()
    if kind in ("predefined_type", "type_identifier", "identifier"):
        return _named(node.text(), [])
    if kind == "nested_type_identifier":
        return _named(node.text(), [])
    if kind == "literal_type":
        inner = children[0].kind() if children else ""
        if inner in ("null", "undefined"):
            return TsType("null")
        return TsType({"string": "string", "number": "number"}.get(inner, "boolean"))
    if kind == "generic_type":
        name = node.field("name") or (children[0] if children else None)
        arguments = next((c for c in children if c.kind() == "type_arguments"), None)
        args = [from_node(a) for a in arguments.named_children()] if arguments else []
        return _named(name.text() if name is not None else "", args)
    if kind == "array_type":
        return TsType("list", tuple(from_node(c) for c in children[:1]))
    if kind == "tuple_type":
        return TsType("tuple", tuple(from_node(c) for c in children))
    if kind == "union_type":
        return _union([from_node(c) for c in children])
    if kind in ("parenthesized_type", "readonly_type", "optional_type", "type_annotation"):
        return from_node(children[0]) if children else TsType("any")
    if kind == "object_type":
        index = next((c for c in children if c.kind() == "index_signature"), None)
        if index is not None and len(children) == 1:
            types = [c for c in index.named_children() if c.kind() == "type_annotation"]
            key = [c for c in index.named_children() if c.kind() in ("predefined_type",)]
            value = from_node(types[-1]) if types else TsType("any")
            return TsType("dict", (from_node(key[0]) if key else TsType("string"), value))
        return TsType("dict")
    if kind == "function_type":
        return TsType("function")
    return TsType(node.text())


def _from_python(node: cst.BaseExpression) -> TsType:
    if isinstance(node, cst.Name):
        return _named(node.value, [])
    if isinstance(node, cst.Attribute):
        return _named(node.attr.value, [])
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _union([_from_python(node.left), _from_python(node.right)])
    if isinstance(node, cst.Subscript) and isinstance(node.value, (cst.Name, cst.Attribute)):
        head = node.value.value if isinstance(node.value, cst.Name) else node.value.attr.value
        args = [
            _from_python(e.slice.value)
            for e in node.slice
            if isinstance(e.slice, cst.Index) and e.slice.value is not None
        ]
        return _named(head, [a for a in args if a.kind != "..."])
    if isinstance(node, cst.Ellipsis):
        return TsType("...")
    if isinstance(node, cst.SimpleString):
        return TsType(node.evaluated_value if isinstance(node.evaluated_value, str) else "?")
    return TsType(cst.Module([]).code_for_node(node))


@cache
def from_text(text: str) -> TsType:
    """The type a task writes, TypeScript's way (`number[]`, `Map<K, V>`) or Python's
    (`list[int]`); raises ValueError for text that is neither."""
    text = text.strip()
    typescript = any(mark in text for mark in ("<", "[]", "{", "=>")) or any(
        word in text.replace("|", " ").replace(",", " ").replace("[", " ").split()
        for word in _TS_WORDS
    )
    if not typescript:
        try:
            return _from_python(cst.parse_expression(text))
        except cst.ParserSyntaxError:
            pass
    from ast_grep_py import SgRoot  # noqa: PLC0415 - loaded with the first JS/TS parse

    root = SgRoot(f"let x: {text};", "typescript").root()
    annotation = root.find(kind="type_annotation")
    if annotation is None or root.find(kind="ERROR") is not None:
        raise ValueError(f"`{text}` is no type")
    return from_node(annotation)


def matches(actual: TsType, expected: TsType, *, returned: bool = False) -> bool:
    """Whether `actual` (the code's) is `expected` (the task's); see the module doc."""
    if returned and actual.kind == "Promise" and expected.kind != "Promise":
        actual = actual.args[0] if actual.args else TsType("any")
    if expected.kind == "|" or actual.kind == "|":
        wanted = expected.args if expected.kind == "|" else (expected,)
        got = actual.args if actual.kind == "|" else (actual,)
        return len(wanted) == len(got) and all(any(matches(g, w) for g in got) for w in wanted)
    if actual.kind != expected.kind:
        return False
    if not expected.args:
        return True
    if expected.kind == "dict" and len(expected.args) == 2 and not actual.args:
        return False
    return len(actual.args) == len(expected.args) and all(
        matches(a, e) for a, e in zip(actual.args, expected.args, strict=True)
    )


#: A Python type (as `values`/`types` judge observed values) for each kind.
PYTHON_OF: Final = {
    "number": "float",
    "string": "str",
    "boolean": "bool",
    "null": "None",
    "list": "list",
    "tuple": "list",
    "dict": "dict",
    "set": "set",
}

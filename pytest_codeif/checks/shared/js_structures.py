"""Where JavaScript and TypeScript code uses the data structure the `data-structure`
check names: the check's Python names read the language's way, and the names with no
meaning in it (asked of JS/TS code, a located task error, never a pass).

The mapping:

- `list` (`array`, `stack`): an array literal, `new Array()`, `Array(n)`,
  `Array.from`/`Array.of`, an annotation `T[]` / `Array<T>`; `append` is `push`;
- `dict` (`map`, `hashmap`, `dictionary`): a `Map` (`new Map()`, `Map<K, V>`), or an
  object used as a dict: `{}` or `Object.create(null)` filled by computed key
  (`counts[word] = ...`), or annotated `Record<K, V>` / `{ [key: K]: V }`; `items` is
  `entries`, `pop` is `delete`, `setdefault` has no counterpart;
- `set`: a `Set`; `remove`/`discard` are `delete`;
- `tuple`: a TypeScript tuple type (`[number, string]`), TypeScript's alone;
- `bytearray`: a `Uint8Array`; `namedtuple`: a class used as a record (fields and
  a constructor, no other methods), or a TypeScript `interface` / object `type`;
- the language's own names, exactly as written: `Map`, `Set`, `WeakMap`, `WeakSet`,
  `Array`, the typed arrays (`Uint8Array`, `Float64Array`..., or `TypedArray` for any);
- no meaning: `frozenset`, `deque`, `defaultdict`, `Counter`, `OrderedDict`,
  `ChainMap`, `heapq`, `queue.Queue`, `queue.PriorityQueue` (JavaScript has none
  built in: ask for the array, Map or class the code should use).

A structure is bound to a variable (`const q = []`), a class field (`items = new
Map()`) or `this.x = ...`; an operation counts when it is called on one so bound. A
size bound counts when the code compares a `.length` or `.size` with an integer of at
most the bound (a literal or a `const`), or anything with the bound itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_calls import MISSING, constants_of, js_literal
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

TYPED_ARRAYS: Final = frozenset(
    {
        "Int8Array",
        "Uint8Array",
        "Uint8ClampedArray",
        "Int16Array",
        "Uint16Array",
        "Int32Array",
        "Uint32Array",
        "Float32Array",
        "Float64Array",
        "BigInt64Array",
        "BigUint64Array",
    }
)
#: The language's own names, matched as written.
JS_NAMES: Final = frozenset({"Map", "Set", "WeakMap", "WeakSet", "Array", *TYPED_ARRAYS})
#: Canonical Python names (data_structure.canonical) -> the JS classes that are them.
_CLASSES: Final = {
    "list": frozenset({"Array"}),
    "dict": frozenset({"Map"}),
    "set": frozenset({"Set"}),
    "bytearray": frozenset({"Uint8Array"}),
    "typed-array": TYPED_ARRAYS,
    "typedarray": TYPED_ARRAYS,
}
NO_JS_MEANING: Final = frozenset(
    {
        "frozenset",
        "collections.deque",
        "collections.defaultdict",
        "collections.Counter",
        "collections.OrderedDict",
        "collections.ChainMap",
        "heapq",
        "queue.Queue",
        "queue.PriorityQueue",
    }
)
#: (kind, Python operation) -> the JS methods that are it.
SYNONYMS: Final = {
    ("list", "append"): ("push",),
    ("list", "push"): ("push",),
    ("list", "popleft"): ("shift",),
    ("list", "appendleft"): ("unshift",),
    ("dict", "items"): ("entries",),
    ("dict", "pop"): ("delete",),
    ("dict", "__setitem__"): ("set",),
    ("set", "remove"): ("delete",),
    ("set", "discard"): ("delete",),
}


@dataclass(frozen=True)
class JsUse:
    """One place the structure appears, and what it is bound to (None: nothing)."""

    module: JsModule
    node: SgNode
    binding: str | None


def js_meaning(kind: str, wanted: str, language: str) -> str | None:
    """Why the structure means nothing in `language` code (None: it has a meaning)."""
    if kind in NO_JS_MEANING:
        return (
            f"`{wanted}` has no meaning in {language} code (none is built in): ask for the "
            "array, Map, Set or class the code should use"
        )
    if kind == "tuple" and language == "javascript":
        return "`tuple` has no meaning in javascript code (TypeScript has tuple types)"
    return None


def classes_of(kind: str, wanted: str) -> frozenset[str]:
    """The JS classes that are the structure: the name as written when it is one of the
    language's own, else those of its canonical Python name."""
    if wanted in JS_NAMES:
        return frozenset({wanted})
    return _CLASSES.get(kind, _CLASSES.get(wanted.lower(), frozenset()))


def _binding(node: SgNode) -> str | None:
    """What a value is bound to: `x` of `const x = v`, `this.x` of `this.x = v` or of a
    class field `x = v`."""
    parent = node.parent()
    while parent is not None and parent.kind() in (
        "parenthesized_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
    ):
        parent = parent.parent()
    if parent is None:
        return None
    kind = parent.kind()
    if kind == "variable_declarator":
        name = parent.field("name")
        return name.text() if name is not None and name.kind() == "identifier" else None
    if kind == "assignment_expression":
        left = parent.field("left")
        return _target(left)
    if kind in ("public_field_definition", "field_definition"):
        name = parent.field("name") or parent.field("property")
        return f"this.{name.text()}" if name is not None else None
    return None


def _target(node: SgNode | None) -> str | None:
    if node is None:
        return None
    if node.kind() == "identifier":
        return node.text()
    if node.kind() == "member_expression":
        obj, prop = node.field("object"), node.field("property")
        if obj is not None and obj.kind() == "this" and prop is not None:
            return f"this.{prop.text()}"
    return None


def _annotated(module: JsModule, classes: frozenset[str], kind: str) -> Iterator[JsUse]:
    for annotation in module.nodes("type_annotation"):
        inner = annotation.named_children()
        if not inner:
            continue
        node = inner[0]
        while node.kind() in ("union_type", "readonly_type", "parenthesized_type"):
            children = node.named_children()
            if not children:
                break
            node = children[0]
        named = node.kind() == "generic_type" and (node.field("name") or node).text().split("<")[0]
        hit = (
            (node.kind() == "type_identifier" and node.text() in classes)
            or (named and named in classes)
            or (kind == "list" and node.kind() == "array_type")
            or (kind == "tuple" and node.kind() == "tuple_type")
            or (kind == "dict" and named == "Record")
            or (kind == "dict" and node.kind() == "object_type" and _index_only(node))
        )
        if hit:
            parent = annotation.parent()
            name = parent.field("name") or parent.field("pattern") if parent is not None else None
            yield JsUse(module, annotation, _target(name) if name is not None else None)


def _index_only(node: SgNode) -> bool:
    children = node.named_children()
    return len(children) == 1 and children[0].kind() == "index_signature"


def _constructed(module: JsModule, classes: frozenset[str]) -> Iterator[JsUse]:
    for node in module.nodes("new_expression", "call_expression"):
        callee = node.field("constructor" if node.kind() == "new_expression" else "function")
        if callee is None:
            continue
        name = callee.text()
        if node.kind() == "call_expression" and callee.kind() == "member_expression":
            obj, prop = callee.field("object"), callee.field("property")
            if obj is None or prop is None or prop.text() not in ("from", "of"):
                continue
            name = obj.text()
        elif node.kind() == "call_expression" and name != "Array":
            continue
        if name in classes:
            yield JsUse(module, node, _binding(node))
    for node in module.nodes("class_declaration", "class"):
        heritage = next((c for c in node.named_children() if c.kind() == "class_heritage"), None)
        if heritage is not None and any(
            c.text() in classes for c in module.nodes("identifier", within=heritage)
        ):
            yield JsUse(module, node, None)


def _filled_by_key(module: JsModule) -> set[str]:
    """Variables (and `this.x`) assigned through a computed key: `x[k] = v`, `x[k] += 1`."""
    filled: set[str] = set()
    for node in module.nodes("assignment_expression", "augmented_assignment_expression"):
        left = node.field("left")
        if left is None or left.kind() != "subscript_expression":
            continue
        index = left.field("index")
        if index is not None and index.kind() in ("number",):
            continue  # a position, not a key
        target = _target(left.field("object"))
        if target is not None:
            filled.add(target)
    return filled


def _records(module: JsModule) -> Iterator[JsUse]:
    """Classes used as records (fields and a constructor, no other method) and
    TypeScript interfaces and object types."""
    for node in module.nodes("interface_declaration"):
        yield JsUse(module, node, None)
    for node in module.nodes("type_alias_declaration"):
        value = node.field("value")
        if value is not None and value.kind() == "object_type":
            yield JsUse(module, node, None)
    for node in module.nodes("class_declaration", "class"):
        body = node.field("body")
        if body is None:
            continue
        methods = [c for c in body.named_children() if c.kind() == "method_definition"]
        names = [(m.field("name") or m).text() for m in methods]
        fields = [
            c
            for c in body.named_children()
            if c.kind() in ("public_field_definition", "field_definition")
        ]
        assigned = [
            n
            for m in methods
            for n in module.nodes("assignment_expression", within=m)
            if (_target(n.field("left")) or "").startswith("this.")
        ]
        if all(n == "constructor" for n in names) and (fields or assigned):
            yield JsUse(module, node, None)


def js_uses(module: JsModule, kind: str, wanted: str) -> list[JsUse]:
    """Where `module` uses the structure (see the module doc)."""
    if kind == "collections.namedtuple" or wanted.lower() in ("record", "namedtuple"):
        return list(_records(module))
    classes = classes_of(kind, wanted)
    found = [*_constructed(module, classes), *_annotated(module, classes, kind)]
    if kind == "list" and wanted not in JS_NAMES:
        found += [JsUse(module, n, _binding(n)) for n in module.nodes("array")]
    if kind == "dict" and wanted not in JS_NAMES:
        filled = _filled_by_key(module)
        for node in module.nodes("object", "call_expression"):
            callee = node.field("function") if node.kind() == "call_expression" else None
            if node.kind() == "call_expression" and (
                callee is None or callee.text() != "Object.create"
            ):
                continue
            binding = _binding(node)
            if binding is not None and binding in filled:
                found.append(JsUse(module, node, binding))
    found.sort(key=lambda u: u.node.range().start.index)
    return found


def _object_create(call: SgNode) -> bool:
    callee = call.field("function")
    return callee is not None and callee.text() == "Object.create"


def operation_used(module: JsModule, kind: str, op: str, bound: set[str]) -> bool:
    """Whether `op` (or its JS name) is called on a variable bound to the structure."""
    names = {op, *SYNONYMS.get((kind, op), ())}
    for call in module.nodes("call_expression"):
        callee = call.field("function")
        if callee is None or callee.kind() != "member_expression":
            continue
        prop = callee.field("property")
        if prop is None or prop.text() not in names:
            continue
        if _target(callee.field("object")) in bound:
            return True
    return False


def bounded(module: JsModule, limit: int) -> bool:
    """Whether the code compares a `.length`/`.size` with an integer of at most `limit`,
    or anything with `limit` itself."""
    constants = constants_of(module)
    for node in module.nodes("binary_expression"):
        operator = node.field("operator")
        if operator is None or operator.text() not in ("<", "<=", ">", ">=", "===", "=="):
            continue
        left, right = node.field("left"), node.field("right")
        if left is None or right is None:
            continue
        for side, other in ((left, right), (right, left)):
            value = _int(other, constants)
            if value is None:
                continue
            if value == limit:
                return True
            measured = side.kind() == "member_expression" and (
                (side.field("property") or side).text() in ("length", "size")
            )
            if measured and value <= limit:
                return True
    return False


def _int(node: SgNode, constants: dict[str, object]) -> int | None:
    value = js_literal(node)
    if value is MISSING and node.kind() == "identifier":
        value = constants.get(node.text(), MISSING)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if float(value).is_integer() else None

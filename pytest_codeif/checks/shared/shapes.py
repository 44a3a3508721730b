"""Shapes as types: graph, matrix, tree, JSON text and date/time text, judged from an
annotation, from an observed value, or from a class the code defines.

A shape is what an instruction names when no builtin type says it ("takes a graph",
"returns a matrix"). Python has many spellings of each, so a shape is a set of readings:

- `graph`: an adjacency mapping (`dict[K, list[K]]`, `dict[K, set[K]]`, weighted
  `dict[K, dict[K, float]]`), an edge list (`list[tuple[K, K]]`, with a weight as a third
  item), an indexed adjacency list or adjacency matrix (`list[list[int]]`), a networkx
  graph, or a class of the code whose name says Graph;
- `matrix`: a list of equal-length lists of scalars (`list[list[float]]`), a numpy array;
- `tree`: a node class of the code (attributes `children`, or `left` and `right`), or
  nested dicts (a dict holding dicts, or `children` lists of dicts);
- `json-text`: a str that parses as a JSON object or array;
- `datetime-text`: a str that `datetime.fromisoformat`, `date.fromisoformat` or
  `time.fromisoformat` reads (ISO 8601: `2024-05-01`, `2024-05-01T10:00:00+02:00`, `10:30`).

An annotation either proves a shape (`dict[str, list[str]]` is a graph), admits it without
proving it (`dict` may hold a graph, `str` may hold JSON), or rules it out (`int`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date, datetime, time
from enum import Enum
from typing import Any, Final

import libcst as cst

#: Every shape name, as written in `types` and `values`.
SHAPES: Final = ("graph", "matrix", "tree", "json-text", "datetime-text")
_SCALARS: Final = frozenset({"int", "float", "str", "bool", "complex", "bytes", "Any", "object"})
_NUMPY: Final = frozenset(
    {"np.ndarray", "numpy.ndarray", "NDArray", "npt.NDArray", "numpy.typing.NDArray"}
)
_NETWORKX: Final = frozenset(
    f"{m}.{c}" for m in ("nx", "networkx") for c in ("Graph", "DiGraph", "MultiGraph")
)
#: A JSON or date text longer than this is not parsed (a hostile value could be huge).
MAX_TEXT: Final = 1_000_000


class Reading(Enum):
    """What an annotation says about a shape."""

    PROVES = "proves"
    ADMITS = "admits"
    EXCLUDES = "excludes"


def is_shape(name: str) -> bool:
    """Whether a type written in a task is a shape name rather than an annotation."""
    return name in SHAPES


# --- annotations ------------------------------------------------------------------------


def _split(annotation: str) -> tuple[str, list[str]]:
    """`dict[str, list[str]]` -> ("dict", ["str", "list[str]"]) (top-level items only)."""
    base, bracket, rest = annotation.partition("[")
    if not bracket or not rest.endswith("]"):
        return annotation.strip(), []
    items, depth, current = [], 0, ""
    for char in rest[:-1]:
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
            continue
        depth += char in "[("
        depth -= char in "])"
        current += char
    if current.strip():
        items.append(current.strip())
    return base.strip(), items


def _base(annotation: str) -> str:
    name = _split(annotation)[0]
    for prefix in ("typing.", "collections.abc.", "collections."):
        name = name.removeprefix(prefix)
    return {"List": "list", "Dict": "dict", "Set": "set", "Tuple": "tuple"}.get(name, name)


def _is_sequence(base: str) -> bool:
    return base in ("list", "Sequence", "tuple", "Iterable", "deque")


def _is_mapping(base: str) -> bool:
    return base in ("dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict")


def _graph_annotation(annotation: str) -> Reading:
    base, items = _base(annotation), _split(annotation)[1]
    if annotation in _NETWORKX or "graph" in base.lower():
        return Reading.PROVES
    if _is_mapping(base):
        if len(items) != 2:
            return Reading.ADMITS
        value_base = _base(items[1])
        if (
            _is_sequence(value_base)
            or value_base in ("set", "frozenset")
            or _is_mapping(value_base)
        ):
            return Reading.PROVES
        return Reading.ADMITS if value_base in ("Any", "object") else Reading.EXCLUDES
    if _is_sequence(base):
        if not items:
            return Reading.ADMITS
        inner = _base(items[0])
        # list[tuple[K, K]] edges; list[list[int]] adjacency lists or an adjacency matrix
        return Reading.PROVES if _is_sequence(inner) or inner == "set" else Reading.EXCLUDES
    return Reading.ADMITS if base in ("Any", "object") else Reading.EXCLUDES


def _matrix_annotation(annotation: str) -> Reading:
    base, items = _base(annotation), _split(annotation)[1]
    if _split(annotation)[0] in _NUMPY or annotation in _NUMPY:
        return Reading.PROVES
    if _is_sequence(base):
        if not items:
            return Reading.ADMITS
        inner_base, inner_items = _base(items[0]), _split(items[0])[1]
        if not _is_sequence(inner_base):
            return Reading.ADMITS if inner_base in ("Any", "object") else Reading.EXCLUDES
        if not inner_items or inner_items[0] == "...":
            return Reading.PROVES
        return Reading.PROVES if _base(inner_items[0]) in _SCALARS else Reading.EXCLUDES
    return Reading.ADMITS if base in ("Any", "object") else Reading.EXCLUDES


def _tree_annotation(annotation: str, tree_classes: frozenset[str]) -> Reading:
    members = [m.strip() for m in annotation.split(" | ") if m.strip() != "None"]
    if any(m in tree_classes or "tree" in m.lower() for m in members):
        return Reading.PROVES
    bases = {_base(m) for m in members}
    if bases & {"dict", "Mapping", "Any", "object"}:
        return Reading.ADMITS  # nested dicts are a tree's plain-data form
    return Reading.EXCLUDES


def _text_annotation(annotation: str, shape: str) -> Reading:
    members = {_base(m) for m in annotation.split(" | ") if m.strip() != "None"}
    dated = {m.removeprefix("datetime.") for m in members}
    if shape == "datetime-text" and dated & {"datetime", "date", "time"}:
        return Reading.PROVES  # a date object is the strongest form of a date
    return Reading.ADMITS if members & {"str", "Any", "object"} else Reading.EXCLUDES


def read_annotation(
    annotation: str, shape: str, tree_classes: frozenset[str] = frozenset()
) -> Reading:
    """What normalized `annotation` says about `shape`; `tree_classes` are the code's
    tree node classes (see `tree_classes`)."""
    if shape == "graph":
        return _graph_annotation(annotation)
    if shape == "matrix":
        return _matrix_annotation(annotation)
    if shape == "tree":
        return _tree_annotation(annotation, tree_classes)
    return _text_annotation(annotation, shape)


def tree_classes(classes: Iterable[cst.ClassDef]) -> frozenset[str]:
    """Names of classes that are tree nodes: they set `self.children`, or both
    `self.left` and `self.right`."""
    found = set()
    for node in classes:
        attributes = {
            target.attr.value for target in _self_targets(node) if isinstance(target, cst.Attribute)
        }
        attributes |= {
            stmt.target.value
            for line in node.body.body
            if isinstance(line, cst.SimpleStatementLine)
            for stmt in line.body
            if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name)
        }
        if "children" in attributes or {"left", "right"} <= attributes:
            found.add(node.name.value)
    return frozenset(found)


def _self_targets(node: cst.ClassDef) -> Iterable[cst.BaseExpression]:
    for function in node.body.body:
        if not isinstance(function, cst.FunctionDef):
            continue
        for line in function.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for stmt in line.body:
                if isinstance(stmt, cst.Assign):
                    yield from (t.target for t in stmt.targets)
                elif isinstance(stmt, cst.AnnAssign):
                    yield stmt.target


# --- values ------------------------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return value is None or type(value) in (int, float, str, bool)


def _graph_value(value: Any) -> bool | None:
    if isinstance(value, Mapping):
        if not value:
            return None  # the empty graph: says nothing
        neighbours = list(value.values())
        if not all(isinstance(n, (list, tuple, Mapping)) for n in neighbours):
            return False
        return all(
            all(_scalar(k) for k in n) if isinstance(n, Mapping) else all(map(_node_ref, n))
            for n in neighbours
        )
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        if _matrix_value(value) and len(value) == len(value[0]):
            return True  # a square adjacency matrix
        edge = all(
            isinstance(e, (list, tuple)) and len(e) in (2, 3) and _scalar(e[0]) and _scalar(e[1])
            for e in value
        )
        indexed = all(
            isinstance(e, (list, tuple)) and all(type(x) is int for x in e) for e in value
        )
        return edge or indexed
    return False


def _node_ref(item: Any) -> bool:
    """A neighbour: a node, or a (node, weight) pair."""
    if isinstance(item, (list, tuple)):
        return len(item) == 2 and _scalar(item[0]) and type(item[1]) in (int, float)
    return _scalar(item)


def _matrix_value(value: Any) -> bool:
    if not isinstance(value, (list, tuple)) or not value:
        return False
    rows = [r for r in value if isinstance(r, (list, tuple))]
    if len(rows) != len(value) or not rows[0]:
        return False
    width = len(rows[0])
    return all(len(r) == width and all(_scalar(x) for x in r) for r in rows)


def _tree_value(value: Any, classes: frozenset[str]) -> bool | None:
    what = getattr(value, "what", None)  # an object the harness could not send
    if isinstance(what, str):
        return what.rpartition(".")[2] in classes or None
    if isinstance(value, Mapping):
        children = value.get("children")
        if isinstance(children, list):
            return all(isinstance(c, Mapping) for c in children)
        if "left" in value and "right" in value:
            return True
        return any(isinstance(v, Mapping) for v in value.values()) or None
    return False if value is not None else None


def _json_text(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        return False
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return False
    return isinstance(parsed, (dict, list))


def _datetime_text(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > 64:
        return False
    text = value.strip()
    for parse in (datetime.fromisoformat, date.fromisoformat, time.fromisoformat):
        try:
            parse(text)
        except ValueError:
            continue
        return True
    return False


def value_has_shape(value: Any, shape: str, classes: frozenset[str] = frozenset()) -> bool | None:
    """Whether a value (decoded, or a task's argument) has `shape`: True, False, or None
    when the value says nothing (an empty graph, an object of an unknown class)."""
    if shape == "graph":
        return _graph_value(value)
    if shape == "matrix":
        if isinstance(value, (list, tuple)) and not value:
            return None
        return _matrix_value(value)
    if shape == "tree":
        return _tree_value(value, classes)
    if shape == "json-text":
        return _json_text(value)
    return _datetime_text(value)


def describe(value: Any) -> str:
    """A few words on what a value is, for messages (`a dict of 3 entries`)."""
    if isinstance(value, Mapping):
        return f"a dict of {len(value)} entries"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, str):
        return f"a str of {len(value)} characters"
    what = getattr(value, "what", None)
    return f"a {what}" if isinstance(what, str) else f"a {type(value).__name__}"


def type_name(value: Any) -> str:
    """The spec's name for a decoded value's type (sets decode as lists marked unordered)."""
    if value is None:
        return "none"
    if type(value).__name__ == "_FrozenList":
        return "set"
    return type(value).__name__

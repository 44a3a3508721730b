"""Infer a growing-input generator from a task's call cases, in the trusted process.

As BigO(Bench) (Chambon et al., 2025) does, complexity is measured by expanding inputs
the task already gives: the largest call case that returned is the template, and every
size-like quantity in it grows by the same factor n / base, where base is the template's
largest size (so n is the size of its largest argument):

- a list grows to that many elements drawn like the case's (same type, same range, same
  character classes for strings: `alice@example.com` stays an email); sorted or distinct
  when every returned case's list is; a list of equal-length rows is a matrix and grows
  in both dimensions; a list of [u, v] or [u, v, w] pairs over repeated nodes is an edge
  list;
- a dict grows to that many entries (keys like the case's keys, values like its values);
  an adjacency dict (values list the keys) is a graph and keeps the case's average
  degree, symmetric if the case's was; a linked node (`{"value": 1, "next": {...}}`)
  grows into a longer chain;
- a str grows to that many characters from the case's alphabet, except a date or time
  (held) and JSON text (its parsed value grows, and is written back as JSON);
- an int is a size when no argument is a collection or text (`fib(10)`, `is_prime(97)`,
  `count_range(1, 10)`): all such ints grow together, in proportion. Beside a collection,
  an int is a value, held at the case's value (`k` in `top_k(xs, 3)`), unless it occurs in
  the collection: then it is a probe, drawn afresh from the grown collection (`target` in
  `binary_search(xs, 7)`, so a linear scan cannot stop at the front). A str beside a
  collection is held, or a probe when it is one of the collection's elements or keys, or
  a piece of the other text. `hold` and `scale` (parameter names) override the choice.
  Floats, bools and None are always held.

The description is plain JSON, built into values in the sandbox by `input_builder.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, Final

#: Sizes (n) by what n counts: elements of a collection, rows and columns of a matrix,
#: or the value of ints that are sizes (which may be exponential: start small). The
#: ladders are long: steep code stops after the first three sizes or so (the harness's
#: budget), fast code runs them all, and only the largest FIT measured are fitted.
ELEMENT_SIZES: Final = (1000, 2000, 4000, 8000, 16000, 32000, 64000)
SIDE_SIZES: Final = (16, 32, 64, 128, 256)
VALUE_SIZES: Final = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
#: Small sizes cost about the timer's resolution (ints), or fit in the processor's cache
#: where larger ones do not (sorting 1,000 ints runs three times faster per element than
#: sorting 16,000 on a loaded machine): fitting them would bend the slope.
FIT: Final = 5
_SCALABLE: Final = frozenset({"list", "text", "matrix", "dict", "graph", "edges", "chain", "json"})
_MAX_TEMPLATES: Final = 20
#: Parameter names that count things: an int so named is never a probe.
_COUNTS: Final = re.compile(
    r"^(k|n|m|num.*|count.*|size.*|.*_size|limit|max_.*|min_.*|top.*|depth|length|width"
    r"|height|window|steps|times|page.*|.*_count|rounds|iterations)$"
)


class NoTemplate(ValueError):
    """The cases give nothing that can grow; the message says why."""


@dataclass(frozen=True)
class Case:
    """A call case that returned: its label and its literal arguments."""

    label: str
    args: Sequence[Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """A generator description for the builder, the sizes to run, and what it is."""

    description: dict[str, Any]
    sizes: tuple[int, ...]
    words: str
    fit_last: int | None = None


@dataclass
class _Arg:
    """One argument of the template: where it goes, its name, value and description."""

    slot: int | str
    name: str
    value: Any
    spec: dict[str, Any] = field(default_factory=dict)
    size: int = 0
    words: str = ""


# --- element descriptions ---------------------------------------------------------------


def _decimals(value: float) -> int:
    text = repr(value)
    return min(6, len(text.partition(".")[2])) if "e" not in text else 6


def leaf(values: Sequence[Any]) -> dict[str, Any]:
    """A description drawing elements like `values` (all the case's elements)."""
    if not values:
        return {"kind": "const", "value": None}
    kinds = {_kind_of(v) for v in values}
    if len(kinds) > 1:
        groups = [[v for v in values if _kind_of(v) == k] for k in sorted(kinds)]
        return {"kind": "any", "options": [leaf(g) for g in groups]}
    kind = kinds.pop()
    if kind == "bool":
        return {"kind": "bool"}
    if kind == "number":
        return _number_leaf(values)
    if kind == "str":
        distinct = list(dict.fromkeys(values))
        if len(values) >= 2 * len(distinct) or all(len(v) <= 1 for v in distinct):
            return {"kind": "choice", "values": distinct[:_MAX_TEMPLATES]}
        return {"kind": "like", "templates": distinct[:_MAX_TEMPLATES]}
    if kind == "dict":
        return _record_leaf(values)
    if kind == "list":
        return _list_leaf(values)
    return {"kind": "const", "value": values[0]}


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (str, dict, list)):
        return type(value).__name__
    return "other"


def _number_leaf(values: Sequence[Any]) -> dict[str, Any]:
    lo, hi = min(values), max(values)
    if all(type(v) is int for v in values):
        return {"kind": "int", "lo": lo, "hi": hi}
    decimals = max(_decimals(float(v)) for v in values)
    return {"kind": "float", "lo": float(lo), "hi": float(hi), "decimals": decimals}


def _record_leaf(values: Sequence[Any]) -> dict[str, Any]:
    by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for value in values:
        by_keys.setdefault(tuple(value), []).append(value)
    options = [
        {"kind": "record", "fields": {k: leaf([r[k] for r in group]) for k in keys}}
        for keys, group in by_keys.items()
    ]
    return options[0] if len(options) == 1 else {"kind": "any", "options": options}


def _list_leaf(values: Sequence[Any]) -> dict[str, Any]:
    lengths = {len(v) for v in values}
    if len(lengths) == 1 and 0 < next(iter(lengths)) <= 4:
        width = next(iter(lengths))
        return {"kind": "row", "items": [leaf([v[i] for v in values]) for i in range(width)]}
    inner = [x for v in values for x in v]
    return {"kind": "flist", "min": min(lengths), "max": max(lengths), "item": leaf(inner)}


def leaf_words(spec: Mapping[str, Any]) -> str:
    """What an element description draws, in a few words."""
    kind = spec["kind"]
    if kind in ("int", "float"):
        return f"{kind} in [{spec['lo']}, {spec['hi']}]"
    if kind == "choice":
        return "one of " + ", ".join(repr(v) for v in spec["values"][:4])
    if kind == "like":
        return f"str like {spec['templates'][0]!r}"
    if kind == "record":
        return "dict of " + ", ".join(spec["fields"])
    if kind == "row":
        return "[" + ", ".join(leaf_words(i) for i in spec["items"]) + "]"
    if kind == "flist":
        return f"list of {spec['min']}-{spec['max']} {leaf_words(spec['item'])}"
    if kind == "any":
        return " or ".join(leaf_words(o) for o in spec["options"])
    if kind == "const":
        return repr(spec["value"])
    return str(kind)


# --- shapes of arguments ----------------------------------------------------------------


def _is_matrix(value: list[Any]) -> bool:
    if len(value) < 2 or not all(isinstance(r, list) for r in value):
        return False
    width = len(value[0])
    scalar = (int, float, str, bool)
    return width >= 2 and all(
        len(r) == width and all(isinstance(x, scalar) for x in r) for r in value
    )


def _is_edges(value: list[Any]) -> bool:
    if len(value) < 2 or not all(isinstance(e, list) and len(e) in (2, 3) for e in value):
        return False
    ends = [x for e in value for x in e[:2]]
    if len({type(x) for x in ends}) != 1 or not isinstance(ends[0], (int, str)):
        return False
    if any(e[0] == e[1] for e in value) or {x for e in value for x in e} <= {0, 1}:
        return False  # a node linked to itself, or 0/1 cells: a matrix
    return len(set(ends)) < len(ends)  # nodes recur: edges between them


def _graph_keys(value: Mapping[str, Any]) -> str | None:
    """How an adjacency dict names its nodes, or None if `value` is not one."""
    keys = list(value)
    if not keys or not all(isinstance(v, (list, dict)) for v in value.values()):
        return None
    names = {str(k) for k in keys}
    linked = [x for v in value.values() for x in v]
    if not linked or not all(isinstance(x, (int, str)) and str(x) in names for x in linked):
        return None
    if all(isinstance(k, int) for k in keys):
        return "int"
    return _node_style([str(k) for k in keys])


def _chain_link(value: Mapping[str, Any]) -> str | None:
    """The key linking a node to the next (`next`), if `value` is a linked node."""
    for key, inner in value.items():
        if isinstance(inner, dict) and set(inner) == set(value):
            return key
    return None


def _is_datetime(text: str) -> bool:
    for parse in (datetime.fromisoformat, date.fromisoformat, time.fromisoformat):
        try:
            parse(text)
        except ValueError:
            continue
        return True
    return False


def _json_inner(text: str) -> Any:
    if text[:1] not in ("{", "["):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, (dict, list)) and parsed else None


def _amount(size: int, base: int, unit: str) -> str:
    if size == base:
        return f"n {unit}"
    return f"n*{size}/{base} {unit}"


def _describe(value: Any) -> tuple[dict[str, Any], int]:
    """(description, size) of a collection or text argument; size 0: held."""
    if isinstance(value, str):
        inner = _json_inner(value)
        if inner is not None:
            spec, size = _describe(inner)
            return {"kind": "json", "inner": spec}, size
        if not value or _is_datetime(value):
            return {"kind": "const", "value": value}, 0
        alphabet = "".join(sorted(set(value)))
        return {"kind": "text", "size": len(value), "alphabet": alphabet}, len(value)
    if isinstance(value, list) and value:
        if _is_edges(value):
            return _edges(value), len(value)
        if _is_matrix(value):
            cells = [x for row in value for x in row]
            rows, cols = len(value), len(value[0])
            spec = {"kind": "matrix", "rows": rows, "cols": cols, "item": leaf(cells)}
            return spec, max(rows, cols)
        return {"kind": "list", "size": len(value), "item": leaf(value)}, len(value)
    if isinstance(value, dict) and value:
        style = _graph_keys(value)
        if style is not None:
            return _graph(value, style), len(value)
        link = _chain_link(value)
        if link is not None:
            return _chain(value, link)
        keys, values = leaf(list(value)), leaf(list(value.values()))
        return {"kind": "dict", "size": len(value), "key": keys, "value": values}, len(value)
    return {"kind": "const", "value": value}, 0


def _graph(value: Mapping[str, Any], style: str) -> dict[str, Any]:
    links = {str(k): {str(x) for x in v} for k, v in value.items()}
    degree = max(1, round(sum(len(v) for v in links.values()) / len(links)))
    symmetric = all(k in links.get(x, set()) for k, v in links.items() for x in v)
    spec: dict[str, Any] = {
        "kind": "graph",
        "size": len(value),
        "keys": style,
        "degree": degree,
        "symmetric": symmetric,
    }
    weights = [w for v in value.values() if isinstance(v, dict) for w in v.values()]
    if weights:
        spec["weight"] = leaf(weights)
    return spec


def _edges(value: list[Any]) -> dict[str, Any]:
    ends = [x for e in value for x in e[:2]]
    spec: dict[str, Any] = {
        "kind": "edges",
        "size": len(value),
        "keys": "int" if isinstance(ends[0], int) else _node_style([str(x) for x in ends]),
        "ratio": len(set(ends)) / len(value),
    }
    weights = [e[2] for e in value if len(e) == 3]
    if weights:
        spec["weight"] = leaf(weights)
    return spec


def _node_style(names: list[str]) -> str:
    """How node names are written: digits, capital or small letters, or a prefix."""
    if all(t.isdigit() for t in names):
        return "digits"
    if all(t.isalpha() and t.isupper() for t in names):
        return "upper"
    if all(t.isalpha() and t.islower() for t in names):
        return "lower"
    prefix = names[0].rstrip("0123456789")
    return f"prefix:{prefix}" if prefix else "digits"


def _chain(value: Mapping[str, Any], link: str) -> tuple[dict[str, Any], int]:
    nodes: list[Mapping[str, Any]] = []
    node: Any = value
    while isinstance(node, dict):
        nodes.append(node)
        node = node.get(link)
    fields = {k: leaf([n[k] for n in nodes]) for k in value if k != link}
    return {"kind": "chain", "size": len(nodes), "link": link, "fields": fields}, len(nodes)


def _words(spec: Mapping[str, Any], size: int, base: int) -> str:
    kind = spec["kind"]
    if kind == "list":
        extra = {"asc": ", sorted", "desc": ", sorted", "heap": ", a min-heap"}.get(
            spec.get("order") or "", ""
        )
        extra += ", distinct" if spec.get("distinct") else ""
        return f"list of {_amount(size, base, 'elements')}, each {leaf_words(spec['item'])}{extra}"
    if kind == "text":
        return f"str of {_amount(size, base, 'characters')} from {spec['alphabet'][:20]!r}"
    if kind == "matrix":
        rows, cols = spec["rows"], spec["cols"]
        shape = (
            "n x n"
            if rows == cols == base
            else f"{_amount(rows, base, 'rows')} x {_amount(cols, base, 'columns')}"
        )
        return f"{shape} matrix of {leaf_words(spec['item'])}"
    if kind == "dict":
        return (
            f"dict of {_amount(size, base, 'entries')}, keys {leaf_words(spec['key'])}, "
            f"values {leaf_words(spec['value'])}"
        )
    if kind == "graph":
        how = "undirected" if spec["symmetric"] else "directed"
        nodes = _amount(size, base, "nodes")
        return f"{how} adjacency dict of {nodes}, degree about {spec['degree']}"
    if kind == "edges":
        return f"edge list of {_amount(size, base, 'edges')}"
    if kind == "chain":
        return f"linked chain of {_amount(size, base, 'nodes')} (by `{spec['link']}`)"
    if kind == "json":
        return f"JSON text of {_words(spec['inner'], size, base)}"
    if kind == "int":
        return f"int {_amount(abs(spec['size']), base, '').strip()} (case: {spec['size']})"
    if kind == "probe":
        return (
            f"the first node of {spec['source']}"
            if spec["first"]
            else f"drawn from {spec['source']}"
        )
    return f"held at {spec['value']!r}"[:80]


# --- the plan ---------------------------------------------------------------------------


def _arguments(case: Case, names: Sequence[str]) -> list[_Arg]:
    found = [
        _Arg(i, names[i] if i < len(names) else f"argument {i + 1}", v)
        for i, v in enumerate(case.args)
    ]
    found += [_Arg(k, k, v) for k, v in case.kwargs.items()]
    return found


def _probe_source(arg: _Arg, others: list[_Arg]) -> _Arg | None:
    """The grown argument `arg`'s value comes from: one holding it as an element or key,
    or a text holding it as a piece."""
    for other in others:
        if other is arg or other.spec.get("kind") not in _SCALABLE:
            continue
        value = other.value
        if isinstance(value, dict) and (arg.value in value or str(arg.value) in value):
            return other
        if isinstance(value, list) and any(
            arg.value == x for x in value if not isinstance(x, bool)
        ):
            return other
        if isinstance(value, list) and any(
            isinstance(row, list) and arg.value in row for row in value
        ):
            return other
        if isinstance(value, str) and isinstance(arg.value, str) and arg.value in value:
            return other
    return None


def _size(case: Case, names: Sequence[str]) -> int:
    """How large a case is: its largest collection or text; ints only when it has none."""
    values = [a.value for a in _arguments(case, names)]
    sizes = [_describe(v)[1] for v in values if type(v) is not int]
    if any(sizes):
        return max(sizes)
    return max([abs(v) for v in values if type(v) is int] + [0])


def _informative(case: Case) -> int:
    """How many scalars other than None the case's arguments hold (at most 10,000)."""
    count, todo = 0, [*case.args, *case.kwargs.values()]
    while todo and count < 10_000:
        value = todo.pop()
        if isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
        elif value is not None:
            count += 1
    return count


def _is_heap(values: list[Any]) -> bool:
    return all(values[(i - 1) // 2] <= values[i] for i in range(1, len(values)))


def _preconditions(arg: _Arg, cases: Sequence[Case]) -> None:
    """Sorted and distinct lists stay so when every returned case's list at this place is."""
    if arg.spec.get("kind") != "list":
        return
    values = []
    for case in cases:
        if isinstance(arg.slot, int):
            value = case.args[arg.slot] if arg.slot < len(case.args) else None
        else:
            value = case.kwargs.get(arg.slot)
        if isinstance(value, list) and len(value) >= 2:
            values.append(value)
    try:
        if values and all(v == sorted(v) for v in values):
            arg.spec["order"] = "asc"
        elif values and all(v == sorted(v, reverse=True) for v in values):
            arg.spec["order"] = "desc"
        elif values and all(_is_heap(v) for v in values):
            arg.spec["order"] = "heap"  # every case is a binary min-heap (heapq's order)
    except TypeError:  # elements that do not compare
        pass
    hashable = [v for v in values if all(isinstance(x, (int, str, float)) for x in v)]
    if hashable and len(hashable) == len(values) and all(len(set(v)) == len(v) for v in values):
        arg.spec["distinct"] = any(len(v) >= 3 for v in values)


def _roles(args: list[_Arg], hold: frozenset[str], scale: frozenset[str]) -> None:
    """Describe each argument: collections and texts grow; ints and strs grow, are probes
    or are held, by the rules of the module docstring."""
    for arg in args:
        plain = type(arg.value) is int or (
            isinstance(arg.value, str) and not _json_inner(arg.value)
        )
        if arg.name not in hold and not plain:
            arg.spec, arg.size = _describe(arg.value)
    collections = [a for a in args if a.spec.get("kind") in _SCALABLE]
    for arg in args:
        if arg.spec or arg.name in hold or type(arg.value) not in (int, str):
            continue
        if collections and arg.name not in scale:
            counting = type(arg.value) is int and _COUNTS.match(arg.name)
            source = None if counting else _probe_source(arg, collections)
            if source is not None:
                width = len(arg.value) if isinstance(arg.value, str) else 1
                arg.spec = {
                    "kind": "probe",
                    "of": source.slot,
                    "fallback": arg.value,
                    "width": width,
                    "cell": True,
                    "first": source.spec["kind"] == "graph",
                    "source": f"`{source.name}`",
                }
        elif type(arg.value) is int:
            arg.spec, arg.size = {"kind": "int", "size": arg.value}, abs(arg.value)
        else:
            arg.spec, arg.size = _describe(arg.value)
    for arg in args:
        if not arg.spec:
            arg.spec = {"kind": "const", "value": arg.value}


def _ladder(kinds: set[str]) -> tuple[tuple[int, ...], int | None, str]:
    """The sizes to run, how many of the largest to fit, and what n counts."""
    if "matrix" in kinds:
        return SIDE_SIZES, None, "rows and columns"
    if kinds & _SCALABLE:
        return ELEMENT_SIZES, FIT, "elements"
    return VALUE_SIZES, FIT, "the value of the size ints"


def infer(
    cases: Sequence[Case],
    names: Sequence[str] = (),
    *,
    hold: frozenset[str] = frozenset(),
    scale: frozenset[str] = frozenset(),
) -> Plan:
    """The plan growing the largest of `cases` (each a case that returned); `names` are
    the function's parameters (for messages, `hold` and `scale`)."""
    if not cases:
        raise NoTemplate("no call case returned a value, so there is no input to grow")
    cases, odd = _usual(cases)
    # The largest case; of equal ones, the one with the most values that say something
    # (a list of three None is as long as a list of three lists, but shows nothing).
    template = max(cases, key=lambda c: (_size(c, names), _informative(c)))
    if not _informative(template):
        raise NoTemplate(
            f"the cases that returned hold no value to grow but None and empty ones "
            f"(largest: case {template.label})"
        )
    args = _arguments(template, names)
    _roles(args, hold, scale)
    for arg in args:
        _preconditions(arg, cases)
    base = max((a.size for a in args), default=0)
    if base == 0:
        raise NoTemplate(
            f"case {template.label}: no argument can grow (no collection, text or int size)"
        )
    for arg in args:
        arg.words = _words(arg.spec, arg.size, base)
    sizes, fit_last, unit = _ladder({a.spec["kind"] for a in args})
    description = {
        "base": base,
        "args": [_clean(a.spec) for a in args if isinstance(a.slot, int)],
        "kwargs": {str(a.slot): _clean(a.spec) for a in args if isinstance(a.slot, str)},
    }
    shown = "; ".join(f"`{a.name}`: {a.words}" for a in args)
    words = (
        f"inputs grown from case {template.label}: {shown} "
        f"(n counts {unit}: {sizes[0]} to {sizes[-1]})"
    )
    if odd:
        words += f"; not grown from {', '.join(odd)}: argument types unlike most cases'"
    return Plan(description, sizes, words, fit_last)


def _usual(cases: Sequence[Case]) -> tuple[list[Case], list[str]]:
    """The cases passing the argument types most cases pass, and the labels of the rest:
    a case passing another type ("non-list input validation" passing a str) probes error
    handling, not the algorithm, and grown it would time the wrong path. Without a strict
    majority every case is kept (nothing to tell usual from odd)."""

    def signature(case: Case) -> tuple[str, ...]:
        kinds = [_kind_of(v) for v in case.args]
        return (*kinds, *(f"{k}={_kind_of(v)}" for k, v in sorted(case.kwargs.items())))

    signatures = [signature(case) for case in cases]
    counts: dict[tuple[str, ...], int] = {}
    for found in signatures:
        counts[found] = counts.get(found, 0) + 1
    usual, most = max(counts.items(), key=lambda item: item[1])
    if most * 2 <= len(cases):
        return list(cases), []
    kept = [c for c, found in zip(cases, signatures, strict=True) if found == usual]
    odd = [c.label for c, found in zip(cases, signatures, strict=True) if found != usual]
    return kept, odd


def _clean(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The description without the words kept for messages."""
    return {k: v for k, v in spec.items() if k != "source"}

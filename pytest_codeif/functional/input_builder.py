"""Build the inputs of one size from a generator description (see `input_inference.py`).

Runs in the sandbox, loaded by `measure_harness.py` from beside it: the standard library
only, and plain data in (a JSON description), plain data out. Every value comes from
`random`, which the harness seeds with the size, so each run sees the same inputs.

A description scales every size-like quantity of a template case by the same factor,
`n / base`: list and text lengths, dict and graph sizes, matrix rows and columns, ints
that are sizes. Everything else is held at the case's value, or drawn like the case's
elements (same type, same range, same character classes).
"""

from __future__ import annotations

import heapq
import json
import random
import string
from typing import Any

#: Caps on what one description may build, whatever the size: the sandbox's memory
#: limit would stop a larger input anyway, with a less readable error.
MAX_ITEMS = 5_000_000
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)


def scaled(size: int, n: int, base: int) -> int:
    """`size` grown by n / base; a non-empty thing stays non-empty."""
    grown = round(abs(size) * n / base)
    grown = max(1, grown) if size else 0
    return min(grown, MAX_ITEMS) * (-1 if size < 0 else 1)


def leaf(spec: dict[str, Any], rng: random.Random) -> Any:
    """One element drawn like the case's elements."""
    kind = spec["kind"]
    if kind == "const":
        return spec["value"]
    if kind == "int":
        return rng.randint(spec["lo"], spec["hi"])
    if kind == "float":
        return round(rng.uniform(spec["lo"], spec["hi"]), spec["decimals"])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "choice":
        return rng.choice(spec["values"])
    if kind == "like":
        return like(rng.choice(spec["templates"]), rng)
    if kind == "record":
        return {k: leaf(v, rng) for k, v in spec["fields"].items()}
    if kind == "row":
        return [leaf(item, rng) for item in spec["items"]]
    if kind == "flist":
        return [leaf(spec["item"], rng) for _ in range(rng.randint(spec["min"], spec["max"]))]
    if kind == "any":
        return leaf(rng.choice(spec["options"]), rng)
    raise ValueError(f"unknown element kind {kind!r}")


def like(template: str, rng: random.Random) -> str:
    """A string shaped like `template`: each letter or digit replaced by a random one of
    its class, everything else (`@`, `.`, `-`, spaces) kept, so an email stays an email."""
    out = []
    for char in template:
        pool = next((c for c in _CLASSES if char in c), None)
        out.append(rng.choice(pool) if pool else char)
    return "".join(out)


def _distinct(spec: dict[str, Any], count: int, rng: random.Random) -> list[Any]:
    """`count` distinct elements: ints widen their range to hold them; others retry."""
    item = spec["item"]
    if item["kind"] == "int":
        lo, hi = item["lo"], max(item["hi"], item["lo"] + 2 * count)
        return rng.sample(range(lo, hi + 1), count)
    found: dict[str, Any] = {}
    for index in range(count):
        value = leaf(item, rng)
        key = json.dumps(value, sort_keys=True)
        if key in found and isinstance(value, str):
            value = f"{value}{index}"  # the case's pattern allows too few: a suffix
            key = json.dumps(value)
        found.setdefault(key, value)
    return list(found.values())


def _list(spec: dict[str, Any], n: int, base: int, rng: random.Random) -> list[Any]:
    count = scaled(spec["size"], n, base)
    values = (
        _distinct(spec, count, rng)
        if spec.get("distinct")
        else [leaf(spec["item"], rng) for _ in range(count)]
    )
    if spec.get("order") in ("asc", "desc"):
        values.sort(reverse=spec["order"] == "desc")
    elif spec.get("order") == "heap":
        heapq.heapify(values)
    return values


def _keys(style: str, count: int) -> list[Any]:
    """Graph node names in the case's style: ints, digit strings, letters, or a prefix."""
    if style == "int":
        return list(range(count))
    if style == "digits":
        return [str(i) for i in range(count)]
    if style in ("upper", "lower"):
        letters = string.ascii_uppercase if style == "upper" else string.ascii_lowercase
        return [_letters(i, letters) for i in range(count)]
    return [f"{style.removeprefix('prefix:')}{i}" for i in range(count)]


def _letters(index: int, letters: str) -> str:
    """A, B, ..., Z, AA, AB...: the index-th name in spreadsheet-column order."""
    name, rest = letters[index % 26], index // 26
    while rest:
        name, rest = letters[(rest - 1) % 26] + name, (rest - 1) // 26
    return name


def _graph(spec: dict[str, Any], n: int, base: int, rng: random.Random) -> dict[Any, Any]:
    """A graph every node of which the first reaches (a random tree hangs from it, so a
    traversal from the first node sees the whole graph), with random edges added up to
    the case's average degree."""
    count = scaled(spec["size"], n, base)
    keys = _keys(spec["keys"], count)
    links: dict[Any, dict[Any, None]] = {k: {} for k in keys}
    symmetric = spec.get("symmetric")

    def link(a: Any, b: Any) -> None:
        links[a][b] = None
        if symmetric:
            links[b][a] = None

    for index in range(1, count):
        link(keys[rng.randrange(index)], keys[index])
    for _ in range(max(0, spec["degree"] * count // (2 if symmetric else 1) - (count - 1))):
        a, b = keys[rng.randrange(count)], keys[rng.randrange(count)]
        if a != b:
            link(a, b)
    weight = spec.get("weight")
    if weight is not None:
        return {k: {o: leaf(weight, rng) for o in v} for k, v in links.items()}
    return {k: list(v) for k, v in links.items()}


def _edges(spec: dict[str, Any], n: int, base: int, rng: random.Random) -> list[list[Any]]:
    count = scaled(spec["size"], n, base)
    nodes = _keys(spec["keys"], max(2, round(count * spec["ratio"])))
    weight = spec.get("weight")
    edges = []
    for _ in range(count):
        u, v = rng.sample(nodes, 2)
        edges.append([u, v] if weight is None else [u, v, leaf(weight, rng)])
    return edges


def _chain(spec: dict[str, Any], n: int, base: int, rng: random.Random) -> Any:
    node: Any = None
    for _ in range(scaled(spec["size"], n, base)):
        fields = {k: leaf(v, rng) for k, v in spec["fields"].items()}
        node = {**fields, spec["link"]: node}
    return node


def build(spec: dict[str, Any], n: int, base: int, rng: random.Random) -> Any:
    """One argument of size `n`."""
    kind = spec["kind"]
    if kind == "const":
        return spec["value"]
    if kind == "int":
        return scaled(spec["size"], n, base)
    if kind == "list":
        return _list(spec, n, base, rng)
    if kind == "text":
        return "".join(rng.choice(spec["alphabet"]) for _ in range(scaled(spec["size"], n, base)))
    if kind == "matrix":
        rows, cols = scaled(spec["rows"], n, base), scaled(spec["cols"], n, base)
        return [[leaf(spec["item"], rng) for _ in range(cols)] for _ in range(rows)]
    if kind == "dict":
        count = scaled(spec["size"], n, base)
        keys = _distinct({"item": spec["key"]}, count, rng)
        return {k: leaf(spec["value"], rng) for k in keys}
    if kind == "graph":
        return _graph(spec, n, base, rng)
    if kind == "edges":
        return _edges(spec, n, base, rng)
    if kind == "chain":
        return _chain(spec, n, base, rng)
    if kind == "json":
        return json.dumps(build(spec["inner"], n, base, rng))
    raise ValueError(f"unknown argument kind {kind!r}")


def _probe(spec: dict[str, Any], built: Any, rng: random.Random) -> Any:
    """A value drawn from another argument: an element, a key, a piece of a text."""
    if isinstance(built, dict) and built:
        return next(iter(built)) if spec.get("first") else rng.choice(list(built))
    if isinstance(built, str) and built:
        width = min(len(built), max(1, spec.get("width", 1)))
        start = rng.randrange(len(built) - width + 1)
        return built[start : start + width]
    if isinstance(built, list) and built:
        item = rng.choice(built)
        if isinstance(item, list) and item and spec.get("cell"):
            return rng.choice(item)
        return item
    return spec["fallback"]


def inputs(
    description: dict[str, Any], n: int, rng: random.Random
) -> tuple[list[Any], dict[str, Any]]:
    """The positional and keyword arguments of size `n`."""
    base = description["base"]
    args_spec: list[dict[str, Any]] = description["args"]
    kwargs_spec: dict[str, dict[str, Any]] = description["kwargs"]
    args: list[Any] = [None if s["kind"] == "probe" else build(s, n, base, rng) for s in args_spec]
    kwargs = {k: build(s, n, base, rng) for k, s in kwargs_spec.items() if s["kind"] != "probe"}
    for index, spec in enumerate(args_spec):
        if spec["kind"] == "probe":
            source = args[spec["of"]] if isinstance(spec["of"], int) else kwargs.get(spec["of"])
            args[index] = _probe(spec, source, rng)
    for key, spec in kwargs_spec.items():
        if spec["kind"] == "probe":
            source = args[spec["of"]] if isinstance(spec["of"], int) else kwargs.get(spec["of"])
            kwargs[key] = _probe(spec, source, rng)
    return args, kwargs

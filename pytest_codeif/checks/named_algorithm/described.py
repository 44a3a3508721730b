"""Recognisers written once on the language-neutral description (`facts.py`), for every
language that has a reader of it: a Bloom filter and the lowest common ancestor by
binary lifting. Each is defined by a few assignments whose shape is the same in Python
and JavaScript, which is what makes the description honest for them.

- Bloom filter: bits set at several hashed positions per item (`bits[h] = 1` once per
  hash function: in a loop or callback over the hashes, or two hashed stores or more),
  and those bits read back by another function (the lookup). A set of the items
  themselves is exact membership, not a Bloom filter; a loop over every bit is no hash.
- Binary lifting: the table of 2^k-th ancestors built from itself, `up[v][k] =
  up[up[v][k - 1]][k - 1]` (either layout, through a name or a map's `get`), and a
  node lifted through it (`u = up[u][k]`). Climbing one parent at a time is the naive
  walk, whatever the table is called.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from pytest_codeif.checks.named_algorithm.facts import (
    Assignment,
    Facts,
    js_facts,
    python_facts,
    root_of,
)
from pytest_codeif.checks.named_algorithm.patterns import shown
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Example,
    Judgement,
    Place,
    Recogniser,
    found,
    missing,
    where,
)
from pytest_codeif.checks.shared.js_algorithms_parts import JsCode, JsPlace
from pytest_codeif.code.js_tree import JsModule

_SET: Final = frozenset({"1", "true", "True", "1n"})


def _where(place: Place | JsPlace) -> str:
    """ "line N" of a place of either language."""
    if isinstance(place[0], JsModule):
        module, node = place
        return f"line {module.line_of(node)}"
    return where(place)


def _line(assignment: Assignment) -> str:
    return _where(assignment.at)


def _named(text: str, assignment: Assignment) -> str:
    """A normalised name as the code's language writes it (`this.bits` in JS/TS)."""
    if isinstance(assignment.at[0], JsModule) and text.startswith("self."):
        return f"this.{text[5:]}"
    return text


def _code(assignment: Assignment) -> str:
    """The assignment's code as written, on one line, for evidence."""
    if isinstance(assignment.at[0], JsModule):
        module, node = assignment.at
        return module.snippet(node, 60)
    return shown(assignment.at[1])


def _hashed(facts: Facts, index: str, function: str, depth: int = 3) -> bool:
    """Whether an index comes from hashing: it reduces modulo or masks (`h % m`, `h &
    mask`, `h >>> 0`) or calls a function that hashes (`this.hash(x, i)`), directly or
    through the names it is bound to; a loop counter (`count(...)`) is no hash, nor the
    index a function picks by comparing (`minKey(key, inMST)`)."""
    plain = index.replace("count(", "(").replace("each(", "(")
    if re.search(r"[%&]|>>", plain):
        return True
    called = re.findall(r"([\w$]+)\(", plain)
    if any(name in facts.hashers or "hash" in name.lower() for name in called):
        return True
    if depth == 0:
        return False
    for name in re.findall(r"(?<![\w$.])[A-Za-z_$][\w$]*(?![\w$(])", index):
        for value in facts.bound(name, function):
            if value.startswith("count("):
                continue
            inner = value[5:-1] if value.startswith("each(") else value
            if _hashed(facts, inner, function, depth - 1):
                return True
    return False


def _bit_stores(facts: Facts) -> list[tuple[Assignment, str]]:
    """(assignment, container) of each bit set at a hashed position: `bits[h] = 1`,
    `bits[h] = true`, `bits[h >> 3] |= 1 << (h & 7)`, `self.bits |= 1 << h`."""
    found_stores = []
    for a in facts.assignments:
        target = a.target
        if "[" in target:
            container, index = root_of(target), target[len(root_of(target)) + 1 : -1]
            sets = (a.op is None and a.value in _SET) or (a.op == "|=" and "<<" in a.value)
        else:
            container, index = target, a.value
            sets = a.op == "|=" and "<<" in a.value
        if sets and _hashed(facts, index, a.function):
            found_stores.append((a, container))
    return found_stores


def bloom_filter(facts: Facts) -> Judgement:
    """Bits set at several hashed positions per item and read back by a lookup."""
    stores = _bit_stores(facts)
    for store, container in stores:
        repeated = (
            store.iterated
            or sum(1 for other, c in stores if c == container and other.function == store.function)
            >= 2
        )
        if not repeated:
            continue
        lookups = [
            r.at for r in facts.reads if r.root == container and r.function != store.function
        ] or [
            a.at
            for a in facts.assignments
            if a.function != store.function
            and re.search(rf"(?<![\w$.]){re.escape(container)}(?![\w$])", a.value)
        ]
        if lookups:
            return found(
                f"sets a bit of `{_named(container, store)}` for each hash of an item "
                f"(`{_code(store)}`, {_line(store)}) and reads the bits back in a lookup "
                f"({_where(lookups[0])})",
                store.at,
            )
        return missing(
            f"sets bits of `{_named(container, store)}` at hashed positions ({_line(store)}) but "
            "no other function reads them back: no lookup",
            store.at,
        )
    if stores:
        store = stores[0][0]
        return missing(
            f"sets one hashed bit per item ({_line(store)}): a Bloom filter sets one for each "
            "of several hash functions",
            store.at,
        )
    return missing(
        "no bits set at several hashed positions per item (`bits[hash_i(x) % m] = 1` for "
        "each hash function) and read back by a lookup"
    )


def _groups(text: str, start: int) -> list[str]:
    """The bracketed indexes right after position `start` (`[v][k-1]` -> ["v", "k-1"])."""
    groups: list[str] = []
    i = start
    while i < len(text) and text[i] == "[":
        depth, j = 0, i
        while j < len(text):
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        groups.append(text[i + 1 : j])
        i = j + 1
    return groups


def _reads_of(text: str, table: str) -> list[list[str]]:
    """The index lists of each read of `table` in `text`."""
    return [
        _groups(text, m.end()) for m in re.finditer(rf"(?<![\w$.]){re.escape(table)}(?=\[)", text)
    ]


def _doubling(facts: Facts) -> tuple[Assignment, str] | None:
    """`up[v][k] = up[up[v][k - 1]][k - 1]` (or `up[k][v] = up[k-1][up[k-1][v]]`), the
    value read through the names it binds: (assignment, table)."""
    for a in facts.assignments:
        if a.op is not None or "[" not in a.target:
            continue
        table = root_of(a.target)
        if len(_groups(a.target, len(table))) < 2:
            continue
        value = facts.expand(a.value, a.function, line=a.line)
        for groups in _reads_of(value, table):
            nested = any(_reads_of(g, table) for g in groups)
            if nested and len(re.findall(r"-1(?!\d)", value)) >= 2:
                return a, table
    return None


def _lifts(facts: Facts, table: str | None) -> list[Assignment]:
    """`u = up[u][k]` in a loop: a node moved up through a table (`table`, or any when
    None) indexed by the node itself."""
    found_lifts = []
    for a in facts.assignments:
        if a.op is not None or not a.iterated or not re.fullmatch(r"[\w$]+", a.target):
            continue
        value = facts.expand(a.value, a.function, depth=1, line=a.line)
        root = table or root_of(value)
        for groups in _reads_of(value, root):
            if any(re.search(rf"(?<![\w$.]){re.escape(a.target)}(?![\w$])", g) for g in groups):
                found_lifts.append(a)
                break
    return found_lifts


def binary_lifting(facts: Facts) -> Judgement:
    """A table of 2^k-th ancestors built from itself, and nodes lifted through it."""
    doubling = _doubling(facts)
    if doubling:
        store, table = doubling
        lifts = _lifts(facts, table)
        if lifts:
            return found(
                f"builds the 2^k-th ancestors of `{_named(table, store)}` from itself "
                f"(`{_code(store)}`, {_line(store)}) and lifts nodes through it "
                f"({_line(lifts[0])})",
                store.at,
            )
        return missing(
            f"builds a table of 2^k-th ancestors ({_line(store)}) but never lifts a node "
            "through it",
            store.at,
        )
    climbs = _lifts(facts, None)
    if climbs:
        return missing(
            f"climbs one parent at a time (`{_code(climbs[0])}`, "
            f"{_line(climbs[0])}): no table of 2^k-th ancestors built from itself "
            "(up[v][k] = up[up[v][k - 1]][k - 1])",
            climbs[0].at,
        )
    return missing(
        "no table of 2^k-th ancestors built from itself (up[v][k] = up[up[v][k - 1]][k - 1]) "
        "and no node lifted through it"
    )


def for_python(decide: Callable[[Facts], Judgement]) -> Callable[[Code], Judgement]:
    """`decide` on the description of Python code."""
    return lambda code: decide(python_facts(code))


def for_js(decide: Callable[[Facts], Judgement]) -> Callable[[JsCode], Judgement]:
    """`decide` on the description of JavaScript or TypeScript code."""
    return lambda code: decide(js_facts(code))


_BLOOM = """
class Bloom:
    def __init__(self, size, hashes):
        self.size, self.hashes = size, hashes
        self.bits = [0] * size

    def _positions(self, item):
        return [hash((seed, item)) % self.size for seed in range(self.hashes)]

    def add(self, item):
        for position in self._positions(item):
            self.bits[position] = 1

    def might_contain(self, item):
        return all(self.bits[p] for p in self._positions(item))
"""
_LIFTING = """
def lca(parent, depth, u, v):
    n, levels = len(parent), max(1, len(parent).bit_length())
    up = [parent[:]] + [[0] * n for _ in range(levels - 1)]
    for k in range(1, levels):
        for x in range(n):
            up[k][x] = up[k - 1][up[k - 1][x]]
    if depth[u] < depth[v]:
        u, v = v, u
    for k in reversed(range(levels)):
        if depth[u] - (1 << k) >= depth[v]:
            u = up[k][u]
    if u == v:
        return u
    for k in reversed(range(levels)):
        if up[k][u] != up[k][v]:
            u, v = up[k][u], up[k][v]
    return parent[u]
"""

RECOGNISERS: Final = (
    Recogniser(
        "bloom-filter",
        "a Bloom filter",
        "bits set at several hashed positions per item (`bits[h_i(x) % m] = 1` for each "
        "hash function) and read back by a lookup; a set of the items is exact membership",
        for_python(bloom_filter),
        ("bloom", "bloom filters"),
        satisfied=(Example(_BLOOM),),
        violated=(
            Example(
                """
                class Bloom:
                    def __init__(self):
                        self.items = set()

                    def add(self, item):
                        self.items.add(item)

                    def might_contain(self, item):
                        return item in self.items
                """,
                "no bits set at several hashed positions",
            ),
        ),
    ),
    Recogniser(
        "lca-binary-lifting",
        "the lowest common ancestor by binary lifting",
        "a table of 2^k-th ancestors built from itself (`up[k][v] = up[k - 1][up[k - 1][v]]`, "
        "either layout) and nodes lifted through it (`u = up[k][u]`)",
        for_python(binary_lifting),
        (
            "lca binary lifting",
            "binary lifting",
            "lca by binary lifting",
            "lowest common ancestor binary lifting",
        ),
        satisfied=(Example(_LIFTING),),
        violated=(
            Example(
                """
                def lca(parent, depth, u, v):
                    while depth[u] > depth[v]:
                        u = parent[u]
                    while depth[v] > depth[u]:
                        v = parent[v]
                    while u != v:
                        u, v = parent[u], parent[v]
                    return u
                """,
                "climbs one parent at a time",
            ),
        ),
    ),
)

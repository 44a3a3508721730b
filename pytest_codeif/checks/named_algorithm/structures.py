"""Data-structure recognisers: binary heap, trie, B-tree, LRU cache, Fibonacci heap."""

from __future__ import annotations

import re
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    bindings,
    calling,
    dotted,
    flat,
    in_loop,
    keyword,
    method_calls,
    positional,
    shown,
    stores,
)
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
from pytest_codeif.checks.named_algorithm.sorts import sift_down
from pytest_codeif.code.cst import ParsedModule

_HEAPQ: Final = tuple(
    f"heapq.{name}" for name in ("heappush", "heappop", "heapify", "heapreplace", "heappushpop")
)


def attributes(module: ParsedModule, cls: cst.ClassDef) -> dict[str, list[cst.CSTNode]]:
    """`self.x = value` in a class's methods (and `x = value` in its body): name -> values."""
    found_attrs: dict[str, list[cst.CSTNode]] = {}
    for store in stores(module, cls.body):
        for name, value in bindings(store):
            target = dotted(store.target) or ""
            if target.startswith("self.") or "." not in target:
                found_attrs.setdefault(name, []).append(value)
    return found_attrs


def _classes(code: Code) -> list[tuple[ParsedModule, cst.ClassDef, dict[str, list[cst.CSTNode]]]]:
    return [
        (module, cls, attributes(module, cls))
        for module, cls in code.nodes(cst.ClassDef)
        if isinstance(cls, cst.ClassDef)
    ]


def _named(attrs: dict[str, list[cst.CSTNode]], pattern: str) -> str | None:
    return next((name for name in attrs if re.fullmatch(pattern, name, re.IGNORECASE)), None)


def _sorted_list(code: Code) -> Place | None:
    """A list kept sorted instead of a heap: `.sort()` or `insort` after adding."""
    kept = method_calls(code, "sort") + calling(code, "bisect.insort", "bisect.insort_left")
    return kept[0] if kept else None


def heap(code: Code) -> Judgement:
    """A binary heap: heapq's functions, or a list with a hand-written sift-up (parent
    at (i - 1) // 2) and sift-down (children at 2i + 1, 2i + 2); `queue.PriorityQueue`
    only with `allow-library`."""
    used = calling(code, *_HEAPQ)
    if used:
        return found(
            f"uses heapq's binary heap ({shown(used[0][1].func)}, {where(used[0])})", used[0]
        )
    up = next(
        (
            (m, n)
            for m, n in code.nodes(cst.BinaryOperation)
            if re.fullmatch(r"\(\w+-1\)(//2|>>1)", flat(n))
        ),
        None,
    )
    down = sift_down(code)
    if up and down:
        return found(
            f"sifts up to the parent (`{shown(up[1])}`, {where(up)}) and down to the children "
            f"(`{shown(down[1])}`, {where(down)})",
            up,
        )
    queue = calling(code, "queue.PriorityQueue")
    if queue:
        if code.allow_library:
            return found(f"uses queue.PriorityQueue, a heap ({where(queue[0])})", queue[0])
        return missing(f"no heap written: uses queue.PriorityQueue ({where(queue[0])})", queue[0])
    kept = _sorted_list(code)
    if kept:
        return missing(
            f"no heap: keeps a sorted list (`{shown(kept[1])}`, {where(kept)}), O(n) per insertion",
            kept,
        )
    part = up or down
    if part is not None:
        return missing(f"only one direction of sifting ({where(part)}): no complete heap", part)
    return missing("no heap: neither heapq nor a list sifted up to (i - 1) // 2 and down to 2i + 1")


def trie(code: Code) -> Judgement:
    """A tree of characters: a loop over a word's characters that descends one child per
    character (`node = node.children[ch]`, `node = node.setdefault(ch, {})`) and creates
    missing children."""
    for module, loop in code.of(cst.For):
        ch = flat(loop.target)
        if not re.fullmatch(r"\w+", ch):
            continue
        for store in stores(module, loop.body):
            for name, value in bindings(store):
                text = flat(value)
                descends = re.fullmatch(
                    rf"{re.escape(name)}(\.\w+)*(\[{ch}\]|\.(setdefault|get)\({ch}\b.*\))", text
                ) or re.fullmatch(rf"{re.escape(name)}(\.\w+)*\[{ch}\]", text)
                if not descends:
                    continue
                created = "setdefault" in text or any(
                    isinstance(s.target, cst.Subscript) and flat(s.target).endswith(f"[{ch}]")
                    for s in stores(module, loop.body)
                )
                if created:
                    return found(
                        f"descends one child per character (`{shown(store.statement)}`, "
                        f"{where((module, store.statement))}), creating missing children",
                        (module, store.statement),
                    )
    prefixes = method_calls(code, "startswith")
    if prefixes:
        return missing(
            f"no tree of characters: tests whole words with `{shown(prefixes[0][1])}` "
            f"({where(prefixes[0])})",
            prefixes[0],
        )
    return missing("no loop descending one child node per character")


def _imported_btree(code: Code) -> Place | None:
    for module, node in code.nodes(cst.Import, cst.ImportFrom):
        if re.search(r"btree", flat(node), re.IGNORECASE):
            return module, node
    return None


def b_tree(code: Code) -> Judgement:
    """Nodes holding a list of keys and a list of children, and a split of a full node
    (the keys sliced at a midpoint, or a split method)."""
    nodes = [
        (module, cls, keys, children)
        for module, cls, attrs in _classes(code)
        if (keys := _named(attrs, r"keys|key_list|keys_list|entries|items"))
        and (
            children := _named(attrs, r"children|child|kids|pointers|subtrees|links|c|child_nodes")
        )
    ]
    if nodes:
        module, cls, keys, children = nodes[0]
        split: Place | None = next(
            (
                (m, n)
                for m, n in code.nodes(cst.Subscript)
                if isinstance(n, cst.Subscript)
                and flat(n.value).endswith(f".{keys}")
                and isinstance(n.slice[0].slice, cst.Slice)
            ),
            None,
        )
        if split is None:
            split = next(
                ((m, f) for m, f in code.functions() if "split" in f.name.value.lower()), None
            )
        at: Place = (module, cls)
        if split:
            return found(
                f"`{cls.name.value}` holds `{keys}` and `{children}` lists ({where(at)}); a full "
                f"node is split ({where(split)})",
                at,
            )
        return missing(
            f"`{cls.name.value}` holds `{keys}` and `{children}` lists ({where(at)}) but no full "
            "node is ever split (no keys sliced at a midpoint), so the tree cannot stay balanced",
            at,
        )
    imported = _imported_btree(code)
    if imported:
        return missing(
            f"`{shown(imported[1])}` ({where(imported)}) takes a tree from a library; no "
            "node class holding a list of keys and a list of children is defined",
            imported,
        )
    binary = [
        (m, cls)
        for m, cls, attrs in _classes(code)
        if _named(attrs, r"left") and _named(attrs, r"right")
    ]
    if binary:
        return missing(
            f"`{binary[0][1].name.value}` ({where(binary[0])}) is a binary tree (left and right "
            "children, one key per node), not a B-tree (many keys and children per node)",
            binary[0],
        )
    return missing("no node class holding a list of keys and a list of children")


def _refreshes(code: Code, table: str) -> Place | None:
    """An entry re-inserted when it is read (`pop` or `del`, then stored again), so the
    dict's order is the order of use."""
    for module, function in code.functions():
        text = flat(function.body)
        removed = re.search(
            rf"{re.escape(table)}\.pop\((\w+)|del {re.escape(table)}\[(\w+)\]", text
        )
        if removed:
            key = removed.group(1) or removed.group(2)
            if re.search(rf"{re.escape(table)}\[{key}\]=", text):
                return module, function
    return None


def lru_cache(code: Code) -> Judgement:
    """A bounded cache evicting the least recently used entry: an OrderedDict with
    `move_to_end` and `popitem(last=False)`; a dict re-inserting entries when read and
    evicting `next(iter(d))`; or nodes with prev/next links moved to the front and dropped
    from the back. `functools.lru_cache(maxsize=N)` only with `allow-library`."""
    moved = method_calls(code, "move_to_end")
    evicted = [
        (m, c)
        for m, c in method_calls(code, "popitem")
        if flat(c).endswith(("popitem(last=False)", "popitem(False)"))
    ]
    if moved and evicted:
        return found(
            f"refreshes entries with move_to_end ({where(moved[0])}) and evicts the oldest with "
            f"`{shown(evicted[0][1])}` ({where(evicted[0])})",
            evicted[0],
        )
    oldest = [
        (m, c)
        for m, c in code.nodes(cst.Call)
        if re.fullmatch(r"next\(iter\(([\w.]+)\)\)", flat(c))
    ]
    for module, call in oldest:
        refresh = _refreshes(code, flat(call)[len("next(iter(") : -2])
        if refresh:
            return found(
                f"re-inserts entries when read ({where(refresh)}) and evicts the oldest "
                f"(`{shown(call)}`, {where((module, call))})",
                (module, call),
            )
    linked = [
        (m, cls)
        for m, cls, attrs in _classes(code)
        if _named(attrs, r"prev|previous") and _named(attrs, r"next|nxt")
    ]
    bounded = [
        (m, c)
        for m, c in code.nodes(cst.Comparison)
        if re.search(r"len\(", flat(c)) and re.search(r"cap|size|max|limit", flat(c), re.IGNORECASE)
    ]
    if linked and bounded:
        return found(
            f"a doubly linked list of entries (`{linked[0][1].name.value}`, {where(linked[0])}) "
            f"with the least recent dropped when full ({where(bounded[0])})",
            bounded[0],
        )
    library = [
        (m, c)
        for m, c in calling(code, "functools.lru_cache")
        if (size := keyword(c, "maxsize") or next(iter(positional(c)), None)) is not None
        and flat(size) != "None"
    ]
    if library:
        if code.allow_library:
            return found(f"uses functools.lru_cache with a bound ({where(library[0])})", library[0])
        return missing(
            f"no cache written: uses `{shown(library[0][1])}` ({where(library[0])})", library[0]
        )
    if evicted or oldest:
        place = (evicted or oldest)[0]
        return missing(
            f"evicts the oldest insertion ({where(place)}) but reading never refreshes an entry: "
            "that is FIFO, not least recently used",
            place,
        )
    return missing("no bounded cache evicting the least recently used entry")


def fibonacci_heap(code: Code) -> Judgement:
    """Nodes with a degree, a mark, a parent and children, and extract-min consolidating
    roots of equal degree through a table indexed by degree."""
    nodes = [
        (module, cls, attrs)
        for module, cls, attrs in _classes(code)
        if _named(attrs, r"degree|rank")
        and _named(attrs, r"parent|p")
        and _named(attrs, r"child|children|child_list")
    ]
    degrees = {
        name
        for m, n in code.nodes(cst.Assign)
        for s in stores(m, n)
        for name, value in bindings(s)
        if re.search(r"\.(degree|rank)$", flat(value))
    }
    table = next(
        (
            (m, s.statement)
            for m, n in code.nodes(cst.Assign)
            for s in stores(m, n)
            if isinstance(s.target, cst.Subscript)
            and (
                flat(s.target.slice[0].slice) in degrees
                or re.search(r"degree|rank", flat(s.target.slice[0].slice))
            )
            and in_loop(m, s.statement)
        ),
        None,
    )
    if nodes:
        module, cls, attrs = nodes[0]
        at: Place = (module, cls)
        marked = _named(attrs, r"mark|marked|is_marked|lost_child")
        gaps = []
        if not marked:
            gaps.append("nodes carry no mark (for cascading cuts)")
        if table is None:
            gaps.append(
                "no consolidation linking roots of equal degree (a table indexed by degree)"
            )
        if gaps or table is None:
            return missing(
                f"`{cls.name.value}` ({where(at)}) has degree, parent and child, but "
                + "; ".join(gaps),
                at,
            )
        return found(
            f"`{cls.name.value}` nodes carry degree, mark, parent and child ({where(at)}); roots "
            f"of equal degree are consolidated (`{shown(table[1])}`, {where(table)})",
            table,
        )
    used = calling(code, *_HEAPQ)
    if used:
        return missing(
            f"wraps heapq ({where(used[0])}), a binary heap, not a Fibonacci heap", used[0]
        )
    return missing(
        "no node class with degree, parent, child and mark, and no consolidation by degree"
    )


_LRU = """
from collections import OrderedDict

class LRUCache:
    def __init__(self, capacity):
        self.capacity, self.items = capacity, OrderedDict()

    def get(self, key):
        if key not in self.items:
            return None
        self.items.move_to_end(key)
        return self.items[key]

    def put(self, key, value):
        self.items[key] = value
        self.items.move_to_end(key)
        if len(self.items) > self.capacity:
            self.items.popitem(last=False)
"""

RECOGNISERS: Final = (
    Recogniser(
        "heap",
        "a binary heap",
        "heapq's functions, or a list with a hand-written sift-up (parent (i - 1) // 2) and "
        "sift-down (children 2i + 1, 2i + 2); `queue.PriorityQueue` only with "
        "`allow-library`; a list kept sorted is the near miss",
        heap,
        ("binary heap", "min heap", "max heap", "heap data structure", "heap queue"),
        satisfied=(
            Example(
                """
                import heapq

                class Tasks:
                    def __init__(self):
                        self.heap = []

                    def add(self, priority, task):
                        heapq.heappush(self.heap, (priority, task))

                    def next(self):
                        return heapq.heappop(self.heap)[1]
                """
            ),
        ),
        violated=(
            Example(
                """
                class Tasks:
                    def __init__(self):
                        self.items = []

                    def add(self, priority, task):
                        self.items.append((priority, task))
                        self.items.sort()

                    def next(self):
                        return self.items.pop(0)[1]
                """,
                "keeps a sorted list",
            ),
        ),
    ),
    Recogniser(
        "trie",
        "a trie",
        "a loop over a word's characters descending one child per character (`node = "
        "node.children[ch]`, `node = node.setdefault(ch, {})`) and creating missing children",
        trie,
        ("prefix tree", "trie tree", "digital tree"),
        satisfied=(
            Example(
                """
                class Trie:
                    def __init__(self):
                        self.root = {}

                    def insert(self, word):
                        node = self.root
                        for ch in word:
                            node = node.setdefault(ch, {})
                        node["$"] = True

                    def has_prefix(self, prefix):
                        node = self.root
                        for ch in prefix:
                            if ch not in node:
                                return False
                            node = node[ch]
                        return True
                """
            ),
        ),
        violated=(
            Example(
                """
                class Words:
                    def __init__(self):
                        self.words = []

                    def insert(self, word):
                        self.words.append(word)

                    def has_prefix(self, prefix):
                        return any(w.startswith(prefix) for w in self.words)
                """,
                "tests whole words",
            ),
        ),
    ),
    Recogniser(
        "b-tree",
        "a B-tree",
        "a node class holding a list of keys and a list of children, and a split of a full "
        "node (its keys sliced at a midpoint, or a split method); a binary tree named BTree "
        "or a B-tree imported from a library is the near miss",
        b_tree,
        ("btree", "b tree", "balanced tree b tree"),
        satisfied=(
            Example(
                """
                class Node:
                    def __init__(self, leaf=True):
                        self.keys, self.children, self.leaf = [], [], leaf

                class BTree:
                    def __init__(self, t=2):
                        self.root, self.t = Node(), t

                    def split_child(self, parent, i):
                        t, full = self.t, parent.children[i]
                        right = Node(full.leaf)
                        parent.keys.insert(i, full.keys[t - 1])
                        parent.children.insert(i + 1, right)
                        right.keys, full.keys = full.keys[t:], full.keys[: t - 1]
                        if not full.leaf:
                            right.children, full.children = full.children[t:], full.children[:t]
                """
            ),
        ),
        violated=(
            Example(
                """
                class Node:
                    def __init__(self, key):
                        self.key, self.left, self.right = key, None, None

                class BTree:
                    def __init__(self):
                        self.root = None

                    def insert(self, key, node=None):
                        if self.root is None:
                            self.root = Node(key)
                            return
                        node = node or self.root
                        side = "left" if key < node.key else "right"
                        child = getattr(node, side)
                        if child is None:
                            setattr(node, side, Node(key))
                        else:
                            self.insert(key, child)
                """,
                "is a binary tree",
            ),
        ),
    ),
    Recogniser(
        "lru-cache",
        "an LRU cache",
        "a bounded cache evicting the least recently used entry: an OrderedDict with "
        "`move_to_end` and `popitem(last=False)`, a dict re-inserting entries when read and "
        "evicting `next(iter(d))`, or prev/next-linked nodes dropped from the back when full; "
        "`functools.lru_cache(maxsize=N)` only with `allow-library`; evicting by insertion "
        "order alone (FIFO) is the near miss",
        lru_cache,
        ("lru", "least recently used cache", "lru cache eviction", "least recently used"),
        satisfied=(Example(_LRU),),
        violated=(
            Example(
                _LRU.replace(
                    "        self.items.move_to_end(key)\n        return", "        return"
                ).replace(
                    "        self.items[key] = value\n        self.items.move_to_end(key)\n",
                    "        self.items[key] = value\n",
                ),
                "that is FIFO",
            ),
        ),
    ),
    Recogniser(
        "fibonacci-heap",
        "a Fibonacci heap",
        "nodes carrying degree, mark, parent and children, and extract-min consolidating roots "
        "of equal degree through a table indexed by degree; a heapq wrapper is the near miss",
        fibonacci_heap,
        ("fibonacci heaps", "fib heap"),
        satisfied=(
            Example(
                """
                class Node:
                    def __init__(self, key):
                        self.key, self.degree, self.mark = key, 0, False
                        self.parent, self.children = None, []

                class FibonacciHeap:
                    def __init__(self):
                        self.roots, self.min = [], None

                    def insert(self, key):
                        node = Node(key)
                        self.roots.append(node)
                        if self.min is None or key < self.min.key:
                            self.min = node
                        return node

                    def extract_min(self):
                        smallest = self.min
                        self.roots.remove(smallest)
                        for child in smallest.children:
                            child.parent = None
                            self.roots.append(child)
                        by_degree = {}
                        for node in list(self.roots):
                            d = node.degree
                            while d in by_degree:
                                other = by_degree.pop(d)
                                if other.key < node.key:
                                    node, other = other, node
                                self.roots.remove(other)
                                node.children.append(other)
                                other.parent, other.mark = node, False
                                node.degree += 1
                                d = node.degree
                            by_degree[d] = node
                        self.min = min(self.roots, key=lambda n: n.key, default=None)
                        return smallest.key
                """
            ),
        ),
        violated=(
            Example(
                """
                import heapq

                class FibonacciHeap:
                    def __init__(self):
                        self.items = []

                    def insert(self, key):
                        heapq.heappush(self.items, key)

                    def extract_min(self):
                        return heapq.heappop(self.items)
                """,
                "wraps heapq",
            ),
        ),
    ),
)

"""The algorithms of the catalogue recognised in JavaScript and TypeScript, by name, each
with samples in both languages. An algorithm of the catalogue missing here, asked of
JS/TS code, is a located task error naming it (never a pass, never a silent fail).

To add one: write its reader in the JS module of its family (`js_sorts.py`...) on the
parts in `shared/js_algorithms_parts.py`, or, where its evidence is the shape of a few
assignments, once for every language on the description in `facts.py` (`described.py`);
then list it below with a satisfied and a violated sample in each language."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from pytest_codeif.checks.named_algorithm import (
    described,
    js_graphs,
    js_searching,
    js_sequences,
    js_sorts,
)
from pytest_codeif.checks.named_algorithm.recogniser import Example, Judgement
from pytest_codeif.checks.shared.js_algorithms_parts import JsCode

JS: Final = "javascript"
TS: Final = "typescript"


@dataclass(frozen=True)
class JsReader:
    """How one algorithm of the catalogue (`name`) is recognised in JS/TS code, and
    samples proving both verdicts (each `Example` with its `language`)."""

    name: str
    decide: Callable[[JsCode], Judgement]
    satisfied: tuple[Example, ...]
    violated: tuple[Example, ...]


def _js(code: str, message: str | None = None) -> Example:
    return Example(code, message, language=JS)


def _ts(code: str, message: str | None = None) -> Example:
    return Example(code, message, language=TS)


_BUBBLE = """
function bubbleSort(xs) {
  const a = [...xs];
  for (let i = 0; i < a.length - 1; i++) {
    for (let j = 0; j < a.length - 1 - i; j++) {
      if (a[j] > a[j + 1]) {
        [a[j], a[j + 1]] = [a[j + 1], a[j]];
      }
    }
  }
  return a;
}
"""
_BUBBLE_TS = """
export class Sorter {
  sort(xs: number[]): number[] {
    const a: number[] = xs.slice();
    let swapped: boolean;
    do {
      swapped = false;
      for (let i = 0; i < a.length - 1; i++) {
        if (a[i] > a[i + 1]) {
          const t = a[i];
          a[i] = a[i + 1];
          a[i + 1] = t;
          swapped = true;
        }
      }
    } while (swapped);
    return a;
  }
}
"""
_INSERTION = """
const sort = (xs) => {
  const a = [...xs];
  for (let i = 1; i < a.length; i++) {
    const key = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
  return a;
};
"""
_SELECTION = """
function selectionSort(xs) {
  const a = xs.slice();
  for (let i = 0; i < a.length - 1; i++) {
    let smallest = i;
    for (let j = i + 1; j < a.length; j++) {
      if (a[j] < a[smallest]) smallest = j;
    }
    if (smallest !== i) [a[i], a[smallest]] = [a[smallest], a[i]];
  }
  return a;
}
"""
_SELECTION_TS = """
const swap = (a: number[], i: number, j: number): void => {
  [a[i], a[j]] = [a[j], a[i]];
};

export const selectionSort = (xs: number[]): number[] => {
  const a = [...xs];
  for (let i = 0; i < a.length; i++) {
    let min = i;
    for (let j = i + 1; j < a.length; j++) {
      if (a[j] < a[min]) {
        min = j;
      }
    }
    swap(a, i, min);
  }
  return a;
};
"""
_MERGE = """
function mergeSort(xs) {
  if (xs.length <= 1) return xs;
  const mid = Math.floor(xs.length / 2);
  const left = mergeSort(xs.slice(0, mid));
  const right = mergeSort(xs.slice(mid));
  const out = [];
  let i = 0, j = 0;
  while (i < left.length && j < right.length) {
    if (left[i] <= right[j]) out.push(left[i++]);
    else out.push(right[j++]);
  }
  return out.concat(left.slice(i), right.slice(j));
}
"""
_MERGE_TS = """
interface Student { name: string; score: number }

export class Ranking {
  sort(xs: Student[]): Student[] {
    if (xs.length <= 1) return xs;
    const mid = xs.length >> 1;
    return this.merge(this.sort(xs.slice(0, mid)), this.sort(xs.slice(mid)));
  }

  private merge(left: Student[], right: Student[]): Student[] {
    const out: Student[] = [];
    let i = 0;
    let j = 0;
    while (i < left.length && j < right.length) {
      if (left[i].score >= right[j].score) {
        out.push(left[i]);
        i++;
      } else {
        out.push(right[j]);
        j++;
      }
    }
    return [...out, ...left.slice(i), ...right.slice(j)];
  }
}
"""
_QUICK = """
function sort(xs) {
  if (xs.length <= 1) return xs;
  const pivot = xs[0];
  const less = xs.slice(1).filter((x) => x < pivot);
  const more = xs.slice(1).filter((x) => x >= pivot);
  return [...sort(less), pivot, ...sort(more)];
}
"""
_KADANE = """
function maxSubarray(xs) {
  let best = xs[0];
  let cur = xs[0];
  for (let i = 1; i < xs.length; i++) {
    cur = Math.max(xs[i], cur + xs[i]);
    best = Math.max(best, cur);
  }
  return best;
}
"""
_KADANE_TS = """
export const bestPeriod = (log: number[]): { start: number; end: number; total: number } => {
  let total = -Infinity, cur = 0, start = 0, end = 0, from = 0;
  for (let i = 0; i < log.length; i++) {
    cur += log[i];
    if (cur > total) {
      total = cur;
      start = from;
      end = i;
    }
    if (cur < 0) {
      cur = 0;
      from = i + 1;
    }
  }
  return { start, end, total };
};
"""
_BRUTE = """
function maxSubarray(xs) {
  let best = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    let sum = 0;
    for (let j = i; j < xs.length; j++) {
      sum += xs[j];
      best = Math.max(best, sum);
    }
  }
  return best;
}
"""
_MIN_PRICE_TS = """
export function maxProfit(prices: number[]): number {
  let low = prices[0];
  let best = 0;
  for (const price of prices) {
    low = Math.min(low, price);
    best = Math.max(best, price - low);
  }
  return best;
}
"""
_PRIM = """
function prim(n, adj) {
  const key = new Array(n).fill(Infinity);
  const inTree = new Array(n).fill(false);
  key[0] = 0;
  let total = 0;
  for (let round = 0; round < n; round++) {
    let u = -1;
    for (let v = 0; v < n; v++) {
      if (!inTree[v] && (u === -1 || key[v] < key[u])) u = v;
    }
    inTree[u] = true;
    total += key[u];
    for (const [v, w] of adj[u]) {
      if (!inTree[v] && w < key[v]) key[v] = w;
    }
  }
  return total;
}
"""
_PRIM_TS = """
class MinQueue<T> {
  private items: { item: T; priority: number }[] = [];
  enqueue(item: T, priority: number): void {
    this.items.push({ item, priority });
    this.items.sort((a, b) => a.priority - b.priority);
  }
  dequeue(): { item: T; priority: number } | undefined {
    return this.items.shift();
  }
  get size(): number {
    return this.items.length;
  }
}

export function mst(adj: Map<string, [string, number][]>, start: string): number {
  const seen = new Set<string>();
  const queue = new MinQueue<string>();
  queue.enqueue(start, 0);
  let total = 0;
  while (queue.size > 0) {
    const next = queue.dequeue()!;
    if (seen.has(next.item)) continue;
    seen.add(next.item);
    total += next.priority;
    for (const [v, w] of adj.get(next.item) ?? []) {
      if (!seen.has(v)) queue.enqueue(v, w);
    }
  }
  return total;
}
"""
_DIJKSTRA_TS = """
export function shortest(n: number, adj: [number, number][][], s: number): number[] {
  const dist: number[] = new Array(n).fill(Infinity);
  const done: boolean[] = new Array(n).fill(false);
  dist[s] = 0;
  for (let round = 0; round < n; round++) {
    let u = -1;
    for (let v = 0; v < n; v++) {
      if (!done[v] && (u === -1 || dist[v] < dist[u])) u = v;
    }
    done[u] = true;
    for (const [v, w] of adj[u]) {
      if (dist[u] + w < dist[v]) dist[v] = dist[u] + w;
    }
  }
  return dist;
}
"""
_DIJKSTRA_QUEUE = """
function shortest(graph, start) {
  const dist = { [start]: 0 };
  const queue = [{ node: start, d: 0 }];
  while (queue.length) {
    queue.sort((a, b) => a.d - b.d);
    const { node, d } = queue.shift();
    if (d > dist[node]) continue;
    for (const [next, w] of graph[node]) {
      const alt = d + w;
      if (!(next in dist) || alt < dist[next]) {
        dist[next] = alt;
        queue.push({ node: next, d: alt });
      }
    }
  }
  return dist;
}
"""
_SPFA = """
function shortest(graph, start) {
  const dist = { [start]: 0 };
  const queue = [start];
  while (queue.length) {
    const u = queue.shift();
    for (const [v, w] of graph[u]) {
      if (dist[v] === undefined || dist[u] + w < dist[v]) {
        dist[v] = dist[u] + w;
        queue.push(v);
      }
    }
  }
  return dist;
}
"""
_KRUSKAL = """
function mst(n, edges) {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x) => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  let total = 0;
  edges.sort((a, b) => a[2] - b[2]);
  for (const [u, v, w] of edges) {
    const ru = find(u), rv = find(v);
    if (ru !== rv) {
      parent[ru] = rv;
      total += w;
    }
  }
  return total;
}
"""
_BLOOM = """
class BloomFilter {
  constructor(size, hashes) {
    this.size = size;
    this.hashes = hashes;
    this.bits = new Uint8Array(size);
  }

  hash(item, seed) {
    let h = seed;
    for (const ch of String(item)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return h % this.size;
  }

  add(item) {
    for (let i = 0; i < this.hashes; i++) {
      this.bits[this.hash(item, i)] = 1;
    }
  }

  mightContain(item) {
    for (let i = 0; i < this.hashes; i++) {
      if (!this.bits[this.hash(item, i)]) return false;
    }
    return true;
  }
}
"""
_BLOOM_TS = """
export class BloomFilter {
  private readonly bits: boolean[];

  constructor(private readonly size: number, private readonly k: number) {
    this.bits = new Array<boolean>(size).fill(false);
  }

  private positions(item: string): number[] {
    const a = this.fnv(item, 2166136261);
    const b = this.fnv(item, 16777619);
    return Array.from({ length: this.k }, (_, i) => (a + i * b) % this.size);
  }

  private fnv(text: string, seed: number): number {
    let h = seed;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
    return h;
  }

  add(item: string): void {
    this.positions(item).forEach((p) => (this.bits[p] = true));
  }

  has(item: string): boolean {
    return this.positions(item).every((p) => this.bits[p]);
  }
}
"""
_SET_FILTER_TS = """
export class BloomFilter {
  private readonly items = new Set<string>();

  add(item: string): void {
    this.items.add(item);
  }

  has(item: string): boolean {
    return this.items.has(item);
  }
}
"""
_EVERY_BIT = """
class BloomFilter {
  constructor(size) {
    this.bits = new Array(size).fill(0);
  }
  add(item) {
    for (let i = 0; i < this.bits.length; i++) {
      this.bits[i] = 1;
    }
  }
  check(item) {
    return this.bits.every((b) => b === 1);
  }
}
"""
_LIFTING = """
function lca(parent, depth, u, v) {
  const n = parent.length;
  const LOG = Math.max(1, Math.ceil(Math.log2(n + 1)));
  const up = Array.from({ length: n }, (_, x) => [parent[x]]);
  for (let k = 1; k < LOG; k++) {
    for (let x = 0; x < n; x++) {
      up[x][k] = up[up[x][k - 1]][k - 1];
    }
  }
  if (depth[u] < depth[v]) [u, v] = [v, u];
  for (let k = LOG - 1; k >= 0; k--) {
    if (depth[u] - (1 << k) >= depth[v]) u = up[u][k];
  }
  if (u === v) return u;
  for (let k = LOG - 1; k >= 0; k--) {
    if (up[u][k] !== up[v][k]) {
      u = up[u][k];
      v = up[v][k];
    }
  }
  return parent[u];
}
"""
_LIFTING_TS = """
export class Lifting {
  private readonly up = new Map<number, number[]>();
  private readonly depth = new Map<number, number>();

  constructor(parent: Map<number, number>, order: number[], private readonly log = 17) {
    for (const node of order) {
      const p = parent.get(node) ?? node;
      this.depth.set(node, node === p ? 0 : (this.depth.get(p) ?? 0) + 1);
      this.up.set(node, [p]);
      for (let k = 1; k < this.log; k++) {
        const mid = this.up.get(node)![k - 1];
        this.up.get(node)![k] = this.up.get(mid)![k - 1];
      }
    }
  }

  lca(a: number, b: number): number {
    let u = a, v = b;
    if (this.depth.get(u)! < this.depth.get(v)!) [u, v] = [v, u];
    for (let k = this.log - 1; k >= 0; k--) {
      const next = this.up.get(u)![k];
      if (this.depth.get(next)! >= this.depth.get(v)!) u = next;
    }
    if (u === v) return u;
    for (let k = this.log - 1; k >= 0; k--) {
      const [x, y] = [this.up.get(u)![k], this.up.get(v)![k]];
      if (x !== y) {
        u = x;
        v = y;
      }
    }
    return this.up.get(u)![0];
  }
}
"""
_CLIMB = """
function lca(parents, depths, p, q) {
  while (depths.get(p) > depths.get(q)) p = parents.get(p);
  while (depths.get(q) > depths.get(p)) q = parents.get(q);
  while (p !== q) {
    p = parents.get(p);
    q = parents.get(q);
  }
  return p;
}
"""
_CLIMB_TS = """
export function lca(up: number[][], depth: number[], u: number, v: number): number {
  for (let k = 1; k < up[0].length; k++) {
    for (let x = 0; x < up.length; x++) up[x][k] = up[x][k - 1];
  }
  while (depth[u] > depth[v]) u = up[u][0];
  while (depth[v] > depth[u]) v = up[v][0];
  while (u !== v) {
    u = up[u][0];
    v = up[v][0];
  }
  return u;
}
"""

_QUICK_TS = """
export class Sorter {
  sort(a: number[], lo = 0, hi = a.length - 1): number[] {
    if (lo < hi) {
      const p = this.partition(a, lo, hi);
      this.sort(a, lo, p - 1);
      this.sort(a, p + 1, hi);
    }
    return a;
  }

  private partition(a: number[], lo: number, hi: number): number {
    const pivot = a[hi];
    let i = lo;
    for (let j = lo; j < hi; j++) {
      if (a[j] < pivot) {
        [a[i], a[j]] = [a[j], a[i]];
        i++;
      }
    }
    [a[i], a[hi]] = [a[hi], a[i]];
    return i;
  }
}
"""
_QUICKSELECT = """
function select(xs, k) {
  const pivot = xs[0];
  const less = xs.filter((x) => x < pivot);
  const more = xs.filter((x) => x > pivot);
  if (k < less.length) return select(less, k);
  if (k >= xs.length - more.length) return select(more, k - (xs.length - more.length));
  return pivot;
}
"""
_BINARY = """
function find(xs, target) {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (xs[mid] === target) return mid;
    if (xs[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
"""
_BINARY_TS = """
export const search = (xs: number[], target: number, lo = 0, hi = xs.length - 1): number => {
  if (lo > hi) return -1;
  const mid = lo + ((hi - lo) >> 1);
  if (xs[mid] === target) return mid;
  return xs[mid] < target ? search(xs, target, mid + 1, hi) : search(xs, target, lo, mid - 1);
};
"""
_BFS = """
function levels(graph, start) {
  const seen = new Set([start]);
  const queue = [start];
  const order = [];
  while (queue.length > 0) {
    const node = queue.shift();
    order.push(node);
    for (const next of graph[node] ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return order;
}
"""
_DFS_TS = """
interface TreeNode { val: number; left: TreeNode | null; right: TreeNode | null }

export function collect(node: TreeNode | null, out: number[] = []): number[] {
  if (!node) return out;
  out.push(node.val);
  collect(node.left, out);
  collect(node.right, out);
  return out;
}
"""
_DFS_STACK = """
function reachable(graph, start) {
  const seen = new Set();
  const stack = [start];
  while (stack.length) {
    const node = stack.pop();
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...graph[node]);
  }
  return seen;
}
"""
_BFS_TS = """
export function depthOf(root: { children: unknown[] } | null): number {
  if (!root) return 0;
  let frontier = [root];
  let depth = 0;
  while (frontier.length) {
    const next: { children: unknown[] }[] = [];
    for (const node of frontier) next.push(...(node.children as { children: unknown[] }[]));
    frontier = next;
    depth++;
  }
  return depth;
}
"""

READERS: Final = (
    JsReader(
        "kadane",
        js_sequences.kadane,
        (_js(_KADANE), _ts(_KADANE_TS)),
        (
            _js(_BRUTE, "tries every subarray with nested loops"),
            _ts(_MIN_PRICE_TS, "keeps the lowest value so far"),
        ),
    ),
    JsReader(
        "bubble-sort",
        js_sorts.bubble_sort,
        (_js(_BUBBLE), _ts(_BUBBLE_TS)),
        (
            _js(_INSERTION, "that is insertion sort"),
            _ts(_SELECTION_TS, "that is selection sort"),
            _js("const sort = (xs) => [...xs].sort((a, b) => a - b);\n", "calls `[...xs].sort"),
        ),
    ),
    JsReader(
        "insertion-sort",
        js_sorts.insertion_sort,
        (
            _js(_INSERTION),
            _ts(
                """
                export function insertionSort(xs: number[]): number[] {
                  const a = [...xs];
                  for (let i = 1; i < a.length; i++) {
                    for (let j = i; j > 0 && a[j - 1] > a[j]; j--) {
                      [a[j - 1], a[j]] = [a[j], a[j - 1]];
                    }
                  }
                  return a;
                }
                """
            ),
        ),
        (_js(_BUBBLE, "that is bubble sort"), _ts(_BUBBLE_TS, "that is bubble sort")),
    ),
    JsReader(
        "selection-sort",
        js_sorts.selection_sort,
        (_js(_SELECTION), _ts(_SELECTION_TS)),
        (
            _js(_BUBBLE, "that is bubble or insertion sort"),
            _ts(
                "export const sort = (xs: number[]): number[] => xs.toSorted();\n",
                "calls `xs.toSorted()`",
            ),
        ),
    ),
    JsReader(
        "merge-sort",
        js_sorts.merge_sort,
        (_js(_MERGE), _ts(_MERGE_TS)),
        (
            _js(_QUICK, "that is quicksort"),
            _ts(
                """
                export function sort(xs: number[]): number[] {
                  if (xs.length <= 1) return xs;
                  const mid = Math.floor(xs.length / 2);
                  return [...sort(xs.slice(0, mid)), ...sort(xs.slice(mid))].sort((a, b) => a - b);
                }
                """,
                "the halves are combined with",
            ),
        ),
    ),
    JsReader(
        "quicksort",
        js_sorts.quicksort,
        (_js(_QUICK), _ts(_QUICK_TS)),
        (
            _js(_MERGE, "that is merge sort"),
            _ts(_MERGE_TS, "that is merge sort"),
            _js(_QUICKSELECT, "that is quickselect"),
        ),
    ),
    JsReader(
        "binary-search",
        js_searching.binary_search,
        (_js(_BINARY), _ts(_BINARY_TS)),
        (
            _js("const find = (xs, x) => xs.indexOf(x);\n", "is a linear scan"),
            _ts(
                """
                export function find(xs: number[], x: number): number {
                  for (let i = 0; i < xs.length; i++) if (xs[i] === x) return i;
                  return -1;
                }
                """,
                "a linear search",
            ),
        ),
    ),
    JsReader(
        "bfs",
        js_graphs.bfs,
        (_js(_BFS), _ts(_BFS_TS)),
        (
            _js(_DFS_STACK, "depth-first"),
            _ts(_DFS_TS, "depth-first"),
            # A queue kept sorted by distance is a priority queue: Dijkstra, not BFS.
            _js(_DIJKSTRA_QUEUE, "no loop taking nodes from the front of a queue"),
        ),
    ),
    JsReader(
        "dfs",
        js_graphs.dfs,
        (_js(_DFS_STACK), _ts(_DFS_TS)),
        (_js(_BFS, "breadth-first"), _ts(_BFS_TS, "breadth-first")),
    ),
    JsReader(
        "dijkstra",
        js_graphs.dijkstra,
        (_js(_DIJKSTRA_QUEUE), _ts(_DIJKSTRA_TS)),
        (
            _js(_PRIM, "that is Prim"),
            _ts(_PRIM_TS, "that is Prim"),
            _js(_SPFA, "takes nodes in FIFO order"),
        ),
    ),
    JsReader(
        "prim",
        js_graphs.prim,
        (_js(_PRIM), _ts(_PRIM_TS)),
        (
            _js(_KRUSKAL, "that is Kruskal"),
            _ts(_DIJKSTRA_TS, "that is Dijkstra"),
            _js(_DIJKSTRA_QUEUE, "that is Dijkstra"),
        ),
    ),
    JsReader(
        "bloom-filter",
        described.for_js(described.bloom_filter),
        (_js(_BLOOM), _ts(_BLOOM_TS)),
        (
            _ts(_SET_FILTER_TS, "no bits set at several hashed positions"),
            _js(_EVERY_BIT, "no bits set at several hashed positions"),
        ),
    ),
    JsReader(
        "lca-binary-lifting",
        described.for_js(described.binary_lifting),
        (_js(_LIFTING), _ts(_LIFTING_TS)),
        (_js(_CLIMB, "climbs one parent at a time"), _ts(_CLIMB_TS, "climbs one parent at a time")),
    ),
)

_BY_NAME: Final = {reader.name: reader for reader in READERS}


def js_reader(name: str) -> JsReader | None:
    """How the catalogue's algorithm `name` is recognised in JS/TS; None: not yet."""
    return _BY_NAME.get(name)


def js_names() -> list[str]:
    """The catalogue's algorithms recognised in JS/TS."""
    return [reader.name for reader in READERS]

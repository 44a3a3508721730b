"""Inputs grown from call cases: what each argument becomes (plain data, no timing), and
verdicts on functions of known growth."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pytest_codeif.functional.input_builder import inputs, like
from pytest_codeif.functional.input_inference import (
    ELEMENT_SIZES,
    SIDE_SIZES,
    VALUE_SIZES,
    Case,
    NoTemplate,
    Plan,
    infer,
)


def plan(*cases: tuple[list[Any], dict[str, Any]], names: tuple[str, ...] = (), **kw: Any) -> Plan:
    return infer([Case(f"c{i}", a, k) for i, (a, k) in enumerate(cases)], names, **kw)


def built(p: Plan, n: int) -> tuple[list[Any], dict[str, Any]]:
    # The description crosses into the sandbox as JSON: build from what JSON keeps.
    return inputs(json.loads(json.dumps(p.description)), n, random.Random(n))


def test_a_list_grows_keeping_type_range_and_shared_properties() -> None:
    p = plan(([[64, 34, 25, 12]], {}), ([[3, 1, 2]], {}), names=("xs",))
    assert p.sizes == ELEMENT_SIZES
    [xs], _ = built(p, 1000)
    assert len(xs) == 1000 and all(type(x) is int for x in xs)
    assert xs != sorted(xs)  # one case was unsorted: no order is imposed
    assert "`xs`: list of n elements, each int in [12, 64]" in p.words
    sorted_plan = plan(([[1, 3, 5, 7], 5], {}), ([[2, 4], 9], {}), names=("arr", "target"))
    [arr, target], _ = built(sorted_plan, 2000)
    assert arr == sorted(arr) and len(set(arr)) == 2000  # sorted and distinct, range widened
    assert target in arr  # a search target is drawn from the grown list
    assert "`target`: drawn from `arr`" in sorted_plan.words


def test_ints_alone_are_sizes_and_grow_in_proportion() -> None:
    p = plan(([1, 10], {}), ([0, 1000], {}), names=("start", "end"))
    assert p.sizes == VALUE_SIZES and p.fit_last == 5
    assert built(p, 64)[0] == [0, 64]  # the largest case (0, 1000) is the template
    fib = plan(([10], {}), names=("n",))
    assert built(fib, 4096)[0] == [4096]


def test_beside_a_collection_an_int_is_held_unless_told() -> None:
    cases = ([[5, 1, 4, 2, 3], 2], {})
    assert built(plan(cases, names=("xs", "k")), 1000)[0][1] == 2
    scaled = plan(cases, names=("xs", "k"), scale=frozenset({"k"}))
    assert built(scaled, 1000)[0][1] == 400  # 2 of 5 grows to 400 of 1000
    held = plan(cases, names=("xs", "k"), hold=frozenset({"xs"}))
    assert built(held, 16)[0] == [[5, 1, 4, 2, 3], 16]  # now the int is the only size


@pytest.mark.parametrize(
    ("value", "check", "words"),
    [
        (
            [["1", "0", "1"], ["0", "0", "1"]],
            lambda v: len(v) == 64 and len(v[0]) == 96 and {x for r in v for x in r} <= {"0", "1"},
            "n*2/3 rows x n columns matrix of one of '1', '0'",
        ),
        (
            {"A": ["B", "C"], "B": ["A"], "C": ["A"]},
            lambda v: len(v) == 64 and all(k in v[o] for k, ns in v.items() for o in ns),
            "undirected adjacency dict of n nodes",
        ),
        (
            {"n1": {"name": "Ann", "age": 31}, "n2": {"name": "Bob", "age": 45}},
            lambda v: len(v) == 64 and all(31 <= r["age"] <= 45 for r in v.values()),
            "dict of n entries, keys str like 'n1', values dict of name, age",
        ),
        (
            '{"scores": [85, 90, 78]}',
            lambda v: len(json.loads(v)) == 64,
            "JSON text of dict of n entries",
        ),
        (
            {"value": 1, "next": {"value": 2, "next": None}},
            lambda v: _chain_length(v) == 64,
            "linked chain of n nodes (by `next`)",
        ),
        (
            [[0, 1, 4], [1, 2, 2], [0, 2, 7]],
            lambda v: len(v) == 64 and all(4 >= len(e) == 3 for e in v),
            "edge list of n edges",
        ),
        (
            "hello world",
            lambda v: len(v) == 64 and set(v) <= set("hello world"),
            "str of n characters from ' dehlorw'",
        ),
    ],
)
def test_each_shape_grows_as_itself(value: Any, check: Any, words: str) -> None:
    p = plan(([value], {}), names=("x",))
    n = 64 if p.sizes != SIDE_SIZES else 96
    assert check(built(p, n)[0][0])
    assert words in p.words


def _chain_length(node: Any) -> int:
    length = 0
    while node is not None:
        node, length = node["next"], length + 1
    return length


def test_a_graph_search_starts_where_everything_is_reachable() -> None:
    p = plan(([{"A": ["B"], "B": ["C"], "C": []}, "A"], {}), names=("graph", "start"))
    [graph, start], _ = built(p, 500)
    seen, todo = {start}, [start]
    while todo:
        for other in graph[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    assert len(seen) == 500


def test_a_case_passing_other_types_than_most_is_not_grown() -> None:
    # "Non-list input validation" passes a long str where most cases pass a list: grown,
    # it would time the error path, so the largest list case is the template.
    cases = (
        (["not a list but a rather long string of text"], {}),
        ([None], {}),
        ([["a@x.io", "b@x.io"]], {}),
        ([["a@x.io", "a@x.io", "c@x.io"]], {}),
        ([[]], {}),
    )
    p = plan(*cases, names=("emails",))
    assert "inputs grown from case c3" in p.words
    assert "not grown from c0, c1: argument types unlike most cases'" in p.words
    [emails], _ = built(p, 1000)
    assert isinstance(emails, list) and len(emails) == 1000
    # Without a strict majority nothing is set aside: the largest case is grown.
    even = plan((["a long string of text"], {}), ([["a", "b"]], {}), names=("xs",))
    assert "inputs grown from case c0" in even.words and "not grown" not in even.words


def test_dates_floats_and_bools_are_held() -> None:
    p = plan(([[3, 1, 2], "2024-05-01", 0.5, True], {}), names=("xs", "day", "rate", "flag"))
    args, _ = built(p, 1000)
    assert args[1:] == ["2024-05-01", 0.5, True]


def test_nothing_to_grow_is_said() -> None:
    with pytest.raises(NoTemplate, match="no argument can grow"):
        plan(([0.5, "2024-01-01"], {}))
    with pytest.raises(NoTemplate, match="no call case returned"):
        infer([])
    with pytest.raises(NoTemplate, match="no value to grow but None"):
        plan(([[None, None, None]], {}), ([[]], {}))  # e.g. three empty linked lists


def test_strings_drawn_like_a_template_keep_their_form() -> None:
    """Each letter or digit becomes a random one of its class; the rest is kept."""
    template = "Alice.B7@example-9.com"
    drawn = [like(template, random.Random(seed)) for seed in range(20)]
    for string in drawn:
        assert len(string) == len(template)
        for kept, new in zip(template, string, strict=True):
            if kept.isdigit():
                assert new.isdigit(), (template, string)
            elif kept.isascii() and kept.isupper():
                assert new.isascii() and new.isupper(), (template, string)
            elif kept.isascii() and kept.islower():
                assert new.isascii() and new.islower(), (template, string)
            else:
                assert new == kept, (template, string)
    assert len(set(drawn)) > 1 and template not in drawn  # drawn, not copied


KNOWN_GROWTH = """
tasks:
  - id: growth
    code: |
      from functools import lru_cache

      def builtin_sort(xs):
          return sorted(xs)

      def bubble_sort(xs):
          xs = list(xs)
          for i in range(len(xs)):
              for j in range(len(xs) - 1 - i):
                  if xs[j] > xs[j + 1]:
                      xs[j], xs[j + 1] = xs[j + 1], xs[j]
          return xs

      def lookup(index, key):
          return index.get(key)

      def scan(items, target):
          for i, item in enumerate(items):
              if item == target:
                  return i
          return -1

      @lru_cache(maxsize=None)
      def fib_memo(n):
          return n if n < 2 else fib_memo(n - 1) + fib_memo(n - 2)

      def fib_naive(n):
          return n if n < 2 else fib_naive(n - 1) + fib_naive(n - 2)

      def cell_sum(grid):
          return sum(sum(row) for row in grid)

      def matmul(a):
          size = len(a)
          return [[sum(a[i][k] * a[k][j] for k in range(size)) for j in range(size)]
                  for i in range(size)]
    timeout: 30
    constraints:
      - {check: complexity, id: sorted-nlogn, function: builtin_sort, time: O(n log n)}
      - {check: complexity, id: bubble-nlogn, function: bubble_sort, time: O(n log n)}
      - {check: complexity, id: lookup-1, function: lookup, time: O(1)}
      - {check: complexity, id: scan-1, function: scan, time: O(1)}
      - {check: complexity, id: memo-n, function: fib_memo, time: O(n)}
      - {check: complexity, id: naive-n, function: fib_naive, time: O(n)}
      - {check: complexity, id: cells-n2, function: cell_sum, time: O(n^2)}
      - {check: complexity, id: matmul-n2, function: matmul, time: O(n^2)}
    tests:
      - {function: builtin_sort, args: [[5, 3, 9, 1, 7]], expect: [1, 3, 5, 7, 9]}
      - {function: bubble_sort, args: [[5, 3, 9, 1, 7]], expect: [1, 3, 5, 7, 9]}
      - {function: lookup, args: [{k1: 1, k2: 2, k3: 3}, k2], expect: 2}
      - {function: scan, args: [[4, 8, 15, 16, 23, 42], 16], expect: 3}
      - {function: fib_memo, args: [10], expect: 55}
      - {function: fib_naive, args: [10], expect: 55}
      - {function: cell_sum, args: [[[1, 2], [3, 4]]], expect: 10}
      - {function: matmul, args: [[[1, 0], [0, 1]]], expect: [[1, 0], [0, 1]]}
"""


def test_known_growth_is_told_apart(pytester: pytest.Pytester) -> None:
    """Validation of grown inputs: each pair differs by at least one degree."""
    pytester.makefile(".codeif.yaml", t=KNOWN_GROWTH)
    result = pytester.runpytest_subprocess(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    verdicts = {c["constraint"]: c["status"] for t in report["tasks"] for c in t["constraints"]}
    assert verdicts == {
        "sorted-nlogn": "satisfied",
        "bubble-nlogn": "violated",
        "lookup-1": "satisfied",
        "scan-1": "violated",
        "memo-n": "satisfied",
        "naive-n": "violated",
        "cells-n2": "satisfied",
        "matmul-n2": "violated",
    }, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*inputs grown from case*`items`: list of n elements*"])

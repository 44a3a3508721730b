"""Shapes as types: what annotations and observed values say about graph, matrix, tree,
JSON text and date/time text, and the `types` and `values` checks reading them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_codeif.checks.shared.annotations import normalize_annotation
from pytest_codeif.checks.shared.shapes import Reading, read_annotation, value_has_shape
from pytest_codeif.functional.plain import Unsupported


@pytest.mark.parametrize(
    ("annotation", "shape", "reading"),
    [
        ("Dict[str, List[str]]", "graph", Reading.PROVES),
        ("dict[int, set[int]]", "graph", Reading.PROVES),
        ("Mapping[str, Dict[str, float]]", "graph", Reading.PROVES),
        ("List[Tuple[int, int]]", "graph", Reading.PROVES),
        ("nx.Graph", "graph", Reading.PROVES),
        ("WeightedGraph", "graph", Reading.PROVES),
        ("dict", "graph", Reading.ADMITS),
        ("dict[str, Any]", "graph", Reading.ADMITS),
        ("dict[str, int]", "graph", Reading.EXCLUDES),
        ("list[str]", "graph", Reading.EXCLUDES),
        ("List[List[float]]", "matrix", Reading.PROVES),
        ("np.ndarray", "matrix", Reading.PROVES),
        ("list", "matrix", Reading.ADMITS),
        ("list[dict]", "matrix", Reading.EXCLUDES),
        ("list[list[dict]]", "matrix", Reading.EXCLUDES),
        ("Optional[TreeNode]", "tree", Reading.PROVES),
        ("dict", "tree", Reading.ADMITS),
        ("int", "tree", Reading.EXCLUDES),
        ("str", "json-text", Reading.ADMITS),
        ("dict", "json-text", Reading.EXCLUDES),
        ("datetime.date", "datetime-text", Reading.PROVES),
        ("Optional[str]", "datetime-text", Reading.ADMITS),
    ],
)
def test_annotations_prove_admit_or_exclude(annotation: str, shape: str, reading: Reading) -> None:
    normalized = normalize_annotation(annotation)
    assert read_annotation(normalized, shape, frozenset({"TreeNode"})) is reading


@pytest.mark.parametrize(
    ("value", "shape", "verdict"),
    [
        ({"0": [1], "1": [0], "2": []}, "graph", True),
        ({"A": {"B": 2.5}, "B": {}}, "graph", True),
        ({"A": [["B", 3]], "B": []}, "graph", True),
        ([[0, 1], [1, 2]], "graph", True),
        ([[0, 1, 1], [1, 0, 0], [1, 0, 0]], "graph", True),
        ({}, "graph", None),
        ({"name": "x", "age": 3}, "graph", False),
        ([[1, 2], [3, 4]], "matrix", True),
        ([[1, 2], [3]], "matrix", False),
        ([[{"a": 1}]], "matrix", False),
        ([], "matrix", None),
        ({"id": 1, "children": [{"id": 2, "children": []}]}, "tree", True),
        ({"hostname": "r1", "routes": {"bgp": {"asn": 1}}}, "tree", True),
        (Unsupported("solution.TreeNode"), "tree", True),
        (Unsupported("solution.Other"), "tree", None),
        ([1, 2], "tree", False),
        (json.dumps({"a": [1, 2]}), "json-text", True),
        ("{'a': 1}", "json-text", False),
        ("3", "json-text", False),
        ("2024-05-01", "datetime-text", True),
        ("2024-05-01T10:30:00+02:00", "datetime-text", True),
        ("10:30", "datetime-text", True),
        ("May 1st", "datetime-text", False),
    ],
)
def test_values_are_read_by_structure(value: Any, shape: str, verdict: bool | None) -> None:
    assert value_has_shape(value, shape, frozenset({"TreeNode"})) is verdict


TASK = """
tasks:
  - id: shapes
    code: |
      import json

      class TreeNode:
          def __init__(self, value):
              self.value = value
              self.children = []

      def components(adjacency):
          seen, count = set(), 0
          for start in adjacency:
              if start in seen:
                  continue
              count += 1
              todo = [start]
              while todo:
                  node = todo.pop()
                  if node not in seen:
                      seen.add(node)
                      todo.extend(str(n) for n in adjacency[node])
          return count

      def build(config: dict) -> TreeNode:
          return TreeNode(config)

      def stamp(day):
          return day + "T00:00:00"

      def summary(rows):
          return json.dumps({"rows": len(rows)})
    entry-point: components
    constraints:
      - {check: types, id: graph-in, function: components, param-types: [graph]}
      - {check: types, id: tree-out, function: build, returns: tree}
      - {check: types, id: date-out, function: stamp, returns: datetime-text}
      - {check: types, id: json-out, function: summary, returns: json-text}
      - {check: types, id: not-matrix, function: components, param-types: [matrix]}
      - check: values
        id: vertices
        function: components
        arguments: {type: graph, min-length: 3, max-length: 20}
    tests:
      - args: [{"0": [1], "1": [0], "2": []}]
        expect: 2
      - function: stamp
        args: ["2024-05-01"]
        expect: "2024-05-01T00:00:00"
"""


def test_checks_read_shapes(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=TASK)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    verdicts = {c["constraint"]: c["status"] for t in report["tasks"] for c in t["constraints"]}
    assert verdicts == {
        "graph-in": "satisfied",  # the argument observed is an adjacency dict
        "tree-out": "satisfied",  # annotated with a node class holding `children`
        "date-out": "satisfied",  # observed "2024-05-01T00:00:00"
        "json-out": "satisfied",  # `return json.dumps(...)`, never called
        "not-matrix": "violated",
        "vertices": "satisfied",
    }, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*returned only for a dict of 3 entries arguments*matrix*"])

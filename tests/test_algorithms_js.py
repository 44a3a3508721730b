"""The `named-algorithm` and `algorithm` checks on JavaScript and TypeScript: which
algorithms are read in JS/TS (and the task error for the others), verdicts and evidence
at file:line in real pytest runs (a class method, an arrow function, a near miss), the
language-neutral description read alike from both languages, and the verdicts on the
MultiCodeIF JS responses whose record names an algorithm (skipped when ../shared is
absent)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif import Sample
from pytest_codeif.checks.named_algorithm import NamedAlgorithmCheck
from pytest_codeif.checks.named_algorithm.catalogue import lookup, names
from pytest_codeif.checks.named_algorithm.described import binary_lifting, bloom_filter
from pytest_codeif.checks.named_algorithm.facts import js_facts, normalised, python_facts
from pytest_codeif.checks.named_algorithm.js_catalogue import READERS, js_names
from pytest_codeif.checks.named_algorithm.recogniser import Code
from pytest_codeif.checks.shared.js_algorithms_parts import JsCode
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.testing import sample_verdict
from tests.conftest import CORPUS


def test_the_corpus_algorithms_are_read_in_js_with_samples_in_both_languages() -> None:
    wanted = {
        "kadane",
        "bubble-sort",
        "selection-sort",
        "merge-sort",
        "bloom-filter",
        "lca-binary-lifting",
        "prim",
    }
    assert wanted <= set(js_names())
    assert set(js_names()) <= set(names())
    for reader in READERS:
        for examples in (reader.satisfied, reader.violated):
            assert {e.language for e in examples} == {"javascript", "typescript"}, reader.name
        assert all(e.message for e in reader.violated), reader.name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Maximum subarray problem", "kadane"),
        ("Bloom Filter", "bloom-filter"),
        ("LCA using Binary Lifting", "lca-binary-lifting"),
        ("Prim's minimum spanning tree", "prim"),
        ("merge sort algorithm", "merge-sort"),
    ],
)
def test_the_js_records_answers_are_looked_up(text: str, name: str) -> None:
    found = lookup(text)
    assert found is not None and found.name == name


def _js(text: str, language: str = "javascript") -> JsCode:
    suffix = ".ts" if language == "typescript" else ".js"
    source = SourceFile(f"m{suffix}", textwrap.dedent(text), Path(f"m{suffix}"), language=language)
    return JsCode([(JsModule(source), None)])


def _python(text: str) -> Code:
    module = ParsedModule(SourceFile("m.py", textwrap.dedent(text), Path("m.py")))
    return Code([(module, module.tree)], list, lambda f, c: [])


def test_the_neutral_description_reads_both_languages_alike() -> None:
    # One recogniser, two readers: the same shapes, spelled each language's way.
    assert normalised("this.up.get(node)![k - 1]".replace(" ", "")) == "self.up[node][k-1]"
    python_lift = _python(
        """
        def build(up, n, levels):
            for k in range(1, levels):
                for v in range(n):
                    mid = up[v][k - 1]
                    up[v][k] = up[mid][k - 1]

        def lift(up, u, k):
            while k:
                u = up[u][k]
                k -= 1
            return u
        """
    )
    js_lift = _js(
        """
        function build(up, n, levels) {
          for (let k = 1; k < levels; k++)
            for (let v = 0; v < n; v++) {
              const mid = up.get(v)[k - 1];
              up.get(v)[k] = up.get(mid)[k - 1];
            }
        }
        function lift(up, u, k) {
          while (k) { u = up.get(u)[k]; k--; }
          return u;
        }
        """
    )
    assert binary_lifting(python_facts(python_lift)).found
    assert binary_lifting(js_facts(js_lift)).found
    # A set of the items is exact membership in either language.
    python_set = _python(
        "class F:\n    def __init__(self):\n        self.s = set()\n"
        "    def add(self, x):\n        self.s.add(x)\n"
    )
    js_set = _js("class F { constructor() { this.s = new Set(); } add(x) { this.s.add(x); } }")
    assert not bloom_filter(python_facts(python_set)).found
    assert not bloom_filter(js_facts(js_set)).found


def _run(pytester: pytest.Pytester, tasks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    pytester.makefile(".codeif.yaml", t=yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    return {f"{t['id']}::{c['constraint']}": c for t in report["tasks"] for c in t["constraints"]}


INSERTION_AS_BUBBLE = """\
```javascript
function sortGrades(xs) {
  const a = [...xs];
  for (let i = 1; i < a.length; i++) {
    for (let j = i; j > 0 && a[j - 1] > a[j]; j--) {
      [a[j - 1], a[j]] = [a[j], a[j - 1]];
    }
  }
  return a;
}
```
"""
BUBBLE_METHOD_TS = """\
```typescript
export class Grades {
  constructor(private readonly xs: number[]) {}

  sorted(): number[] {
    const a = [...this.xs];
    for (let i = 0; i < a.length; i++) {
      for (let j = 0; j + 1 < a.length - i; j++) {
        if (a[j] > a[j + 1]) this.swap(a, j, j + 1);
      }
    }
    return a;
  }

  private swap(a: number[], i: number, j: number): void {
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
```
"""
MERGE_ARROW = """\
```javascript
const merge = (l, r) => {
  const out = [];
  while (l.length && r.length) out.push(l[0].score >= r[0].score ? l.shift() : r.shift());
  return [...out, ...l, ...r];
};
const mergeSort = (xs) => {
  if (xs.length < 2) return xs;
  const mid = Math.floor(xs.length / 2);
  return merge(mergeSort(xs.slice(0, mid)), mergeSort(xs.slice(mid)));
};
```
"""
MERGE_ARROW_IF = MERGE_ARROW.replace(
    "while (l.length && r.length) out.push(l[0].score >= r[0].score ? l.shift() : r.shift());",
    "while (l.length && r.length) {\n    if (l[0].score >= r[0].score) out.push(l.shift());\n"
    "    else out.push(r.shift());\n  }",
)
MIN_PRICE = """\
```javascript
function maxProfit(prices) {
  let low = Infinity, best = 0;
  for (const p of prices) {
    if (p < low) low = p;
    else best = Math.max(best, p - low);
  }
  return best;
}
```
"""


def test_verdicts_and_evidence_in_a_real_run(pytester: pytest.Pytester) -> None:
    def task(id_: str, response: str, language: str, **options: object) -> dict[str, object]:
        return {
            "id": id_,
            "language": language,
            "response": response,
            "constraints": [{"check": "named-algorithm", **options}],
        }

    verdicts = _run(
        pytester,
        [
            task("near", INSERTION_AS_BUBBLE, "javascript", name="bubble-sort"),
            task(
                "method",
                BUBBLE_METHOD_TS,
                "typescript",
                name="bubble-sort",
                function="Grades.sorted",
            ),
            task("arrow", MERGE_ARROW, "javascript", name="merge-sort"),
            # Scoped to one function, the code is that function alone (as for Python):
            # its merge helper is outside.
            task("scoped", MERGE_ARROW_IF, "javascript", name="merge-sort", function="mergeSort"),
            task("price", MIN_PRICE, "javascript", name="kadane"),
            task("nothing", MIN_PRICE, "javascript", name="miller-rabin"),
            task("absent", MIN_PRICE, "javascript", name="kadane", function="kadane"),
        ],
    )
    near = verdicts["near::named-algorithm"]
    assert near["status"] == "violated"
    [evidence] = near["evidence"]
    assert "the neighbour swaps walk downwards (line 5)" in evidence["message"]
    assert "that is insertion sort" in evidence["message"]
    assert (evidence["code_path"], evidence["code_line"]) == ("solution.js", 5)
    # A class method calling a swap helper, and an arrow function: both recognised.
    assert verdicts["method::named-algorithm"]["status"] == "satisfied"
    assert "passes swapping neighbours" in " ".join(verdicts["method::named-algorithm"]["notes"])
    assert verdicts["arrow::named-algorithm"]["status"] == "satisfied"
    scoped = verdicts["scoped::named-algorithm"]
    assert scoped["status"] == "violated"
    assert (
        "recursion on both halves (line 9) but no merge of two sorted runs"
        in (scoped["evidence"][0]["message"])
    )
    price = verdicts["price::named-algorithm"]
    assert price["status"] == "violated"
    assert price["evidence"][0]["code_line"] == 4
    assert "keeps the lowest value so far" in price["evidence"][0]["message"]
    # An algorithm with no JS reader yet: a located task error naming it, not a verdict.
    nothing = verdicts["nothing::named-algorithm"]
    assert (nothing["status"], nothing["error_kind"]) == ("error", "invalid-task")
    assert "`miller-rabin` (Miller-Rabin) is not recognised in JavaScript" in nothing["error"]
    absent = verdicts["absent::named-algorithm"]
    assert absent["status"] == "violated"
    assert (
        "function `kadane` is not defined (functions found: maxProfit)"
        in (absent["evidence"][0]["message"])
    )


GREEDY = """\
```javascript
function plan(exercises, limit) {
  const ranked = [...exercises].sort((a, b) => b.calories / b.duration - a.calories / a.duration);
  const chosen = [];
  let used = 0;
  for (const e of ranked) {
    if (used + e.duration <= limit) {
      chosen.push(e);
      used += e.duration;
    }
  }
  return chosen;
}
```
"""


def test_the_algorithm_check_reads_js_in_a_real_run(pytester: pytest.Pytester) -> None:
    unsorted = GREEDY.replace(
        "[...exercises].sort((a, b) => b.calories / b.duration - a.calories / a.duration)",
        "exercises",
    )
    verdicts = _run(
        pytester,
        [
            {
                "id": "greedy",
                "language": "javascript",
                "response": GREEDY,
                "constraints": [
                    {"check": "algorithm", "require": ["greedy"], "forbid": ["recursion"]}
                ],
            },
            {
                "id": "unsorted",
                "language": "javascript",
                "response": unsorted,
                "constraints": [{"check": "algorithm", "require": ["greedy"], "function": "plan"}],
            },
        ],
    )
    assert verdicts["greedy::algorithm"]["status"] == "satisfied"
    unsorted_outcome = verdicts["unsorted::algorithm"]
    assert unsorted_outcome["status"] == "violated"
    [evidence] = unsorted_outcome["evidence"]
    assert evidence["message"] == "`plan` shows no greedy, which is required"
    assert (evidence["code_path"], evidence["code_line"]) == ("solution.js", 1)


#: Hand labels of the MultiCodeIF JavaScript responses whose record names an algorithm
#: (read before the checks ran): these violate it, every other one satisfies it.
JS_VIOLATIONS = {
    ("Qwen3-1.7B", 8),  # a prefix sum that never restarts
    ("Llama-3.2-3B", 16),  # lowest price so far, no running sum
    ("Qwen3-1.7B", 16),  # the sum restarts on each falling day, not when it goes negative
    ("deepseek-v3-0324", 16),  # lowest price so far
    ("Qwen3-1.7B", 32),  # add() flips every bit; no hashed positions
    ("Llama-3.2-3B", 42),  # compares parent paths
    ("Qwen3-1.7B", 42),  # climbs one level at a time
    ("Llama-3.2-3B", 50),  # Kruskal
}
#: Record -> the constraint its answer maps to.
JS_RECORDS = {
    8: {"check": "named-algorithm", "name": "kadane"},
    16: {"check": "named-algorithm", "name": "kadane"},
    22: {"check": "named-algorithm", "name": "bubble-sort"},
    32: {"check": "named-algorithm", "name": "bloom-filter"},
    42: {"check": "named-algorithm", "name": "lca-binary-lifting"},
    47: {"check": "named-algorithm", "name": "selection-sort"},
    50: {"check": "named-algorithm", "name": "prim"},
    53: {"check": "named-algorithm", "name": "merge-sort"},
    54: {"check": "algorithm", "require": ["greedy"]},
}
ALL_LANGUAGES = CORPUS / "all-languages"


@pytest.mark.skipif(not ALL_LANGUAGES.is_dir(), reason="../shared corpus absent")
def test_corpus_js_algorithm_responses_agree_with_the_hand_labels(
    pytester: pytest.Pytester,
) -> None:
    tasks = []
    for path in sorted((ALL_LANGUAGES / "responses").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            kind, _, number = record["key"].partition("/")
            if kind != "algorithm_type" or int(number) not in JS_RECORDS:
                continue
            tasks.append(
                {
                    "id": f"{number}--{record['model']}",
                    "language": "javascript",
                    "response": record["response"],
                    "constraints": [JS_RECORDS[int(number)]],
                }
            )
    assert len(tasks) == 54
    verdicts = _run(pytester, tasks)
    wrong = {
        key: outcome["status"]
        for key, outcome in verdicts.items()
        if outcome["status"]
        != (
            "violated"
            if (key.split("--")[1].split("::")[0], int(key.split("--")[0])) in JS_VIOLATIONS
            else "satisfied"
        )
    }
    assert len(verdicts) == 54 and not wrong


def test_python_and_js_together(tmp_path: Path) -> None:
    merge_sort = (
        "function sort(xs) {\n  if (xs.length < 2) return xs;\n"
        "  const mid = xs.length >> 1;\n"
        "  const l = sort(xs.slice(0, mid)), r = sort(xs.slice(mid));\n"
        "  const out = [];\n  while (l.length && r.length) {\n"
        "    if (l[0] <= r[0]) out.push(l.shift());\n    else out.push(r.shift());\n  }\n"
        "  return [...out, ...l, ...r];\n}\n"
    )
    files = {"helpers.py": "def total(xs):\n    return sum(xs)\n", "sort.js": merge_sort}
    # Found in either language: the JS merge sort counts beside unrelated Python.
    merge = sample_verdict(NamedAlgorithmCheck, Sample(files, {"name": "merge-sort"}), tmp_path)
    assert merge.status == "satisfied"
    # An algorithm not read in JS/TS yet: the Python verdict stands, no task error.
    prime = sample_verdict(
        NamedAlgorithmCheck, Sample(files, {"name": "miller-rabin"}), tmp_path / "prime"
    )
    assert prime.status == "violated"

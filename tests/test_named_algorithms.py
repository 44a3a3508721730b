"""The `named-algorithm` check: its catalogue (names, instruction spellings, near
misses), how `codeif import multicodeif` maps named algorithms, verdicts and evidence in
real pytest runs (behaviour read from call cases run in the sandbox), and the verdicts on
the MultiCodeIF responses that name an algorithm (skipped when ../shared is absent)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import yaml

from pytest_codeif import Sample
from pytest_codeif.checks.named_algorithm import NamedAlgorithmCheck
from pytest_codeif.checks.named_algorithm.catalogue import CATALOGUE, lookup, names
from pytest_codeif.importers.multicodeif import Unmapped, import_multicodeif, map_constraint
from pytest_codeif.testing import sample_verdict
from tests.conftest import CORPUS


def test_the_catalogue_covers_the_classics_each_with_near_misses() -> None:
    assert len(CATALOGUE) >= 20
    assert len(set(names())) == len(CATALOGUE)
    for recogniser in CATALOGUE:
        assert recogniser.satisfied and recogniser.violated, recogniser.name
        # A near miss proves what the evidence says, not only that something is wrong.
        assert all(example.message for example in recogniser.violated), recogniser.name
    schema = NamedAlgorithmCheck.options_schema["properties"]["name"]["enum"]
    assert schema == names()
    doc = inspect.cleandoc(NamedAlgorithmCheck.__doc__ or "")
    assert all(f"- `{name}` (" in doc for name in names())


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Miller-Rabin's method", "miller-rabin"),
        ("FNV-1a hashing algorithm", "fnv-1a"),
        ("FNV-1", "fnv-1"),
        ("Kadane's Algorithm", "kadane"),
        ("B-Tree", "b-tree"),
        ("Fibonacci Heap", "fibonacci-heap"),
        ("in-place shuffling", "fisher-yates"),
        ("Dijkstra\u2019s algorithm", "dijkstra"),
        ("Union-Find", "union-find"),
        ("Sieve of Eratosthenes", "sieve-of-eratosthenes"),
        ("Knuth-Morris-Pratt", "kmp"),
        ("Quick Sort", "quicksort"),
        ("Floyd's cycle detection", "floyd-cycle"),
        ("LRU cache", "lru-cache"),
    ],
)
def test_instruction_spellings_are_looked_up(text: str, name: str) -> None:
    found = lookup(text)
    assert found is not None and found.name == name


@pytest.mark.parametrize("text", ["Huffman coding", "dynamic programming", "merge", "sort", ""])
def test_names_outside_the_catalogue_are_not_guessed(text: str) -> None:
    assert lookup(text) is None


def _mapped(answer: str) -> list[dict]:
    record = {"type_file": "algorithm_type", "answer": answer, "prompt": ""}
    return map_constraint(record, None).constraints


def test_the_importer_maps_named_algorithms_and_lists_unknown_ones() -> None:
    assert _mapped("Kadane's Algorithm") == [{"check": "named-algorithm", "name": "kadane"}]
    # "in-place shuffling" names the technique, which random.shuffle on the list is too.
    assert _mapped("in-place shuffling") == [
        {"check": "named-algorithm", "name": "fisher-yates", "allow-library": True}
    ]
    assert _mapped("dynamic programming") == [
        {"check": "algorithm", "require": ["dynamic-programming"]}
    ]
    with pytest.raises(Unmapped, match="neither a technique of `algorithm` nor in the catalog"):
        _mapped("Huffman coding")


def test_code_nested_too_deeply_is_an_error_not_a_crash(tmp_path: Path) -> None:
    # 1,500 `elif`s parse, but libcst walks and prints them recursively.
    arms = "".join(f"    elif n == {i}:\n        return f(n - {i})\n" for i in range(1, 1500))
    code = f"def f(n):\n    if n == 0:\n        return f(n - 1)\n{arms}"
    sample = Sample(code, {"name": "quicksort"})
    verdict = sample_verdict(NamedAlgorithmCheck, sample, tmp_path)
    assert (verdict.status, verdict.error_kind) == ("error", "too-large")
    assert verdict.error == "the code is nested too deeply to recognise quicksort"


TRIAL_DIVISION = """\
```python
def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True
```
"""
# Miller-Rabin's shape, but a witness that never finds n - 1 is not called a liar: it
# says every odd number is prime, Carmichael numbers included.
BROKEN_MILLER_RABIN = """\
def is_prime(n):
    if n < 4:
        return n in (2, 3)
    if n % 2 == 0:
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
    return True
"""
FNV_1A = """\
def fnv1a(text):
    h = 0x811C9DC5
    for byte in text.encode():
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h
"""


def test_verdicts_and_evidence_in_a_real_run(pytester: pytest.Pytester) -> None:
    tasks = [
        {
            "id": "trial",
            "response": TRIAL_DIVISION,
            "constraints": [{"check": "named-algorithm", "name": "miller-rabin"}],
        },
        {
            "id": "broken",
            "code": BROKEN_MILLER_RABIN,
            "tests": [{"call": "is_prime(561)", "expect": False}],
            "constraints": [
                {"check": "named-algorithm", "name": "miller-rabin", "function": "is_prime"}
            ],
        },
        {
            "id": "hash",
            "code": FNV_1A,
            "tests": [{"call": "fnv1a('hello')", "expect": 0x4F9F2CAB}],
            "constraints": [
                {"check": "named-algorithm", "name": "fnv-1a"},
                {"check": "named-algorithm", "name": "fnv-1"},
            ],
        },
    ]
    pytester.makefile(".codeif.yaml", t=yaml.safe_dump({"tasks": tasks}, sort_keys=False))
    result = pytester.runpytest_subprocess(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json"
    )
    # Passed: hash's fnv-1a and its tests; failed: trial, broken (check and the
    # functional test it fails), hash's fnv-1.
    result.assert_outcomes(passed=2, failed=4)
    result.stdout.fnmatch_lines(
        [
            "*does not implement Miller-Rabin: no modular exponentiation pow(a, d, n) with a "
            "loop of witness rounds: looks like trial division*",
            "*is_prime(561) returned True: 561 = 3 · 11 · 17 is a Carmichael number*",
            "*does not implement FNV-1: the loop xors each byte in, then multiplies*that is "
            "FNV-1a*",
        ]
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    hashed = next(t for t in report["tasks"] if t["id"].endswith("hash"))
    notes = " ".join(n for c in hashed["constraints"] for n in c.get("notes", []))
    assert "FNV-1a found in the code" in notes
    assert "the values returned on 1 call case(s) are FNV-1a hashes" in notes


#: The hand-read labels of the MultiCodeIF responses whose record names an algorithm
#: (the first answers of the six models): these violate it, every other one satisfies it.
VIOLATIONS = {
    ("Llama-3.2-3B", "algorithm_type/18"),  # imports a `btree` module
    ("Llama-3.2-3B", "algorithm_type/30"),  # offset basis used as the FNV prime
    ("Llama-3.2-3B", "algorithm_type/48"),  # no consolidation by degree
    ("Qwen3-1.7B", "algorithm_type/18"),  # a binary search tree called BTree
    ("Qwen3-1.7B", "algorithm_type/30"),  # neither FNV constant
    ("Qwen3-1.7B", "algorithm_type/38"),  # trial division
    ("Qwen3-1.7B", "algorithm_type/48"),  # a dict, no heap nodes
    ("deepseek-r1", "algorithm_type/18"),  # bintrees.BTree from a library
    ("deepseek-r1", "algorithm_type/24"),  # shuffles a copy of the list
}
NAMED = ("18", "24", "30", "36", "38", "48")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus absent")
def test_corpus_named_algorithms_map_and_agree_with_the_hand_labels(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    keys = {f"algorithm_type/{n}" for n in NAMED}
    source = tmp_path / "source"
    (source / "responses").mkdir(parents=True)
    records = [
        line
        for line in (CORPUS / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line)["type_file"] == "algorithm_type"
    ]
    (source / "tasks.jsonl").write_text("\n".join(records) + "\n", encoding="utf-8")
    for path in sorted((CORPUS / "responses").glob("*.jsonl")):
        kept = [
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["key"] in keys
        ]
        (source / "responses" / path.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    result = import_multicodeif(
        source / "tasks.jsonl", sorted((source / "responses").glob("*.jsonl")), pytester.path
    )
    # Every algorithm record of the corpus maps now (8 of its 14 before the catalogue).
    assert not [u for u in result.unmapped if u["type_file"] == "algorithm_type"]
    assert result.tasks == 36
    pytester.runpytest_subprocess(
        "--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json", "-q"
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    verdicts = {
        (task["metadata"]["model"], task["metadata"]["key"]): outcome["status"]
        for task in report["tasks"]
        for outcome in task["constraints"]
        if outcome["check"] == "named-algorithm"
    }
    assert len(verdicts) == 36
    wrong = {
        pair: status
        for pair, status in verdicts.items()
        if status != ("violated" if pair in VIOLATIONS else "satisfied")
    }
    assert not wrong

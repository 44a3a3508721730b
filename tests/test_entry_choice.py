"""The function an imported record's tests and complexity check call: chosen only where the
response leaves no doubt, and left unchosen with a precise reason where it does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_codeif.importers.entry_choice import EntryChoice, choose_entry
from pytest_codeif.importers.multicodeif import build_task

HELPERS_AND_MAIN = """
def load_rows(path):
    return open(path).read().split()

def count_pairs(rows, target):
    return sum(1 for r in rows if r == target)

def main():
    rows = load_rows("rows.txt")
    print(count_pairs(rows, "x"))

if __name__ == "__main__":
    main()
"""

TWO_FITTING = """
def parse(text):
    return text.split()

def tally(words):
    return len(words)

if __name__ == "__main__":
    print(tally(parse("a b")))
"""


def cases(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    return [{"input": {"args": list(args), "kwargs": kwargs}, "expected_output": 0}]


def test_the_function_the_prompt_names_wins() -> None:
    choice = choose_entry("count_pairs", HELPERS_AND_MAIN, cases(["x"], "x"))
    assert choice == EntryChoice("count_pairs", "named by the prompt")


def test_the_only_top_level_function_is_chosen() -> None:
    code = "def solve(xs):\n    return sorted(xs)\n\nclass Helper:\n    pass\n"
    assert choose_entry(None, code, cases([3, 1])).name == "solve"
    # `main` and private helpers are not candidates.
    code += "\ndef _step(x):\n    return x\n\ndef main():\n    solve([2])\n"
    assert choose_entry(None, code, cases([3, 1])).name == "solve"


def test_the_function_the_responses_main_calls_with_the_tests_arguments() -> None:
    # `main()` calls two functions; only `count_pairs` takes the tests' two arguments.
    choice = choose_entry(None, HELPERS_AND_MAIN, cases(["x", "y"], "x"))
    assert choice.name == "count_pairs"
    assert "example calls" in choice.why
    # A keyword-only test case (names the benchmark invented) does not veto the choice.
    tests = cases(["x"], "x") + cases(csv_file="rows.csv")
    assert choose_entry(None, HELPERS_AND_MAIN, tests).name == "count_pairs"
    # Module-level example calls count too.
    example = HELPERS_AND_MAIN.replace('if __name__ == "__main__":\n    main()', "")
    example += 'print(count_pairs(["a"], "a"))\n'
    assert choose_entry(None, example, cases(["x"], "x")).name == "count_pairs"


@pytest.mark.parametrize(
    ("code", "tests", "reason"),
    [
        (TWO_FITTING, cases("a b"), r"several functions .* \(tally, parse\): not guessed"),
        (HELPERS_AND_MAIN, cases(1, 2, 3), r"example calls \(load_rows, count_pairs\), none takes"),
        (
            "def a(x):\n    return x\n\ndef b(x):\n    return x\n",
            cases(1),
            r"defines several \(a, b\) and no example of its own calls one",
        ),
        ("class Queue:\n    pass\n", cases(1), r"none at top level \(only classes: Queue\)"),
        ("def broken(:\n", cases(1), "not valid Python"),
        (None, cases(1), "has no code"),
        (
            "def test_it():\n    f(1)\n\ndef f(x):\n    return x\n\ndef g(x):\n    return x\n\n"
            "test_it()\n",
            cases(1),
            "no example of its own calls one",
        ),
    ],
)
def test_ambiguous_or_missing_entries_stay_unchosen(
    code: str | None, tests: list[dict[str, Any]], reason: str
) -> None:
    choice = choose_entry(None, code, tests)
    assert choice.name is None
    assert choice.why

    assert re.search(reason, choice.why), choice.why


def record(kind: str, prompt: str = "Write a program that counts pairs.") -> dict[str, Any]:
    return {
        "key": f"{kind}/1",
        "type_file": kind,
        "category": "algorithm",
        "prompt": prompt,
        "answer": "O(n)",
        "tests": cases(["x", "y"], "x"),
    }


def test_complexity_records_import_with_the_chosen_entry() -> None:
    response = f"```python\n{HELPERS_AND_MAIN}```\n"
    task, notes = build_task(record("algorithm_time_complexity"), "m", response)
    assert task["entry-point"] == "count_pairs"
    assert task["constraints"][0]["check"] == "complexity"
    assert task["constraints"][0]["function"] == "count_pairs"
    assert notes == []


def test_an_ambiguous_complexity_record_stays_unmapped_with_the_reason() -> None:
    response = f"```python\n{TWO_FITTING}```\n"
    rec = record("algorithm_space_complexity") | {"tests": cases("a b")}
    task, notes = build_task(rec, "m", response)
    assert "constraints" not in task and "entry-point" not in task
    assert any("needs tests and a function to call (several functions" in n for n in notes)
    assert any(n.startswith("tests not imported: several functions") for n in notes)


def test_other_records_do_not_read_the_entry_from_examples() -> None:
    # Their checks do not call the function: call cases are only imported for a function
    # the prompt names or the only one defined.
    response = f"```python\n{HELPERS_AND_MAIN}```\n"
    rec = record("syntax_library") | {"answer": "python;collections"}
    task, notes = build_task(rec, "m", response)
    assert "entry-point" not in task
    assert (
        "tests not imported: the prompt names no function; the response defines several "
        "(load_rows, count_pairs)" in notes
    )

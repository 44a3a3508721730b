"""The function a record's tests call, chosen among several by what the tests pass: a
parameter whose name states a type the tests' value is not rules its function out."""

from __future__ import annotations

from typing import Any

from pytest_codeif.importers.entry_choice import choose_entry

EMAILS = """
def is_valid_email(email):
    return "@" in email

def load_emails(file_path):
    with open(file_path) as handle:
        return handle.read().split()

def find_duplicates(emails):
    seen, twice = set(), []
    for address in emails:
        if address in seen:
            twice.append(address)
        seen.add(address)
    return twice
"""


def cases(*args: Any) -> list[dict[str, Any]]:
    return [{"input": {"args": list(args), "kwargs": {}}, "expected_output": 0}]


def test_a_parameter_named_for_another_type_rules_its_function_out() -> None:
    choice = choose_entry(None, EMAILS, cases(["a@x.org", "a@x.org"]))
    assert choice.name == "find_duplicates"
    assert "takes the tests' arguments" in choice.why


def test_a_name_that_fits_the_value_keeps_the_choice_open() -> None:
    # A str argument fits both `email` and `file_path`: nothing is guessed.
    choice = choose_entry(None, EMAILS, cases("a@x.org"))
    assert choice.name is None
    assert "no example of its own calls one" in choice.why


def test_the_response_s_own_example_still_decides_first() -> None:
    code = EMAILS + '\nif __name__ == "__main__":\n    print(load_emails("list.txt"))\n'
    assert choose_entry(None, code, cases("list.txt")).name == "load_emails"

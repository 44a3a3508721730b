"""Reading an instruction's explicit requirements: each rule fires on what the prompt
names, and stays silent on prose that only looks like it (a near miss per rule)."""

from __future__ import annotations

import pytest

from pytest_codeif.importers.prompt_requirements import (
    named_classes,
    named_functions,
    read_requirements,
)


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        (
            "Write a Python function `add_task` and a function named list_tasks.",
            ["add_task", "list_tasks"],
        ),
        ("Create a function called is_anagram that takes two strings.", ["is_anagram"]),
        ("Ensure the function definition and all conditionals are formatted.", []),
        ('Read the text from a file called "input.txt".', []),
        ("Write a simple Python function that prints each item.", []),
    ],
)
def test_named_functions(prompt: str, names: list[str]) -> None:
    assert named_functions(prompt) == names


def test_named_classes_and_bases() -> None:
    classes, bases = named_classes(
        "The system should include classes for `Book` and `Member`; a base class `Item` and "
        "a derived class `Ebook`."
    )
    assert classes == ["Book", "Member", "Item", "Ebook"]
    assert bases == {"Ebook": ["Item"]}
    assert named_classes("Solve the class of problems where `n` grows.") == ([], {})


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (
            "Use pandas to read the CSV file and plot it with Matplotlib.",
            [{"check": "imports", "require": ["pandas", "matplotlib"]}],
        ),
        (
            "Read a CSV file containing employees.",
            [{"check": "imports", "require-any": ["csv", "pandas"]}],
        ),
        (
            "Persist the contacts using SQLite.",
            [{"check": "imports", "require-any": ["sqlite3", "sqlalchemy", "aiosqlite"]}],
        ),
        (
            "Build the API with Flask and cache in Redis.",
            [
                {"check": "imports", "require-any": ["redis", "aioredis"]},
                {"check": "framework", "framework": "flask"},
            ],
        ),
        (
            "Code must be well-commented to explain each function and its purpose.",
            [{"check": "comments", "function-start": "either"}],
        ),
        ("Print the count of these records.", [{"check": "calls", "require": ["print"]}]),
        (
            "Write a function named `count_up`. The function should also print each number.",
            [
                {"check": "defines", "functions": ["count_up"]},
                {"check": "calls", "require": ["print"], "function": "count_up"},
            ],
        ),
        ("Do not print anything; return the list.", []),
        ("Split the app into blueprints.", []),
        (
            "You must not use Python's built-in sorting functions.",
            [{"check": "calls", "forbid": ["sorted", "list.sort"]}],
        ),
        ("You are a beginner; keep it simple and secure.", []),
    ],
)
def test_read_requirements(prompt: str, expected: list[dict]) -> None:
    assert read_requirements(prompt).constraints == expected

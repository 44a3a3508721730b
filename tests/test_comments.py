"""The `comments` check: where libcst keeps comments (above, inline, in headers, in the
module header), steps, docstrings and what they mention, the format pattern on hostile
text, and the MultiCodeIF importer's reading of comment-style records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
import yaml

from pytest_codeif import Sample
from pytest_codeif.checks.comments import (
    CommentsCheck,
    comments,
    start_comments,
    steps,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.importers.multicodeif import map_constraint
from pytest_codeif.outcome import Verdict
from pytest_codeif.testing import sample_verdict


def parsed(code: str) -> ParsedModule:
    return ParsedModule(SourceFile("solution.py", code, Path("solution.py")))


def verdict(code: str, tmp_path: Path, **options: Any) -> Verdict:
    return sample_verdict(CommentsCheck, Sample(code, options), tmp_path)


def messages(result: Verdict) -> list[str]:
    assert result.status != "error", result.error
    return [e.message for e in result.evidence]


def first_function(module: ParsedModule) -> cst.FunctionDef:
    return next(n for _, n in module.definitions if isinstance(n, cst.FunctionDef))


CODE = """\
#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Inventory tools.
import os  # noqa: F401


# Merge two inventories.
@decorate  # registers it
def merge(a, b):  # a and b are dicts
    \"\"\"Doc.\"\"\"
    # Copy first.
    merged = dict(a)
    values = [
        1,  # one
        # two, on its own line
        2,
    ]

    for key in b:
        merged[key] = b[key]
    # trailing note in the body
    return merged
"""


def test_comments_are_found_everywhere_libcst_keeps_them() -> None:
    module = parsed(CODE)
    found = [(c.line, c.text, c.inline) for c in comments(module)]
    assert found == [
        (3, "Inventory tools.", False),
        (7, "Merge two inventories.", False),
        (8, "registers it", True),
        (9, "a and b are dicts", True),
        (11, "Copy first.", False),
        (14, "one", True),
        (15, "two, on its own line", False),
        (21, "trailing note in the body", False),
    ]  # the shebang, the coding line and the noqa comment are pragmas


def test_a_functions_comments_include_the_lines_just_above_it() -> None:
    module = parsed(CODE)
    merge = first_function(module)
    assert [c.text for c in comments(module, merge)][:2] == [
        "Merge two inventories.",
        "registers it",
    ]
    opening = [c.value for c in start_comments(module, merge)]
    assert opening == ["# Merge two inventories.", "# a and b are dicts", "# Copy first."]


def test_the_first_definition_gets_its_comments_from_the_module_header() -> None:
    module = parsed("# Licence text.\n\n# Adds one.\ndef inc(x):\n    return x + 1\n")
    inc = first_function(module)
    assert [c.value for c in start_comments(module, inc)] == ["# Adds one."]
    assert [c.text for c in comments(module, inc)] == ["Adds one."]


def test_steps_are_paragraphs_of_the_body() -> None:
    module = parsed(CODE)
    firsts = steps(first_function(module))
    # The docstring is no step; the paragraph of `for` is one; a lone return is none.
    assert [module.line_of(s) for s in firsts] == [12, 19]


def test_every_step_unannotated_is_listed(tmp_path: Path) -> None:
    code = (
        "def f(a):\n    x = a\n\n    y = x + 1\n\n    # Then z.\n    z = y * 2\n\n"
        "    for i in range(z):  # loop over z\n        print(i)\n\n    return z\n"
    )
    result = verdict(code, tmp_path, steps=True)
    assert messages(result) == [
        "step of function `f` at line 2 has no comment before it",
        "step of function `f` at line 4 has no comment before it",
    ]
    assert [e.code_line for e in result.evidence] == [2, 4]


def test_function_start_sees_above_header_and_first_statement(tmp_path: Path) -> None:
    above = "# Adds one.\ndef inc(x):\n    return x + 1\n"
    header = "def inc(x):  # adds one\n    return x + 1\n"
    inside = 'def inc(x):\n    """Doc."""\n    # Adds one.\n    return x + 1\n'
    later = "def inc(x):\n    y = x\n    # Adds one.\n    return y + 1\n"
    for code in (above, header, inside):
        assert verdict(code, tmp_path, **{"function-start": "comment"}).status == "satisfied"
    assert messages(verdict(later, tmp_path, **{"function-start": "comment"})) == [
        "function `inc` does not open with a `#` comment"
    ]


def test_private_functions_are_exempt_unless_named(tmp_path: Path) -> None:
    code = "def _helper(x):\n    return x\n\n\ndef __dunder__():\n    pass\n"
    assert verdict(code, tmp_path, docstrings="required").status == "satisfied"
    assert messages(verdict(code, tmp_path, function="_helper", docstrings="required")) == [
        "function `_helper` has no docstring"
    ]


def test_a_class_named_brings_its_public_methods(tmp_path: Path) -> None:
    code = (
        'class Book:\n    """A book."""\n\n    def __init__(self):\n        pass\n\n'
        "    def info(self):\n        return 1\n\n\ndef main():\n    pass\n"
    )
    assert messages(verdict(code, tmp_path, function="Book", docstrings="required")) == [
        "function `Book.info` has no docstring"
    ]


def test_a_missing_function_is_named_with_what_exists(tmp_path: Path) -> None:
    result = verdict("def f():\n    pass\n", tmp_path, function="g", docstrings="required")
    assert messages(result) == ["function or class `g` is not defined (definitions found: f)"]


def test_docstring_mentions(tmp_path: Path) -> None:
    generator = 'def walk(root):\n    """Yields every path under root."""\n    yield root\n'
    procedure = 'def log(message):\n    """Writes message."""\n    print(message)\n'
    options = {"docstrings": "required", "docstring-mentions": ["parameters", "returns"]}
    assert verdict(generator, tmp_path, **options).status == "satisfied"
    assert verdict(procedure, tmp_path, **options).status == "satisfied"  # returns nothing
    method = 'class A:\n    def get(self, key, *args, **kwargs):\n        """By key."""\n'
    options["docstring-on"] = ["function"]  # the class has none: not asked here
    assert messages(verdict(method + "        return key\n", tmp_path, **options)) == [
        "docstring of function `A.get` does not mention: `args`, `kwargs`, return"
    ]


def test_a_multi_line_start_counts_docstring_or_comment_lines(tmp_path: Path) -> None:
    one_line_doc = 'def f():\n    """Short."""\n    return 1\n'
    options = {"function-start": "either", "start-lines": 2}
    assert messages(verdict(one_line_doc, tmp_path, **options)) == [
        "function `f` opens with 1 line; at least 2 asked"
    ]
    two_comments = "def f():\n    # First line,\n    # second line.\n    return 1\n"
    assert verdict(two_comments, tmp_path, **options).status == "satisfied"


def test_too_many_comments_lists_where_they_are(tmp_path: Path) -> None:
    """Every comment is a finding (none left out past a few): the gate counts the one a
    change adds, wherever it comes in the file, and the baseline absorbs the old ones."""
    code = "".join(f"x{i} = {i}  # c{i}\n" for i in range(80))
    result = verdict(code, tmp_path, **{"max-comments": 1})
    shown = messages(result)
    assert shown[0] == "has 80 `#` comments in the code; at most 1 allowed"
    assert shown[1:] == [f"another comment: `# c{i}`" for i in range(1, 80)]
    assert [e.code_line for e in result.evidence] == list(range(1, 81))


def test_a_hostile_comment_cannot_stall_the_pattern(tmp_path: Path) -> None:
    """`^(a+)+$` against 'aaa...!' backtracks exponentially in Python's `re`; the comment
    text is the code's, so the pattern runs on a linear-time engine."""
    code = "x = 1  # " + "a" * 40 + "!\n"
    result = verdict(code, tmp_path, pattern="^(a+)+$")
    assert messages(result) == [f"comment does not match `^(a+)+$`: `# {'a' * 40}!`"]


def test_bad_options_are_task_errors(tmp_path: Path) -> None:
    for bad in (
        {"function": "f"},  # nothing asked
        {"start-lines": 2},  # without function-start
        {"docstrings": "sometimes"},
        {"min-comments": 0},
    ):
        result = verdict("def f():\n    pass\n", tmp_path, **bad)
        assert (result.status, result.error_kind) == ("error", "invalid-task"), bad
    # Refused when the check is built: a task file reports it at the constraint.
    with pytest.raises(ValueError, match=r"pattern: .*lookbehind"):
        CommentsCheck({"pattern": "(?<=x)y"})
    with pytest.raises(ValueError, match="min-comments is larger than max-comments"):
        CommentsCheck({"min-comments": 3, "max-comments": 1})


def test_comments_end_to_end_with_a_response(pytester: pytest.Pytester) -> None:
    response = (
        "```python\ndef merge(a, b):\n    # Copy a.\n    merged = dict(a)\n\n"
        "    for k, v in b.items():\n        merged[k] = merged.get(k, 0) + v\n"
        "    return merged\n```\n"
    )
    tasks = {
        "tasks": [
            {
                "id": "merge",
                "response": response,
                "constraints": [
                    {"check": "comments", "function": "merge", "steps": True},
                    {"check": "comments", "docstrings": "forbidden", "inline": "forbidden"},
                ],
            }
        ]
    }
    pytester.makefile(".codeif.yaml", t=yaml.safe_dump(tasks, sort_keys=False))
    pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    steps_outcome, style = report["tasks"][0]["constraints"]
    assert style["status"] == "satisfied"
    assert steps_outcome["status"] == "violated"
    [evidence] = steps_outcome["evidence"]
    assert evidence["message"] == "step of function `merge` at line 5 has no comment before it"


# -- the MultiCodeIF importer's reading of comment-style records -------------------------


def mapped(style: str, prompt: str, entry: str | None = "tidy") -> dict[str, Any]:
    record = {
        "type_file": "code_convention_comment_formatting",
        "answer": f"python;{style}",
        "prompt": prompt,
    }
    [constraint] = map_constraint(record, entry).constraints
    return constraint


def test_a_docstring_record_asks_for_what_the_prompt_says_it_covers() -> None:
    prompt = (
        "Write a function named `tidy` with one parameter, `text`. Give it a docstring "
        "listing its parameters and the value it returns. Add inline comments for the "
        "tricky parts."
    )
    assert mapped("Python docstring", prompt) == {
        "check": "comments",
        "function": "tidy",
        "docstrings": "required",
        "docstring-mentions": ["parameters", "returns"],
        "min-comments": 1,
    }
    # A parameter named before the docstring is not what the docstring must cover.
    short = "Write `tidy(text)` taking a parameter. Add a docstring on its purpose."
    assert mapped("Python docstring", short) == {
        "check": "comments",
        "function": "tidy",
        "docstrings": "required",
    }


def test_single_and_multi_line_records() -> None:
    single = "Use single-line comments to describe its purpose and its main steps."
    assert mapped("Single-line comment", single) == {
        "check": "comments",
        "function": "tidy",
        "function-start": "comment",
        "min-comments": 2,
    }
    multi = "Open the function with a detailed multiline comment."
    assert mapped("Multi-line comment", multi, entry=None) == {
        "check": "comments",
        "function-start": "either",
        "start-lines": 2,
    }
    assert mapped("Inline comment", "Comment each line.") == {
        "check": "comments",
        "function": "tidy",
        "inline": "required",
    }


def test_an_unknown_comment_style_is_unmapped_with_the_reason() -> None:
    from pytest_codeif.importers.multicodeif import Unmapped

    with pytest.raises(Unmapped, match="'Javadoc' is not one the comments check knows"):
        mapped("Javadoc", "Use Javadoc.")

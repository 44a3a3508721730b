"""Code extraction from raw model responses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_codeif.code.extract import ExtractedCode, extract_code, extract_python, find_blocks
from pytest_codeif.code.languages import JAVASCRIPT, PYTHON, TYPESCRIPT


def test_python_blocks_win_over_untagged_and_other_languages() -> None:
    response = "\n".join(
        [
            "Install it:",  # 1
            "```bash",  # 2
            "pip install x",  # 3
            "```",  # 4
            "```",  # 5
            "not python",  # 6
            "```",  # 7
            "```python",  # 8
            "def f():",  # 9
            "    return 1",  # 10
            "```",  # 11
            "~~~py",  # 12
            "print(f())",  # 13
            "~~~",  # 14
        ]
    )
    code = extract_python(response)
    assert code is not None
    assert code.text == "def f():\n    return 1\n\nprint(f())\n"
    assert code.line_origin == (9, 10, 12, 13)
    assert (code.blocks_used, code.blocks_found) == (2, 4)


def test_untagged_blocks_are_used_when_no_python_tag() -> None:
    code = extract_python("Sure:\n```\nx = 1\n```\n")
    assert code is not None and code.text == "x = 1\n"
    assert code.line_origin == (3,)


def test_no_block_is_no_code() -> None:
    assert extract_python("def f(): pass  (no fence)") is None
    assert extract_python("```json\n{}\n```") is None
    assert extract_python("```python\n   \n```") is None


def test_unterminated_fence_runs_to_the_end() -> None:
    code = extract_python("```python\nx = 1\ny = 2")
    assert code is not None and code.text == "x = 1\ny = 2\n"
    assert find_blocks("```python\nx = 1")[0].closed is False


def test_indented_fence_is_dedented() -> None:
    code = extract_python("1. Code:\n   ```python\n   def f():\n       pass\n   ```\n")
    assert code is not None and code.text == "def f():\n    pass\n"


def test_a_stray_space_before_a_fence_indents_nothing() -> None:
    # The fence is indented, its code is not: the code's own indentation is kept.
    code = extract_python(" ```python\ndef f():\n  if x:\n\tpass\n ```\n")
    assert code is not None and code.text == "def f():\n  if x:\n\tpass\n"


def test_longer_fences_hold_shorter_ones() -> None:
    code = extract_python('````python\ns = """\n```\n"""\n````\n')
    assert code is not None and code.text == 's = """\n```\n"""\n'


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("`~ \npythonbash:=x1\t")), max_size=200))
def test_extraction_never_crashes_and_maps_every_line(response: str) -> None:
    code = extract_python(response)
    if code is None:
        return
    lines = code.text.split("\n")[:-1]
    assert len(lines) == len(code.line_origin)
    total = len(response.splitlines())
    assert all(1 <= line <= max(total, 1) for line in code.line_origin)


@pytest.mark.parametrize(
    "info", ["python", "Python3", "python:app.py", 'py title="x.py"', "{.python}"]
)
def test_fence_info_strings_name_the_language(info: str) -> None:
    code = extract_python(f"```{info}\nx = 1\n```\n")
    assert code is not None and code.blocks_used == 1


def test_bare_code_is_code_but_prose_is_not() -> None:
    code = extract_python("import os\n\ndef f():\n    return os.sep\n\n")
    assert code is not None and code.line_origin == (1, 2, 3, 4)
    assert extract_python("Sure, here is how you do it.") is None
    assert extract_python("Done") is None


def test_artifact_elements_are_python_blocks() -> None:
    response = 'Here:\n<artifact type="code" language="python">\ndef f():\n    pass\n</artifact>'
    code = extract_python(response)
    assert code is not None and code.text == "def f():\n    pass\n"
    assert code.line_origin == (3, 4)


@pytest.mark.parametrize(
    "response",
    [
        "```" + " " * 300_000 + "`",  # a fence line: quadratic with plain quantifiers
        "<artifact" * 100_000,  # tags that never close
        '<artifact language="p"' * 50_000,  # cubic with one regex over the response
    ],
    ids=["fence-spaces", "open-tags", "language-attributes"],
)
def test_hostile_responses_are_read_in_linear_time(response: str) -> None:
    """Each took minutes to hours before; read linearly, they hold no Python code."""
    assert extract_python(response) is None


@pytest.mark.parametrize("separator", ["\x0c", "\x1c", "\u2028", "\x85", "\x0b"])
def test_only_newlines_end_a_responses_lines(separator: str) -> None:
    """A form feed or U+2028 inside the code is the code's own character: the block is
    not split there (the code judged is the code written) and line numbers count at
    newlines, as Python's tokenizer does."""
    response = f"Here:\n```python\ns = 'a{separator}b'  # note{separator}x\ny = 2\n```\n"
    code = extract_python(response)
    assert code is not None
    assert code.text == f"s = 'a{separator}b'  # note{separator}x\ny = 2\n"
    assert code.line_origin == (3, 4)


def test_bare_javascript_is_taken_only_when_the_language_is_named_and_it_parses() -> None:
    from pytest_codeif.code.extract import extract_code
    from pytest_codeif.code.languages import JAVASCRIPT, PYTHON, TYPESCRIPT

    code = "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n\n"
    found = extract_code(code, JAVASCRIPT)
    assert found is not None and found.text == code.rstrip("\n") + "\n"
    assert found.line_origin == (1, 2, 3, 4)
    assert extract_code("const f = (x: number): number => x * 2;", TYPESCRIPT) is not None
    # Prose, prose before code, a lone word: never code.
    for prose in ("Sure, I can help with that.", "Here:\nfunction f() {}", "done", ""):
        assert extract_code(prose, JAVASCRIPT) is None
    # Brackets nested past the bounds are not parsed at all.
    assert extract_code("x = " + "[" * 300 + "]" * 300 + ";\ny = 1;", JAVASCRIPT) is None
    # Without the language named, bare JavaScript is not Python.
    assert extract_code(code, PYTHON) is None


@pytest.mark.parametrize(
    ("info", "tag"),
    [
        ("main.js", "javascript"),
        ("src/app.ts", "typescript"),
        ("app.py", "python"),
        ("App.vue", "vue"),
        ("python:app.py", "python"),  # a language before the name still decides
        ("python3.11", "python3"),  # not a file of any language: the tag as before
        ("javascript:src/App.vue", "vue"),  # the file's suffix says what the block holds
        ("javascript:k8s/deploy.yaml", "yaml"),
        ("javascript:src/app.js", "javascript"),
        ("notes.txt", "notes"),
    ],
)
def test_a_fence_named_by_a_file_is_tagged_by_its_language(info: str, tag: str) -> None:
    assert find_blocks(f"```{info}\nx\n```\n")[0].tag == tag


def test_a_file_named_fence_is_read_as_its_language() -> None:
    response = "```main.js\nconst a = 1;\n```\n\n```app.py\nprint(1)\n```\n"
    assert extract_code(response, JAVASCRIPT) == ExtractedCode("const a = 1;\n", (2,), 1, 2)
    assert extract_code(response, PYTHON) == ExtractedCode("print(1)\n", (6,), 1, 2)


def test_the_scripts_of_a_component_are_javascript_at_their_lines() -> None:
    response = (
        "```vue\n<template><p>{{ n }}</p></template>\n<script>\n"
        "import axios from 'axios';\nexport default {};\n</script>\n"
        '<script src="cdn.js"></script>\n<script type="text/x-template">\n<p/>\n</script>\n'
        "<style>p { color: red }</style>\n```\n\n```js\nconst a = 1;\n```\n"
    )
    code = extract_code(response, JAVASCRIPT)
    assert code is not None
    assert code.text == "import axios from 'axios';\nexport default {};\n\nconst a = 1;\n"
    assert code.line_origin == (4, 5, 14, 15)
    # The markup itself is never Python's or JavaScript's code.
    assert extract_code(response, PYTHON) is None


def test_a_typescript_script_is_read_for_typescript_only() -> None:
    response = '```vue\n<script setup lang="ts">\nconst n: number = 1;\n</script>\n```\n'
    assert extract_code(response, JAVASCRIPT) is None
    code = extract_code(response, TYPESCRIPT)
    assert code is not None and code.text == "const n: number = 1;\n"


def test_script_tags_without_ends_stay_linear() -> None:
    # Hostile markup: unclosed and unended tags are read in one pass (each search starts
    # past the last element), so this is quick whatever the machine.
    response = "```html\n" + "<script" * 100_000 + "\n" + "<script>" * 100_000 + "\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.blocks_used == 1

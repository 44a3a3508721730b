"""Code extraction from raw model responses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_codeif.code.extract import (
    CodeBlock,
    ExtractedCode,
    extract_code,
    extract_python,
    find_blocks,
    markup_scripts,
)
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


@pytest.mark.parametrize(
    ("attributes", "tag"),
    [
        ('type="module" data-src="x"', "js"),  # `data-src` is not `src`
        ('data-type="tracking"', "js"),
        ('data-lang="ts"', "js"),  # nor `data-lang` a `lang`
        ('TYPE="Module" LANG="ts"', "ts"),  # names and values in any ASCII case
        ('type=""', "js"),
        ('language="JavaScript"', "js"),
        ('type="text/javascript; charset=utf-8"', "js"),
        ('data-x="a>b" src="cdn.js"', None),  # a `>` inside a quoted value ends nothing
        ("src", None),
        ('type="text/x-template"', None),
        ('type="importmap"', None),
        ('language="vbscript"', None),
        ('src="a.js" src=""', None),
        ('type="module"src="x.js"', None),  # no space after a quoted value: still `src`
        ('/src="x.js"', None),
        ('lang="ts" lang="js"', "ts"),  # the first of a name counts
    ],
)
def test_script_attributes_are_read_as_a_browser_reads_them(
    attributes: str, tag: str | None
) -> None:
    block = CodeBlock("html", f"<p>a</p>\n<script {attributes}>\neval(x);\n</script>\n", 5, True)
    expected = [CodeBlock(tag, "eval(x);", 7, True)] if tag else []
    assert markup_scripts(block) == expected


@pytest.mark.parametrize(
    "hidden",
    [
        "<!-- <script>import _ from 'lodash';</script> -->",
        "<!--\n<script>\nimport _ from 'lodash';\n</script>\n--!>",  # the old comment end
        "<textarea><script>import _ from 'lodash'</script></textarea>",
        "<TEXTAREA rows=2>\n<script>import _ from 'lodash'</script>\n</textarea >",
        "<template><div><script>import _ from 'lodash'</script></div></template>",
        "<style>/* <script>import _ from 'lodash'</script> */</style>",
        "<title><script>import _ from 'lodash'</script></title>",
        "<noscript><script>import _ from 'lodash'</script></noscript>",
        "<div title=\"<script>import _ from 'lodash'</script>\"></div>",
        "<img alt='<script>import _ from \"lodash\"</script>'>",
        "<!DOCTYPE html <script>import _ from 'lodash'</script>",  # a bogus comment to `>`
    ],
)
def test_a_script_a_browser_does_not_run_is_not_code(hidden: str) -> None:
    # The script after it still is, at its own line.
    response = f"```html\n{hidden}\n<script>\nconsole.log(1);\n</script>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "console.log(1);\n"
    assert code.line_origin == (4 + hidden.count("\n"),)


def test_an_empty_comment_ends_at_once() -> None:
    # `<!-->` and `<!--->` are whole comments in HTML: the script after them runs.
    response = "```html\n<!--> <!---> <script>a()</script> -->\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "a()\n" and code.line_origin == (2,)


@pytest.mark.parametrize("end", ["</script x>", "</script/>", "</SCRIPT\n>", "</script\t>"])
def test_a_script_ends_at_its_end_tag_with_anything_after_the_name(end: str) -> None:
    response = f"```html\n<script>\nconst a = 1;\n{end}\n<p>hi</p>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "const a = 1;\n"


def test_a_script_does_not_end_at_a_longer_name() -> None:
    # `</scripts>` and `</script-x>` are other elements' end tags: text of the script.
    response = "```html\n<script>\nconst a = '</scripts></script-x>';\n</script>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "const a = '</scripts></script-x>';\n"


def test_a_custom_element_named_like_script_holds_no_code() -> None:
    response = "```html\n<script-x>\nnot code\n</script-x>\n<script>b()</script>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "b()\n" and code.line_origin == (5,)


def test_a_svelte_component_with_arrows_in_its_markup_is_read() -> None:
    response = (
        "```svelte\n<script>\n  let n = 0;\n</script>\n"
        "<button on:click={() => n += 1} title=\"it's\">{n > 1 ? 'many' : n}</button>\n"
        '<script context="module">\n  export const k = 1;\n</script>\n```\n'
    )
    code = extract_code(response, JAVASCRIPT)
    assert code is not None
    assert code.text == "  let n = 0;\n\n  export const k = 1;\n"
    assert code.line_origin == (3, 6, 7)


def test_a_smuggled_import_is_judged_as_a_browser_runs_the_page(
    pytester: pytest.Pytester,
) -> None:
    # The red team's page (issue 27): the module script runs; the commented one does not.
    pytester.makefile(
        ".codeif.yaml",
        tasks=(
            "tasks:\n"
            "  - id: page\n"
            "    language: javascript\n"
            "    response: |\n"
            "      ```html\n"
            "      <!-- <script>import dayjs from 'dayjs';</script> -->\n"
            '      <script type="module" data-src="none">\n'
            "      import _ from 'lodash';\n"
            "      </script>\n"
            "      ```\n"
            "    constraints:\n"
            "      - check: imports\n"
            "        forbid: [lodash]\n"
            "      - check: imports\n"
            "        require: [dayjs]\n"
        ),
    )
    result = pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ["*tasks.codeif.yaml:8: [[]imports[]] imports `lodash`, but `lodash` is forbidden*"]
    )


def test_a_list_indented_fence_is_dedented_around_column_0_string_lines() -> None:
    # The first code line carries the fence's indent: CommonMark's dedent, though a
    # multi-line string's lines sit at column 0.
    response = (
        '1. The function:\n   ```python\n   def greet():\n       return """\nHello\n  """\n   ```\n'
    )
    code = extract_python(response)
    assert code is not None
    assert code.text == 'def greet():\n    return """\nHello\n"""\n'
    assert code.line_origin == (3, 4, 5, 6)


def test_a_stray_fence_indent_is_judged_by_the_first_code_line_only() -> None:
    # The first code line lacks the fence's indent: nothing is taken off any line, even
    # one that has it.
    code = extract_python("  ```python\nx = 1\n  # note\n  ```\n")
    assert code is not None and code.text == "x = 1\n  # note\n"

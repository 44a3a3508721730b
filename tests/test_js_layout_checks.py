"""`brace-style` and `indentation` on JavaScript and TypeScript (issue 27): each brace
style's placement of every block's braces, and indentation by a unit with or without
spaces around operators and commas, each finding at its file and line."""

from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import Sample
from pytest_codeif.checks.brace_style import BraceStyleCheck
from pytest_codeif.checks.indentation import IndentationCheck
from pytest_codeif.testing import sample_verdict


def verdict(
    check: type[BraceStyleCheck | IndentationCheck],
    code: str,
    language: str | None = "javascript",
    **options: Any,
) -> tuple[str, list[str]]:
    """The status and the finding messages of `check` on `code`."""
    with tempfile.TemporaryDirectory() as folder:
        result = sample_verdict(check, Sample(code, options, language=language), Path(folder))
    return result.status, [evidence.message for evidence in result.evidence]


def braces(code: str, style: str, language: str = "javascript") -> list[str]:
    status, messages = verdict(BraceStyleCheck, code, language, style=style)
    assert status in ("satisfied", "violated"), (status, messages)
    return messages


# -- brace-style ------------------------------------------------------------------


def test_braces_in_template_literals_strings_and_comments_are_no_blocks() -> None:
    code = """
        function label(user)
        {
            const text = `{ ${user.name} } {`;  // {
            /* } else { */
            return text + "{";
        }
        """
    assert braces(code, "allman") == []
    assert any("`function` on l.2 starts its line" in m for m in braces(code, "1tbs"))


def test_jsx_expression_braces_are_no_blocks() -> None:
    code = """
        export function Badge({ count }) {
            return (
                <span className={count > 9 ? "many" : "few"}>
                    {count}
                </span>
            );
        }
        """
    assert braces(code, "1tbs") == []
    assert braces(code, "k&r") == []
    assert braces(code, "allman") == [
        "the `{` of `function` on l.1 follows code on its line: Allman puts it on a line of its own"
    ]


def test_a_comment_between_the_header_and_its_brace() -> None:
    below = "if (ready) // only when ready\n{\n    start();\n}\n"
    assert braces(below, "allman") == []
    assert braces(below, "1tbs") == [
        "the `{` of `if` on l.2 starts its line: 1TBS puts it at the end of its header's line"
    ]
    after = "if (ready) { // only when ready\n    start();\n}\n"
    assert braces(after, "1tbs") == []
    assert braces(after, "k&r") == []
    inline = "if (ready) /* only when ready */ {\n    start();\n}\n"
    assert braces(inline, "1tbs") == []


def test_else_catch_and_finally_after_the_closing_brace() -> None:
    cuddled = """
        try {
            if (a) {
                one();
            } else {
                two();
            }
        } catch (error) {
            three();
        } finally {
            four();
        }
        """
    assert braces(cuddled, "1tbs") == []
    assert braces(cuddled, "k&r") == []
    messages = braces(cuddled, "allman")
    assert (
        "`else` on l.4 follows the `}` on its line: Allman starts it on the line after the "
        "closing brace" in messages
    )
    assert any(m.startswith("`catch` on l.7") for m in messages)
    assert any(m.startswith("`finally` on l.9") for m in messages)
    stroustrup = "if (a) {\n    one();\n}\nelse {\n    two();\n}\n"
    assert braces(stroustrup, "k&r") == []  # K&R does not decide where `else` goes
    assert braces(stroustrup, "1tbs") == [
        "`else` on l.4 starts its line: 1TBS puts it on the line of the `}` before it (`} else`)"
    ]


def test_arrow_functions_with_an_expression_body_have_no_block() -> None:
    code = "const double = (xs) => xs.map((x) => x * 2);\nconst make = () => ({ a: 1 });\n"
    for style in ("allman", "k&r", "1tbs"):
        assert braces(code, style) == []


def test_a_block_on_one_line_and_code_beside_its_braces() -> None:
    one_line = "const inc = (x) => { return x + 1; };\n"
    for style in ("allman", "k&r", "1tbs"):
        assert any("`arrow function` on l.1 is on one line" in m for m in braces(one_line, style))
    beside = "function f(x) {\n    return x; }\n"
    assert braces(beside, "k&r") == [
        "the `}` on l.2 (of `function`) follows code on its line: K&R puts the closing brace "
        "at the start of its line"
    ]
    assert braces("function noop() {}\nclass Empty {}\n", "allman") == []  # nothing to lay out


def test_k_and_r_lets_definitions_open_below_their_header_but_not_controls() -> None:
    code = """
        class Cart
        {
            total(items)
            {
                for (const item of items) sum(item);
                while (busy)
                {
                    wait();
                }
            }
        }
        """
    assert braces(code, "k&r") == [
        "the `{` of `while` on l.7 starts its line: K&R puts it at the end of its header's line"
    ]
    messages = braces(code, "1tbs")
    assert (
        "the body of `for` on l.5 has no braces: 1TBS braces every control body, even a "
        "single statement" in messages
    )
    assert any("`class` on l.2 starts its line" in m for m in messages)


def test_typescript_interfaces_enums_and_object_types() -> None:
    code = """
        interface Shape {
            area(): number;
        }
        enum Kind {
            A,
            B,
        }
        type Point = {
            x: number;
        };
        """
    assert braces(code, "1tbs", "typescript") == []
    messages = braces(code, "allman", "typescript")
    assert [m.split(" on ")[0] for m in messages] == [
        "the `{` of `interface`",
        "the `{` of `enum`",
    ]  # an object type is no block


def test_else_if_chains_and_braceless_else() -> None:
    code = "if (a) {\n    one();\n} else if (b) {\n    two();\n} else three();\n"
    assert braces(code, "1tbs") == [
        "the body of `else` on l.5 has no braces: 1TBS braces every control body, even a "
        "single statement"
    ]
    assert braces(code, "k&r") == []


def test_python_is_still_read_as_before() -> None:
    status, messages = verdict(
        BraceStyleCheck, "def f(x):\n    if x: return 1\n    return 2\n", None, style="allman"
    )
    assert status == "violated"
    assert messages == [
        "the body of `if` on l.2 is on its header's line: Allman puts a block's body on lines "
        "of its own"
    ]


# -- indentation --------------------------------------------------------------------


def layout(code: str, language: str = "javascript", **options: Any) -> list[str]:
    status, messages = verdict(IndentationCheck, code, language, **options)
    assert status in ("satisfied", "violated"), (status, messages)
    return messages


def test_indentation_counts_levels_from_the_line_of_the_opening_bracket() -> None:
    code = textwrap.dedent(
        """\
        const result = items
            .filter((item) => {
                return item.ok;
            })
            .map((item) => item.id);
        const config = {
          nested: {
            deep: [
              1,
            ],
          },
        };
        """
    )
    assert layout(code, indent=4) == [
        "l.7 is indented 2 spaces, 4 expected (one level inside the `{` on l.6)",
        "l.8 is indented 4 spaces, 6 expected (one level inside the `{` on l.7)",
        "l.9 is indented 6 spaces, 8 expected (one level inside the `[` on l.8)",
    ]
    assert layout(code, indent=2) == [
        "l.3 is indented 8 spaces, 6 expected (one level inside the `{` on l.2)"
    ]


def test_indentation_judges_kind_and_depth_and_skips_comments_and_templates() -> None:
    code = (
        "/**\n * Doc.\n */\n"
        "function f(a) {\n"
        "\tconst s = `line\n  two`;\n"
        "\tif (a) {\n"
        "\t\treturn s;\n"
        "\t}\n"
        "    return a;\n"
        "}\n"
    )
    assert layout(code, indent="tabs") == ["l.10 is indented with spaces: tabs asked"]
    assert layout(code, indent=4)[0] == "l.5 is indented with a tab: 4 spaces asked"


def test_a_multi_line_condition_counts_from_its_statement() -> None:
    code = "if (a ||\n        b) {\n    go();\n}\n"
    assert layout(code, indent=4) == []


def test_spacing_around_operators_and_after_commas() -> None:
    spaced = "const total = (a, b = 1) => a + b * 2;\nlet x = a ? b : c;\nx += f(a, [1, 2,]);\n"
    assert layout(spaced, indent=2, spacing="spaced") == []
    assert layout(spaced, indent=2, spacing="unspaced") == [
        "l.1: a space around `=`, after `,`, around `+`, around `*`: `spacing: unspaced` asks "
        "for none",
        "l.2: a space around `=`, around `?`, around `:`: `spacing: unspaced` asks for none",
        "l.3: a space around `+=`, after `,`: `spacing: unspaced` asks for none",
    ]
    unspaced = "const total=(a,b=1)=>a+b*2;\nconst n=a- -b;\nconst k = `${a}, ${b}` in o;\n"
    assert layout(unspaced, indent=2, spacing="unspaced") == [
        "l.3: a space around `=`: `spacing: unspaced` asks for none"
    ]
    assert layout(unspaced, indent=2, spacing="spaced")[0].startswith(
        "l.1: no space around `=`, after `,`"
    )


def test_a_comma_or_operator_at_a_line_break_is_not_judged() -> None:
    code = "const v = f(\n  a,\n  b,\n)+\n  g(c,d);\n"
    assert layout(code, indent=2, spacing="unspaced") == [
        "l.1: a space around `=`: `spacing: unspaced` asks for none"
    ]


def test_indentation_of_python_is_a_task_error() -> None:
    status, _ = verdict(IndentationCheck, "x = 1\n", None, indent=4)
    assert status == "error"


@pytest.mark.parametrize("options", [{"indent": 0}, {"indent": "two"}, {"spacing": "spaced"}])
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    status, _ = verdict(IndentationCheck, "x = 1;\n", **options)
    assert status == "error"


# -- end to end ---------------------------------------------------------------------


def test_findings_land_at_the_files_lines(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.ts").write_text(
        "export function sign(x: number): number\n"
        "{\n"
        "  if (x < 0) return -1;\n"
        "  return x>0 ? 1 : 0;\n"
        "}\n"
    )
    pytester.makefile(
        ".codeif.yaml",
        tasks=textwrap.dedent(
            """
            tasks:
              - id: app
                file: app.ts
                constraints:
                  - check: brace-style
                    style: 1tbs
                  - check: brace-style
                    style: k&r
                  - check: indentation
                    indent: 2
                    spacing: spaced
            """
        ),
    )
    result = pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*app.ts:2: [[]brace-style[]] the `{` of `function` on l.2 starts its line*",
            "*app.ts:3: [[]brace-style[]] the body of `if` on l.3 has no braces*",
            "*app.ts:4: [[]indentation[]] l.4: no space around `>`*",
        ]
    )


def test_the_check_pages_show_js_samples_in_their_language() -> None:
    from pytest_codeif.docs.site import generated_pages

    pages = generated_pages()
    assert "```javascript\nfunction total(prices, rate = 1) {" in pages["checks/indentation.md"]
    assert "```typescript\nclass Cart {" in pages["checks/brace-style.md"]
    assert "```python\ndef total(prices):" in pages["checks/brace-style.md"]

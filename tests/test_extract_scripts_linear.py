"""The `<script>` elements of a markup block: each at its own line of the response, and
a block of many of them read in one pass (each element's line was counted from the
block's start, so 60,000 empty `<script></script>` in 1 MB took 18 s, 8 MB hours)."""

from __future__ import annotations

import pytest

from pytest_codeif.code.extract import extract_code
from pytest_codeif.code.languages import JAVASCRIPT


def test_every_script_of_a_page_is_at_its_own_line() -> None:
    response = (
        "Page:\n```html\n<p>a</p>\n<script>\nconst a = 1;\n</script>\n"
        '<script src="x.js"></script>\n\n<script type="module">const b = 2;</script>\n'
        "<p>\nb\n</p>\n<script>\n\nconst c = 3;\n</script>\n```\n"
    )
    code = extract_code(response, JAVASCRIPT)
    assert code is not None
    assert code.text == "const a = 1;\n\nconst b = 2;\n\n\nconst c = 3;\n"
    assert code.line_origin == (5, 8, 9, 13, 14, 15)  # a blank line apart


def test_many_scripts_stay_linear() -> None:
    # Hostile markup: about 35,000 elements in 600 kB; quick whatever the machine.
    response = "```html\n" + "<script></script>" * 35_000 + "\n<script>x()</script>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    assert code is not None and code.text == "x()\n" and code.line_origin == (3,)


@pytest.mark.parametrize(
    ("unit", "closed"),
    [
        ("<!--", False),  # comments never closed
        ("<!-- -->", True),
        ("<!x", False),  # bogus comments never closed
        ('<a x="', False),  # a quote never closed
        ("<a x=1 ", False),  # a tag of many attributes never ended
        ("<textarea>", False),  # text elements never ended
        ("<template></template>", True),
        ("<script x=1></script x>", True),
    ],
)
def test_hostile_markup_stays_linear(unit: str, closed: bool) -> None:
    # About 100,000 of each in one block; quick whatever the machine (each search starts
    # past the last one's end, and whatever is left open ends the scan: the script after
    # it is text to a browser).
    response = "```html\n" + unit * 100_000 + "\n<script>x()</script>\n```\n"
    code = extract_code(response, JAVASCRIPT)
    if closed:
        assert code is not None and code.text == "x()\n" and code.line_origin == (3,)
    else:
        assert code is None

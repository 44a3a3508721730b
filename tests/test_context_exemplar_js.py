"""`context` and `exemplar` on JavaScript and TypeScript (issue 27): the given code read in
the code's language, JS's forms of definitions and uses, class members written alone,
route handlers and class components as examples, `catch` endings; options that do not
parse in the code's language are located task errors, never passes."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.checks.base import Check, Sample
from pytest_codeif.checks.context import ContextCheck
from pytest_codeif.checks.exemplar import ExemplarCheck
from pytest_codeif.outcome import Verdict
from pytest_codeif.testing import sample_verdict

CART = """
class Cart {
  constructor() {
    this.items = [];
  }

  addItem(item, quantity) {
    this.items.push({ item, quantity });
  }
}
"""

ROUTE = """
router.post("/items", async (req, res) => {
  try {
    res.json(await Item.create(req.body));
  } catch (err) {
    res.status(500).json({ message: "failed" });
  }
});
"""


def verdict(
    check: type[Check], code: str, options: dict[str, Any], tmp_path: Path, language: str | None
) -> Verdict:
    return sample_verdict(check, Sample(code, options, language=language), tmp_path)


def messages(found: Verdict) -> list[str]:
    return [e.message for e in found.evidence]


@pytest.mark.parametrize(
    ("code", "wanted"),
    [
        # A method given again with other parameters, written alone (a fragment).
        ("addItem(item) {\n  this.items.push(item);\n}\n", "`Cart.addItem` takes (item)"),
        # ... or added to the prototype.
        (
            "Cart.prototype.addItem = function (entry) {\n  this.items.push(entry);\n};\n",
            "`Cart.addItem` takes (entry)",
        ),
        # A rest parameter is not the same parameter.
        (
            "class Cart {\n  addItem(...items) {\n    this.items.push(...items);\n  }\n}\n",
            "`Cart.addItem` takes (...items)",
        ),
    ],
)
def test_a_changed_signature_is_found_at_its_line(tmp_path: Path, code: str, wanted: str) -> None:
    found = verdict(ContextCheck, code, {"context": CART}, tmp_path, "javascript")
    assert found.status == "violated"
    assert any(wanted in m for m in messages(found)), messages(found)
    assert found.evidence[0].code_line == code.count("\n", 0, code.index("addItem")) + 1


@pytest.mark.parametrize(
    "code",
    [
        # Members alone: a new method reading the class's field.
        "clear() {\n  this.items = [];\n}\n",
        # Two members alone, one a static method.
        "static empty() {\n  return new Cart();\n}\n\ncount() {\n  return this.items.length;\n}\n",
        # A subclass of the given class.
        "class GiftCart extends Cart {\n  wrap() {\n    return true;\n  }\n}\n",
    ],
)
def test_members_alone_and_uses_keep_the_context(tmp_path: Path, code: str) -> None:
    found = verdict(ContextCheck, code, {"context": CART}, tmp_path, "javascript")
    assert found.status == "satisfied", found


def test_a_constructor_alone_matches_the_class_it_fits(tmp_path: Path) -> None:
    context = CART + "\nclass Shop {\n  constructor(name) {\n    this.name = name;\n  }\n}\n"
    same = "constructor(name) {\n  this.name = name;\n}\n"
    assert verdict(ContextCheck, same, {"context": context}, tmp_path, "javascript").status == (
        "satisfied"
    )
    other = "constructor(owner, name) {\n  this.name = name;\n}\n"
    found = verdict(ContextCheck, other, {"context": context}, tmp_path, "javascript")
    assert found.status == "violated"
    assert "takes (owner, name)" in messages(found)[0]


def test_code_that_is_neither_a_module_nor_members_keeps_its_syntax_error(tmp_path: Path) -> None:
    found = verdict(ContextCheck, "addItem(item {\n", {"context": CART}, tmp_path, "javascript")
    assert (found.status, found.error_kind) == ("error", "syntax-error")


def test_typescript_annotations_are_no_part_of_a_parameter(tmp_path: Path) -> None:
    context = "export const total = (prices: number[], rate = 1): number => 0;\n"
    same = (
        "export function total(prices: readonly number[], rate: number = 2): number {\n"
        "  return 1;\n}\n"
    )
    assert verdict(ContextCheck, same, {"context": context}, tmp_path, "typescript").status == (
        "satisfied"
    )
    other = "export const total = (values: number[]): number => 0;\n"
    found = verdict(ContextCheck, other, {"context": context}, tmp_path, "typescript")
    assert messages(found) == ["`total` takes (values) instead of the context's (prices, rate)"]


def test_reuse_a_copy_of_the_given_function_is_the_context_repeated(tmp_path: Path) -> None:
    given = "function read(path) {\n  return fs.readFileSync(path, 'utf8');\n}\n"
    options = {"context": given, "mode": "reuse", "symbols": ["read"]}
    copy = "// the helper\nfunction read(path) { return fs.readFileSync(path, 'utf8') }\n\n"
    uses = "function words(path) {\n  return read(path).split(' ');\n}\n"
    assert verdict(ContextCheck, copy + uses, options, tmp_path, "javascript").status == (
        "satisfied"
    )
    rewritten = "function read(path) {\n  return fs.readFileSync(path).toString();\n}\n\n"
    found = verdict(ContextCheck, rewritten + uses, options, tmp_path, "javascript")
    assert messages(found) == ["`read` is defined again instead of reused"]
    assert found.evidence[0].code_line == 1


def test_reuse_a_copy_of_a_python_function_is_the_context_repeated(tmp_path: Path) -> None:
    given = "def read(path):\n    return open(path).read()\n"
    options = {"context": given, "mode": "reuse", "symbols": ["read"]}
    code = (
        "def read(path):  # given\n    return open(path).read()\n\ndef n(p):\n    return read(p)\n"
    )
    assert verdict(ContextCheck, code, options, tmp_path, None).status == "satisfied"


def test_a_method_never_called_is_not_reused(tmp_path: Path) -> None:
    options = {"context": CART, "mode": "reuse", "symbols": ["Cart.addItem"]}
    found = verdict(
        ContextCheck, "fill(n) {\n  this.items = [];\n}\n", options, tmp_path, "javascript"
    )
    assert messages(found) == ["`Cart.addItem` is never used"]


def test_a_context_in_another_language_is_a_task_error_at_context(tmp_path: Path) -> None:
    python_code = "def words(path):\n    return path.split()\n"
    found = verdict(ContextCheck, python_code, {"context": CART}, tmp_path, None)
    assert (found.status, found.error_kind) == ("error", "invalid-task")
    assert "`context` is not valid Python" in (found.error or "")
    python_context = {"context": "def read(path):\n    return path\n"}
    found = verdict(ContextCheck, "read(1);\n", python_context, tmp_path, "javascript")
    assert (found.status, found.error_kind) == ("error", "invalid-task")
    assert "`context` is not valid JavaScript or TypeScript" in (found.error or "")


def test_a_context_in_no_language_is_refused_when_the_task_is_read() -> None:
    with pytest.raises(ValueError, match=r"is not valid Python .*; nor JavaScript or TypeScript"):
        ContextCheck({"context": "def f(:\n  }{\n"})
    with pytest.raises(ValueError, match="defines no function or class"):
        ContextCheck({"context": "const limit = 3;\n"})


def test_a_handler_without_try_is_found_at_its_line(tmp_path: Path) -> None:
    code = "router.put('/items/:id', (req, res) => {\n  res.json({});\n});\n"
    found = verdict(ExemplarCheck, code, {"exemplar": ROUTE}, tmp_path, "javascript")
    assert messages(found) == [
        "`router.put('/items/:id')` handles no errors; `router.post('/items')` uses try/catch"
    ]
    assert found.evidence[0].code_line == 1


@pytest.mark.parametrize(
    ("ending", "status"),
    [
        ("next(err);", "satisfied"),  # passed on through what the handler was given
        ("return res.status(500).end();", "satisfied"),
        ("throw err;", "violated"),
        ("console.error(err);", "violated"),
    ],
)
def test_catch_endings(tmp_path: Path, ending: str, status: str) -> None:
    code = (
        "router.put('/items/:id', async (req, res, next) => {\n  try {\n    res.json({});\n"
        f"  }} catch (err) {{\n    {ending}\n  }}\n}});\n"
    )
    found = verdict(ExemplarCheck, code, {"exemplar": ROUTE}, tmp_path, "javascript")
    assert found.status == status, messages(found)


def test_a_named_function_follows_the_examples_conventions(tmp_path: Path) -> None:
    example = "export function loadUser(userId) {\n  return db.find(userId);\n}\n"
    code = "export function load_order(order_id) {\n  return db.find(order_id);\n}\n"
    found = verdict(ExemplarCheck, code, {"exemplar": example}, tmp_path, "typescript")
    assert messages(found) == [
        "`load_order` function name load_order not in camelCase like `loadUser`",
        "`load_order` parameter names order_id not in camelCase like `loadUser`",
    ]


def test_the_example_repeated_is_not_the_new_function(tmp_path: Path) -> None:
    example = "const loadUser = (userId) => db.find(userId);\n"
    code = example + "const loadOrder = (orderId) => db.find(orderId);\n"
    assert verdict(ExemplarCheck, code, {"exemplar": example}, tmp_path, "javascript").status == (
        "satisfied"
    )
    found = verdict(ExemplarCheck, example, {"exemplar": example}, tmp_path, "javascript")
    assert messages(found) == ["the code defines no new function"]


def test_a_class_example_and_a_named_method(tmp_path: Path) -> None:
    example = (
        "class UserStore {\n  async findUser(userId) {\n    try {\n"
        "      return await db.get(userId);\n"
        "    } catch (error) {\n      throw new Error('lookup failed');\n    }\n  }\n}\n"
    )
    code = "class OrderStore {\n  async findOrder(orderId) {\n    return db.get(orderId);\n  }\n}\n"
    found = verdict(ExemplarCheck, code, {"exemplar": example}, tmp_path, "javascript")
    assert messages(found) == ["`OrderStore` handles no errors; `UserStore` uses try/catch"]
    method = {
        "exemplar": example,
        "example-function": "UserStore.findUser",
        "function": "findOrder",
    }
    found = verdict(ExemplarCheck, code, method, tmp_path, "javascript")
    assert messages(found) == [
        "`OrderStore.findOrder` handles no errors; `UserStore.findUser` uses try/catch"
    ]


def test_an_example_in_another_language_is_a_task_error_at_exemplar(tmp_path: Path) -> None:
    found = verdict(ExemplarCheck, "def f(a):\n    return a\n", {"exemplar": ROUTE}, tmp_path, None)
    assert (found.status, found.error_kind) == ("error", "invalid-task")
    assert "`exemplar` is not valid Python" in (found.error or "")
    with pytest.raises(ValueError, match="is not valid Python"):
        ExemplarCheck({"exemplar": "def f(:\n  }{\n"})
    with pytest.raises(ValueError, match="defines no function or class"):
        ExemplarCheck({"exemplar": "const limit = 3;\nconsole.log(limit);\n"})


def test_a_response_of_members_alone_is_judged_at_its_response_line(
    pytester: pytest.Pytester,
) -> None:
    cart = textwrap.indent(CART.strip("\n"), " " * 14)
    pytester.makefile(
        ".codeif.yaml",
        tasks=textwrap.dedent(
            """
            tasks:
              - id: cart
                language: javascript
                response: |
                  Here it is:

                  ```javascript
                  addItem(item) {
                    this.items.push(item);
                  }
                  ```
                constraints:
                  - check: context
                    context: |
            CART
              - id: broken-context
                language: javascript
                response: |
                  ```javascript
                  clear() {}
                  ```
                constraints:
                  - check: context
                    context: |
                      def read(path):
                          return path
            """
        ).replace("CART", cart),
    )
    result = pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, errors=1)
    # The member's line in the response's task file; the option's key for the error.
    result.stdout.fnmatch_lines(
        [
            "*tasks.codeif.yaml:8: [[]context[]] `Cart.addItem` takes (item) instead of the "
            "context's (item, quantity)*"
        ]
    )
    result.stdout.fnmatch_lines(
        ["*tasks.codeif.yaml:32: *context: `context` is not valid JavaScript or TypeScript*"]
    )


def test_a_project_is_judged_in_the_languages_the_context_reads_in(tmp_path: Path) -> None:
    code = {
        "web/cart.js": "class Cart {\n  addItem(entry) {\n    this.items.push(entry);\n  }\n}\n",
        "tools/report.py": "def main():\n    return 0\n",
    }
    found = sample_verdict(ContextCheck, Sample(code, {"context": CART}), tmp_path)
    assert [(e.message, e.code_line) for e in found.evidence] == [
        ("`Cart.addItem` takes (entry) instead of the context's (item, quantity)", 2)
    ]
    assert found.evidence[0].path.endswith("cart.js")


def test_what_the_code_writes_is_cut_short_in_messages(tmp_path: Path) -> None:
    route = "/" + "x" * 5000
    code = f"router.put('{route}', (req, res) => {{\n  res.json({{}});\n}});\n"
    found = verdict(ExemplarCheck, code, {"exemplar": ROUTE}, tmp_path, "javascript")
    assert found.status == "violated"
    assert len(messages(found)[0]) < 250
    pattern = "{ " + ", ".join(f"field{i}" for i in range(500)) + " }"
    code = f"class Cart {{\n  addItem({pattern}, quantity) {{}}\n}}\n"
    found = verdict(ContextCheck, code, {"context": CART}, tmp_path, "javascript")
    assert found.status == "violated"
    assert len(messages(found)[0]) < 250

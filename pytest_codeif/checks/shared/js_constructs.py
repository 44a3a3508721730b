"""Where a JavaScript or TypeScript module uses a construct the `construct` check names:
the check's Python construct names read the language's way, and the names that have no
meaning in it (asked of JS/TS code, they are a located task error, never a pass).

The mapping, and why:

- `loop` is `for`, `for...of`/`for...in`, `while` and `do...while`; `for-loop` the
  first two, `while-loop` the last two;
- `comprehension` is the language's comprehension: a call of an array's `map`,
  `filter`, `flatMap`, `reduce` or `reduceRight` (`xs.map(x => x * 2)`);
  `list-comprehension` the calls that build an array (`map`, `filter`, `flatMap`);
- `lambda` is an arrow function or an anonymous function expression; `arrow-function`
  (a name of JavaScript's own) an arrow function alone;
- `generator` is `yield`; `async-function` an `async` function, arrow or method;
  `await`, `class`, `decorator`, `try` (`try`/`catch`), `raise` (`throw`) are theirs;
- `match` is `switch`, the language's statement choosing among cases;
- `f-string` is a template literal (`` `Hello ${name}` ``);
- `unpacking` is destructuring (`const [a, b] = ...`, `{ id } = ...`) and spread or
  rest (`...args`);
- `type-hint` is a TypeScript type annotation; JavaScript has none.

No meaning in JS/TS: `set-comprehension`, `dict-comprehension`,
`generator-expression`, `context-manager`, `walrus`, `global`, `nonlocal`, `assert`,
`dataclass` (and `type-hint` in JavaScript).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_functions import FUNCTION_KINDS, JsFunction
from pytest_codeif.code.js_tree import JsModule

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Construct name -> the node kinds that are it in JS/TS.
JS_NODE_CONSTRUCTS: Final[dict[str, tuple[str, ...]]] = {
    "class": ("class_declaration", "abstract_class_declaration", "class"),
    "decorator": ("decorator",),
    "lambda": ("arrow_function", "function_expression", "function"),
    "arrow-function": ("arrow_function",),
    "try": ("try_statement",),
    "loop": ("for_statement", "for_in_statement", "while_statement", "do_statement"),
    "for-loop": ("for_statement", "for_in_statement"),
    "while-loop": ("while_statement", "do_statement"),
    "await": ("await_expression",),
    "generator": ("yield_expression",),
    "match": ("switch_statement",),
    "f-string": ("template_string",),
    "raise": ("throw_statement",),
    "type-hint": ("type_annotation",),
    "unpacking": ("array_pattern", "object_pattern", "spread_element", "rest_pattern"),
}
_COMPREHENSIONS: Final = frozenset({"map", "filter", "flatMap", "reduce", "reduceRight"})
_ARRAY_BUILDERS: Final = frozenset({"map", "filter", "flatMap"})


def _array_call(methods: frozenset[str]) -> Callable[[JsModule, SgNode], bool]:
    def test(module: JsModule, node: SgNode) -> bool:
        if node.kind() != "call_expression":
            return False
        callee = node.field("function")
        if callee is None or callee.kind() != "member_expression":
            return False
        prop = callee.field("property")
        arguments = node.field("arguments")
        has_argument = arguments is not None and bool(arguments.named_children())
        return prop is not None and prop.text() in methods and has_argument

    return test


def _async_function(module: JsModule, node: SgNode) -> bool:
    return node.kind() in FUNCTION_KINDS and JsFunction(module, node, None, None).is_async


#: Construct name -> (the node kinds to look at, a test of one of them).
JS_NODE_TESTS: Final[dict[str, tuple[tuple[str, ...], Callable[[JsModule, SgNode], bool]]]] = {
    "async-function": (FUNCTION_KINDS, _async_function),
    "comprehension": (("call_expression",), _array_call(_COMPREHENSIONS)),
    "list-comprehension": (("call_expression",), _array_call(_ARRAY_BUILDERS)),
}
#: Construct names with no meaning in JS/TS code.
NO_JS_MEANING: Final = frozenset(
    {
        "set-comprehension",
        "dict-comprehension",
        "generator-expression",
        "context-manager",
        "walrus",
        "global",
        "nonlocal",
        "assert",
        "dataclass",
    }
)
#: Construct names of JavaScript's own, with no meaning in Python code.
JS_ONLY: Final = frozenset({"arrow-function"})


def js_meaning(construct: str, language: str) -> str | None:
    """Why `construct` means nothing in `language` code (None: it has a meaning)."""
    if construct in NO_JS_MEANING:
        return f"`{construct}` has no meaning in {language} code"
    if construct == "type-hint" and language == "javascript":
        return "`type-hint` has no meaning in javascript code (TypeScript has annotations)"
    return None


def js_sites(module: JsModule, construct: str, within: SgNode | None) -> list[SgNode]:
    """The nodes of `module` (below `within`, when given) that are `construct`; not
    `recursion`, which is the call graph's (`js_functions.recursive_js_functions`)."""
    if construct in JS_NODE_CONSTRUCTS:
        return module.nodes(*JS_NODE_CONSTRUCTS[construct], within=within)
    kinds, test = JS_NODE_TESTS[construct]
    return [node for node in module.nodes(*kinds, within=within) if test(module, node)]

"""More checks judging JavaScript and TypeScript end to end (issue 27, item 2):
`calls`, `comments`, `data-structure`, `signature`, `types` and `values`, with the
same names and options as for Python, each finding at its file and line."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from pytest_codeif.sandbox.isolation import choose_isolation

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
needs_bwrap = pytest.mark.skipif(
    choose_isolation("auto").name != "bubblewrap", reason="bubblewrap cannot run here"
)


def run(pytester: pytest.Pytester, tasks: str, *args: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess(
        "--codeif", "-p", "no:randomly", "-p", "no:cacheprovider", *args
    )


def test_calls_in_js_are_resolved_through_imports(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.js").write_text(
        'const cp = require("node:child_process");\n'
        'import { createHash as h } from "crypto";\n\n'
        "export function digest(text) {\n"
        '  cp.execSync("ls");\n'
        '  return h("md5").update(text).digest("hex");\n'
        "}\n"
        "const nothing = () => eval('1');\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.js
            constraints:
              - check: calls
                forbid: [child_process.execSync, eval]
              - check: calls
                require: [crypto.createHash]
                arguments: [{position: 1, one-of: [sha256]}]
              - check: calls
                require: [update]
                function: nothing
              - check: calls
                require: [crypto.createHash, digest]
                function: digest
        """,
    )
    result.assert_outcomes(failed=3, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*app.js:5: [[]calls[]] calls `child_process.execSync`, which is forbidden*",
            "*app.js:8: [[]calls[]] calls `eval`, which is forbidden*",
            "*app.js:6: [[]calls[]] `crypto.createHash` is called here, but argument 1 is "
            "'md5', expected one of 'sha256'*",
            "*app.js:8: [[]calls[]] `update` is never called in `nothing`*",
        ]
    )


def test_signature_of_typescript_and_javascript(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("api.ts").write_text(
        "export class Store {\n"
        "  async find(id: number, fields?: string[]): Promise<Record<string, unknown> | null> {\n"
        "    return null;\n  }\n}\n\n"
        "export const add = (a: number, b): number => a + b;\n"
    )
    pytester.path.joinpath("util.js").write_text("function clamp(x, lo, hi) {\n  return x;\n}\n")
    result = run(
        pytester,
        """
        tasks:
          - id: api
            file: api.ts
            constraints:
              - check: signature
                function: Store.find
                params: [id, fields]
                annotations: {id: int, fields: "list[str]"}
                returns: "dict | None"
              - check: signature
                function: add
                fully-annotated: true
              - check: signature
                function: Store.find
                returns: "Map<string, unknown>"
          - id: util
            file: util.js
            constraints:
              - check: signature
                function: clamp
                params: [value, lo, hi]
              - check: signature
                function: clamp
                returns: number
        """,
    )
    result.assert_outcomes(passed=1, failed=3, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "*api.ts:7: [[]signature[]] `add` lacks annotations: parameter `b`*",
            "*api.ts:2: [[]signature[]] `Store.find` returns `Promise<Record<string, unknown> "
            "| null>`, expected `Map<string, unknown>`*",
            "*util.js:1: [[]signature[]] `clamp` has parameters (x, lo, hi), expected "
            "(value, lo, hi)*",
            "*`returns` has no meaning in javascript code*",
        ]
    )


@needs_node
@needs_bwrap
def test_values_read_what_node_call_cases_return(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("grade.js").write_text(
        "function grade(score) {\n"
        "  if (score > 100) throw new RangeError('too high');\n"
        "  return score / 10;\n"
        "}\n"
        "module.exports = { grade };\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: grade
            file: grade.js
            tests:
              - {function: grade, args: [95], expect: 9.5}
              - {function: grade, args: [100], expect: 10}
              - {function: grade, args: [-5], expect: -0.5}
            constraints:
              - check: values
                function: grade
                params: {score: {type: int, min: 0, max: 100}}
                reject-outside: true
              - check: values
                returns: {type: int}
        """,
        "--codeif-sandbox=bubblewrap",
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*tasks.codeif.yaml:7: [[]values[]] grade(-5): `score` = -5 is below the minimum 0, "
            "but it returned -0.5 (expected it to raise)",
            "*tasks.codeif.yaml:5: [[]values[]] grade(95): the result is a float (9.5), "
            "expected int",
        ]
    )


def test_comments_and_jsdoc_in_js_and_ts(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("shapes.ts").write_text(
        "// @ts-nocheck\n"
        "/**\n * The area.\n * @param width the width\n */\n"
        "export function area(width: number, height: number): number {\n"
        "  const w = width;\n\n"
        "  return w * height; // multiply\n"
        "}\n\n"
        "export const perimeter = (a: number, b: number): number => 2 * (a + b);\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: shapes
            file: shapes.ts
            constraints:
              - check: comments
                docstrings: required
                docstring-mentions: [parameters]
              - check: comments
                inline: forbidden
              - check: comments
                function: area
                function-start: comment
              - check: comments
                max-comments: 1
        """,
    )
    result.assert_outcomes(failed=3, passed=1)
    result.stdout.fnmatch_lines_random(
        [
            "*shapes.ts:6: [[]comments[]] JSDoc of function `area` does not mention: `height`*",
            "*shapes.ts:12: [[]comments[]] function `perimeter` has no JSDoc comment*",
            "*shapes.ts:9: [[]comments[]] comment at the end of a line of code: `// multiply`*",
            "*shapes.ts:6: [[]comments[]] function `area` does not open with a comment*",
        ]
    )


def test_data_structures_of_js_and_ts(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("lru.ts").write_text(
        "type Entry = { key: string; value: number };\n\n"
        "export class Lru {\n"
        "  private cache = new Map<string, number>();\n"
        "  put(key: string, value: number): void {\n"
        "    this.cache.set(key, value);\n"
        "  }\n"
        "}\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: lru
            file: lru.ts
            constraints:
              - check: data-structure
                type: Map
                operations: [set]
              - check: data-structure
                type: hashmap
                operations: [delete]
                max-size: 100
              - check: data-structure
                type: WeakMap
              - check: data-structure
                type: collections.deque
              - check: data-structure
                type: record
        """,
    )
    result.assert_outcomes(passed=2, failed=2, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "*lru.ts:1: [[]data-structure[]] `delete` is never called on a hashmap*",
            "*lru.ts:1: [[]data-structure[]] nothing in the code enforces the size bound of 100*",
            "*lru.ts:1: [[]data-structure[]] no WeakMap is used*",
            "*`collections.deque` has no meaning in typescript code*",
        ]
    )


def test_types_of_typescript_by_annotation(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("lib.ts").write_text(
        "export function index(words: string[], min = 1): Map<string, number> {\n"
        "  return new Map();\n}\n\n"
        "export const shout = (text: string): string => text.toUpperCase();\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: lib
            file: lib.ts
            constraints:
              - check: types
                function: index
                param-types: ["list[str]", int]
                returns: "dict[str, int]"
              - check: types
                function: index
                param-type: "number[]"
              - check: types
                function: shout
                returns: int
        """,
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*lib.ts:1: [[]types[]] `index` has no parameter of type `number[[][]]` "
            "(parameters: words, min)*",
            "*lib.ts:5: [[]types[]] `shout` returns `string` by its annotation, expected `int`*",
        ]
    )

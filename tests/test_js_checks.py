"""JavaScript and TypeScript end to end (issue 27): code from a `file:`, inline `code:`
with `language:`, a response's ```ts fences and a project directory, judged by the
checks that read JS/TS (`naming`, `construct`, `imports`, `pattern`), each verdict at
the right file and line; a check with no JS meaning, a construct with none, a syntax
error and hostile code are located errors, never passes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_codeif.code.extract import response_language
from pytest_codeif.code.js_syntax import MAX_NESTING, JsBounds
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.languages import JAVASCRIPT, PYTHON, TYPESCRIPT, language_of_path
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.code.walk import source_files
from pytest_codeif.outcome import Undecidable


def run(pytester: pytest.Pytester, tasks: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")


def js(text: str, relpath: str = "app.js") -> SourceFile:
    language = TYPESCRIPT.name if relpath.endswith((".ts", ".tsx")) else JAVASCRIPT.name
    return SourceFile(relpath, textwrap.dedent(text), Path(relpath), language=language)


def test_a_js_file_is_judged_at_its_lines(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.js").write_text(
        'const express = require("express");\n\nfunction load_data(rows) {\n'
        "  for (const row of rows) {}\n  return rows;\n}\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.js
            constraints:
              - check: naming
                function: camelCase
              - check: construct
                forbid: [loop]
              - check: imports
                forbid: [express]
              - check: imports
                require: [pg]
        """,
    )
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "*app.js:3: [[]naming[]] function `load_data` does not follow camelCase*",
            "*app.js:4: [[]construct[]] the code uses loop, which is forbidden*",
            "*app.js:1: [[]imports[]] imports `express`, but `express` is forbidden*",
            "*app.js:1: [[]imports[]] module `pg` is never imported*",
        ]
    )


def test_satisfied_js_constraints_pass(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.mjs").write_text(
        'import { readFile } from "node:fs/promises";\n\n'
        "export const loadRows = async (path) => (await readFile(path, 'utf8')).split('\\n');\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.mjs
            constraints:
              - check: naming
                function: camelCase
                variable: camelCase
              - check: construct
                require: [async-function, await, arrow-function]
                forbid: [loop]
              - check: imports
                require: [fs]
                forbid: [pg]
              - check: pattern
                language: javascript
                pattern: console.log($$$ARGS)
        """,
    )
    result.assert_outcomes(passed=4)


def test_inline_typescript_code_is_located_in_the_task_file(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        tasks:
          - id: inline
            language: typescript
            code: |
              interface user_shape {
                id: number;
              }
              while (true) {
                break;
              }
            constraints:
              - check: naming
                class: PascalCase
              - check: construct
                forbid: [while-loop]
        """,
    )
    result.assert_outcomes(failed=2)
    # `code: |` is on line 4 (pytester drops the leading newline): code line 1 is line 5.
    result.stdout.fnmatch_lines(
        [
            "*tasks.codeif.yaml:5: [[]naming[]] class `user_shape` does not follow PascalCase*",
            "*tasks.codeif.yaml:8: [[]construct[]] the code uses while-loop, which is forbidden*",
        ]
    )


def test_a_response_with_ts_fences_is_read_as_typescript(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        tasks:
          - id: answer
            response: |
              Here is the function:
              ```ts
              export function sum_all(xs: number[]): number {
                return xs.reduce((a, b) => a + b, 0);
              }
              ```
            constraints:
              - check: naming
                function: camelCase
              - check: construct
                require: [comprehension, type-hint]
        """,
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["*tasks.codeif.yaml:6: [[]naming[]] function `sum_all` does not follow camelCase*"]
    )


def test_a_project_of_js_and_ts_files(pytester: pytest.Pytester) -> None:
    project = pytester.path / "proj"
    for folder in ("src/db", "node_modules/left-pad", "dist", "coverage"):
        (project / folder).mkdir(parents=True)
    (project / "src" / "server.js").write_text(
        'const db = require("./db/pool");\nconst { Pool } = require("pg");\n'
    )
    (project / "src" / "db" / "pool.ts").write_text(
        "export class connection_pool {}\nexport const query = (sql: string) => sql;\n"
    )
    (project / "src" / "db" / "pool.d.ts").write_text("export declare class bad_name {}\n")
    (project / "node_modules" / "left-pad" / "index.js").write_text("function bad_one() {}\n")
    (project / "dist" / "bundle.js").write_text("function bad_two() {}\n")
    (project / "coverage" / "sorter.js").write_text("function bad_three() {}\n")
    result = run(
        pytester,
        """
        tasks:
          - id: proj
            directory: proj
            constraints:
              - check: naming
                class: PascalCase
                function: camelCase
              - check: imports
                forbid: [pg]
                files: [src/server.js]
        """,
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*proj/src/db/pool.ts:1: [[]naming[]] class `connection_pool` does not follow*",
            "*proj/src/server.js:2: [[]imports[]] imports `pg`, but `pg` is forbidden*",
        ]
    )
    assert "bad_" not in result.stdout.str()  # vendored, built, declarations: not judged


def test_what_has_no_meaning_in_js_is_a_located_error(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.js").write_text("let x = 1;\n")
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.js
            constraints:
              - check: construct
                require: [loop]
                forbid: [walrus]
              - check: mypy
              - check: complexity
                function: f
                time: O(n)
        """,
    )
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        [
            "*(invalid-task): tasks.codeif.yaml:7: *forbid[[]0[]]: `walrus` has no meaning in "
            "javascript code*",
            "*(invalid-task): check 'mypy' judges python code*written in javascript*",
            "*(invalid-task): tasks.codeif.yaml:11: *time: `time` is measured by running*",
        ]
    )


def test_a_js_syntax_error_is_located_at_its_line(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("app.js").write_text(
        "function add(a, b) {\n  return a + b;\n}\n\nlet total = add(1, ;\n"
    )
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.js
            constraints:
              - check: naming
                function: camelCase
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*(syntax-error): app.js:5: *"])


def test_a_language_contradicting_the_code_is_a_task_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "proj").mkdir()
    (pytester.path / "proj" / "a.js").write_text("let a = 1;\n")
    pytester.path.joinpath("app.js").write_text("let a = 1;\n")
    result = run(
        pytester,
        """
        tasks:
          - id: dir
            directory: proj
            language: javascript
            constraints:
              - check: naming
                variable: camelCase
          - id: file
            file: app.js
            language: typescript
            constraints:
              - check: naming
                variable: camelCase
        """,
    )
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*`language` is for inline `code` and responses*",
            "*`file` 'app.js' is javascript source by its suffix, not typescript*",
        ]
    )


def test_a_pattern_ast_grep_cannot_parse_is_refused_at_its_option(
    pytester: pytest.Pytester,
) -> None:
    pytester.path.joinpath("app.js").write_text("eval(input);\n")
    result = run(
        pytester,
        """
        tasks:
          - id: app
            file: app.js
            constraints:
              - check: pattern
                language: javascript
                pattern: "console.log($X"
              - check: pattern
                pattern: eval($X)
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*is not javascript ast-grep can read*"])


def test_the_languages_of_paths_and_responses() -> None:
    assert language_of_path("src/app.tsx") is TYPESCRIPT
    assert language_of_path("src/app.cjs") is JAVASCRIPT
    assert language_of_path("types/index.d.ts") is None  # declarations: no code that runs
    assert language_of_path("vendor/jquery.min.js") is None
    assert response_language("```python\nx = 1\n```\n```js\nlet y;\n```") is PYTHON
    assert response_language("```js\nlet y;\n```\n```ts\nlet z: number;\n```") is TYPESCRIPT
    assert response_language("```javascript:app.js\nlet y;\n```") is JAVASCRIPT
    assert response_language("```\nlet y;\n```") is PYTHON  # untagged: Python, as before


def test_source_files_leave_declarations_and_build_output_out(tmp_path: Path) -> None:
    for folder in ("src", "dist", "build", "coverage", "bower_components/x"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("src/a.ts", "src/a.d.ts", "src/b.jsx", "dist/c.js", "build/d.js"):
        (tmp_path / name).write_text("let x = 1;\n")
    (tmp_path / "coverage" / "e.js").write_text("")
    (tmp_path / "bower_components" / "x" / "f.js").write_text("")
    assert source_files(tmp_path) == ["src/a.ts", "src/b.jsx"]


def test_syntax_errors_and_missing_tokens_are_found() -> None:
    with pytest.raises(Undecidable, match=r"app\.js:2: missing `\)`"):
        JsModule(js("let a = 1;\nlet b = f(1;\n"))
    with pytest.raises(Undecidable, match=r"app\.js:1: invalid syntax"):
        JsModule(js("let = ;\n"))
    assert JsModule(js("")).grammar == "javascript"  # an empty file parses
    # JSX in a `.js` file is JavaScript's; in TypeScript without a file name, TSX's.
    JsModule(js("const el = <div>{name}</div>;\n"))
    tsx = SourceFile(
        "solution.ts", "const el = <div>{n}</div>;\n", Path("t.yaml"), language="typescript"
    )
    assert JsModule(tsx).grammar == "tsx"
    with pytest.raises(Undecidable, match=r"real\.ts:1: "):
        JsModule(js("const el = <div>{n}</div>;\n", "real.ts"))


@pytest.mark.parametrize(
    ("code", "what"),
    [
        ("x = " + "[" * 100_000 + "]" * 100_000 + ";\n", "brackets nested 100000 deep"),
        ("x = " + "(" * (MAX_NESTING + 1) + ")" * (MAX_NESTING + 1) + ";\n", "nested 257 deep"),
        ("const s = '" + "a" * 50_000 + "';\n", "a line of 50,013 characters"),
    ],
)
def test_hostile_js_is_bounded_before_parsing(code: str, what: str) -> None:
    with pytest.raises(Undecidable) as raised:
        JsModule(js(code))
    assert raised.value.kind == "too-large"
    assert what in raised.value.message


def test_deep_chains_within_the_bounds_parse_and_are_walked() -> None:
    """Operator and call chains nest deep without brackets: every walk is iterative."""
    lines = "\n".join(["x = a"] + ["  + a"] * 20_000) + ";\n"
    module = JsModule(js(lines))
    assert len(module.nodes("binary_expression")) == 20_000
    assert module.snippet(module.root).endswith("...")
    assert JsBounds.of("([{}])").nesting == 3


def test_jsx_attributes_named_by_keywords_are_javascript() -> None:
    """tree-sitter's JavaScript grammar refuses `class=` and `for=` in JSX: such a file is
    read with the tsx grammar, unless the file is more than JavaScript (then it stays a
    syntax error of JavaScript)."""
    module = JsModule(js('const A = (p) => <label for="x" class="y">{p.t}</label>;\n'))
    assert module.grammar == "tsx"
    for typescript in (
        'const A = (p: P) => <label class="y" />;\n',
        'import type { X } from "x";\nconst a = <div class="x" />;\n',
        'function f(a);\nfunction f(a) { return <p class="x" />; }\n',
        'class C { declare x; m() { return <p class="q" />; } }\n',
    ):
        with pytest.raises(Undecidable, match=r"app\.js:1"):
            JsModule(js(typescript))

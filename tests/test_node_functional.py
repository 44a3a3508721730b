"""Call cases of JavaScript and TypeScript code, run by Node.js in the sandbox
(fixtures/node/calls): scripts, CommonJS and ES modules, async functions, TypeScript
transpiled, projects with their entry file; plain data mapped and compared as Python's
cases are; thrown values named by identity; `kwargs` an invalid task, an npm package a
missing module, Node.js or TypeScript absent a missing tool, never a pass."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif.code.unit import CodeUnit, OtherFile, SourceFile
from pytest_codeif.functional import node_calls
from pytest_codeif.functional.node_calls import npm_package
from pytest_codeif.functional.node_entry import entry_file, uses_node
from pytest_codeif.functional.node_judge import raised_matches, show
from pytest_codeif.functional.node_tools import find_typescript
from pytest_codeif.functional.plain import decode
from pytest_codeif.sandbox.isolation import choose_isolation
from tests.conftest import FIXTURES

CALLS = FIXTURES / "node" / "calls"
NODE = shutil.which("node") is not None
BWRAP = choose_isolation("auto").name == "bubblewrap"
needs_node = pytest.mark.skipif(not NODE, reason="Node.js (`node`) is not installed")
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
#: TypeScript tasks pass with the compiler, and are a missing tool without it.
TYPESCRIPT = find_typescript() is not None

CALL_OUTCOMES: dict[str, tuple[str, str | None]] = {
    "script-functions": ("satisfied", None),
    "commonjs-exports": ("satisfied", None),
    "commonjs-function": ("satisfied", None),
    "es-module": ("satisfied", None),
    "async-functions": ("satisfied", None),
    "plain-data": ("satisfied", None),
    "exceptions": ("satisfied", None),
    "typescript": ("satisfied", None) if TYPESCRIPT else ("error", "missing-tool"),
    "esm-project": ("satisfied", None),
    "ts-project": ("satisfied", None) if TYPESCRIPT else ("error", "missing-tool"),
    "wrong-answers": ("violated", None),
    "kwargs-given": ("error", "invalid-task"),
    "npm-package": ("error", "missing-module"),
}


def run_codeif(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest("--codeif", "-rA", "--codeif-report=r.json", *args)
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = {
        task["id"]: (task["functional"]["status"], task["functional"].get("error_kind"))
        for task in report["tasks"]
    }
    return result, outcomes


@needs_node
@needs_bwrap
def test_call_cases_of_javascript_and_typescript(pytester: pytest.Pytester) -> None:
    shutil.copytree(CALLS, pytester.path, dirs_exist_ok=True)
    result, outcomes = run_codeif(pytester, "--codeif-sandbox=bubblewrap")
    assert outcomes == CALL_OUTCOMES
    for line in (
        "*[[]test[]] add(1, 2): expected 3, got -1",
        "*[[]test[]] point(): expected {x: 1}, but it returned an instance of Point, which "
        "is not plain data*",
        "*[[]test[]] check('a'): expected Error, but it threw (a thrown string): not a number",
        "*[[]test[]] absent(): expected 1, but it threw ReferenceError: absent is not defined "
        "by the module*",
        "*(invalid-task): add(a=1, b=2): invalid task: JavaScript functions take no keyword "
        "arguments*",
        "*(missing-module): first([[]1[]]): missing module `lodash`: importing `solution.js` "
        "needs the npm package*",
    ):
        result.stdout.fnmatch_lines([line])
    if not TYPESCRIPT:
        result.stdout.fnmatch_lines(["*npm package `typescript`*"])


@needs_node
def test_honest_code_runs_on_the_process_backend_too(pytester: pytest.Pytester) -> None:
    """Honest code only: hostile code never runs without bubblewrap."""
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: honest
            language: javascript
            code: |
              export const add = (a, b) => a + b;
              export async function slowly(x) { return x; }
            tests:
              - {call: "add(1, 2)", expect: 3}
              - {call: "slowly([1, 'a'])", expect: [1, a]}
              - {call: "add(1, 2)", expect: 4}
        """,
    )
    result, outcomes = run_codeif(pytester, "--codeif-sandbox=process")
    assert outcomes == {"honest": ("violated", None)}
    result.stdout.fnmatch_lines(["*add(1, 2): expected 4, got 3"])


def test_without_node_the_cases_are_a_missing_tool(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(node_calls, "find_node", lambda: None)
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: js
            language: javascript
            code: |
              export const add = (a, b) => a + b;
            tests:
              - {call: "add(1, 2)", expect: 3}
        """,
    )
    result, outcomes = run_codeif(pytester)
    assert outcomes == {"js": ("error", "missing-tool")}
    result.stdout.fnmatch_lines(["*(missing-tool): add(1, 2): missing tool: Node.js (`node`)*"])


@needs_node
def test_without_typescript_typescript_cases_are_a_missing_tool(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(node_calls, "find_typescript", lambda: None)
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: ts
            language: typescript
            code: |
              export const add = (a: number, b: number): number => a + b;
            tests:
              - {call: "add(1, 2)", expect: 3}
        """,
    )
    result, outcomes = run_codeif(pytester)
    assert outcomes == {"ts": ("error", "missing-tool")}
    result.stdout.fnmatch_lines(["*the TypeScript compiler (npm package `typescript`)*"])


def test_a_javascript_call_is_refused_for_python_code(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: py
            code: |
              def add(a, b):
                  return a + b
            tests:
              - {call: "[1, 2].map((x) => add(x, x))", expect: [2, 4]}
          - id: unknown
            response: |
              ```js
              const add = (a, b) => a + b;
              ```
            tests:
              - {call: "[1, 2].map((x) => add(x, x))", expect: [2, 4]}
        """,
    )
    result = pytester.runpytest("--codeif")
    result.stdout.fnmatch_lines(
        [
            '*tasks[[]0[]].tests[[]0[]].call: `call` must be a Python expression: *"=="?',
            "*tasks[[]1[]].tests[[]0[]].call: `call` must be a Python expression: *"
            "(JavaScript code? give the task `language`)",
        ],
        consecutive=False,
    )


def unit(*files: tuple[str, str], project: bool = True, others: tuple[str, ...] = ()) -> CodeUnit:
    sources = tuple(
        SourceFile(rel, text, Path(rel), language="typescript" if ".ts" in rel else "javascript")
        for rel, text in files
    )
    other = tuple(
        OtherFile(rel, data.encode(), Path(rel))
        for rel, data in zip(others[::2], others[1::2], strict=True)
    )
    return CodeUnit("k", sources, None if project else "solution", project, None, other)


def entry_of(code: CodeUnit, module: str | None = None) -> str:
    found = entry_file(code, module)
    return found if isinstance(found, str) else found.source.relpath


def test_the_entry_file_of_a_project() -> None:
    single = unit(("solution.ts", "x"), project=False)
    assert entry_of(single, "solution") == "solution.ts"
    project = unit(("src/shapes.ts", ""), ("src/index.js", ""), ("lib/a.mjs", ""), ("b.cjs", ""))
    assert entry_of(project, "src/shapes") == "src/shapes.ts"
    assert entry_of(project, "src.shapes") == "src/shapes.ts"
    assert entry_of(project, "./src/index.js") == "src/index.js"
    assert entry_of(project, "src") == "src/index.js"  # a folder's index file
    assert entry_of(project) == "b.cjs"  # the only top-level file
    assert "no JavaScript or TypeScript file `nope`" in entry_of(project, "nope")
    packaged = unit(
        ("a.js", ""),
        ("b.js", ""),
        ("src/main.ts", ""),
        others=("package.json", '{"main": "src/main"}'),
    )
    assert entry_of(packaged) == "src/main.ts"
    several = unit(("a.js", ""), ("b.js", ""))
    assert "set the task's `module`" in entry_of(several)
    indexed = unit(("a.js", ""), ("index.ts", ""))
    assert entry_of(indexed) == "index.ts"


def test_which_units_run_in_node() -> None:
    mixed = CodeUnit(
        "k",
        (
            SourceFile("app.py", "", Path("app.py")),
            SourceFile("web/app.js", "", Path("web/app.js"), language="javascript"),
        ),
        None,
        True,
    )
    assert uses_node(unit(("a.js", "")), None)
    assert not uses_node(mixed, None)
    assert not uses_node(mixed, "app")
    assert uses_node(mixed, "web/app")


def test_thrown_classes_match_by_identity() -> None:
    assert raised_matches("TypeError", ["TypeError", "Error"])
    assert raised_matches("Error", ["RangeError", "Error"])
    assert not raised_matches("TypeError", ["solution.TypeError", "Error"])  # a look-alike
    assert raised_matches("ValidationError", ["solution.ValidationError", "Error"])
    assert raised_matches("solution.ValidationError", ["solution.ValidationError", "Error"])
    assert not raised_matches("Error", ["(a thrown string)"])
    assert not raised_matches("ValueError", ["TypeError", "Error"])  # Python's name: no


def test_values_are_said_as_javascript_writes_them() -> None:
    value = decode({"$dict": [["a", [1, 2.5, None, True]], ["my key", {"$float": "nan"}]]})
    assert show(value) == '{a: [1, 2.5, null, true], "my key": NaN}'
    assert show(decode({"$float": "-inf"})) == "-Infinity"
    assert show(decode({"$unsupported": "a Proxy"})) == "<a Proxy>"
    assert show("x" * 300).endswith("...")


def test_only_bare_specifiers_name_an_npm_package() -> None:
    code = unit(("lib/a.js", ""))
    assert npm_package("lodash", code) == "lodash"
    assert npm_package("lodash/fp", code) == "lodash"
    assert npm_package("@scope/pkg/deep", code) == "@scope/pkg"
    for not_a_package in ("./utils", "../x", "/abs", "node:sqlite", "lib", 42, None, "a b"):
        assert npm_package(not_a_package, code) is None


@needs_node
def test_an_entry_that_swallows_the_scope_line_still_reaches_its_exports(
    pytester: pytest.Pytester,
) -> None:
    """Code that shadows `globalThis` never hands its scope over: its exports still run,
    its undeclared helpers are not found (a failure, never a crash of the harness)."""
    pytester.makefile(
        ".codeif.yaml",
        t=textwrap.dedent(
            """
            tasks:
              - id: swallowed
                language: javascript
                code: |
                  const globalThis = {};
                  function hidden() { return 1; }
                  module.exports = { add: (a, b) => a + b };
                tests:
                  - {call: "add(1, 2)", expect: 3}
                  - {call: "hidden()", expect: 1}
            """
        ),
    )
    result, outcomes = run_codeif(pytester)
    assert outcomes == {"swallowed": ("violated", None)}
    result.stdout.fnmatch_lines(["*hidden(): expected 1, but it threw ReferenceError: hidden is*"])


SERVICE = FIXTURES / "node" / "service"


@needs_node
@needs_bwrap
def test_a_node_backend_runs_as_a_service(pytester: pytest.Pytester) -> None:
    """`node server.js` started by the stage as any service is: requests judged, the call
    cases of its store beside them; the same backend with a broken route fails."""
    shutil.copytree(SERVICE, pytester.path, dirs_exist_ok=True)
    broken = pytester.path / "broken"
    shutil.copytree(pytester.path / "todo", broken)
    server = broken / "server.js"
    server.write_text(
        server.read_text().replace("return send(response, 201,", "return send(response, 200,")
    )
    task_file = pytester.path / "service.codeif.yaml"
    text = task_file.read_text()
    broken_task = text.split("tasks:\n", 1)[1].replace("id: todo-api", "id: broken-api")
    task_file.write_text(text + broken_task.replace("directory: todo", "directory: broken"))
    result, outcomes = run_codeif(pytester, "--codeif-sandbox=bubblewrap")
    assert outcomes == {"todo-api": ("satisfied", None), "broken-api": ("violated", None)}
    result.stdout.fnmatch_lines(
        ["*create: *status*201*200*", "*listening on 8080*"], consecutive=False
    )

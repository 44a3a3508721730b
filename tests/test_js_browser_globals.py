"""A library's browser global read by a JS/TS module (issue 27): `imports` `require`
counts `_.map(...)` or `axios.get(...)` as lodash or axios only when the module never
binds that name itself, in any of the ways JavaScript and TypeScript bind one; and the
reading stays linear in the module's size however deep parameter defaults nest."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from pytest_codeif.checks.shared.js_imports import browser_global_reads, browser_globals
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.languages import JAVASCRIPT, TYPESCRIPT
from pytest_codeif.code.unit import SourceFile


def module(code: str, relpath: str = "app.js") -> JsModule:
    language = TYPESCRIPT.name if relpath.endswith(".ts") else JAVASCRIPT.name
    return JsModule(SourceFile(relpath, code, Path(relpath), language=language))


def reads(code: str, package: str, relpath: str = "app.js") -> list[tuple[str, int]]:
    return list(browser_global_reads(module(code, relpath), browser_globals(package)))


#: (package, code binding the global's name, the same code reading the real global).
BINDINGS = {
    "arrow-bare-parameter": (
        "lodash",
        "const ids = users.map(_ => _.id);\n",
        "const ids = users.map((u) => _.get(u, 'id'));\n",
    ),
    "async-arrow-bare-parameter": (
        "axios",
        "const f = async axios => axios.get('/x');\n",
        "const f = async client => axios.get('/x');\n",
    ),
    "for-of": (
        "axios",
        "for (const axios of clients) axios.get('/x');\n",
        "for (const client of clients) axios.get('/x');\n",
    ),
    "for-in": (
        "axios",
        "for (let axios in table) axios.get('/x');\n",
        "for (let key in table) axios.get('/x');\n",
    ),
    "for-of-without-declaration": (
        "axios",
        "let axios;\nfor (axios of clients) axios.get('/x');\n",
        "let c;\nfor (c of clients) axios.get('/x');\n",
    ),
    "assignment-destructuring": (
        "axios",
        "({ axios } = deps);\naxios.get('/x');\n",
        "({ client } = deps);\naxios.get('/x');\n",
    ),
    "array-assignment-destructuring": (
        "axios",
        "[axios] = deps;\naxios.get('/x');\n",
        "[client] = deps;\naxios.get('/x');\n",
    ),
    "implicit-global-assignment": (
        "axios",
        "axios = makeFake();\naxios.get('/x');\n",
        "client = makeFake();\naxios.get('/x');\n",
    ),
    "logical-assignment": (
        "axios",
        "axios ??= makeFake();\naxios.get('/x');\n",
        "client ??= makeFake();\naxios.get('/x');\n",
    ),
    "globalThis-property": (
        "axios",
        "globalThis.axios = { get() {} };\naxios.get('/x');\n",
        "globalThis.client = { get() {} };\naxios.get('/x');\n",
    ),
    "window-property": (
        "jquery",
        "window.$ = (s) => document.querySelector(s);\n$('.x');\n",
        "window.q = (s) => document.querySelector(s);\n$('.x');\n",
    ),
    "window-subscript": (
        "jquery",
        "window['$'] = (s) => document.querySelector(s);\n$('.x');\n",
        "window['q'] = (s) => document.querySelector(s);\n$('.x');\n",
    ),
    "class-declaration": (
        "vue",
        "class Vue {}\nnew Vue();\n",
        "class View {}\nnew Vue();\n",
    ),
    "class-expression": (
        "vue",
        "const C = class Vue {};\nnew Vue();\n",
        "const C = class View {};\nnew Vue();\n",
    ),
    "generator-expression": (
        "axios",
        "const g = function* axios() { axios.next(); };\n",
        "const g = function* gen() { axios.get(); };\n",
    ),
    "catch-parameter": (
        "axios",
        "try { run(); } catch (axios) { axios.get('/x'); }\n",
        "try { run(); } catch (error) { axios.get('/x'); }\n",
    ),
    "catch-destructuring": (
        "axios",
        "try { run(); } catch ({ axios }) { axios.get('/x'); }\n",
        "try { run(); } catch ({ message }) { axios.get('/x'); }\n",
    ),
    "nested-parameter-default": (
        "axios",
        "function f(a = (b = (axios) => 1) => b) { return axios.get('/x'); }\n",
        "function f(a = (b = (c) => 1) => b) { return axios.get('/x'); }\n",
    ),
}
TS_BINDINGS = {
    "enum": (
        "axios",
        "enum axios { get }\nconst a = axios.get;\n",
        "enum Verb { get }\nconst a = axios.get;\n",
    ),
    "namespace": (
        "axios",
        "namespace axios { export function get() {} }\naxios.get();\n",
        "namespace Api { export function get() {} }\naxios.get();\n",
    ),
    "dotted-namespace": (
        "axios",
        "namespace axios.http { export const x = 1; }\naxios.get();\n",
        "namespace api.http { export const x = 1; }\naxios.get();\n",
    ),
    "abstract-class": (
        "vue",
        "abstract class Vue {}\nVue.name;\n",
        "abstract class View {}\nVue.name;\n",
    ),
    "declare-function": (
        "axios",
        "declare function axios(url: string): void;\naxios('/x');\n",
        "declare function fetchIt(url: string): void;\naxios('/x');\n",
    ),
}


@pytest.mark.parametrize(("package", "bound", "free"), BINDINGS.values(), ids=list(BINDINGS))
def test_a_javascript_binding_rules_the_global_out(package: str, bound: str, free: str) -> None:
    assert reads(bound, package) == []
    found = reads(free, package)
    assert found, f"the real global read of {package} was missed"
    assert all(line >= 1 for _, line in found)


@pytest.mark.parametrize(("package", "bound", "free"), TS_BINDINGS.values(), ids=list(TS_BINDINGS))
def test_a_typescript_binding_rules_the_global_out(package: str, bound: str, free: str) -> None:
    assert reads(bound, package, "app.ts") == []
    assert reads(free, package, "app.ts")


def test_setting_a_property_of_the_global_still_reads_it() -> None:
    """`axios.defaults.baseURL = ...` configures the library's global: not a definition."""
    code = "axios.defaults.baseURL = '/api';\naxios.get('/x');\n"
    assert reads(code, "axios") == [("axios", 1), ("axios", 2)]


def test_eval_and_with_may_bind_any_name() -> None:
    """`eval` may declare the name and `with`'s object may hold it: not counted there."""
    assert reads("eval(code);\naxios.get('/x');\n", "axios") == []
    assert reads("window.eval(code);\naxios.get('/x');\n", "axios") == []
    with_code = "with (deps) { axios.get('/x'); with (more) { axios.post(); } }\naxios.put();\n"
    assert reads(with_code, "axios") == [("axios", 2)]


def test_what_stays_counted_is_what_only_running_could_tell() -> None:
    """A `typeof` guard and dead code stay reads (the docstring says so)."""
    assert reads("if (typeof axios !== 'undefined') axios.get('/x');\n", "axios")
    assert reads("if (false) { axios.get('/x'); }\n", "axios")


def run(pytester: pytest.Pytester, code: str) -> pytest.RunResult:
    pytester.path.joinpath("app.js").write_text(code)
    pytester.makefile(
        ".codeif.yaml",
        tasks=textwrap.dedent(
            """
            tasks:
              - id: app
                file: app.js
                constraints:
                  - check: imports
                    require: [lodash]
            """
        ),
    )
    return pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")


def test_require_is_satisfied_by_a_real_global_read(pytester: pytest.Pytester) -> None:
    run(pytester, "const ids = _.map(users, 'id');\n").assert_outcomes(passed=1)


def test_require_is_violated_by_an_arrow_parameter_named_like_it(
    pytester: pytest.Pytester,
) -> None:
    result = run(pytester, "const ids = users.map(_ => _.id);\n")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*app.js:1: [[]imports[]] module `lodash` is never imported*"])


def _best_time(code: str) -> float:
    """The fastest of three readings of `code` (parsing excluded)."""
    parsed = module(code)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        found = list(browser_global_reads(parsed, ("axios",)))
        best = min(best, time.perf_counter() - start)
        assert [name for name, _ in found] == ["axios"]
    return best


def test_nested_parameter_defaults_read_in_linear_time() -> None:
    """Each binding subtree is searched once: ninety nested `function f(a = () => {...})`
    cost what one does over the same code (it was 30 times as much)."""
    body = "".join(f"  v{i} = w{i} + x{i};\n" for i in range(8_000))
    depth = 90

    def wrapped(levels: int) -> str:
        opening = "".join(f"function f{i}(a{i} = () => {{\n" for i in range(levels))
        return opening + body + "}) {}\n" * levels + "axios.get();\n"

    nested = wrapped(depth)
    # The flat baseline is padded with comment lines to the nested code's size.
    flat = wrapped(1)
    missing = len(nested) - len(flat)
    flat += "// padding\n" * (missing // 11)
    assert abs(len(flat) - len(nested)) < 11
    assert _best_time(nested) < 5 * _best_time(flat)

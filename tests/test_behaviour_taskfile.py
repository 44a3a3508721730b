"""Task files that say a service, its database and behaviour cases: each mistake is a
located error of its task (file, line, key path, what was expected), never a case that
silently passes or a literal `${name}` sent to the service."""

from __future__ import annotations

import pytest

BAD = """\
tasks:
  - id: unknown-name
    code: "x = 1"
    service: {run: python app.py, port: 8080, ready: /health}
    tests:
      - request: {path: "/users/${userid}"}
        expect: {status: 200}
  - id: no-service
    code: "x = 1"
    tests:
      - request: {path: /}
      - newman: c.json
  - id: bad-values
    code: "x = 1"
    service: {run: python app.py, port: 70000, ready: health}
    tests:
      - run: [python, app.py]
        stdout: {regex: "(a)\\\\1"}
        files: {"../escape.txt": "x"}
      - request: {method: FETCH, path: /}
        expect: {paths: {"user..token": 1, "a": {type: text}}}
  - id: lonely-service
    code: "x = 1"
    service: {run: python app.py, port: 8080}
    constraints: [{check: construct, forbid: [recursion]}]
  - id: database-alone
    code: "x = 1"
    database: {name: shop}
    tests:
      - run: [python, app.py]
  - id: good
    code: "print('hi')"
    tests:
      - run: [python, -c, "print('hi')"]
        stdout: "hi\\n"
"""


def test_each_mistake_is_located(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", bad=BAD)
    (pytester.path / "c.json").write_text("{}")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "bad.codeif.yaml")
    result.stdout.fnmatch_lines_random(
        [
            "*bad.codeif.yaml:6: at tasks[[]0[]].tests[[]0[]].request: `${userid}` is neither"
            " CODEIF_SERVICE_URL nor DATABASE_URL nor captured by an earlier request*",
            "*bad.codeif.yaml:11: at tasks[[]1[]].tests[[]0[]].request: a `request` case reaches"
            " a service: give the task a `service`*",
            "*bad.codeif.yaml:12: at tasks[[]1[]].tests[[]1[]].newman: a `newman` case*",
            "*bad.codeif.yaml:15: at tasks[[]2[]].service.port: *65535*",
            "*bad.codeif.yaml:15: at tasks[[]2[]].service.ready: expected an HTTP path starting"
            " with `/`, or `tcp`*",
            "*bad.codeif.yaml:18: at tasks[[]2[]].tests[[]0[]].stdout.regex: *backreferences*",
            "*at tasks[[]2[]].tests[[]0[]].files.../escape.txt: a file the program writes,"
            " relative to its folder*",
            "*at tasks[[]2[]].tests[[]1[]].request.method: `FETCH` is not one of GET, *",
            "*bad.codeif.yaml:24: at tasks[[]3[]].service: `service` is started for the task*",
            "*at tasks[[]4[]].database: `database` names PostgreSQL's; add `databases:"
            " [[]postgres[]]`*",
        ]
    )
    assert "unknown-name': 2 problems" not in result.stdout.str()  # one mistake, said once
    # The good task beside them still runs.
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors") == 5
    assert outcomes.get("passed") == 1


def test_a_json_path_must_be_a_path(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        paths="""\
tasks:
  - id: p
    code: "x = 1"
    service: {run: python app.py, port: 8080}
    tests:
      - request: {path: /}
        expect: {paths: {"user..token": 1, "a": {type: text}, "b": {length: -1}}}
        capture: {CODEIF_SERVICE_URL: x}
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "paths.codeif.yaml")
    result.stdout.fnmatch_lines_random(
        [
            "*expect.paths.user..token: `user..token` is not a path into JSON*",
            "*expect.paths.a.type: expected one of string, number, integer, boolean, null,"
            " array, object, got 'text'*",
            "*expect.paths.b.length: expected a length (an integer >= 0)*",
            "*capture.CODEIF_SERVICE_URL: `CODEIF_SERVICE_URL` is set by pytest-codeif*",
        ]
    )


def test_tests_inside_the_code_under_evaluation_are_refused(pytester: pytest.Pytester) -> None:
    """The code could rewrite them (a collection asserting nothing, a test that passes)."""
    app = pytester.mkdir("app")
    (app / "c.json").write_text("{}")
    (app / "checks.py").write_text("def test_x():\n    pass\n")
    pytester.makefile(
        ".codeif.yaml",
        inside="""\
tasks:
  - id: t
    directory: app
    service: {run: python app.py, port: 8080}
    tests:
      - newman: app/c.json
      - pytest: app/checks.py
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "inside.codeif.yaml")
    result.stdout.fnmatch_lines_random(
        [
            "*inside.codeif.yaml:6: at tasks[[]0[]].tests[[]0[]].newman: the collection lies"
            " inside the code under evaluation*",
            "*inside.codeif.yaml:7: at tasks[[]0[]].tests[[]1[]].pytest: a test file run beside"
            " the service lies inside the code under evaluation*",
        ]
    )


def test_a_mistyped_service_spoils_its_task_only(pytester: pytest.Pytester) -> None:
    pytester.mkdir("api")
    pytester.makefile(
        ".codeif.yaml",
        svc="""\
tasks:
  - id: ok
    code: "x = 1"
    tests: [{call: x, expect: 1}]
  - id: t
    directory: api
    service: {run: ./run.sh, port: eighty, timeout: 60s, env: [a]}
    tests:
      - request: {path: /}
  - id: u
    directory: api
    service: {run: 5, port: [8080]}
    databases: [postgres]
    database: {name: 7}
    tests:
      - request: {path: /}
""",
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "svc.codeif.yaml")
    result.stdout.fnmatch_lines_random(
        [
            "*svc.codeif.yaml:7: at tasks[[]1[]].service.port: *",
            "*svc.codeif.yaml:7: at tasks[[]1[]].service.timeout: *",
            "*at tasks[[]2[]].service.run: *",
            "*at tasks[[]2[]].database.name: *",
        ]
    )
    assert "bug in pytest-codeif" not in result.stdout.str()
    assert "reaches a service" not in result.stdout.str()
    result.assert_outcomes(passed=1, errors=2)

"""The `language` check in real runs: a JavaScript task answered in TypeScript fails it at
the response's line, one answered in JavaScript passes, and a language no parser here
reads (CoffeeScript) is a located task error, never a pass; an answer with no code in
the task's language violates it (other checks of that task stay `no-code` errors)."""

from __future__ import annotations

import textwrap

import pytest


def run(pytester: pytest.Pytester, tasks: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")


def test_the_language_of_a_response_decides(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        tasks:
          - id: in-js
            language: javascript
            response: |
              Here it is:
              ```js
              const square = (x) => x * x;
              ```
            constraints:
              - check: language
                language: javascript
          - id: in-ts  # as `codeif import multicodeif` reads a JS task answered in TS
            language: typescript
            response: |
              Here it is:
              ```ts
              const square = (x: number): number => x * x;
              ```
            constraints:
              - check: language
                language: javascript
          - id: in-cpp  # no JavaScript at all: the language asked is not followed
            language: javascript
            response: |
              ```cpp
              int square(int x) { return x * x; }
              ```
            constraints:
              - check: language
                language: javascript
              - check: naming
                function: camelCase
          - id: in-coffee
            language: javascript
            response: |
              ```js
              const square = (x) => x * x;
              ```
            constraints:
              - check: language
                language: coffeescript
        """,
    )
    result.assert_outcomes(passed=1, failed=2, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*(invalid-task): tasks.codeif.yaml:41: *unknown language 'coffeescript'*"
            "no parser here reads it*",
            "*tasks.codeif.yaml:17: [[]language[]] written in typescript, not javascript*",
            "*tasks.codeif.yaml:25: [[]language[]] the response holds no Javascript code*",
        ]
    )

"""More checks judging JavaScript and TypeScript end to end (issue 27, item 2):
`calls`, `comments`, `data-structure`, `signature`, `types` and `values`, with the
same names and options as for Python, each finding at its file and line."""

from __future__ import annotations

import textwrap

import pytest


def run(pytester: pytest.Pytester, tasks: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-p", "no:cacheprovider")


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

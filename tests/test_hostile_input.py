"""Hostile task files and responses (fixtures/hostile_input): each gets a clear error or
a documented interpretation, in bounded time, and the other tasks still run."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES


def test_hostile_input_files(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES / "hostile_input", pytester.path, dirs_exist_ok=True, symlinks=True)
    result = pytester.runpytest("--codeif", "-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=2, errors=8)
    result.stdout.fnmatch_lines(
        [
            "*bad_utf8.codeif.yaml:2: *not valid UTF-8 (byte 18)*",
            "*billion_laughs.codeif.yaml:1: *aliases expand to more than 100000 nodes*",
            "*(no-code): the response holds no Python code*",
            # Where PyYAML stops nesting itself (6.0.4's libyaml, past 1000 levels) the message
            # is its own ("exceeded maximum nesting depth", at the top level); before, the
            # loader's walk stops at 64 ("at tasks[0][0]...: nesting deeper than 64 levels").
            # Either way: this file, its line, and that the nesting is what is wrong.
            "*deep.codeif.yaml:1: at *nesting*",
            "*escapes.codeif.yaml:3: at tasks[[]0[]].file: *outside the test root*",
            "*escapes.codeif.yaml:8: at tasks[[]1[]].directory: '/etc' leads to /etc, outside*",
            "*nul.codeif.yaml:2: *contains a NUL byte*",
            # the parser's wording ("found a tab character that violates indentation")
            "*tabs.codeif.yaml:3: *invalid YAML: *tab*",
            # ten blocks are joined; the loop is in the tenth, reported at its own line
            "*blocks.codeif.yaml:32: [[]construct[]] the code uses loop, which is forbidden",
            # an unterminated fence runs to the end of the response
            "*blocks.codeif.yaml:42: [[]construct[]] the code uses loop, which is forbidden",
            # the symlink loop is not followed, the symlink to /etc/passwd is not read
            "PASSED symlinks.codeif.yaml::symlink-loop-and-escape::construct",
            "PASSED symlinks.codeif.yaml::symlink-loop-and-escape::tests",
        ],
        consecutive=False,
    )


def test_a_huge_response_is_too_large_not_a_hang(pytester: pytest.Pytester) -> None:
    import yaml

    response = "```python\n" + "x = 1\n" * 2_000_000 + "```\n"
    task = {
        "id": "huge",
        "response": response,
        "constraints": [{"check": "construct", "forbid": ["loop"]}],
    }
    small = {
        "id": "small",
        "code": "x = 1\n",
        "constraints": [{"check": "construct", "forbid": ["loop"]}],
    }
    pytester.makefile(".codeif.yaml", big=yaml.safe_dump({"tasks": [task, small]}, width=10**9))
    result = pytester.runpytest("--codeif", "-rE")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*(too-large): the response is 12.0 MB; at most 8 MB is evaluated"]
    )

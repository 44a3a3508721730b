"""A bug of ours while judging an item (an exception nobody planned for) is that item's
error, named with where it was raised, and the session goes on: never pytest's
INTERNALERROR, never a lost run."""

from __future__ import annotations

import textwrap

import pytest

TASKS = textwrap.dedent(
    """\
    tasks:
      - id: first
        code: "x = 1\\n"
        constraints:
          - check: construct
            forbid: [loop]
      - id: second
        code: "for i in range(3):\\n    pass\\n"
        constraints:
          - check: construct
            forbid: [loop]
    """
)

# The engine's `evaluate` raises for the first task only: a stand-in for any bug. (The
# runs are subprocesses: the patch must not outlive them.)
CONFTEST = textwrap.dedent(
    """\
    from pytest_codeif.engine.schedule import Schedule

    real = Schedule.evaluate

    def evaluate(self, task, constraint):
        if task.id == "first":
            raise KeyError("planted")
        return real(self, task, constraint)

    Schedule.evaluate = evaluate
    """
)


@pytest.mark.parametrize("items", ["constraint", "task"])
def test_a_bug_is_the_items_error_and_the_run_goes_on(
    pytester: pytest.Pytester, items: str
) -> None:
    pytester.makefile(".codeif.yaml", bugs=TASKS)
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest_subprocess(
        "--codeif", f"--codeif-items={items}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(errors=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*pytest-codeif failed judging this item (KeyError: 'planted'); this is a bug*",
            "*conftest.py:* in evaluate",
        ]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_traceback_pytest_cannot_format_is_still_the_items_error(
    pytester: pytest.Pytester,
) -> None:
    # CI met a frame with no line number while pytest formatted an exception raised in
    # an item's setup or teardown: pytest's own formatter raised, an INTERNALERROR.
    pytester.makefile(".codeif.yaml", bugs=TASKS)
    pytester.makeconftest(
        CONFTEST
        + textwrap.dedent(
            """\
            import _pytest.nodes

            def broken(self, excinfo, style=None):
                raise TypeError("unsupported operand type(s) for -: 'NoneType' and 'int'")

            _pytest.nodes.Node._repr_failure_py = broken
            """
        )
    )
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1, failed=1)
    # The item's own text stands (the plugin writes it over whatever pytest formatted).
    result.stdout.fnmatch_lines(["*pytest-codeif failed judging this item (KeyError*"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")

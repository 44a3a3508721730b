"""One generic test runs the samples of every registered check, built-in or not."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_codeif import Check, verify_samples
from pytest_codeif.checks.base import advice_of
from pytest_codeif.checks.builtin import BUILTIN_CHECKS, builtin_registry
from pytest_codeif.testing import sample_verdict


@pytest.mark.parametrize("check", BUILTIN_CHECKS, ids=lambda c: c.name)
def test_samples_reach_their_declared_verdicts(check: type[Check]) -> None:
    # A check whose tool is not installed here (Biome, the TypeScript compiler) says
    # why: its samples would be `missing-tool` errors, proving nothing either way.
    missing = check.unavailable()
    if missing is not None:
        pytest.skip(f"{check.name}: {missing}")
    assert verify_samples(check) == []


@pytest.mark.parametrize("check", BUILTIN_CHECKS, ids=lambda c: c.name)
def test_every_check_is_documented(check: type[Check]) -> None:
    doc = check.__doc__ or ""
    assert "Why" in doc and "Options" in doc and "Example" in doc, check.name
    assert check.satisfied_by and check.violated_by


@pytest.mark.parametrize("check", BUILTIN_CHECKS, ids=lambda c: c.name)
def test_every_check_says_what_to_do(check: type[Check]) -> None:
    """Its own advice, a sentence or two (not its documentation again), and for every
    sample's options an `advise()` that is a sentence too."""
    assert check.__dict__.get("advice"), f"{check.name} sets no advice of its own"
    advice = " ".join(check.advice.split())
    assert advice[0].isupper() and advice.endswith("."), advice
    assert 30 <= len(advice) <= 400, advice
    assert advice != (check.__doc__ or "").strip().splitlines()[0]
    for sample in (*check.satisfied_by, *check.violated_by):
        given = advice_of(check(dict(sample.options)))
        assert given[0].isupper() and given.endswith("."), (check.name, given)
        assert 20 <= len(given) <= 500, (check.name, given)


def test_advice_names_what_the_options_ask_for() -> None:
    registry = builtin_registry()

    def advice(name: str, **options: object) -> str:
        check = registry.get(name)
        assert check is not None
        return advice_of(check(options))

    assert "`numpy` or `pandas`" in advice("imports", forbid=["numpy", "pandas"])
    layers = advice("layers", layers=["api", "services | jobs", "models"])
    assert "api > services | jobs > models" in layers
    assert "`fib(n: int) -> int`" in advice(
        "signature", function="fib", params=["n"], annotations={"n": "int"}, returns="int"
    )
    assert "function names camelCase" in advice("naming", function="camelCase")


def test_a_check_without_advice_is_a_problem() -> None:
    construct = builtin_registry().get("construct")
    assert construct is not None

    class Silent(construct):  # type: ignore[misc, valid-type]
        advice = ""

        def advise(self) -> str:
            return ""

    [problem] = verify_samples(Silent)
    assert (problem.expected, problem.index, problem.got) == ("advice", None, "missing")
    assert str(problem).startswith("construct: gives no advice: set `advice`")


def test_an_advise_that_fails_is_a_problem_and_reports_fall_back() -> None:
    construct = builtin_registry().get("construct")
    assert construct is not None

    class Failing(construct):  # type: ignore[misc, valid-type]
        advice = "Use the constructs asked for."

        def advise(self) -> str:
            raise KeyError("function")

    problems = verify_samples(Failing)
    assert problems and {(p.expected, p.got) for p in problems} == {("advice", "error")}
    assert str(problems[0]) == (
        "construct: advise() for the options of satisfied_by[0] raised KeyError: 'function'"
    )
    # A report never fails on it: the class's advice stands in.
    sample = construct.violated_by[0]
    assert advice_of(Failing(dict(sample.options))) == "Use the constructs asked for."

    class Undocumented(Failing):
        """Code has no lambdas."""

        advice = ""

    fallback = advice_of(Undocumented(dict(sample.options)))
    assert fallback == "Change the code so that this holds: Code has no lambdas."


def test_a_wrong_sample_is_reported(tmp_path) -> None:
    construct = builtin_registry().get("construct")
    assert construct is not None

    class Mislabelled(construct):  # type: ignore[misc, valid-type]
        satisfied_by = construct.violated_by[:1]

    problems = verify_samples(Mislabelled)
    assert [p.expected for p in problems] == ["satisfied_by"]
    assert problems[0].got == "violated"


def test_pinned_messages_of_builtin_checks_are_verified() -> None:
    """The generic test above also proves what a violated sample reports."""
    calls = builtin_registry().get("calls")
    assert calls is not None
    pinned = [s for s in calls.violated_by if s.message]
    assert pinned, "calls pins the messages of its violated samples"

    class Misreported(calls):  # type: ignore[misc, valid-type]
        violated_by = (dataclasses.replace(pinned[0], message="is called twice"),)

    [problem] = verify_samples(Misreported)
    assert (problem.expected, problem.index, problem.got) == ("violated_by", 0, "violated")
    assert "no finding's message contains 'is called twice'" in problem.detail


def test_sample_options_are_validated(tmp_path) -> None:
    from pytest_codeif import Sample

    construct = builtin_registry().get("construct")
    assert construct is not None
    verdict = sample_verdict(construct, Sample("x = 1\n", {"require": ["nope"]}), tmp_path)
    assert verdict.status == "error"
    assert verdict.error_kind == "invalid-task"


THIRD_PARTY = '''
import libcst as cst
from pytest_codeif import Check, Finding, Sample


class NoPrint(Check):
    """Library code does not call print()."""

    name = "no-print"
    category = "Coding Style"
    advice = "Log through the logging module instead of calling print()."
    satisfied_by = (Sample("import logging\\nlogging.info('hi')\\n"),)
    violated_by = (Sample("print('hi')\\n"),)

    def evaluate(self, ctx):
        findings = []
        for module in ctx.modules():
            for node in module.walk():
                if isinstance(node, cst.Call) and "builtins.print" in module.qualified(node):
                    findings.append(Finding("print() called", "no-print", module.relpath,
                                            module.line_of(node)))
        return findings


def pytest_codeif_register_checks(registry):
    registry.register(NoPrint)
'''


def test_third_party_check_from_conftest(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(THIRD_PARTY)
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: loud
            code: |
              def f():
                  print("hi")
            constraints:
              - check: no-print
          - id: quiet
            code: "import logging\\n"
            constraints:
              - check: no-print
        """,
    )
    pytester.makepyfile(
        test_rule="""
        from conftest import NoPrint
        from pytest_codeif import verify_samples

        def test_samples():
            assert verify_samples(NoPrint) == []
        """
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*t.codeif.yaml:5: [[]no-print[]] print() called", "  no-print * 1/2*"]
    )


@pytest.mark.parametrize("check", BUILTIN_CHECKS, ids=lambda c: c.name)
def test_builtin_options_schemas_are_json_schemas(check: type[Check]) -> None:
    # Registration skips this for the built-in checks (it costs every run); it is done here.
    from pytest_codeif.checks.registry import verify_options_schema

    verify_options_schema(check, check.name)

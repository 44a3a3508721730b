"""What rule authors write and run: the custom check of docs/writing-checks.md,
`ctx.report`, samples as indented strings with pinned messages, `codeif check-samples`,
and the session's audit of third-party checks' samples."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pytest_codeif import Check, Sample, verify_samples
from pytest_codeif.checks.registry import CheckRegistrationError, CheckRegistry
from pytest_codeif.testing import sample_verdict
from tests.conftest import FIXTURES, REPO, copy_into

README = REPO / "docs" / "writing-checks.md"  # the docs page "Writing a check"


def readme_example(name: str) -> str:
    """The ```python block the docs page marks with `<!-- example: NAME -->`."""
    text = README.read_text(encoding="utf-8")
    marked = rf"<!-- example: {re.escape(name)} -->\n```python\n(.*?)^```$"
    found = re.search(marked, text, re.S | re.M)
    assert found is not None, f"no ```python block marked <!-- example: {name} --> in {README.name}"
    return found.group(1)


@pytest.fixture
def readme_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> type[Check]:
    """The docs' custom check, imported from the page's text."""
    path = tmp_path / "readme_no_print.py"
    path.write_text(readme_example("custom-check"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("readme_no_print", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "readme_no_print", module)
    spec.loader.exec_module(module)
    check: type[Check] = module.NoPrint
    return check


# -- the docs' example ---------------------------------------------------------------


def test_readme_check_samples_are_proven(readme_check: type[Check]) -> None:
    assert verify_samples(readme_check) == []
    assert any(s.message for s in readme_check.violated_by), "the example pins a message"


def test_readme_check_runs_as_written(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(readme_example("custom-check"))
    copy_into(pytester, FIXTURES / "rule_authors" / "no_print.codeif.yaml")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    # `logs` (print under the main guard) and `own-print` (not the built-in) pass.
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "PASSED no_print.codeif.yaml::logs::no-print",
            "PASSED no_print.codeif.yaml::own-print::no-print",
        ],
        consecutive=False,
    )
    message = '[[]no-print[]] print() called outside `if __name__ == "__main__":`; log it'
    result.stdout.fnmatch_lines(
        [
            "*prints::no-print*",
            "constraint 'no-print' violated (check no-print):",
            f"  no_print.codeif.yaml:18: {message}",
            f"  no_print.codeif.yaml:23: {message}",  # the guard's `else` runs on import
            "*aliased::no-print*",
            "constraint 'no-print' violated (check no-print):",
            f"  no_print.codeif.yaml:30: {message}",
        ]
    )
    assert "unproven checks" not in result.stdout.str()


# -- findings: ctx.report and ctx.finding ---------------------------------------------


class Shout(Check):
    """Test check: every upper-case string literal is reported, through `ctx.report`
    (rule defaulted or given) or `ctx.finding`."""

    name = "shout"
    category = "Coding Style"
    advice = "Write string literals in lower case."
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"rule": {"type": "string"}, "anywhere": {"type": "boolean"}},
        "additionalProperties": False,
    }
    satisfied_by = (Sample("x = 'quiet'\n"),)
    violated_by = (Sample("x = 'LOUD'\n", message="shouts"),)

    def evaluate(self, ctx):  # type: ignore[no-untyped-def]
        import libcst as cst

        findings = []
        for module in ctx.modules():
            for node in module.nodes(cst.SimpleString):
                if node.evaluated_value.isupper():
                    if self.options.get("anywhere"):
                        findings.append(ctx.finding(f"{ctx.check_name} shouts"))
                    else:
                        rule = self.options.get("rule")
                        findings.append(ctx.report(module, node, "shouts", rule=rule))
        return findings


def test_report_locates_the_node_and_defaults_the_rule(tmp_path: Path) -> None:
    code = {"pkg/loud.py": "import os\n\nNAME = os.sep + 'LOUD'\n"}
    verdict = sample_verdict(Shout, Sample(code), tmp_path)
    assert verdict.status == "violated"
    [evidence] = verdict.evidence
    assert (evidence.path, evidence.line, evidence.column) == ("project/pkg/loud.py", 3, 17)
    assert (evidence.rule, evidence.message) == ("shout", "shouts")


def test_report_and_finding_take_a_rule(tmp_path: Path) -> None:
    named = sample_verdict(Shout, Sample("x = 'LOUD'\n", {"rule": "shout/upper"}), tmp_path)
    assert [e.rule for e in named.evidence] == ["shout/upper"]
    anywhere = sample_verdict(Shout, Sample("x = 'LOUD'\n", {"anywhere": True}), tmp_path)
    assert [(e.rule, e.message, e.line) for e in anywhere.evidence] == [
        ("shout", "shout shouts", None)
    ]


# -- samples: dedented code, pinned messages, missing samples ---------------------------


def test_sample_code_is_dedented() -> None:
    sample = Sample(
        """
        def f():
            return 1
        """
    )
    assert sample.code == "def f():\n    return 1\n"
    project = Sample({"a.py": "\n    x = 1\n    ", "b.py": "y = 2\n"})
    assert project.code == {"a.py": "x = 1\n", "b.py": "y = 2\n"}
    assert Sample("  x = 1\n").code == "x = 1\n"


def test_an_indented_sample_reaches_its_verdict(tmp_path: Path) -> None:
    sample = Sample(
        """
        def f():
            return 'LOUD'
        """
    )
    assert sample_verdict(Shout, sample, tmp_path).status == "violated"


def test_a_pinned_message_must_be_in_a_finding() -> None:
    class WrongMessage(Shout):
        violated_by = (Sample("x = 'LOUD'\n", message="whispers"),)

    [problem] = verify_samples(WrongMessage)
    assert (problem.expected, problem.index, problem.got) == ("violated_by", 0, "violated")
    assert "no finding's message contains 'whispers'" in problem.detail
    assert "[shout] shouts" in problem.detail  # what was said instead


def test_a_message_is_a_substring_not_a_pattern() -> None:
    class Literal(Shout):
        violated_by = (Sample("x = 'LOUD'\n", message="shout."),)  # "." is not "any"

    assert [p.index for p in verify_samples(Literal)] == [0]
    assert verify_samples(Shout) == []


def test_a_satisfied_sample_cannot_pin_a_message() -> None:
    class Pinned(Shout):
        satisfied_by = (Sample("x = 'quiet'\n", message="shouts"),)

    [problem] = verify_samples(Pinned)
    assert (problem.expected, problem.got) == ("satisfied_by", "satisfied")
    assert "cannot match" in problem.detail


@pytest.mark.parametrize(
    ("satisfied", "violated", "says"),
    [
        ((), (), "shout: carries no samples: its verdicts are unproven"),
        ((Sample("x = 1\n"),), (), "shout: carries no violated_by sample"),
        ((), (Sample("x = 'LOUD'\n"),), "shout: carries no satisfied_by sample"),
    ],
)
def test_missing_samples_are_problems(
    satisfied: tuple[Sample, ...], violated: tuple[Sample, ...], says: str
) -> None:
    class Unproven(Shout):
        satisfied_by = satisfied
        violated_by = violated

    [problem] = verify_samples(Unproven)
    assert problem.index is None
    assert str(problem).startswith(says)


def test_a_check_that_cannot_be_created_is_a_problem_not_a_crash() -> None:
    class Broken(Shout):
        def __init__(self, options):  # type: ignore[no-untyped-def]
            raise RuntimeError("no")

    problems = verify_samples(Broken)
    assert [(p.expected, p.got) for p in problems] == [
        ("satisfied_by", "error"),
        ("violated_by", "error"),
    ]
    assert "creating the check raised RuntimeError: no" in problems[0].detail


def test_a_sample_that_cannot_run_is_a_problem_not_a_crash() -> None:
    class NoFunction(Shout):
        satisfied_by = (Sample("x = 1\n", calls=[{"args": [1]}]),)  # no `function`

    [problem] = verify_samples(NoFunction)
    assert (problem.expected, problem.got) == ("satisfied_by", "error")
    assert "the sample cannot be run: KeyError" in problem.detail


def test_samples_must_be_a_sequence_of_samples() -> None:
    class Bare(Shout):
        satisfied_by = Sample("x = 1\n")  # type: ignore[assignment]

    class Unsampled(Shout):
        satisfied_by = violated_by = ()

    registry = CheckRegistry()
    with pytest.raises(CheckRegistrationError, match="`satisfied_by` must be a sequence"):
        registry.register(Bare)
    registry.register(Unsampled)  # accepted: the session lists it as unproven
    assert registry.get("shout") is Unsampled


# -- the session's audit of third-party checks -----------------------------------------

RULES = '''
import libcst as cst
from pytest_codeif import Check, Sample


class NoGlobal(Check):
    """Right: its samples agree."""

    name = "no-global"
    category = "Code Quality"
    advice = "Pass state in and return it instead of a global statement."
    satisfied_by = (Sample("x = 1\\n"),)
    violated_by = (Sample("def f():\\n    global x\\n", message="global statement"),)

    def evaluate(self, ctx):
        return [ctx.report(m, n, "global statement") for m in ctx.modules()
                for n in m.nodes(cst.Global)]


class Lenient(Check):
    """Wrong: it never finds anything, so its violated sample is satisfied."""

    name = "lenient"
    category = "Code Quality"
    advice = "Nothing to do: it never finds anything."
    satisfied_by = (Sample("x = 1\\n"),)
    violated_by = (Sample("def f():\\n    global x\\n"),)

    def evaluate(self, ctx):
        return []


class Draft(Check):
    """Unproven: no samples at all."""

    name = "draft"
    category = "Code Quality"
    advice = "Not written yet."

    def evaluate(self, ctx):
        return []


def pytest_codeif_register_checks(registry):
    for check in (NoGlobal, Lenient, Draft):
        registry.register(check)
'''

TASKS = """
tasks:
  - id: g
    code: |
      def f():
          global x
    constraints:
      - check: no-global
      - check: lenient
      - check: draft
"""


def test_a_session_lists_third_party_checks_whose_samples_disagree(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(RULES)
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    # The audit changes nothing about the run itself.
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= codeif: constraint satisfaction =*",
            "*= codeif: unproven checks =*",
            "draft: carries no samples: its verdicts are unproven  [[]conftest.Draft[]]",
            "lenient: violated_by[[]0[]] ended satisfied: no findings  [[]conftest.Lenient[]]",
            "(`codeif check-samples` lists these and exits 1)",
        ]
    )
    output = result.stdout.str()
    section = output[output.index("unproven checks") : output.index("short test summary")]
    assert "no-global" not in section  # its samples agree
    assert "construct" not in section  # built-in checks are not audited at every run


def test_the_audit_can_be_turned_off(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RULES)
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-p", "no:codeif-samples")
    result.assert_outcomes(passed=2, failed=1)
    assert "unproven checks" not in result.stdout.str()


def test_the_audit_survives_warnings_as_errors(pytester: pytest.Pytester) -> None:
    """Strict suites set `filterwarnings = error`: the audit must not stop their run."""
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    pytester.makeconftest(RULES)
    pytester.makefile(".codeif.yaml", t=TASKS)
    # A process of its own: in-process, modules the outer session imported first make
    # pytest warn that it cannot rewrite them, which this ini turns into errors.
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*= codeif: unproven checks =*"])
    assert "INTERNALERROR" not in result.stdout.str()


def test_the_audit_runs_once_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RULES)
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest_subprocess("--codeif", "-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=2, failed=1)
    assert result.stdout.str().count("lenient: violated_by[0] ended satisfied") == 1


# -- codeif check-samples -------------------------------------------------------------


def check_samples(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`codeif check-samples ARGS...` in the pytester directory, as a user runs it."""
    return pytester.run(sys.executable, "-m", "pytest_codeif.cli", "check-samples", *args)


def test_check_samples_prints_each_problem_and_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RULES)
    result = check_samples(pytester)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "FAIL  draft: carries no samples: its verdicts are unproven  [[]conftest.Draft[]]",
            "FAIL  lenient: violated_by[[]0[]] ended satisfied: no findings  "
            "[[]conftest.Lenient[]]",
            "ok    no-global: 2 samples agree  [[]conftest.NoGlobal[]]",
            "codeif check-samples: 3 checks verified, 2 problems",
        ]
    )
    assert "construct" not in result.stdout.str()  # built-ins only with --builtin


def test_check_samples_passes_on_proven_checks_from_a_path_and_a_plugin(
    pytester: pytest.Pytester,
) -> None:
    rules = RULES.replace("(NoGlobal, Lenient, Draft)", "(NoGlobal,)")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "conftest.py").write_text(rules)
    pytester.makepyfile(
        myrules="""
        from pytest_codeif.checks.construct import ConstructCheck

        class NoLambda(ConstructCheck):
            name = "no-lambda"

        def pytest_codeif_register_checks(registry):
            registry.register(NoLambda)
        """
    )
    result = check_samples(pytester, "tests", "-p", "myrules")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "ok    no-global: 2 samples agree  [[]conftest.NoGlobal[]]",
            "ok    no-lambda: * samples agree  [[]myrules.NoLambda[]]",
            "codeif check-samples: 2 checks verified, 0 problems",
        ]
    )


def test_check_samples_with_nothing_registered(pytester: pytest.Pytester) -> None:
    result = check_samples(pytester)
    assert result.ret == 5
    result.stdout.fnmatch_lines(
        ["codeif check-samples: nothing to verify: no plugin or conftest.py registered*"]
    )


def test_check_samples_reports_a_registration_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_codeif import Check

        class Nameless(Check):
            category = "Coding Style"

        def pytest_codeif_register_checks(registry):
            registry.register(Nameless)
        """
    )
    result = check_samples(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot register a check: conftest.Nameless: `name` must*"])


def test_check_samples_refuses_a_missing_path(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RULES)
    result = check_samples(pytester, "tets")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["codeif check-samples: not found: tets"])

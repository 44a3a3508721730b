"""The rule author's API (#23 item 5): what a simple check writes and nothing more, the
engine's hints read through `needs_of`, `ParsedModule.nodes` by node type, and samples
that pin the line a finding lands on."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from pytest_codeif import Check, Sample, verify_samples
from pytest_codeif.checks.base import CheckContext, CheckNeeds, Finding, needs_of
from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile


class NoPrint(Check):
    """Test check: print() is not called; written as a simple check writes one."""

    name = "no-print-test"
    category = "Coding Style"
    advice = "Log through the logging module instead of calling print()."
    satisfied_by = (Sample("import logging\nlogging.info('hi')\n"),)
    violated_by = (
        Sample(
            """
            import sys

            print("hi", file=sys.stderr)
            """,
            line=3,
            message="print() called",
        ),
        Sample({"pkg/a.py": "x = 1\n", "pkg/b.py": "y = 2\n\nprint(y)\n"}, line=3, path="pkg/b.py"),
    )

    def evaluate(self, ctx: CheckContext) -> list[Finding]:
        return [
            ctx.report(module, call, "print() called")
            for module in ctx.modules()
            for call in module.nodes(cst.Call)
            if "builtins.print" in module.qualified(call)
        ]


# -- what a simple check knows ---------------------------------------------------------


def test_a_simple_check_needs_nothing_prepared() -> None:
    assert verify_samples(NoPrint) == []
    assert needs_of(NoPrint({})) == CheckNeeds(
        tool_configs=(),
        observes_calls=False,
        measures=False,
        reads_project_config=False,
        judges_import_graph=False,
    )


def test_hints_of_builtin_checks_reach_the_engine_through_needs_of() -> None:
    registry = builtin_registry()

    def needs(name: str, **options: object) -> CheckNeeds:
        check = registry.get(name)
        assert check is not None
        return needs_of(check(options))

    complexity = needs("complexity", function="f", time="O(n)")
    assert (complexity.measures, complexity.observes_calls) == (True, True)
    ruff = needs("ruff", select=["E501"])
    assert len(ruff.tool_configs) == 1 and not ruff.reads_project_config
    assert needs("ruff", select=["E501"], **{"project-config": True}).reads_project_config
    assert needs("layers", layers=["a", "b"]).judges_import_graph
    assert needs("pattern", pattern="print(...)") == needs_of(NoPrint({}))


def test_the_check_docstring_lists_what_a_simple_check_writes() -> None:
    doc = Check.__doc__ or ""
    for written in ("`name`", "`category`", "`advice`", "`options_schema`", "`evaluate(ctx)`"):
        assert written in doc, written
    assert "`satisfied_by` and `violated_by`" in doc
    # The engine's hints are not among them: they live on EngineHints.
    assert "observes_calls" not in doc and "tool_configs" not in doc
    assert "observes_calls" not in vars(Check) and "measures" not in vars(Check)


# -- nodes() by node type --------------------------------------------------------------


def parsed(code: str) -> ParsedModule:
    return ParsedModule(SourceFile("m.py", code, Path("m.py")))


def test_nodes_are_of_the_types_asked_for_in_source_order() -> None:
    module = parsed("for x in y:\n    while x:\n        f(x)\nwhile z:\n    g()\n")
    loops = module.nodes(cst.For, cst.While)
    assert [type(n).__name__ for n in loops] == ["For", "While", "While"]
    first, _ = module.nodes(cst.Call)
    assert isinstance(first.func, cst.Name) and first.func.value == "f"
    assert [c.func for c in module.nodes(cst.Call, within=loops[0])] == [first.func]
    assert module.nodes(cst.Lambda) == []
    kinds: tuple[type[cst.CSTNode], ...] = (cst.Name, cst.Call)
    assert len(module.nodes(*kinds)) == len(module.nodes(cst.Name)) + 2


# -- samples pin the line a finding lands on -------------------------------------------


@pytest.mark.parametrize(
    ("sample", "says"),
    [
        (
            Sample("x = 1\nprint(x)\n", line=1),
            "no finding at line 1 (found: line 2: [no-print-test] print() called)",
        ),
        (
            Sample("x = 1\nprint(x)\n", line=2, message="input() called"),
            "no finding at line 2 whose message contains 'input() called'",
        ),
        (
            Sample({"a.py": "print(1)\n", "b.py": "x = 2\n"}, line=1, path="b.py"),
            "no finding at line 1 of b.py (found: a.py:1: [no-print-test] print() called)",
        ),
    ],
)
def test_a_finding_elsewhere_than_the_pinned_line_is_a_problem(sample: Sample, says: str) -> None:
    class Misplaced(NoPrint):
        violated_by = (sample,)

    [problem] = verify_samples(Misplaced)
    assert (problem.expected, problem.index, problem.got) == ("violated_by", 0, "violated")
    assert says in problem.detail


def test_a_satisfied_sample_cannot_pin_a_line() -> None:
    class Pinned(NoPrint):
        satisfied_by = (Sample("x = 1\n", line=1),)

    [problem] = verify_samples(Pinned)
    assert (problem.expected, problem.got) == ("satisfied_by", "satisfied")
    assert "its `line` cannot match" in problem.detail


def test_pinned_lines_of_builtin_checks_are_verified() -> None:
    """The generic sample test proves where built-in checks report, where it matters."""
    pinned = {
        check.name: [s.line for s in check.violated_by if s.line is not None]
        for check in builtin_registry()
    }
    assert sum(len(lines) for lines in pinned.values()) >= 8, pinned
    assert pinned["pattern"] and pinned["global-state"] and pinned["calls"]

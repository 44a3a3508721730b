"""The rule author's API (#23 item 5): what a simple check writes and nothing more, the
engine's hints read through `needs_of`, `ParsedModule.nodes` by node type, and samples
that pin the line a finding lands on."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import cast

import libcst as cst
import pytest

from pytest_codeif import Check, Sample, verify_samples
from pytest_codeif.checks.base import CheckContext, CheckNeeds, Finding, needs_of, summary
from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.cli import report_samples
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.testing import SampleAudit, sample_verdict


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
        languages=frozenset({"python"}),
        reads_response=False,
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
    pattern = needs("pattern", pattern="print(...)")
    # The built-in pattern check reads JavaScript and TypeScript too (ast-grep's patterns).
    assert pattern.languages == {"python", "javascript", "typescript"}
    assert dataclasses.replace(pattern, languages=frozenset({"python"})) == needs_of(NoPrint({}))


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


# -- a pattern rule's own examples, verified by codeif check-samples ------------------

RULES_WITH_EXAMPLES = """tasks:
  - id: team
    directory: .
    constraints:
      - id: no-print
        check: pattern
        pattern: print(...)
        examples:
          match:
            - print("hi")
            - |
              import logging
              logging.info("x")
          no-match:
            - log("hi")
            - |
              from builtins import print as echo
              echo(1)
      - id: no-eval
        check: pattern
        pattern: eval(...)
        examples:
          match: ["eval(x)"]
          no-match: ["exec(x)"]
"""


def codeif(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`codeif ARGS...` in the pytester directory, in a process of its own."""
    return pytester.run(sys.executable, "-m", "pytest_codeif.cli", *args)


def test_check_samples_locates_each_example_that_misbehaves(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", rules=RULES_WITH_EXAMPLES)
    result = codeif(pytester, "check-samples", "rules.codeif.yaml")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "FAIL  rules.codeif.yaml:11: tasks[[]0[]].constraints[[]0[]].examples.match[[]1[]]: "
            "no-print: the rule matches nothing in this `match` example",
            "FAIL  rules.codeif.yaml:16: tasks[[]0[]].constraints[[]0[]].examples.no-match[[]1[]]: "
            "no-print: the rule matches this `no-match` example "
            "(line 2: `echo(1)` matches the pattern `print(...)`)",
            "ok    rules.codeif.yaml:19: no-eval: 2 examples agree",
            "codeif check-samples: 6 examples of 2 pattern rules verified, 2 problems",
        ]
    )


def test_check_samples_passes_when_every_example_behaves(pytester: pytest.Pytester) -> None:
    good = RULES_WITH_EXAMPLES.replace('logging.info("x")', 'print("x")')
    good = good.replace("echo(1)", "pprint(1)")
    pytester.mkdir("rules")
    (pytester.path / "rules" / "team.codeif.yaml").write_text(good, encoding="utf-8")
    (pytester.path / "rules" / "other.codeif.yaml").write_text(PLAIN_TASK, encoding="utf-8")
    # A folder is searched for task files; one without examples adds nothing.
    result = codeif(pytester, "check-samples", "rules")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "ok    rules/team.codeif.yaml:5: no-print: 4 examples agree",
            "ok    rules/team.codeif.yaml:19: no-eval: 2 examples agree",
            "codeif check-samples: 6 examples of 2 pattern rules verified, 0 problems",
        ]
    )


PLAIN_TASK = """\
tasks:
  - id: plain
    code: "x = 1\\n"
    constraints:
      - check: construct
        forbid: [recursion]
"""


def test_check_samples_reports_task_files_it_cannot_read(pytester: pytest.Pytester) -> None:
    """A broken task file, or a misspelt `exampels:`, is a located problem: examples are
    never left unverified in silence."""
    pytester.makefile(
        ".codeif.yaml",
        broken="tasks: [\n",
        typo=RULES_WITH_EXAMPLES.replace("        examples:", "        exampels:"),
    )
    result = codeif(pytester, "check-samples", ".")
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines_random(
        [
            "FAIL  broken.codeif.yaml:*",
            "FAIL  typo.codeif.yaml:*exampels*",
            "codeif check-samples: * verified, 3 problems",
        ]
    )


def test_check_samples_says_what_it_found_when_nothing_is_to_verify(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".codeif.yaml", plain=PLAIN_TASK)
    result = codeif(pytester, "check-samples", ".")
    assert result.ret == 5, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "codeif check-samples: nothing to verify: *,"
            " and no pattern rule with examples in 1 task file"
        ]
    )


def test_check_samples_reports_examples_the_schema_refuses(pytester: pytest.Pytester) -> None:
    bad = RULES_WITH_EXAMPLES.replace("          no-match: [", "          no-matches: [")
    pytester.makefile(".codeif.yaml", rules=bad)
    result = codeif(pytester, "check-samples")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["FAIL  rules.codeif.yaml:*: tasks[[]0[]].constraints[[]1[]].examples*no-matches*"]
    )


def test_check_samples_verifies_checks_and_examples_together(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_codeif.checks.construct import ConstructCheck

        class NoLambda(ConstructCheck):
            name = "no-lambda"

        def pytest_codeif_register_checks(registry):
            registry.register(NoLambda)
        """
    )
    pytester.makefile(
        ".codeif.yaml",
        eval="""
        tasks:
          - id: t
            directory: .
            constraints:
              - id: no-eval
                check: pattern
                pattern: eval(...)
                examples: {match: ["eval(x)"], no-match: ["exec(x)"]}
        """,
    )
    result = codeif(pytester, "check-samples")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "ok    no-lambda: * samples agree  [[]conftest.NoLambda[]]",
            "codeif check-samples: 1 check verified, 0 problems",
            "ok    eval.codeif.yaml:5: no-eval: 2 examples agree",
            "codeif check-samples: 2 examples of 1 pattern rule verified, 0 problems",
        ]
    )


def test_examples_do_not_change_what_a_rule_finds(tmp_path: Path) -> None:
    pattern = builtin_registry().get("pattern")
    assert pattern is not None
    options = {"pattern": "print(...)", "examples": {"match": ["print(1)"]}}
    code = "print('a')\nx = 1\n"
    with_examples = sample_verdict(pattern, Sample(code, options), tmp_path / "a")
    without = sample_verdict(pattern, Sample(code, {"pattern": "print(...)"}), tmp_path / "b")
    assert with_examples.status == without.status == "violated"
    assert with_examples.evidence == without.evidence


# -- codeif pattern: what a pattern matches --------------------------------------------

APP = """\
import subprocess as sp

def run(cmd):
    sp.run(cmd, shell=True)
    try:
        return sp.check_output(
            cmd, shell=True)
    except Exception:
        pass
"""


def test_codeif_pattern_prints_each_match(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(app=APP)
    pytester.mkdir("pkg")
    (pytester.path / "pkg" / "jobs.py").write_text(
        "import subprocess\nsubprocess.call('x', shell=True)\n"
    )
    pytester.mkdir(".venv")
    (pytester.path / ".venv" / "lib.py").write_text(
        "import subprocess\nsubprocess.run('x', shell=True)\n"
    )
    result = codeif(pytester, "pattern", "subprocess.$F(..., shell=True, ...)", "app.py", ".")
    assert result.ret == 0, result.stderr.str()
    assert result.stdout.lines == [
        "app.py:4:5: sp.run(cmd, shell=True)",
        "app.py:6:16: sp.check_output(",
        "                cmd, shell=True)",
        "app.py:4:5: sp.run(cmd, shell=True)",  # the folder holds app.py too
        "app.py:6:16: sp.check_output(",
        "                cmd, shell=True)",
        "pkg/jobs.py:2:1: subprocess.call('x', shell=True)",
    ]


def test_codeif_pattern_exits_1_when_nothing_matched(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(app=APP)
    result = codeif(pytester, "pattern", "os.system(...)", "app.py")
    assert (result.ret, result.stdout.lines, result.stderr.lines) == (1, [], [])


def test_codeif_pattern_refuses_a_bad_pattern(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(app=APP)
    result = codeif(pytester, "pattern", "print(", "app.py")
    assert result.ret == 2
    assert result.stdout.lines == []
    result.stderr.fnmatch_lines(["codeif pattern: bad pattern: the pattern is not Python code*"])
    unbound = codeif(pytester, "pattern", "__codeif_x", "app.py")
    assert unbound.ret == 2
    unbound.stderr.fnmatch_lines(["codeif pattern: bad pattern: names starting with*reserved*"])


def test_codeif_pattern_says_which_files_it_could_not_search(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(app=APP, broken="def f(:\n")
    result = codeif(pytester, "pattern", "except Exception: pass", "broken.py", "app.py", "gone.py")
    assert result.ret == 2  # as grep: an error is reported even when something matched
    assert result.stdout.lines == ["app.py:8:5: except Exception:", "            pass"]
    result.stderr.fnmatch_lines(
        ["codeif pattern: broken.py*line 1*", "codeif pattern: cannot read gone.py: *"]
    )


def test_codeif_pattern_shows_matched_text_as_data(pytester: pytest.Pytester) -> None:
    """The matched code is the file's, and the file is hostile: no escape sequence
    reaches the terminal and no line of it is a workflow command."""
    hostile = 'log("\x1b]8;;https://evil\x07here\x1b[2J")\nlog("""\n::error file=x::forged\n""")\n'
    (pytester.path / "hostile.py").write_text(hostile, encoding="utf-8")
    result = codeif(pytester, "pattern", "log(...)", "hostile.py")
    assert result.ret == 0
    out = result.stdout.str()
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]8;;https://evil\\x07here\\x1b[2J" in out
    assert not any(line.lstrip().startswith("::") for line in result.stdout.lines)
    assert "\\::error file=x::forged" in out


def test_codeif_pattern_stops_quietly_when_the_reader_goes_away(tmp_path: Path) -> None:
    """`codeif pattern ... | head -1`: no BrokenPipeError traceback, SIGPIPE's status."""
    many = tmp_path / "many.py"
    many.write_text("".join(f"print({i})\n" for i in range(5_000)))
    script = (
        "import sys\n"
        "from pytest_codeif.cli import main\n"
        "sys.exit(main(['pattern', 'print($X)', sys.argv[1]]))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(many)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()  # the reader leaves after one line
        errors = child.stderr.read()
        assert child.wait(timeout=60) == 141
    assert first.startswith(str(many).encode())
    assert b"Traceback" not in errors and b"BrokenPipeError" not in errors


def test_a_checks_summary_is_its_first_sentence_whole() -> None:
    """The index, SARIF rules and advice read a check's first sentence: wrapped over
    lines in the docstring, it is still whole (it was cut at the first line's end)."""

    class Wrapped(Check):
        """No module imports a database driver: the database is reached through the ORM
        or the data-access layer.

        Options: none.
        """

        name = "wrapped"

    class Short(Check):
        """Every call is checked.

        More on how, in a second paragraph.
        """

        name = "short"

    assert summary(Wrapped) == (
        "No module imports a database driver: the database is reached through the ORM "
        "or the data-access layer."
    )
    assert summary(Short) == "Every call is checked."


# -- pins that cannot be checked as written are sample problems ------------------------

TWO_FILES = {"a.py": "print(1)\n", "b.py": "x = 1\n"}


@pytest.mark.parametrize(
    ("sample", "says"),
    [
        (
            Sample(TWO_FILES, path="nonexistent.py"),
            "its `path` 'nonexistent.py' is not one of its files ('a.py', 'b.py')",
        ),
        (
            Sample(TWO_FILES, path="b.py"),
            "no finding in b.py (found: a.py:1: [no-print-test] print() called)",
        ),
        (
            Sample(TWO_FILES, path="b.py", message="print()"),
            "no finding in b.py whose message contains 'print()'",
        ),
        (Sample("print(1)\n", line=True), "its `line` is True: pin a line number, 1 or more"),
        (Sample("print(1)\n", line=0), "its `line` is 0: pin a line number, 1 or more"),
        (Sample("print(1)\n", message=""), "its `message` is '': pin a non-empty part"),
        (
            Sample({"a.py": "x = 1\nprint(x)\n", "b.py": "print(2)\n"}, line=2),
            "its `line` needs a `path`: a project sample's lines are of one of its files",
        ),
        (
            Sample("print(1)\n", path="a.py"),
            "its `path` is 'a.py', but its `code` is one module",
        ),
    ],
)
def test_a_pin_that_cannot_be_checked_is_a_problem(sample: Sample, says: str) -> None:
    """Each of these passed in silence: a pin compared only when `message` or `line` was
    set, `True == 1`, `"" in message` always, and a project's line 2 in any file."""

    class BadlyPinned(NoPrint):
        violated_by = (sample,)

    [problem] = verify_samples(BadlyPinned)
    assert (problem.expected, problem.index, problem.got) == ("violated_by", 0, "violated")
    assert says in problem.detail


def test_a_path_alone_pins_the_file_a_finding_lands_in() -> None:
    class InFile(NoPrint):
        violated_by = (Sample(TWO_FILES, path="a.py"), Sample(TWO_FILES, path="a.py", line=1))

    assert verify_samples(InFile) == []
    assert Sample(TWO_FILES, path="a.py", line=1, message="print").pin_problems() == []


def test_a_satisfied_sample_cannot_pin_a_file() -> None:
    class Pinned(NoPrint):
        satisfied_by = (Sample({"a.py": "x = 1\n"}, path="a.py"),)

    [problem] = verify_samples(Pinned)
    assert (problem.expected, problem.got) == ("satisfied_by", "satisfied")
    assert "its `path` cannot match" in problem.detail


# -- what check-samples prints of code is shown as data ---------------------------------


class Echo(NoPrint):
    """Test check: a finding whose message holds control characters, as a finding
    quoting hostile code does."""

    name = "echo-test"
    satisfied_by = (Sample("x = 1\n"),)
    violated_by = (Sample("print(1)\n", message="absent"),)

    def evaluate(self, ctx: CheckContext) -> list[Finding]:
        return [
            ctx.report(module, call, "print() called \x1b[2J\x1b]8;;https://evil\x07 here")
            for module in ctx.modules()
            for call in module.nodes(cst.Call)
        ]


def test_check_samples_escapes_what_a_samples_findings_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert report_samples([Echo]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "FAIL  echo-test: violated_by[0] ended violated: no finding's message" in out
    assert "print() called \\x1b[2J\\x1b]8;;https://evil\\x07 here" in out


def test_check_samples_escapes_examples_and_locates_their_syntax_errors(
    pytester: pytest.Pytester,
) -> None:
    """A `no-match` example the rule matches is quoted (escaped); one that does not
    parse is located at its own line, not at the temporary task file it ran as."""
    rules = RULES_WITH_EXAMPLES.replace(
        '- log("hi")', '- "print(\'\\x1b[31mred\\u202e\')"\n            - "f("'
    )
    pytester.makefile(".codeif.yaml", rules=rules)
    result = codeif(pytester, "check-samples", "rules.codeif.yaml")
    out = result.stdout.str()
    assert result.ret == 1, out
    assert "\x1b" not in out and "\u202e" not in out
    assert "print('\\x1b[31mred\\u202e')" in out
    assert "sample.codeif.yaml" not in out
    result.stdout.fnmatch_lines(
        [
            "FAIL  rules.codeif.yaml:16: tasks[[]0[]].constraints[[]0[]].examples.no-match[[]1[]]: "
            "no-print: the rule cannot be evaluated on this example: '(' was never closed",
        ]
    )


def test_the_sessions_audit_escapes_what_a_samples_findings_say() -> None:
    class Reporter:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def write_sep(self, sep: str, title: str, **markup: bool) -> None:
            self.lines.append(title)

        def write_line(self, line: str) -> None:
            self.lines.append(line)

    audit = SampleAudit([Echo])
    audit.pytest_sessionstart(cast("pytest.Session", None))
    reporter = Reporter()
    audit.pytest_terminal_summary(cast("pytest.TerminalReporter", reporter))
    [line] = [line for line in reporter.lines if line.startswith("echo-test:")]
    assert "\x1b" not in line and "\x07" not in line
    assert "print() called \\x1b[2J\\x1b]8;;https://evil\\x07 here" in line

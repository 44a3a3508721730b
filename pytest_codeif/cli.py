"""The `codeif` command: `codeif merge` combines JSON reports of shards into one;
`codeif report` writes an HTML page from a JSON report; `codeif feedback` writes the
feedback for a next round (JSONL) or a person (Markdown) from a JSON report;
`codeif import multicodeif` turns MultiCodeIF data into task files; `codeif check-samples`
verifies the samples of the checks a pytest session would register and the examples of
pattern rules; `codeif pattern` shows what a pattern matches in files; `codeif gate` runs
the CI gate on a change, protected from it."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest

from pytest_codeif.checks.base import Check, advice_of, summary
from pytest_codeif.checks.builtin import BUILTIN_CHECKS
from pytest_codeif.checks.pattern import PatternCheck
from pytest_codeif.checks.pattern.trial import (
    Found,
    Refused,
    Unlisted,
    pattern_files,
    rule_of,
    search,
)
from pytest_codeif.checks.registry import CheckRegistrationError, CheckRegistry
from pytest_codeif.code.unit import MAX_FILE_BYTES
from pytest_codeif.generate import constraints_cli, pacific_cli
from pytest_codeif.importers.multicodeif import import_multicodeif
from pytest_codeif.importers.multicodeif_chains import import_chains
from pytest_codeif.importers.multicodeif_repo import SETTINGS, import_repository
from pytest_codeif.outcome import Undecidable
from pytest_codeif.records import Record
from pytest_codeif.report.feedback import feedback_format, file_lines, write_text
from pytest_codeif.report.feedback import render as render_feedback
from pytest_codeif.report.figures.decay import decay
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.html import build_page, write_page
from pytest_codeif.report.html_plots import MissingExtra
from pytest_codeif.report.html_plots import require as require_plots
from pytest_codeif.report.json_report import (
    SCHEMA_PATH,
    build_report,
    records_of,
    write_atomically,
)
from pytest_codeif.report.safe_text import MAX_MESSAGE, safe_text
from pytest_codeif.report.terminal import render
from pytest_codeif.testing import (
    ExampleProblem,
    RuleExamplesResult,
    is_builtin,
    origin,
    task_files,
    verify_rule_examples,
    verify_samples,
)
from pytest_codeif.text import counted

#: `codeif check-samples` found no check to verify (pytest's status for "no tests ran").
NOTHING_TO_VERIFY = 5


def merge(paths: Sequence[Path]) -> tuple[dict[str, Any], list[str]]:
    """One report from several; the warnings say what a reader should know."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    by_node: dict[str, Record] = {}
    warnings: list[str] = []
    versions: dict[str, str] | None = None
    complete, exit_status = True, 0
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(report, schema)
        if versions is None:
            versions = report["tool_versions"]
        elif report["tool_versions"] != versions:
            warnings.append(f"{path}: other tool versions than {paths[0]}; verdicts may differ")
        complete = complete and report["complete"]
        exit_status = max(exit_status, report["exit_status"])
        for record in records_of(report):
            if record["nodeid"] in by_node:
                warnings.append(
                    f"{path}: {record['nodeid']} is in another report too; kept this one"
                )
            by_node[record["nodeid"]] = record
    merged = build_report(by_node.values(), complete=complete, exit_status=exit_status, versions={})
    merged["tool_versions"] = versions or {}
    return merged, warnings


def import_command(args: argparse.Namespace) -> int:
    """`codeif import multicodeif[-chains] TASKS RESPONSES... -o DIR`, or `codeif import
    multicodeif REPO -o DIR` for a checkout of the MultiCodeIF repository."""
    try:
        if args.format == "multicodeif" and args.tasks.is_dir():  # the repository itself
            result = import_repository(args.tasks, args.output, args.setting or tuple(SETTINGS))
        elif not args.responses:
            raise ValueError(f"give the responses files after {args.tasks}")
        else:
            importer = import_chains if args.format == "multicodeif-chains" else import_multicodeif
            result = importer(args.tasks, args.responses, args.output)
    except (OSError, ValueError) as exc:
        print(f"codeif import: {exc}", file=sys.stderr)
        return 2
    listing = args.output / "unmapped.jsonl"
    listing.write_text(
        "".join(json.dumps(item) + "\n" for item in result.unmapped), encoding="utf-8"
    )
    reasons: dict[str, int] = {}
    for item in result.unmapped:
        reason = re.sub(r"'[^']*'|\"[^\"]*\"", "...", item["reason"])
        reasons[reason] = reasons.get(reason, 0) + 1
    print(
        f"codeif import: {result.tasks} tasks, {result.constraints} constraints in "
        f"{len(result.files)} files under {args.output}"
    )
    if result.unmapped:
        print(f"not mapped ({len(result.unmapped)}, each listed in {listing}):")
        for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print(f"  {count:5d}  {reason}")
    return 0


class SampleCheck:
    """A plugin for one `pytest.main` call: once pytest has loaded plugins and conftest.py
    files exactly as a session would, verify the registered checks' samples and stop
    (as `pytest --markers` does), without collecting or running anything."""

    def __init__(self, *, builtin: bool) -> None:
        self.builtin = builtin

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> int:
        register = getattr(config.hook, "pytest_codeif_register_checks", None)
        if register is None:  # plugin autoloading is off and `-p codeif` was not given
            raise pytest.UsageError("codeif check-samples: pytest did not load pytest-codeif")
        registry = CheckRegistry()
        try:
            for check in BUILTIN_CHECKS:  # a --codeif session registers these first
                registry.register(check)
            register(registry=registry)
        except CheckRegistrationError as exc:
            raise pytest.UsageError(
                f"codeif check-samples: cannot register a check: {exc}"
            ) from None
        checks = [c for c in registry if self.builtin or not is_builtin(c)]
        files, results, problems = _rule_examples(config, registry)
        if not checks and not results and not problems:
            held = f", and no pattern rule with examples in {counted(files, 'task file')}"
            print(
                "codeif check-samples: nothing to verify: no plugin or conftest.py registered "
                f"a check (--builtin verifies the built-in ones){held if files else ''}"
            )
            return NOTHING_TO_VERIFY
        status = report_samples(checks) if checks else 0
        if results or problems:
            status = max(status, report_examples(results, problems))
        return status


def _rule_examples(
    config: pytest.Config, registry: CheckRegistry
) -> tuple[int, list[RuleExamplesResult], list[ExampleProblem]]:
    """How many task files are among the session's paths, and their pattern rules'
    examples, each file named relative to the current folder."""
    here = config.invocation_params.dir
    paths = [here / arg for arg in config.args]
    found = task_files(paths, config.getini("codeif_patterns"), config.getini("norecursedirs"))
    results: list[RuleExamplesResult] = []
    problems: list[ExampleProblem] = []
    for path in found:
        shown = path.relative_to(here) if path.is_relative_to(here) else path
        file_results, file_problems = verify_rule_examples(shown, registry, config.rootpath)
        results += file_results
        problems += file_problems
    return len(found), results, problems


def report_examples(
    results: Sequence[RuleExamplesResult], problems: Sequence[ExampleProblem]
) -> int:
    """Print one line per rule whose examples behave and per problem; 1 if any problem.
    A problem quotes the examples' code (a finding's snippet): it is shown as data."""
    for problem in problems:
        print(f"FAIL  {safe_text(str(problem))}")
    count = len(problems)
    for result in results:
        if not result.problems:
            print(
                f"ok    {result.location.path}:{result.location.line}: {result.rule}: "
                f"{counted(result.examples, 'example')} agree"
            )
        for problem in result.problems:
            print(f"FAIL  {safe_text(str(problem))}")
        count += len(result.problems)
    examples = sum(result.examples for result in results)
    print(
        f"codeif check-samples: {counted(examples, 'example')} of "
        f"{counted(len(results), 'pattern rule')} verified, {counted(count, 'problem')}"
    )
    return 1 if count else 0


def report_samples(checks: Sequence[type[Check]]) -> int:
    """Verify each check's samples, print one line per check or per problem; 1 if any.
    A problem quotes the samples' findings (snippets of their code): shown as data."""
    problems = 0
    for check in checks:
        found = verify_samples(check)
        problems += len(found)
        if not found:
            count = len(check.satisfied_by) + len(check.violated_by)
            print(f"ok    {check.name}: {counted(count, 'sample')} agree  [{origin(check)}]")
        for problem in found:
            print(f"FAIL  {safe_text(str(problem))}  [{origin(check)}]")
    print(
        f"codeif check-samples: {counted(len(checks), 'check')} verified, "
        f"{counted(problems, 'problem')}"
    )
    return 1 if problems else 0


def check_samples_command(args: argparse.Namespace) -> int:
    """`codeif check-samples [PATH...] [-p MODULE]... [--builtin]`."""
    missing = [str(path) for path in args.paths if not path.exists()]
    if missing:  # pytest notices only when it collects, which this command never does
        print(f"codeif check-samples: not found: {', '.join(missing)}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    pytest_args = [arg for module in args.plugins for arg in ("-p", module)]
    status = pytest.main(
        [*pytest_args, *map(str, args.paths)], plugins=[SampleCheck(builtin=args.builtin)]
    )
    return int(status)


def report_command(args: argparse.Namespace) -> int:
    """`codeif report REPORT.json -o report.html [--group-by KEY] [--root DIR]`."""
    try:
        require_plots()
    except MissingExtra as exc:
        print(f"codeif report: {exc}", file=sys.stderr)
        return 2
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    try:
        report = json.loads(args.report.read_text(encoding="utf-8"))
        jsonschema.validate(report, schema)
    except jsonschema.ValidationError as exc:
        where = f"{exc.json_path}: {exc.message}"
        print(f"codeif report: {args.report}: not a report ({where})", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"codeif report: cannot read {args.report}: {exc}", file=sys.stderr)
        return 2
    page = build_page(report, group_by=args.group_by, root=args.root)
    try:
        write_page(args.output, page)
    except OSError as exc:
        print(f"codeif report: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    size = len(page.encode("utf-8"))
    print(f"codeif report: {len(report['tasks'])} tasks -> {args.output} ({size / 1000:.0f} kB)")
    return 0


def _saved_report(path: Path, command: str) -> dict[str, Any] | None:
    """The JSON report at `path`, validated against the report schema; None (after saying
    why on stderr, in one line naming the file) when it cannot be read or is not a
    pytest-codeif report."""
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    try:
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(report, schema)
    except UnicodeDecodeError:
        why = "not UTF-8 text"
    except OSError as exc:
        print(f"{command}: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None
    except json.JSONDecodeError as exc:
        why = f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    except jsonschema.ValidationError as exc:
        why = f"{exc.json_path}: {exc.message}"
    except (ValueError, RecursionError):
        why = "JSON nested too deeply or too large to read"
    else:
        return report
    # One line of bounded length: a schema error quotes the value it refused.
    why = " ".join(why.split())
    if len(why) > 160:
        why = why[:157] + "..."
    print(f"{command}: {path}: not a pytest-codeif JSON report ({why})", file=sys.stderr)
    return None


def _with_advice(record: Record) -> Record:
    """A record of a report written before records carried `advice`: the built-in
    check's advice for its options (None for a check this installation does not ship)."""
    if record["kind"] != "constraint" or record.get("advice") or record.get("message"):
        return record
    check = next((c for c in BUILTIN_CHECKS if c.name == record.get("check")), None)
    if check is None:
        return record
    advice: str | None
    try:
        advice = advice_of(check(dict(record.get("options") or {})))
    except Exception:  # noqa: BLE001 - options a newer version accepted: the class's advice
        advice = check.advice or None
    # No advice is no key: readers take a missing `advice` and a null one alike.
    return {**record, "advice": advice} if advice is not None else record


def feedback_command(args: argparse.Namespace) -> int:
    """`codeif feedback REPORT.json -o next.jsonl|next.md [--root DIR]`."""
    report = _saved_report(args.report, "codeif feedback")
    if report is None:
        return 2
    records = [_with_advice(r) for r in records_of(report)]
    docs = {c.name: summary(c) for c in BUILTIN_CHECKS}
    fmt = feedback_format(args.output)
    text = render_feedback(records, fmt, docs=docs, lines_of=file_lines(args.root))
    try:
        write_text(args.output, text)
    except OSError as exc:
        print(f"codeif feedback: cannot write {args.output}: {exc}", file=sys.stderr)
        return 2
    status = [r["status"] for r in records if r["kind"] == "constraint"]
    tasks = {
        (r["file"], r["task"])
        for r in records
        if r["kind"] in ("constraint", "functional") and r["status"] in ("violated", "error")
    }
    print(
        f"codeif feedback: {status.count('violated')} violated and {status.count('error')} "
        f"undecided constraints; {len(tasks)} tasks to fix -> {args.output} ({fmt})"
    )
    return 0


#: What `codeif gate` runs pytest with, before the arguments it is given: no
#: conftest.py, no configuration file and no cache folder of the repository, so that the
#: change under judgement cannot act before the plugin does (`gate/pinned.py`); and no
#: Python collected (pytest's `python` and `doctest` plugins blocked): pytest would
#: import a folder's `__init__.py` for its package, `test_*.py` files and doctests of
#: the checkout's, in this process, outside the sandbox. Only task files are collected.
GATE_PROTECTION: Final = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:python",
    "-p",
    "no:doctest",
    "--noconftest",
    "-c",
    os.devnull,
    "--rootdir=.",
    "-p",
    "codeif",
    "--codeif",
)
#: Options `codeif gate` sets itself: given again, they would undo the protection.
_GATE_OWN: Final = ("-c", "--config-file", "--rootdir", "--noconftest", "--confcutdir")
#: Plugins `codeif gate` blocks: `-p NAME` would load them again.
_GATE_BLOCKED: Final = frozenset({"cacheprovider", "python", "doctest"})
#: Environment variables pytest reads options or plugins from; not the gate's.
_GATE_ENVIRON: Final = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")
GATE_DESCRIPTION: Final = (
    "usage: codeif gate TASKFILE... --codeif-changed-since=REF [pytest options]\n\n"
    "Run the pytest-codeif gate on the change since the merge base of REF and HEAD, from "
    "the repository's root, as `python -P -m pytest "
    + " ".join(GATE_PROTECTION)
    + " ARGS` (with PYTEST_ADDOPTS and PYTEST_PLUGINS unset): no conftest.py, pytest "
    "configuration file or cache folder of the repository is read, no Python file of it "
    "is collected or imported (only task files are collected), and the task files and "
    "the baseline are read as the merge base holds them; a change to them, to a "
    "conftest.py or to pytest's configuration fails the gate as a finding for a person to "
    "review. Give every option on the command line (ini options are not read). "
    "--codeif-baseline-write may replace --codeif-changed-since (recording the baseline "
    "the same way the gate reads it). Exit status: pytest's (0 passed, 1 failed, 4 usage "
    "error)."
)


def gate_arguments(args: Sequence[str]) -> list[str] | str:
    """pytest's arguments for `codeif gate ARGS`, or why they cannot be used."""
    for index, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        if name in _GATE_OWN or (arg.startswith("-c") and not arg.startswith("--")):
            return f"{name} is set by codeif gate itself (see codeif gate --help)"
        plugin = _plugin_named(args, index)
        if plugin is not None and plugin.removeprefix("_pytest.") in _GATE_BLOCKED:
            return f"-p {plugin}: codeif gate blocks that plugin (see codeif gate --help)"
    ref = None
    for index, arg in enumerate(args):
        if arg.startswith("--codeif-changed-since="):
            ref = arg.split("=", 1)[1]
        elif arg == "--codeif-changed-since" and index + 1 < len(args):
            ref = args[index + 1]
    if not (ref or "").strip() and "--codeif-baseline-write" not in args:
        return (
            "give --codeif-changed-since=REF (the base branch, e.g. origin/main): the gate "
            "judges the change since it, with the rules and baseline it holds"
        )
    return [*GATE_PROTECTION, *args]


def _plugin_named(args: Sequence[str], index: int) -> str | None:
    """The plugin a `-p NAME` / `-pNAME` at `index` loads (None: not a `-p`)."""
    arg = args[index]
    if arg == "-p":
        return args[index + 1] if index + 1 < len(args) else None
    if arg.startswith("-p") and not arg.startswith("--"):
        return arg[2:].lstrip("=")
    return None


def gate_command(args: Sequence[str]) -> int:
    """`codeif gate ARGS`: pytest, protected from the change it judges."""
    if list(args) in (["-h"], ["--help"]):
        print(GATE_DESCRIPTION)
        return 0
    argv = gate_arguments(args)
    if isinstance(argv, str):
        print(f"codeif gate: {argv}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    environ = dict(os.environ)
    for name in _GATE_ENVIRON:
        if environ.pop(name, None) is not None:
            print(
                f"codeif gate: {name} ignored: give every option on the command line",
                file=sys.stderr,
            )
    # A fresh interpreter: pytest marks the plugin's modules for assertion rewriting,
    # which this process has imported already; -P: the current folder (the checkout)
    # is not put on sys.path, so none of its modules shadows pytest's or the plugin's.
    command = [sys.executable, "-P", "-m", "pytest", *argv]
    try:
        return subprocess.run(command, env=environ, check=False).returncode
    except KeyboardInterrupt:
        return int(pytest.ExitCode.INTERRUPTED)


def main(argv: Sequence[str] | None = None) -> int:
    """The `codeif` command: its exit status."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`codeif pattern ... | head`): stop quietly, as grep does,
        # with the status of a process ended by SIGPIPE; the interpreter's final flush of
        # stdout must not fail again, so stdout now goes nowhere.
        _stdout_to_nowhere()
        return 128 + signal.SIGPIPE


def _main(argv: Sequence[str] | None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["gate"]:
        # Every argument after `gate` is pytest's: not parsed here.
        return gate_command(given[1:])
    args = build_parser().parse_args(given)
    if args.command == "feedback":
        return feedback_command(args)
    if args.command == "report":
        return report_command(args)
    if args.command == "import":
        return import_command(args)
    if args.command == "check-samples":
        return check_samples_command(args)
    if args.command == "pattern":
        return pattern_command(args)
    if args.command == "generate":
        return generate_command(args)
    try:
        merged, warnings = merge(args.reports)
    except (OSError, ValueError, jsonschema.ValidationError) as exc:
        message = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
        print(f"codeif merge: cannot read a report: {message}", file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"codeif merge: warning: {warning}", file=sys.stderr)
    write_atomically(args.output, merged)
    records = records_of(merged)
    print("\n".join(render(summarize(records), decay(records))))
    print(f"codeif merge: {len(args.reports)} reports -> {args.output}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The `codeif` command's parser (`gate` aside, whose arguments are pytest's);
    the docs' command-line reference is generated from it."""
    parser = argparse.ArgumentParser(prog="codeif", description=__doc__)
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {version('pytest-codeif')}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "gate",
        help="run the CI gate on a change, protected from it (codeif gate --help)",
        description=GATE_DESCRIPTION,
    )
    merge_cmd = commands.add_parser("merge", help="combine JSON reports of shards into one")
    merge_cmd.add_argument(
        "reports", nargs="+", type=Path, help="reports written by --codeif-report"
    )
    merge_cmd.add_argument("-o", "--output", type=Path, required=True, help="the merged report")
    import_cmd = commands.add_parser("import", help="turn a benchmark's data into task files")
    formats = import_cmd.add_subparsers(dest="format", required=True)
    multi = formats.add_parser(
        "multicodeif",
        help="MultiCodeIF's repository as it is (a checkout), or its tasks.jsonl and "
        "responses/<model>.jsonl files",
    )
    multi.add_argument(
        "tasks", type=Path, help="a checkout of the MultiCodeIF repository, or tasks.jsonl"
    )
    multi.add_argument(
        "responses", nargs="*", type=Path, help="with tasks.jsonl: one or more responses files"
    )
    multi.add_argument(
        "--setting",
        action="append",
        choices=tuple(SETTINGS),
        help="with a checkout: the results read (repeatable; default: all of them)",
    )
    multi.add_argument("-o", "--output", type=Path, required=True, help="folder for task files")
    chains = formats.add_parser(
        "multicodeif-chains",
        help="MultiCodeIF multi_level_tasks.jsonl and multi_level_responses/<model>.jsonl: "
        "each level a task with the constraints of every level up to it",
    )
    chains.add_argument("tasks", type=Path, help="the multi_level_tasks.jsonl file")
    chains.add_argument("responses", nargs="+", type=Path, help="one or more responses files")
    chains.add_argument("-o", "--output", type=Path, required=True, help="folder for task files")
    samples = commands.add_parser(
        "check-samples",
        help="verify the samples of the checks plugins and conftest.py files register",
        description="Load plugins and conftest.py files as `pytest --codeif PATH...` would, "
        "then evaluate every registered check on its samples, and every `pattern` rule "
        "of the task files among PATHs on its `examples`. Exit status: 0 when each "
        "sample reaches its declared verdict and each example behaves, 1 when one does "
        "not, or a check has no samples or no advice, "
        f"{NOTHING_TO_VERIFY} when there is nothing to verify, pytest's 4 when loading fails.",
    )
    samples.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="test directories or files whose conftest.py files register checks, and "
        "task files (or folders of them) whose pattern rules have examples "
        "(default: pytest's testpaths, or the current directory)",
    )
    samples.add_argument(
        "-p",
        dest="plugins",
        metavar="MODULE",
        action="append",
        default=[],
        help="load a plugin module, as `pytest -p MODULE` does (repeatable)",
    )
    samples.add_argument(
        "--builtin",
        action="store_true",
        help="verify the built-in checks too (pytest-codeif's own tests do; it takes a while)",
    )
    page = commands.add_parser(
        "report",
        help="an HTML page from a JSON report: tables, plots and every violation",
        description="Write one self-contained HTML page (inline CSS and SVG, no script, "
        "nothing fetched when viewed) from a report written by --codeif-report or codeif "
        "merge. Needs the `report` extra (matplotlib): pip install 'pytest-codeif[report]'. "
        "Exit status 2 when it is missing or the report cannot be read.",
    )
    page.add_argument("report", type=Path, help="a JSON report (--codeif-report)")
    page.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    page.add_argument(
        "--group-by",
        metavar="KEY",
        help="the metadata key of the columns and plot lines (default: the report's "
        "--codeif-group-by key, else `model` when tasks have one, else `file`: the task file)",
    )
    page.add_argument(
        "--root",
        type=Path,
        default=Path(),
        help="the folder the report's paths are relative to (pytest's rootdir), to show "
        "excerpts of `file:` and `directory:` code (default: the current directory)",
    )
    _add_feedback_command(commands)
    _add_pattern_command(commands)
    _add_generate_command(commands)
    return parser


def _add_generate_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    generate = commands.add_parser(
        "generate", help="write a generated benchmark: task files and prompts"
    )
    kinds = generate.add_subparsers(dest="kind", required=True)
    pacific_cli.add_arguments(
        kinds.add_parser(
            "pacific",
            help="PACIFIC answer tasks: chained instructions with difficulty control",
            description=pacific_cli.__doc__,
        )
    )
    constraints_cli.add_arguments(
        kinds.add_parser(
            "constraints",
            help="code-constraint tasks drawn with a seed from base problems",
            description=constraints_cli.__doc__,
        )
    )


def generate_command(args: argparse.Namespace) -> int:
    """`codeif generate KIND ...`: the kind's exit status."""
    if args.kind == "pacific":
        return pacific_cli.run(args)
    return constraints_cli.run(args)


def _add_feedback_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    feedback = commands.add_parser(
        "feedback",
        help="feedback to act on, from a JSON report: JSONL for a next round, or Markdown",
        description="Write, per task and response with a violated or undecided constraint "
        "or failing functional tests, what was asked, what was found where (lines in the "
        "response's own code, and in the task file), and what to do: the same feedback as "
        "--codeif-feedback, from a report written by --codeif-report or codeif merge. "
        "JSONL (one object per task, each with an entry per violated constraint and a "
        "`text` to send to the model) when OUTPUT ends in .jsonl, else Markdown. Exit "
        "status 0 when written (violations or not), 2 when the report cannot be read or "
        "is not a pytest-codeif report, or the output cannot be written.",
    )
    feedback.add_argument("report", type=Path, help="a JSON report (--codeif-report)")
    feedback.add_argument(
        "-o", "--output", type=Path, required=True, help="the file to write (.jsonl or .md)"
    )
    feedback.add_argument(
        "--root",
        type=Path,
        default=Path(),
        help="the folder the report's paths are relative to (pytest's rootdir), to quote "
        "the lines of `file:` and `directory:` code (default: the current directory)",
    )


#: `codeif pattern`'s exit statuses, as grep's: a match, none, a bad pattern or file.
PATTERN_MATCHED, PATTERN_NO_MATCH, PATTERN_ERROR = 0, 1, 2
#: Longest matched text `codeif pattern` shows of one match.
_SHOWN_MATCH: Final = 2000


def pattern_command(args: argparse.Namespace) -> int:
    """`codeif pattern PATTERN FILE...`: each match as `path:line:column: code`."""
    try:
        rule = rule_of(args.pattern, args.language)
    except ValueError as exc:
        why = str(exc).removeprefix("pattern: ")
        print(f"codeif pattern: bad pattern: {safe_text(why)}", file=sys.stderr)
        return PATTERN_ERROR
    try:
        matched, failed = _print_matches(rule, args.files, args.language)
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # `main` ends quietly, with SIGPIPE's status
    except OSError as exc:  # stdout is a full disk (`> /dev/full`), a closed terminal...
        _stdout_to_nowhere()
        print(f"codeif pattern: cannot write the matches: {exc.strerror}", file=sys.stderr)
        return PATTERN_ERROR
    if failed:
        return PATTERN_ERROR
    return PATTERN_MATCHED if matched else PATTERN_NO_MATCH


def _print_matches(
    rule: PatternCheck, files: Sequence[Path], language: str | None
) -> tuple[int, bool]:
    """Print each match of `rule` in `files` (folders: their files of `language`, else of
    every language), and say on stderr what could not be searched: how many matches,
    and whether something could not be."""
    matched, failed = 0, False
    for path in pattern_files(files, language):
        if isinstance(path, Unlisted):
            shown = _shown_path(path.path)
            print(f"codeif pattern: cannot list {shown}: {_one_line(path.why)}", file=sys.stderr)
            failed = True
            continue
        shown = _shown_path(path)
        try:
            found = search(rule, path)
        except (OSError, UnicodeDecodeError, Refused) as exc:
            print(f"codeif pattern: cannot read {shown}: {_one_line(str(exc))}", file=sys.stderr)
            failed = True
            continue
        except Undecidable as exc:
            print(f"codeif pattern: {_one_line(exc.message)}", file=sys.stderr)
            failed = True
            continue
        for match in found:
            print(f"{shown}:{match.line}:{match.column}: {_shown_code(match)}")
        matched += len(found)
    return matched, failed


def _shown_path(path: Path) -> str:
    """A path as one line of data: a file name may hold a newline, that would start a
    forged match line."""
    return _one_line(str(path), 500)


def _one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` as `safe_text` shows it, its newlines and tabs escaped too (as `repr` shows
    them), so that it is one line of the output."""
    return safe_text(text.replace("\n", "\\n").replace("\t", "\\t"), limit)


def _stdout_to_nowhere() -> None:
    """Send stdout to the null device: what is still buffered for it cannot be written,
    and the interpreter's final flush must not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _shown_code(match: Found) -> str:
    """The matched code as data (escapes for what a terminal would obey), its later lines
    indented under the first."""
    # "\r\n" and a lone "\r" end a line of Python as "\n" does: shown as line ends.
    text = match.text.replace("\r\n", "\n").replace("\r", "\n")
    lines = safe_text(text, _SHOWN_MATCH).split("\n")
    return "\n".join([lines[0], *("    " + line for line in lines[1:])])


def _add_pattern_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    pattern = commands.add_parser(
        "pattern",
        help="show what a pattern matches in Python, JavaScript or TypeScript files, as a "
        "`pattern` rule would",
        description="Match PATTERN (as a `pattern` rule's `pattern:` is written: Python with "
        "metavariables, or ast-grep's pattern for JavaScript and TypeScript) against each FILE "
        "(a folder: its source files, as a `directory:` unit lists them: .gitignore honoured, "
        "virtualenvs, node_modules, build output and hidden folders skipped) and print each "
        "match as `path:line:column: code`. A file is read by its suffix's language, as a rule "
        "reads one: a regular file of at most "
        f"{MAX_FILE_BYTES // (1024 * 1024)} MiB. Exit status: 0 when something matched, "
        "1 when nothing did, 2 when the pattern is not a valid pattern, or a file or "
        "folder cannot be read or parsed, or the output cannot be written.",
    )
    pattern.add_argument(
        "--language",
        choices=("python", "javascript", "typescript"),
        default=None,
        help="the rule's `language:` (a JS/TS pattern such as 'console.log($$$ARGS)' needs "
        "javascript or typescript; folders then list that language's files only)",
    )
    pattern.add_argument(
        "pattern", metavar="PATTERN", help="the pattern, e.g. 'requests.$METHOD(...)'"
    )
    pattern.add_argument(
        "files", nargs="+", type=Path, metavar="FILE", help="source files or folders of them"
    )


if __name__ == "__main__":
    raise SystemExit(main())

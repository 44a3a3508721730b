"""pytest-codeif's pytest hooks. Each is thin and hands off to the module owning the work.

Without `--codeif` nothing here does any work, and nothing heavy is imported: the
collection, checks and report modules load only when the option is given.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_codeif import hookspecs
from pytest_codeif.cores import is_xdist_worker

if TYPE_CHECKING:
    from collections.abc import Generator

    from pluggy import PluginManager

DEFAULT_PATTERNS = ["*.codeif.yaml", "*.codeif.yml"]


def pytest_addhooks(pluginmanager: PluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("codeif", "code instruction-following (pytest-codeif)")
    group.addoption(
        "--codeif",
        action="store_true",
        default=False,
        help="collect task files (*.codeif.yaml) and check the code they name.",
    )
    group.addoption(
        "--codeif-report",
        metavar="PATH",
        default=None,
        help="write the JSON report (outcomes, evidence, aggregates) to PATH.",
    )
    group.addoption(
        "--codeif-group-by",
        metavar="KEY",
        default=None,
        help="summaries side by side: one column per value of the task metadata KEY "
        "(e.g. model, round), in the terminal and the JSON report's `groups`, with "
        "pass@k and satisfaction@k where tasks have several samples. Default: the "
        "codeif_group_by ini value.",
    )
    parser.addini("codeif_group_by", default="", help="default for --codeif-group-by.")
    _add_ci_options(parser, group)
    group.addoption(
        "--codeif-no-cache",
        action="store_true",
        default=False,
        help="decide every verdict afresh: neither read nor write the verdict cache "
        "(kept in pytest's cache directory; --cache-clear empties it).",
    )
    group.addoption(
        "--codeif-sandbox",
        choices=("auto", "bubblewrap", "process"),
        default=None,
        help="how code under evaluation is isolated: bubblewrap, a bare process, or auto "
        "(bubblewrap when it works here). Default: the codeif_sandbox ini value, or auto.",
    )
    parser.addini(
        "codeif_sandbox",
        default="auto",
        help="default for --codeif-sandbox (auto, bubblewrap or process).",
    )
    group.addoption(
        "--codeif-items",
        choices=("constraint", "task"),
        default=None,
        help="pytest items per task: one per constraint (and one for its functional "
        "tests), or one per task (per response), which decides all of it: much faster "
        "on large suites, with every outcome reported as before. Default: the "
        "codeif_items ini value, or constraint.",
    )
    parser.addini(
        "codeif_items",
        default="constraint",
        help="default for --codeif-items (constraint or task).",
    )
    parser.addini(
        "codeif_patterns",
        type="linelist",
        default=DEFAULT_PATTERNS,
        help="glob patterns of task file names (default: *.codeif.yaml *.codeif.yml).",
    )


def _add_ci_options(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    """The CI gate's outputs: SARIF, GitHub annotations, feedback, thresholds (`report/`)."""
    group.addoption(
        "--codeif-sarif",
        metavar="PATH",
        default=None,
        help="write a SARIF 2.1.0 log of the violations (for code scanning) to PATH. "
        "Default: the codeif_sarif ini value.",
    )
    group.addoption(
        "--codeif-annotations",
        action="store_const",
        const="always",
        dest="codeif_annotations",
        default=None,
        help="print GitHub Actions annotations (::error file=...) for violations; "
        "by default they are printed when GITHUB_ACTIONS=true.",
    )
    group.addoption(
        "--codeif-no-annotations",
        action="store_const",
        const="never",
        dest="codeif_annotations",
        help="never print GitHub Actions annotations.",
    )
    group.addoption(
        "--codeif-fail-under",
        action="append",
        metavar="[SCOPE:]RATE",
        default=None,
        help="gate: fail the run when the satisfaction rate of SCOPE (constraints, the "
        "default, or tasks) is under RATE (0.9 or 90%%); violated constraints alone then "
        "no longer fail it. Repeatable.",
    )
    group.addoption(
        "--codeif-max-violations",
        metavar="N",
        type=int,
        default=None,
        help="gate: fail the run when more than N constraints are violated; violated "
        "constraints alone then no longer fail it.",
    )
    group.addoption(
        "--codeif-feedback",
        action="append",
        metavar="PATH",
        default=None,
        help="write feedback an agent or a reviewer can act on (per task: what was asked, "
        "what was found where, what to do) to PATH: JSONL when PATH ends in .jsonl, else "
        "Markdown (e.g. for $GITHUB_STEP_SUMMARY). Repeatable. Default: the "
        "codeif_feedback ini value.",
    )
    parser.addini(
        "codeif_sarif", default="", help="default for --codeif-sarif (relative to rootdir)."
    )
    parser.addini(
        "codeif_feedback",
        type="args",
        default=[],
        help="default for --codeif-feedback: paths relative to the rootdir, space-separated.",
    )
    parser.addini(
        "codeif_annotations",
        default="auto",
        help="GitHub Actions annotations: auto (when GITHUB_ACTIONS=true), always or never.",
    )
    parser.addini(
        "codeif_fail_under",
        type="args",
        default=[],
        help="default for --codeif-fail-under: [SCOPE:]RATE values, space-separated.",
    )
    parser.addini("codeif_max_violations", default="", help="default for --codeif-max-violations.")
    _add_gate_filters(parser, group)


def _add_gate_filters(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    """The CI gate's filters: changed code only, and the baseline (`gate/`)."""
    group.addoption(
        "--codeif-changed-since",
        metavar="REF",
        default=None,
        help="judge only the code changed since the merge base of the git ref REF and "
        "HEAD (committed, staged, unstaged and untracked files of the repository holding "
        "the rootdir): findings elsewhere are not counted, and a constraint whose scope "
        "holds no changed file is skipped. An unknown REF, or no git repository, is an "
        "error (exit status 4). An empty value switches off the codeif_changed_since ini "
        "value.",
    )
    group.addoption(
        "--codeif-changed-lines",
        action="store_const",
        const=True,
        default=None,
        help="with --codeif-changed-since: count only findings on added or modified lines "
        "(every line of an untracked file; a finding without a line counts when its file "
        "changed). Default: the codeif_changed_lines ini value.",
    )
    group.addoption(
        "--codeif-baseline",
        metavar="FILE",
        default=None,
        help="accept the findings recorded in the baseline FILE (JSON, written by "
        "--codeif-baseline-write), matched by task, check, constraint, file and the "
        "text of the finding's line, not its number; only new findings count. Default: "
        "the codeif_baseline ini value (relative to the rootdir).",
    )
    group.addoption(
        "--codeif-baseline-write",
        action="store_true",
        default=False,
        help="record every finding of the constraints that run into the --codeif-baseline "
        "FILE (keeping those of constraints that did not run) and accept them: the run "
        "exits 0 unless something else fails (an undecidable constraint, a functional "
        "test). Not with --codeif-changed-since.",
    )
    parser.addini(
        "codeif_changed_since", default="", help="default for --codeif-changed-since (a git ref)."
    )
    parser.addini(
        "codeif_changed_lines",
        type="bool",
        default=False,
        help="default for --codeif-changed-lines (used only with a changed-since ref).",
    )
    parser.addini(
        "codeif_baseline",
        default="",
        help="default for --codeif-baseline (a path relative to the rootdir).",
    )


def _enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("codeif", False))


def pytest_configure(config: pytest.Config) -> None:
    if not _enabled(config):
        return
    from pytest_codeif.checks import builtin
    from pytest_codeif.state import STATE_KEY, create_state

    config.addinivalue_line("markers", "codeif: an item generated by pytest-codeif")
    from pytest_codeif.collection.items_mode import items_mode

    items_mode(config)  # a bad codeif_items value: a usage error before collection
    if not config.pluginmanager.is_registered(builtin):
        config.pluginmanager.register(builtin, "codeif-builtin-checks")
    config.stash[STATE_KEY] = create_state(config)
    from pytest_codeif.gate.session import configure_gate

    configure_gate(config)  # --codeif-changed-since, --codeif-baseline: once per process
    if not is_xdist_worker(config):
        # Like junitxml's LogXML: the reporter lives on the controller only.
        from pytest_codeif.report.reporter import CodeifReporter
        from pytest_codeif.testing import SampleAudit

        config.pluginmanager.register(CodeifReporter(config), "codeif-reporter")
        # Third-party checks' samples, verified once per session (-p no:codeif-samples).
        config.pluginmanager.register(
            SampleAudit(config.stash[STATE_KEY].registry), "codeif-samples"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _enabled(config):
        return
    from pytest_codeif.state import STATE_KEY

    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.pool.close()
        state.engine.close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    config = parent.config
    if not _enabled(config):
        return None
    patterns = config.getini("codeif_patterns")
    if not any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return None
    from pytest_codeif.collection.items import TaskFile

    return TaskFile.from_parent(parent, path=file_path)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under --codeif, the host never collects code under evaluation (a task's code
    folder, code file or response file): not its test files, not its conftest.py."""
    if not _enabled(config):
        return None
    from pytest_codeif.collection.items import is_evaluated_code

    return True if is_evaluated_code(collection_path, config) else None


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Where pytest says only "not found: tasks.codeif.yaml", say why: no --codeif, or
    a name that codeif_patterns does not match. Costs nothing unless collection fails."""
    try:
        return (yield)
    except pytest.UsageError as exc:
        from pytest_codeif.taskfile.not_found import explain_not_found

        config = session.config
        messages = [str(arg) for arg in exc.args]
        patterns = config.getini("codeif_patterns")
        explained = explain_not_found(messages, enabled=_enabled(config), patterns=patterns)
        if explained == messages:
            raise
        raise pytest.UsageError(*explained) from None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Plan tool batches for the selected items only, so -k and --lf pay for less; a
    pytest-xdist worker plans only the items it is given, as they arrive. Nothing runs
    under --collect-only: nothing is planned."""
    if not _enabled(session.config) or session.config.option.collectonly:
        return
    from pytest_codeif.collection.planning import plan
    from pytest_codeif.state import get_state

    state = get_state(session.config)
    if is_xdist_worker(session.config):
        from pytest_codeif.collection.planning import own_share

        share = own_share(session)
        if share is not None:
            plan(state, share)
        state.plan_on_arrival = True  # items beyond the share (a crashed worker's)
    else:
        plan(state, session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under --codeif, pytest-xdist's default distribution keeps each task on one worker."""
    if not _enabled(config) or config.getoption("dist", None) != "load":
        return None
    from pytest_codeif.collection.xdist_scheduling import TaskScheduling

    return TaskScheduling(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each pytest-xdist worker that tasks are split by `TaskScheduling`."""
    config = node.config
    if _enabled(config) and config.getoption("dist", None) == "load":
        node.workerinput["codeif_task_blocks"] = True


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if not _enabled(item.config):
        return
    from pytest_codeif.collection.planning import plan_on_arrival, start
    from pytest_codeif.state import get_state

    state = get_state(item.config)
    if state.plan_on_arrival:
        plan_on_arrival(item, state)
    start(state)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    if not _enabled(item.config):
        return report
    from pytest_codeif.collection.items import CodeifItem, CodeifOutcome
    from pytest_codeif.report.safe_text import MAX_FAILURE, safe_text

    if isinstance(item, CodeifItem):
        if call.excinfo is not None and isinstance(call.excinfo.value, CodeifOutcome):
            # Plain text, so pytest's short summary shows our first line, not a class name;
            # made safe and bounded here, so an xdist worker sends no more than is shown.
            report.longrepr = safe_text(call.excinfo.value.text, MAX_FAILURE)
        decisive = call.when == "call" or (call.when == "setup" and report.failed)
        records = item.outcome_records()
        if decisive and records:
            # Plain built-in types only: pytest-xdist serialises this to the controller.
            # Read back by `report.records.records_of`.
            report.codeif_records = records
    return report


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    if not _enabled(config):
        return None
    from pytest_codeif.state import get_state

    state = get_state(config)
    names = ", ".join(c.name for c in state.registry)
    return [
        f"codeif: {len(state.registry)} checks ({names})",
        f"codeif: sandbox: {state.engine.isolation.describe()}",
    ]

"""The pytest terminal's codeif section: the figures (`report/figures/`) as lines of at
most 80 columns: the summary's tables, constraint decay, answer tasks' figures (strict |
loose), groups side by side, rounds, and what the CI gate left out."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from pytest_codeif.report.figures.answers import (
    MODES,
    OUTCOMES,
    Accuracy,
    AnswerFigures,
    Count,
    StepCounts,
)
from pytest_codeif.report.figures.assertions import AssertionRow, Assertions
from pytest_codeif.report.figures.decay import Decay
from pytest_codeif.report.figures.groups import AtK, Group, at_k_notes, ks_of
from pytest_codeif.report.figures.rounds import Transition
from pytest_codeif.report.figures.summary import Summary, Tally
from pytest_codeif.text import counted

WIDTH = 80
_NAME = 34
#: The groups' tables: row labels, then one column per group.
_LABEL = 26
_COLUMN = 9


def _rate(tally: Tally) -> str:
    return "    -" if tally.rate is None else f"{tally.rate * 100:5.1f}%"


def _row(name: str, tally: Tally) -> str:
    shown = name if len(name) <= _NAME else name[: _NAME - 3] + "..."
    fraction = f"{tally.satisfied}/{tally.total}"
    return (
        f"  {shown:<{_NAME}} {fraction:>11} {_rate(tally):>7} {tally.violated:>9} {tally.errors:>7}"
    )


def _header(title: str) -> str:
    return f"{title:<{_NAME + 2}} {'satisfied':>11} {'rate':>7} {'violated':>9} {'errors':>7}"


def render(summary: Summary, decay: Decay | None = None) -> list[str]:
    """The summary section's lines (without pytest's section rule); with `decay`, the
    constraint-decay table when the data has levels or tasks with different counts."""
    lines: list[str] = []
    if summary.by_check:
        lines.append(_header("by check"))
        lines.extend(_row(name, t) for name, t in sorted(summary.by_check.items()))
        lines.append(_header("by category"))
        lines.extend(_row(name, t) for name, t in sorted(summary.by_category.items()))
    if decay is not None:
        lines.extend(decay_lines(decay))
    if summary.answers is not None:
        lines.extend(answer_lines(summary.answers))
    lines.append(_header("overall"))
    lines.append(_row("constraints", summary.constraints))
    macro = summary.constraints_macro
    if macro.tasks:
        tasks = counted(macro.tasks, "task")
        lines.append(
            f"  {'constraints: mean of tasks (macro)':<{_NAME}} {tasks:>11} {_percent7(macro.rate)}"
        )
    lines.append(_row("tasks: all constraints", summary.tasks_all))
    lines.append(_row("tasks: strict (+ functional tests)", summary.tasks_strict))
    lines.append(_row("functional tests", summary.functional))
    if summary.cases_total:
        lines.append(f"  test cases passed: {summary.cases_passed}/{summary.cases_total}")
    if summary.assertions.shown:
        lines.append(assertion_line(summary.assertions))
    if summary.errors_by_kind:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(summary.errors_by_kind.items()))
        lines.append(f"errors by kind: {kinds}")
    if summary.cached:
        lines.append(f"verdicts reused from the cache: {summary.cached}")
    if summary.lost:
        lines.append(f"lost: {summary.lost} items never reported a verdict (crashed worker)")
    if summary.invalid:
        lines.append(f"invalid task files or tasks: {summary.invalid} (see the errors above)")
    return [line[:WIDTH] for line in lines]


def _percent7(rate: float | None) -> str:
    return f"{'-' if rate is None else f'{rate * 100:.1f}%':>7}"


def assertion_line(found: Assertions) -> str:
    """The assertion pass rate (A%) in one line: pooled (all passed / all assertions),
    the mean of the tasks' own rates, and strict (pooled, a task with a constraint not
    satisfied passing none)."""
    run, strict = found.overall.run, found.overall.strict
    return (
        f"  assertions passed: {run.passed}/{run.total} {_percent(run.rate)}, "
        f"task mean {_percent(run.mean_task_rate)}, strict {_percent(strict.rate)}"
    )


def gate_lines(summary: Summary) -> list[str]:
    """Sentences on what the CI gate's filters left out (none without them)."""
    if summary.gate is None:
        return []
    lines: list[str] = []
    skipped = summary.constraints.skipped
    if summary.gate.changed_only:
        if skipped:  # nothing skipped: nothing to say
            lines.append(f"skipped: {counted(skipped, 'constraint')}, no changed file in scope")
        outside = counted(summary.gate.outside_changes, "finding")
        lines.append(f"not counted: {outside} outside the changed code")
    if summary.gate.recorded:
        lines.append(f"baseline: {counted(summary.gate.recorded, 'finding')} recorded")
    elif summary.gate.baseline:
        absorbed = counted(summary.gate.absorbed, "finding")
        gone = counted(summary.gate.disappeared, "recorded finding")
        lines.append(f"baseline: {absorbed} absorbed, {gone} no longer found")
    return lines


# -- constraint decay ------------------------------------------------------------------

_DECAY_NAME = 26
_DECAY_CELL = 21


def _decay_cell(tally: Tally) -> str:
    rate = "-" if tally.rate is None else f"{tally.rate * 100:.1f}%"
    return f"{tally.satisfied}/{tally.total}".rjust(_DECAY_CELL - 8) + rate.rjust(8)


def decay_lines(found: Decay) -> list[str]:
    """The constraint-decay table (71 columns); none when `found` is not worth one."""
    if not found.shown:
        return []
    head = f"{'constraints satisfied':>{_DECAY_CELL}}   {'tasks: all satisfied':>{_DECAY_CELL}}"
    lines = [f"{'constraint decay':<{_DECAY_NAME}}{head}"]
    rows = [(f"level {lvl}", row) for lvl, row in found.by_level.items()]
    if len(found.by_count) > 1:
        rows += [
            (f"{n} constraint{'s' if n != 1 else ''} per task", row)
            for n, row in found.by_count.items()
        ]
    for name, row in rows:
        shown = name if len(name) <= _DECAY_NAME - 2 else name[: _DECAY_NAME - 5] + "..."
        lines.append(
            f"  {shown:<{_DECAY_NAME - 2}}{_decay_cell(row.constraints)}   {_decay_cell(row.tasks)}"
        )
    return lines


# -- answer tasks ----------------------------------------------------------------------

_ANSWER_LABEL = 42
_ANSWER_CELL = 18
#: Rows listed by step or by instruction; the JSON report has them all.
MAX_ANSWER_ROWS = 30
#: What each class of a step not satisfied is, as its row says.
_OUTCOME_LABELS = {
    "missing": "missing (no answer for the step)",
    "invalid": "invalid (unparsable, type, duplicate)",
    "wrong": "wrong (a valid answer, not expected)",
    "undecided": "undecided (could not be judged)",
}


def _count_cell(count: Count) -> str:
    rate = "-" if count.rate is None else f"{count.rate * 100:.1f}%"
    return f"{count.satisfied}/{count.total}".rjust(_ANSWER_CELL - 7) + rate.rjust(7)


def _answer_row(label: str, cells: Iterable[str]) -> str:
    shown = label if len(label) <= _ANSWER_LABEL else label[: _ANSWER_LABEL - 3] + "..."
    return f"{shown:<{_ANSWER_LABEL}}" + "".join(c.rjust(_ANSWER_CELL) for c in cells)


def _share_cell(part: int, whole: int) -> str:
    rate = "-" if not whole else f"{part / whole * 100:.1f}%"
    return f"{part}".rjust(_ANSWER_CELL - 7) + rate.rjust(7)


def answer_lines(found: AnswerFigures) -> list[str]:
    """The answer tasks' figures, strict | loose (78 columns): prompt-level, micro and
    macro instruction-level accuracy, first-failure depth (mean and distribution), steps
    not satisfied by class (missing, invalid, wrong), by step, by instruction, and the
    difficulty table when tasks have `instructions` and `length` metadata."""
    both = found.overall
    modes: tuple[Accuracy, Accuracy] = (both.strict, both.loose)
    title = f"answers: {counted(found.tasks, 'task')}, {counted(found.steps, 'step')}"
    lines = [_answer_row(title, MODES)]
    lines.append(
        _answer_row("  prompt-level: every step right", (_count_cell(m.prompt) for m in modes))
    )
    lines.append(_answer_row("  steps right (micro)", (_count_cell(m.steps) for m in modes)))
    lines.append(
        _answer_row("  mean of tasks' shares (macro)", (_percent(m.macro.rate) for m in modes))
    )
    lines.append(
        _answer_row(
            "  first-failure depth: mean",
            ("-" if m.depth_mean is None else f"{m.depth_mean:.2f}" for m in modes),
        )
    )
    for outcome in OUTCOMES:
        if outcome == "undecided" and not any(m.outcomes[outcome] for m in modes):
            continue
        cells = (_share_cell(m.outcomes[outcome], m.steps.total) for m in modes)
        lines.append(_answer_row(f"  {_OUTCOME_LABELS[outcome]}", cells))
    for mode, accuracy in zip(MODES, modes, strict=True):
        lines += _wrapped(
            f"  tasks by depth, {mode}: ",
            [f"{d}:{n}" for d, n in accuracy.distribution().items()],
        )
    if len(found.by_step) > 1:
        lines += _step_table("by step", {f"step {k}": v for k, v in found.by_step.items()})
    if found.by_instruction:
        lines += _step_table("by instruction", found.by_instruction)
    lines += _difficulty_lines(found)
    return [line[:WIDTH] for line in lines]


def _wrapped(head: str, parts: list[str]) -> list[str]:
    """`head` then `parts` separated by spaces, continued on indented lines."""
    lines: list[str] = []
    line = head
    for part in parts:
        if len(line) + len(part) + 1 > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = " " * 4
        line += part + " "
    lines.append(line.rstrip())
    return lines


def _step_table(title: str, rows: dict[str, StepCounts]) -> list[str]:
    lines = [_answer_row(title, MODES)]
    for name, counts in list(rows.items())[:MAX_ANSWER_ROWS]:
        lines.append(_answer_row(f"  {name}", (_count_cell(counts.of(m)) for m in MODES)))
    if len(rows) > MAX_ANSWER_ROWS:
        lines.append(f"  ... and {len(rows) - MAX_ANSWER_ROWS} more (see the JSON report)")
    return lines


_DIFFICULTY_KEY = 30
_DIFFICULTY_CELL = 10


def _difficulty_lines(found: AnswerFigures) -> list[str]:
    """Prompt-level and macro accuracy per (instructions, length) cell, strict and loose
    (76 columns)."""
    if not found.difficulty:
        return []
    pair = 2 * _DIFFICULTY_CELL
    lines = [
        f"{'difficulty':<{_DIFFICULTY_KEY}}{'tasks':>6}{'prompt-level':>{pair}}{'macro':>{pair}}",
        f"{'  instructions x length':<{_DIFFICULTY_KEY + 6}}"
        + "".join(f"{mode:>{_DIFFICULTY_CELL}}" for mode in MODES * 2),
    ]
    for (first, second), cell in list(found.difficulty.items())[:MAX_ANSWER_ROWS]:
        name = f"  {first} x {second}"
        shown = name if len(name) <= _DIFFICULTY_KEY - 1 else name[: _DIFFICULTY_KEY - 4] + "..."
        rates = (
            cell.strict.prompt.rate,
            cell.loose.prompt.rate,
            cell.strict.macro.rate,
            cell.loose.macro.rate,
        )
        lines.append(
            f"{shown:<{_DIFFICULTY_KEY}}{cell.strict.tasks:>6}"
            + "".join(f"{_percent(r):>{_DIFFICULTY_CELL}}" for r in rates)
        )
    if len(found.difficulty) > MAX_ANSWER_ROWS:
        more = len(found.difficulty) - MAX_ANSWER_ROWS
        lines.append(f"  ... and {more} more (see the JSON report)")
    return lines


# -- groups and rounds -----------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


#: The groups' rows of the assertion pass rate: pooled, then the mean of the tasks' rates.
_ASSERTION_ROWS: tuple[tuple[str, Callable[[AssertionRow], float | None]], ...] = (
    ("  A%: pooled", lambda row: row.run.rate),
    ("  A%: task mean", lambda row: row.run.mean_task_rate),
    ("  A% strict: pooled", lambda row: row.strict.rate),
    ("  A% strict: task mean", lambda row: row.strict.mean_task_rate),
)


def _group_rows(groups: dict[str, Group]) -> list[tuple[str, list[str]]]:
    """Each row's label and one cell per group."""
    summaries = [g.summary for g in groups.values()]

    def tally_row(label: str, tallies: Iterable[Tally | None]) -> tuple[str, list[str]]:
        return label, ["-" if tally is None else _percent(tally.rate) for tally in tallies]

    rows: list[tuple[str, list[str]]] = []
    checks = sorted({name for s in summaries for name in s.by_check})
    categories = sorted({name for s in summaries for name in s.by_category})
    if checks:
        rows.append(("by check", []))
        rows += [tally_row(f"  {c}", (s.by_check.get(c) for s in summaries)) for c in checks]
        rows.append(("by category", []))
        rows += [tally_row(f"  {c}", (s.by_category.get(c) for s in summaries)) for c in categories]
    rows.append(("overall", []))
    rows.append(tally_row("  constraints", (s.constraints for s in summaries)))
    rows.append(
        ("  constraints: task mean", [_percent(s.constraints_macro.rate) for s in summaries])
    )
    rows.append(tally_row("  tasks: all constraints", (s.tasks_all for s in summaries)))
    rows.append(tally_row("  tasks: strict", (s.tasks_strict for s in summaries)))
    rows.append(tally_row("  functional tests", (s.functional for s in summaries)))
    if any(s.assertions.shown for s in summaries):
        rows += [
            (label, [_percent(pick(s.assertions.overall)) for s in summaries])
            for label, pick in _ASSERTION_ROWS
        ]
    if any(s.answers is not None for s in summaries):
        rows += _answer_group_rows(summaries)
    most = max((g.samples for g in groups.values()), default=0)
    for k in ks_of(groups):
        if k > 1 and k > most:
            break
        if any(g.pass_at.get(k) is not None for g in groups.values()):
            rows.append((f"  pass@{k}", [_percent(g.pass_at.get(k)) for g in groups.values()]))
        if k > 1 and any(g.satisfaction_at.get(k) is not None for g in groups.values()):
            rows.append(
                (
                    f"  satisfaction@{k}",
                    [_percent(g.satisfaction_at.get(k)) for g in groups.values()],
                )
            )
    return rows


def _answer_group_rows(summaries: list[Summary]) -> list[tuple[str, list[str]]]:
    """The answer figures of each group: prompt-level and macro accuracy, mean
    first-failure depth, and the share of steps missing, invalid and wrong, each strict
    and loose (a group without answer tasks: `-`)."""
    figures: list[tuple[str, Callable[[Accuracy], str]]] = [
        ("prompt-level", lambda a: _percent(a.prompt.rate)),
        ("macro", lambda a: _percent(a.macro.rate)),
        ("depth mean", lambda a: "-" if a.depth_mean is None else f"{a.depth_mean:.2f}"),
    ]
    for outcome in OUTCOMES[:3]:
        figures.append((outcome, partial(_outcome_share, outcome)))
    rows: list[tuple[str, list[str]]] = [("answers", [])]
    for name, show in figures:
        for mode in MODES:
            cells = [
                "-" if s.answers is None else show(s.answers.overall.of(mode)) for s in summaries
            ]
            rows.append((f"  {name} {mode}", cells))
    return rows


def _outcome_share(outcome: str, accuracy: Accuracy) -> str:
    """The share of steps of `outcome` (missing, invalid, wrong)."""
    total = accuracy.steps.total
    return _percent(accuracy.outcomes[outcome] / total if total else None)


def group_lines(key: str, groups: dict[str, Group], at_k: AtK | None = None) -> list[str]:
    """Tables of at most 80 columns, one column per group; more groups than fit in one
    table continue in the next. Long group names are numbered, with a legend. Then the
    rule the @k figures follow, and why a k is not given (`at_k_notes`)."""
    names = list(groups)
    fits = all(len(n) <= _COLUMN - 1 for n in names)
    headers = names if fits else [f"[{i}]" for i in range(1, len(names) + 1)]
    lines = [f"by {key}: {len(names)} group{'s' if len(names) != 1 else ''}"]
    if not fits:
        lines += [f"  [{i}] {name}" for i, name in enumerate(names, start=1)]
    rows = _group_rows(groups)
    per_table = max(1, (WIDTH - _LABEL) // _COLUMN)
    for start in range(0, len(names), per_table):
        chunk = range(start, min(start + per_table, len(names)))
        head = "".join(f"{headers[i]:>{_COLUMN}}" for i in chunk)
        lines.append(f"{key[:_LABEL]:<{_LABEL}}{head}")
        for label, cells in rows:
            shown = label if len(label) <= _LABEL - 1 else label[: _LABEL - 4] + "..."
            body = "".join(f"{cells[i]:>{_COLUMN}}" for i in chunk) if cells else ""
            lines.append(f"{shown:<{_LABEL}}{body}".rstrip())
    lines += at_k_notes(groups, at_k or AtK(), WIDTH)
    return [line[:WIDTH] for line in lines]


def round_lines(key: str, found: list[Transition]) -> list[str]:
    """One line per pair of rounds, within 80 columns; nothing when no constraint is
    judged in two of them (groups that are not rounds: models, files)."""
    if not any(t.compared for t in found):
        return []
    lines = [f"by {key}: what each {key} fixed and broke (constraints judged in both)"]
    for t in found:
        step = f"{t.before} -> {t.after}"
        lines.append(
            f"  {step[:30]:<30} fixed {t.fixed:>6}  broke {t.broke:>6}  of {t.compared:>7}"
        )
    return [line[:80] for line in lines]

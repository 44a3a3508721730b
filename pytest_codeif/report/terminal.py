"""The pytest terminal's codeif section: the figures (`report/figures/`) as lines of at
most 80 columns: the summary's tables, constraint decay, groups side by side, rounds, and
what the CI gate left out."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pytest_codeif.report.figures.assertions import AssertionRow, Assertions
from pytest_codeif.report.figures.decay import Decay
from pytest_codeif.report.figures.groups import KS, Group
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
    lines.append(_header("overall"))
    lines.append(_row("constraints", summary.constraints))
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
    rows.append(tally_row("  tasks: all constraints", (s.tasks_all for s in summaries)))
    rows.append(tally_row("  tasks: strict", (s.tasks_strict for s in summaries)))
    rows.append(tally_row("  functional tests", (s.functional for s in summaries)))
    if any(s.assertions.shown for s in summaries):
        rows += [
            (label, [_percent(pick(s.assertions.overall)) for s in summaries])
            for label, pick in _ASSERTION_ROWS
        ]
    most = max((g.samples for g in groups.values()), default=0)
    for k in KS:
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


def group_lines(key: str, groups: dict[str, Group]) -> list[str]:
    """Tables of at most 80 columns, one column per group; more groups than fit in one
    table continue in the next. Long group names are numbered, with a legend."""
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

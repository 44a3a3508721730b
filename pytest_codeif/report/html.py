"""The HTML report (`codeif report REPORT.json -o report.html`): one page a reader can
use on its own: the summary tables, a group x category heatmap, the constraint-decay
curves, the rounds chart, and every violation with its code, the offending lines marked.

Everything a report holds was written by, or shaped by, code under evaluation (the code,
messages, task ids, metadata), so every piece of text is escaped and the page has no
script at all. Its CSS and SVG plots are inline: nothing is fetched when it is viewed.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from html import escape
from pathlib import Path
from typing import Any, Final

from pytest_codeif.records import CodeEntry, Record, is_outcome
from pytest_codeif.report import html_plots
from pytest_codeif.report.figures.answers import (
    MODES,
    OUTCOMES,
    Accuracy,
    AnswerFigures,
    Count,
    StepCounts,
)
from pytest_codeif.report.figures.assertions import AssertionRate, AssertionRow, counts
from pytest_codeif.report.figures.decay import Decay, decay
from pytest_codeif.report.figures.groups import (
    NO_GROUP,
    RULES,
    AtK,
    Group,
    by_group,
    group_named,
    natural_order,
)
from pytest_codeif.report.figures.means import TaskMean
from pytest_codeif.report.figures.rounds import transitions
from pytest_codeif.report.figures.summary import Summary, Tally, summarize
from pytest_codeif.report.html_code import CodeSources, excerpts
from pytest_codeif.report.json_report import records_of
from pytest_codeif.report.safe_text import safe_text
from pytest_codeif.text import head_tail

#: `--group-by file`: the task file, unless the tasks' metadata has a `file` key.
BY_FILE: Final = "file"
ROUND: Final = "round"
#: Bounds that keep a page readable.
MAX_EVIDENCE: Final = 20
MAX_FAILED_CASES: Final = 5
MAX_MESSAGE_CHARS: Final = 500
MAX_ERRORS_LISTED: Final = 500
MAX_METADATA: Final = 10
MAX_VALUE_CHARS: Final = 120
MAX_HEADER_CHARS: Final = 28


def _e(value: object) -> str:
    """Text (or an attribute value) made inert: made data by `safe_text` (no control or
    bidi character reorders what a reader sees), then `<`, `>`, `&` and both quotes
    escaped."""
    return escape(safe_text(str(value)), quote=True)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Grouping:
    """What the page's columns and series are: a metadata key, or the task file."""

    key: str
    by_file: bool

    def of(self, record: Record) -> str:
        return self.of_task(record["file"], record.get("metadata") if is_outcome(record) else None)

    def of_task(self, file: str, metadata: Mapping[str, object] | None) -> str:
        """The group of a task of `file` and `metadata`."""
        return file if self.by_file else group_named(metadata, self.key)

    @property
    def title(self) -> str:
        return "task file" if self.by_file else self.key


def choose_grouping(report: dict[str, Any], requested: str | None) -> Grouping:
    """`requested`, else the report's `--codeif-group-by` key, else `model` when tasks
    have one, else the task file."""
    keys = {key for task in report["tasks"] for key in task.get("metadata") or {}}
    key = requested or (report.get("groups") or {}).get("key")
    if key is None:
        key = "model" if "model" in keys else BY_FILE
    return Grouping(str(key), by_file=key == BY_FILE and BY_FILE not in keys)


def _split(records: Iterable[Record], grouping: Grouping) -> dict[str, list[Record]]:
    split: dict[str, list[Record]] = {}
    for record in records:
        split.setdefault(grouping.of(record), []).append(record)
    return {
        name: split[name] for name in sorted(split, key=lambda g: (g == NO_GROUP, natural_order(g)))
    }


def _groups(records: list[Record], grouping: Grouping, at_k: AtK) -> dict[str, Group]:
    """Each group's summary (with pass@k where grouped by a metadata key)."""
    if not grouping.by_file:
        return by_group(records, grouping.key, at_k)
    return {name: Group(summarize(part)) for name, part in _split(records, grouping).items()}


def _shade(rate: float | None) -> str:
    """A light background for a rate, on the plots' red (0) to blue (1) scale."""
    if rate is None:
        return "#f2f2f2"
    stops = ((0.0, (244, 165, 130)), (0.5, (255, 255, 200)), (1.0, (146, 197, 222)))
    for (low, c0), (high, c1) in itertools.pairwise(stops):
        if rate <= high:
            t = (rate - low) / (high - low)
            red, green, blue = (round(a + (b - a) * t) for a, b in zip(c0, c1, strict=True))
            return f"rgb({red},{green},{blue})"
    return "rgb(146,197,222)"


def _pct(rate: float | None) -> str:
    return "&ndash;" if rate is None else f"{rate * 100:.1f}%"


def _tally_cell(tally: Tally | None) -> str:
    if tally is None or not tally.total:
        return '<td class="na">&ndash;</td>'
    title = (
        f"{tally.satisfied} of {tally.total} satisfied; {tally.violated} violated, "
        f"{tally.errors} could not be decided"
    )
    return (
        f'<td class="rate" style="background:{_shade(tally.rate)}" title="{title}">'
        f"{_pct(tally.rate)}<small>{tally.satisfied}/{tally.total}</small></td>"
    )


def _head(first: str, names: Sequence[str]) -> str:
    cells = "".join(
        f'<th title="{_e(name)}">{_e(_cut(name, MAX_HEADER_CHARS))}</th>' for name in names
    )
    return f"<thead><tr><th>{_e(first)}</th>{cells}</tr></thead>"


def _rate_table(
    first: str,
    rows: Sequence[tuple[str, Sequence[Tally | None]]],
    columns: Sequence[str],
    css: str = "rates",
    *,
    extra: str = "",
) -> str:
    """A table of rates, one row per (name, cells); `extra`: rows already made."""
    body = _tally_rows(rows) + extra
    return (
        f'<div class="scroll"><table class="{css}">{_head(first, columns)}'
        f"<tbody>{body}</tbody></table></div>"
    )


def _tally_rows(rows: Sequence[tuple[str, Sequence[Tally | None]]]) -> str:
    return "".join(
        f"<tr><th>{_e(name)}</th>{''.join(_tally_cell(t) for t in cells)}</tr>"
        for name, cells in rows
    )


def _mean_cell(mean: TaskMean | None) -> str:
    """A mean of tasks' shares, with the number of tasks it is over."""
    if mean is None or mean.rate is None:
        return '<td class="na">&ndash;</td>'
    tasks = f"{mean.tasks} task{'s' if mean.tasks != 1 else ''}"
    return (
        f'<td class="rate" style="background:{_shade(mean.rate)}" title="mean over {tasks}">'
        f"{_pct(mean.rate)}<small>{tasks}</small></td>"
    )


def _columns(groups: dict[str, Group]) -> list[str]:
    return ["all", *groups] if len(groups) > 1 else ["all"]


def _summaries(overall: Summary, groups: dict[str, Group]) -> list[Summary]:
    return [overall, *(g.summary for g in groups.values())] if len(groups) > 1 else [overall]


def _summary_section(
    overall: Summary, groups: dict[str, Group], grouping: Grouping, at_k: AtK
) -> str:
    columns = _columns(groups)
    summaries = _summaries(overall, groups)

    def row(name: str, pick: Callable[[Summary], Tally | None]) -> tuple[str, list[Tally | None]]:
        return name, [pick(s) for s in summaries]

    rows = [
        row("tasks: all constraints (HSR)", lambda s: s.tasks_all),
        row("tasks: strict (+ functional tests)", lambda s: s.tasks_strict),
    ]
    if overall.functional.total:
        rows.append(row("functional tests passed", lambda s: s.functional))
    # The pooled rate, then the mean of the tasks' shares beside it.
    macro = "".join(_mean_cell(s.constraints_macro) for s in summaries)
    extra = f"<tr><th>constraints: mean of tasks' shares (macro)</th>{macro}</tr>"
    extra += _tally_rows(rows)
    if overall.assertions.shown:
        extra += _assertion_rows([s.assertions.overall for s in summaries])
    parts = ['<section id="summary"><h2>Summary</h2>']
    per = f"One column per {_e(grouping.title)} ({len(groups)}). " if len(groups) > 1 else ""
    parts.append(
        f'<p class="note">{per}SSR: constraints satisfied, of all judged (micro: a task '
        "weighs by its constraints); macro: the mean of each task's share of satisfied "
        "constraints (PACIFIC's instruction-level accuracy: every task weighs the same); "
        "HSR: tasks with every constraint satisfied; strict: and every functional test "
        "passed. A constraint that could not be decided counts as not satisfied."
        + (f" {ASSERTION_NOTE}" if overall.assertions.shown else "")
        + "</p>"
    )
    ssr = [row("constraints satisfied (SSR)", lambda s: s.constraints)]
    parts.append(_rate_table("overall", ssr, columns, extra=extra))
    parts.append(_at_k(groups, at_k))
    categories = sorted({c for s in summaries for c in s.by_category})
    if categories:
        parts.append("<h3>By category</h3>")
        cat_rows = [(c, [s.by_category.get(c) for s in summaries]) for c in categories]
        parts.append(_rate_table("category", cat_rows, columns))
    checks = sorted({c for s in summaries for c in s.by_check})
    if checks:
        parts.append("<h3>By check</h3>")
        check_rows = [(c, [s.by_check.get(c) for s in summaries]) for c in checks]
        parts.append(_rate_table("check", check_rows, columns))
    parts.append(_error_counts(overall))
    parts.append("</section>")
    return "".join(parts)


def _at_k(groups: dict[str, Group], at_k: AtK) -> str:
    """pass@k and satisfaction@k per group, where a task has several samples; the rule
    they follow, and why a k is not given."""
    rows: list[str] = []
    most = max((g.samples for g in groups.values()), default=0)
    if most < 2:
        return ""
    for k in sorted({k for g in groups.values() for k in g.pass_at}):
        for name, pick in (("pass", "pass_at"), ("satisfaction", "satisfaction_at")):
            values = [getattr(g, pick).get(k) for g in groups.values()]
            if any(v is not None for v in values):
                cells = "".join(
                    f'<td class="rate" style="background:{_shade(v)}">{_pct(v)}</td>'
                    for v in values
                )
                rows.append(f"<tr><th>{name}@{k}</th>{cells}</tr>")
    if not rows:
        return ""
    notes = "".join(
        f"<li>{_e(name)}: {_e(figure)}: {_e(why)}</li>"
        for name, group in groups.items()
        for figure, why in group.notes.items()
    )
    return (
        "<h3>Samples: pass@k and satisfaction@k</h3>"
        '<p class="note">The unbiased estimator (Chen et al. 2021), '
        f"{_e(RULES[at_k.rule])}.</p>"
        f'<div class="scroll"><table class="rates">{_head("k", list(groups))}'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        + (f'<ul class="note">{notes}</ul>' if notes else "")
    )


def _error_counts(summary: Summary) -> str:
    notes: list[str] = []
    if summary.errors_by_kind:
        kinds = ", ".join(f"{_e(k)} {n}" for k, n in sorted(summary.errors_by_kind.items()))
        notes.append(f"Could not be decided (counted as not satisfied), by kind: {kinds}.")
    if summary.invalid:
        notes.append(f"Invalid task files or tasks: {summary.invalid}.")
    if summary.lost:
        notes.append(f"Items whose verdict never arrived: {summary.lost}.")
    return "".join(f'<p class="note">{n}</p>' for n in notes)


def _heatmap_section(groups: dict[str, Group], overall: Summary, grouping: Grouping) -> str:
    names = list(groups) if len(groups) > 1 else ["all"]
    summaries = [g.summary for g in groups.values()] if len(groups) > 1 else [overall]
    categories = sorted({c for s in summaries for c in s.by_category})
    if not categories:
        return ""
    rates = [
        [None if (t := s.by_category.get(c)) is None else t.rate for c in categories]
        for s in summaries
    ]
    svg = html_plots.heatmap(names, categories, rates)
    return (
        '<section id="heatmap"><h2>Constraint satisfaction: '
        f"{_e(grouping.title)} &times; category</h2>"
        '<p class="note">Satisfied constraints of each category, per '
        f"{_e(grouping.title)}; grey: none of that category.</p>"
        f'<figure class="plot">{svg}</figure></section>'
    )


def _decay_section(records: list[Record], groups: dict[str, list[Record]]) -> str:
    overall = decay(records)
    head = '<section id="decay"><h2>Constraint decay</h2>'
    if not overall.shown:
        return (
            f'{head}<p class="note">No constraint has a level, and every task has the same '
            "number of constraints: there is no decay to show.</p></section>"
        )
    per_group = {name: decay(part) for name, part in groups.items()} if len(groups) > 1 else {}
    series_of = per_group or {"all": overall}
    panels: list[html_plots.Panel] = []
    if overall.by_level:
        levels = list(overall.by_level)
        panels.append(
            html_plots.Panel(
                "by level",
                "level (a task's highest)",
                [str(lvl) for lvl in levels],
                {name: _task_rates(d.by_level, levels) for name, d in series_of.items()},
                ylabel="tasks: all satisfied",
            )
        )
    if len(overall.by_count) > 1:
        counts = list(overall.by_count)
        panels.append(
            html_plots.Panel(
                "by number of constraints",
                "constraints in the task",
                [str(n) for n in counts],
                {name: _task_rates(d.by_count, counts) for name, d in series_of.items()},
                ylabel="tasks: all satisfied",
            )
        )
    svg = html_plots.curves(panels, "decay")
    return (
        f'{head}<p class="note">Satisfaction as constraints stack up. A constraint counts '
        "under its own level, a task under its highest level.</p>"
        f'<figure class="plot">{svg}</figure>{_decay_table(overall, per_group)}</section>'
    )


def _task_rates(rows: dict[int, Any], keys: Sequence[int]) -> list[float | None]:
    return [rows[k].tasks.rate if k in rows else None for k in keys]


def _decay_table(overall: Decay, per_group: dict[str, Decay]) -> str:
    columns = ["constraints satisfied", "tasks: all satisfied"]
    columns += [f"tasks: {name}" for name in per_group]
    rows: list[tuple[str, list[Tally | None]]] = []
    for by_level in (True, False):
        keys = overall.by_level if by_level else overall.by_count
        if not by_level and len(keys) < 2:
            continue
        for key, row in keys.items():
            cells: list[Tally | None] = [row.constraints, row.tasks]
            for found in per_group.values():
                other = (found.by_level if by_level else found.by_count).get(key)
                cells.append(None if other is None else other.tasks)
            rows.append((f"level {key}" if by_level else f"{key} per task", cells))
    return _rate_table("", rows, columns)


def _rounds_section(
    records: list[Record], groups: dict[str, list[Record]], grouping: Grouping
) -> str:
    rounds = _split(records, Grouping(ROUND, by_file=False))
    rounds.pop(NO_GROUP, None)
    if not rounds:
        return ""
    names = list(rounds)
    series: dict[str, list[float | None]] = {}
    if grouping.key == ROUND or len(groups) < 2:
        series["all"] = [summarize(part).constraints.rate for part in rounds.values()]
    else:
        for name, part in groups.items():
            by_round = _split(part, Grouping(ROUND, by_file=False))
            series[name] = [
                summarize(by_round[r]).constraints.rate if r in by_round else None for r in names
            ]
    panel = html_plots.Panel("per round", "round", names, series, ylabel="constraints satisfied")
    svg = html_plots.curves([panel], "rounds")
    changes = {t.after: t for t in transitions(records, ROUND)}
    body: list[str] = []
    for name, part in rounds.items():
        found = summarize(part)
        step = changes.get(name)
        moved = (
            f"<td>+{step.fixed} / &minus;{step.broke} <small>of {step.compared}</small></td>"
            if step is not None and step.compared
            else '<td class="na">&ndash;</td>'
        )
        body.append(
            f"<tr><th>{_e(name)}</th>{_tally_cell(found.constraints)}"
            f"{_tally_cell(found.tasks_all)}{moved}</tr>"
        )
    table = (
        '<div class="scroll"><table class="rates">'
        f"{_head('round', ['constraints satisfied', 'tasks: all constraints', 'fixed / broke'])}"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    return (
        '<section id="rounds"><h2>Rounds</h2><p class="note">Satisfaction per value of the '
        "<code>round</code> metadata; fixed / broke: constraints of the same task, model "
        "and sample that changed since the round before.</p>"
        f'<figure class="plot">{svg}</figure>{table}</section>'
    )


# -- the assertion pass rate (A%) ----------------------------------------------------------

ASSERTION_NOTE: Final = (
    "A%: functional assertions passed (each test case is one; a Newman assertion is one "
    "case), pooled (all passed over all assertions: a task weighs by its assertions) or "
    "the mean of each task's own rate (every task weighs the same); strict: a task with "
    "a constraint not satisfied counts as none of its assertions passed (Constraint "
    "Decay's rule)."
)


def _as_run(row: AssertionRow) -> AssertionRate:
    return row.run


def _strict(row: AssertionRow) -> AssertionRate:
    return row.strict


#: The rows of the assertion pass rate: label, which figures (as run or strict), and
#: whether the mean of the tasks' rates (else pooled).
ASSERTION_FIGURES: Final[tuple[tuple[str, Callable[[AssertionRow], AssertionRate], bool], ...]] = (
    ("assertions passed, A% (pooled)", _as_run, False),
    ("A%: mean of the tasks' rates", _as_run, True),
    ("A% strict (pooled)", _strict, False),
    ("A% strict: mean of the tasks' rates", _strict, True),
)
#: Tasks listed with their own assertions (the JSON report has them all).
MAX_TASKS_LISTED: Final = 2_000


def _figure_cell(rate: AssertionRate | None, mean: bool) -> str:
    """A pooled rate with its passed/total, or a mean of tasks' rates with its tasks."""
    value = None if rate is None else rate.mean_task_rate if mean else rate.rate
    if rate is None or value is None:
        return '<td class="na">&ndash;</td>'
    tasks = f"{rate.tasks} task{'s' if rate.tasks != 1 else ''}"
    shown = tasks if mean else f"{rate.passed}/{rate.total}"
    title = f"{rate.passed} of {rate.total} assertions passed, {tasks}"
    return (
        f'<td class="rate" style="background:{_shade(value)}" title="{title}">'
        f"{_pct(value)}<small>{shown}</small></td>"
    )


def _assertion_rows(columns: Sequence[AssertionRow | None]) -> str:
    """Table rows of ASSERTION_FIGURES, a cell per column (None: no such figures)."""
    return "".join(
        f"<tr><th>{_e(name)}</th>"
        + "".join(_figure_cell(None if c is None else pick(c), mean) for c in columns)
        + "</tr>"
        for name, pick, mean in ASSERTION_FIGURES
    )


def _assertions_section(
    report: dict[str, Any], overall: Summary, groups: dict[str, Group], grouping: Grouping
) -> str:
    """A% by level (a curve per group, pooled, as run and strict; a table of every
    figure) and each task's own assertions; nothing without functional tests."""
    if not overall.assertions.shown:
        return ""
    found = {name: g.summary.assertions for name, g in groups.items()}
    parts = [
        '<section id="assertions"><h2>Assertion pass rate (A%)</h2>',
        f'<p class="note">{ASSERTION_NOTE} By level, a task counts under its highest '
        "constraint level.</p>",
    ]
    levels = list(overall.assertions.by_level)
    if levels:
        panels = [
            html_plots.Panel(
                title,
                "level (a task's highest)",
                [str(lvl) for lvl in levels],
                {
                    name: [
                        None if (row := a.by_level.get(lvl)) is None else pick(row).rate
                        for lvl in levels
                    ]
                    for name, a in found.items()
                },
                ylabel="assertions passed",
            )
            for title, pick in (
                ("A% by level (pooled)", _as_run),
                ("A% strict by level (pooled)", _strict),
            )
        ]
        parts.append(f'<figure class="plot">{html_plots.curves(panels, "assertions")}</figure>')
        rows = _assertion_rows([overall.assertions.by_level[lvl] for lvl in levels])
        columns = [f"level {lvl}" for lvl in levels]
        parts.append(
            f'<div class="scroll"><table class="rates">{_head("", columns)}'
            f"<tbody>{rows}</tbody></table></div>"
        )
    parts.append(_task_assertions(report, grouping, grouped=len(groups) > 1))
    parts.append("</section>")
    return "".join(parts)


def _task_assertions(report: dict[str, Any], grouping: Grouping, *, grouped: bool) -> str:
    """Each task with functional tests: its assertions passed, as run and strict."""
    rows: list[str] = []
    tested = [t for t in report["tasks"] if t.get("functional")]
    for task in tested[:MAX_TASKS_LISTED]:
        passed, total = counts(task["functional"])
        zeroed = any(c.get("status") not in ("satisfied", "skipped") for c in task["constraints"])
        rate = passed / total if total else None
        strict = (0 if zeroed else passed) / total if total else None
        group = grouping.of_task(task["file"], task.get("metadata") or {})
        rows.append(
            f"<tr><td>{_e(task['id'])}</td><td>{_e(task['file'])}</td>"
            + (f"<td>{_e(_cut(group, MAX_HEADER_CHARS))}</td>" if grouped else "")
            + f'<td class="rate">{passed}/{total}</td>'
            f'<td class="rate" style="background:{_shade(rate)}">{_pct(rate)}</td>'
            f'<td class="rate" style="background:{_shade(strict)}">{_pct(strict)}</td></tr>'
        )
    more = len(tested) - MAX_TASKS_LISTED
    tail = f'<p class="note">… and {more} more (see the JSON report).</p>' if more > 0 else ""
    group_head = f"<th>{_e(grouping.title)}</th>" if grouped else ""
    return (
        f"<details><summary>Each task's assertions ({len(tested)} tasks with functional "
        'tests)</summary><div class="scroll"><table class="errors"><thead><tr><th>task</th>'
        f"<th>file</th>{group_head}<th>passed</th><th>A%</th><th>A% strict</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>{tail}</details>"
    )


# -- answer tasks ----------------------------------------------------------------------

ANSWERS_NOTE: Final = (
    "Answer tasks: each step of a chain is one answer, judged by the strict parse of its "
    "tags and literal and by the loose one, side by side. Prompt-level: tasks with every "
    "step right; micro: steps right of all steps; macro: the mean of each task's share "
    "of steps right (PACIFIC's instruction-level accuracy); first-failure depth: the "
    "steps right from step 1 before the first that is not (SIFO). A step not right is "
    "missing (no answer), invalid (unparsable, of another type, or given twice) or "
    "wrong, counted apart; none of these is an error. Undecided: no answer could be "
    "judged (an unreadable response)."
)
#: Rows listed by step, by instruction, by difficulty (the JSON report has them all).
MAX_ANSWER_ROWS: Final = 200


def _count_cell(count: Count | None) -> str:
    if count is None or not count.total:
        return '<td class="na">&ndash;</td>'
    return (
        f'<td class="rate" style="background:{_shade(count.rate)}" '
        f'title="{count.satisfied} of {count.total}">'
        f"{_pct(count.rate)}<small>{count.satisfied}/{count.total}</small></td>"
    )


def _share_cell(part: int, whole: int) -> str:
    """A count of steps with its share of all (no shade: fewer is better)."""
    if not whole:
        return '<td class="na">&ndash;</td>'
    return f'<td class="rate">{_pct(part / whole)}<small>{part} of {whole}</small></td>'


def _plain_cell(text: str) -> str:
    return f'<td class="rate">{_e(text)}</td>'


def _answer_figure_rows(columns: Sequence[tuple[Accuracy | None, Accuracy | None]]) -> str:
    """The overall figures, one row per figure and mode, a cell per (strict, loose)
    pair of `columns`."""
    figures: list[tuple[str, Callable[[Accuracy], str]]] = [
        ("prompt-level accuracy", lambda a: _count_cell(a.prompt)),
        ("instruction-level, micro (steps right)", lambda a: _count_cell(a.steps)),
        ("instruction-level, macro (mean of tasks)", lambda a: _mean_cell(a.macro)),
        (
            "first-failure depth: mean",
            lambda a: _plain_cell("-" if a.depth_mean is None else f"{a.depth_mean:.2f}"),
        ),
    ]
    for outcome in OUTCOMES:
        figures.append((f"steps {outcome}", partial(_outcome_cell, outcome)))
    rows: list[str] = []
    undecided = any(a is not None and a.outcomes["undecided"] for pair in columns for a in pair)
    for name, cell in figures:
        if name == "steps undecided" and not undecided:
            continue  # a row of zeros: the tool judged every step
        for index, mode in enumerate(MODES):
            picked = [pair[index] for pair in columns]
            cells = "".join('<td class="na">&ndash;</td>' if a is None else cell(a) for a in picked)
            rows.append(f"<tr><th>{_e(name)}, {mode}</th>{cells}</tr>")
    return "".join(rows)


def _outcome_cell(outcome: str, accuracy: Accuracy) -> str:
    return _share_cell(accuracy.outcomes[outcome], accuracy.steps.total)


def _answers_section(overall: Summary, groups: dict[str, Group], grouping: Grouping) -> str:
    """The answer tasks' figures, strict and loose: per group, by step (a curve per
    group), by instruction, the first-failure depths, and the difficulty table (with a
    heatmap); nothing without answer tasks."""
    found = overall.answers
    if found is None:
        return ""
    summaries = _summaries(overall, groups)
    columns = _columns(groups)
    pairs = [
        (None, None) if s.answers is None else (s.answers.overall.strict, s.answers.overall.loose)
        for s in summaries
    ]
    parts = [
        '<section id="answers"><h2>Answer tasks</h2>',
        f'<p class="note">{ANSWERS_NOTE} {found.tasks} tasks, {found.steps} steps.</p>',
        f'<div class="scroll"><table class="rates">{_head("", columns)}'
        f"<tbody>{_answer_figure_rows(pairs)}</tbody></table></div>",
    ]
    named = {name: g.summary.answers for name, g in groups.items() if g.summary.answers is not None}
    series = named if len(named) > 1 else {"all": found}
    positions = list(found.by_step)
    if len(positions) > 1:
        panels = [
            html_plots.Panel(
                f"accuracy by step ({mode})",
                "step",
                [str(p) for p in positions],
                {
                    name: [
                        None if (c := a.by_step.get(p)) is None else c.of(mode).rate
                        for p in positions
                    ]
                    for name, a in series.items()
                },
                ylabel="steps right",
            )
            for mode in MODES
        ]
        parts.append(f'<figure class="plot">{html_plots.curves(panels, "answers")}</figure>')
        parts.append("<h3>By step</h3>")
        parts.append(_counts_table("step", {f"step {p}": c for p, c in found.by_step.items()}))
    if found.by_instruction:
        parts.append("<h3>By instruction</h3>")
        parts.append(_counts_table("instruction", found.by_instruction))
    parts.append(_depth_table(found.overall.strict, found.overall.loose))
    parts.append(_difficulty(found))
    parts.append("</section>")
    return "".join(parts)


def _counts_table(first: str, rows: Mapping[str, StepCounts]) -> str:
    """Rows of strict and loose counts (`StepCounts`), at most MAX_ANSWER_ROWS."""
    body = "".join(
        f"<tr><th>{_e(name)}</th>{''.join(_count_cell(counts.of(m)) for m in MODES)}</tr>"
        for name, counts in list(rows.items())[:MAX_ANSWER_ROWS]
    )
    more = len(rows) - MAX_ANSWER_ROWS
    tail = f'<p class="note">… and {more} more (see the JSON report).</p>' if more > 0 else ""
    return (
        f'<div class="scroll"><table class="rates">{_head(first, list(MODES))}'
        f"<tbody>{body}</tbody></table></div>{tail}"
    )


def _depth_table(strict: Accuracy, loose: Accuracy) -> str:
    """Tasks at each first-failure depth, strict and loose."""
    deepest = max(len(strict.distribution()), len(loose.distribution()))
    body = "".join(
        f"<tr><th>{depth}</th>"
        + "".join(_share_cell(a.depths.get(depth, 0), a.tasks) for a in (strict, loose))
        + "</tr>"
        for depth in range(deepest)
    )
    return (
        "<h3>First-failure depth</h3>"
        '<p class="note">Tasks by the number of steps right from step 1 before the first '
        "that is not.</p>"
        f'<div class="scroll"><table class="rates">{_head("depth", list(MODES))}'
        f"<tbody>{body}</tbody></table></div>"
    )


def _difficulty(found: AnswerFigures) -> str:
    """Prompt-level and macro accuracy per `instructions` x `length` cell, and a heatmap
    of the strict prompt-level accuracy; nothing unless tasks have both keys."""
    if not found.difficulty:
        return ""
    cells = list(found.difficulty.items())
    body = "".join(
        f'<tr><th>{_e(first)} &times; {_e(second)}</th><td class="rate">{cell.strict.tasks}</td>'
        f"{_count_cell(cell.strict.prompt)}{_count_cell(cell.loose.prompt)}"
        f"{_mean_cell(cell.strict.macro)}{_mean_cell(cell.loose.macro)}</tr>"
        for (first, second), cell in cells[:MAX_ANSWER_ROWS]
    )
    more = len(cells) - MAX_ANSWER_ROWS
    tail = f'<p class="note">… and {more} more (see the JSON report).</p>' if more > 0 else ""
    heads = [
        "tasks",
        "prompt-level, strict",
        "prompt-level, loose",
        "macro, strict",
        "macro, loose",
    ]
    rows = list(dict.fromkeys(str(first) for (first, _), _ in cells))
    columns = list(dict.fromkeys(str(second) for (_, second), _ in cells))
    grid: dict[tuple[str, str], float | None] = {
        (str(a), str(b)): cell.strict.prompt.rate for (a, b), cell in cells
    }
    rates = [[grid.get((r, c)) for c in columns] for r in rows]
    svg = html_plots.heatmap(
        [f"{r} instructions" for r in rows], [f"length {c}" for c in columns], rates
    )
    return (
        "<h3>Difficulty: instructions &times; length</h3>"
        '<p class="note">By the tasks\' <code>instructions</code> and <code>length</code> '
        "metadata; the heatmap: prompt-level accuracy, strict.</p>"
        f'<figure class="plot">{svg}</figure>'
        f'<div class="scroll"><table class="rates">{_head("instructions x length", heads)}'
        f"<tbody>{body}</tbody></table></div>{tail}"
    )


def _where(evidence: dict[str, Any]) -> str:
    where = str(evidence.get("path") or "")
    if evidence.get("line"):
        where += f":{evidence['line']}"
        if evidence.get("column"):
            where += f":{evidence['column']}"
    return where


def _in_code(evidence: dict[str, Any]) -> str:
    line = evidence.get("code_line")
    if not line or evidence.get("code_path") is None:
        return ""
    at = f"{evidence['code_path']} line {line}"
    if evidence.get("code_column"):
        at += f", column {evidence['code_column']}"
    return f' <span class="incode">(code: {_e(at)})</span>'


def _evidence_list(outcome: dict[str, Any], limit: int = MAX_EVIDENCE) -> str:
    evidence = outcome.get("evidence") or []
    items = [
        f"<li><code>{_e(_where(ev))}</code> "
        + (
            f'<span class="rule">[{_e(ev.get("rule"))}]</span> '
            if ev.get("rule") and ev.get("rule") != outcome.get("check")
            else ""
        )
        + f"{_e(head_tail(str(ev.get('message', '')), MAX_MESSAGE_CHARS))}{_in_code(ev)}</li>"
        for ev in evidence[:limit]
    ]
    if len(evidence) > limit:
        items.append(f"<li>&hellip; and {len(evidence) - limit} more</li>")
    return f'<ul class="evidence">{"".join(items)}</ul>' if items else ""


def _metadata(task: dict[str, Any], grouping: Grouping) -> str:
    """The task's metadata but the group's key (its heading says it)."""
    metadata = task.get("metadata") or {}
    shown = [(k, v) for k, v in metadata.items() if grouping.by_file or k != grouping.key]
    chips = [
        f'<span class="chip">{_e(_cut(str(k), 40))}: {_e(_cut(str(v), MAX_VALUE_CHARS))}</span>'
        for k, v in shown[:MAX_METADATA]
        if isinstance(v, (str, int, float, bool)) or v is None
    ]
    return f'<p class="meta">{"".join(chips)}</p>' if chips else ""


def _code_origin(code: CodeEntry | None) -> str:
    if not code:
        return ""
    if "paths" in code:
        total = int(code.get("paths_total") or 0)
        first = ", ".join(str(p) for p in code["paths"][:3])
        more = f" and {total - 3} more" if total > 3 else ""
        return f'<p class="origin">code: {_e(first)}{_e(more)}</p>'
    at = str(code.get("origin", ""))
    if code.get("origin_line"):
        at += f":{code['origin_line']}"
    note = f" — {code['note']}" if code.get("note") else ""
    return f'<p class="origin">code: {_e(code.get("kind", ""))} from {_e(at)}{_e(note)}</p>'


def _outcome_block(outcome: dict[str, Any], code: CodeEntry | None, sources: CodeSources) -> str:
    title = str(outcome.get("constraint", ""))
    what = f"{outcome.get('check', '')} · {outcome.get('category', '')}"
    if outcome.get("level") is not None:
        what += f" · level {outcome['level']}"
    parts = [
        f'<div class="violation"><h5>{_e(title)} <span class="check">{_e(what)}</span></h5>',
        _evidence_list(outcome),
    ]
    if outcome.get("message"):
        parts.append(f'<p class="todo">What to do: {_e(outcome["message"])}</p>')
    for note in (outcome.get("notes") or [])[:5]:
        parts.append(f'<p class="note">{_e(_cut(str(note), 400))}</p>')
    parts.append(excerpts(code, outcome.get("evidence") or [], sources))
    parts.append("</div>")
    return "".join(parts)


def _violated_by_group(
    report: dict[str, Any], grouping: Grouping, functional: bool
) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Tasks with a violated constraint (or failed tests), by group in natural order,
    each with its `violated` outcomes; and how many outcomes that is."""
    found: dict[str, list[dict[str, Any]]] = {}
    count = 0
    for task in report["tasks"]:
        outcomes = [task["functional"]] if functional and task["functional"] else []
        if not functional:
            outcomes = task["constraints"]
        violated = [o for o in outcomes if o.get("status") == "violated"]
        if violated:
            count += len(violated)
            group = grouping.of_task(task["file"], task.get("metadata") or {})
            found.setdefault(group, []).append({**task, "violated": violated})
    ordered = sorted(found, key=lambda g: (g == NO_GROUP, natural_order(g)))
    return {name: found[name] for name in ordered}, count


def _group_index(anchor: str, groups: dict[str, list[dict[str, Any]]]) -> str:
    links = "".join(
        f'<a href="#{anchor}-{i}">{_e(_cut(name, MAX_HEADER_CHARS))} ({len(tasks)})</a>'
        for i, (name, tasks) in enumerate(groups.items())
    )
    return f'<p class="index">{links}</p>' if len(groups) > 1 else ""


def _group_heading(anchor: str, index: int, grouping: Grouping, name: str, tasks: int) -> str:
    return (
        f'<h3 class="group" id="{anchor}-{index}">{_e(grouping.title)}: {_e(name)} '
        f'<span class="count">{tasks} task{"s" if tasks != 1 else ""}</span></h3>'
    )


def _violations_section(report: dict[str, Any], grouping: Grouping, sources: CodeSources) -> str:
    """Every violated constraint: its evidence, what to do, and its code, lines marked."""
    groups, count = _violated_by_group(report, grouping, functional=False)
    head = f'<section id="violations"><h2>Constraint violations ({count})</h2>'
    if not count:
        return f'{head}<p class="note">No constraint was violated.</p></section>'
    parts = [head, _group_index("v", groups)]
    for index, (name, tasks) in enumerate(groups.items()):
        if len(groups) > 1:
            parts.append(_group_heading("v", index, grouping, name, len(tasks)))
        for task in tasks:
            parts.append(
                f'<article class="task"><h4>{_e(task["id"])} '
                f'<span class="file">{_e(task["file"])}</span></h4>'
                f"{_metadata(task, grouping)}{_code_origin(task.get('code'))}"
            )
            parts.extend(_outcome_block(o, task.get("code"), sources) for o in task["violated"])
            parts.append("</article>")
    parts.append("</section>")
    return "".join(parts)


def _failed_tests_section(report: dict[str, Any], grouping: Grouping) -> str:
    """Tasks whose functional tests failed: one folded line each, its first failures
    inside (the test cases are lines of the task file, not of the code)."""
    groups, count = _violated_by_group(report, grouping, functional=True)
    if not count:
        return ""
    parts = [
        f'<section id="tests"><h2>Failed functional tests ({count} tasks)</h2>',
        _group_index("f", groups),
    ]
    for index, (name, tasks) in enumerate(groups.items()):
        if len(groups) > 1:
            parts.append(_group_heading("f", index, grouping, name, len(tasks)))
        for task in tasks:
            (outcome,) = task["violated"]
            cases = len(outcome.get("cases") or [])
            passed = outcome.get("cases_passed", 0)
            done, total = counts(outcome)
            rate = f", A% {_pct(done / total)}" if total else ""
            parts.append(
                f'<details class="tests"><summary><b>{_e(task["id"])}</b> '
                f'<span class="file">{_e(task["file"])}</span> '
                f'<span class="check">{_e(passed)} of {cases} cases passed{rate}</span>'
                "</summary>"
                f"{_evidence_list(outcome, limit=MAX_FAILED_CASES)}</details>"
            )
    parts.append("</section>")
    return "".join(parts)


def _errors_section(records: list[Record]) -> str:
    errors = [r for r in records if r.get("status") == "error"]
    if not errors:
        return ""
    rows = []
    for record in errors[:MAX_ERRORS_LISTED]:
        item = str(record.get("constraint") or record.get("kind") or "")
        rows.append(
            f"<tr><td>{_e(record.get('task', ''))}</td><td>{_e(item)}</td>"
            f"<td>{_e(record.get('error_kind') or '')}</td>"
            f"<td>{_e(head_tail(str(record.get('error') or ''), 300))}</td></tr>"
        )
    more = len(errors) - MAX_ERRORS_LISTED
    tail = f'<p class="note">… and {more} more (see the JSON report).</p>' if more > 0 else ""
    return (
        f'<section id="errors"><h2>Could not be decided ({len(errors)})</h2>'
        "<details><summary>Each item that could not be decided, and why</summary>"
        '<div class="scroll"><table class="errors"><thead><tr><th>task</th><th>item</th>'
        f"<th>kind</th><th>why</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"{tail}</details></section>"
    )


def _header(report: dict[str, Any], overall: Summary, grouping: Grouping, groups: int) -> str:
    versions = ", ".join(
        f"{_e(k)} {_e(v)}" for k, v in sorted((report.get("tool_versions") or {}).items())
    )
    warning = (
        ""
        if report.get("complete", True)
        else '<p class="warning">This run did not finish: the report holds what did.</p>'
    )
    return (
        "<header><h1>pytest-codeif report</h1>"
        f"<p>{len(report['tasks'])} tasks · {overall.constraints.total} constraints · "
        f"{groups} {_e(grouping.title)} group{'s' if groups != 1 else ''} · created "
        f"{_e(report.get('created', ''))} · exit status {_e(report.get('exit_status', ''))}</p>"
        f'<p class="versions">{versions}</p>{warning}</header>'
    )


_NAV: Final = (
    ("summary", "Summary"),
    ("heatmap", "Heatmap"),
    ("decay", "Decay"),
    ("rounds", "Rounds"),
    ("assertions", "A%"),
    ("answers", "Answers"),
    ("violations", "Violations"),
    ("tests", "Failed tests"),
    ("errors", "Errors"),
)

STYLE: Final = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#1f2328;background:#f6f7f9}
header{background:#1f3b5c;color:#fff;padding:18px 32px}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:2px 0}
header .versions{font-size:12px;opacity:.8}
.warning{background:#fff3cd;color:#5c4400;padding:6px 10px;border-radius:4px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;
padding:6px 32px;z-index:1}
nav a{margin-right:18px;color:#1f3b5c;text-decoration:none;font-weight:600}
main{max-width:1200px;margin:0 auto;padding:8px 32px 48px}
section{margin-top:26px}
h2{font-size:19px;border-bottom:2px solid #1f3b5c;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}
thead th{background:#eef1f4;font-size:12px;max-width:160px;overflow-wrap:anywhere}
tbody th{text-align:left;font-weight:500;white-space:nowrap}
td.rate{text-align:right;white-space:nowrap;min-width:72px}
td small{display:block;color:#4a5560;font-size:11px}
td.na{color:#999;text-align:center}
.note{color:#4a5560;font-size:13px}
figure.plot{margin:8px 0;background:#fff;border:1px solid #d0d7de;padding:8px;
overflow-x:auto}
figure.plot svg{max-width:100%;height:auto}
h3.group{background:#e8eef5;padding:6px 10px;border-radius:4px;margin-top:28px}
.count{font-weight:400;color:#4a5560;font-size:13px}
article.task{background:#fff;border:1px solid #d0d7de;border-radius:6px;
padding:8px 14px;margin:10px 0}
article.task h4{margin:4px 0;font-size:15px;overflow-wrap:anywhere}
.file{font-weight:400;color:#4a5560;font-size:12px;margin-left:8px}
.meta{margin:2px 0}
.chip{display:inline-block;background:#eef1f4;border-radius:10px;padding:0 8px;
margin:2px 4px 2px 0;font-size:12px;overflow-wrap:anywhere}
.origin{font-size:12px;color:#4a5560;margin:2px 0;overflow-wrap:anywhere}
.violation{border-left:3px solid #c0392b;padding:2px 0 2px 10px;margin:10px 0}
.violation h5{margin:2px 0;font-size:14px}
.check{font-weight:400;color:#4a5560;font-size:12px;margin-left:6px}
ul.evidence{margin:4px 0;padding-left:20px}
ul.evidence li{overflow-wrap:anywhere}
.rule{color:#8250df}
.incode{color:#4a5560;font-size:12px}
.todo{margin:4px 0;font-style:italic}
table.code{width:100%;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
border:1px solid #d0d7de}
table.code td{border:none;padding:0 8px}
table.code td.ln{width:1%;text-align:right;color:#8c959f;white-space:nowrap;
border-right:1px solid #eaeef2;user-select:none}
table.code td.src{white-space:pre}
table.code tr.hit{background:#ffe3e0}
table.code tr.hit td.ln{color:#b42318;font-weight:700}
table.code tr.gap td{color:#8c959f;background:#f6f8fa}
.at{text-decoration:underline wavy #b42318}
p.file{font:12px ui-monospace,monospace;margin:6px 0 0}
p.index a{display:inline-block;margin:2px 14px 2px 0;color:#1f3b5c}
details.tests{background:#fff;border:1px solid #d0d7de;border-radius:4px;
padding:4px 10px;margin:4px 0}
details.tests summary{cursor:pointer;overflow-wrap:anywhere}
table.rates tbody th{min-width:220px}
table.rates td.rate{width:108px}
table.errors td{font-size:12px;overflow-wrap:anywhere}
"""


def build_page(
    report: dict[str, Any], *, group_by: str | None = None, root: Path | None = None
) -> str:
    """The page for `report` (a JSON report as `report.schema.json` describes it), its
    plots drawn by matplotlib (see `html_plots.require`). `root` is the folder the
    report's paths are relative to (pytest's rootdir), for excerpts of `file:` and
    `directory:` code; None: no such excerpt."""
    records = records_of(report)
    grouping = choose_grouping(report, group_by)
    overall = summarize(records)
    at_k = AtK.from_dict((report.get("groups") or {}).get("at_k"))
    groups = _groups(records, grouping, at_k)
    split = _split(records, grouping)
    body = [
        _summary_section(overall, groups, grouping, at_k),
        _heatmap_section(groups, overall, grouping),
        _decay_section(records, split),
        _rounds_section(records, split, grouping),
        _assertions_section(report, overall, groups, grouping),
        _answers_section(overall, groups, grouping),
        _violations_section(report, grouping, CodeSources(root)),
        _failed_tests_section(report, grouping),
        _errors_section(records),
    ]
    present = "".join(body)
    nav = "".join(
        f'<a href="#{anchor}">{title}</a>'
        for anchor, title in _NAV
        if f'<section id="{anchor}">' in present
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No script, nothing fetched: the page's own policy says so to the browser too.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>pytest-codeif report</title><style>{STYLE}</style></head><body>"
        f"{_header(report, overall, grouping, len(groups))}<nav>{nav}</nav>"
        f"<main>{present}</main></body></html>\n"
    )


def write_page(path: Path, page: str) -> None:
    """Write `page` to `path`; the file appears whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(page)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the page from readers
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

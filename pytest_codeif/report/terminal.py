"""Render a `Summary` as lines of at most 80 columns for the pytest terminal."""

from __future__ import annotations

from pytest_codeif.report.decay import Decay
from pytest_codeif.report.decay import render as render_decay
from pytest_codeif.report.summary import Summary, Tally

WIDTH = 80
_NAME = 34


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
        lines.extend(render_decay(decay))
    lines.append(_header("overall"))
    lines.append(_row("constraints", summary.constraints))
    lines.append(_row("tasks: all constraints", summary.tasks_all))
    lines.append(_row("tasks: strict (+ functional tests)", summary.tasks_strict))
    lines.append(_row("functional tests", summary.functional))
    if summary.cases_total:
        lines.append(f"  test cases passed: {summary.cases_passed}/{summary.cases_total}")
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

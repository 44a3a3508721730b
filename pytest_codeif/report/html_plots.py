"""The HTML report's plots: matplotlib figures rendered as SVG, inlined in the page.

matplotlib (the `report` extra) draws offline, with no JavaScript, into SVG the page
embeds, so the page needs no network when it is viewed. Text stays text (`svg.fonttype`
none: small and searchable) and matplotlib escapes it; math parsing is off, since labels
are names from the report (a model called `$x$` is a name, not a formula). Figures are
made without pyplot, so nothing global is touched, and their ids are salted with the
figure's name, so the same report gives the same page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL: Final = "pip install 'pytest-codeif[report]'"
#: Longest label drawn; longer names are cut (the tables show them whole).
MAX_LABEL: Final = 32
#: Colour map of rates, red (0%) to blue (100%): diverging, readable with red-green
#: colour blindness, and the same in every plot and table of the page.
CMAP: Final = "RdYlBu"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


class MissingExtra(Exception):
    """matplotlib is not installed: the page cannot be drawn."""


def require() -> None:
    """Raise `MissingExtra` (saying what to install) when matplotlib is absent."""
    try:
        import matplotlib  # noqa: F401, PLC0415 - only `codeif report` needs it
    except ModuleNotFoundError as exc:
        if exc.name != "matplotlib":
            raise MissingExtra(f"matplotlib cannot be imported ({exc}): {INSTALL}") from None
        raise MissingExtra(
            f"the HTML report draws its plots with matplotlib, which is not installed: {INSTALL}"
        ) from None
    except ImportError as exc:  # installed, but broken
        raise MissingExtra(f"matplotlib cannot be imported ({exc}): {INSTALL}") from None


def label(name: str) -> str:
    """`name` as a plot label: one line, at most MAX_LABEL characters, and never hidden
    (matplotlib leaves legend entries starting with `_` out), and text its fonts can
    encode (a lone surrogate from a JSON report stopped FreeType: shown as `?`)."""
    text = _CONTROL.sub(" ", name).encode("utf-8", "replace").decode("utf-8")
    if len(text) > MAX_LABEL:
        text = text[: MAX_LABEL - 1] + "…"
    return " " + text if text.startswith("_") else text


@contextmanager
def _style(salt: str) -> Iterator[None]:
    import matplotlib as mpl  # noqa: PLC0415 - the extra is imported only when drawing

    with mpl.rc_context(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": salt,
            "text.parse_math": False,
            "font.size": 9,
            "font.family": "sans-serif",
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        yield


def _svg(figure: Figure) -> str:
    """The figure as an `<svg>` element (no XML prolog: it sits inside HTML)."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    # The RDF metadata (creator, format) says nothing a reader needs.
    return _METADATA.sub("", text[text.index("<svg") :])


def heatmap(rows: Sequence[str], columns: Sequence[str], rates: Sequence[Sequence[Any]]) -> str:
    """Rows x columns of rates (0..1, None: no data), each cell coloured and labelled."""
    from matplotlib import colormaps  # noqa: PLC0415
    from matplotlib.colors import ListedColormap  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415

    with _style("heatmap"):
        width = min(16.0, 2.6 + 0.75 * len(columns))
        height = min(20.0, 1.4 + 0.34 * len(rows))
        figure = Figure(figsize=(width, height), layout="constrained")
        axes = figure.add_subplot()
        # The scale's darkest ends left out: numbers stay readable on every cell.
        full = colormaps[CMAP]
        cmap = ListedColormap([full(0.08 + 0.84 * i / 255) for i in range(256)])
        grid = [[float("nan") if r is None else float(r) for r in row] for row in rates]
        axes.imshow(grid, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for y, row in enumerate(rates):
            for x, rate in enumerate(row):
                if rate is None:
                    axes.text(x, y, "\u2013", ha="center", va="center", color="#888888")
                    continue
                red, green, blue, _ = cmap(float(rate))
                light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.55
                axes.text(
                    x,
                    y,
                    f"{rate * 100:.0f}%",
                    ha="center",
                    va="center",
                    color="#1a1a1a" if light else "white",
                )
        axes.set_xticks(range(len(columns)), [label(c) for c in columns])
        axes.set_yticks(range(len(rows)), [label(r) for r in rows])
        axes.tick_params(axis="x", labelrotation=30, length=0)
        axes.tick_params(axis="y", length=0)
        for tick in axes.get_xticklabels():
            tick.set_horizontalalignment("right")
        axes.set_facecolor("#eeeeee")
        for side in axes.spines.values():
            side.set_visible(False)
        return _svg(figure)


@dataclass
class Panel:
    """One chart: x positions labelled, a line per series (None: no point there)."""

    title: str
    xlabel: str
    xs: list[str]
    series: dict[str, list[float | None]] = field(default_factory=dict)
    ylabel: str = "satisfied"


def curves(panels: Sequence[Panel], salt: str) -> str:
    """Panels side by side, rates in percent, one line (with markers) per series."""
    from matplotlib.figure import Figure  # noqa: PLC0415

    with _style(salt):
        figure = Figure(figsize=(4.6 * len(panels) + 1.6, 3.2), layout="constrained")
        axes_list = figure.subplots(1, len(panels), squeeze=False)[0]
        legend: dict[tuple[int, str], Any] = {}
        for axes, panel in zip(axes_list, panels, strict=True):
            positions = list(range(len(panel.xs)))
            # A series keeps its colour in every panel, whichever of them it has points in.
            for index, (name, values) in enumerate(panel.series.items()):
                points = [
                    (x, v * 100) for x, v in zip(positions, values, strict=True) if v is not None
                ]
                if not points:
                    continue
                (line,) = axes.plot(
                    [p[0] for p in points],
                    [p[1] for p in points],
                    color=f"C{index % 10}",
                    linestyle=("-", "--", ":")[index // 10 % 3],
                    marker="o",
                    linewidth=1.6,
                    markersize=4,
                )
                legend.setdefault((index, label(name)), line)
            axes.set_title(panel.title, loc="left", fontsize=10)
            axes.set_xticks(positions, [label(x) for x in panel.xs])
            axes.set_xlabel(panel.xlabel)
            axes.set_ylabel(f"{panel.ylabel} (%)")
            axes.set_ylim(-3, 103)
            if len(positions) == 1:
                axes.set_xlim(-0.5, 0.5)
            axes.grid(axis="y", color="#dddddd", linewidth=0.6)
        if len(legend) > 1:  # in the series' order, whichever panel drew them first
            keys = sorted(legend)
            figure.legend(
                [legend[k] for k in keys],
                [name for _, name in keys],
                loc="outside right upper",
                frameon=False,
            )
        return _svg(figure)

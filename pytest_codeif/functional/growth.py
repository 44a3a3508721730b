"""Fit measured growth to a complexity class, in the trusted process.

The slope of log(cost) against log(n), by least squares, estimates the polynomial degree:
~0 for O(1) and O(log n), ~1 for O(n) and O(n log n) (a log factor adds about 0.1-0.2 over
a 16x range of sizes), ~2 for O(n^2). Cost is judged against a required class by degree,
with half a degree of tolerance: measurements tell degrees apart, not log factors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: Canonical class -> its polynomial degree (exponential: infinite).
CLASSES: Final = {
    "O(1)": 0.0,
    "O(log n)": 0.0,
    "O(n)": 1.0,
    "O(n log n)": 1.0,
    "O(n^2)": 2.0,
    "O(n^2 log n)": 2.0,
    "O(n^3)": 3.0,
    "O(2^n)": math.inf,
}
TOLERANCE: Final = 0.5
#: Costs below these are noise (timer resolution, allocator slack): treated as constant.
FLOOR: Final = {"time": 1e-6, "space": 4096.0}


def canonical(text: str) -> str:
    """`O(N*log(N))`, `O(n log n)`, `O(nlogn)` all give `O(n log n)`; ValueError if unknown."""
    t = text.strip().lower().replace(" ", "").replace("*", "").replace("·", "")
    t = t.replace("log(n)", "logn").replace("²", "^2").replace("³", "^3").replace("**", "^")
    table = {
        "o(1)": "O(1)",
        "o(logn)": "O(log n)",
        "o(n)": "O(n)",
        "o(nlogn)": "O(n log n)",
        "o(n^2)": "O(n^2)",
        "o(n2)": "O(n^2)",
        "o(n^2logn)": "O(n^2 log n)",
        "o(n^3)": "O(n^3)",
        "o(n3)": "O(n^3)",
        "o(2^n)": "O(2^n)",
    }
    # Anything else in the text (`O(n!)`, `O(n/2)`) is a class this table does not hold.
    found = table.get(t) if re.fullmatch(r"[a-z0-9()^]+", t) else None
    if found is None:
        raise ValueError(
            f"{text!r} is not a complexity class this check knows ({', '.join(CLASSES)})"
        )
    return found


@dataclass(frozen=True)
class Fit:
    """The measured slope and the class it reads as."""

    slope: float
    reads_as: str


def fit(sizes: Sequence[int], costs: Sequence[float], measure: str) -> Fit:
    """Least-squares slope of log(cost) on log(size)."""
    floor = FLOOR[measure]
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(c, floor)) for c in costs]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread
    degree = max(0, round(slope))
    names = {0: "O(1) or O(log n)", 1: "O(n) or O(n log n)", 2: "O(n^2)", 3: "O(n^3)"}
    return Fit(slope, names.get(degree, f"O(n^{degree}) or worse"))


def within(measured: Fit, required: str) -> bool:
    """Whether growth of `measured` is at most the `required` class (by degree)."""
    return measured.slope <= CLASSES[required] + TOLERANCE

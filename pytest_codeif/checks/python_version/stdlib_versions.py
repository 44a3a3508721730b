"""When standard-library modules and module members appeared, read from typeshed (the
stubs mypy ships): its `VERSIONS` file for modules, `sys.version_info` guards in the
stubs for members. Data lookup only: nothing is type-checked here."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import libcst as cst

from pytest_codeif.checks.shared.typeshed import typeshed_stdlib

Version = tuple[int, int]
#: (first version with it, last version with it); None = unbounded.
Span = tuple[Version | None, Version | None]


def _version(text: str) -> Version | None:
    text = text.strip()
    if not text:
        return None
    major, minor = text.split(".")
    return int(major), int(minor)


@cache
def module_spans() -> dict[str, Span]:
    """Standard-library module name -> its version span (typeshed's VERSIONS)."""
    folder = typeshed_stdlib()
    spans: dict[str, Span] = {}
    if folder is None:
        return spans
    for raw in (folder / "VERSIONS").read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        name, span = line.split(":", 1)
        low, _, high = span.strip().partition("-")
        spans[name.strip()] = (_version(low), _version(high))
    return spans


def module_span(dotted: str) -> tuple[str, Span] | None:
    """`dotted` or its closest parent listed in VERSIONS, with its span; None if not
    standard library."""
    spans = module_spans()
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        listed = ".".join(parts[:end])
        span = spans.get(listed)
        if span is not None:
            return listed, span
    return None


def _guard(test: cst.BaseExpression) -> tuple[str, Version] | None:
    """`sys.version_info >= (3, 12)` -> (">=", (3, 12)); None for any other test."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    left, comparison = test.left, test.comparisons[0]
    if not (
        isinstance(left, cst.Attribute)
        and left.attr.value == "version_info"
        and isinstance(comparison.comparator, cst.Tuple)
    ):
        return None
    numbers = [e.value for e in comparison.comparator.elements]
    if len(numbers) < 2 or not all(isinstance(n, cst.Integer) for n in numbers[:2]):
        return None
    version = (int(numbers[0].value), int(numbers[1].value))  # type: ignore[attr-defined]
    operator = {cst.GreaterThanEqual: ">=", cst.LessThan: "<"}.get(type(comparison.operator))
    return (operator, version) if operator else None


def _names(statement: cst.BaseStatement | cst.BaseSmallStatement) -> list[str]:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return [statement.name.value]
    if isinstance(statement, cst.SimpleStatementLine):
        found: list[str] = []
        for small in statement.body:
            if isinstance(small, cst.Assign):
                found += [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                found.append(small.target.value)
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    if alias.asname and isinstance(alias.asname.name, cst.Name):
                        found.append(alias.asname.name.value)
        return found
    return []


def _narrow(span: Span, low: Version | None = None, high: Version | None = None) -> Span:
    """`span` cut to versions from `low` and up to `high`."""
    lo, hi = span
    if low is not None:
        lo = max(lo, low) if lo else low
    if high is not None:
        hi = min(hi, high) if hi else high
    return lo, hi


def _branches(statement: cst.If) -> list[cst.BaseStatement]:
    """The statements of every branch of an `if` (its `elif`s and `else` included)."""
    found: list[cst.BaseStatement] = []
    current: cst.If | cst.Else | None = statement
    while current is not None:
        if isinstance(current.body, cst.IndentedBlock):
            found += current.body.body
        current = current.orelse if isinstance(current, cst.If) else None
    return found


def _collect(
    body: Sequence[cst.BaseStatement],
    span: Span,
    out: dict[str, list[Span]],
) -> None:
    for statement in body:
        if isinstance(statement, cst.If):
            guard = _guard(statement.test)
            if guard is None:
                # A platform test (`sys.platform != "win32"`): both branches hold members
                # of the enclosing versions (`os.process_cpu_count` is defined so).
                _collect(_branches(statement), span, out)
                continue
            operator, version = guard
            before = (version[0], version[1] - 1)  # `< (3, 12)`: the last version is 3.11
            newer, older = _narrow(span, low=version), _narrow(span, high=before)
            inner, other = (newer, older) if operator == ">=" else (older, newer)
            if isinstance(statement.body, cst.IndentedBlock):
                _collect(statement.body.body, inner, out)
            # The `else` (or `elif`) branch holds what the other versions have.
            orelse = statement.orelse
            if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
                _collect(orelse.body.body, other, out)
            elif isinstance(orelse, cst.If):
                _collect([orelse], other, out)
            continue
        for name in _names(statement):
            out.setdefault(name, []).append(span)


@cache
def member_spans(module: str) -> dict[str, Span]:
    """Member name -> version span, for members of stdlib `module` that typeshed guards
    by version (members it defines unguarded are left out)."""
    folder = typeshed_stdlib()
    if folder is None:
        return {}
    base = folder.joinpath(*module.split("."))
    for stub in (base.with_suffix(".pyi"), base / "__init__.pyi"):
        if stub.is_file():
            break
    else:
        return {}
    try:
        tree = cst.parse_module(stub.read_text(encoding="utf-8"))
    except (OSError, cst.ParserSyntaxError):
        return {}
    found: dict[str, list[Span]] = {}
    _collect(tree.body, (None, None), found)
    spans: dict[str, Span] = {}
    for name, options in found.items():
        if (None, None) in options:
            continue  # defined for every version somewhere
        lows = [low for low, _ in options]
        highs = [high for _, high in options]
        spans[name] = (
            None if None in lows else min(v for v in lows if v),
            None if None in highs else max(v for v in highs if v),
        )
    return spans


def available(span: Span, target: Version) -> str | None:
    """Why something with `span` is unavailable on `target`, or None when available."""
    low, high = span
    if low is not None and target < low:
        return f"added in Python {low[0]}.{low[1]}"
    if high is not None and target > high:
        return f"removed after Python {high[0]}.{high[1]}"
    return None

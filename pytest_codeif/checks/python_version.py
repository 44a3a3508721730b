"""The `python-version` check: the code runs on a target Python version."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.stdlib_versions import (
    Version,
    available,
    member_spans,
    module_span,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.tools import RuffConfig, ToolConfig

_RULE = "python-version"
RUFF_OLDEST: Final = (3, 7)
#: The newest target ruff 0.17 accepts (its error lists py37 to py315); newer targets are
#: judged against it, and the report says so.
RUFF_NEWEST: Final = (3, 15)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def stdlib_uses(module: ParsedModule) -> Iterable[tuple[str, cst.CSTNode]]:
    """(dotted name, node) of each imported module and each `module.member` used."""
    for node in module.walk():
        if isinstance(node, cst.Import):
            for alias in node.names:
                yield _dotted(alias.name), node
        elif isinstance(node, cst.ImportFrom):
            if node.relative or node.module is None:
                continue
            base = _dotted(node.module)
            yield base, node
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    yield f"{base}.{_dotted(alias.name)}", node
        elif isinstance(node, cst.Attribute):
            for name in module.qualified(node):
                if not name.startswith("builtins."):
                    yield name, node


def version_problem(name: str, target: Version) -> str | None:
    """Why stdlib `name` (a module or `module.member`) is unavailable on `target`."""
    head, _, member = name.rpartition(".")
    if head and module_span(head) is not None:
        span = member_spans(head).get(member)
        if span is not None and (reason := available(span, target)):
            return f"`{name}` was {reason}"
    listed = module_span(name)
    if listed is not None and (reason := available(listed[1], target)):
        return f"module `{listed[0]}` was {reason}"
    return None


class PythonVersionCheck(Check):
    """The code runs on a target Python version: its syntax and its standard library.

    Why: "must run on Python 3.8" rules out `match`, `except*`, `type X = ...`,
    parenthesised context managers, `tomllib`, `itertools.batched`... How it decides:
    syntax by ruff's version-aware parser (`target-version`); standard-library modules
    by typeshed's VERSIONS table (added and removed modules: `tomllib` needs 3.11,
    `distutils` is gone after 3.11); module members used as `module.member` or imported
    with `from module import member` by typeshed's `sys.version_info` guards. Limits:
    methods of objects (`"ab".removeprefix`) are not judged, and typeshed keeps guards only
    for versions it still supports, so members added before about 3.9 pass unnoticed.
    Code the running Python cannot parse is undecidable (a syntax error) rather than judged.
    ruff knows targets 3.7 to 3.15, so syntax for a target outside is judged against the
    nearest of them (the report notes it).

    Options: `version` (required, e.g. "3.8").

    Example:

        - check: python-version
          version: "3.8"
    """

    name = "python-version"
    category = "Environment"
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["version"],
        "properties": {"version": {"type": "string", "pattern": "^3\\.[0-9]{1,2}$"}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("import math\n\ndef f(a, b):\n    return math.gcd(a, b)\n", {"version": "3.8"}),
        # typeshed defines json.load in both branches of a version guard
        Sample("import json, os\n\nos.makedirs('d')\njson.loads('1')\n", {"version": "3.10"}),
        Sample(
            "import tomllib\n\ndef f(x):\n    match x:\n        case 1:\n            return 1\n",
            {"version": "3.12"},
        ),
    )
    violated_by = (
        Sample(
            "def f(x):\n    match x:\n        case 1:\n            return 1\n",
            {"version": "3.8"},
        ),
        Sample("import tomllib\n", {"version": "3.10"}),
        Sample("from itertools import batched\n", {"version": "3.11"}),
        Sample("import itertools\n\nitertools.batched([1, 2], 1)\n", {"version": "3.10"}),
        Sample("import distutils\n", {"version": "3.12"}),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        major, minor = str(options["version"]).split(".")
        self.target: Version = (int(major), int(minor))
        # ruff's oldest target is 3.7: older targets get their syntax judged against 3.7.
        self.syntax_target = min(max(self.target, RUFF_OLDEST), RUFF_NEWEST)
        # No rule selected: ruff then reports only syntax errors, which (the code having
        # parsed under the running Python) are the version-dependent ones.
        self.ruff = RuffConfig.from_mapping(
            {"lint.select": [], "target-version": "py{}{}".format(*self.syntax_target)}
        )

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.ruff,)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        if self.syntax_target != self.target:
            ctx.notes.append(
                "syntax judged against Python {}.{}, the nearest version ruff knows".format(
                    *self.syntax_target
                )
            )
        findings = [
            Finding(f.message, _RULE, f.path, f.line, f.column)
            for f in ctx.ruff(self.ruff)
            if f.rule == "invalid-syntax"
        ]
        for module in ctx.modules():
            seen: set[str] = set()
            for name, node in stdlib_uses(module):
                if name in seen:
                    continue
                seen.add(name)
                problem = version_problem(name, self.target)
                if problem:
                    findings.append(
                        Finding(
                            f"{problem} (target {self.options['version']})",
                            _RULE,
                            module.relpath,
                            module.line_of(node),
                        )
                    )
        return findings

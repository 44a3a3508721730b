"""The `calls` check: named APIs are (or are not) called, resolved through imports."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, Finding, Sample
from pytest_codeif.checks.structure import scopes
from pytest_codeif.engine.context import CheckContext
from pytest_codeif.engine.cst import ParsedModule

_RULE = "calls"
_NAMES = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"},
    "minItems": 1,
}


def call_sites(module: ParsedModule, scope: cst.CSTNode) -> Iterator[tuple[set[str], cst.CSTNode]]:
    """(qualified names, node) of each call and each decorator in `scope`.

    A bare decorator (`@lru_cache`) is a call of that name, so it counts.
    """
    for node in module.walk(scope):
        if isinstance(node, cst.Call):
            yield module.qualified(node.func), node
        elif isinstance(node, cst.Decorator) and not isinstance(node.decorator, cst.Call):
            yield module.qualified(node.decorator), node


def matches(qualified: set[str], wanted: str) -> bool:
    """`wanted` is a dotted name; a bare name also matches the builtin of that name."""
    return wanted in qualified or (("." not in wanted) and f"builtins.{wanted}" in qualified)


class CallsCheck(Check):
    """Required functions are called and forbidden ones are not, resolved through imports.

    Why: "memoise with functools.lru_cache", "don't use eval", "sort with sorted()":
    the name is resolved however it was imported (`from functools import lru_cache as
    lc`, `import functools as ft; ft.lru_cache`), so renaming an import neither hides a
    forbidden call nor fakes a required one. A decorator counts as a call. Bare names
    (`sorted`, `eval`) mean the builtins.

    Options: `require`, `forbid` (lists of dotted names; at least one), `function`
    (only look inside this function).

    Example:

        - check: calls
          require: [functools.lru_cache]
          forbid: [eval, exec]
    """

    name = "calls"
    category = "Environment"
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [{"required": ["require"]}, {"required": ["forbid"]}],
        "properties": {"require": _NAMES, "forbid": _NAMES, "function": {"type": "string"}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "import functools as ft\n\n@ft.lru_cache(maxsize=None)\ndef f(n):\n    return n\n",
            {"require": ["functools.lru_cache"]},
        ),
        Sample(
            "from functools import lru_cache as memo\n\n@memo\ndef f(n):\n    return n\n",
            {"require": ["functools.lru_cache"], "forbid": ["eval"]},
        ),
    )
    violated_by = (
        Sample("def f(n):\n    return n\n", {"require": ["functools.lru_cache"]}),
        Sample("from builtins import eval as e\n\ne('1')\n", {"forbid": ["eval"]}),
        Sample(
            "def g():\n    return sorted([2, 1])\n\ndef f():\n    return [1]\n",
            {"require": ["sorted"], "function": "f"},
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        places = scopes(ctx, self.options.get("function"), _RULE)
        if isinstance(places, Finding):
            return [places]
        sites = [(names, m, site) for m, node in places for names, site in call_sites(m, node)]
        findings: list[Finding] = []
        where = self.options.get("function")
        scope_text = f" in `{where}`" if where else ""
        for wanted in self.options.get("require", []):
            if not any(matches(names, wanted) for names, _, _ in sites):
                path, node = places[0][0].relpath, places[0][1]
                line = places[0][0].line_of(node) if where else 1
                findings.append(
                    Finding(f"`{wanted}` is never called{scope_text}", _RULE, path, line)
                )
        for banned in self.options.get("forbid", []):
            findings.extend(
                Finding(
                    f"calls `{banned}`{scope_text}, which is forbidden",
                    _RULE,
                    module.relpath,
                    module.line_of(site),
                )
                for names, module, site in sites
                if matches(names, banned)
            )
        return findings

"""The `context` check: code written into a given context keeps and uses its symbols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.call_sites import call_sites
from pytest_codeif.checks.shared.option_code import parse_option_code


def _params(node: cst.FunctionDef) -> list[str]:
    p = node.params
    names = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    if isinstance(p.star_arg, cst.Param):
        names.append("*" + p.star_arg.name.value)
    if p.star_kwarg is not None:
        names.append("**" + p.star_kwarg.name.value)
    return names


def top_level_signatures(tree: cst.Module) -> dict[str, list[str] | None]:
    """Top-level function name -> parameter names; class name (and `Class.method`) too
    (a class maps to None)."""
    found: dict[str, list[str] | None] = {}
    for statement in tree.body:
        if isinstance(statement, cst.FunctionDef):
            found[statement.name.value] = _params(statement)
        elif isinstance(statement, cst.ClassDef):
            found[statement.name.value] = None
            for item in statement.body.body:
                if isinstance(item, cst.FunctionDef):
                    found[f"{statement.name.value}.{item.name.value}"] = _params(item)
    return found


_RULE = "context"


def _used_names(ctx: CheckContext) -> set[str]:
    """What the code calls: plain names (`read`, `Graph`) and, as `.name`, methods
    (`graph.get_neighbors(...)` gives `.get_neighbors`)."""
    used: set[str] = set()
    for module in ctx.modules():
        for _, method, node in call_sites(module, module.tree):
            if method:
                used.add(f".{method}")
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                used.add(node.func.value)
            elif isinstance(node, cst.Decorator) and isinstance(node.decorator, cst.Name):
                used.add(node.decorator.value)
    return used


def _is_used(symbol: str, used: set[str]) -> bool:
    head, _, method = symbol.rpartition(".")
    return f".{method}" in used if head else symbol in used


class ContextCheck(Check):
    """Code written into a given context keeps the context's interface and reuses it.

    Why: "complete this module" or "build on these helpers" is not met by code that
    breaks or ignores what it was given. The code is read as an addition to the context
    (a response may repeat the context or give only its new part). Two modes:
    `preserve` (default): every symbol of the context (its top-level functions, classes
    and their methods, or the listed `symbols`) that the code defines again keeps its
    parameters, and the code defines or calls at least one of them; `reuse`: every
    listed symbol is called (or used as a decorator) by the code and not defined again
    in it, so the code relies on the given implementation instead of writing its own.

    Options: `context` (the given code, Python source), `symbols` (names, `Class.method`
    allowed; required without `context`), `mode` (`preserve` or `reuse`).

    Example:

        - check: context
          mode: reuse
          symbols: [read_file, clean_text]
    """

    name = "context"
    category = "Code Context"
    advice = (
        "Build on the given code: keep the parameters of every function and method you define "
        "again, and call the given functions instead of writing your own versions of them."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [{"required": ["context"]}, {"required": ["symbols"]}],
        "properties": {
            "context": {"type": "string", "minLength": 1},
            "symbols": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"},
                "minItems": 1,
            },
            "mode": {"enum": ["preserve", "reuse"]},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "def read(path):\n    return open(path).read()\n\n"
            "def words(path):\n    return read(path).split()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def walk(graph, start):\n    return list(graph.get_neighbors(start))\n",
            {"context": "class Graph:\n    def get_neighbors(self, node):\n        return []\n"},
        ),
        Sample(
            "from helpers import clean\n\ndef run(text):\n    return clean(text)\n",
            {"symbols": ["clean"], "mode": "reuse"},
        ),
    )
    violated_by = (
        Sample(
            "def read(filename, mode):\n    return open(filename, mode).read()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def words(path):\n    return open(path).read().split()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def clean(text):\n    return text.strip()\n\ndef run(text):\n    return clean(text)\n",
            {"symbols": ["clean"], "mode": "reuse"},
        ),
        Sample(
            "def run(text):\n    return text.strip()\n", {"symbols": ["clean"], "mode": "reuse"}
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        given = (
            top_level_signatures(parse_option_code(options["context"], "context"))
            if "context" in options
            else {}
        )
        self.symbols: dict[str, list[str] | None] = (
            {s: given.get(s) for s in options["symbols"]} if "symbols" in options else given
        )
        if not self.symbols:
            raise ValueError("`context` defines no function or class to keep")

    def advise(self) -> str:
        symbols = self.options.get("symbols")
        if self.options.get("mode") == "reuse" and symbols:
            return (
                f"Call {listed(symbols)} from the given code instead of defining them again; "
                "rely on the given implementation."
            )
        return self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        modules = ctx.modules()
        path = modules[0].relpath if modules else None
        defined: dict[str, list[str] | None] = {}
        for module in modules:
            defined.update(top_level_signatures(module.tree))
        if self.options.get("mode") == "reuse":
            return self._reuse(ctx, defined, path)
        findings: list[Finding] = []
        for name, params in self.symbols.items():
            mine = defined.get(name)
            if params is not None and mine is not None and mine != params:
                findings.append(
                    Finding(
                        f"`{name}` takes ({', '.join(mine)}) instead of the "
                        f"context's ({', '.join(params)})",
                        _RULE,
                        path,
                        1,
                    )
                )
        used = _used_names(ctx)
        if not any(n in defined or _is_used(n, used) for n in self.symbols):
            findings.append(
                Finding(
                    "the code neither defines nor uses anything of the context "
                    f"({', '.join(list(self.symbols)[:5])})",
                    _RULE,
                    path,
                    1,
                )
            )
        return findings

    def _reuse(
        self, ctx: CheckContext, defined: Mapping[str, Any], path: str | None
    ) -> list[Finding]:
        used = _used_names(ctx)
        findings: list[Finding] = []
        for name in self.symbols:
            if name in defined:
                findings.append(
                    Finding(f"`{name}` is defined again instead of reused", _RULE, path, 1)
                )
            elif not _is_used(name, used):
                findings.append(Finding(f"`{name}` is never used", _RULE, path, 1))
        return findings

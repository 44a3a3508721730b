"""The `calls` check: named APIs are (or are not) called, resolved through imports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.call_sites import call_sites
from pytest_codeif.checks.shared.structure import scopes

_RULE = "calls"
_NAMES = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"},
    "minItems": 1,
}


_BUILTIN_TYPES = frozenset(
    {
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "object",
    }
)


def _is_type_name(head: str) -> bool:
    last = head.rsplit(".", 1)[-1]
    return last in _BUILTIN_TYPES or last[:1].isupper()


def matches(qualified: set[str], method: str | None, wanted: str) -> bool:
    """Whether a call site is a call of `wanted` (a dotted name).

    A bare name also matches the builtin of that name, an imported function of that name,
    and a method of that name; `Type.method` also matches a method call on an object.
    """
    if wanted in qualified:
        return True
    head, _, last = wanted.rpartition(".")
    if not head:
        return (
            f"builtins.{wanted}" in qualified
            or any(q.rsplit(".", 1)[-1] == wanted for q in qualified)
            or method == wanted
        )
    if _is_type_name(head):
        return method == last or f"builtins.{wanted}" in qualified
    return False


class CallsCheck(Check):
    """Required functions are called and forbidden ones are not, resolved through imports.

    Why: "memoise with functools.lru_cache", "don't use eval", "sort with sorted()":
    the name is resolved however it was imported (`from functools import lru_cache as
    lc`, `import functools as ft; ft.lru_cache`), so renaming an import neither hides a
    forbidden call nor fakes a required one. A decorator counts as a call. A bare name
    (`sorted`, `namedtuple`, `fillna`) matches the builtin, an imported function and a
    method of that name. Object types are not inferred, so `Type.method` (a builtin type
    or a capitalised class: `str.upper`, `DataFrame.fillna`) matches any `x.method(...)`
    call whose receiver is not an imported module, class or function.

    Options: `require`, `forbid` (lists of dotted names; at least one), `function`
    (only look inside this function).

    Example:

        - check: calls
          require: [functools.lru_cache]
          forbid: [eval, exec]
    """

    name = "calls"
    category = "Environment"
    advice = (
        "Call the functions the task requires (a decorator counts) and do the work of each "
        "forbidden call another way; renaming an import neither hides a call nor fakes one."
    )
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
        Sample(
            "from collections import namedtuple\n\nP = namedtuple('P', 'x')\n\n"
            "def shout(text):\n    return text.strip().upper()\n",
            {"require": ["namedtuple", "str.upper"]},
        ),
    )
    violated_by = (
        Sample(
            "def f(n):\n    return n\n",
            {"require": ["functools.lru_cache"]},
            message="`functools.lru_cache` is never called",
        ),
        Sample(
            "from builtins import eval as e\n\ne('1')\n",
            {"forbid": ["eval"]},
            message="calls `eval`, which is forbidden",
            line=3,
        ),
        Sample(
            "import string\n\nstring.upper('a')\n",
            {"require": ["str.upper"]},
            message="`str.upper` is never called",
        ),
        Sample(
            "def g():\n    return sorted([2, 1])\n\ndef f():\n    return [1]\n",
            {"require": ["sorted"], "function": "f"},
            message="`sorted` is never called in `f`",
            line=4,
        ),
    )

    def advise(self) -> str:
        where = f" in `{self.options['function']}`" if self.options.get("function") else ""
        parts = []
        if self.options.get("require"):
            parts.append(f"Call {listed(self.options['require'])}{where} (a decorator counts).")
        if self.options.get("forbid"):
            forbidden = listed(self.options["forbid"], conjunction="or")
            parts.append(f"Do not call {forbidden}{where}: do that work another way.")
        return " ".join(parts) or self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        places = scopes(ctx, self.options.get("function"), _RULE)
        if isinstance(places, Finding):
            return [places]
        sites = [
            (names, method, m, site)
            for m, node in places
            for names, method, site in call_sites(m, node)
        ]
        findings: list[Finding] = []
        where = self.options.get("function")
        scope_text = f" in `{where}`" if where else ""
        for wanted in self.options.get("require", []):
            if not any(matches(names, method, wanted) for names, method, _, _ in sites):
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
                for names, method, module, site in sites
                if matches(names, method, banned)
            )
        return findings

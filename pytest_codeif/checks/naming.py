"""The `naming` check: identifiers of each kind follow the asked-for convention."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.safe_regex import PatternError, SubjectTooLong, compile_pattern

_RULE = "naming"

#: Convention name -> the pattern a name must match, leading/trailing underscores aside.
CONVENTIONS: Final = {
    "snake_case": re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*"),
    "camelCase": re.compile(r"[a-z][a-z0-9]*([A-Z][a-z0-9]*)*"),
    "PascalCase": re.compile(r"([A-Z][a-z0-9]*)+"),
    "UPPER_CASE": re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)*"),
}
KINDS: Final = ("class", "function", "method", "argument", "variable", "constant", "attribute")
#: Methods whose names a base class or protocol imposes; never judged.
IMPOSED: Final = frozenset(
    {"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp", "asyncTearDown"}
)
_RULE_SCHEMA = {
    "oneOf": [
        {"enum": list(CONVENTIONS)},
        {
            "type": "object",
            "required": ["pattern"],
            "properties": {"pattern": {"type": "string", "format": "regex"}},
            "additionalProperties": False,
        },
    ]
}
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)


def follows(name: str, rule: str | Mapping[str, str]) -> bool:
    """Whether `name` follows `rule`: a convention name or `{pattern: regex}`.

    A task's pattern meets names the code under evaluation chose, so it is matched by a
    linear-time engine (`safe_regex`); the built-in conventions cannot backtrack."""
    if not isinstance(rule, str):
        try:
            return compile_pattern(rule["pattern"]).fullmatch(name)
        except SubjectTooLong as exc:
            raise Undecidable("too-large", f"a name of {exc.length} characters: {exc}") from None
    core = name.strip("_")
    return not core or CONVENTIONS[rule].fullmatch(core) is not None


def is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation):
        return is_literal(node.expression)
    if isinstance(node, cst.Tuple):
        return all(isinstance(e, cst.Element) and is_literal(e.value) for e in node.elements)
    return False


def _bound_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    """Names an assignment target binds (`a`, `a, (b, *c)`), not attributes/subscripts."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def named_things(module: ParsedModule) -> Iterator[tuple[str, cst.Name]]:
    """(kind, name node) for every identifier the code defines, by kind."""
    constants = _constants(module)
    for node in module.walk():
        scope = module.scope_of(node)
        if isinstance(node, cst.ClassDef):
            yield "class", node.name
        elif isinstance(node, cst.FunctionDef):
            name = node.name.value
            dunder = name.startswith("__") and name.endswith("__")
            if not dunder and name not in IMPOSED:
                yield ("method" if isinstance(scope, cst.ClassDef) else "function"), node.name
        elif isinstance(node, cst.Param):
            if node.name.value not in ("self", "cls"):
                yield "argument", node.name
        elif isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            yield from _assigned(node.target, constants)
        elif isinstance(node, (cst.For, cst.CompFor)):
            yield from (("variable", n) for n in _bound_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            yield from (("variable", n) for n in _bound_names(node.asname.name))
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            yield "variable", node.target


def _assigned(target: cst.BaseExpression, constants: set[int]) -> Iterator[tuple[str, cst.Name]]:
    if (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
    ):
        yield "attribute", target.attr
        return
    for name in _bound_names(target):
        if name.value != "_":
            yield ("constant" if id(name) in constants else "variable"), name


def _constants(module: ParsedModule) -> set[int]:
    """Names (node ids) bound once, at module or class level, to a literal value."""
    counts: dict[str, int] = {}
    candidates: list[cst.Name] = []
    for node in module.walk():
        at_top = not isinstance(module.scope_of(node), cst.FunctionDef)
        target: cst.BaseExpression | None = None
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            target = node.target
        if (
            at_top
            and isinstance(target, cst.Name)
            and isinstance(node, (cst.Assign, cst.AnnAssign))
            and node.value is not None
            and is_literal(node.value)
        ):
            candidates.append(target)
        # A name rebound anywhere (even in a function, through `global`) is no constant.
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            for name in _bound_names(node.target):
                counts[name.value] = counts.get(name.value, 0) + 1
    return {id(n) for n in candidates if counts.get(n.value) == 1}


def _describe(rule: str | Mapping[str, str]) -> str:
    return rule if isinstance(rule, str) else f"the pattern {rule['pattern']!r}"


class NamingCheck(Check):
    """Identifiers of each kind follow a naming convention (snake_case, camelCase, ...).

    Why: "classes in PascalCase, functions in camelCase" is a team rule ruff's pep8-naming
    cannot state (it knows only PEP 8's own choices). Kinds: `class`, `function`,
    `method` (defaults to the `function` rule), `argument` (self/cls aside), `variable`
    (assignment, loop, `with ... as`, walrus targets), `constant` (a module- or
    class-level name bound once to a literal; when no `constant` rule is given, such a
    name may also be UPPER_CASE under the `variable` rule, as PEP 8 writes constants) and
    `attribute` (`self.x = ...`). Dunder methods, unittest's `setUp`-style names and
    leading/trailing underscores are not judged; imported names are not the code's own.
    kebab-case cannot be a Python identifier, so it is not offered.

    Options: one entry per kind, each `snake_case`, `camelCase`, `PascalCase`,
    `UPPER_CASE` or `{pattern: REGEX}` (the whole name must match; matched by RE2, a
    linear-time engine, so no backreferences or lookaround).

    Example:

        - check: naming
          class: PascalCase
          function: camelCase
          variable: snake_case
    """

    name = "naming"
    category = "Coding Style"
    advice = (
        "Rename the identifiers the findings list to the required convention, and update every "
        "use of them."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "minProperties": 1,
        "properties": {kind: _RULE_SCHEMA for kind in KINDS},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "MAX_SIZE = 10\n\nclass HttpClient:\n    def sendRequest(self, retryCount):\n"
            "        for attempt in range(retryCount):\n            last_error = attempt\n"
            "        return MAX_SIZE\n",
            {"class": "PascalCase", "function": "camelCase", "variable": "snake_case"},
        ),
        Sample("def __init__(self):\n    pass\n", {"function": {"pattern": "^[a-z]+$"}}),
    )
    violated_by = (
        Sample("def load_data(path):\n    return path\n", {"function": "camelCase"}),
        Sample("class shopping_cart:\n    pass\n", {"class": "PascalCase"}),
        Sample("def f():\n    totalCount = 0\n    return totalCount\n", {"variable": "snake_case"}),
        Sample(
            "class A:\n    def __init__(self):\n        self.itemCount = 0\n",
            {"attribute": "snake_case"},
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        for kind, rule in options.items():
            if isinstance(rule, Mapping) and isinstance(rule.get("pattern"), str):
                try:
                    compile_pattern(rule["pattern"])
                except PatternError as exc:
                    raise ValueError(f"{kind}.pattern: {exc}") from None

    def advise(self) -> str:
        rules = []
        for kind, style in self.options.items():
            wanted = f"matching `{style['pattern']}`" if isinstance(style, Mapping) else style
            rules.append(f"{kind} names {wanted}")
        return f"Rename to the required conventions ({'; '.join(rules)}) and update every use."

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        rules: dict[str, str | Mapping[str, str]] = dict(self.options)
        if "method" not in rules and "function" in rules:
            rules["method"] = rules["function"]
        findings: list[Finding] = []
        seen: set[tuple[str, str, str]] = set()
        for module in ctx.modules():
            for kind, node in named_things(module):
                rule = rules.get(kind)
                if kind == "constant" and rule is None and "variable" in rules:
                    if follows(node.value, "UPPER_CASE"):
                        continue
                    rule = rules["variable"]
                if rule is None or follows(node.value, rule):
                    continue
                key = (module.relpath, kind, node.value)
                if key in seen:  # one finding per name, at its first binding
                    continue
                seen.add(key)
                findings.append(
                    Finding(
                        f"{kind} `{node.value}` does not follow {_describe(rule)}",
                        _RULE,
                        module.relpath,
                        module.line_of(node),
                    )
                )
        return findings

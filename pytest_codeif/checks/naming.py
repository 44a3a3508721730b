"""The `naming` check: identifiers of each kind follow the asked-for convention."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.js_naming import js_spelling, named_js_things
from pytest_codeif.checks.shared.naming_conventions import (
    CONVENTIONS,
    KINDS,
    follows,
    named_things,
)
from pytest_codeif.safe_regex import PatternError, compile_pattern

_RULE = "naming"

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


def _describe(rule: str | Mapping[str, str]) -> str:
    return rule if isinstance(rule, str) else f"the pattern {rule['pattern']!r}"


class NamingCheck(Check):
    """Identifiers of each kind follow a naming convention (snake_case, camelCase, ...).

    Why: "classes in PascalCase, functions in camelCase" is a team rule ruff's pep8-naming
    cannot state (it knows only PEP 8's own choices). Kinds: `class`, `function`,
    `method` (defaults to the `function` rule), `argument` (self/cls aside), `variable`
    (assignment, loop, `with ... as`, walrus targets), `constant` (a module- or
    class-level name spelt UPPER_CASE, whatever its value (`DEBUG = env.bool("DEBUG")`,
    `ALLOWED_HOSTS = ["*"]`), or bound once to a literal; when no `constant` rule is
    given, a constant may also be UPPER_CASE under the `variable` rule, as PEP 8 writes
    constants), `attribute` (`self.x = ...`), `type-variable` (`T = TypeVar("T")`,
    `ParamSpec`, `TypeVarTuple`, Python 3.12's `def first[T](...)`) and `type-alias`
    (`Json: TypeAlias = ...`, 3.12's `type Pair = ...`, and a module-level assignment of
    a type: `Row = list[int]`, `Number = Union[int, float]`, `MaybeUser = User | None`).
    A kind with no rule is not judged: type variables and aliases only by their own.
    Dunder methods, unittest's `setUp`-style names and leading/trailing underscores are
    not judged; imported names are not the code's own. kebab-case cannot be a Python
    identifier, so it is not offered.

    JavaScript and TypeScript: the same kinds and options, read the language's way
    (`checks/shared/js_naming.py`): classes, interfaces and enums are `class`; a
    variable bound to a function or arrow function is a `function`, and so is a
    CommonJS export bound to one (`exports.getUser = async (req, res) => ...`); a
    class's methods are `method` (`constructor` aside), an object literal's keys are
    not judged (an API often imposes them); a module-level name spelt UPPER_CASE, or a
    module-level `const` bound to a literal, is a `constant`; `this.x = ...` and class
    fields are `attribute`; TypeScript's `<T>` and `type X = ...` are `type-variable`
    and `type-alias`. A private name's `#` and a leading or trailing `$` are no part of
    its spelling under a convention. The language's own conventions are camelCase
    functions, methods and variables, PascalCase classes and UPPER_CASE constants.

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
    languages = frozenset({"python", "javascript", "typescript"})
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
        # Django settings: UPPER_CASE at module and class level is a constant, whatever
        # it is bound to and however often.
        Sample(
            """
            import environ

            env = environ.Env()
            DEBUG = env.bool("DEBUG", default=False)
            ALLOWED_HOSTS = ["*"]
            INSTALLED_APPS = ["django.contrib.admin"]
            if DEBUG:
                INSTALLED_APPS += ["debug_toolbar"]

            class Config:
                TIMEOUT = env.int("TIMEOUT")
            """,
            {"variable": "snake_case"},
        ),
        # Type variables and aliases are neither variables nor constants.
        Sample(
            """
            from typing import ParamSpec, TypeAlias, TypeVar, Union

            T = TypeVar("T")
            P = ParamSpec("P")
            Json: TypeAlias = "dict[str, Json] | list[Json] | str"
            Number = Union[int, float]
            Row = list[int]
            MaybeName = str | None
            """,
            {"variable": "snake_case", "constant": "snake_case"},
        ),
        Sample(
            """
            const MAX_SIZE = 10;
            const express = require("express");

            class HttpClient {
              #retries = 0;

              constructor(baseUrl) {
                this.baseUrl = baseUrl;
              }

              sendRequest(retryCount, ...$extra) {
                for (let attempt = 0; attempt < retryCount; attempt++) {
                  const { id, name: userName } = lookup(attempt);
                }
                return MAX_SIZE;
              }
            }
            """,
            {
                "class": "PascalCase",
                "function": "camelCase",
                "variable": "camelCase",
                "argument": "camelCase",
                "attribute": "camelCase",
                "constant": "UPPER_CASE",
            },
            language="javascript",
        ),
        Sample(
            """
            type JsonValue = string | number;
            export function firstOf<T>(items: T[]): T {
              return items[0];
            }
            """,
            {"function": "camelCase", "type-alias": "PascalCase", "type-variable": "UPPER_CASE"},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            """
            const loadData = (path) => path;

            function save_data(path) {
              return path;
            }
            """,
            {"function": "camelCase"},
            language="javascript",
            message="function `save_data` does not follow camelCase",
            line=3,
        ),
        Sample(  # a CommonJS controller's exported handlers
            """
            const userService = require("../services/user.service");

            exports.getUser = async (req, res) => res.json(await userService.find(req.params.id));
            exports.delete_user = async (req, res) => res.sendStatus(204);
            """,
            {"function": "camelCase"},
            language="javascript",
            message="function `delete_user` does not follow camelCase",
            line=4,
        ),
        Sample(
            "interface user_shape {\n  id: number;\n}\nexport const maxUsers = 10;\n",
            {"class": "PascalCase", "constant": "UPPER_CASE"},
            language="typescript",
            message="constant `maxUsers` does not follow UPPER_CASE",
            line=4,
        ),
        Sample("def load_data(path):\n    return path\n", {"function": "camelCase"}),
        Sample("class shopping_cart:\n    pass\n", {"class": "PascalCase"}),
        Sample("def f():\n    totalCount = 0\n    return totalCount\n", {"variable": "snake_case"}),
        Sample(
            "class A:\n    def __init__(self):\n        self.itemCount = 0\n",
            {"attribute": "snake_case"},
        ),
        Sample(
            'DEBUG = env.bool("DEBUG")\n', {"constant": "snake_case"}, message="constant `DEBUG`"
        ),
        Sample(
            'KeyType = TypeVar("KeyType")\n',
            {"type-variable": "UPPER_CASE"},
            message="type-variable `KeyType`",
        ),
        Sample("json_dict = dict[str, int]\n", {"type-alias": "PascalCase"}, message="type-alias"),
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
        named: list[tuple[str, str, str, Callable[[], int], bool]] = []
        for module in ctx.modules():
            named += [
                (module.relpath, kind, node.value, partial(module.line_of, node), False)
                for kind, node in named_things(module)
            ]
        for js in ctx.js_modules():
            named += [
                (js.relpath, kind, node.text(), partial(js.line_of, node), True)
                for kind, node in named_js_things(js)
            ]
        for relpath, kind, name, line_of, is_js in named:
            rule = rules.get(kind)
            spelt = js_spelling(name) if is_js else name
            if kind == "constant" and rule is None and "variable" in rules:
                if follows(spelt, "UPPER_CASE"):
                    continue
                rule = rules["variable"]
            if rule is None or follows(spelt if isinstance(rule, str) else name, rule):
                continue
            key = (relpath, kind, name)
            if key in seen:  # one finding per name, at its first binding
                continue
            seen.add(key)
            findings.append(
                Finding(
                    f"{kind} `{name}` does not follow {_describe(rule)}", _RULE, relpath, line_of()
                )
            )
        return findings

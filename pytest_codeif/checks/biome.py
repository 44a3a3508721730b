"""The `biome` check: selected Biome lint rules report nothing on JavaScript and
TypeScript."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import (
    Check,
    CheckContext,
    Finding,
    Sample,
    Undecidable,
    listed,
)
from pytest_codeif.code.languages import JS_FAMILY
from pytest_codeif.tools import ToolConfig
from pytest_codeif.tools_node import (
    BIOME_GROUPS,
    BiomeConfig,
    BiomeRules,
    biome_missing,
    biome_rules,
)

#: A rule (`noVar`), a group (`suspicious`), both (`suspicious/noVar`, as Biome's
#: findings and `biome-ignore` comments name it, with or without `lint/`), a domain
#: (`react`), or a preset (`recommended`, `all`: `select` only).
_SELECTOR: Final = "^(lint/)?([a-z][a-z0-9]*/)?[a-zA-Z][a-zA-Z0-9]*$"
_SELECTORS = {
    "type": "array",
    "items": {
        "type": "string",
        "pattern": _SELECTOR,
        "x-message": "expected a Biome rule, group or domain such as noVar, "
        "suspicious/noDoubleEquals, style or recommended",
    },
    "minItems": 1,
}
_SCALAR = {"type": ["string", "number", "boolean", "null"]}
_JSON = {
    "anyOf": [
        _SCALAR,
        {"type": "array", "items": _SCALAR},
        {"type": "object"},
    ]
}
#: `biome.json` settings a task may give: rules' levels and options, rule domains, and
#: how JavaScript is read. Never what names files (`files`, `overrides`, `extends`,
#: `plugins`), which would read or skip files of the host.
_SETTING: Final = (
    r"^(linter\.(rules|domains)(\.[a-zA-Z][a-zA-Z0-9]*)+"
    r"|javascript\.(globals|jsxRuntime|parser\.[a-zA-Z]+))$"
)
_PRESETS: Final = ("recommended", "all")
_COGNITIVE: Final = "linter.rules.complexity.noExcessiveCognitiveComplexity"


class BiomeCheck(Check):
    """Biome reports nothing for the selected lint rules on JavaScript and TypeScript.

    Why: Biome implements hundreds of lint rules for JavaScript and TypeScript (most of
    ESLint's, typescript-eslint's, unicorn's and the React plugins'), in one fast
    binary; this check runs it, once per distinct configuration for the whole session,
    with only the settings the task gives: a `biome.json`, `.eslintrc` or `package.json`
    beside the code is never read, and `// biome-ignore` comments in the code are
    disregarded (and reported), as are `eslint-disable` ones (which Biome never honours).
    It is to JavaScript what the `ruff` check is to Python.

    Options: `select` (required: Biome rule names such as `noVar`, groups such as
    `suspicious`, both as `suspicious/noDoubleEquals` or `lint/suspicious/noDoubleEquals`,
    rule domains such as `react`, or `recommended` / `all` for Biome's presets),
    `ignore` (rules, groups or domains left out of the selection), `max-complexity` (the
    most cognitive complexity a function may have: Biome's
    `noExcessiveCognitiveComplexity`, which must be selected), `allow-suppressions`
    (honour `// biome-ignore`), and `settings` for other `biome.json` settings by dotted
    name: a rule's options (`linter.rules.style.useNamingConvention.options.strictCase:
    false`), rule domains, `javascript.globals`. Each finding is named by its rule, as
    `lint/suspicious/noDoubleEquals` (explained at https://biomejs.dev/linter/rules/).

    Biome (npm `@biomejs/biome`) must be installed: on `PATH`, or in the folder named by
    `CODEIF_NODE_TOOLS`; without it the verdict is a `missing-tool` error. A file Biome
    cannot parse has no verdict (`syntax-error`).

    Example:

        - check: biome
          select: [noVar, suspicious/noDoubleEquals, noUnusedVariables]
    """

    name = "biome"
    category = "Code Quality"
    languages: ClassVar[frozenset[str]] = JS_FAMILY
    advice = (
        "Fix what Biome reports for the selected rules (each finding names its rule, "
        "explained at https://biomejs.dev/linter/rules/); `// biome-ignore` comments do "
        "not count."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "select": _SELECTORS,
            "ignore": _SELECTORS,
            "max-complexity": {"type": "integer", "minimum": 1},
            "allow-suppressions": {"type": "boolean"},
            "settings": {
                "type": "object",
                "propertyNames": {"pattern": _SETTING},
                "additionalProperties": _JSON,
            },
        },
        "required": ["select"],
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "const x = 1;\nif (x === 1) {\n  console.log(x);\n}\n",
            {"select": ["noDoubleEquals", "noVar"]},
            language="javascript",
        ),
        Sample(
            "// biome-ignore lint/suspicious/noDoubleEquals: coerces on purpose\n"
            "export const isZero = (x: unknown): boolean => x == 0;\n",
            {"select": ["noDoubleEquals"], "allow-suppressions": True},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            "var count = 0;\nif (count == '0') {\n  count += 1;\n}\n",
            {"select": ["suspicious/noDoubleEquals"]},
            language="javascript",
            message="Using == may be unsafe",
            line=2,
        ),
        Sample(
            "// biome-ignore lint/suspicious/noDoubleEquals: coerces on purpose\n"
            "export const isZero = (x: unknown): boolean => x == 0;\n",
            {"select": ["noDoubleEquals"]},
            language="typescript",
            line=2,
        ),
        Sample(
            "/* eslint-disable */\nvar total = 0;\n",
            {"select": ["noVar"]},
            language="javascript",
            line=2,
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        selected = list(options["select"])
        presets = [s for s in selected if s in _PRESETS]
        if len(presets) > 1:
            raise ValueError(f"select one preset at most, not {listed(presets)}")
        for key in ("select", "ignore"):
            for index, selector in enumerate(options.get(key, ())):
                if key == "ignore" and selector in _PRESETS:
                    raise ValueError(f"`ignore` names rules, groups or domains, not {selector!r}")
                if selector not in _PRESETS:
                    _validate_selector(selector, key, index)
        settings = dict(options.get("settings", {}))
        for key in settings:
            _validate_setting(key)
        if "max-complexity" in options:
            settings[_COGNITIVE] = {
                "level": "on",
                "options": {"maxAllowedComplexity": options["max-complexity"]},
            }
        only = tuple(sorted(s for s in selected if s not in _PRESETS))
        #: Rules named without their group beside a preset while no Biome can say the
        #: group: the verdict is then an error, never a run without them.
        self.unresolved: tuple[str, ...] = ()
        if presets and only:
            # `--only` would narrow the preset to them: they are switched on instead.
            switched, self.unresolved = _switched_on(only)
            settings.update(switched)
            only = ()
        self.config = BiomeConfig(
            only=only,
            skip=tuple(sorted(options.get("ignore", ()))),
            settings=tuple(sorted((k, _json(v)) for k, v in settings.items())),
            preset=presets[0] if presets else "none",
            honor_ignores=bool(options.get("allow-suppressions", False)),
        )

    def advise(self) -> str:
        return (
            f"Fix what Biome reports for {listed(self.options['select'])} (each finding names "
            "its rule, explained at https://biomejs.dev/linter/rules/); `// biome-ignore` "
            "comments do not count."
        )

    @classmethod
    def unavailable(cls) -> str | None:
        return biome_missing()

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.config,)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        if self.unresolved:
            missing = biome_missing()
            raise Undecidable(
                "missing-tool" if missing else "invalid-task",
                (f"{missing}; " if missing else "")
                + f"name {listed(self.unresolved)} with its group (as `suspicious/noVar`) "
                "to select it beside a preset where the installed Biome cannot tell it",
                key_path=("select",),
            )
        return ctx.biome(self.config)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _validate_setting(key: str) -> None:
    """Refuse a `linter.rules.GROUP.RULE...` setting naming no rule of the installed
    Biome (where Biome is installed from npm; else the run says)."""
    parts = key.split(".")
    rules = biome_rules()
    if rules is None or parts[:2] != ["linter", "rules"] or len(parts) < 4:
        return
    group, rule = parts[2], parts[3]
    if rules.groups.get(rule) == group:
        return
    known = rules.groups.get(rule)
    hint = f"; did you mean 'linter.rules.{known}.{rule}'?" if known else ""
    if not known:
        close = difflib.get_close_matches(rule, list(rules.groups), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"settings: {key!r} names no Biome rule{hint}")


def _switched_on(selectors: tuple[str, ...]) -> tuple[dict[str, object], tuple[str, ...]]:
    """The `biome.json` settings that switch `selectors` on beside a preset: a group
    wholly, a rule, every rule of a domain; and the rules named without their group
    that no installed Biome can place (none when Biome is installed from npm)."""
    rules = biome_rules()
    settings: dict[str, object] = {}
    unresolved: list[str] = []
    for selector in selectors:
        parts = selector.removeprefix("lint/").split("/")
        if len(parts) == 2:
            settings[f"linter.rules.{parts[0]}.{parts[1]}"] = "on"
        elif parts[0] in BIOME_GROUPS:
            settings[f"linter.rules.{parts[0]}"] = "on"
        elif rules is not None and parts[0] in rules.domains:
            settings[f"linter.domains.{parts[0]}"] = "all"
        elif rules is None:
            unresolved.append(parts[0])
        else:
            settings[f"linter.rules.{_group_of(rules, selector)}.{parts[0]}"] = "on"
    return settings, tuple(unresolved)


def _group_of(rules: BiomeRules | None, rule: str) -> str:
    group = rules.groups.get(rule) if rules is not None else None
    if group is None:
        raise ValueError(
            f"name {rule!r} with its group (as `suspicious/noVar`) to select it beside a preset"
        )
    return group


def _validate_selector(selector: str, key: str, index: int) -> None:
    """Refuse a selector that names no rule, group or domain of the installed Biome
    (unchecked when Biome is not installed from npm: the run then says)."""
    rules = biome_rules()
    if rules is None:
        return
    parts = selector.removeprefix("lint/").split("/")
    if len(parts) == 1 and (parts[0] in BIOME_GROUPS or parts[0] in rules.domains):
        return
    if len(parts) == 1 and parts[0] in rules.groups:
        return
    if len(parts) == 2 and rules.groups.get(parts[1]) == parts[0]:
        return
    known = [*BIOME_GROUPS, *rules.domains, *rules.groups]
    close = difflib.get_close_matches(parts[-1], known, n=1, cutoff=0.6)
    if len(parts) == 2 and parts[1] in rules.groups:
        close = [f"{rules.groups[parts[1]]}/{parts[1]}"]
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{key}[{index}]: {selector!r} names no Biome rule, group or domain{hint}")

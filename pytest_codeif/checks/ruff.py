"""The `ruff` check: selected ruff rules report nothing."""

from __future__ import annotations

import difflib
import json
import subprocess
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.project_config import project_only
from pytest_codeif.tools import RuffConfig, ToolConfig, ruff_binary

_CODES = {
    "type": "array",
    "items": {
        "type": "string",
        "pattern": "^[A-Z][A-Z0-9]*$",
        "x-message": "expected a ruff rule code or prefix such as E501, C90 or ALL",
    },
    "minItems": 1,
}
_SCALAR = {"type": ["string", "number", "boolean"]}

#: Option name -> ruff setting; everything else goes through `settings`.
_SETTINGS: dict[str, str] = {
    "select": "lint.select",
    "ignore": "lint.ignore",
    "line-length": "line-length",
    "max-complexity": "lint.mccabe.max-complexity",
    "convention": "lint.pydocstyle.convention",
    "target-version": "target-version",
    "preview": "preview",
}


@cache
def known_rule_codes() -> frozenset[str]:
    """Every rule code of the installed ruff (asked once per process)."""
    out = subprocess.run(
        [ruff_binary(), "rule", "--all", "--output-format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return frozenset(str(rule["code"]) for rule in json.loads(out) if rule.get("code"))


class RuffCheck(Check):
    """Ruff reports nothing for the selected rules.

    Why: ruff implements hundreds of rules (pycodestyle, pydocstyle, mccabe complexity,
    pylint limits, naming, annotations...); this check runs ruff itself, once per distinct
    configuration for the whole session, with only the settings the task gives: config
    files and `# noqa` comments beside the code are ignored.

    Options: `select` (required unless `project-config: true`: rule codes or prefixes,
    e.g. `[E, W]`, `[C901]`), `ignore`, `line-length`, `max-complexity`, `convention`
    (google, numpy, pep257), `target-version` (e.g. py39), `preview`, and `settings` for
    any other ruff setting by its dotted name (e.g. `lint.pylint.max-args: 3`). `# noqa`
    comments in the code are disregarded (and reported) unless `allow-suppressions: true`.

    `project-config: true` (for `directory:` code only: a team's own repository, never a
    model's response) runs ruff with the project's own configuration, the first of
    `.ruff.toml`, `ruff.toml` and `pyproject.toml` (with `[tool.ruff]`) in the code
    folder, as its own `ruff check` reads it there: `src`, `known-first-party`,
    exclusions, per-file ignores. The task's options apply on top, and `select` may then
    be left out (the project's selection). Only the folder's own file is read (not one in
    a subfolder or a parent, nor one it `extend`s from outside the folder). Under
    `--codeif-changed-since` the file is read as the merge base holds it: the change
    judged cannot edit it.

    Example:

        - check: ruff
          select: [C901]
          max-complexity: 5
    """

    name = "ruff"
    category = "Code Quality"
    advice = (
        "Fix what ruff reports for the selected rules (each finding names its rule code, "
        "explained at https://docs.astral.sh/ruff/rules/); `# noqa` comments do not count."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "select": _CODES,
            "ignore": _CODES,
            "line-length": {"type": "integer", "minimum": 1, "maximum": 320},
            "max-complexity": {"type": "integer", "minimum": 0},
            "convention": {"enum": ["google", "numpy", "pep257"]},
            "target-version": {"type": "string", "pattern": "^py3[0-9]{1,2}$"},
            "preview": {"type": "boolean"},
            "allow-suppressions": {"type": "boolean"},
            "project-config": {"type": "boolean"},
            "settings": {
                "type": "object",
                "propertyNames": {"pattern": "^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$"},
                "additionalProperties": {"anyOf": [_SCALAR, {"type": "array", "items": _SCALAR}]},
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("def f(x):\n    return x + 1\n", {"select": ["C901"], "max-complexity": 2}),
        Sample("import os\n\nprint(os.sep)\n", {"select": ["F401"]}),
        Sample("import os  # noqa: F401\n", {"select": ["F"], "allow-suppressions": True}),
    )
    violated_by = (
        Sample(
            "def f(x):\n    if x:\n        if x > 1:\n            return 1\n    return 2\n",
            {"select": ["C901"], "max-complexity": 1},
        ),
        Sample("import os  # noqa: F401\n", {"select": ["F"]}),
        Sample("# ruff: noqa\nimport os\n", {"select": ["F401"]}),
    )

    #: The verdict depends on the project's configuration files too (the verdict cache).
    reads_project_config = False

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        project = bool(options.get("project-config", False))
        if "select" not in options and not project:
            raise ValueError(
                "`select` is required (the rules to run), unless `project-config: true` "
                "takes them from the project's own configuration"
            )
        self.reads_project_config = project
        for key in ("select", "ignore"):
            for code in options.get(key, ()):
                _validate_selector(code)
        settings = {_SETTINGS[k]: v for k, v in options.items() if k in _SETTINGS}
        settings.update(options.get("settings", {}))
        honor = bool(options.get("allow-suppressions", False))
        self.config = RuffConfig.from_mapping(settings, honor_noqa=honor, project=project)

    def advise(self) -> str:
        what = (
            listed(self.options["select"])
            if "select" in self.options
            else "the project's selected rules"
        )
        return (
            f"Fix what ruff reports for {what} (each finding names "
            "its rule, explained at https://docs.astral.sh/ruff/rules/); `# noqa` comments do "
            "not count."
        )

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.config,)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        # Code that Python cannot parse never gets here (the engine decides that once);
        # ruff's `invalid-syntax` then means syntax newer than `target-version`: a violation.
        if self.config.project and not ctx.unit.is_project:
            raise project_only("ruff")
        return ctx.ruff(self.config)


def _validate_selector(code: str) -> None:
    codes = known_rule_codes()
    if code == "ALL" or any(c.startswith(code) for c in codes):
        return
    close = difflib.get_close_matches(code, sorted(codes), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{code!r} selects no ruff rule{hint}")

"""The `mypy` check: mypy, with the task's flags, reports no (counted) error."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.project_config import project_only
from pytest_codeif.tools import MypyConfig, ToolConfig

#: Flags that change what is checked; flags that touch files, caches, configs or the
#: interpreter (e.g. --config-file, --python-executable, --install-types) are refused.
_ALLOWED_FLAG = re.compile(
    r"^--(strict(-[a-z-]+)?|disallow-[a-z-]+|warn-[a-z-]+|no-[a-z-]+|allow-[a-z-]+|"
    r"check-untyped-defs|extra-checks|local-partial-types|implicit-[a-z-]+|"
    r"ignore-missing-imports|(enable|disable)-error-code=[a-z-]+|"
    r"always-(true|false)=[A-Za-z_]+|follow-imports=(normal|silent|skip|error))$"
)


class MypyCheck(Check):
    """Mypy finds no type error (or none of the listed error codes).

    Why: type correctness and declaration style (every function annotated, no implicit
    `Any`) are what mypy decides. Mypy runs once per distinct set of flags over all the
    code in the session, with its configuration taken only from the task.

    Options: `strict` (bool), `flags` (mypy flags such as `--disallow-untyped-defs`,
    `--disable-error-code=import-untyped`), `python-version` (e.g. "3.10"),
    `error-codes` (count only these codes, e.g. `[arg-type, return-value]`).
    `# type: ignore` and `# mypy:` comments in the code are disregarded (and reported)
    unless `allow-suppressions: true`.

    `project-config: true` (for `directory:` code only: a team's own repository, never a
    model's response) runs mypy with the project's own configuration file, the first of
    `mypy.ini`, `.mypy.ini`, `pyproject.toml` (with `[tool.mypy]`) and `setup.cfg` (with
    `[mypy]`) in the code folder (`--config-file`): its per-module sections and plugins
    (e.g. django-stubs, which must be installed beside pytest-codeif) apply, and the
    task's options on top. `--config-file` among `flags` stays refused. Under
    `--codeif-changed-since` the file is read as the merge base holds it: the change
    judged cannot edit it (a plugin that imports the project's modules, such as
    django-stubs' settings module, still imports them as the change has them).

    Example:

        - check: mypy
          strict: true
    """

    name = "mypy"
    category = "Code Quality"
    advice = (
        "Fix the types mypy reports: correct the code or its annotations (and add the missing "
        "ones under strict settings) rather than silencing errors with `Any`, `cast` or `# type: "
        "ignore`."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "strict": {"type": "boolean"},
            "flags": {"type": "array", "items": {"type": "string", "pattern": "^--"}},
            "python-version": {"type": "string", "pattern": "^3\\.[0-9]{1,2}$"},
            "allow-suppressions": {"type": "boolean"},
            "project-config": {"type": "boolean"},
            "error-codes": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[a-z][a-z-]*$"},
                "minItems": 1,
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("def f(x: int) -> int:\n    return x + 1\n", {"strict": True}),
        Sample("def f(x):\n    return x + 1\n", {}),
        Sample(
            "def f(x: int) -> str:\n    return x  # type: ignore[return-value]\n",
            {"allow-suppressions": True},
        ),
    )
    violated_by = (
        Sample("def f(x):\n    return x + 1\n", {"strict": True}),
        Sample("def f(x: int) -> str:\n    return x  # type: ignore\n", {}),
        Sample("# mypy: ignore-errors\ndef f(x: int) -> str:\n    return x\n", {}),
        Sample("def f(x: int) -> str:\n    return x\n", {"error-codes": ["return-value"]}),
    )

    #: The verdict depends on the project's configuration files too (the verdict cache).
    reads_project_config = False

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        flags = set(options.get("flags", []))
        for flag in flags:
            if flag.startswith("--config-file"):
                raise ValueError(
                    f"mypy flag {flag!r} is not allowed here; `project-config: true` runs "
                    "mypy with the project's own configuration file"
                )
            if not _ALLOWED_FLAG.match(flag):
                raise ValueError(f"mypy flag {flag!r} is not allowed here")
        if options.get("strict"):
            flags.add("--strict")
        if "python-version" in options:
            flags.add(f"--python-version={options['python-version']}")
        honor = bool(options.get("allow-suppressions", False))
        self.reads_project_config = bool(options.get("project-config", False))
        self.config = MypyConfig(
            tuple(sorted(flags)), honor_ignores=honor, project=self.reads_project_config
        )
        self.codes = frozenset(options.get("error-codes", ()))

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.config,)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        # Code that Python cannot parse never gets here (the engine decides that once);
        # mypy's own "syntax" code then means an invalid type expression: a violation.
        if self.config.project and not ctx.unit.is_project:
            raise project_only("mypy")
        findings = ctx.mypy(self.config)
        return [f for f in findings if not self.codes or f.rule in self.codes]

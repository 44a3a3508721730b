"""One page per check, from the check class itself: its documentation, a table of its
options from its options schema, and its proven samples as code that satisfies or
violates it (as Fixit renders its rules' VALID / INVALID cases). The samples shown are
the ones the test suite proves, so a page cannot promise what the check does not do."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import yaml

from pytest_codeif.checks.base import Check, Sample, documentation, summary
from pytest_codeif.docs.schema_text import code, key_rules, keys_table, table_text

#: Where the check pages live in the site, relative to its root.
FOLDER: Final = "checks"


def page_path(check: type[Check]) -> str:
    """The site-relative path of `check`'s page."""
    return f"{FOLDER}/{check.name}.md"


def check_page(check: type[Check]) -> str:
    """The whole page of `check`."""
    parts = [
        f"# `{check.name}`\n",
        f"Category: **{check.category}**. Use it as `- check: {check.name}` in a task's "
        "`constraints`.\n",
        documentation(check) or "(undocumented)",
        "\n## Options\n",
        _options(check.options_schema),
    ]
    if check.advice:
        parts += ["## Advice\n", f"What a violation's report tells the fixer: {check.advice}\n"]
    parts += _samples("Satisfies", "satisfies", check, check.satisfied_by)
    parts += _samples("Violates", "violates", check, check.violated_by)
    return "\n".join(parts).rstrip() + "\n"


def index_page(checks: Iterable[type[Check]]) -> str:
    """The checks' index: a table of every check with its category and first line."""
    rows = ["| check | category | what it checks |", "| --- | --- | --- |"]
    rows += [f"| [`{c.name}`]({c.name}.md) | {c.category} | {_cell(summary(c))} |" for c in checks]
    return (
        "# Checks\n\n"
        "Every built-in check, generated from the check classes: each page gives the "
        "check's documentation, its options (from its options schema) and the samples "
        "the test suite proves it on. Any constraint also takes the keys every check "
        "shares (`id`, `category`, `level`, `message`, `files`, `exclude-files`, "
        "`modules`, `exclude-modules`: see [the task-file reference]"
        "(../reference/task-file.md#constraints)).\n\n" + "\n".join(rows) + "\n"
    )


def _cell(text: str) -> str:
    return table_text(text)


def _options(schema: Mapping[str, Any]) -> str:
    if not schema.get("properties"):
        return "None: the check takes no options.\n"
    rules = key_rules(schema)
    return keys_table(schema, "option") + ("\n" + "\n".join(rules) + "\n" if rules else "")


def _samples(title: str, verdict: str, check: type[Check], samples: Sequence[Sample]) -> list[str]:
    if not samples:
        return []
    parts = [f"## {title}\n"]
    for number, sample in enumerate(samples, 1):
        parts.append(f"### {verdict} {number}\n")
        parts.append(_sample(check, sample))
    return parts


def _pinned(sample: Sample) -> list[str]:
    """What a violating sample pins of its findings: the text of a message, the line."""
    place = f"line {sample.line}" if sample.line is not None else ""
    if place and sample.path:
        place += f" of `{sample.path}`"
    if sample.message and place:
        return [f"A finding at {place} says {code(sample.message)}.\n"]
    if sample.message:
        return [f"A finding's message contains {code(sample.message)}.\n"]
    return [f"A finding lands at {place}.\n"] if place else []


def _yaml_item(mapping: Mapping[str, Any]) -> str:
    """`mapping` as an entry of a YAML list, as a task file writes it: a key per line,
    lists and mappings of plain values inline (`require: [recursion]`)."""
    lines = "".join(
        yaml.safe_dump({key: value}, sort_keys=False, default_flow_style=None, width=84)
        if isinstance(value, (list, dict))
        else yaml.safe_dump({key: value}, sort_keys=False, width=84)
        for key, value in mapping.items()
    )
    return "".join(
        ("- " if number == 0 else "  ") + line + "\n"
        for number, line in enumerate(lines.splitlines())
    )


#: Fence languages of a project sample's files other than Python, by suffix.
_FENCES: Final = {
    ".sh": "sh",
    ".toml": "toml",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".json": "json",
    ".ini": "ini",
    ".cfg": "ini",
}


def _fence_language(path: str) -> str:
    """The fence language a sample file is shown in: Python for modules (and one
    module's code), else by its suffix (`text` for `requirements.txt`, `.env`...)."""
    if not path or path.endswith(".py"):
        return "python"
    return next((lang for suffix, lang in _FENCES.items() if path.endswith(suffix)), "text")


def _sample(check: type[Check], sample: Sample) -> str:
    """The constraint as a task file writes it, the code, and what must be reported."""
    spec = "constraints:\n" + _yaml_item({"check": check.name, **sample.options})
    if sample.calls:
        spec += "tests:\n" + "".join(_yaml_item(dict(call)) for call in sample.calls)
    parts = [f"```yaml\n{spec}```\n"]
    files = sample.code if isinstance(sample.code, Mapping) else {"": sample.code}
    for path, text in files.items():
        title = f' title="{path}"' if path else ""
        # One module's code is in the sample's language (JavaScript, TypeScript) or Python.
        fence = _fence_language(path) if path or not sample.language else sample.language
        empty = "# (empty)" if fence == "python" else "(empty)"
        parts.append(f"```{fence}{title}\n{text.rstrip() or empty}\n```\n")
    parts += _pinned(sample)
    return "\n".join(parts)

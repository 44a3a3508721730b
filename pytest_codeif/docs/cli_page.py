"""The command-line reference: the `codeif` command's subcommands from its argparse
parser (`cli.build_parser`), and pytest's `--codeif-*` options and `codeif_*` ini values
as the plugin declares them (`plugin.pytest_addoption`, run against a recorder)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Final, cast

import pytest

from pytest_codeif import plugin
from pytest_codeif.cli import build_parser
from pytest_codeif.docs.schema_text import code, table_text

PATH: Final = "reference/cli.md"

_INTRO: Final = """# Command-line reference

Generated from the parsers themselves: `codeif`'s subcommands, then the options and ini
values pytest gains with the plugin. Every option applies with `--codeif` (without it
the plugin collects nothing); the ini values are defaults the command line overrides
(`[tool.pytest.ini_options]`, `pytest.ini`, `tox.ini` or `setup.cfg`), and are not read
under `codeif gate`.
"""


@dataclass
class _Recorder:
    """Stands in for pytest's parser and its option group: keeps what is declared."""

    options: list[tuple[tuple[str, ...], dict[str, Any]]] = field(default_factory=list)
    inis: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def getgroup(self, name: str, description: str = "") -> _Recorder:
        return self

    def addoption(self, *names: str, **attrs: Any) -> None:
        self.options.append((names, attrs))

    def addini(self, name: str, help: str, **attrs: Any) -> None:
        self.inis.append((name, {"help": help, **attrs}))


def cli_page() -> str:
    """The whole reference page."""
    parts = [_INTRO, "## `codeif`\n", _parser_section(build_parser(), "codeif")]
    recorder = _Recorder()
    plugin.pytest_addoption(cast("pytest.Parser", recorder))
    parts += ["## pytest options\n", _options_table(recorder.options)]
    parts += ["## ini values\n", _ini_table(recorder.inis)]
    return "\n".join(parts).rstrip() + "\n"


def _said(text: str | None) -> str:
    """Help text as one table cell or line: argparse's `%%` unescaped, on one line, with
    `<` and pipes escaped (`<model>` is not HTML)."""
    said = " ".join((text or "").replace("%%", "%").split())
    return table_text(said.replace("<", "&lt;"))


def _sentence(text: str) -> str:
    said = _said(text)
    return said[:1].upper() + said[1:] + ("" if said.endswith(".") else ".")


def _usage_and_description(parser: argparse.ArgumentParser) -> list[str]:
    """The usage line, and the description; a description that opens with its own
    `usage:` paragraph (`codeif gate`, whose arguments are pytest's) gives the usage."""
    paragraphs = (parser.description or "").split("\n\n")
    usage = parser.format_usage().strip()
    if paragraphs[0].startswith("usage:"):
        usage, paragraphs = paragraphs[0], paragraphs[1:]
    described = [_sentence(p) + "\n" for p in paragraphs if p.strip()]
    return [f"```text\n{usage}\n```\n", *described]


def _parser_section(parser: argparse.ArgumentParser, prog: str, depth: int = 3) -> str:
    parts = _usage_and_description(parser)
    rows = [
        f"| {code(', '.join(action.option_strings) or action.dest)} | {_said(action.help)} |"
        for action in parser._actions  # argparse lists its arguments only here
        if not isinstance(action, argparse._SubParsersAction) and action.help != argparse.SUPPRESS
    ]
    if rows:
        parts.append("| argument | meaning |\n| --- | --- |\n" + "\n".join(rows) + "\n")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                parts.append(f"{'#' * depth} `{prog} {name}`\n")
                if helps.get(name) and not sub.description:
                    parts.append(_sentence(helps[name] or "") + "\n")
                parts.append(_parser_section(sub, f"{prog} {name}", depth + 1))
    return "\n".join(parts)


def _options_table(options: list[tuple[tuple[str, ...], dict[str, Any]]]) -> str:
    rows = ["| option | meaning |", "| --- | --- |"]
    for names, attrs in options:
        shown = ", ".join(names)
        if attrs.get("metavar"):
            shown += f" {attrs['metavar']}"
        elif attrs.get("choices"):
            shown += "={" + ",".join(attrs["choices"]) + "}"
        rows.append(f"| {code(shown)} | {_said(attrs.get('help'))} |")
    return "\n".join(rows) + "\n"


def _ini_table(inis: list[tuple[str, dict[str, Any]]]) -> str:
    rows = ["| ini value | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, attrs in inis:
        default = attrs.get("default")
        shown = code(" ".join(default) if isinstance(default, list) else default) if default else ""
        kind = attrs.get("type") or "string"
        rows.append(f"| {code(name)} | {kind} | {shown} | {_said(attrs.get('help'))} |")
    return "\n".join(rows) + "\n"

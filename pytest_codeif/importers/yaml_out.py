"""Write task files people can read: multi-line text as YAML literal blocks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class _TaskDumper(yaml.SafeDumper):
    """Safe YAML, keys in insertion order, multi-line strings as `|` blocks (PyYAML falls
    back to a quoted scalar by itself when a block cannot hold the text exactly)."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_TaskDumper.add_representer(str, _text)


def write_task_file(path: Path, document: dict[str, Any], header: str) -> None:
    """Write `document` under a comment header, atomically."""
    text = yaml.dump(document, Dumper=_TaskDumper, sort_keys=False, allow_unicode=True, width=100)
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(comment + text, encoding="utf-8")
    tmp.replace(path)

"""`python -m pytest_codeif.docs`: rewrite the task-file JSON Schema shipped for editors
(after changing a check's options; a test fails until you do). `python -m
pytest_codeif.docs FOLDER`: write the site's generated pages into FOLDER instead (mkdocs
makes them itself as it builds, through `docs/hooks.py`; the folder is for reading them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.docs.site import generated_pages
from pytest_codeif.taskfile.schema import build_task_schema

TASK_SCHEMA_PATH: Final = Path(__file__).parent.parent / "taskfile" / "task.schema.json"


def task_schema_text(registry: CheckRegistry) -> str:
    """The task-file schema as it is written to disk."""
    return json.dumps(build_task_schema(registry), indent=2) + "\n"


def write_pages(folder: Path) -> list[Path]:
    """Write every generated page under `folder`; the paths written."""
    written = []
    for relative, text in generated_pages().items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Rewrite the shipped schema; given a folder, write the generated pages there."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        print(f"{len(write_pages(Path(args[0])))} pages written under {args[0]}")
        return 0
    TASK_SCHEMA_PATH.write_text(task_schema_text(builtin_registry()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What the tool checks (`ruff`, `mypy`) share about `project-config: true`."""

from __future__ import annotations

from pytest_codeif.outcome import Undecidable


def project_only(tool: str) -> Undecidable:
    """The task error of `project-config: true` on code that is no project folder."""
    return Undecidable(
        "invalid-task",
        f"`project-config: true` reads a project's own {tool} configuration: it needs "
        "`directory:` code (a configuration beside a response or a file is never read)",
        key_path=("project-config",),
    )

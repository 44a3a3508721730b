"""mkdocs hooks: the pages generated from the code (a page per check, the task-file and
command-line references) are added when the site is built, never committed, so they
cannot go stale; the Checks section of the navigation lists every check's page."""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from pytest_codeif.docs.site import checks_nav, generated_pages

#: The navigation entry the hook fills with one page per check.
CHECKS_ENTRY = "Checks"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Fill the `Checks` section of `nav` with the index and a page per check."""
    nav: list[Any] = config.nav or []
    for position, entry in enumerate(nav):
        if isinstance(entry, dict) and CHECKS_ENTRY in entry:
            nav[position] = {CHECKS_ENTRY: checks_nav()}
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add every generated page to the site's files."""
    for path, text in generated_pages().items():
        files.append(File.generated(config, path, content=text))
    return files

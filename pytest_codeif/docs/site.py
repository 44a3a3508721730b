"""Every generated page of the documentation site, by its path in the site, and the
site's navigation entry for the checks."""

from __future__ import annotations

from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.checks.registry import CheckRegistry
from pytest_codeif.docs import cli_page, layout_page, taskfile_page
from pytest_codeif.docs.check_pages import FOLDER, check_page, index_page, page_path


def generated_pages(registry: CheckRegistry | None = None) -> dict[str, str]:
    """Site-relative path -> Markdown, for every page written from the code (the checks of
    `registry`, by default the built-in ones)."""
    checks = list(builtin_registry() if registry is None else registry)
    pages = {
        f"{FOLDER}/index.md": index_page(checks),
        taskfile_page.PATH: taskfile_page.taskfile_page(),
        cli_page.PATH: cli_page.cli_page(),
        layout_page.PATH: layout_page.layout_page(),
    }
    pages.update({page_path(check): check_page(check) for check in checks})
    return pages


def checks_nav(registry: CheckRegistry | None = None) -> list[str | dict[str, str]]:
    """The Checks section of the site's navigation: the index, then a page per check."""
    checks = builtin_registry() if registry is None else registry
    return [f"{FOLDER}/index.md", *({check.name: page_path(check)} for check in checks)]

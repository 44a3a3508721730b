"""The documentation: generated files match the code, every check has its page, the
site builds strictly, and the examples the README and the docs pages show work."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest
import yaml

from pytest_codeif.checks.base import documentation
from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.docs.__main__ import TASK_SCHEMA_PATH, main, task_schema_text, write_pages
from pytest_codeif.docs.check_pages import check_page, page_path
from pytest_codeif.docs.layout_page import layers, layout_page
from pytest_codeif.docs.schema_text import accepts, key_rules, table_text
from pytest_codeif.docs.site import checks_nav, generated_pages
from tests.conftest import EXAMPLES, REPO

README = REPO / "README.md"
DOCS = REPO / "docs"


def fenced(text: str, language: str) -> list[str]:
    """The bodies of the ```LANGUAGE blocks of `text`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)


# -- generated files -----------------------------------------------------------------


def test_shipped_task_schema_is_current() -> None:
    assert TASK_SCHEMA_PATH.read_text() == task_schema_text(builtin_registry()), (
        "run `python -m pytest_codeif.docs`"
    )


def test_shipped_schema_accepts_the_examples_and_rejects_typos() -> None:
    schema = json.loads(TASK_SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for path in EXAMPLES.rglob("*.codeif.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    bad = {"tasks": [{"id": "t", "code": "x", "constraints": [{"check": "ruff", "selct": ["E"]}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_every_registered_check_has_a_page_in_the_navigation() -> None:
    pages = generated_pages()
    nav = checks_nav()
    registry = builtin_registry()
    assert len(registry) > 30
    for check in registry:
        page = pages[page_path(check)]
        assert page.startswith(f"# `{check.name}`\n")
        assert {check.name: page_path(check)} in nav
        assert f"[`{check.name}`]({check.name}.md)" in pages["checks/index.md"]


def test_check_page_holds_docstring_options_and_proven_samples() -> None:
    calls = builtin_registry().get("calls")
    assert calls is not None
    page = check_page(calls)
    assert documentation(calls) in page
    assert "| `require` | list of string matching" in page
    assert "Give at least one of: `require`; `require-any`; `forbid`." in page
    satisfies, violates = page.index("## Satisfies"), page.index("## Violates")
    assert satisfies < violates
    # Every sample is shown, under its verdict, with its options and its pinned message.
    assert page.count("### satisfies ") == len(calls.satisfied_by)
    assert page.count("### violates ") == len(calls.violated_by)
    first = calls.violated_by[0]
    assert isinstance(first.code, str)
    assert first.code.rstrip() in page[violates:]
    assert first.message is not None and first.message in page[violates:]


def test_a_project_sample_shows_each_file_under_its_path() -> None:
    projects = [
        (check, sample)
        for check in builtin_registry()
        for sample in (*check.satisfied_by, *check.violated_by)
        if not isinstance(sample.code, str)
    ]
    assert projects, "some check proves itself on a project of several files"
    check, sample = projects[0]
    page = check_page(check)
    assert not isinstance(sample.code, str)
    for path in sample.code:
        assert f'```python title="{path}"' in page


def test_schema_words() -> None:
    assert accepts({"enum": ["a", "b"]}) == "one of `a`, `b`"
    assert accepts({"type": "array", "items": {"type": "string"}, "minItems": 1}) == (
        "list of string (at least 1)"
    )
    assert accepts({"type": "integer", "minimum": 1}) == "integer >= 1"
    # A pipe in a code span is the span's text, in a table too: no backslash shown.
    assert accepts({"type": "string", "pattern": "a|b"}) == "string matching `a|b`"
    assert table_text("a | b `x|y` c") == r"a \| b `x|y` c"
    nested = {
        "type": "array",
        "minItems": 1,
        "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }
    assert accepts(nested) == "list of (string or integer) (at least 1)"
    assert key_rules({"dependentRequired": {"start-lines": ["function-start"]}}) == [
        "`start-lines` needs `function-start`."
    ]


def test_task_file_reference_lists_every_key_the_schema_allows() -> None:
    page = generated_pages()["reference/task-file.md"]
    schema = json.loads(TASK_SCHEMA_PATH.read_text())
    task = schema["properties"]["tasks"]["items"]
    for key in (*schema["properties"], *task["properties"]):
        assert f"| `{key}`" in page, key
    for key in task["properties"]["constraints"]["items"]["properties"]:
        assert f"| `{key}`" in page, key


def test_cli_reference_lists_every_subcommand_option_and_ini_value() -> None:
    page = generated_pages()["reference/cli.md"]
    for command in ("gate", "merge", "import multicodeif", "check-samples", "report"):
        assert f"`codeif {command}`" in page, command
    for option in ("--codeif-report PATH", "--codeif-items={constraint,task}", "--codeif"):
        assert f"| `{option}` |" in page
    assert "| `codeif_patterns` | linelist | `*.codeif.yaml *.codeif.yml` |" in page
    assert "%%" not in page


def test_layout_page_names_every_module_of_the_package_with_what_it_does() -> None:
    page = layout_page()
    package = REPO / "pytest_codeif"
    top = {
        path.stem
        for path in package.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    listed = {name for line in layers() for name in line}
    assert top == listed, "the layers contract lists every module (import-linter: exhaustive)"
    rows = {cells[2].strip(): cells[3].strip() for cells in _table_rows(page) if len(cells) > 4}
    for shown in ("`gate/`", "`safe_regex.py`", "`docs/`", "`checks/`", "`engine/`"):
        assert len(rows[shown]) > 20, f"{shown} is said in words"


def _table_rows(page: str) -> list[list[str]]:
    return [line.split("|") for line in page.splitlines() if line.startswith("| ")]


def test_pages_written_to_a_folder_leave_the_schema_alone(tmp_path: Path) -> None:
    before = TASK_SCHEMA_PATH.stat().st_mtime_ns
    assert main([str(tmp_path)]) == 0
    assert TASK_SCHEMA_PATH.stat().st_mtime_ns == before
    assert (tmp_path / "checks" / "ruff.md").read_text().startswith("# `ruff`")
    assert (tmp_path / "reference" / "cli.md").read_text().startswith("# Command-line")
    assert len(write_pages(tmp_path / "again")) == len(generated_pages())


# -- the site ------------------------------------------------------------------------


def _hooks() -> ModuleType:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mkdocs_navigation_gets_every_check_and_every_hand_page_is_in_it() -> None:
    hooks = _hooks()
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    nav_text = json.dumps(config["nav"])
    for page in DOCS.rglob("*.md"):
        assert f'"{page.relative_to(DOCS).as_posix()}"' in nav_text, page

    class Config:
        nav = config["nav"]

    filled = hooks.on_config(Config())
    (checks,) = [entry["Checks"] for entry in filled.nav if "Checks" in entry]
    assert checks == checks_nav()


def test_site_builds_strictly(tmp_path: Path) -> None:
    """As `.ci/run` builds it: a warning (a broken link, a page out of the nav) fails."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    result = subprocess.run(
        [*command, "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "checks" / "named-algorithm" / "index.html").exists()


# -- the README: a front page ----------------------------------------------------------


def test_readme_is_a_front_page_that_links_into_the_docs() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 300
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (REPO / target).exists(), target


def test_readme_gives_exactly_two_commands() -> None:
    text = README.read_text()
    start = text.index("## Quick start")
    quick = text[start : text.index("\n## ", start + 1)]
    commands = fenced(quick, "sh")
    assert len(commands) == 2
    assert "pytest --codeif examples/" in commands[0]
    assert commands[1].strip() == "bash .ci/run"


def test_readme_example_runs_as_shown(pytester: pytest.Pytester) -> None:
    text = README.read_text()
    found = re.search(r"<!-- example: task-file -->\n```yaml\n(.*?)^```$", text, re.S | re.M)
    assert found is not None
    pytester.makefile(".codeif.yaml", fib=found.group(1))
    result = pytester.runpytest("--codeif", "-v", "-p", "no:cacheprovider")
    shown = fenced(text[found.end() :], "console")[0]
    for line in shown.splitlines()[1:]:
        result.stdout.fnmatch_lines([f"{line}*"])
    result.assert_outcomes(passed=4)


def test_task_files_page_example_runs(pytester: pytest.Pytester) -> None:
    block = fenced((DOCS / "task-files.md").read_text(), "yaml")[0]
    pytester.makefile(".codeif.yaml", readme=block)
    pytester.mkdir("checks")
    (pytester.path / "checks" / "fib_checks.py").write_text(
        "from solution import fib\n\ndef test_fib():\n    assert fib(12) == 144\n"
    )
    result = pytester.runpytest("--codeif", "-v")
    result.assert_outcomes(passed=5)


def test_every_codeif_option_the_pages_name_exists() -> None:
    """A page cannot name an option the plugin does not have (a rename leaves none)."""
    option = re.compile(r"--codeif(?:-[a-z]+)*")
    declared = set(option.findall(generated_pages()["reference/cli.md"]))
    texts = [README.read_text(), *(page.read_text() for page in DOCS.rglob("*.md"))]
    named = {found for text in texts for found in option.findall(text)}
    assert {"--codeif-changed-since", "--codeif-items", "--codeif-report"} <= named
    assert named <= declared, sorted(named - declared)

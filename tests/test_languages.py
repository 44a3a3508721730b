"""The code layer keyed by language (pytest_codeif.code.languages and its users).

Python, JavaScript and TypeScript are built in; these tests register a toy one for the
length of a test, to prove that listing, reading, extracting, parsing and import graphs take each
file's language from the registry and that a language the layer cannot handle is a
located error rather than code silently skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_codeif.code.extract import extract_code, extract_python
from pytest_codeif.code.import_graph import build_import_graph
from pytest_codeif.code.languages import (
    PYTHON,
    Language,
    UnknownLanguage,
    language,
    language_of_file,
    language_of_path,
    registered,
)
from pytest_codeif.code.parsers import parse_source_file
from pytest_codeif.code.unit import CodeUnit, load_unit
from pytest_codeif.code.walk import python_files, source_files
from pytest_codeif.errors import Location
from pytest_codeif.outcome import Undecidable
from pytest_codeif.spec import CodeSpec

TOY = Language(
    name="toy",
    suffixes=(".toy",),
    file_suffixes=(".toy",),
    fence_tags=frozenset({"toy"}),
    single_suffix=".toy",
)


@pytest.fixture
def toy() -> Iterator[Language]:
    with registered(TOY) as lang:
        yield lang


def project(root: Path) -> Path:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text("import app.util\n")
    (root / "app" / "util.py").write_text("X = 1\n")
    (root / "app" / "view.toy").write_text("use app.core\n")
    (root / "notes.txt").write_text("not code\n")
    task = root / "t.codeif.yaml"
    task.write_text("")
    return task


def directory_unit(task: Path) -> CodeUnit:
    spec = CodeSpec("directory", ".", Location(task, 1, ()), None)
    return load_unit(spec, task, "k")


def test_the_builtin_languages() -> None:
    assert language("python") is PYTHON
    assert language("typescript").suffixes == (".ts", ".tsx", ".mts", ".cts")
    assert language_of_path("web/app.js") is language("javascript")
    assert language_of_path("pkg/mod.py") is PYTHON
    assert language_of_path("pkg/mod.PY") is None  # the walk matches suffixes exactly
    assert language_of_path("view.toy") is None
    assert language_of_file("answer.PYW") is PYTHON  # a task's `file:` ignores case
    assert language_of_file("answer.md") is None  # a model response


def test_an_unknown_language_is_named_with_the_closest_known_one() -> None:
    with pytest.raises(UnknownLanguage, match=r"'pyhton' \(did you mean 'python'\?\)"):
        language("pyhton")


def test_a_language_is_registered_for_the_block_only() -> None:
    with registered(TOY):
        assert language("toy") is TOY
        with pytest.raises(ValueError, match="already registered"), registered(TOY):
            pass
    with pytest.raises(UnknownLanguage):
        language("toy")


def test_a_language_cannot_take_another_languages_suffix() -> None:
    clash = Language("snake", (".py",), (".py",), frozenset({"snake"}), ".py")
    with pytest.raises(ValueError, match=r"\['\.py'\] already belong"), registered(clash):
        pass


def test_project_files_are_listed_and_read_in_their_language(tmp_path: Path, toy: Language) -> None:
    task = project(tmp_path)
    assert python_files(tmp_path) == ["app/__init__.py", "app/core.py", "app/util.py"]
    assert "app/view.toy" in source_files(tmp_path)
    unit = directory_unit(task)
    by_path = {f.relpath: f.language for f in unit.files}
    assert by_path == {
        "app/__init__.py": "python",
        "app/core.py": "python",
        "app/util.py": "python",
        "app/view.toy": "toy",
    }
    assert unit.languages == {"python", "toy"}
    # Module names are Python's: the toy file is no Python module.
    assert unit.names is not None
    assert set(unit.names.modules) == {"app/__init__.py", "app/core.py", "app/util.py"}


def test_without_the_language_its_files_are_not_listed(tmp_path: Path) -> None:
    task = project(tmp_path)
    unit = directory_unit(task)
    assert [f.relpath for f in unit.files] == [
        "app/__init__.py",
        "app/core.py",
        "app/util.py",
    ]
    assert unit.files_in("python") is unit.files


def test_the_import_graph_holds_one_languages_files(tmp_path: Path, toy: Language) -> None:
    unit = directory_unit(project(tmp_path))
    graph = build_import_graph(unit)
    assert graph.nodes == {"app", "app.core", "app.util"}
    assert graph.imported_by("app.core") == ("app.util",)
    with pytest.raises(Undecidable, match="imports of toy code cannot be read") as raised:
        build_import_graph(unit, language="toy")
    assert raised.value.kind == "invalid-task"


def test_a_file_in_a_language_without_a_parser_is_a_located_error(
    tmp_path: Path, toy: Language
) -> None:
    unit = directory_unit(project(tmp_path))
    toy_file = unit.file("app/view.toy")
    assert toy_file is not None
    with pytest.raises(Undecidable, match=r"app/view\.toy: toy code cannot be parsed") as raised:
        parse_source_file(toy_file)
    assert raised.value.kind == "invalid-task"
    python_file = unit.file("app/core.py")
    assert python_file is not None
    assert parse_source_file(python_file).relpath == "app/core.py"


def test_a_single_file_takes_its_languages_name(tmp_path: Path, toy: Language) -> None:
    (tmp_path / "answer.toy").write_text("print 1\n")
    task = tmp_path / "t.codeif.yaml"
    spec = CodeSpec("file", "answer.toy", Location(task, 1, ()), None)
    unit = load_unit(spec, task, "k")
    assert [(f.relpath, f.language) for f in unit.files] == [("solution.toy", "toy")]


def test_fences_are_chosen_by_the_languages_tags() -> None:
    response = "```toy\nuse a\n```\n\n```python\nx = 1\n```\n"
    python = extract_python(response)
    assert python is not None and python.text == "x = 1\n"
    toy = extract_code(response, TOY)
    assert toy is not None and toy.text == "use a\n" and toy.line_origin == (2,)
    # A response that is bare code is recognised for Python only.
    assert extract_code("x = 1\ny = 2\n", TOY) is None
    assert extract_python("x = 1\ny = 2\n") is not None


TOY_PROJECT_TASK = """\
tasks:
  - id: mixed
    directory: proj
    constraints:
      - check: construct
        forbid: [recursion]
      - check: construct
        forbid: [recursion]
        files: ["web/**"]
"""


def test_a_check_judges_only_its_languages_files(pytester: pytest.Pytester) -> None:
    """A Python check on a mixed project judges the Python files; on a scope holding none
    it is a located error naming the languages, never a pass."""
    pytester.makefile(".codeif.yaml", tasks=TOY_PROJECT_TASK)
    proj = pytester.path / "proj"
    (proj / "web").mkdir(parents=True)
    (proj / "app.py").write_text("def f(n):\n    return f(n - 1) if n else 0\n")
    (proj / "web" / "page.toy").write_text("this is no python (\n")
    with registered(TOY):
        result = pytester.runpytest_inprocess("--codeif", "-p", "no:randomly", "-rA")
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*check 'construct' judges javascript, python, typescript code, and the"
            " constraint's scope (files: web/**) holds none: the code is written in python, toy*"
        ]
    )

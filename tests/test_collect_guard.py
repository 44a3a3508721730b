"""The host's pytest never collects code under evaluation: a conftest.py or test_*.py in
a task's code folder, code file, response file or folder of responses is neither
imported nor collected by `pytest --codeif .`, and every task is still judged."""

from __future__ import annotations

from pathlib import Path

import pytest

#: Code that, imported by the host's pytest (where the plugin is loaded; the sandbox's
#: interpreters never load it), leaves a canary file named after it.
PLANT = """\
import sys
if "pytest_codeif.plugin" in sys.modules:
    with open({canary!r}, "a") as out:
        out.write({name!r} + "\\n")
"""

TASKS = """\
tasks:
  - id: project
    directory: project/
    module: solution
    tests:
      - {call: answer(), expect: 42}
  - id: code-file
    file: test_solution.py
    tests:
      - {call: answer(), expect: 42}
  - id: answered
    response-file: test_answer.py
    tests:
      - {call: answer(), expect: 42}
  - id: many
    responses: answers/
    tests:
      - {call: answer(), expect: 42}
  - id: broken
    directory: broken/
    constraints:
      - {check: no-such-check}
"""

ANSWER = "def answer():\n    return 42\n"


def plant(folder: Path, canary: Path, name: str, body: str = ANSWER) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text(PLANT.format(canary=str(canary), name=name) + body)


@pytest.fixture
def canary(pytester: pytest.Pytester) -> Path:
    """A task file whose every kind of code carries conftest.py and test files that
    write to the returned canary when the host imports them."""
    root = pytester.path
    found = root / "canary.txt"
    (root / "tasks.codeif.yaml").write_text(TASKS)
    for name in ("conftest.py", "test_x.py", "pkg/test_y.py", "pkg/conftest.py"):
        plant(root / "project" / name, found, f"project/{name}")
    plant(root / "project" / "solution.py", found, "project/solution.py")
    plant(root / "test_solution.py", found, "test_solution.py")
    response = '"""Here:\n```python\ndef answer():\n    return 42\n```\n"""\n'
    plant(root / "test_answer.py", found, "test_answer.py", response)
    for name in ("test_a.py", "conftest.py"):
        plant(root / "answers" / name, found, f"answers/{name}")
    for name in ("conftest.py", "test_z.py"):
        plant(root / "broken" / name, found, f"broken/{name}")
    return found


def test_the_host_never_imports_code_under_evaluation(
    pytester: pytest.Pytester, canary: Path
) -> None:
    result = pytester.runpytest("--codeif", ".", "-p", "no:cacheprovider")
    assert not canary.exists(), canary.read_text()
    # Each task judged in the sandbox: the project, the code file, the response file,
    # two responses (answers/ holds two files); the invalid task is one error.
    result.assert_outcomes(passed=5, errors=1)
    result.stdout.fnmatch_lines(["*no-such-check*"])


def test_without_codeif_the_files_are_collected_as_ever(
    pytester: pytest.Pytester, canary: Path
) -> None:
    """The control: the planted files are what pytest imports when nothing stops it."""
    pytester.runpytest("-p", "no:cacheprovider")
    assert "project/conftest.py" in canary.read_text()


def test_a_task_file_inside_its_own_code_folder_is_still_collected(
    pytester: pytest.Pytester,
) -> None:
    found = pytester.path / "canary.txt"
    folder = pytester.path / "whole"
    tasks = "tasks:\n  - id: whole\n    directory: .\n    module: solution\n"
    tasks += "    tests:\n      - {call: answer(), expect: 42}\n"
    folder.mkdir()
    (folder / "t.codeif.yaml").write_text(tasks)
    plant(folder / "solution.py", found, "solution.py")
    plant(folder / "sub" / "test_x.py", found, "sub/test_x.py")
    # Planted in the code folder: code, never read as a task file.
    (folder / "sub" / "p.codeif.yaml").write_text(tasks.replace("whole", "planted"))
    result = pytester.runpytest("--codeif", ".", "-p", "no:cacheprovider")
    assert not found.exists(), found.read_text()
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*planted*")

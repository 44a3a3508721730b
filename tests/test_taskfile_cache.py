"""Task files kept composed and validated in pytest's cache directory: a warm run reads
no YAML and validates nothing, yet says exactly what a fresh read says, at the same
places; a broken entry is read afresh and written again; --cache-clear and
-p no:cacheprovider work as ever; pytest-xdist workers share the entries."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pytest_codeif.checks.base import Check
from pytest_codeif.checks.builtin import builtin_registry
from pytest_codeif.errors import TaskFileError
from pytest_codeif.taskfile import parsed_cache, schema
from pytest_codeif.taskfile.parse import ParsedFile
from pytest_codeif.taskfile.parsed_cache import FOLDER, TaskFileCache
from tests.conftest import FIXTURES, copy_into

GOOD = """\
tasks:
  - id: sq
    code: |
      def sq(x):
          return x * x
    constraints:
      - check: construct
        forbid: [global]
    tests:
      - call: sq(3)
        expect: 9
"""

#: Bad files beside fixtures/bad: problems deeper than the positions a load keeps, a
#: value its tag refuses, a file with no tasks.
MORE_BAD = {
    "deep.codeif.yaml": """\
tasks:
  - id: deep
    code: "def f(x): return x"
    tests:
      - input:
          args: [1]
          kwarg: {}
        function: f
        expect: 1
""",
    "deep_duplicate.codeif.yaml": (
        "tasks:\n  - id: t\n    tests:\n      - input: {args: [], args: []}\n"
    ),
    "bad_value.codeif.yaml": "tasks:\n  - id: t\n    timeout: !!float soon\n",
    "empty.codeif.yaml": "# nothing here\n",
}


def _entries(root: Path) -> list[Path]:
    return sorted((root / ".pytest_cache" / "d" / FOLDER).glob("*.json"))


def _errors(result: pytest.RunResult) -> list[str]:
    """Every line that says where a problem is, and the summary, without timings."""
    lines = [line for line in result.outlines if ".codeif.yaml" in line or " in " in line]
    return sorted(re.sub(r" in [0-9.]+s", "", line) for line in lines)


@pytest.fixture
def bad_files(pytester: pytest.Pytester) -> None:
    copy_into(pytester, FIXTURES / "bad")
    for name, text in MORE_BAD.items():
        (pytester.path / name).write_text(text)


@pytest.mark.usefixtures("bad_files")
def test_bad_files_say_the_same_warm_as_cold(pytester: pytest.Pytester) -> None:
    cold = pytester.runpytest_subprocess("--codeif", "-p", "no:randomly")
    assert _entries(pytester.path), "the cold run wrote no entry"
    warm = pytester.runpytest_subprocess("--codeif", "-p", "no:randomly")
    unkept = pytester.runpytest_subprocess(
        "--codeif", "-p", "no:randomly", "-p", "no:cacheprovider"
    )
    assert cold.ret == warm.ret == unkept.ret == pytest.ExitCode.TESTS_FAILED
    assert _errors(warm) == _errors(cold) == _errors(unkept)
    shown = "\n".join(cold.outlines)
    assert "deep.codeif.yaml:7: at tasks[0].tests[0].input.kwarg: unknown key `kwarg`" in shown
    assert "deep_duplicate.codeif.yaml:4: at tasks[0].tests[0].input.args: duplicate key" in shown
    assert "bad_value.codeif.yaml:3: at tasks[0].timeout: invalid value: 'soon'" in shown


def _read(cache: TaskFileCache, path: Path) -> ParsedFile | TaskFileError:
    try:
        return cache.read(path, path.parent)
    except TaskFileError as exc:
        return exc


def _said(found: ParsedFile | TaskFileError) -> Any:
    """What a read says, comparable: each task's id and location, each error's text."""
    if isinstance(found, TaskFileError):
        return [str(p) for p in getattr(found, "problems", (found,))]
    errors = [[str(p) for p in getattr(e, "problems", (e,))] for _, e in found.errors]
    tasks = [
        (t.id, t.location, t.code.mark, [c.location for c in t.constraints]) for t in found.tasks
    ]
    return [tasks, errors]


@pytest.mark.parametrize("name", [*MORE_BAD, "good.codeif.yaml", "invalid_yaml.codeif.yaml"])
def test_a_warm_read_composes_no_yaml_and_validates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    source = FIXTURES / "bad" / name
    text = source.read_text() if source.exists() else MORE_BAD.get(name, GOOD)
    path = tmp_path / name
    path.write_text(text)
    (tmp_path / "cache").mkdir()
    cold = _read(TaskFileCache(tmp_path / "cache", builtin_registry()), path)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a warm read composed or validated")

    with monkeypatch.context() as patched:
        # Locations deeper than an entry keeps come from a full load: allowed for errors.
        if not isinstance(cold, TaskFileError) and not cold.errors:
            patched.setattr(parsed_cache, "load_yaml_bytes", refused)
        patched.setattr(schema, "schema_problems", refused)
        warm = _read(TaskFileCache(tmp_path / "cache", builtin_registry()), path)
    unkept = _read(TaskFileCache(None, builtin_registry()), path)
    assert _said(warm) == _said(cold) == _said(unkept)


def test_a_broken_entry_is_read_afresh_and_written_again(tmp_path: Path) -> None:
    path = tmp_path / "t.codeif.yaml"
    path.write_text(GOOD)
    (tmp_path / "cache").mkdir()
    cache = TaskFileCache(tmp_path / "cache", builtin_registry())
    expected = _said(cache.read(path))
    (entry,) = (tmp_path / "cache").glob("*.json")
    whole = entry.read_bytes()
    for broken in (whole[: len(whole) // 2], b"", whole.replace(b"construct", b"constrict")):
        entry.write_bytes(broken)
        assert _said(cache.read(path)) == expected
        assert entry.read_bytes() == whole


def test_a_changed_file_replaces_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "t.codeif.yaml"
    (tmp_path / "cache").mkdir()
    cache = TaskFileCache(tmp_path / "cache", builtin_registry())
    path.write_text(GOOD)
    cache.read(path)
    path.write_text(GOOD.replace("sq(3)", "sq(4)").replace("9", "16"))
    (task,) = cache.read(path).tasks
    assert task.calls[0].expect == 16
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1


class Shout(Check):
    """A check registered by a plugin after the entries were written."""

    name: ClassVar[str] = "shout"
    category: ClassVar[str] = "style"
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"loud": {"type": "boolean"}},
        "additionalProperties": False,
    }


def test_a_new_check_reads_the_file_afresh(tmp_path: Path) -> None:
    path = tmp_path / "t.codeif.yaml"
    path.write_text(GOOD.replace("check: construct\n        forbid: [global]", "check: shout"))
    (tmp_path / "cache").mkdir()
    before = _read(TaskFileCache(tmp_path / "cache", builtin_registry()), path)
    assert "unknown check `shout`" in str(_said(before))
    registry = builtin_registry()
    registry.register(Shout)
    after = _read(TaskFileCache(tmp_path / "cache", registry), path)
    assert "unknown check" not in str(_said(after))


def test_cache_clear_and_no_cacheprovider(pytester: pytest.Pytester) -> None:
    pytester.makefile(".codeif.yaml", t=GOOD)
    pytester.runpytest_subprocess("--codeif", "--collect-only", "-q").assert_outcomes()
    (entry,) = _entries(pytester.path)
    entry.write_text("stale")
    result = pytester.runpytest_subprocess("--codeif", "--cache-clear", "-q")
    result.assert_outcomes(passed=2)
    assert _entries(pytester.path)[0].read_text() != "stale"
    result = pytester.runpytest_subprocess("--codeif", "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_xdist_workers_share_the_entries(pytester: pytest.Pytester, workers: str) -> None:
    for i in range(4):
        pytester.makefile(".codeif.yaml", **{f"t{i}": GOOD})
    (pytester.path / "bad.codeif.yaml").write_text(MORE_BAD["deep.codeif.yaml"])
    runs = [pytester.runpytest_subprocess("--codeif", "-n", workers, "-q") for _ in range(2)]
    for result in runs:
        result.assert_outcomes(passed=8, errors=1)
    assert len(_entries(pytester.path)) == 5
    assert not list((pytester.path / ".pytest_cache" / "d" / FOLDER).glob(".tmp-*"))

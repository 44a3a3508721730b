"""The `files` check: what it judges beyond its samples (executable bits, scope, includes,
pyproject.toml, files left out by the size bounds) and what it refuses to judge (a bad
pattern, a path the walk can never list, code that is not a project), each refusal
located in the task file, never a pass."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

# Imported before any pytester run (see tests/test_project_files.py).
import pytest_codeif.testing  # noqa: F401
from pytest_codeif.checks.base import Check
from pytest_codeif.checks.database import DatabaseCheck
from pytest_codeif.checks.files import FilesCheck
from pytest_codeif.checks.shared.project_paths import path_pattern
from pytest_codeif.checks.shared.requirement_names import listed_names, normalized
from pytest_codeif.code import unit as unit_module
from pytest_codeif.code.scope import Scope
from pytest_codeif.engine.engine import Engine
from pytest_codeif.errors import Location
from pytest_codeif.outcome import Verdict
from pytest_codeif.spec import CodeSpec
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from tests.test_changed_since import GITIGNORE, git, isolate_git


def judge(
    tmp_path: Path,
    files: Mapping[str, str | bytes],
    options: Mapping[str, object],
    *,
    executable: tuple[str, ...] = (),
    scope: Scope | None = None,
    check_class: type[Check] = FilesCheck,
) -> Verdict:
    """The verdict of a `files` check (or `check_class`) on a project made of `files`."""
    root = tmp_path / "project"
    for relpath, content in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        target.chmod(0o755 if relpath in executable else 0o644)
    task_path = tmp_path / "t.codeif.yaml"
    location = Location(task_path, 1, ())
    code = CodeSpec("directory", "project", location, None)
    task = Task(id="t", path=task_path, location=location, code=code)
    check = check_class(options)
    spec = ConstraintSpec(check.name, check, "Environment", None, None, location)
    if scope is not None:
        spec = ConstraintSpec(check.name, check, "Environment", None, None, location, scope)
    engine = Engine(tmp_path, tmp_path / "work", pool_size=1, fork_servers=False)
    try:
        return engine.evaluate(task, spec)
    finally:
        engine.close()


def messages(result: Verdict) -> list[str]:
    return [f"{e.path}:{e.line}: {e.message}" for e in result.evidence]


def test_an_executable_script_satisfies_and_a_plain_one_does_not(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "main.py": "print(1)\n",
        "run.sh": "#!/bin/sh\n",
        "scripts/a.sh": "#!/bin/sh\n",
        "scripts/b.sh": "#!/bin/sh\n",
    }
    options = {"executable": ["run.sh", "scripts/*.sh"]}
    ok = judge(
        tmp_path / "ok", files, options, executable=("run.sh", "scripts/a.sh", "scripts/b.sh")
    )
    assert ok.status == "satisfied", messages(ok)
    bad = judge(tmp_path / "bad", files, options, executable=("run.sh", "scripts/a.sh"))
    assert bad.status == "violated"
    assert [(e.code_path, e.message) for e in bad.evidence] == [
        ("scripts/b.sh", "`scripts/b.sh` is not executable (`chmod +x scripts/b.sh`)")
    ]


def test_paths_are_anchored_at_the_root_and_folders_cover_their_files(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"main.py": "x = 1\n", "deploy/run.sh": "#!/bin/sh\n"}
    nested = judge(tmp_path / "a", files, {"required": ["run.sh"]})
    assert nested.status == "violated"
    assert nested.evidence[0].path.endswith("t.codeif.yaml")  # the task asked for it
    assert nested.evidence[0].code_path is None
    anywhere = judge(tmp_path / "b", files, {"required": ["**/run.sh", "deploy/", "deploy"]})
    assert anywhere.status == "satisfied", messages(anywhere)


def test_the_scope_decides_which_files_count(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "main.py": "x = 1\n",
        "app.sqlite3": b"SQLite format 3\x00",
        "tests/fixture.sqlite3": b"SQLite format 3\x00",
    }
    options = {"forbidden": ["**/*.sqlite3"]}
    scoped = judge(tmp_path / "a", files, options, scope=Scope(exclude_files=("tests/**",)))
    assert scoped.status == "violated"
    assert [e.code_path for e in scoped.evidence] == ["app.sqlite3"]  # kept by the scope
    whole = judge(tmp_path / "b", files, options)
    assert [e.code_path for e in whole.evidence] == ["app.sqlite3", "tests/fixture.sqlite3"]


def test_requirements_are_read_as_pip_reads_them(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "main.py": "x = 1\n",
        "requirements.txt": (
            "-r requirements/base.txt\n"
            "--index-url https://example.org/simple\n"
            "gunicorn ; sys_platform != 'win32'\n"
            "https://example.org/pkgs/orm.zip#egg=Peewee\n"
            "uvicorn[standard] \\\n    >=0.30\n"
        ),
        "requirements/base.txt": "Flask_SQLAlchemy==3.1  # ORM\n-r ../requirements.txt\n",
    }
    wanted = ["flask-sqlalchemy", "gunicorn", "peewee", "uvicorn", "FLASK.sqlalchemy"]
    ok = judge(tmp_path / "a", files, {"lists": {"requirements.txt": wanted}})
    assert ok.status == "satisfied", messages(ok)
    # A commented-out name and a longer name starting with it are not the package.
    bad = judge(
        tmp_path / "b",
        {"main.py": "x = 1\n", "requirements.txt": "# sqlalchemy\nsqlalchemy-utils\n"},
        {"lists": {"requirements.txt": ["sqlalchemy"]}},
    )
    assert bad.status == "violated"


def test_an_include_missing_from_the_project_is_said(tmp_path: Path) -> None:
    result = judge(
        tmp_path,
        {"main.py": "x = 1\n", "requirements.txt": "-r base.txt\nflask\n"},
        {"lists": {"requirements.txt": ["sqlalchemy"]}},
    )
    assert result.status == "violated"
    assert "includes `base.txt`, not in the project" in result.evidence[0].message


def test_pyproject_dependencies_of_every_kind_are_read(tmp_path: Path) -> None:
    pyproject = """
[project]
name = "app"
dependencies = ["SQLAlchemy>=2"]
[project.optional-dependencies]
pg = ["psycopg[binary]"]
[dependency-groups]
dev = ["pytest", {include-group = "lint"}]
[tool.poetry.dependencies]
python = "^3.11"
Flask = "^3"
[tool.poetry.group.web.dependencies]
gunicorn = "*"
"""
    files: dict[str, str | bytes] = {"main.py": "x = 1\n", "pyproject.toml": pyproject}
    wanted = ["sqlalchemy", "psycopg", "pytest", "flask", "gunicorn"]
    ok = judge(tmp_path / "a", files, {"lists": {"pyproject.toml": wanted}})
    assert ok.status == "satisfied", messages(ok)
    python = judge(tmp_path / "b", files, {"lists": {"pyproject.toml": ["python"]}})
    assert python.status == "violated"  # Poetry's `python` is no package


def test_contains_reads_text_never_binary(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "main.py": "x = 1\n",
        "schema.sql": "CREATE TABLE users (id INTEGER PRIMARY KEY);\n",
        "dump.bin": b"\x00CREATE TABLE users\xff",
    }
    ok = judge(
        tmp_path / "a",
        files,
        {"contains": [{"path": "*.sql", "pattern": r"(?i)create table users"}]},
    )
    assert ok.status == "satisfied", messages(ok)
    binary = judge(
        tmp_path / "b", files, {"contains": [{"path": "dump.bin", "pattern": "CREATE TABLE"}]}
    )
    assert binary.status == "violated"
    assert "(`dump.bin` not text)" in binary.evidence[0].message


def test_a_file_left_out_by_the_bounds_is_too_large_never_a_guess(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unit_module, "MAX_OTHER_FILE_BYTES", 64)
    files: dict[str, str | bytes] = {"main.py": "x = 1\n", "requirements.txt": "flask\n" * 20}
    listed = judge(tmp_path / "a", files, {"lists": {"requirements.txt": ["flask"]}})
    assert listed.status == "error" and listed.error_kind == "too-large"
    assert "`requirements.txt` was not read" in (listed.error or "")
    # Present all the same: required is met, forbidden is violated.
    assert judge(tmp_path / "b", files, {"required": ["requirements.txt"]}).status == "satisfied"
    forbidden = judge(tmp_path / "c", files, {"forbidden": ["*.txt"]})
    assert forbidden.status == "violated"
    assert "it was not read" in forbidden.evidence[0].message
    # The verdict says the project it judged is smaller than the one on disk.
    assert any("`requirements.txt` was left out of the project" in n for n in forbidden.notes)
    # So does `database`, for a file it would have read for a connection URL.
    env = {"main.py": 'URL = "sqlite://"\n', ".env": "DATABASE_URL=postgresql://db/app\n" * 9}
    database = judge(tmp_path / "d", env, {"is": "sqlite"}, check_class=DatabaseCheck)
    assert database.status == "satisfied"
    assert any("`.env` was left out" in n and "connection URLs" in n for n in database.notes)


def test_code_that_is_not_a_project_is_a_task_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: one
            code: "x = 1\\n"
            constraints:
              - {check: files, required: [run.sh]}
        """,
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*judges a `directory:` task's files*"])


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            r"contains: [{path: run.sh, pattern: '(a)\1'}]",
            "*contains[[]0[]].pattern:*backreference*",
        ),
        ("required: [node_modules/x/index.js]", "*required[[]0[]]: path*inside `node_modules/`*"),
        ("forbidden: [.github/workflows/ci.yml]", "*forbidden[[]0[]]: path*hidden*"),
        ("forbidden: ['!keep.txt']", "*forbidden[[]0[]]: path*negation*"),
        ("executable: [../run.sh]", "*executable[[]0[]]: path*`..`*"),
        ("forbidden: ['[abc']", "*forbidden[[]0[]]: path*matches nothing*"),
        ("lists: {Pipfile: [flask]}", "*lists: 'Pipfile' is not a requirements file*"),
        ("lists: {'req*.txt': [flask]}", "*lists: 'req[*].txt' is not a requirements file*"),
        ("id: nothing-asked", "give at least one of `required`, `forbidden`*"),
    ],
)
def test_an_option_that_cannot_apply_is_a_located_error(
    pytester: pytest.Pytester, options: str, said: str
) -> None:
    (pytester.path / "app").mkdir()
    (pytester.path / "app" / "main.py").write_text("x = 1\n")
    task = "tasks:\n  - id: app\n    directory: app\n    constraints:\n"
    task += f"      - {{check: files, {options}}}\n"
    pytester.makefile(".codeif.yaml", t=task)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)  # the task is invalid: none of its verdicts is given
    result.stdout.fnmatch_lines([f"invalid task file t.codeif.yaml:5: at tasks[[]0[]]*: {said}"])


def test_path_patterns() -> None:
    pattern = path_pattern("src/**/*.html")
    assert pattern.matches("src/templates/index.html") and pattern.matches("src/a.html")
    assert not pattern.matches("other/src/a.html")
    assert path_pattern("/run.sh").matches("run.sh")
    assert path_pattern(".env").matches(".env")  # hidden files are listed
    assert path_pattern("env/").matches("env/x.txt")  # `env` is a real package name


def test_requirement_names_are_read_in_linear_time() -> None:
    """A hostile requirements file (one very long line, deep include chains) ends."""
    long = "a" * 200_000 + "!" + "-" * 200_000
    found = listed_names(
        "requirements.txt", lambda path: long if path == "requirements.txt" else None
    )
    assert list(found.names) == [normalized("a" * 200_000)]
    chain = {f"r{i}.txt": f"-r r{i + 1}.txt\npkg{i}\n" for i in range(50)}
    deep = listed_names("r0.txt", chain.get)
    assert "pkg0" in deep.names and "pkg10" in deep.names and "pkg11" not in deep.names


GATED = """
tasks:
  - id: app
    directory: app
    constraints:
      - {check: files, lists: {requirements.txt: [sqlalchemy]}}
      - {check: construct, forbid: [lambda], files: ["*.py"]}
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_changed_requirements_file_is_judged_under_the_gate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--codeif-changed-since: only requirements.txt changed, so the constraint whose
    scope holds it is judged (and violated), the one scoped to Python files skipped."""
    repo = isolate_git(pytester, monkeypatch)
    (repo / "app").mkdir()
    (repo / "app" / "main.py").write_text("x = 1\n")
    (repo / "app" / "requirements.txt").write_text("sqlalchemy\n")
    (repo / ".gitignore").write_text(GITIGNORE)
    pytester.makefile(".codeif.yaml", t=GATED)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "app" / "requirements.txt").write_text("flask\n")
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "--codeif-changed-since=main")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*`requirements.txt` does not list `sqlalchemy`*"])

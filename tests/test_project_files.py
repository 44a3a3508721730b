"""A `directory:` task's whole project travels: its files other than source are read as
bytes with their executable bit (under the walk's ignore rules and their own size
bounds), copied into the sandbox's code folder, and part of the verdict cache's key."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

# Imported before any pytester run (as tests/conftest.py imports the plugin's items): a
# run that imported it afresh would take the built-in checks for a plugin's, and audit
# every sample of every check at each session start.
import pytest_codeif.testing  # noqa: F401
from pytest_codeif.code import unit as unit_module
from pytest_codeif.code.unit import CodeUnit, load_unit
from pytest_codeif.errors import Location
from pytest_codeif.functional.folders import unit_files
from pytest_codeif.outcome import Undecidable
from pytest_codeif.sandbox.code_folder import CodeFiles, write_folder
from pytest_codeif.spec import CodeSpec

#: Bytes that are no UTF-8 text: kept as they are, never decoded.
PNG = b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary"


def project(root: Path, files: dict[str, str | bytes], executable: tuple[str, ...] = ()) -> Path:
    """Write `files` under `root` (the executable ones with mode 0o755); return root."""
    for relpath, content in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        target.chmod(0o755 if relpath in executable else 0o644)
    return root


def load(root: Path, exclude: tuple[str, ...] = ()) -> CodeUnit:
    task = root.parent / "t.codeif.yaml"
    spec = CodeSpec("directory", root.name, Location(task, 1, ()), None, exclude)
    return load_unit(spec, task, "u1")


def test_other_files_are_read_as_bytes_with_their_executable_bit(tmp_path: Path) -> None:
    root = project(
        tmp_path / "app",
        {
            "main.py": "print('hi')\n",
            "run.sh": "#!/bin/sh\nexec python main.py\n",
            "requirements.txt": "flask\n",
            ".env": "DATABASE_URL=sqlite:///app.db\n",
            "templates/index.html": "<h1>hi</h1>\n",
            "static/logo.png": PNG,
            "tool.py": "print('tool')\n",
        },
        executable=("run.sh", "tool.py"),
    )
    unit = load(root)
    assert [f.relpath for f in unit.files] == ["main.py", "tool.py"]
    assert [f.relpath for f in unit.other_files] == [
        ".env",
        "requirements.txt",
        "run.sh",
        "static/logo.png",
        "templates/index.html",
    ]
    run_sh = unit.other_file("run.sh")
    assert run_sh is not None and run_sh.executable and run_sh.text is not None
    logo = unit.other_file("static/logo.png")
    assert logo is not None and logo.data == PNG and logo.text is None and not logo.executable
    assert unit.file("tool.py") is not None and unit.files[1].executable
    assert not unit.files[0].executable
    # A finding in an other file is located at it, line for line.
    located = unit.file(".env")
    assert located is not None and located.origin == root / ".env"
    assert located.origin_line(1) == 1


def test_the_walks_ignore_rules_hold_for_other_files(tmp_path: Path) -> None:
    root = project(
        tmp_path / "app",
        {
            "main.py": "print('hi')\n",
            ".gitignore": ".env\n*.log\n",
            ".env": "SECRET=1\n",
            "debug.log": "noise\n",
            "node_modules/pkg/index.js": "module.exports = 1\n",
            ".github/workflows/ci.yml": "on: push\n",
            "stale.pyc": b"\x00\x01",
            "main.cpython-311-x86_64-linux-gnu.so": b"\x7fELF",
            "notes.txt": "kept\n",
            "data/big.csv": "a,b\n",
        },
    )
    listed = [f.relpath for f in load(root, ("data/",)).other_files]
    assert listed == [".gitignore", "notes.txt"]
    # The task's `exclude` re-includes a gitignored file, as for modules.
    assert ".env" in [f.relpath for f in load(root, ("!.env",)).other_files]


def test_files_past_the_bounds_are_left_out_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unit_module, "MAX_OTHER_FILE_BYTES", 100)
    monkeypatch.setattr(unit_module, "MAX_OTHER_BYTES", 150)
    root = project(
        tmp_path / "app",
        {
            "main.py": "print('hi')\n",
            "a.txt": "a" * 80,
            "b.bin": b"b" * 101,
            "c.txt": "c" * 80,
            "d.txt": "d" * 60,
        },
        executable=("b.bin",),
    )
    unit = load(root)
    assert [f.relpath for f in unit.other_files] == ["a.txt", "d.txt"]
    left = {item.relpath: item for item in unit.left_out}
    assert set(left) == {"b.bin", "c.txt"}
    assert left["b.bin"].executable and left["b.bin"].size == 101
    assert left["b.bin"].reason == (
        "101 bytes, above the 100 bytes a file other than source may hold"
    )
    assert left["c.txt"].reason == (
        "its 80 bytes would take the project's files other than source past 150 bytes in all"
    )
    # Left out, so not copied either.
    assert "b.bin" not in unit_files(unit)


def test_an_unreadable_other_file_is_an_error_not_a_silent_gap(tmp_path: Path) -> None:
    root = project(tmp_path / "app", {"main.py": "print('hi')\n"})
    (root / "dangling.txt").symlink_to(root / "nowhere.txt")
    # A dangling link is not listed at all (as git would not list it)...
    assert [f.relpath for f in load(root).other_files] == []
    if os.geteuid() == 0:
        return  # root reads any file: no unreadable file to make
    secret = root / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    with pytest.raises(Undecidable) as raised:
        load(root)
    assert raised.value.kind == "missing-file"


def test_the_code_folder_holds_every_file_with_its_mode(tmp_path: Path) -> None:
    root = project(
        tmp_path / "app",
        {"main.py": "print('hi')\n", "run.sh": "#!/bin/sh\necho hi\n", "logo.png": PNG},
        executable=("run.sh",),
    )
    files = unit_files(load(root))
    assert isinstance(files, CodeFiles) and files.executable == {"run.sh"}
    assert files["logo.png"] == PNG
    folder = tmp_path / "code"
    write_folder(folder, files)
    assert stat.S_IMODE((folder / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "logo.png").stat().st_mode) == 0o644
    assert stat.S_IMODE((folder / "main.py").stat().st_mode) == 0o644
    assert (folder / "logo.png").read_bytes() == PNG
    # A plain mapping (a run's own files) is written as before: readable, not executable.
    write_folder(folder, {"x.py": b"x = 1\n"})
    assert stat.S_IMODE((folder / "x.py").stat().st_mode) == 0o644


TASK = """
tasks:
  - id: app
    directory: app
    exclude: ["!.env"]
    constraints:
      - check: files
        required: [run.sh, requirements.txt, .env, static/]
        executable: [run.sh]
        lists: {requirements.txt: [SQLAlchemy]}
        contains: [{path: .env, pattern: '(?m)^DATABASE_URL=sqlite:'}]
      - {check: files, id: no-env, forbidden: [.env]}
      - {check: database, is: sqlite}
    tests:
      - pytest: travels.py
"""

TRAVELS = """
import os
import stat
from pathlib import Path

HERE = Path(__file__).parent


def test_the_project_travels():
    assert stat.S_IMODE(os.stat(HERE / "run.sh").st_mode) & 0o111
    assert os.access(HERE / "run.sh", os.X_OK)
    assert not stat.S_IMODE(os.stat(HERE / "requirements.txt").st_mode) & 0o111
    assert (HERE / "requirements.txt").read_text() == "flask\\nsqlalchemy>=2\\n"
    assert (HERE / ".env").read_text() == "DATABASE_URL=sqlite:///app.db\\n"
    assert (HERE / "static" / "logo.png").read_bytes() == {png!r}
"""


@pytest.mark.parametrize("sandbox", ["bubblewrap", "process"])
def test_a_pytest_file_finds_the_whole_project_in_the_sandbox(
    pytester: pytest.Pytester, sandbox: str
) -> None:
    """Under bubblewrap the code reaches the run through a fork server's in-memory blob;
    with the process backend (the test file here is our own, not hostile) through a
    code folder written on disk. Both keep the bytes and the executable bit."""
    project(
        pytester.path / "app",
        {
            "main.py": "import os\n\nfrom sqlalchemy import create_engine\n\n"
            "def engine():\n    return create_engine(os.environ['DATABASE_URL'])\n",
            "run.sh": "#!/bin/sh\nexec python main.py\n",
            "requirements.txt": "flask\nsqlalchemy>=2\n",
            ".env": "DATABASE_URL=sqlite:///app.db\n",
            ".gitignore": ".env\n",
            "static/logo.png": PNG,
        },
        executable=("run.sh",),
    )
    pytester.makefile(".py", travels=TRAVELS.format(png=PNG))
    pytester.makefile(".codeif.yaml", t=TASK)
    result = pytester.runpytest(
        "--codeif", "-p", "no:cacheprovider", "-rA", f"--codeif-sandbox={sandbox}"
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*app/.env: [[]files[]] `.env` is forbidden (`.env`)*",
            "PASSED t.codeif.yaml::app::files",
            "PASSED t.codeif.yaml::app::database",
            "PASSED t.codeif.yaml::app::tests",
        ],
        consecutive=False,
    )


CACHED = """
tasks:
  - id: app
    directory: app
    constraints:
      - check: files
        lists: {requirements.txt: [sqlalchemy]}
      - check: construct
        forbid: [lambda]
"""


def cached(pytester: pytest.Pytester) -> dict[str, bool]:
    report = json.loads((pytester.path / "r.json").read_text())
    return {
        outcome["nodeid"].split("::", 1)[1]: outcome["cached"]
        for task in report["tasks"]
        for outcome in task["constraints"]
    }


def test_a_changed_requirements_file_is_changed_code(pytester: pytest.Pytester) -> None:
    project(pytester.path / "app", {"main.py": "x = 1\n", "requirements.txt": "sqlalchemy\n"})
    pytester.makefile(".codeif.yaml", t=CACHED)
    run = ("--codeif", "--codeif-report=r.json")
    pytester.runpytest(*run).assert_outcomes(passed=2)
    pytester.runpytest(*run).assert_outcomes(passed=2)
    assert cached(pytester) == {"app::files": True, "app::construct": True}

    (pytester.path / "app" / "requirements.txt").write_text("flask\n")
    result = pytester.runpytest(*run)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*requirements.txt*[[]files[]] `requirements.txt` does not list `sqlalchemy`*"]
    )
    assert cached(pytester) == {"app::files": False, "app::construct": False}

    # Its executable bit alone is a change too.
    (pytester.path / "app" / "requirements.txt").chmod(0o755)
    pytester.runpytest(*run).assert_outcomes(passed=1, failed=1)
    assert cached(pytester) == {"app::files": False, "app::construct": False}

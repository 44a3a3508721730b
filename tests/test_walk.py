"""Which Python files of a project directory are listed (pytest_codeif.code.walk)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_codeif.code.walk import (
    InvalidPatternError,
    Skipped,
    python_files,
    scan_project,
)


def make(root: Path, *paths: str, text: str = "x = 1\n") -> None:
    """Create each file (folders end with "/") under `root`."""
    for path in paths:
        target = root / path
        if path.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)


def ignore(folder: Path, *lines: str, name: str = ".gitignore") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("\n".join(lines) + "\n")


def test_lists_python_files_sorted_as_posix_paths(tmp_path: Path) -> None:
    make(tmp_path, "b.py", "a.py", "pkg/__init__.py", "pkg/sub/mod.py", "stub.pyi", "notes.txt")
    assert python_files(tmp_path) == ["a.py", "b.py", "pkg/__init__.py", "pkg/sub/mod.py"]


def test_root_gitignore(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "api_pb2.py", "pkg/api_pb2.py", "generated/models.py")
    ignore(tmp_path, "# generated code", "*_pb2.py", "generated/")
    assert python_files(tmp_path) == ["main.py"]


def test_nested_gitignore_is_relative_to_its_folder(tmp_path: Path) -> None:
    make(
        tmp_path,
        "local.py",
        "tmp.py",
        "pkg/local.py",
        "pkg/tmp.py",
        "pkg/sub/local.py",
        "pkg/sub/tmp.py",
        "other/tmp.py",
    )
    # "/local.py" is anchored to pkg/; "tmp.py" matches at any depth below pkg/ only.
    ignore(tmp_path / "pkg", "/local.py", "tmp.py")
    assert python_files(tmp_path) == [
        "local.py",
        "other/tmp.py",
        "pkg/sub/local.py",
        "tmp.py",
    ]


def test_negation(tmp_path: Path) -> None:
    make(tmp_path, "drop.py", "keep.py", "pkg/keep.py", "pkg/other.py")
    ignore(tmp_path, "*.py", "!keep.py")
    assert python_files(tmp_path) == ["keep.py", "pkg/keep.py"]


def test_a_deeper_gitignore_takes_precedence(tmp_path: Path) -> None:
    make(tmp_path, "gen_a.py", "pkg/gen_a.py", "pkg/gen_b.py")
    ignore(tmp_path, "gen_*.py")
    ignore(tmp_path / "pkg", "!gen_a.py")
    assert python_files(tmp_path) == ["pkg/gen_a.py"]


def test_no_file_is_reincluded_inside_an_ignored_folder(tmp_path: Path) -> None:
    make(tmp_path, "out/keep.py", "out/drop.py", "main.py")
    ignore(tmp_path, "out/", "!out/keep.py")
    assert python_files(tmp_path) == ["main.py"]


def test_a_negated_folder_is_walked_again(tmp_path: Path) -> None:
    # The "ignore everything, then allow" style: /* then !/src/.
    make(tmp_path, "setup.py", "src/app.py", "src/tmp/x.py")
    ignore(tmp_path, "tmp/", "/*", "!/src/")
    # src/ is re-included, but src/tmp/ is still matched by "tmp/" itself.
    assert python_files(tmp_path) == ["src/app.py"]


def test_folder_only_pattern_spares_files(tmp_path: Path) -> None:
    make(tmp_path, "scratch/a.py", "mod.py", "lib/mod.py/inner.py")
    ignore(tmp_path, "scratch/", "mod.py/")
    # "mod.py/" matches the folder lib/mod.py, not the file mod.py.
    assert python_files(tmp_path) == ["mod.py"]


def test_anchored_patterns(tmp_path: Path) -> None:
    make(tmp_path, "x.py", "sub/x.py", "docs/conf.py", "a/docs/conf.py")
    # A leading "/" or a "/" in the middle anchors a pattern to its folder.
    ignore(tmp_path, "/x.py", "docs/conf.py")
    assert python_files(tmp_path) == ["a/docs/conf.py", "sub/x.py"]


def test_double_star(tmp_path: Path) -> None:
    make(
        tmp_path,
        "app/models.py",
        "app/migrations/0001.py",
        "x/y/migrations/0002.py",
        "a/z.py",
        "a/b/c/z.py",
        "z.py",
    )
    ignore(tmp_path, "**/migrations/", "a/**/z.py")
    assert python_files(tmp_path) == ["app/models.py", "z.py"]


def test_node_modules_is_skipped_and_never_entered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, "main.py", "web/node_modules/x/broken.py", text="def (:\n")
    make(tmp_path, "main.py")
    # Not even a .gitignore negation brings it back.
    ignore(tmp_path, "!node_modules/")
    listed: list[str] = []
    real_scandir = os.scandir

    def recording_scandir(path: str) -> object:
        listed.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", recording_scandir)
    result = scan_project(tmp_path)
    monkeypatch.undo()
    assert result.files == ("main.py",)
    assert Skipped("web/node_modules/", "vendored", "node_modules/ is always skipped") in (
        result.skipped
    )
    assert listed, "the walk is expected to go through os.scandir"
    assert not [p for p in listed if "node_modules" in Path(p).relative_to(tmp_path).parts]


def test_tool_and_hidden_folders(tmp_path: Path) -> None:
    make(
        tmp_path,
        "main.py",
        ".tox/py311/lib/x.py",
        ".hidden/x.py",
        "__pycache__/x.py",
        "lib/site-packages/dep.py",
        ".eggs/dep.py",
        ".hidden.py",
    )
    result = scan_project(tmp_path)
    # Hidden files are listed (as before); hidden folders are not.
    assert result.files == (".hidden.py", "main.py")
    assert {s.path: s.reason for s in result.skipped} == {
        ".eggs/": "build-output",
        ".hidden/": "hidden",
        ".tox/": "tool-folder",
        "__pycache__/": "tool-folder",
        "lib/site-packages/": "vendored",
    }


def test_build_and_dist_are_skipped_unless_packages(tmp_path: Path) -> None:
    make(
        tmp_path,
        "build/lib/proj/mod.py",
        "dist/proj/mod.py",
        "proj/__init__.py",
        "proj/build/__init__.py",
        "proj/build/steps.py",
    )
    assert python_files(tmp_path) == [
        "proj/__init__.py",
        "proj/build/__init__.py",
        "proj/build/steps.py",
    ]


def test_a_folder_with_pyvenv_cfg_is_a_virtualenv_whatever_its_name(tmp_path: Path) -> None:
    make(
        tmp_path,
        "main.py",
        "tools-env/pyvenv.cfg",
        "tools-env/lib/python3.11/os.py",
        "conda/conda-meta/",
        "conda/lib/python3.11/os.py",
        "venv/x.py",
        # "env" is skipped only as a virtualenv: here it is a real package.
        "env/__init__.py",
        "env/settings.py",
    )
    result = scan_project(tmp_path)
    assert result.files == ("env/__init__.py", "env/settings.py", "main.py")
    assert {s.path: s.reason for s in result.skipped} == {
        "conda/": "virtualenv",
        "tools-env/": "virtualenv",
        "venv/": "virtualenv",
    }


def test_egg_info_is_skipped(tmp_path: Path) -> None:
    make(tmp_path, "src/proj/mod.py", "src/proj.egg-info/x.py")
    assert python_files(tmp_path) == ["src/proj/mod.py"]


def test_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    make(tmp_path, "a/mod.py")
    (tmp_path / "a" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "self").symlink_to("self")  # a dangling self-loop named like nothing
    (tmp_path / "cycle.py").symlink_to("cycle.py")  # a file link that resolves to nothing
    result = scan_project(tmp_path)
    assert result.files == ("a/mod.py",)
    assert Skipped("a/loop/", "symlink", "symbolic links to folders are not followed") in (
        result.skipped
    )


def test_symlinks_out_of_the_root_are_not_listed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make(outside, "secret.py", "lib/dep.py")
    root = tmp_path / "project"
    make(root, "main.py")
    (root / "leak.py").symlink_to(outside / "secret.py")
    (root / "ext").symlink_to(outside / "lib", target_is_directory=True)
    (root / "alias.py").symlink_to("main.py")  # a link inside the root is listed
    result = scan_project(root)
    assert result.files == ("alias.py", "main.py")
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons == {"ext/": "symlink", "leak.py": "outside-root"}


def test_a_root_reached_through_a_symlink_is_walked(tmp_path: Path) -> None:
    make(tmp_path, "real/main.py")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    assert python_files(tmp_path / "link") == ["main.py"]


def test_exclude_patterns(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "conftest.py", "tests/test_main.py", "pkg/conftest.py", "gen.py")
    ignore(tmp_path, "gen.py")
    result = scan_project(tmp_path, ["tests/", "conftest.py", "!gen.py"])
    # An exclude pattern outranks .gitignore: "!gen.py" re-includes gen.py.
    assert result.files == ("gen.py", "main.py")
    assert {s.path: (s.reason, s.rule) for s in result.skipped} == {
        "conftest.py": ("excluded", "exclude: conftest.py"),
        "pkg/conftest.py": ("excluded", "exclude: conftest.py"),
        "tests/": ("excluded", "exclude: tests/"),
    }


def test_exclude_cannot_bring_back_a_vendored_folder(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "node_modules/x.py")
    assert python_files(tmp_path, ["!node_modules/", "!node_modules/x.py"]) == ["main.py"]


def test_blank_and_comment_exclude_patterns_exclude_nothing(tmp_path: Path) -> None:
    make(tmp_path, "main.py")
    assert python_files(tmp_path, ["", "  ", "# a note"]) == ["main.py"]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("gen\\", "Escape character found with no next character"),
        ("!", "pathspec rejects it"),
        ("[z-a].py", "bad character range z-a"),
        ("[abc.py", "git discards it"),
        ("/", "git discards it"),
    ],
)
def test_an_invalid_exclude_pattern_raises_naming_it(
    tmp_path: Path, pattern: str, reason: str
) -> None:
    make(tmp_path, "main.py")
    with pytest.raises(InvalidPatternError) as info:
        python_files(tmp_path, ["build/", pattern])
    assert isinstance(info.value, ValueError)
    assert info.value.pattern == pattern
    assert str(info.value).startswith(f"invalid exclude pattern {pattern!r}: ")
    assert reason in str(info.value)


def test_a_single_string_is_not_a_list_of_patterns(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="not a single string"):
        python_files(tmp_path, "build/")


def test_an_invalid_gitignore_line_is_dropped(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "drop.py", "gen.py")
    ignore(tmp_path, "gen\\", "drop.py", "[z-a]")
    assert python_files(tmp_path) == ["gen.py", "main.py"]


def test_crlf_and_bom_in_gitignore(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "drop.py", "out/x.py")
    (tmp_path / ".gitignore").write_bytes(b"\xef\xbb\xbfdrop.py\r\nout/\r\n")
    assert python_files(tmp_path) == ["main.py"]


def test_git_info_exclude_is_honoured_below_gitignore(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "local.py", "scratch.py")
    ignore(tmp_path / ".git" / "info", "local.py", "scratch.py", name="exclude")
    ignore(tmp_path, "!scratch.py")  # .gitignore outranks .git/info/exclude
    result = scan_project(tmp_path)
    assert result.files == ("main.py", "scratch.py")
    assert Skipped("local.py", "gitignored", ".git/info/exclude:1: local.py") in result.skipped


def test_a_symlinked_gitignore_is_not_read(tmp_path: Path) -> None:
    make(tmp_path, "main.py", "drop.py")
    ignore(tmp_path, "drop.py", name="patterns")
    (tmp_path / ".gitignore").symlink_to("patterns")
    assert python_files(tmp_path) == ["drop.py", "main.py"]


def test_skipped_names_the_pattern_that_decided(tmp_path: Path) -> None:
    make(tmp_path, "pkg/main.py", "pkg/cache/x.py")
    ignore(tmp_path / "pkg", "# comment", "cache/")
    result = scan_project(tmp_path)
    assert result.skipped == (Skipped("pkg/cache/", "gitignored", "pkg/.gitignore:2: cache/"),)


def test_the_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        python_files(tmp_path / "missing")
    make(tmp_path, "main.py")
    with pytest.raises(NotADirectoryError):
        python_files(tmp_path / "main.py")


# Trees where a naive reading of .gitignore goes wrong; git decides.
GIT_CASES = {
    "reinclude-through-folder-negation": {
        ".gitignore": "a\nb\n!*/\nx.py\n",
        "files": ["a/a.py", "b/x.py", "c/a.py"],
    },
    "folder-only-double-star": {
        ".gitignore": "a/**/\n",
        "files": ["a/x.py", "a/b/y.py", "x.py"],
    },
    "deeper-negation-of-folder-vs-shallower-file-pattern": {
        ".gitignore": "secret_*.py\n",
        "pkg/.gitignore": "!sub/\n",
        "files": ["pkg/sub/secret_a.py", "pkg/sub/ok.py", "secret_b.py"],
    },
    "later-folder-negation-does-not-unignore-subfolder": {
        ".gitignore": "tmp/\n/*\n!/lib/\n",
        "files": ["lib/tmp/x.py", "lib/y.py", "top.py"],
    },
    "whitelist": {
        ".gitignore": "*\n!*/\n!*.py\n",
        "pkg/.gitignore": "*_test.py\n",
        "files": ["a.py", "pkg/b.py", "pkg/b_test.py", "pkg/sub/c_test.py"],
    },
    "special-characters-in-folder-names": {
        "[x]/.gitignore": "*.py\n!keep.py\n",
        "#c/.gitignore": "/a.py\n",
        "files": ["[x]/a.py", "[x]/keep.py", "x/a.py", "#c/a.py", "#c/d/a.py"],
    },
}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("case", sorted(GIT_CASES))
def test_agrees_with_git(tmp_path: Path, case: str) -> None:
    spec = dict(GIT_CASES[case])
    files = spec.pop("files")
    assert isinstance(files, list)
    make(tmp_path, *files)
    for where, text in spec.items():
        assert isinstance(text, str)
        (tmp_path / where).write_text(text)
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(tmp_path),
    }
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stdout
    expected = sorted(f for f in listed.split("\0") if f.endswith(".py"))
    assert python_files(tmp_path) == expected
    # Each case is chosen so that something is ignored and something is kept.
    assert expected
    assert len(expected) < len(files)

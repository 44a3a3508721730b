"""What changed since a git ref (`--codeif-changed-since=REF`): the files, and with
`--codeif-changed-lines` the lines, that differ from the merge base of REF and HEAD.

Changed means committed since the merge base, staged, unstaged or untracked (not
ignored): `git diff <merge base>` compares the merge base with the working tree, and
`git ls-files --others --exclude-standard` adds the untracked files, every line of which
counts. Rename detection is off: a renamed or moved file is a new file, every line of
which counts (a file moved into the judged folder brings its code with it, and the
rename must not carry its old lines over as unchanged); deleted files are ignored:
nothing of them is left to judge. Paths are relative to the repository's root, POSIX
style. For the gate's own files (`pinned.py`), `every_change` lists deletions too, and
`blob_at` reads a file as the merge base holds it.

Git runs as a subprocess (the `git` of an absolute folder on PATH, never one a relative
PATH entry would find in the checkout), each call bounded by a timeout, with options
that override any user configuration which would change its output (prefixes, colours,
external diff drivers, rename detection), and any `.gitattributes` of the change's
(`--text`: a `*.py -diff` or `binary` attribute cannot hide a file's hunks;
`--no-textconv`: no conversion driver); its output is parsed as bytes (quoted names,
names with spaces or tabs, non-UTF-8 names). Anything that stops the question being
answered (not a repository, no git, an unknown ref, no merge base) is one `GitError`
whose message says what to do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import IO, Final

#: Seconds any one git command may take (a diff of a very large repository included).
GIT_TIMEOUT: Final = 60.0
#: `@@ -a[,b] +c[,d] @@`: the hunk's old and new line ranges (a count defaults to 1).
_HUNK: Final = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: C-style escapes git uses in quoted path names (besides three-digit octal bytes).
_ESCAPES: Final = {
    ord("a"): 7,
    ord("b"): 8,
    ord("t"): 9,
    ord("n"): 10,
    ord("v"): 11,
    ord("f"): 12,
    ord("r"): 13,
    ord('"'): 34,
    ord("\\"): 92,
}
_OCTAL: Final = frozenset(b"01234567")
#: The diff options every diff here runs with: the same output whatever the user's git
#: configuration (diff.noprefix, color.ui=always, diff.external, diff.renames...) or the
#: change's `.gitattributes` (`-diff`, `binary`, a `diff=` driver) say. No renames: a
#: file moved into the judged code is new there, all its lines with it.
_DIFF_OPTIONS: Final = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--text",
    "--no-renames",
    "--ignore-submodules",
)


class GitError(Exception):
    """Git could not say what changed; the message is one line and says what to do."""


@dataclass(frozen=True)
class ChangedCode:
    """The files (and lines) changed since the merge base of `ref` and HEAD."""

    ref: str
    merge_base: str
    toplevel: Path  # the repository's root, as git names it (symbolic links resolved)
    rootdir: Path  # pytest's rootdir: report paths are relative to it
    files: frozenset[str]  # repository-relative POSIX paths, untracked files included
    untracked: frozenset[str]
    #: With --codeif-changed-lines: the added or modified lines of each tracked file that
    #: changed; None when whole files count.
    lines: Mapping[str, frozenset[int]] | None = None
    #: Submodules whose commit changed (or that the change added): every file under
    #: them changed, whole (git lists the submodule, never its files).
    folders: frozenset[str] = frozenset()

    @property
    def since(self) -> str:
        """`since origin/main (merge base 1a2b3c4)`, for messages."""
        return f"since {self.ref} (merge base {self.merge_base[:7]})"

    def repo_path(self, path: str | Path) -> str | None:
        """`path` (absolute, or relative to pytest's rootdir as reports show it) relative
        to the repository's root; None when it lies outside the repository."""
        target = Path(os.path.normpath(self.rootdir / path))
        try:
            inside = target.relative_to(self.rootdir)
        except ValueError:
            try:  # outside the rootdir, but perhaps inside the repository
                return target.resolve().relative_to(self.toplevel).as_posix()
            except (ValueError, OSError):
                return None
        return _within(self.rootdir_in_repo, inside.as_posix())

    @cached_property
    def rootdir_in_repo(self) -> PurePosixPath:
        """Where pytest's rootdir is in the repository (`.` at its root)."""
        try:
            return PurePosixPath(self.rootdir.resolve().relative_to(self.toplevel).as_posix())
        except (ValueError, OSError):
            return PurePosixPath(".")

    def real_repo_path(self, path: str | Path) -> str | None:
        """Like `repo_path`, with every symbolic link on the way resolved: the file git
        knows the content of under its own name."""
        try:
            real = Path(os.path.realpath(self.rootdir / path))
            return real.relative_to(self.toplevel).as_posix()
        except (ValueError, OSError):
            return None

    def names_of(self, path: str | Path) -> list[str]:
        """The repository paths that name the file at `path`: as named, and with links
        resolved (a file read through a link the change made, or whose target the change
        edited, changed under either name)."""
        found = (self.repo_path(path), self.real_repo_path(path))
        return [name for name in dict.fromkeys(found) if name is not None]

    def has_file(self, path: str | Path) -> bool:
        """True when the file at `path` (see `names_of`) changed."""
        return any(
            name in self.files or self.in_changed_folder(name) for name in self.names_of(path)
        )

    def in_changed_folder(self, relative: str) -> bool:
        """Whether the repository path `relative` lies in a changed submodule."""
        return any(relative.startswith(folder + "/") for folder in self.folders)

    def has_line(self, path: str | Path, line: int | None) -> bool:
        """True when line `line` of the file at `path` changed; with whole files counting
        (no --codeif-changed-lines), or no line to place a finding on, when the file did."""
        for relative in self.names_of(path):
            if self.in_changed_folder(relative):
                return True
            if relative not in self.files:
                continue
            if self.lines is None or line is None or relative in self.untracked:
                return True
            if line in self.lines.get(relative, frozenset()):
                return True
        return False


def _within(offset: PurePosixPath, relative: str) -> str | None:
    joined = os.path.normpath(offset / relative)
    if joined == ".." or joined.startswith("../"):
        return None
    return PurePosixPath(joined).as_posix()


def find_changes(
    rootdir: Path, ref: str, *, lines: bool = False, timeout: float = GIT_TIMEOUT
) -> ChangedCode:
    """The code changed in the repository holding `rootdir` since the merge base of `ref`
    and HEAD; raises `GitError` when git cannot say."""
    if not ref.strip() or ref.startswith("-"):
        raise GitError(f"{ref!r} is not a git ref (a branch, tag or commit, e.g. origin/main)")
    run = _Git(timeout)
    done = run(rootdir, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise GitError(f"{rootdir} is not inside a git repository ({_first_line(done.stderr)})")
    toplevel = Path(os.fsdecode(done.stdout.rstrip(b"\r\n")))
    wanted = run(toplevel, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    if wanted.returncode != 0:
        raise GitError(
            f"unknown git ref {ref!r} in {toplevel}: name a branch, tag or commit (in CI, "
            f"fetch it first, e.g. `git fetch origin main`)"
        )
    head = run(toplevel, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    if head.returncode != 0:
        raise GitError(f"HEAD of {toplevel} has no commit yet: there is no merge base with {ref}")
    base = run(toplevel, "merge-base", _text(wanted.stdout), _text(head.stdout), check=False)
    if base.returncode != 0 or not base.stdout.strip():
        raise GitError(
            f"{ref!r} and HEAD have no common ancestor in {toplevel} (a shallow clone? "
            "fetch the history: `git fetch --unshallow`, or actions/checkout's fetch-depth: 0)"
        )
    merge_base = _text(base.stdout)
    names = run(toplevel, "diff", "--name-status", "-z", *_DIFF_OPTIONS, merge_base, "--")
    tracked = parse_name_status(names.stdout)
    others = run(toplevel, "ls-files", "--others", "--exclude-standard", "-z")
    untracked = frozenset(os.fsdecode(p) for p in others.stdout.split(b"\0") if p)
    changed_lines: dict[str, frozenset[int]] | None = None
    if lines:
        patch = run(
            toplevel,
            "diff",
            "--unified=0",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            *_DIFF_OPTIONS,
            merge_base,
            "--",
        )
        changed_lines = {
            path: frozenset(found) for path, found in parse_patch(patch.stdout).items()
        }
    raw = run(toplevel, "diff", "--raw", "-z", *_SUBMODULE_OPTIONS, merge_base, "--")
    return ChangedCode(
        ref=ref,
        merge_base=merge_base,
        toplevel=toplevel,
        rootdir=Path(os.path.normpath(rootdir.absolute())),
        files=frozenset(tracked) | untracked,
        untracked=untracked - frozenset(tracked),
        lines=changed_lines,
        folders=frozenset(parse_submodules(raw.stdout)),
    )


#: The options of the diff that finds changed submodules: as `_DIFF_OPTIONS`, but a
#: submodule whose commit changed is listed (its own uncommitted work is not).
_SUBMODULE_OPTIONS: Final = (
    *(option for option in _DIFF_OPTIONS if option != "--ignore-submodules"),
    "--ignore-submodules=dirty",
)
#: A submodule's mode in a tree (a "gitlink").
_GITLINK: Final = b"160000"


def parse_submodules(output: bytes) -> list[str]:
    """The paths of `git diff --raw -z --no-renames` whose new side is a submodule
    (`:old-mode new-mode old-id new-id status`, then the path)."""
    fields = output.split(b"\0")
    found: list[str] = []
    for header, name in zip(fields[::2], fields[1::2], strict=False):
        modes = header.lstrip(b":").split(b" ")
        if len(modes) >= 2 and modes[1] == _GITLINK and name:
            found.append(os.fsdecode(name))
    return found


def every_change(changes: ChangedCode, *, timeout: float = GIT_TIMEOUT) -> dict[str, str]:
    """Every path that differs from the merge base, deleted ones included, with its
    status: `A` added (untracked files too), `M` modified, `D` deleted, `T` its type
    changed (a file became a symbolic link). A rename is its old path deleted and its
    new one added."""
    run = _Git(timeout)
    names = run(
        changes.toplevel, "diff", "--name-status", "-z", *_DIFF_OPTIONS, changes.merge_base, "--"
    )
    found = parse_statuses(names.stdout)
    for path in changes.untracked:
        found.setdefault(path, "A")
    return found


def blob_at(changes: ChangedCode, path: str, *, timeout: float = GIT_TIMEOUT) -> bytes | None:
    """The bytes of the file at `path` (relative to the repository's root) as the merge
    base holds it, raw (no filters, no text conversion); None when it holds no such file.
    Symbolic links are followed inside the merge base's tree (`cat-file
    --follow-symlinks`), the path's folders' too: a task file that is a link there is
    read as the file it named then, never through the working tree's links. A link out
    of the repository, a dangling one or a folder is no file (None)."""
    if not path or path.startswith("-"):
        return None
    run = _Git(timeout)
    spec = f"{changes.merge_base}:{path}"
    if "\n" in spec:  # a name the batch protocol cannot carry: read without following
        done = run(changes.toplevel, "cat-file", "blob", spec, check=False)
        return done.stdout if done.returncode == 0 else None
    done = run(
        changes.toplevel,
        "cat-file",
        "--batch",
        "--follow-symlinks",
        stdin=spec.encode("utf-8", "surrogateescape") + b"\n",
    )
    return parse_batch_blob(done.stdout)


def archive_at(
    changes: ChangedCode, folder: str, target: Path, *, timeout: float = GIT_TIMEOUT
) -> bool:
    """Write the folder at `folder` (relative to the repository's root; `.` for all of
    it) as the merge base holds it into the file `target`, as a tar archive of
    repository paths (streamed: a repository's assets never sit in memory); False when
    the merge base holds no such folder."""
    if folder.startswith("-"):
        return False
    spec = [] if folder in ("", ".") else ["--", folder]
    with target.open("wb") as handle:
        done = _Git(timeout)(
            changes.toplevel,
            "archive",
            "--format=tar",
            changes.merge_base,
            *spec,
            check=False,
            stdout=handle,
        )
    return done.returncode == 0


def parse_batch_blob(output: bytes) -> bytes | None:
    """The content of a `git cat-file --batch` answer for one object: None unless it is
    a blob (`<oid> blob <size>`; not `missing`, `symlink`, `dangling`, `loop`, `notdir`
    or a tree)."""
    header, _, rest = output.partition(b"\n")
    fields = header.split(b" ")
    if len(fields) != 3 or fields[1] != b"blob" or not fields[2].isdigit():
        return None
    size = int(fields[2])
    if len(rest) < size:
        return None
    return rest[:size]


def first_changed_line(changes: ChangedCode, path: str, *, timeout: float = GIT_TIMEOUT) -> int:
    """Where the file at `path` first changed since the merge base, as a line of the
    file as it is now: the first line of its first hunk; for a hunk that only removed
    lines, the line they followed (1 at the top). 1 when the diff has no hunk (an
    untracked or deleted file, a binary file, a change of mode or type alone)."""
    if path in changes.untracked:
        return 1
    patch = _Git(timeout)(
        changes.toplevel,
        "diff",
        "--unified=0",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        *_DIFF_OPTIONS,
        changes.merge_base,
        "--",
        path,
    )
    return first_hunk_line(patch.stdout)


@dataclass(frozen=True)
class LineMap:
    """Where the lines of one file as it is now were in the merge base: the hunks of its
    `git diff --unified=0`, as (old start, old count, new start, new count)."""

    hunks: tuple[tuple[int, int, int, int], ...] = ()
    new: bool = False  # the merge base has no such file: no line of it was there

    def base_line(self, line: int) -> int | None:
        """The merge base's line that line `line` (of the file now) is, unchanged; None
        for a line the change added or modified."""
        if self.new:
            return None
        offset = 0
        for _old_start, old_count, new_start, new_count in self.hunks:
            # A hunk adding no line follows line `new_start`; one adding lines holds them.
            last = new_start + new_count - 1 if new_count else new_start
            if line > last:
                offset += old_count - new_count
            elif new_count and line >= new_start:
                return None
            else:
                break  # hunks come in line order: the rest lie below
        return line + offset


def line_map(changes: ChangedCode, path: str, *, timeout: float = GIT_TIMEOUT) -> LineMap:
    """The `LineMap` of the file at `path` (relative to the repository's root): no hunk
    for a file that did not change, `new` for an untracked one."""
    if path in changes.untracked:
        return LineMap(new=True)
    if path not in changes.files:
        return LineMap()
    patch = _Git(timeout)(
        changes.toplevel,
        "diff",
        "--unified=0",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        *_DIFF_OPTIONS,
        changes.merge_base,
        "--",
        path,
    )
    return LineMap(parse_hunks(patch.stdout), new=b"\n--- /dev/null" in patch.stdout)


def parse_hunks(patch: bytes) -> tuple[tuple[int, int, int, int], ...]:
    """The hunk headers of a one-file `git diff --unified=0` patch, in line order, as
    (old start, old count, new start, new count). With no context lines, every body line
    starts with `+`, `-` or `\\`: a line starting `@@ -` is a header."""
    found: list[tuple[int, int, int, int]] = []
    for raw in patch.split(b"\n"):
        hunk = _HUNK.match(raw)
        if hunk is not None:
            old_count = 1 if hunk.group(2) is None else int(hunk.group(2))
            new_count = 1 if hunk.group(4) is None else int(hunk.group(4))
            found.append((int(hunk.group(1)), old_count, int(hunk.group(3)), new_count))
    return tuple(found)


def first_hunk_line(patch: bytes) -> int:
    """The new-file line of the first hunk of a one-file `git diff --unified=0` patch
    (its hunks come in line order): its first line, or for a hunk adding none the line
    its removal followed; 1 when there is no hunk. With no context lines, every body
    line starts with `+`, `-` or `\\`: a line starting `@@ -` is a hunk header."""
    for raw in patch.split(b"\n"):
        hunk = _HUNK.match(raw)
        if hunk is not None:
            return max(int(hunk.group(3)), 1)
    return 1


class _Git:
    """Runs git commands with a timeout; failures become `GitError`."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        # Never prompt for credentials, never take the index lock for a refresh.
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}

    def __call__(
        self,
        folder: Path,
        *args: str,
        check: bool = True,
        stdin: bytes | None = None,
        stdout: IO[bytes] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """`git ARGS` in `folder`; its output captured, or written to `stdout`."""
        git = git_executable()
        if git is None:
            raise GitError(
                "git is not installed here (or not on PATH); it is needed to find the changed code"
            )
        # The global attributes file is the machine's, not the change's: read none.
        command = [git, "--no-pager", "-c", f"core.attributesFile={os.devnull}"]
        command += ["-C", os.fspath(folder), *args]
        try:
            done = subprocess.run(
                command,
                stdout=stdout if stdout is not None else subprocess.PIPE,
                stderr=subprocess.PIPE,
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                timeout=self.timeout,
                env=self.env,
                check=False,
            )
        except FileNotFoundError:
            raise GitError(
                "git is not installed here (or not on PATH); it is needed to find the changed code"
            ) from None
        except subprocess.TimeoutExpired:
            raise GitError(
                f"`git {args[0]}` did not finish within {self.timeout:g} s in {folder}"
            ) from None
        except OSError as exc:
            raise GitError(f"cannot run git: {exc.strerror or exc}") from None
        if check and done.returncode != 0:
            raise GitError(f"`git {args[0]}` failed in {folder}: {_first_line(done.stderr)}")
        return done


def git_executable() -> str | None:
    """The `git` on PATH, looked up in its absolute folders alone: an empty or relative
    entry (`.`, `bin`) would find a `git` of the checkout, which the gate runs in."""
    folders = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if os.path.isabs(p)]
    return shutil.which("git", path=os.pathsep.join(folders))


def _text(output: bytes) -> str:
    return output.decode("ascii", errors="replace").strip()


def _first_line(stderr: bytes) -> str:
    lines = os.fsdecode(stderr).strip().splitlines()
    return lines[0].strip() if lines else "no message"


def parse_name_status(output: bytes) -> set[str]:
    """The paths `git diff --name-status -z` lists, deleted files left out and renamed or
    copied files under their new path."""
    fields = output.split(b"\0")
    paths: set[str] = set()
    index = 0
    while index < len(fields):
        status = fields[index]
        index += 1
        if not status:
            continue
        letter = status[:1]
        count = 2 if letter in (b"R", b"C") else 1  # renames and copies: old, then new
        names = fields[index : index + count]
        index += count
        if letter == b"D" or len(names) < count or not names[-1]:
            continue
        paths.add(os.fsdecode(names[-1]))
    return paths


def parse_statuses(output: bytes) -> dict[str, str]:
    """Each path `git diff --name-status -z --no-renames` lists, with its status letter."""
    fields = output.split(b"\0")
    found: dict[str, str] = {}
    index = 0
    while index < len(fields) - 1:
        status, name = fields[index], fields[index + 1]
        index += 2
        if status and name:
            found[os.fsdecode(name)] = status[:1].decode("ascii", errors="replace")
    return found


def unquote_path(raw: bytes) -> bytes:
    """A path name as git prints it in a patch: as is, or in double quotes with C-style
    escapes (`\\t`, `\\"`, `\\\\`, three-digit octal bytes)."""
    if len(raw) < 2 or not (raw.startswith(b'"') and raw.endswith(b'"')):
        return raw
    body = raw[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        byte = body[index]
        if byte != ord("\\") or index + 1 == len(body):
            out.append(byte)
            index += 1
            continue
        following = body[index + 1]
        octal = body[index + 1 : index + 4]
        if len(octal) == 3 and all(b in _OCTAL for b in octal):
            out.append(int(octal, 8) & 0xFF)
            index += 4
        elif following in _ESCAPES:
            out.append(_ESCAPES[following])
            index += 2
        else:  # an escape git does not write: keep it as it stands
            out += body[index : index + 2]
            index += 2
    return bytes(out)


def _new_path(header: bytes) -> str | None:
    """The path of a `+++ ` line (without `+++ `); None for `/dev/null` (a deletion)."""
    name = header.rstrip(b"\r")
    if name.endswith(b"\t"):
        # git ends a name holding a space or a quote with a tab (for patch(1)); a name
        # holding a tab itself is quoted, so this tab is never part of the name.
        name = name[:-1]
    name = unquote_path(name)
    if not name.startswith(b"b/"):
        return None
    return os.fsdecode(name[2:])


def parse_patch(patch: bytes) -> dict[str, set[int]]:
    """The added or modified lines (new-file line numbers) of each file of a
    `git diff --unified=0` patch. Hunk bodies are consumed by the counts their headers
    give, so a line of code that looks like a header (`+++ x`) is never read as one."""
    changed: dict[str, set[int]] = {}
    current: str | None = None
    old_left = new_left = 0
    line = 0
    for raw in patch.split(b"\n"):
        if old_left > 0 or new_left > 0:
            if raw.startswith(b"-") and old_left > 0:
                old_left -= 1
                continue
            if raw.startswith(b"+") and new_left > 0:
                new_left -= 1
                if current is not None:
                    changed[current].add(line)
                line += 1
                continue
            if raw.startswith(b"\\"):  # "\ No newline at end of file"
                continue
            old_left = new_left = 0  # a malformed hunk: read on as headers
        if raw.startswith(b"diff "):
            current = None
        elif raw.startswith(b"+++ "):
            current = _new_path(raw[4:])
            if current is not None:
                changed.setdefault(current, set())
        elif (hunk := _HUNK.match(raw)) is not None:
            old_left = 1 if hunk.group(2) is None else int(hunk.group(2))
            line = int(hunk.group(3))
            new_left = 1 if hunk.group(4) is None else int(hunk.group(4))
    return changed

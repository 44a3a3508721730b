"""Load a YAML task file into plain data, keeping the source position of the nodes that
errors and evidence are located at.

libyaml (PyYAML's C parser, when installed) composes the node graph with start marks;
this module walks that graph into dicts, lists and scalars, so every error can name the
file, the line and the key path, and so a position inside an embedded code block can be
mapped back to its YAML line.

Positions are recorded down to `MARKED_DEPTH` levels (a task's keys, its constraints and
test cases: all a valid file needs); a deeper position is asked for only by an error, and
then the file is walked again with every position kept, so the error says exactly what a
full walk would. Any problem met by the quick walk (a duplicate key, an alias bomb...) is
likewise reported by the full walk, which alone raises errors.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Final

import yaml
from yaml.constructor import SafeConstructor

from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.spec import NodeMark

KeyPath = tuple[str | int, ...]

#: A task file whose aliases expand to more nodes than this, or than ALIAS_FACTOR times
#: the nodes written in it, is refused: the "billion laughs" attack costs nothing to
#: write and unbounded memory to expand. Sharing one constraint list among 10,000 tasks
#: through an anchor expands linearly and stays well inside.
MAX_ALIAS_NODES: Final = 100_000
ALIAS_FACTOR: Final = 10
#: Deeper nesting than this is not a task file anyone writes by hand.
MAX_DEPTH: Final = 64
#: Larger files are refused before parsing (PyYAML needs ~4x the size in memory).
MAX_FILE_BYTES: Final = 128 * 1024 * 1024
#: Positions are kept for key paths this long or shorter: `("tasks", 3, "tests", 2)`.
MARKED_DEPTH: Final = 4

_STR_TAG: Final = "tag:yaml.org,2002:str"
#: Plain scalars up to this length have their resolved tag remembered (keys, numbers,
#: booleans repeat thousands of times in a suite).
_MEMO_LENGTH: Final = 200


#: libyaml's parser when PyYAML was built with it (same results, ~10x faster to parse).
_SafeLoader: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class _Loader(_SafeLoader):  # type: ignore[misc]
    """The safe loader, remembering the tag of each plain scalar: the parser calls back
    into Python for every scalar, and the regex tests were a third of the load."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = str(super().resolve(kind, value, implicit))
                if len(value) <= _MEMO_LENGTH:
                    self._plain_tags[value] = tag
            return tag
        return str(super().resolve(kind, value, implicit))


@dataclass(frozen=True)
class LoadedYaml:
    """A task file's data and the position of its nodes, by key path.

    `marks` and `key_lines` hold every key path up to `marked_depth` levels (all of them
    when it is None); a deeper one is found by walking `source` again, only when asked.
    """

    path: Path
    data: Any
    marks: dict[KeyPath, NodeMark]
    #: The line of each mapping key, by the key path it leads to.
    key_lines: dict[KeyPath, int] = field(default_factory=dict)
    #: How deep `marks` and `key_lines` go (None: every node).
    marked_depth: int | None = None
    #: The file's bytes, to find positions deeper than `marked_depth`.
    source: bytes | None = field(default=None, repr=False, compare=False)

    def location(self, key_path: KeyPath) -> Location:
        """The best-known location of `key_path`: the node itself or its nearest parent."""
        marks = self._complete(key_path).marks
        probe = key_path
        while probe and probe not in marks:
            probe = probe[:-1]
        mark = marks.get(probe)
        return Location(self.path, mark.line if mark else 1, key_path)

    def key_location(self, key_path: KeyPath) -> Location:
        """The location of the key that leads to `key_path` (where an unknown key is
        written), else that of its value."""
        line = self._complete(key_path).key_lines.get(key_path)
        return Location(self.path, line, key_path) if line else self.location(key_path)

    def mark(self, key_path: KeyPath) -> NodeMark | None:
        """The position and style of the node at `key_path`, if there is one."""
        return self._complete(key_path).marks.get(key_path)

    def _complete(self, key_path: KeyPath) -> LoadedYaml:
        """This load, or, for a key path deeper than its marks go, the full one."""
        if self.marked_depth is None or len(key_path) <= self.marked_depth:
            return self
        return self._full

    @cached_property
    def _full(self) -> LoadedYaml:
        if self.source is None:  # built by hand without its source: nothing deeper
            return self
        try:
            return load_yaml_bytes(self.path, self.source, complete=True)
        except TaskFileError:  # cannot happen for a source that loaded; stay usable
            return self


def read_task_bytes(path: Path) -> bytes:
    """The bytes of the task file at `path`; `TaskFileError` if unreadable or too large."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TaskFileError(
                Location(path, 1, ()),
                f"the file is {size / 1e6:.0f} MB; task files are limited to "
                f"{MAX_FILE_BYTES / 1e6:.0f} MB (split it into several files)",
            )
        return path.read_bytes()
    except OSError as exc:
        raise TaskFileError(
            Location(path, 1, ()), f"cannot read the file: {exc.strerror}"
        ) from None


def load_task_yaml(path: Path) -> LoadedYaml:
    """Read and compose `path`; raise `TaskFileError` with a location on any problem."""
    return load_yaml_bytes(path, read_task_bytes(path))


def load_yaml_bytes(path: Path, raw: bytes, *, complete: bool = False) -> LoadedYaml:
    """Compose `raw`, the bytes of the task file at `path`; raise `TaskFileError` with a
    location on any problem. With `complete`, every node's position is kept."""
    text = _decode(path, raw)
    # Composing allocates hundreds of thousands of acyclic nodes: the cyclic collector,
    # triggered again and again, would walk every live object each time (it was half of
    # the collection of the 1,933-task MultiCodeIF suite). The nodes are freed before it
    # resumes (`_load` returns), so that its first pass has only the data left to walk.
    with collector_paused():
        return _load(path, text, raw, complete=complete)


def _load(path: Path, text: str, raw: bytes, *, complete: bool) -> LoadedYaml:
    root = _compose(path, text)
    if root is None:
        return LoadedYaml(path, None, {}, marked_depth=None, source=raw)
    if not complete:
        quick = _QuickWalker(MARKED_DEPTH)
        try:
            data = quick.walk(root, (), 0)
        except _Problem:
            pass  # the full walk below says what and where
        else:
            return LoadedYaml(
                path, data, quick.marks, quick.key_lines, marked_depth=MARKED_DEPTH, source=raw
            )
    walker = _Walker(path, max(MAX_ALIAS_NODES, ALIAS_FACTOR * _distinct_nodes(root)))
    data = walker.walk(root, (), 0)
    return LoadedYaml(path, data, walker.marks, walker.key_lines, marked_depth=None, source=raw)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the duration (restored as it was)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _compose(path: Path, text: str) -> yaml.Node | None:
    loader = _Loader(text)
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise TaskFileError(Location(path, line, ()), f"invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise TaskFileError(Location(path, 1, ()), f"invalid YAML: {exc}") from None
    except RecursionError:
        raise TaskFileError(
            Location(path, 1, ()), f"invalid YAML: nesting deeper than {MAX_DEPTH} levels"
        ) from None
    finally:
        loader.dispose()


def _distinct_nodes(root: yaml.Node) -> int:
    """Nodes written in the document (each alias target counted once)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return len(seen)


def _decode(path: Path, raw: bytes) -> str:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TaskFileError(
            Location(path, line, ()),
            f"not valid UTF-8 (byte {exc.start}); task files must be UTF-8",
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise TaskFileError(Location(path, line, ()), "contains a NUL byte; task files are text")
    return text


class _Problem(Exception):
    """The quick walk met something wrong; the full walk says what and where."""


#: What constructing a scalar with an explicit tag raises for a value it does not fit
#: (`!!int abc` is a ValueError, `!!bool maybe` a KeyError).
_VALUE_ERRORS: Final = (yaml.YAMLError, ValueError, KeyError, TypeError, OverflowError)


class _QuickWalker:
    """Turns composed nodes into plain data, keeping positions down to `mark_depth`
    levels only, and giving up (`_Problem`) at anything wrong."""

    def __init__(self, mark_depth: int) -> None:
        self.mark_depth = mark_depth
        self.marks: dict[KeyPath, NodeMark] = {}
        self.key_lines: dict[KeyPath, int] = {}
        self.constructor = SafeConstructor()
        # Nodes visited, against a budget that only grows: when visits pass it, the
        # nodes written are counted to set the real one (visits through aliases are at
        # most all visits, so a bomb is never missed; the full walk says which node).
        self.visits = 0
        self.budget = MAX_ALIAS_NODES
        self.root: yaml.Node | None = None

    def walk(self, node: yaml.Node, key_path: KeyPath, depth: int) -> Any:
        """The data of `node`, found at `key_path` (`depth` levels down)."""
        if self.root is None:
            self.root = node
        self._visit()
        style = node.style if isinstance(node, yaml.ScalarNode) else None
        mark = node.start_mark
        self.marks.setdefault(key_path, NodeMark(mark.line + 1, mark.column + 1, style))
        deeper = depth + 1 > self.mark_depth
        if isinstance(node, yaml.MappingNode):
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self._key(key_node, result)
                if deeper:
                    result[key] = self.plain(value_node, depth + 1)
                else:
                    path = (*key_path, key)
                    self.key_lines.setdefault(path, key_node.start_mark.line + 1)
                    result[key] = self.walk(value_node, path, depth + 1)
            return result
        if isinstance(node, yaml.SequenceNode):
            if deeper:
                return [self.plain(item, depth + 1) for item in node.value]
            return [self.walk(item, (*key_path, i), depth + 1) for i, item in enumerate(node.value)]
        return self._scalar(node)

    def plain(self, node: yaml.Node, depth: int) -> Any:
        """The data of `node`, `depth` levels down, without positions."""
        self._visit()
        if depth > MAX_DEPTH:
            raise _Problem
        if isinstance(node, yaml.MappingNode):
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                result[self._key(key_node, result)] = self.plain(value_node, depth + 1)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.plain(item, depth + 1) for item in node.value]
        return self._scalar(node)

    def _visit(self) -> None:
        self.visits += 1
        if self.visits > self.budget:
            if self.budget == MAX_ALIAS_NODES and self.root is not None:
                self.budget = max(MAX_ALIAS_NODES, ALIAS_FACTOR * _distinct_nodes(self.root))
            if self.visits > self.budget:
                raise _Problem

    def _key(self, key_node: yaml.Node, seen: dict[str, Any]) -> str:
        if not isinstance(key_node, yaml.ScalarNode):
            raise _Problem
        key = str(key_node.value)
        if key == "<<" or key in seen:
            raise _Problem
        return key

    def _scalar(self, node: yaml.Node) -> Any:
        tag = node.tag or ""
        if tag == _STR_TAG:
            return node.value
        if tag.endswith((":timestamp", ":binary")):
            return str(node.value)
        try:
            return self.constructor.construct_object(node, deep=True)
        except _VALUE_ERRORS:
            raise _Problem from None


class _Walker:
    """Turns composed nodes into plain data, recording every position and refusing
    bombs: the walk that says what is wrong, and where."""

    def __init__(self, path: Path, alias_budget: int) -> None:
        self.path = path
        self.alias_budget = alias_budget
        self.marks: dict[KeyPath, NodeMark] = {}
        self.key_lines: dict[KeyPath, int] = {}
        self.expanded = 0  # nodes visited again through an alias
        self.seen: set[int] = set()
        self.constructor = SafeConstructor()

    def walk(self, node: yaml.Node, key_path: KeyPath, depth: int) -> Any:
        line = node.start_mark.line + 1
        if id(node) in self.seen:
            self.expanded += 1
            if self.expanded > self.alias_budget:
                raise TaskFileError(
                    Location(self.path, line, key_path),
                    f"aliases expand to more than {self.alias_budget} nodes (alias bomb?)",
                )
        else:
            self.seen.add(id(node))
        if depth > MAX_DEPTH:
            raise TaskFileError(
                Location(self.path, line, key_path), f"nesting deeper than {MAX_DEPTH} levels"
            )
        style = node.style if isinstance(node, yaml.ScalarNode) else None
        self.marks.setdefault(key_path, NodeMark(line, node.start_mark.column + 1, style))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, key_path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.walk(item, (*key_path, i), depth + 1) for i, item in enumerate(node.value)]
        if (node.tag or "").endswith((":timestamp", ":binary")):
            # Kept as written: task data must stay JSON (reports, pytest-xdist transport).
            return str(node.value)
        try:
            return self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise TaskFileError(
                Location(self.path, line, key_path), f"invalid value: {exc}"
            ) from None
        except _VALUE_ERRORS:
            kind = (node.tag or "").rsplit(":", 1)[-1]
            raise TaskFileError(
                Location(self.path, line, key_path),
                f"invalid value: {node.value!r} is not a valid {kind}",
            ) from None

    def _mapping(self, node: yaml.MappingNode, key_path: KeyPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise TaskFileError(
                    Location(self.path, key_node.start_mark.line + 1, key_path),
                    "mapping keys must be plain strings",
                )
            key = str(key_node.value)
            key_line = key_node.start_mark.line + 1
            if key == "<<":
                raise TaskFileError(
                    Location(self.path, key_line, key_path),
                    "merge keys ('<<') are not supported in task files; write the keys out",
                )
            if key in seen:
                raise TaskFileError(
                    Location(self.path, key_line, (*key_path, key)),
                    f"duplicate key {key!r} (first given on line {seen[key]})",
                )
            seen[key] = key_line
            self.key_lines.setdefault((*key_path, key), key_line)
            result[key] = self.walk(value_node, (*key_path, key), depth + 1)
        return result

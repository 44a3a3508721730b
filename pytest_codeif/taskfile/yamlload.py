"""Load a YAML task file into plain data, keeping the source position of every node.

PyYAML composes the node graph (it keeps start marks); this module only walks that graph
into dicts, lists and scalars, so every error can name the file, the line and the key
path, and so a position inside an embedded code block can be mapped back to its YAML line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class LoadedYaml:
    """A task file's data and the position of each node, by key path."""

    path: Path
    data: Any
    marks: dict[KeyPath, NodeMark]
    #: The line of each mapping key, by the key path it leads to.
    key_lines: dict[KeyPath, int] = field(default_factory=dict)

    def location(self, key_path: KeyPath) -> Location:
        """The best-known location of `key_path`: the node itself or its nearest parent."""
        probe = key_path
        while probe and probe not in self.marks:
            probe = probe[:-1]
        mark = self.marks.get(probe)
        return Location(self.path, mark.line if mark else 1, key_path)

    def key_location(self, key_path: KeyPath) -> Location:
        """The location of the key that leads to `key_path` (where an unknown key is
        written), else that of its value."""
        line = self.key_lines.get(key_path)
        return Location(self.path, line, key_path) if line else self.location(key_path)


def load_task_yaml(path: Path) -> LoadedYaml:
    """Read and compose `path`; raise `TaskFileError` with a location on any problem."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TaskFileError(
                Location(path, 1, ()),
                f"the file is {size / 1e6:.0f} MB; task files are limited to "
                f"{MAX_FILE_BYTES / 1e6:.0f} MB (split it into several files)",
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise TaskFileError(
            Location(path, 1, ()), f"cannot read the file: {exc.strerror}"
        ) from None
    text = _decode(path, raw)
    try:
        root = yaml.compose(text, Loader=_Loader)
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
    if root is None:
        return LoadedYaml(path, None, {})
    walker = _Walker(path, max(MAX_ALIAS_NODES, ALIAS_FACTOR * _distinct_nodes(root)))
    data = walker.walk(root, (), 0)
    return LoadedYaml(path, data, walker.marks, walker.key_lines)


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


class _Walker:
    """Turns composed nodes into plain data, recording marks and refusing bombs."""

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

"""Which keyword arguments a standard-library callable accepts, read from typeshed's stubs
(the ones mypy ships): a call passing any other keyword raises TypeError, so it is no
use of the callable (`mmap.mmap(fd, 0, access_mmap="r")` maps nothing).

Data lookup only, on trusted files: the stub is parsed with `ast`, every branch of its
`sys.version_info` / `sys.platform` guards read (a keyword some version or platform
takes is accepted), every overload too. A function's keywords are its parameters but
positional-only ones (before `/`, or named `__x` in older stubs); a class's are those
of its `__new__` and `__init__`. `**kwargs` accepts any keyword, and so does a name
the stubs do not define where looked for (re-exported, inherited): unknown is never
read as refused.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pytest_codeif.checks.shared.typeshed import typeshed_stdlib


@dataclass(frozen=True)
class Keywords:
    """The keywords a callable accepts (`any`: any keyword, through `**kwargs`)."""

    names: frozenset[str]
    any: bool = False

    def accepts(self, keyword: str) -> bool:
        return self.any or keyword in self.names


def _stub(folder: Path, module: str) -> Path | None:
    base = folder.joinpath(*module.split("."))
    for path in (base.with_suffix(".pyi"), base / "__init__.pyi"):
        if path.is_file():
            return path
    return None


def _body(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a stub body, the branches of its `if` guards flattened."""
    for statement in statements:
        if isinstance(statement, ast.If):
            yield from _body(statement.body)
            yield from _body(statement.orelse)
        else:
            yield statement


def _accepted(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> Keywords:
    args = function.args
    plain = list(args.args)
    if method and plain:
        plain = plain[1:]  # self / cls
    names = {a.arg for a in plain if not (a.arg.startswith("__") and not a.arg.endswith("__"))}
    names |= {a.arg for a in args.kwonlyargs}
    return Keywords(frozenset(names), args.kwarg is not None)


def _merge(found: list[Keywords]) -> Keywords | None:
    if not found:
        return None
    return Keywords(frozenset().union(*(k.names for k in found)), any(k.any for k in found))


@cache
def accepted_keywords(qualified: str) -> Keywords | None:
    """The keywords the stdlib callable `qualified` (`mmap.mmap`, `os.urandom`) accepts;
    None when the stubs do not say (not stdlib, not found, no mypy)."""
    folder = typeshed_stdlib()
    module, _, member = qualified.rpartition(".")
    if folder is None or not module or not member:
        return None
    path = _stub(folder, module)
    if path is None:
        return None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    functions: list[Keywords] = []
    for statement in _body(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name == member:
                functions.append(_accepted(statement, method=False))
        elif isinstance(statement, ast.ClassDef) and statement.name == member:
            constructors = [
                _accepted(s, method=True)
                for s in _body(statement.body)
                if isinstance(s, ast.FunctionDef) and s.name in ("__new__", "__init__")
            ]
            return _merge(constructors)  # None: inherited, so not known here
    return _merge(functions)

"""Which function of a response a record's tests (and its measured checks) call.

Chosen only where the choice is unambiguous: the function the prompt names; else the one
public top-level function; else the one function the response's own `__main__` block or
module-level example calls (through `main()`) that accepts the tests' arguments, or, when
its examples call none, the one public function that does. A function accepts them when
its signature binds them and no parameter's name states a type the tests' value is not
(`file_path` a str, `count` an int: `types.name_types`), so `load_csv(file_path)` is not
what tests passing a list of emails call. Several candidates stay unchosen with the
reason: a wrong guess would turn a verdict on the response into a verdict on the
importer.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_codeif.checks.types.name_types import named_type

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class EntryChoice:
    """The function chosen (None: none could be) and why, for the import notes."""

    name: str | None
    why: str


def choose_entry(
    named: str | None,
    code: str | None,
    tests: Sequence[Mapping[str, Any]] = (),
    *,
    from_examples: bool = True,
) -> EntryChoice:
    """The entry function: `named` (what the prompt names) wins; else it is read from `code`,
    with the tests' `input` (`args`, `kwargs`) deciding among the functions the response's
    examples call unless `from_examples` is off (then several functions leave it unchosen)."""
    if named:
        return EntryChoice(named, "named by the prompt")
    if not code:
        return EntryChoice(None, "the prompt names no function and the response has no code")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return EntryChoice(
            None, "the prompt names no function and the response's code is not valid Python"
        )
    functions = {
        n.name: n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not n.name.startswith("_")
        and n.name != "main"
    }
    if len(functions) == 1:
        return EntryChoice(next(iter(functions)), "the response's only top-level function")
    if not functions:
        classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        where = f" (only classes: {', '.join(classes)})" if classes else ""
        return EntryChoice(
            None, f"the prompt names no function and the response defines none at top level{where}"
        )
    listed = ", ".join(functions)
    if not from_examples:
        return EntryChoice(
            None, f"the prompt names no function; the response defines several ({listed})"
        )
    # A response's own `test_*` functions exercise the code; they are never its interface.
    called = [n for n in _example_calls(tree) if n in functions and not n.startswith("test_")]
    # Keyword names are the benchmark's own invention (a response cannot know them): the
    # positional-only inputs decide when there are any.
    shapes = _inputs(tests)
    shapes = [s for s in shapes if not s[1]] or shapes
    fitting = [name for name in called if _fits(functions[name], shapes, tests)]
    if len(fitting) == 1:
        return EntryChoice(
            fitting[0],
            "the one function the response's own example calls that takes the tests' arguments",
        )
    if fitting:
        return EntryChoice(
            None,
            f"several functions the response's example calls take the tests' arguments "
            f"({', '.join(fitting)}): not guessed",
        )
    if called:
        return EntryChoice(
            None,
            f"of the functions the response's example calls ({', '.join(called)}), "
            "none takes the tests' arguments",
        )
    fitting = [name for name in functions if not name.startswith("test_")]
    fitting = [name for name in fitting if _fits(functions[name], shapes, tests)]
    if tests and len(fitting) == 1:
        return EntryChoice(
            fitting[0], "the one public function of the response that takes the tests' arguments"
        )
    return EntryChoice(
        None,
        f"the prompt names no function; the response defines several ({listed}) "
        "and no example of its own calls one",
    )


def _example_calls(tree: ast.Module) -> list[str]:
    """Top-level functions called, in order and once each, by the module's own statements
    (the `__main__` block, module-level examples) and by the body of a `main()` they call."""
    mains = {
        n.name: n
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "main"
    }
    statements = [
        n
        for n in tree.body
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    names = list(_calls(statements))
    if "main" in names and "main" in mains:
        names += _calls(mains["main"].body)
    return list(dict.fromkeys(n for n in names if n != "main" or "main" not in mains))


def _calls(statements: Iterable[ast.stmt]) -> list[str]:
    """Names of plain `name(...)` calls in `statements`, in source order."""
    found = [
        node
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]
    found.sort(key=lambda n: (n.lineno, n.col_offset))
    return [n.func.id for n in found if isinstance(n.func, ast.Name)]


def _inputs(tests: Sequence[Mapping[str, Any]]) -> list[tuple[int, list[str]]]:
    """(positional count, keyword names) of each test's input; malformed inputs are skipped."""
    out = []
    for test in tests:
        given = test.get("input")
        if not isinstance(given, Mapping):
            continue
        args, kwargs = given.get("args") or [], given.get("kwargs") or {}
        if isinstance(args, list) and isinstance(kwargs, Mapping):
            out.append((len(args), [str(k) for k in kwargs]))
    return out


def _fits(
    function: _Function,
    shapes: list[tuple[int, list[str]]],
    tests: Sequence[Mapping[str, Any]],
) -> bool:
    """`function` binds every test's arguments and its parameters' names agree with them."""
    return all(_accepts(function, s) for s in shapes) and all(
        _names_agree(function, t) for t in tests
    )


#: What a value must be for a parameter whose name states a type.
_FITS: Final[dict[str, tuple[type, ...]]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "dict": (dict,),
}


def _names_agree(function: _Function, test: Mapping[str, Any]) -> bool:
    """No positional argument of `test` meets a parameter whose name states another type
    (None is any type's stand-in; an int is no bool, a bool no number)."""
    given = test.get("input")
    args = given.get("args") if isinstance(given, Mapping) else None
    if not isinstance(args, list):
        return True
    params = [p.arg for p in function.args.posonlyargs + function.args.args]
    for name, value in zip(params, args, strict=False):
        wanted = _FITS.get(named_type(name) or "")
        if wanted is None or value is None:
            continue
        if isinstance(value, bool) != (wanted == (bool,)) or not isinstance(value, wanted):
            return False
    return True


def _accepts(function: _Function, given: tuple[int, list[str]]) -> bool:
    """Whether `function`'s signature binds `given` positional and keyword arguments."""
    count, keywords = given
    a = function.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if count > len(positional) and a.vararg is None:
        return False
    by_keyword = {p.arg for p in a.args[max(0, count - len(a.posonlyargs)) :]} | {
        p.arg for p in a.kwonlyargs
    }
    if any(k not in by_keyword for k in keywords) and a.kwarg is None:
        return False
    required = positional[: len(positional) - len(a.defaults)]
    if any(name not in keywords for name in required[count:]):
        return False
    return all(
        p.arg in keywords for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None
    )


def named_function(prompt: str, exclude: Iterable[str] = ()) -> str | None:
    """The function a prompt names: `name()` in backticks, or "named/called name"."""
    skip = set(exclude)
    patterns = [
        r"`([A-Za-z_]\w*)\([^`]*\)`",
        r"(?:function|method)\s+(?:named|called)\s+[`'\"]?([A-Za-z_]\w*)",
        r"(?:named|called)\s+[`'\"]([A-Za-z_]\w*)",
        r"function\s+`([A-Za-z_]\w*)`",
    ]
    for pattern in patterns:
        for name in re.findall(pattern, prompt):
            if name not in skip:
                return str(name)
    return None

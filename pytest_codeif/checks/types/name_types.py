"""What a parameter's name says of its type, and what its uses say of a matrix: evidence
read where annotations, observed values and the builtin-narrowing uses leave a type open.

A name is weak evidence, so it only confirms: a parameter named `file_path` that the
code never narrows may be taken as the str the task asks for, but a name never makes a
parameter a mismatch (`count` may well be a list of counts). The words are those the
Python world writes for one type only: `is_`/`has_` flags booleans; `*_map` and
`*_dict` dicts; paths, names and text strings; counts, sizes and indexes ints; rates and
ratios floats (the first that fits).

A matrix shows in use as a sequence of sequences: a nested loop over its rows, a double
index `m[i][j]`, or the length of a row `len(m[0])`.
"""

from __future__ import annotations

import re
from typing import Final

import libcst as cst

from pytest_codeif.checks.shared.structure import FunctionRef

#: Name patterns (the whole name, lower case) -> the one builtin type they name.
_NAMED: Final = (
    (
        re.compile(
            r"(?:is|has|should|use|enable|allow|can|include)_\w+|\w+_(?:flag|enabled|only)"
            r"|flag|verbose|binary|binary_mode|dry_run|strict|recursive|overwrite|force"
        ),
        "bool",
    ),
    (
        re.compile(r"\w+_(?:map|dict|mapping|lookup|table)|mapping|lookup"),
        "dict",
    ),
    (
        re.compile(
            r"(?:.*_)?(?:path|filepath|filename|file_name|dirname|directory|url|uri|text|"
            r"name|email|mode|message|msg|query|prefix|suffix|label|title|string|str|"
            r"description|env|format|fmt|sep|separator|delimiter)"
        ),
        "str",
    ),
    (
        re.compile(
            r"(?:n|k|count|num|number|size|length|limit|index|idx|port|year|age|"
            r"(?:num|max|min|number|total|n)_\w+|\w+_(?:count|size|length|limit|index|rows|"
            r"num|number|seconds|minutes|hours|days|retries|attempts))"
        ),
        "int",
    ),
    (
        re.compile(
            r"(?:.*_)?(?:rate|ratio|factor|offset|threshold|percentage|percent|weight|"
            r"probability|temperature|price|amount)"
        ),
        "float",
    ),
)


def named_type(name: str) -> str | None:
    """The builtin type `name` names by the words above, or None."""
    lowered = name.lower().strip("_")
    for pattern, kind in _NAMED:
        if pattern.fullmatch(lowered):
            return kind
    return None


def _is(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def matrix_use(ref: FunctionRef, name: str) -> str | None:
    """How the function uses `name` as a matrix (rows of values), or None."""
    module, function = ref.module, ref.node
    for sub in module.nodes(cst.Subscript, within=function.body):
        inner = sub.value
        if isinstance(inner, cst.Subscript) and _is(inner.value, name):
            return f"indexes `{name}[...][...]` (line {module.line_of(sub)})"
    for call in module.nodes(cst.Call, within=function.body):
        if (
            isinstance(call.func, cst.Name)
            and call.func.value == "len"
            and call.args
            and isinstance(call.args[0].value, cst.Subscript)
            and _is(call.args[0].value.value, name)
        ):
            return f"takes the length of a row of `{name}` (line {module.line_of(call)})"
    rows: set[str] = set()
    loops = module.nodes(cst.For, cst.CompFor, within=function.body)
    for loop in loops:
        if _is(loop.iter, name) and isinstance(loop.target, cst.Name):
            rows.add(loop.target.value)
    for loop in loops:
        if isinstance(loop.iter, cst.Name) and loop.iter.value in rows:
            return (
                f"loops over the rows of `{name}` and over each row (line {module.line_of(loop)})"
            )
    return None

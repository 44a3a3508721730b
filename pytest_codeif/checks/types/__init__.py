"""The `types` check: a function's parameter and return types, read from its annotations,
from the values observed when its call cases run, or, failing both, from what its code
does with them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.shared.annotations import normalize_annotation, type_matches
from pytest_codeif.checks.shared.js_functions import find_js_function, require_js_function
from pytest_codeif.checks.shared.shapes import (
    Reading,
    describe,
    is_shape,
    read_annotation,
    tree_classes,
    type_name,
    value_has_shape,
)
from pytest_codeif.checks.shared.structure import FunctionRef, code_of, parameters, require_function
from pytest_codeif.checks.shared.ts_types import from_text
from pytest_codeif.checks.types.docstring_types import Declared, declared
from pytest_codeif.checks.types.js import evaluate_js
from pytest_codeif.checks.types.name_types import matrix_use, named_type
from pytest_codeif.checks.types.usage_types import param_types, return_kind
from pytest_codeif.functional.plain import Unsupported, decode

_RULE = "types"
_NUMERIC: Final = {"float": {"int", "float"}, "complex": {"int", "float", "complex"}}
#: Standard-library classes, by every spelling an annotation or a task uses.
_CLASSES: Final = {
    "deque": "collections.deque",
    "Deque": "collections.deque",
    "Counter": "collections.Counter",
    "defaultdict": "collections.defaultdict",
    "DefaultDict": "collections.defaultdict",
    "OrderedDict": "collections.OrderedDict",
    "Queue": "queue.Queue",
    "PriorityQueue": "queue.PriorityQueue",
}
_DICTS: Final = ("collections.Counter", "collections.defaultdict", "collections.OrderedDict")
#: Containers YAML cannot write: a list argument is no evidence for or against them.
_NOT_IN_YAML: Final = ("tuple", "set", "frozenset", "collections.deque", "queue.Queue")
_BUILTINS: Final = frozenset({"str", "int", "float", "bool", "list", "dict", "set", "tuple"})
#: Collections whose parameters a function may take when it only iterates, measures,
#: indexes or unpacks them (a dict is no such collection: iterating one reads its keys).
_COLLECTIONS: Final = frozenset({"list", "tuple", "set"})


def _typed(text: str) -> str:
    """`canonical_type` of a task's type; one only TypeScript spells (`number[]`,
    `Map<K, V>`) as written, for JS/TS code (ValueError when it is neither)."""
    try:
        return canonical_type(text)
    except ValueError as python_error:
        try:
            from_text(text)
        except ValueError:
            raise python_error from None  # neither way: Python's reason
        return text


def canonical_type(text: str | cst.BaseExpression) -> str:
    """A type written in a task or an annotation, normalized (`Optional[List[int]]` is
    `list[int] | None`, `Deque` is `collections.deque`); a shape name stays as it is."""
    if isinstance(text, str) and is_shape(text.strip()):
        return text.strip()
    normalized = normalize_annotation(text)
    return re.sub(
        r"(?<![\w.])(" + "|".join(_CLASSES) + r")\b",
        lambda m: _CLASSES[m.group(1)],
        normalized,
    )


def _parts(expected: str) -> tuple[str, list[str]]:
    """`tuple[set, int]` -> ("tuple", ["set", "int"]); `list[int]` -> ("list", ["int"])."""
    node = cst.parse_expression(expected)
    if isinstance(node, cst.Subscript):
        items = [code_of(e.slice.value) for e in node.slice if isinstance(e.slice, cst.Index)]
        return code_of(node.value), items
    return code_of(node), []


def _same_type(actual: str, expected: str) -> bool:
    """Annotation `actual` is `expected`, a Counter or defaultdict counting as a dict."""
    if type_matches(actual, expected):
        return True
    base = _parts(actual)[0] if "|" not in actual else actual
    return _parts(expected)[0] == "dict" and base in _DICTS


def value_is(value: Any, expected: str, classes: frozenset[str] = frozenset()) -> bool:
    """Whether an observed (decoded) value is of the normalized type or shape `expected`;
    for a `tuple[...]` each position is compared too. YAML has no tuple or set, so a list
    argument is not evidence for or against them (the caller skips those)."""
    if is_shape(expected):
        return value_has_shape(value, expected, classes) is True
    if len(_members(expected)) > 1:
        return any(value_is(value, m, classes) for m in _members(expected))
    base, items = _parts(expected)
    if isinstance(value, Unsupported):  # an object: only its class can be compared
        return value.what == base or (base == "dict" and value.what in _DICTS)
    actual = type_name(value)
    if base == "None":
        return value is None
    if actual not in _NUMERIC.get(base, {base}):
        return False
    if base == "tuple" and items and items[-1] != "...":
        return len(value) == len(items) and all(
            value_is(v, i, classes) for v, i in zip(value, items, strict=True)
        )
    return True


def _shown(value: Any) -> str:
    if isinstance(value, Unsupported):
        return value.what
    if type_name(value) == "tuple":
        return "tuple[" + ", ".join(type_name(v) for v in value) + "]"
    return type_name(value)


@dataclass
class _State:
    """What the comparisons share: the function, the observations (read once), the
    code's tree node classes, and what the comparisons found."""

    ref: FunctionRef
    observed: Callable[[], list[tuple[Any, Any]]]
    classes: frozenset[str]
    findings: list[str]
    unknown: list[str]
    declared: Declared


@dataclass(frozen=True)
class _Verdict:
    """One comparison: "match", "mismatch" or "unknown", and why."""

    verdict: str
    why: str = ""


def _from_usage(state: _State, name: str, expected: str) -> _Verdict:
    """An unannotated, unobserved parameter judged by what the code does with it (a
    matrix by its nested use, see `name_types`)."""
    inferred = param_types(state.ref, name)
    base = expected if is_shape(expected) else _parts(expected)[0]
    if base == "matrix" and (rows := matrix_use(state.ref, name)):
        return _Verdict("match", rows)
    if inferred.types is None:
        return _Verdict("unknown", f"parameter `{name}` ({inferred.why})")
    if expected == "json-text" and inferred.json_text:
        return _Verdict("match")
    wanted = {"str"} if base in ("json-text", "datetime-text") else _NUMERIC.get(base, {base})
    if base in _CLASSES.values() and base in inferred.types:
        return _Verdict("match")  # `q.popleft()`: only a deque has it
    if base not in _BUILTINS and not base.endswith("-text"):
        return _Verdict("unknown", f"parameter `{name}` (its uses cannot show `{expected}`)")
    candidates = inferred.types
    if not candidates & wanted:
        shown = "/".join(sorted(candidates))
        return _Verdict(
            "mismatch",
            f"parameter `{name}` (unannotated) is used as {shown}, not `{expected}`: "
            f"{inferred.why}",
        )
    if candidates <= wanted | ({"bool"} if "int" in wanted else set()) and not is_shape(base):
        return _Verdict("match")
    if base in _COLLECTIONS and not is_shape(base):
        # Used only as a collection (iterated, measured, indexed, unpacked): the function
        # takes the list, tuple or set it is asked to take; which one no use can tell.
        return _Verdict("match")
    shown = ", ".join(sorted(candidates))
    return _Verdict("unknown", f"parameter `{name}` (its uses allow {shown}: {inferred.why})")


def _by_name(name: str, expected: str, otherwise: _Verdict) -> _Verdict:
    """What the parameter's name says: a match when it names the expected type (or, for
    a float, an int), else `otherwise` (a name never shows a mismatch)."""
    named = named_type(name)
    base = expected if is_shape(expected) else _parts(expected)[0]
    if named is not None and named in _NUMERIC.get(base, {base}):
        return _Verdict("match", f"named `{name}`")
    return otherwise


def _judge_param(state: _State, param: cst.Param, index: int, expected: str) -> _Verdict:
    """Annotation first, then the arguments of cases that returned, then the code's uses,
    then the docstring's declared type, then the parameter's name."""
    name = param.name.value
    admitted = ""
    if param.annotation is not None:
        actual = canonical_type(param.annotation.annotation)
        if is_shape(expected):
            reading = read_annotation(actual, expected, state.classes)
            if reading is Reading.PROVES:
                return _Verdict("match")
            if reading is Reading.EXCLUDES:
                return _Verdict(
                    "mismatch",
                    f"parameter `{name}` is annotated `{actual}`, which cannot hold a {expected}",
                )
            admitted = actual
        elif _same_type(actual, expected):
            return _Verdict("match")
        else:
            return _Verdict(
                "mismatch", f"parameter `{name}` is annotated `{actual}`, expected `{expected}`"
            )
    observed = _observed_param(state, name, index, expected)
    if observed is not None:
        return observed
    if admitted:
        return _Verdict("match")  # the annotation admits the shape; nothing contradicts it
    used = _from_usage(state, name, expected)
    written = state.declared.params.get(name)
    if used.verdict != "unknown":
        return used
    if written is None:
        return _by_name(name, expected, used)
    written = canonical_type(written)
    found = _kind_matches(written, expected, state.classes)
    if found is None:
        return _by_name(name, expected, used)
    if found:
        return _Verdict("match")
    return _Verdict(
        "mismatch",
        f"parameter `{name}` (unannotated) is `{written}` by its docstring, expected `{expected}`",
    )


def _observed_param(state: _State, name: str, index: int, expected: str) -> _Verdict | None:
    skip = not is_shape(expected) and _parts(expected)[0] in _NOT_IN_YAML
    seen = []
    for case, _ in state.observed():
        value = (
            case.kwargs[name]
            if name in case.kwargs
            else (case.args[index] if index < len(case.args) else None)
        )
        if value is None or (isinstance(value, list) and skip):
            continue
        seen.append(value)
    if is_shape(expected):
        verdicts = [value_has_shape(v, expected, state.classes) for v in seen]
        seen = [v for v, ok in zip(seen, verdicts, strict=True) if ok is not None]
    if not seen:
        return None
    # The tests choose the arguments (some on purpose of the wrong type): the function
    # takes the type when at least one call with such a value returned.
    if any(value_is(v, expected, state.classes) for v in seen):
        return _Verdict("match")
    kinds = sorted({describe(v) if is_shape(expected) else type_name(v) for v in seen})
    return _Verdict(
        "mismatch",
        f"parameter `{name}` (unannotated) returned only for {' / '.join(kinds)} "
        f"arguments, never for `{expected}`",
    )


class TypesCheck(Check):
    """A function takes and returns the stated types: by annotation, observation or use.

    Why: "write `stats(log: str) -> tuple[set, int, bool]`" is an interface promise. Read
    only from annotations (as MultiCodeIF's scripts do), correct code without annotations
    fails; so where a parameter or the return is annotated, the annotation decides (by
    meaning: `Tuple[Set[str], int]` is a `tuple[set, int]`), and where it is not, the
    values seen when the task's call cases run decide: a parameter takes a type when at
    least one case passing such a value returned (tests pass wrong types on purpose, so
    one bad argument proves nothing), and every returned value must be of the return
    type, with positions of a tuple compared one by one and an int accepted as a float.
    A list argument says nothing about tuple, set or deque parameters (YAML has none).

    With neither, the code's structure decides what it can: a parameter used only as a
    string (`p.split()`, `p + "!"`, `json.loads(p)`) is a str, one read as `p["key"]` or
    through `p.items()` a dict, `p.sort()` a list, `p.add()` a set, `range(p)` or
    arithmetic a number; a return whose normal path (the last statement) is a literal
    tuple, list, dict, set, f-string, comparison, builtin constructor call (`set(x)`,
    `len(x)`, `sorted(x)`, `json.dumps(x)`, `Counter(x)`), a call of the code's own
    helper (what the helper returns), or a local name only ever assigned such values,
    has that type; branches that return different kinds agree where each is known (a
    `None` or an open position in one branch takes the others' kind: `return box, True`
    and `return None, False` return a tuple[tuple, bool]), and `x if c else ""` is a str.
    A parameter the function only iterates, measures, indexes or unpacks takes the
    list, tuple or set asked for (which of them no use tells, and each works); one kept
    as a heap (`heapq.heappush(p, x)`) is a list, one opened as a path a str, one
    with `popleft()` a deque, and one used as rows of values (`p[i][j]`, `len(p[0])`,
    a loop over each row) a matrix. Formatting (`f"{p}"`) shows nothing (anything
    formats); a method no builtin has or a rebound name leaves the type open. Where uses
    leave it open, a type the docstring declares decides (Google `name (type):`, Sphinx
    `:type name:` / `:rtype:`, NumPy `name : type`; the author's own statement of the
    interface), and then the parameter's name, which only confirms (`file_path` is a
    str, `grades_map` a dict, `is_active` a bool; a name never shows a mismatch).
    Failing all of these, the check is undecidable (`no-observations`).

    Shapes: `graph`, `matrix`, `tree`, `json-text` and `datetime-text` may stand wherever
    a type does. An annotation proves a shape (`dict[str, list[str]]` is a graph,
    `list[list[float]]` a matrix, a node class with `children` or `left`/`right` a tree),
    admits it (`dict`, `str`: then observed values decide, and with none the annotation
    is taken as kept), or rules it out (`int`). Observed values are read by structure:
    an adjacency dict, edge list or square adjacency matrix is a graph; equal-length lists
    of scalars a matrix; nested dicts or node objects a tree; a str that parses as a JSON
    object or array is JSON text; one `datetime.fromisoformat` reads is date/time text.

    JavaScript and TypeScript: TypeScript's annotations decide where written (by
    meaning, the task's types spelt TypeScript's way, `number[]`, or Python's,
    `list[int]`; an async function's `Promise<T>` returns `T`), else the values Node's
    call cases passed and returned, as above (a whole number is an int, `number` and
    `float` accept any); the code's uses are not read, so with neither the check is
    undecidable.

    Options: `function` (required), `param-types` (the types of all parameters but
    self/cls, in order; with `param-match: in-order`, types that occur among the
    parameters in this order, others allowed between), `param-type` (some parameter
    has this type), `returns` (the return type); at least one of the last three.

    Example:

        - check: types
          function: stats
          param-types: [str]
          returns: tuple[set, int, bool]
    """

    name = "types"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Interface Specification"
    advice = (
        "Give the function the parameter and return types the instruction names; "
        "annotating them makes the interface explicit."
    )
    observes_calls = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["function"],
        "anyOf": [
            {"required": ["param-types"]},
            {"required": ["param-type"]},
            {"required": ["returns"]},
        ],
        "properties": {
            "function": {"type": "string", "minLength": 1},
            "param-types": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "param-type": {"type": "string"},
            "param-match": {"enum": ["exact", "in-order"]},
            "returns": {"type": "string"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "export async function stats(log: string, limit?: number): "
            "Promise<[Set<string>, number]> {\n  return [new Set(), 0];\n}\n",
            {"function": "stats", "param-types": ["str", "int"], "returns": "tuple[set, int]"},
            language="typescript",
        ),
        Sample(
            "function mean(xs) {\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n}\n",
            {"function": "mean", "param-types": ["list"], "returns": "number"},
            calls=[{"function": "mean", "args": [[1, 2]]}],
            language="javascript",
        ),
        Sample(
            "def stats(log):\n    words = log.split()\n"
            "    return set(words), len(words), bool(words)\n",
            {"function": "stats", "param-types": ["str"], "returns": "tuple[set, int, bool]"},
            calls=[{"function": "stats", "args": ["a b a"]}],
        ),
        Sample(
            "from typing import Set, Tuple\n\ndef stats(log: str) -> Tuple[Set[str], int]:\n"
            "    return set(), 0\n",
            {"function": "stats", "param-types": ["str"], "returns": "tuple[set, int]"},
        ),
        Sample(
            "def page(items: list, number: int, size: int) -> list:\n    return items\n",
            {"function": "page", "param-types": ["int", "int"], "param-match": "in-order"},
        ),
        Sample(
            "def filter_data(records, criteria):\n    return [r for r in records if criteria]\n",
            {"function": "filter_data", "param-type": "dict"},
            calls=[
                {"function": "filter_data", "args": [[{"a": 1}], {"a": 1}]},
                {"function": "filter_data", "args": [[], 2.5]},
            ],
        ),
        Sample(
            """
            def process_error_logs(codes):
                unique = set(codes)
                total = len(codes)
                critical = any(code.startswith("E5") for code in codes)
                return unique, total, critical
            """,
            {"function": "process_error_logs", "returns": "tuple[set, int, bool]"},
        ),
        Sample(
            """
            def shout(message):
                return message.strip().upper() + "!"
            """,
            {"function": "shout", "param-types": ["str"], "returns": "str"},
        ),
        Sample(
            """
            def count_components(adjacency: dict[str, list[str]]) -> int:
                return len(adjacency)
            """,
            {"function": "count_components", "param-types": ["graph"]},
        ),
        Sample(
            "def transpose(grid):\n    return [list(row) for row in zip(*grid)]\n",
            {"function": "transpose", "param-types": ["matrix"], "returns": "matrix"},
            calls=[{"function": "transpose", "args": [[[1, 2], [3, 4], [5, 6]]]}],
        ),
        Sample(
            """
            import statistics

            def mean(values):
                \"\"\"The mean.

                Args:
                    values (list[float]): the numbers.

                Returns:
                    float: their mean.
                \"\"\"
                return statistics.fmean(values)
            """,
            {"function": "mean", "param-types": ["list"], "returns": "float"},
        ),
        Sample(
            """
            import json

            def summary(totals):
                return json.dumps({"total": sum(totals.values())})
            """,
            {"function": "summary", "param-types": ["dict"], "returns": "json-text"},
        ),
        Sample(  # iterated only: it takes the tuple asked for; the path is named one
            """
            def load(file_path, operations):
                with open(file_path) as handle:
                    for operation in operations:
                        handle.seek(operation)
            """,
            {"function": "load", "param-types": ["str", "tuple"]},
        ),
        Sample(  # rows of values; a helper's return; a None fallback in a branch
            """
            def empty():
                return {}

            def scan(grid, offset):
                if not grid:
                    return None, False
                for row in grid:
                    for cell in row:
                        offset += cell
                return empty(), True
            """,
            {
                "function": "scan",
                "param-types": ["matrix", "float"],
                "returns": "tuple[dict, bool]",
            },
        ),
    )
    violated_by = (
        Sample(
            "export const label = (n: number): number => n;\n",
            {"function": "label", "returns": "string"},
            message="`label` returns `number` by its annotation, expected `string`",
            line=1,
            language="typescript",
        ),
        Sample(
            "function half(n) {\n  return String(n / 2);\n}\n",
            {"function": "half", "returns": "float"},
            calls=[{"function": "half", "args": [3]}],
            message="`half` returned a str (no return annotation), expected `float`",
            line=1,
            language="javascript",
        ),
        Sample(
            "def stats(log):\n    words = log.split()\n    return [len(words), words]\n",
            {"function": "stats", "returns": "tuple[int, list]"},
            calls=[{"function": "stats", "args": ["a b"]}],
        ),
        Sample(
            "def mean(xs: list) -> str:\n    return str(sum(xs) / len(xs))\n",
            {"function": "mean", "param-types": ["list"], "returns": "float"},
        ),
        Sample(
            "def mean(xs, scale):\n    return sum(xs) * scale\n",
            {"function": "mean", "param-types": ["list"]},
        ),
        Sample(
            "def page(number: int, items: list) -> list:\n    return items\n",
            {"function": "page", "param-types": ["int", "int"], "param-match": "in-order"},
        ),
        Sample(
            "def count(limit):\n    return list(range(int(limit)))\n",
            {"function": "count", "param-type": "int"},
            calls=[{"function": "count", "args": ["5"]}],
        ),
        Sample(
            """
            def process_error_logs(codes):
                unique = set(codes)
                return [unique, len(codes)]
            """,
            {"function": "process_error_logs", "returns": "tuple[set, int]"},
            message="returns a list",
        ),
        Sample(
            "def parse(entries):\n    return entries.split(',')\n",
            {"function": "parse", "param-types": ["list"]},
            message="is used as str",
        ),
        Sample(
            "def neighbours(graph: list[str]) -> list[str]:\n    return graph\n",
            {"function": "neighbours", "param-types": ["graph"]},
            message="cannot hold a graph",
        ),
        Sample(
            """
            def label(code):
                \"\"\"Look a code up.

                :param int code: the numeric code
                \"\"\"
                return LABELS[code]
            """,
            {"function": "label", "param-types": ["str"]},
            message="is `int` by its docstring",
        ),
        Sample(
            "def flatten(grid):\n    return [x for row in grid for x in row]\n",
            {"function": "flatten", "returns": "matrix"},
            calls=[{"function": "flatten", "args": [[[1, 2], [3, 4]]]}],
        ),
        Sample(  # kept as a heap: a list, whatever its name says
            "import heapq\n\ndef next_job(jobs_map):\n    return heapq.heappop(jobs_map)\n",
            {"function": "next_job", "param-types": ["dict"]},
            message="is used as list, not `dict`",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.param_types = [_typed(t) for t in options.get("param-types", [])]
        self.param_type = _typed(options["param-type"]) if "param-type" in options else None
        self.returns = _typed(options["returns"]) if "returns" in options else None

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        js = ctx.js_modules()
        function = find_js_function(js, self.options["function"]) if js else None
        if function is not None or (js and not ctx.modules()):
            if function is None:
                found = require_js_function(ctx, self.options["function"], _RULE)
                return [found] if isinstance(found, Finding) else []
            return evaluate_js(dict(self.options), ctx, function, value_is)
        ref = require_function(ctx, self.options["function"], _RULE)
        if isinstance(ref, Finding):
            return [ref]
        params = [p for p in parameters(ref.node.params) if p.name.value not in ("self", "cls")]
        findings: list[str] = []
        unknown: list[str] = []

        @cache  # the functional run is read only if an unannotated type needs it
        def observed() -> list[tuple[Any, Any]]:
            try:
                return [
                    (case, decode(result.value))
                    for case, result in ctx.observed()
                    if result.returned and case.function == ref.node.name.value
                ]
            except Undecidable:
                return []

        classes = tree_classes(c for m in ctx.modules() for c in m.nodes(cst.ClassDef))
        state = _State(ref, observed, classes, findings, unknown, declared(ref.node))
        if self.param_types and self.options.get("param-match") == "in-order":
            self._in_order(state, params)
        elif self.param_types:
            if len(params) != len(self.param_types):
                shown = ", ".join(p.name.value for p in params)
                findings.append(
                    f"takes {len(params)} parameters ({shown}), expected "
                    f"{len(self.param_types)} ({', '.join(self.options['param-types'])})"
                )
            else:
                for index, (param, expected) in enumerate(
                    zip(params, self.param_types, strict=True)
                ):
                    self._param(state, param, index, expected)
        if self.param_type is not None:
            self._any_param(state, params, self.param_type)
        if self.returns is not None:
            _return(state, ref.node, self.returns)
        if unknown and not findings:
            raise Undecidable(
                "no-observations",
                f"{'; '.join(unknown)} of `{ref.qualname}`: no annotation, no call case "
                "that returned shows the type, and the code's uses do not decide it",
            )
        return [
            Finding(f"`{ref.qualname}` {m}", _RULE, ref.module.relpath, ref.line) for m in findings
        ]

    @staticmethod
    def _param(state: _State, param: cst.Param, index: int, expected: str) -> None:
        judged = _judge_param(state, param, index, expected)
        if judged.verdict == "mismatch":
            state.findings.append(judged.why)
        elif judged.verdict == "unknown":
            state.unknown.append(judged.why)

    def _in_order(self, state: _State, params: list[cst.Param]) -> None:
        """The listed types occur among the parameters in this order (others may come
        between): greedy matching, taking the first parameter that matches each type."""
        start = 0
        for expected in self.param_types:
            for index in range(start, len(params)):
                judged = _judge_param(state, params[index], index, expected)
                if judged.verdict == "unknown":
                    state.unknown.append(judged.why)
                    return
                if judged.verdict == "match":
                    start = index + 1
                    break
            else:
                shown = ", ".join(p.name.value for p in params) or "none"
                wanted = ", ".join(self.options["param-types"])
                state.findings.append(
                    f"has no parameters of types ({wanted}) in this order (parameters: {shown})"
                )
                return

    @staticmethod
    def _any_param(state: _State, params: list[cst.Param], expected: str) -> None:
        judged = [_judge_param(state, p, i, expected) for i, p in enumerate(params)]
        if any(j.verdict == "match" for j in judged):
            return
        unknown = [j.why for j in judged if j.verdict == "unknown"]
        if unknown:
            state.unknown.extend(unknown)
        else:
            shown = ", ".join(p.name.value for p in params) or "none"
            state.findings.append(f"has no parameter of type `{expected}` (parameters: {shown})")


def _return(state: _State, node: cst.FunctionDef, expected: str) -> None:
    """Annotation first, then every value returned by the cases, then the code's normal
    path of return."""
    admitted = False
    if node.returns is not None:
        actual = canonical_type(node.returns.annotation)
        if is_shape(expected):
            reading = read_annotation(actual, expected, state.classes)
            if reading is Reading.EXCLUDES:
                state.findings.append(
                    f"returns `{actual}` by its annotation, which cannot hold a {expected}"
                )
            if reading is not Reading.ADMITS:
                return
            admitted = True
        else:
            if not _same_type(actual, expected):
                state.findings.append(
                    f"returns `{actual}` by its annotation, expected `{expected}`"
                )
            return
    values = [value for _, value in state.observed()]
    if is_shape(expected):
        values = [v for v in values if value_has_shape(v, expected, state.classes) is not None]
    if values:
        wrong = [v for v in values if not value_is(v, expected, state.classes)]
        if wrong:
            what = describe(wrong[0]) if is_shape(expected) else f"a {_shown(wrong[0])}"
            state.findings.append(f"returned {what} (no return annotation), expected `{expected}`")
        return
    if not admitted:
        _static_return(state, expected)


def _static_return(state: _State, expected: str) -> None:
    """The normal path's return, read from structure; where that leaves the type open,
    the docstring's declared return type."""
    found = return_kind(state.ref)
    verdict = None if found.kind is None else _kind_matches(found.kind, expected, state.classes)
    written = canonical_type(state.declared.returns) if state.declared.returns else None
    if verdict is None and written is not None:
        by_docstring = _kind_matches(written, expected, state.classes)
        if by_docstring is False:
            state.findings.append(
                f"returns `{written}` by its docstring (no return annotation), "
                f"expected `{expected}`"
            )
        if by_docstring is not None:
            return
    if found.kind is None:
        state.unknown.append(f"the return type ({found.why})")
        return
    if verdict is False:
        state.findings.append(
            f"returns a {found.kind} (no return annotation; {found.why}), expected `{expected}`"
        )
    elif verdict is None:
        state.unknown.append(f"the return type (a {found.kind}: {found.why})")


def _kind_matches(kind: str, expected: str, classes: frozenset[str]) -> bool | None:
    """Whether a kind read from the code's structure is `expected`: True, False, or None
    when the kind allows it without showing it (a str may be JSON text; a list's items
    are not read)."""
    members = _members(expected)
    if len(members) > 1:
        found = [_kind_matches(kind, m, classes) for m in members]
        return True if True in found else (None if None in found else False)
    if kind.endswith("-text"):
        if expected == kind:
            return True
        return None if expected.endswith("-text") else _kind_matches("str", expected, classes)
    if is_shape(expected):
        if expected.endswith("-text") and kind == "str":
            return None
        reading = read_annotation(kind.replace("?", "Any"), expected, classes)
        return {Reading.PROVES: True, Reading.EXCLUDES: False}.get(reading)
    base, items = _parts(expected)
    if kind == "number":  # an int or a float: a float is shown, an int is not
        return (
            True
            if base in ("float", "complex", "Any", "object")
            else (None if base == "int" else False)
        )
    kind_base, kind_items = _parts(kind.replace("?", "Any"))
    if kind_base != base:
        subclass = base == "dict" and kind_base in _DICTS
        return subclass or (base == "float" and kind_base == "int") or base in ("Any", "object")
    if not items or items[-1] == "...":
        return True
    if not kind_items:
        return None
    if len(items) != len(kind_items):
        return False
    found = [
        None if k == "Any" else _kind_matches(k, e, classes)
        for k, e in zip(kind_items, items, strict=True)
    ]
    return False if False in found else (None if None in found else True)


def _members(annotation: str) -> list[str]:
    """The members of a normalized union (`int | None`), split at the top level only."""
    members, depth, current = [], 0, ""
    for char in annotation:
        depth += (char == "[") - (char == "]")
        if char == "|" and depth == 0:
            members.append(current.strip())
            current = ""
        else:
            current += char
    return [*members, current.strip()]

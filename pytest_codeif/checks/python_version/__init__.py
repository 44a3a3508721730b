"""The `python-version` check: the code runs on a target Python version, and uses the
features of the versions (or the named features) an instruction asks for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.python_version.stdlib_versions import (
    Version,
    available,
    member_spans,
    module_span,
)
from pytest_codeif.checks.python_version.version_features import (
    BY_ID,
    VERSIONS,
    Found,
    features_used,
    stdlib_uses,
    version_text,
    would_count,
)
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.tools import RuffConfig, ToolConfig

_RULE = "python-version"
RUFF_OLDEST: Final = (3, 7)
#: The newest target ruff 0.17 accepts (its error lists py37 to py315); newer targets are
#: judged against it, and the report says so.
RUFF_NEWEST: Final = (3, 15)


def version_problem(name: str, target: Version) -> str | None:
    """Why stdlib `name` (a module or `module.member`) is unavailable on `target`."""
    head, _, member = name.rpartition(".")
    if head and module_span(head) is not None:
        span = member_spans(head).get(member)
        if span is not None and (reason := available(span, target)):
            return f"`{name}` was {reason}"
    listed = module_span(name)
    if listed is not None and (reason := available(listed[1], target)):
        return f"module `{listed[0]}` was {reason}"
    return None


_TARGET: Final = {"type": "string", "pattern": "^3\\.[0-9]{1,2}$"}
_TABLED: Final = {"enum": [version_text(v) for v in VERSIONS]}
#: Places shown in a note saying what was found.
_SHOWN: Final = 5


def _version(text: str) -> Version:
    major, minor = text.split(".")
    return int(major), int(minor)


def _places(found: list[tuple[ParsedModule, Found]]) -> str:
    """'structural pattern matching: `match x:` (solution.py:12), ...': the first few
    distinct things found (code is quoted only for those shown)."""
    distinct: dict[tuple[str, str | None], tuple[ParsedModule, Found]] = {}
    for module, item in found:
        distinct.setdefault((item.feature.id, item.name), (module, item))
    placed = sorted(
        (module.relpath, module.line_of(item.node), item) for module, item in distinct.values()
    )
    shown = [f"{item.shown()} ({path}:{line})" for path, line, item in placed[:_SHOWN]]
    more = f" and {len(distinct) - _SHOWN} more" if len(distinct) > _SHOWN else ""
    return "; ".join(shown) + more


class PythonVersionCheck(Check):
    """The code runs on a target Python version, and uses the features of the versions
    (or the named features) the instruction asks for.

    Why: "must run on Python 3.8" rules out `match`, `except*`, `type X = ...`,
    parenthesised context managers, `tomllib`, `itertools.batched`...; "write it in Python
    3.10 and use its new features" asks the opposite: that something 3.10 introduced is
    used. How it decides, for `version`: syntax by ruff's version-aware parser
    (`target-version`); standard-library modules by typeshed's VERSIONS table (added and
    removed modules: `tomllib` needs 3.11, `distutils` is gone after 3.11); module members
    used as `module.member` or imported with `from module import member` by typeshed's
    `sys.version_info` guards. For `uses` and `features`: a table of what 3.5 to 3.13
    introduced, each recognised in the libcst tree (`:=`, `def f(a, /)`, `f'{x=}'`,
    `match`, `X | Y` in annotations, `with (a as x, b as y)`, `except*`, `def f[T]()`,
    `type X = ...`, dict `|` on dict values...) or by a name resolved through the imports
    (`tomllib`, `typing.Self`, `itertools.batched`, `zip(strict=...)`, `str.removeprefix`),
    plus every standard-library name typeshed records as added in the version. The
    findings say what would have counted; a satisfied verdict's notes say what was found.

    Limits: methods of objects (`"ab".removeprefix`) are not judged by `version`, and
    typeshed keeps guards only for versions it still supports, so members added before
    about 3.10 pass `version` unnoticed (`uses` has them in its table). A feature is seen
    when written: `int | None` under `from __future__ import annotations` counts as 3.10's
    union syntax although 3.7 runs it. Code the running Python cannot parse is undecidable
    (a syntax error) rather than judged. ruff knows targets 3.7 to 3.15, so syntax for a
    target outside is judged against the nearest of them (the report notes it).

    Options (at least one): `version` ("3.8": nothing newer than 3.8 is used, nothing
    removed by then either); `uses` ("3.10", or a list of versions from 3.5 to 3.13: at
    least one feature introduced in one of them is used); `features` (ids from the table,
    each of which must be used: async-await, matrix-multiply, unpacking-generalizations,
    f-string, variable-annotations, underscore-numbers, async-generators,
    postponed-annotations, dataclasses, breakpoint, module-getattr, walrus,
    positional-only, fstring-equals, typing-3.8, dict-union, str-removeprefix,
    builtin-generics, relaxed-decorators, match, union-types,
    parenthesized-context-managers, zip-strict, exception-groups, tomllib, typing-self,
    variadic-generics, task-groups, type-parameters, type-statement, fstring-nesting,
    override, itertools-batched, type-parameter-defaults, deprecated, copy-replace, and
    stdlib-3.5 ... stdlib-3.13 for a version's other standard-library additions, and
    exception-chaining, `raise ... from ...`, older than the table but named by prompts;
    an entry may be a list of ids, any one of which counts: `[exception-groups,
    exception-chaining]`).

    What "uses Python 3.13's features" means: a prompt that names a feature ("Python
    3.13's walrus operator") asks for that feature, whatever version introduced it (the
    walrus is 3.8's): `features`. One that names none ("the new features of Python
    3.13") asks for something that version introduced: `uses` counts only features new
    in the listed versions, since any older feature is in every later version too and
    would make the requirement empty. Syntax counts as what it is, not what it looks
    like: `with (conn := connect()) as conn:` is a parenthesised assignment expression
    (3.8), not 3.10's parenthesised context managers `with (open(a) as f, open(b) as g):`.

    Example:

        - check: python-version
          version: "3.10"
          uses: "3.10"
          features: [match]
    """

    name = "python-version"
    category = "Environment"
    advice: ClassVar[str] = (
        "Use only what the target version has, and where the task asks for a version's "
        "features, use one of them (the finding lists what would count)."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [{"required": ["version"]}, {"required": ["uses"]}, {"required": ["features"]}],
        "properties": {
            "version": _TARGET,
            "uses": {
                "oneOf": [
                    _TABLED,
                    {"type": "array", "items": _TABLED, "minItems": 1, "uniqueItems": True},
                ]
            },
            "features": {
                "type": "array",
                "items": {
                    "oneOf": [
                        {"enum": list(BY_ID)},
                        {
                            "type": "array",
                            "items": {"enum": list(BY_ID)},
                            "minItems": 2,
                            "uniqueItems": True,
                        },
                    ],
                    "x-message": "a feature id, or a list of them (any one of which counts)",
                },
                "minItems": 1,
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("import math\n\ndef f(a, b):\n    return math.gcd(a, b)\n", {"version": "3.8"}),
        # typeshed defines json.load in both branches of a version guard
        Sample("import json, os\n\nos.makedirs('d')\njson.loads('1')\n", {"version": "3.10"}),
        Sample(
            "import tomllib\n\ndef f(x):\n    match x:\n        case 1:\n            return 1\n",
            {"version": "3.12"},
        ),
        Sample(
            "def f(x):\n    match x:\n        case 1:\n            return 1\n",
            {"version": "3.10", "uses": "3.10", "features": ["match"]},
        ),
        Sample(
            "def first(items):\n    if (n := len(items)) > 0:\n        return n\n", {"uses": "3.8"}
        ),
        Sample("def f(a, b, /):\n    return a\n", {"features": ["positional-only"]}),
        Sample("def show(x):\n    print(f'{x=}')\n", {"features": ["fstring-equals"]}),
        Sample("def merge(a: dict, b):\n    return a | b\n", {"features": ["dict-union"]}),
        Sample("def f(s):\n    return s.removeprefix('x')\n", {"uses": ["3.9"]}),
        Sample("def f(xs: list[int]) -> int:\n    return 0\n", {"features": ["builtin-generics"]}),
        Sample("def f(x: int | None):\n    return x\n", {"features": ["union-types"]}),
        Sample("def f(a, b):\n    return list(zip(a, b, strict=True))\n", {"uses": "3.10"}),
        Sample(
            "try:\n    pass\nexcept* ValueError:\n    pass\n", {"features": ["exception-groups"]}
        ),
        Sample(
            "def f(errors):\n    raise ExceptionGroup('many', errors)\n",
            {"version": "3.11", "features": ["exception-groups"]},
        ),
        Sample("import tomllib\n", {"uses": "3.11"}),
        Sample(
            "from typing import Self\n\nclass A:\n    def me(self) -> Self:\n        return self\n",
            {"uses": "3.11"},
        ),
        Sample("import datetime\n\nnow = datetime.datetime.now(datetime.UTC)\n", {"uses": "3.11"}),
        Sample(
            """
            from typing import override

            class B(A):
                @override
                def run(self):
                    return 1
            """,
            {"features": ["override"]},
        ),
        Sample("from itertools import batched\n", {"uses": "3.12"}),
        Sample("import copy\n\ndef f(p):\n    return copy.replace(p, x=1)\n", {"uses": "3.13"}),
        Sample(  # either feature of the group counts
            """
            import sqlite3

            def load(path):
                try:
                    with (conn := sqlite3.connect(path)) as conn:
                        return conn.execute("select 1").fetchone()
                except sqlite3.Error as exc:
                    raise RuntimeError("cannot load") from exc
            """,
            {"version": "3.13", "features": ["walrus", ["exception-groups", "exception-chaining"]]},
        ),
    )
    violated_by = (
        Sample(
            "def f(x):\n    match x:\n        case 1:\n            return 1\n",
            {"version": "3.8"},
        ),
        Sample("import tomllib\n", {"version": "3.10"}),
        Sample("from itertools import batched\n", {"version": "3.11"}),
        Sample("import itertools\n\nitertools.batched([1, 2], 1)\n", {"version": "3.10"}),
        Sample("import distutils\n", {"version": "3.12"}),
        Sample(
            "def f(x):\n    if x == 1:\n        return 1\n",
            {"version": "3.10", "uses": "3.10"},
            message="uses no feature introduced in Python 3.10; any of these would count: "
            "3.10: structural pattern matching `match`",
        ),
        Sample(  # walrus is 3.8: not a feature of 3.10
            "def f(xs):\n    if (n := len(xs)):\n        return n\n",
            {"uses": "3.10"},
            message="uses no feature introduced in Python 3.10",
        ),
        Sample(  # both named features are asked for; one is used
            "def f(a, /):\n    return a\n",
            {"features": ["walrus", "positional-only"]},
            message="does not use assignment expressions `:=` (PEP 572) (3.8)",
        ),
        Sample(  # `|` on sets is older than Python
            "def f(a, b):\n    return set(a) | set(b)\n",
            {"features": ["dict-union"]},
            message="does not use dict union",
        ),
        Sample(  # a plain try/except is not 3.11's exception groups
            "try:\n    pass\nexcept ValueError as e:\n    raise RuntimeError('x') from e\n",
            {"uses": "3.11"},
            message="3.11: exception groups and notes",
        ),
        Sample(
            "from typing import Optional\n\ndef f(x: Optional[int]):\n    return x\n",
            {"features": ["union-types"]},
            message="does not use union types `X | Y` (PEP 604) (3.10)",
        ),
        Sample(  # a parenthesised walrus is no parenthesised context manager
            "def f(path):\n    with (f := open(path)) as f:\n        return f.read()\n",
            {"features": ["parenthesized-context-managers"]},
            message="does not use parenthesised context managers",
        ),
        Sample(
            "def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n"
            "        return None\n",
            {"features": [["exception-groups", "exception-chaining"]]},
            message="does not use exception groups and notes: `except*`, `ExceptionGroup`, "
            "`add_note` (PEP 654, 678) (3.11) or exception chaining",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.target: Version | None = None
        self.ruff: RuffConfig | None = None
        if "version" in options:
            self.target = _version(str(options["version"]))
            # ruff's oldest target is 3.7: older targets get their syntax judged against 3.7.
            self.syntax_target = min(max(self.target, RUFF_OLDEST), RUFF_NEWEST)
            # No rule selected: ruff then reports only syntax errors, which (the code having
            # parsed under the running Python) are the version-dependent ones.
            self.ruff = RuffConfig.from_mapping(
                {"lint.select": [], "target-version": "py{}{}".format(*self.syntax_target)}
            )
        uses = options.get("uses", [])
        self.uses: list[Version] = [
            _version(v) for v in ([uses] if isinstance(uses, str) else uses)
        ]
        #: Each entry must be used: a feature id, or a list of ids any one of which counts.
        self.features: list[list[str]] = [
            [wanted] if isinstance(wanted, str) else list(wanted)
            for wanted in options.get("features", [])
        ]

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.ruff,) if self.ruff is not None else ()

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings = self._compatible(ctx)
        if self.uses or self.features:
            findings += self._uses(ctx)
        return findings

    def _compatible(self, ctx: CheckContext) -> list[Finding]:
        """Findings for anything newer than (or removed before) the target version."""
        if self.target is None or self.ruff is None:
            return []
        if self.syntax_target != self.target:
            ctx.notes.append(
                "syntax judged against Python {}.{}, the nearest version ruff knows".format(
                    *self.syntax_target
                )
            )
        findings = [
            Finding(f.message, _RULE, f.path, f.line, f.column)
            for f in ctx.ruff(self.ruff)
            if f.rule == "invalid-syntax"
        ]
        for module in ctx.modules():
            seen: set[str] = set()
            for name, node in stdlib_uses(module):
                if name in seen:
                    continue
                seen.add(name)
                problem = version_problem(name, self.target)
                if problem:
                    findings.append(
                        Finding(
                            f"{problem} (target {self.options['version']})",
                            _RULE,
                            module.relpath,
                            module.line_of(node),
                        )
                    )
        return findings

    def _uses(self, ctx: CheckContext) -> list[Finding]:
        """Findings for the asked-for versions' features (or named features) not used."""
        modules = ctx.modules()
        found = [(m, item) for m in modules for item in features_used(m)]
        path = modules[0].relpath if modules else None
        findings: list[Finding] = []
        if self.uses:
            versions = " or ".join(version_text(v) for v in self.uses)
            of_version = [(m, f) for m, f in found if f.feature.version in self.uses]
            if of_version:
                ctx.notes.append(f"uses features of Python {versions}: {_places(of_version)}")
            else:
                findings.append(
                    ctx.finding(
                        f"uses no feature introduced in Python {versions}; any of these would "
                        f"count: {would_count(self.uses)}",
                        path=path,
                    )
                )
        for group in self.features:
            wanted = [BY_ID[i] for i in group]
            used = [(m, f) for m, f in found if f.feature in wanted]
            if used:
                feature = used[0][1].feature
                shown = [(m, f) for m, f in used if f.feature is feature]
                ctx.notes.append(
                    f"uses {feature.label}: {_places(shown)}".replace(f"{feature.title}: ", "")
                )
            else:
                labels = " or ".join(f.label for f in wanted)
                findings.append(ctx.finding(f"does not use {labels}", path=path))
        return findings

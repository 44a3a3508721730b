"""What each Python version from 3.5 to 3.13 introduced, and how to see it in code: the
table `python-version` reads for its `uses` and `features` options.

Each feature is recognised by the code's libcst tree (a node type, sometimes with a test
of the node: `match`, `:=`, `def f(a, /)`, `except*`, `def f[T]()`...) or by a name
resolved through the module's imports (`tomllib`, `typing.Self`, `itertools.batched`,
`zip(strict=...)`, a method only one type has, such as `str.removeprefix`). Standard-library
names typeshed records as added in a version count for that version too (its `VERSIONS`
file for modules, `sys.version_info` guards for members), so the table lists the
prominent names and typeshed fills in the long tail. One older feature is listed for the
prompts that name it among newer ones: exception chaining (3.0), part of what "enhanced
exception handling" asks for; no version's `uses` counts it. Linters answer the opposite question
(is anything too new for a target?); none says which new features code uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

import libcst as cst

from pytest_codeif.checks.python_version.stdlib_versions import Version, member_spans, module_span
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule

#: The versions the table covers, oldest first.
VERSIONS: Final[tuple[Version, ...]] = tuple((3, minor) for minor in range(5, 14))
_BUILTIN_GENERICS: Final = frozenset({"list", "dict", "tuple", "set", "frozenset", "type"})
#: Longest piece of code quoted as evidence.
_SNIPPET: Final = 60

NodeTest = Callable[["_Scan", cst.CSTNode], bool]


@dataclass(frozen=True)
class Feature:
    """One language or standard-library feature a version introduced, and how it shows.

    `nodes`: node types that are the feature (when `test` accepts the node, if given);
    `names`: qualified names (a module, `module.member`, or `builtins.name`) whose use is
    the feature; `keywords`: a callee's qualified name -> keyword arguments that are the
    feature; `attributes`: attribute names only the feature's type has, used on any object.
    """

    id: str
    version: Version
    title: str
    nodes: tuple[type[cst.CSTNode], ...] = ()
    test: NodeTest | None = None
    names: frozenset[str] = frozenset()
    keywords: Mapping[str, frozenset[str]] = field(default_factory=dict)
    attributes: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        return f"{self.title} ({self.version[0]}.{self.version[1]})"


@dataclass(frozen=True)
class Found:
    """A feature seen in a module: which, where, and (for a name) which name."""

    feature: Feature
    node: cst.CSTNode
    #: The name or keyword that is the feature (`tomllib`); None for a syntax feature,
    #: shown by its code instead.
    name: str | None = None

    def shown(self) -> str:
        """What was seen, for the evidence: the name, or the start of the code."""
        if self.name is not None:
            return f"`{self.name}`"
        node = self.node
        # The comments above a statement and a definition's decorators are not the feature.
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            node = node.with_changes(leading_lines=(), decorators=())
        elif isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            node = node.with_changes(leading_lines=())
        lines = code_of(node).strip().splitlines()
        first = lines[0] if lines else ""
        if len(first) > _SNIPPET:
            first = first[: _SNIPPET - 3] + "..."
        return f"{self.feature.title}: `{first}`"


class _Scan:
    """One module's lookups shared by the node tests (computed once, when first asked)."""

    def __init__(self, module: ParsedModule) -> None:
        self.module = module
        self._targets: set[int] | None = None
        self._annotated: set[int] | None = None
        self._dicts: set[tuple[int, str]] | None = None

    def builtin(self, node: cst.CSTNode, name: str) -> bool:
        """`node` is the builtin `name` (not an import or a definition of that name)."""
        if not (isinstance(node, cst.Name) and node.value == name):
            return False
        qualified = self.module.qualified(node)
        # A builtin newer than the running Python is not in its `builtins`: unresolved.
        return not qualified or qualified == {f"builtins.{name}"}

    def in_target(self, node: cst.CSTNode) -> bool:
        """`node` is inside an assignment or loop target (`a, *b = ...`)."""
        if self._targets is None:
            binders = self.module.nodes(cst.AssignTarget, cst.For, cst.CompFor)
            roots: list[cst.CSTNode] = [n.target for n in binders]
            self._targets = {id(n) for root in roots for n in self.module.walk(root)}
        return id(node) in self._targets

    def in_annotation(self, node: cst.CSTNode) -> bool:
        if self._annotated is None:
            self._annotated = {
                id(n)
                for annotation in self.module.nodes(cst.Annotation)
                for n in self.module.walk(annotation)
            }
        return id(node) in self._annotated

    def dict_valued(self, node: cst.BaseExpression) -> bool:
        """`node` is a dict: a display, a comprehension, `dict(...)`, or a name its scope
        binds to one of those or annotates as a dict."""
        if isinstance(node, (cst.Dict, cst.DictComp)):
            return True
        if isinstance(node, cst.Call):
            return self.builtin(node.func, "dict")
        if not isinstance(node, cst.Name):
            return False
        if self._dicts is None:
            self._dicts = set()
            for assign in self.module.nodes(cst.Assign):
                if self.dict_valued(assign.value):
                    for target in assign.targets:
                        if isinstance(target.target, cst.Name):
                            self._bind_dict(assign, target.target.value)
            for holder in self.module.nodes(cst.AnnAssign, cst.Param):
                name = holder.target if isinstance(holder, cst.AnnAssign) else holder.name
                annotation = holder.annotation
                if (
                    isinstance(name, cst.Name)
                    and annotation is not None
                    and _dict_annotation(annotation.annotation)
                ):
                    self._bind_dict(holder, name.value)
        scope = self.module.scope_of(node)
        return (id(scope), node.value) in self._dicts

    def _bind_dict(self, node: cst.CSTNode, name: str) -> None:
        # A parameter's scope is its function (`scope_of`), where its uses are.
        if self._dicts is None:
            self._dicts = set()
        self._dicts.add((id(self.module.scope_of(node)), name))


def _dict_annotation(node: cst.BaseExpression) -> bool:
    base = node.value if isinstance(node, cst.Subscript) else node
    if isinstance(base, cst.Attribute):
        base = base.attr
    return isinstance(base, cst.Name) and base.value in ("dict", "Dict")


def _dotted(node: cst.BaseExpression) -> bool:
    """A plain `name` or `a.b.c`: what decorators were limited to before 3.9."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _relaxed_decorator(scan: _Scan, node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Decorator):
        return False
    expression = node.decorator
    if isinstance(expression, cst.Call):
        expression = expression.func
    return not _dotted(expression)


def _unpacking_display(scan: _Scan, node: cst.CSTNode) -> bool:
    if isinstance(node, cst.StarredDictElement):
        return True
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        starred = any(isinstance(e, cst.StarredElement) for e in node.elements)
        return starred and not scan.in_target(node)
    if isinstance(node, cst.Call):
        stars = [a.star for a in node.args if a.star]
        return stars.count("*") > 1 or stars.count("**") > 1
    return False


def _async_generator(scan: _Scan, node: cst.CSTNode) -> bool:
    if isinstance(node, cst.CompFor):
        return node.asynchronous is not None
    scope = scan.module.scope_of(node)
    return isinstance(scope, cst.FunctionDef) and scope.asynchronous is not None


def _is_async(scan: _Scan, node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.FunctionDef, cst.For, cst.With)):
        return node.asynchronous is not None
    return isinstance(node, cst.Await)


def _underscored(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)) and "_" in node.value


def _module_getattr(scan: _Scan, node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.FunctionDef)
        and node.name.value in ("__getattr__", "__dir__")
        and scan.module.scope_of(node) is None
    )


def _fstring_equals(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.FormattedStringExpression) and isinstance(
        node.equal, cst.AssignEqual
    )


def _positional_only(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Parameters) and (
        bool(node.posonly_params) or isinstance(node.posonly_ind, cst.ParamSlash)
    )


def _dict_union(scan: _Scan, node: cst.CSTNode) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return scan.dict_valued(node.left) or scan.dict_valued(node.right)
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.BitOrAssign):
        return scan.dict_valued(node.target) or scan.dict_valued(node.value)
    return False


def _builtin_generic(scan: _Scan, node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Subscript):
        return False
    value = node.value
    return isinstance(value, cst.Name) and any(
        scan.builtin(value, name) for name in _BUILTIN_GENERICS if name == value.value
    )


def _union_type(scan: _Scan, node: cst.CSTNode) -> bool:
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.BitOr) and scan.in_annotation(node)
    if isinstance(node, cst.Call) and len(node.args) == 2:
        second = node.args[1].value
        return (
            (scan.builtin(node.func, "isinstance") or scan.builtin(node.func, "issubclass"))
            and isinstance(second, cst.BinaryOperation)
            and isinstance(second.operator, cst.BitOr)
        )
    return False


def _parenthesised_with(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.With) and isinstance(node.lpar, cst.LeftParen)


def _star_index(scan: _Scan, node: cst.CSTNode) -> bool:
    """`tuple[*Ts]`, or `*args: *Ts`."""
    if isinstance(node, cst.Annotation):
        return isinstance(node.annotation, cst.StarredElement)
    return isinstance(node, cst.Index) and node.star is not None


def _type_parameters(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.type_parameters is not None


def _type_parameter_default(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.TypeParam) and node.default is not None


def _fstring_nesting(scan: _Scan, node: cst.CSTNode) -> bool:
    """PEP 701: an f-string reusing its own quote, or a backslash, inside a field."""
    if not isinstance(node, cst.FormattedString):
        return False
    quote = node.quote
    for part in node.parts:
        if isinstance(part, cst.FormattedStringExpression):
            inside = code_of(part.expression)
            if "\\" in inside or (len(quote) == 1 and quote in inside):
                return True
    return False


def _chained(scan: _Scan, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Raise) and node.cause is not None


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


FEATURES: Final[tuple[Feature, ...]] = (
    # Older than the table's versions, for prompts that name it ("enhanced exception
    # handling"); no version of `uses` counts it.
    Feature(
        "exception-chaining",
        (3, 0),
        "exception chaining `raise ... from ...` (PEP 3134)",
        nodes=(cst.Raise,),
        test=_chained,
    ),
    # 3.5
    Feature(
        "async-await",
        (3, 5),
        "`async def` / `await` (PEP 492)",
        nodes=(cst.FunctionDef, cst.Await, cst.For, cst.With),
        test=_is_async,
    ),
    Feature(
        "matrix-multiply",
        (3, 5),
        "the `@` matrix multiplication operator (PEP 465)",
        nodes=(cst.MatrixMultiply, cst.MatrixMultiplyAssign),
    ),
    Feature(
        "unpacking-generalizations",
        (3, 5),
        "unpacking in displays and calls: `[*a, *b]`, `{**a, **b}` (PEP 448)",
        nodes=(cst.StarredDictElement, cst.List, cst.Tuple, cst.Set, cst.Call),
        test=_unpacking_display,
    ),
    Feature(
        "stdlib-3.5",
        (3, 5),
        "standard-library additions of 3.5",
        names=_names(
            "typing",
            "zipapp",
            "math.gcd",
            "math.isclose",
            "math.inf",
            "math.nan",
            "os.scandir",
            "subprocess.run",
            "builtins.RecursionError",
        ),
        keywords={"glob.glob": frozenset({"recursive"}), "glob.iglob": frozenset({"recursive"})},
    ),
    # 3.6
    Feature("f-string", (3, 6), "f-strings (PEP 498)", nodes=(cst.FormattedString,)),
    Feature(
        "variable-annotations",
        (3, 6),
        "variable annotations `x: int = 0` (PEP 526)",
        nodes=(cst.AnnAssign,),
    ),
    Feature(
        "underscore-numbers",
        (3, 6),
        "underscores in numeric literals `1_000` (PEP 515)",
        nodes=(cst.Integer, cst.Float, cst.Imaginary),
        test=_underscored,
    ),
    Feature(
        "async-generators",
        (3, 6),
        "async generators and comprehensions (PEP 525, PEP 530)",
        nodes=(cst.Yield, cst.CompFor),
        test=_async_generator,
    ),
    Feature(
        "stdlib-3.6",
        (3, 6),
        "standard-library additions of 3.6",
        names=_names(
            "secrets",
            "random.choices",
            "math.tau",
            "enum.auto",
            "enum.Flag",
            "enum.IntFlag",
            "hashlib.blake2b",
            "hashlib.blake2s",
            "hashlib.sha3_256",
            "hashlib.sha3_512",
            "os.fspath",
            "os.PathLike",
            "typing.ClassVar",
            "statistics.harmonic_mean",
            "builtins.ModuleNotFoundError",
        ),
    ),
    # 3.7
    Feature(
        "postponed-annotations",
        (3, 7),
        "`from __future__ import annotations` (PEP 563)",
        names=_names("__future__.annotations"),
    ),
    Feature("dataclasses", (3, 7), "`dataclasses` (PEP 557)", names=_names("dataclasses")),
    Feature(
        "breakpoint", (3, 7), "the `breakpoint()` builtin", names=_names("builtins.breakpoint")
    ),
    Feature(
        "module-getattr",
        (3, 7),
        "module `__getattr__` / `__dir__` (PEP 562)",
        nodes=(cst.FunctionDef,),
        test=_module_getattr,
    ),
    Feature(
        "stdlib-3.7",
        (3, 7),
        "standard-library additions of 3.7",
        names=_names(
            "contextvars",
            "importlib.resources",
            "asyncio.run",
            "asyncio.create_task",
            "asyncio.get_running_loop",
            "asyncio.current_task",
            "asyncio.all_tasks",
            "time.time_ns",
            "time.perf_counter_ns",
            "time.monotonic_ns",
            "contextlib.nullcontext",
            "contextlib.asynccontextmanager",
            "datetime.datetime.fromisoformat",
            "datetime.date.fromisoformat",
            "math.remainder",
            "queue.SimpleQueue",
        ),
    ),
    # 3.8
    Feature("walrus", (3, 8), "assignment expressions `:=` (PEP 572)", nodes=(cst.NamedExpr,)),
    Feature(
        "positional-only",
        (3, 8),
        "positional-only parameters `def f(a, /)` (PEP 570)",
        nodes=(cst.Parameters,),
        test=_positional_only,
    ),
    Feature(
        "fstring-equals",
        (3, 8),
        "self-documenting f-strings `f'{x=}'`",
        nodes=(cst.FormattedStringExpression,),
        test=_fstring_equals,
    ),
    Feature(
        "typing-3.8",
        (3, 8),
        "`typing.Literal`, `Final`, `Protocol`, `TypedDict` (PEP 586, 591, 544, 589)",
        names=_names(
            "typing.Literal",
            "typing.Final",
            "typing.final",
            "typing.Protocol",
            "typing.TypedDict",
            "typing.runtime_checkable",
            "typing.get_origin",
            "typing.get_args",
        ),
    ),
    Feature(
        "stdlib-3.8",
        (3, 8),
        "standard-library additions of 3.8",
        names=_names(
            "math.prod",
            "math.isqrt",
            "math.dist",
            "math.comb",
            "math.perm",
            "statistics.fmean",
            "statistics.geometric_mean",
            "statistics.NormalDist",
            "statistics.multimode",
            "statistics.quantiles",
            "functools.cached_property",
            "functools.singledispatchmethod",
            "importlib.metadata",
            "multiprocessing.shared_memory",
            "shlex.join",
        ),
        keywords={
            "logging.basicConfig": frozenset({"force"}),
            "shutil.copytree": frozenset({"dirs_exist_ok"}),
            "itertools.accumulate": frozenset({"initial"}),
        },
    ),
    # 3.9
    Feature(
        "dict-union",
        (3, 9),
        "dict union `d1 | d2`, `d |= other` (PEP 584)",
        nodes=(cst.BinaryOperation, cst.AugAssign),
        test=_dict_union,
    ),
    Feature(
        "str-removeprefix",
        (3, 9),
        "`str.removeprefix` / `removesuffix` (PEP 616)",
        attributes=_names("removeprefix", "removesuffix"),
    ),
    Feature(
        "builtin-generics",
        (3, 9),
        "builtin generic types `list[int]`, `dict[str, int]` (PEP 585)",
        nodes=(cst.Subscript,),
        test=_builtin_generic,
    ),
    Feature(
        "relaxed-decorators",
        (3, 9),
        "any expression as a decorator (PEP 614)",
        nodes=(cst.Decorator,),
        test=_relaxed_decorator,
    ),
    Feature(
        "stdlib-3.9",
        (3, 9),
        "standard-library additions of 3.9",
        names=_names(
            "zoneinfo",
            "graphlib",
            "math.lcm",
            "math.nextafter",
            "math.ulp",
            "random.randbytes",
            "asyncio.to_thread",
            "functools.cache",
            "typing.Annotated",
            "ast.unparse",
            "os.waitstatus_to_exitcode",
        ),
        attributes=_names("is_relative_to", "with_stem"),
    ),
    # 3.10
    Feature("match", (3, 10), "structural pattern matching `match` (PEP 634)", nodes=(cst.Match,)),
    Feature(
        "union-types",
        (3, 10),
        "union types `X | Y` (PEP 604)",
        nodes=(cst.BinaryOperation, cst.Call),
        test=_union_type,
    ),
    Feature(
        "parenthesized-context-managers",
        (3, 10),
        "parenthesised context managers `with (a as x, b as y):`",
        nodes=(cst.With,),
        test=_parenthesised_with,
    ),
    Feature(
        "zip-strict",
        (3, 10),
        "`zip(..., strict=True)` (PEP 618)",
        keywords={"builtins.zip": frozenset({"strict"})},
    ),
    Feature(
        "stdlib-3.10",
        (3, 10),
        "standard-library additions of 3.10",
        names=_names(
            "itertools.pairwise",
            "dataclasses.KW_ONLY",
            "typing.TypeAlias",
            "typing.ParamSpec",
            "typing.Concatenate",
            "typing.TypeGuard",
            "typing.is_typeddict",
            "builtins.aiter",
            "builtins.anext",
            "builtins.EncodingWarning",
            "statistics.correlation",
            "statistics.covariance",
            "statistics.linear_regression",
            "contextlib.aclosing",
            "inspect.get_annotations",
            "sys.orig_argv",
            "sys.stdlib_module_names",
        ),
        keywords={
            "dataclasses.dataclass": frozenset({"slots", "kw_only", "match_args"}),
            "dataclasses.field": frozenset({"kw_only"}),
            "bisect.bisect": frozenset({"key"}),
            "bisect.bisect_left": frozenset({"key"}),
            "bisect.bisect_right": frozenset({"key"}),
            "bisect.insort": frozenset({"key"}),
            "bisect.insort_left": frozenset({"key"}),
            "bisect.insort_right": frozenset({"key"}),
        },
        attributes=_names("bit_count"),
    ),
    # 3.11
    Feature(
        "exception-groups",
        (3, 11),
        "exception groups and notes: `except*`, `ExceptionGroup`, `add_note` (PEP 654, 678)",
        nodes=(cst.TryStar,),
        names=_names("builtins.ExceptionGroup", "builtins.BaseExceptionGroup"),
        attributes=_names("add_note", "__notes__"),
    ),
    Feature("tomllib", (3, 11), "`tomllib` (PEP 680)", names=_names("tomllib")),
    Feature("typing-self", (3, 11), "`typing.Self` (PEP 673)", names=_names("typing.Self")),
    Feature(
        "variadic-generics",
        (3, 11),
        "variadic generics `*Ts`, `TypeVarTuple` (PEP 646)",
        nodes=(cst.Index, cst.Annotation),
        test=_star_index,
        names=_names("typing.TypeVarTuple", "typing.Unpack"),
    ),
    Feature(
        "task-groups",
        (3, 11),
        "`asyncio.TaskGroup` / `asyncio.timeout`",
        names=_names("asyncio.TaskGroup", "asyncio.timeout", "asyncio.Runner", "asyncio.Barrier"),
    ),
    Feature(
        "stdlib-3.11",
        (3, 11),
        "standard-library additions of 3.11",
        names=_names(
            "typing.LiteralString",
            "typing.Never",
            "typing.assert_never",
            "typing.assert_type",
            "typing.reveal_type",
            "typing.Required",
            "typing.NotRequired",
            "typing.dataclass_transform",
            "enum.StrEnum",
            "enum.verify",
            "enum.member",
            "enum.nonmember",
            "contextlib.chdir",
            "datetime.UTC",
            "operator.call",
            "math.exp2",
            "math.cbrt",
            "hashlib.file_digest",
            "logging.getLevelNamesMapping",
        ),
    ),
    # 3.12
    Feature(
        "type-parameters",
        (3, 12),
        "type parameter syntax `def f[T]()`, `class C[T]:` (PEP 695)",
        nodes=(cst.FunctionDef, cst.ClassDef),
        test=_type_parameters,
    ),
    Feature(
        "type-statement", (3, 12), "the `type X = ...` statement (PEP 695)", nodes=(cst.TypeAlias,)
    ),
    Feature(
        "fstring-nesting",
        (3, 12),
        "f-strings reusing their quotes or backslashes inside fields (PEP 701)",
        nodes=(cst.FormattedString,),
        test=_fstring_nesting,
    ),
    Feature("override", (3, 12), "`typing.override` (PEP 698)", names=_names("typing.override")),
    Feature("itertools-batched", (3, 12), "`itertools.batched`", names=_names("itertools.batched")),
    Feature(
        "stdlib-3.12",
        (3, 12),
        "standard-library additions of 3.12",
        names=_names(
            "typing.TypeAliasType",
            "math.sumprod",
            "random.binomialvariate",
            "calendar.Month",
            "calendar.Day",
            "sys.monitoring",
            "os.path.splitroot",
            "collections.abc.Buffer",
            "types.get_original_bases",
        ),
        keywords={
            "tempfile.NamedTemporaryFile": frozenset({"delete_on_close"}),
            "sqlite3.connect": frozenset({"autocommit"}),
            "shutil.rmtree": frozenset({"onexc"}),
        },
    ),
    # 3.13
    Feature(
        "type-parameter-defaults",
        (3, 13),
        "type parameter defaults `def f[T = int]()` (PEP 696)",
        nodes=(cst.TypeParam,),
        test=_type_parameter_default,
    ),
    Feature(
        "deprecated",
        (3, 13),
        "`warnings.deprecated` (PEP 702)",
        names=_names("warnings.deprecated"),
    ),
    Feature("copy-replace", (3, 13), "`copy.replace`", names=_names("copy.replace")),
    Feature(
        "stdlib-3.13",
        (3, 13),
        "standard-library additions of 3.13",
        names=_names(
            "typing.TypeIs",
            "typing.ReadOnly",
            "typing.NoDefault",
            "typing.get_protocol_members",
            "typing.is_protocol",
            "math.fma",
            "os.process_cpu_count",
            "base64.z85encode",
            "base64.z85decode",
            "dbm.sqlite3",
            "re.PatternError",
            "glob.translate",
            "pathlib.Path.from_uri",
            "builtins.PythonFinalizationError",
        ),
        keywords={"itertools.batched": frozenset({"strict"})},
        attributes=_names("full_match"),
    ),
)
BY_ID: Final = {feature.id: feature for feature in FEATURES}
#: Per version, the feature standard-library names typeshed records for it count under.
_STDLIB: Final = {f.version: f for f in FEATURES if f.id.startswith("stdlib-")}
_BY_NODE: Final[dict[type[cst.CSTNode], list[Feature]]] = {}
for _feature in FEATURES:
    for _kind in _feature.nodes:
        _BY_NODE.setdefault(_kind, []).append(_feature)
_KEYWORDS: Final[dict[str, list[tuple[Feature, frozenset[str]]]]] = {}
for _feature in FEATURES:
    for _callee, _words in _feature.keywords.items():
        _KEYWORDS.setdefault(_callee, []).append((_feature, _words))
_ATTRIBUTES: Final = {name: f for f in FEATURES for name in f.attributes}
_BUILTIN_NAMES: Final = {
    name.removeprefix("builtins."): f
    for f in FEATURES
    for name in f.names
    if name.startswith("builtins.")
}


def version_text(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _named(name: str) -> Feature | None:
    """The table's feature for a qualified stdlib name (or a parent of it), else the
    version typeshed records the name (or its module) as added in."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        for feature in FEATURES:
            if prefix in feature.names:
                return feature
    return _typeshed_addition(name)


def _typeshed_addition(name: str) -> Feature | None:
    if any(part.startswith("_") for part in name.split(".")):
        return None
    head, _, member = name.rpartition(".")
    if head and module_span(head) is not None:
        span = member_spans(head).get(member)
        if span is not None and span[0] in _STDLIB:
            return _STDLIB[span[0]]
    listed = module_span(name)
    if listed is not None and listed[0] == name and listed[1][0] in _STDLIB:
        return _STDLIB[listed[1][0]]
    return None


def dotted(node: cst.BaseExpression) -> str:
    """`a.b.c` for a Name/Attribute chain ('' for anything else)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def stdlib_uses(module: ParsedModule) -> Iterator[tuple[str, cst.CSTNode]]:
    """(dotted name, node) of each imported module, each name imported from a module,
    and each `module.member` used (resolved through the imports)."""
    for node in module.nodes(cst.Import):
        for alias in node.names:
            yield dotted(alias.name), node
    for imported in module.nodes(cst.ImportFrom):
        if imported.relative or imported.module is None:
            continue
        base = dotted(imported.module)
        yield base, imported
        if not isinstance(imported.names, cst.ImportStar):
            for alias in imported.names:
                yield f"{base}.{dotted(alias.name)}", imported
    for attribute in module.nodes(cst.Attribute):
        for name in module.qualified(attribute):
            if not name.startswith("builtins."):
                yield name, attribute


def features_used(module: ParsedModule) -> list[Found]:
    """Every feature of the table seen in `module`, each with the node showing it."""
    scan = _Scan(module)
    found: list[Found] = []
    for kind, features in _BY_NODE.items():
        for node in module.nodes(kind):
            found += [Found(f, node) for f in features if f.test is None or f.test(scan, node)]
    for name, node in stdlib_uses(module):
        feature = _named(name)
        if feature is not None:
            found.append(Found(feature, node, name))
    found += _builtins_and_attributes(scan)
    found += _keywords(module)
    return found


def _builtins_and_attributes(scan: _Scan) -> Iterator[Found]:
    """New builtins (`ExceptionGroup`) and attributes only a new type has (`.add_note`)."""
    for name in scan.module.nodes(cst.Name):
        feature = _BUILTIN_NAMES.get(name.value)
        if feature is not None and scan.builtin(name, name.value):
            yield Found(feature, name, name.value)
    for attribute in scan.module.nodes(cst.Attribute):
        feature = _ATTRIBUTES.get(attribute.attr.value)
        if feature is not None:
            yield Found(feature, attribute, f".{attribute.attr.value}")


def _keywords(module: ParsedModule) -> Iterator[Found]:
    """Keyword arguments a version added to a function: `zip(strict=True)`."""
    for call in module.nodes(cst.Call):
        for callee in module.qualified(call.func):
            for feature, words in _KEYWORDS.get(callee, ()):
                for arg in call.args:
                    if arg.keyword is not None and arg.keyword.value in words:
                        shown = callee.removeprefix("builtins.")
                        yield Found(feature, call, f"{shown}({arg.keyword.value}=...)")


def _examples(version: Version) -> str:
    """What would count for `version`, for a finding that says none was seen."""
    listed = [f.title for f in FEATURES if f.version == version and not f.id.startswith("stdlib-")]
    stdlib = _STDLIB.get(version)
    if stdlib is not None:
        names = sorted(n.removeprefix("builtins.") for n in stdlib.names)[:6]
        listed.append("standard-library additions such as " + ", ".join(f"`{n}`" for n in names))
    return "; ".join(listed)


def would_count(versions: list[Version]) -> str:
    """The features that would satisfy 'uses a feature of one of `versions`'."""
    return " | ".join(f"{version_text(v)}: {_examples(v)}" for v in versions)


def describe(ids: list[str]) -> list[str]:
    return [BY_ID[i].label for i in ids]

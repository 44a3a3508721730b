"""The `public-api` check: every public function and method is annotated (and, on
request, documented); private code is left alone."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.web_routes import Project
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.names import absolute_base

_ANNOTATIONS: Final = ("full", "params", "return", "none")
_STATIC_DECORATORS: Final = frozenset({"builtins.staticmethod"})


def _private(name: str) -> bool:
    """A leading underscore that is not a dunder's (`_x`, `__x`; not `__init__`)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def module_path(module: ParsedModule) -> list[str]:
    """The module's dotted name as its parts (from its path when it has no name)."""
    if module.place is not None:
        return module.place.name.split(".")
    parts = module.relpath.removesuffix(".pyi").removesuffix(".py").split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


@dataclass(frozen=True)
class Exports:
    """What a module's `__all__` says: the names it lists, or that it has none, or that
    it is computed (then the check cannot read it)."""

    names: frozenset[str] | None
    computed: bool = False


def _literal_names(expr: cst.BaseExpression) -> list[str] | None:
    """The strings of a list/tuple literal (or a `+` of them); None if anything else."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left, right = _literal_names(expr.left), _literal_names(expr.right)
        return None if left is None or right is None else left + right
    if not isinstance(expr, (cst.List, cst.Tuple)):
        return None
    found: list[str] = []
    for element in expr.elements:
        value = element.value
        if not isinstance(value, cst.SimpleString) or not isinstance(value.evaluated_value, str):
            return None
        found.append(value.evaluated_value)
    return found


def _top_statements(body: Sequence[cst.CSTNode]) -> Iterator[cst.BaseSmallStatement]:
    """The small statements at a module's top level (also inside top-level `if`/`try`)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, cst.If):
            branch: cst.If | cst.Else | None = statement
            while branch is not None:  # an `elif` chain, without recursion
                yield from _top_statements(branch.body.body)
                branch = branch.orelse if isinstance(branch, cst.If) else None
        elif isinstance(statement, cst.Try):
            yield from _top_statements(statement.body.body)
            for handler in statement.handlers:
                yield from _top_statements(handler.body.body)
        elif isinstance(statement, cst.BaseSmallStatement):
            yield statement


def exports(module: ParsedModule) -> Exports:
    """The names `module`'s `__all__` lists (assigned, `+=`, `.extend`, `.append`)."""
    names: list[str] | None = None
    computed = False
    for small in _top_statements(module.tree.body):
        value: cst.BaseExpression | None = None
        extend = False
        if (
            isinstance(small, cst.Assign)
            and any(
                isinstance(t.target, cst.Name) and t.target.value == "__all__"
                for t in small.targets
            )
        ) or (
            isinstance(small, cst.AnnAssign)
            and isinstance(small.target, cst.Name)
            and small.target.value == "__all__"
        ):
            value = small.value
        elif (
            isinstance(small, cst.AugAssign)
            and isinstance(small.target, cst.Name)
            and small.target.value == "__all__"
        ):
            value, extend = small.value, True
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "__all__"
                and func.attr.value in ("extend", "append")
                and small.value.args
            ):
                value, extend = small.value.args[0].value, True
                if func.attr.value == "append":
                    value = cst.List([cst.Element(value)])
        if value is None:
            continue
        listed = _literal_names(value)
        if listed is None:
            computed = True
            continue
        names = (names or []) + listed if extend else listed
    if computed:
        return Exports(None, computed=True)
    return Exports(frozenset(names) if names is not None else None)


@dataclass(frozen=True)
class PublicFunction:
    """A public function or method: its module, node, dotted name, and whether it is a
    method whose first parameter is `self`/`cls`."""

    module: ParsedModule
    node: cst.FunctionDef
    name: str
    bound_first: bool


class PublicApi:
    """Which definitions of a project are public."""

    def __init__(self, project: Project, notes: list[str]) -> None:
        self.project = project
        self.notes = notes
        self._exports: dict[int, Exports] = {}
        self._reexported: set[int] | None = None

    def exports_of(self, module: ParsedModule) -> Exports:
        found = self._exports.get(id(module))
        if found is None:
            found = exports(module)
            if found.computed and any(module is m for m in self.project.scoped):
                self.notes.append(
                    f"{module.relpath}: `__all__` is computed, not a list of strings: its "
                    "public names are judged by their leading underscore instead"
                )
            self._exports[id(module)] = found
        return found

    def public_name(self, module: ParsedModule, name: str) -> bool:
        listed = self.exports_of(module).names
        return name in listed if listed is not None else not _private(name)

    def reexported(self) -> set[int]:
        """Definitions made public by a public module that re-exports them: listed in its
        `__all__` after `from .impl import name`, or brought in by `from .impl import *`."""
        if self._reexported is not None:
            return self._reexported
        found: set[int] = set()
        for module in self.project.modules_containing("__all__", "import *"):
            if any(_private(part) for part in module_path(module)):
                continue
            listed = self.exports_of(module).names
            for name in listed or ():
                binding = self.project.bound(module, name)
                if binding is not None and binding.module is not module:
                    found.add(id(binding.node))
            for statement in module.nodes(cst.ImportFrom):
                if not isinstance(statement.names, cst.ImportStar):
                    continue
                source = self._star_source(module, statement)
                if source is None:
                    continue
                for name, node in self._top_definitions(source).items():
                    if self.public_name(source, name) and (listed is None or name in listed):
                        found.add(id(node))
        self._reexported = found
        return found

    def _star_source(self, module: ParsedModule, statement: cst.ImportFrom) -> ParsedModule | None:
        base = absolute_base(statement, module.place)
        return self.project.module(base) if base is not None else None

    @staticmethod
    def _top_definitions(module: ParsedModule) -> dict[str, cst.FunctionDef | cst.ClassDef]:
        return {qual: node for qual, node in module.definitions if "." not in qual}

    def functions(self, module: ParsedModule, *, methods: bool) -> Iterator[PublicFunction]:
        """The public functions (and, with `methods`, the public methods of public
        classes) of `module`."""
        path = module_path(module)
        path_public = not any(_private(part) for part in path)
        reexported = self.reexported()
        classes: dict[str, bool] = {}  # qualname -> public
        for qual, node in module.definitions:
            parts = qual.split(".")
            if "<locals>" in parts:
                continue
            if len(parts) == 1:
                public = id(node) in reexported or (
                    path_public and self.public_name(module, parts[0])
                )
            else:
                owner = ".".join(parts[:-1])
                public = classes.get(owner, False) and not _private(parts[-1])
            if isinstance(node, cst.ClassDef):
                classes[qual] = public
                continue
            if not public or (len(parts) > 1 and not methods):
                continue
            is_method = len(parts) > 1
            static = is_method and any(
                module.qualified(d.decorator) & _STATIC_DECORATORS for d in node.decorators
            )
            dotted = ".".join([*path, qual]) if path and path != [""] else qual
            yield PublicFunction(module, node, dotted, is_method and not static)

    def classes(self, module: ParsedModule) -> Iterator[tuple[str, cst.ClassDef]]:
        """The public classes of `module`, with their dotted names."""
        path = module_path(module)
        path_public = not any(_private(part) for part in path)
        reexported = self.reexported()
        public: dict[str, bool] = {}
        for qual, node in module.definitions:
            parts = qual.split(".")
            if "<locals>" in parts or not isinstance(node, cst.ClassDef):
                continue
            if len(parts) == 1:
                is_public = id(node) in reexported or (
                    path_public and self.public_name(module, parts[0])
                )
            else:
                is_public = public.get(".".join(parts[:-1]), False) and not _private(parts[-1])
            public[qual] = is_public
            if is_public:
                yield ".".join([*path, qual]), node


def _missing(function: PublicFunction, wanted: str) -> list[str]:
    """The annotations `function` lacks, for `annotations: wanted`."""
    node = function.node
    params = node.params
    ordered = [*params.posonly_params, *params.params]
    if function.bound_first and ordered:
        ordered = ordered[1:]
    missing: list[str] = []
    if wanted in ("full", "params"):
        for param in ordered:
            if param.annotation is None:
                missing.append(f"parameter `{param.name.value}`")
        if isinstance(params.star_arg, cst.Param) and params.star_arg.annotation is None:
            missing.append(f"parameter `*{params.star_arg.name.value}`")
        for param in params.kwonly_params:
            if param.annotation is None:
                missing.append(f"parameter `{param.name.value}`")
        if params.star_kwarg is not None and params.star_kwarg.annotation is None:
            missing.append(f"parameter `**{params.star_kwarg.name.value}`")
    if (
        wanted in ("full", "return")
        and node.returns is None
        and not (function.bound_first and node.name.value == "__init__")
    ):
        missing.append("the return type")
    return missing


class PublicApiCheck(Check):
    """Every public function and method is fully annotated (and, with `docstrings:
    true`, documented); private ones are not judged.

    Why: "every public function in `services/` is typed" is a rule about the interface
    other layers call, not about every helper: ruff's ANN rules and mypy's
    `--disallow-untyped-defs` judge every function alike. Public means: the module's
    dotted path has no component with a leading underscore (`app/_internal/x.py` and
    `app/services/_helpers.py` are private), and the name has none either, nor has any
    enclosing class (`_Cache.get` is private); where a module defines `__all__`, exactly
    the names it lists are public there (a name listed is public even with an
    underscore, one not listed is private without one). A name a public module
    re-exports in its `__all__` (`from ._impl import make_user` with `__all__ =
    ["make_user"]`), or through `from ._impl import *`, is public where it is defined.
    Functions nested in functions are never public. Methods are the public ones of
    public classes; dunder methods (`__init__`, `__call__`, `__eq__`) are public, and
    `__init__` needs no return annotation. `self`/`cls` (the first parameter of a method
    that is not a `@staticmethod`) need none. Each finding is at the function's `def`
    line and names what is missing: `parameter `name``, `parameter `**kwargs``, `the
    return type`.

    What it cannot read: an `__all__` computed at run time (`__all__ = base.__all__ +
    [...]`; such a module is judged by underscores, and the report says so),
    functions made by assignment (`handler = make_handler()`, lambdas), and methods
    added to a class from outside it.

    Options: `annotations` (`full`, the default: every parameter and the return;
    `params`; `return`; `none`: with `docstrings`), `include-methods` (default true),
    `docstrings` (default false: public functions, methods and classes, dunder methods
    aside, have a docstring).

    Example:

        - check: public-api
          modules: [app.services]
          annotations: full
          docstrings: true
    """

    name = "public-api"
    category = "Interface Specification"
    advice = (
        "Annotate every parameter and the return type of each public function and method the "
        "findings name (and document them where docstrings are required), or make a helper "
        "private with a leading underscore."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "annotations": {"enum": list(_ANNOTATIONS)},
            "include-methods": {"type": "boolean"},
            "docstrings": {"type": "boolean"},
        },
        # `annotations: none` judges docstrings only: it needs `docstrings: true`.
        "if": {"required": ["annotations"], "properties": {"annotations": {"const": "none"}}},
        "then": {"required": ["docstrings"], "properties": {"docstrings": {"const": True}}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/__init__.py": "",
                "app/services/__init__.py": """
                    from ._impl import make_user

                    __all__ = ["make_user"]
                    """,
                "app/services/_impl.py": """
                    def make_user(name: str, *tags: str, **extra: object) -> dict[str, object]:
                        return {"name": name, **extra}

                    def _slug(name):
                        return name.lower()
                    """,
                "app/services/orders.py": """
                    __all__ = ["Orders"]

                    def helper(x):
                        return x

                    class Orders:
                        def __init__(self, size: int):
                            self.size = size

                        @staticmethod
                        def parse(text: str) -> int:
                            return int(text)

                        def _cache(self, key):
                            return key

                        def total(self) -> int:
                            def inner(y):
                                return y

                            return inner(self.size)

                    class _Row:
                        def get(self, k):
                            return k
                    """,
            },
        ),
        Sample(
            '''
            def area(width: float, height: float) -> float:
                """The area of a width x height rectangle."""
                return width * height

            class Shape:
                """A shape."""

                def __repr__(self) -> str:
                    return "Shape()"
            ''',
            {"docstrings": True},
        ),
    )
    violated_by = (
        Sample(
            {
                "app/__init__.py": "",
                "app/services/__init__.py": "",
                "app/services/users.py": """
                    class UserService:
                        def get(self, user_id, *, active=True):
                            return user_id

                    def create_user(name: str, **fields):
                        return name
                    """,
            },
            message="public function `app.services.users.UserService.get` lacks annotations: "
            "parameter `user_id`, parameter `active`, the return type",
        ),
        Sample(
            {
                "pkg/__init__.py": """
                    from ._impl import *
                    """,
                "pkg/_impl.py": """
                    __all__ = ["run"]

                    def run(job):
                        return job
                    """,
            },
            {"annotations": "params"},
            message="public function `pkg._impl.run` lacks annotations: parameter `job`",
        ),
        Sample(
            """
            __all__ = ["_load"]

            def _load(path: str) -> str:
                return path
            """,
            {"annotations": "none", "docstrings": True},
            message="public function `solution._load` has no docstring",
        ),
        Sample(
            """
            def fetch(url: str):
                return url
            """,
            {"annotations": "return"},
            message="public function `solution.fetch` lacks annotations: the return type",
        ),
    )

    def advise(self) -> str:
        wanted = {
            "full": "every parameter and the return type",
            "params": "every parameter",
            "return": "the return type",
        }.get(self.options.get("annotations", "full"))
        parts = [f"annotate {wanted}"] if wanted else []
        if self.options.get("docstrings"):
            parts.append("write a docstring")
        return (
            f"For each public function and method the findings name, {' and '.join(parts)}; "
            "or make a helper private with a leading underscore."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        api = PublicApi(Project(ctx), ctx.notes)
        wanted = str(self.options.get("annotations", "full"))
        methods = bool(self.options.get("include-methods", True))
        docstrings = bool(self.options.get("docstrings", False))
        findings: list[Finding] = []
        for module in api.project.scoped:
            for function in api.functions(module, methods=methods):
                missing = _missing(function, wanted) if wanted != "none" else []
                if missing:
                    findings.append(
                        ctx.report(
                            module,
                            function.node.name,
                            f"public function `{function.name}` lacks annotations: "
                            + ", ".join(missing),
                        )
                    )
                if (
                    docstrings
                    and not _dunder(function.node.name.value)
                    and function.node.get_docstring() is None
                ):
                    findings.append(
                        ctx.report(
                            module,
                            function.node.name,
                            f"public function `{function.name}` has no docstring",
                        )
                    )
            if docstrings:
                findings.extend(
                    ctx.report(module, node.name, f"public class `{name}` has no docstring")
                    for name, node in api.classes(module)
                    if node.get_docstring() is None
                )
        return sorted(findings, key=lambda f: (f.path or "", f.line or 0))

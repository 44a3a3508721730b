"""What a FastAPI handler's annotations and parameter defaults mean, the way FastAPI
reads them (`fastapi.dependencies.utils.analyze_param`): a dependency (`Depends(...)`,
also through an `Annotated` alias such as `SessionDep`), a path, query, header or
cookie parameter, a form field or file, a request body, or a special object (`Request`,
`BackgroundTasks`...); and whether a type is a pydantic model.

Shared by `fastapi-bodies` and `session-injection`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import libcst as cst

from pytest_codeif.checks.shared.web_routes import MAX_DEPTH, Project, shown
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.identifiers import read_expression

#: Bases that make a class a pydantic model.
MODEL_BASES: Final = (
    "pydantic.BaseModel",
    "pydantic.main.BaseModel",
    "pydantic.RootModel",
    "pydantic.root_model.RootModel",
    "pydantic.v1.BaseModel",
    "pydantic.generics.GenericModel",
    "sqlmodel.SQLModel",
    "sqlmodel.main.SQLModel",
    "beanie.Document",
    "odmantic.Model",
)
_PYDANTIC_DATACLASS: Final = frozenset({"pydantic.dataclasses.dataclass"})
_STD_DATACLASS: Final = frozenset({"dataclasses.dataclass"})
_TYPED_DICT: Final = ("typing.TypedDict", "typing_extensions.TypedDict")
_ENUM: Final = ("enum.*",)
#: Classes FastAPI hands over as they are, not read from the request's data.
SPECIAL: Final = frozenset(
    {
        "fastapi.Request",
        "fastapi.requests.Request",
        "starlette.requests.Request",
        "fastapi.requests.HTTPConnection",
        "starlette.requests.HTTPConnection",
        "fastapi.WebSocket",
        "fastapi.websockets.WebSocket",
        "starlette.websockets.WebSocket",
        "fastapi.BackgroundTasks",
        "fastapi.background.BackgroundTasks",
        "starlette.background.BackgroundTasks",
        "fastapi.security.SecurityScopes",
        "fastapi.Response",
        "fastapi.responses.Response",
        "starlette.responses.Response",
    }
)
REQUESTS: Final = frozenset(
    {"fastapi.Request", "fastapi.requests.Request", "starlette.requests.Request"}
)
_RESPONSES: Final = ("fastapi.Response", "fastapi.responses.*", "starlette.responses.*")
#: Response classes that send JSON: a route whose `response_class` is one still sends data
#: a model should describe.
JSON_RESPONSES: Final = frozenset(
    {
        "fastapi.responses.JSONResponse",
        "fastapi.responses.ORJSONResponse",
        "fastapi.responses.UJSONResponse",
        "starlette.responses.JSONResponse",
    }
)
_UPLOADS: Final = frozenset(
    {
        "fastapi.UploadFile",
        "fastapi.datastructures.UploadFile",
        "starlette.datastructures.UploadFile",
    }
)
_ANY: Final = frozenset({"typing.Any", "typing_extensions.Any", "builtins.object"})
_ANNOTATED: Final = frozenset({"typing.Annotated", "typing_extensions.Annotated"})
_OPTIONAL: Final = frozenset({"typing.Optional", "typing_extensions.Optional"})
_UNION: Final = frozenset({"typing.Union", "typing_extensions.Union"})
_LITERAL: Final = frozenset({"typing.Literal", "typing_extensions.Literal"})
_CONTAINERS: Final = frozenset(
    {
        *(f"builtins.{n}" for n in ("list", "set", "frozenset", "tuple", "dict")),
        *(f"typing.{n}" for n in ("List", "Set", "FrozenSet", "Tuple", "Dict", "Sequence")),
        *(f"typing.{n}" for n in ("Mapping", "MutableMapping", "MutableSequence", "Iterable")),
        *(f"collections.abc.{n}" for n in ("Sequence", "Mapping", "MutableMapping", "Iterable")),
        "collections.abc.MutableSequence",
        "collections.OrderedDict",
        "collections.defaultdict",
    }
)
_MAPPINGS: Final = frozenset(
    {
        "builtins.dict",
        "typing.Dict",
        "typing.Mapping",
        "typing.MutableMapping",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
        "collections.OrderedDict",
        "collections.defaultdict",
    }
)
_SCALAR_MODULES: Final = (
    "builtins.",
    "datetime.",
    "uuid.",
    "decimal.",
    "pathlib.",
    "ipaddress.",
    "pydantic.",
    "annotated_types.",
)
_DEPENDS: Final = frozenset(
    {"fastapi.Depends", "fastapi.Security", "fastapi.params.Depends", "fastapi.params.Security"}
)
_PARAMS: Final = frozenset(
    {
        *(f"fastapi.{kind}" for kind in ("Query", "Path", "Header", "Cookie")),
        *(f"fastapi.params.{kind}" for kind in ("Query", "Path", "Header", "Cookie")),
    }
)
_BODY: Final = frozenset({"fastapi.Body", "fastapi.params.Body"})
_FORM: Final = frozenset(
    {"fastapi.Form", "fastapi.File", "fastapi.params.Form", "fastapi.params.File"}
)


@dataclass(frozen=True)
class TypeInfo:
    """What an annotation is, for FastAPI.

    `kind`: "model" (a pydantic model, or a container of models), "scalar", "untyped"
    (no annotation, `Any`, `object`), "none", "response" (a Response class), "special"
    (`Request`, `BackgroundTasks`...), "file" (`UploadFile`), "other" (a type that is
    not a model: `dict`, `list[int]`, a TypedDict, a dataclass...) or "unknown" (a
    class from a package the check cannot read). `marker`: what `Annotated[...]`
    metadata makes of it: "dependency", "param", "body", "form" or None.
    """

    kind: str
    text: str
    detail: str = ""
    marker: str | None = None

    def describe(self) -> str:
        return f"`{self.text}`" + (f" ({self.detail})" if self.detail else "")


UNTYPED: Final = TypeInfo("untyped", "")


class FastapiTypes:
    """Classifies annotations and parameter defaults of one project's handlers."""

    def __init__(self, project: Project) -> None:
        self.project = project

    def marker(self, module: ParsedModule, expr: cst.BaseExpression | None) -> str | None:
        """What a default or `Annotated` metadata value declares: `Depends(...)` a
        dependency, `Query(...)`/`Path(...)`/`Header(...)`/`Cookie(...)` a parameter,
        `Body(...)` a body, `Form(...)`/`File(...)` a form field."""
        if not isinstance(expr, cst.Call):
            return None
        names = module.qualified(expr.func)
        for kinds, marker in (
            (_DEPENDS, "dependency"),
            (_PARAMS, "param"),
            (_BODY, "body"),
            (_FORM, "form"),
        ):
            if names & kinds:
                return marker
        return None

    def classify(self, module: ParsedModule, expr: cst.BaseExpression, depth: int = 0) -> TypeInfo:
        """What the annotation `expr` of `module` is (see `TypeInfo`)."""
        text = shown(expr, 60)
        if depth > MAX_DEPTH:
            return TypeInfo("unknown", text)
        if isinstance(expr, cst.SimpleString):
            value = expr.evaluated_value
            try:
                inner = read_expression(value) if isinstance(value, str) else None
            except cst.ParserSyntaxError:
                inner = None
            if inner is None:
                return TypeInfo("unknown", text)
            return replace(self._names_in(module, inner, depth + 1), text=text)
        return self._names_in(module, expr, depth)

    def _names_in(self, module: ParsedModule, expr: cst.BaseExpression, depth: int) -> TypeInfo:
        text = shown(expr, 60)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return TypeInfo("none", text)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._union(module, [expr.left, expr.right], text, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(module, expr, text, depth)
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return TypeInfo("unknown", text)
        names = module.qualified(expr)
        found = self._known(names, text)
        if found is not None:
            return found
        binding = self.project.binding(module, expr)
        if binding is not None:
            binding = self.project.alias_target(binding)
            if isinstance(binding.node, cst.ClassDef):
                return self._class(binding.module, binding.node, text)
            if isinstance(binding.node, cst.BaseExpression):  # a type alias
                return replace(self.classify(binding.module, binding.node, depth + 1), text=text)
            return TypeInfo("unknown", text)
        if names and all(n.startswith("builtins.") for n in names):
            return TypeInfo("scalar", text)
        return TypeInfo("unknown", text)

    def _known(self, names: set[str], text: str) -> TypeInfo | None:
        if names & _ANY:
            return TypeInfo("untyped", text)
        if any(n in MODEL_BASES for n in names):
            return TypeInfo("model", text)
        if names & SPECIAL:
            return TypeInfo("special", text)
        if any(_matches(n, _RESPONSES) for n in names):
            return TypeInfo("response", text)
        if names & _UPLOADS:
            return TypeInfo("file", text)
        if names & _CONTAINERS:
            return TypeInfo("other", text)
        if any(n.startswith(_SCALAR_MODULES) for n in names):
            return TypeInfo("scalar", text)
        return None

    def _subscript(
        self, module: ParsedModule, expr: cst.Subscript, text: str, depth: int
    ) -> TypeInfo:
        base = module.qualified(expr.value)
        args = [e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index)]
        if base & _ANNOTATED and args:
            inner = self.classify(module, args[0], depth + 1)
            markers = [m for m in (self.marker(module, a) for a in args[1:]) if m is not None]
            return replace(inner, text=text, marker=markers[0] if markers else inner.marker)
        if base & _OPTIONAL and args:
            return self._union(module, [args[0], cst.Name("None")], text, depth)
        if base & _UNION:
            return self._union(module, args, text, depth)
        if base & _LITERAL:
            return TypeInfo("scalar", text)
        if base & _CONTAINERS:
            elements = [a for a in args if not isinstance(a, cst.Ellipsis)]
            if not elements:
                return TypeInfo("other", text)
            element = self.classify(module, elements[-1], depth + 1)
            if element.kind in ("model", "unknown", "file"):  # `list[UploadFile]`: files
                return replace(element, text=text, detail="", marker=None)
            if element.kind == "scalar" and not base & _MAPPINGS:
                return TypeInfo(
                    "other", text, "FastAPI reads a list as the body; a query list needs `Query()`"
                )
            return TypeInfo("other", text)
        return replace(self.classify(module, expr.value, depth + 1), text=text)

    def _union(
        self, module: ParsedModule, members: list[cst.BaseExpression], text: str, depth: int
    ) -> TypeInfo:
        kinds = [self.classify(module, m, depth + 1) for m in members]
        kinds = [k for k in kinds if k.kind != "none"]
        if not kinds:
            return TypeInfo("none", text)
        for bad in ("other", "untyped"):
            if any(k.kind == bad for k in kinds):
                return TypeInfo(bad, text)
        distinct = {k.kind for k in kinds}
        if len(distinct) == 1:
            return TypeInfo(distinct.pop(), text)
        if "unknown" in distinct:
            return TypeInfo("unknown", text)
        return TypeInfo("other", text, "a union of a model and other types")

    def _class(self, module: ParsedModule, node: cst.ClassDef, text: str) -> TypeInfo:
        project = self.project
        decorators = {
            n
            for d in node.decorators
            for n in module.qualified(
                d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            )
        }
        if decorators & _PYDANTIC_DATACLASS:
            return TypeInfo("model", text)
        is_model = project.inherits(module, node, MODEL_BASES)
        if is_model:
            return TypeInfo("model", text)
        if project.inherits(module, node, _RESPONSES):
            return TypeInfo("response", text)
        if project.inherits(module, node, _ENUM):
            return TypeInfo("scalar", text)
        if project.inherits(module, node, _TYPED_DICT):
            return TypeInfo("other", text, "a TypedDict")
        if decorators & _STD_DATACLASS:
            return TypeInfo("other", text, "a dataclass")
        if is_model is None:
            return TypeInfo("unknown", text)
        return TypeInfo("other", text, "a class with no pydantic base")


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith(".*") else name == p for p in patterns)

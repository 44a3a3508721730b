"""The `fastapi-bodies` check: FastAPI request and response bodies are pydantic models."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.fastapi_types import (
    JSON_RESPONSES,
    REQUESTS,
    UNTYPED,
    FastapiTypes,
    TypeInfo,
)
from pytest_codeif.checks.shared.web_routes import Project, RouteSite, argument, shown
from pytest_codeif.code.cst import ParsedModule

#: The route declarations whose handler FastAPI reads parameters for (`@app.route` and
#: `add_route` are Starlette's: their handler takes the request and nothing else).
JUDGED: Final = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "trace", "api_route"}
    | {"add_api_route"}
)
#: Methods whose requests carry a body.
_BODY_METHODS: Final = frozenset({"POST", "PUT", "PATCH"})
#: Statuses whose responses have no body.
_NO_BODY: Final = frozenset({"204", "205", "304"})
#: `request.json()`, `request.body()`: the body read without a model.
_BODY_READERS: Final = frozenset({"json", "body"})


def _param_text(param: cst.Param) -> str:
    """`name: T = default`, as written (without the comma after it)."""
    text = param.name.value
    if param.annotation is not None:
        text += f": {shown(param.annotation.annotation, 50)}"
    if param.default is not None:
        text += f" = {shown(param.default, 30)}"
    return text


def _returns_a_value(module: ParsedModule, handler: cst.FunctionDef) -> bool:
    """Whether `handler` has a `return <value>` of its own (not of a nested function)."""
    return any(
        node.value is not None and module.scope_of(node) is handler
        for node in module.nodes(cst.Return, within=handler.body)
    )


def _status(expr: cst.BaseExpression | None) -> str | None:
    """The status code a `status_code=` value spells: `204`, `status.HTTP_204_NO_CONTENT`."""
    if isinstance(expr, cst.Integer):
        return expr.value
    if isinstance(expr, (cst.Attribute, cst.Name)):
        name = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value
        if name.startswith("HTTP_"):
            return name.split("_")[1]
    return None


class FastapiBodiesCheck(Check):
    """FastAPI request and response bodies are pydantic models, not dicts or untyped.

    Why: a model validates what comes in, documents it in the OpenAPI schema and filters
    what goes out; `payload: dict`, `await request.json()` or a handler returning a
    dict with no `response_model` does none of that. The handlers judged are those of
    FastAPI routes as the `routes` check finds them (`@app.get/post/put/patch/delete...`,
    `@router.api_route`, `add_api_route`; the router followed through the project).

    Request side: each parameter is read the way FastAPI reads it. Not bodies:
    dependencies (`Depends(...)`, `Security(...)`, as a default or in `Annotated`, also
    through an alias such as `SessionDep = Annotated[Session, Depends(get_db)]` declared
    in another module), `Query`/`Path`/`Header`/`Cookie`/`Form`/`File` parameters,
    `Request`, `WebSocket`, `Response`, `BackgroundTasks`, `SecurityScopes`, `UploadFile`,
    names in the route's path or its router's `prefix`, and scalar types (`int`, `str`,
    `UUID`, `datetime`, enums, `Literal`, pydantic's `EmailStr`...). A parameter that is
    a body (`Body(...)`, or a type FastAPI reads as one: a model, `dict`, `list`, a
    dataclass...) must be a pydantic model (a `BaseModel`, `RootModel` or `SQLModel`
    subclass declared in the project or imported, a pydantic dataclass) or a container
    of models (`list[Item]`). Violations: `dict`, `dict[str, Any]`, `list[int]`, a
    TypedDict, a dataclass, a plain class, `x: float = Body()`; a parameter with no
    type or typed `Any` that has no default, is not in the path, on a POST, PUT or
    PATCH route (FastAPI reads it as a query string, so it was meant as a body that
    no model describes); and `await request.json()` or `request.body()` in the
    handler.

    Response side: `response_model=` if given, else the return annotation, must be a
    model or a container of models. Exempt: `status_code=204` (and 205, 304), a
    `response_class=` other than a JSON one, a return annotation that is a `Response`
    class or `None`, a handler with no `return <value>` (its response is `null`),
    websockets. Violations: `dict`, `Any`, `list[dict]`, no
    `response_model=` and no return annotation, `response_model=None`, and scalars
    (`-> bool`) unless `allow-scalar-responses: true`.

    What it cannot decide: a class from a package outside the project whose bases it
    cannot read (`fastapi_users.schemas.BaseUserCreate`) is given the benefit of the
    doubt; bodies taken from `**kwargs`, from a dependency that reads the request, or
    from a router made by a factory the check cannot follow are not seen; nor are
    handlers registered from data (a list of endpoints looped over).

    Options: `request` (default true: judge request bodies), `response` (default true:
    judge responses), `allow-scalar-responses` (default false).

    Example:

        - check: fastapi-bodies
          modules: [app.api]
    """

    name = "fastapi-bodies"
    category = "Interface Specification"
    advice = (
        "Declare a pydantic model (a `BaseModel` subclass) for each request body and type the "
        "parameter with it, and give each route a `response_model=` or a return annotation that "
        "is a model (or a list of models), instead of dicts, `Any` or no type."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "request": {"type": "boolean"},
            "response": {"type": "boolean"},
            "allow-scalar-responses": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "app/__init__.py": "",
                "app/schemas.py": """
                    from pydantic import BaseModel, EmailStr

                    class Base(BaseModel):
                        pass

                    class UserIn(Base):
                        email: EmailStr

                    class UserOut(Base):
                        id: int
                    """,
                "app/deps.py": """
                    from typing import Annotated

                    from fastapi import Depends
                    from sqlalchemy.orm import Session

                    def get_db():
                        yield None

                    SessionDep = Annotated[Session, Depends(get_db)]
                    """,
                "app/api.py": """
                    from typing import Any
                    from uuid import UUID

                    from fastapi import APIRouter, BackgroundTasks, Query, Request, status
                    from fastapi.responses import HTMLResponse

                    from app.deps import SessionDep
                    from app.schemas import UserIn, UserOut

                    router = APIRouter(prefix="/orgs/{org_id}")

                    @router.post("/users", response_model=UserOut)
                    def create_user(
                        org_id, user: UserIn, db: SessionDep, tasks: BackgroundTasks
                    ) -> Any:
                        return db.add(user)

                    @router.get("/users")
                    def list_users(
                        request: Request, q: str | None = Query(None), page=1
                    ) -> list[UserOut]:
                        return []

                    @router.delete("/users/{user_id}", status_code=status.HTTP_204_NO_CONTENT)
                    def delete_user(user_id: UUID, db: SessionDep):
                        db.delete(user_id)

                    @router.get("/page", response_class=HTMLResponse)
                    def page():
                        return "<p>hi</p>"
                    """,
            },
        ),
        Sample(
            """
            from flask import Flask

            app = Flask(__name__)

            @app.post("/items")
            def create(payload: dict):
                return payload
            """,
        ),
    )
    violated_by = (
        Sample(
            """
            from typing import Any

            from fastapi import FastAPI

            app = FastAPI()

            @app.post("/items")
            def create_item(item: dict[str, Any]) -> dict:
                return item
            """,
            message="request body `item: dict[str, Any]` of `create_item` is not a pydantic model",
        ),
        Sample(
            """
            from fastapi import FastAPI, Request

            app = FastAPI()

            @app.put("/items/{item_id}")
            async def update_item(item_id: int, request: Request):
                data = await request.json()
                return data
            """,
            message="reads the request body by hand (`request.json()`)",
        ),
        Sample(
            """
            from fastapi import FastAPI

            app = FastAPI()

            @app.post("/items")
            def create_item(name, price):
                return {"name": name, "price": price}
            """,
            message="parameter `name` of `create_item` (POST) has no type",
        ),
        Sample(
            """
            from fastapi import FastAPI
            from pydantic import BaseModel

            class Item(BaseModel):
                name: str

            app = FastAPI()

            @app.get("/items/{item_id}")
            def read_item(item_id: int) -> Item:
                return Item(name="a")

            @app.get("/items")
            def read_items() -> list[dict]:
                return []

            @app.get("/health")
            def health() -> bool:
                return True
            """,
            message="response of `read_items` is not a pydantic model: it returns `list[dict]`",
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/types.py": """
                    from dataclasses import dataclass
                    from typing import TypedDict

                    class Payload(TypedDict):
                        name: str

                    @dataclass
                    class Point:
                        x: int
                    """,
                "app/routes.py": """
                    from fastapi import APIRouter, Body

                    from app.types import Payload, Point

                    router = APIRouter()

                    @router.post("/p", response_model=Point)
                    def create(payload: Payload, point: Point, price: float = Body()):
                        return point
                    """,
            },
            message="request body `payload: Payload` of `create` is not a pydantic model "
            "(a TypedDict)",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        project = Project(ctx)
        types = FastapiTypes(project)
        findings: list[Finding] = []
        seen: set[int] = set()
        for module in project.scoped:
            for site in project.routes(module, routers=False):
                if site.framework != "fastapi" or site.method not in JUDGED or not site.handler:
                    continue
                handler_module, handler = site.handler
                if self.options.get("request", True) and id(handler) not in seen:
                    seen.add(id(handler))
                    findings.extend(self._request(ctx, types, site, handler_module, handler))
                if self.options.get("response", True):
                    findings.extend(self._response(ctx, types, site, handler_module, handler))
        return sorted(findings, key=lambda f: (f.path or "", f.line or 0))

    def _request(
        self,
        ctx: CheckContext,
        types: FastapiTypes,
        site: RouteSite,
        module: ParsedModule,
        handler: cst.FunctionDef,
    ) -> Iterator[Finding]:
        name = handler.name.value
        path_params = site.path_params()
        methods = site.http_methods()
        requests: set[str] = set()
        params = [*handler.params.posonly_params, *handler.params.params]
        for param in [*params, *handler.params.kwonly_params]:
            info = (
                types.classify(module, param.annotation.annotation)
                if param.annotation is not None
                else UNTYPED
            )
            marker = types.marker(module, param.default) or info.marker
            if param.annotation is not None and info.kind == "special":
                within = param.annotation.annotation  # `Request`, `Annotated[Request, ...]`
                if any(
                    module.qualified(n) & REQUESTS
                    for n in module.nodes(cst.Name, cst.Attribute, within=within)
                ):
                    requests.add(param.name.value)
            if marker in ("dependency", "param", "form") or info.kind in (
                "special",
                "file",
                "response",
            ):
                continue
            written = _param_text(param)
            if marker == "body":
                if info.kind not in ("model", "unknown"):
                    yield ctx.report(
                        module,
                        param,
                        f"request body `{written}` of `{name}` is not a pydantic model"
                        + (f" ({info.detail})" if info.detail else ""),
                    )
                continue
            if param.name.value in path_params:
                continue
            if info.kind == "other":
                yield ctx.report(
                    module,
                    param,
                    f"request body `{written}` of `{name}` is not a pydantic model"
                    + (f" ({info.detail})" if info.detail else ""),
                )
            elif (
                info.kind == "untyped"
                and param.default is None
                and methods & _BODY_METHODS
                and param.name.value not in ("self", "cls")
            ):
                method = "/".join(sorted(methods & _BODY_METHODS))
                typed = "has no type" if param.annotation is None else f"is typed `{info.text}`"
                yield ctx.report(
                    module,
                    param,
                    f"parameter `{param.name.value}` of `{name}` ({method}) {typed}: FastAPI "
                    "reads it as a query string; a request body must be a pydantic model",
                )
        for call in module.nodes(cst.Call, within=handler.body):
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in _BODY_READERS
                and isinstance(func.value, cst.Name)
                and func.value.value in requests
            ):
                yield ctx.report(
                    module,
                    call,
                    f"`{name}` reads the request body by hand (`{shown(call)}`): declare a "
                    "parameter typed with a pydantic model",
                )

    def _response(
        self,
        ctx: CheckContext,
        types: FastapiTypes,
        site: RouteSite,
        module: ParsedModule,
        handler: cst.FunctionDef,
    ) -> Iterator[Finding]:
        call = site.call
        name = handler.name.value
        if call is not None:
            if _status(argument(call, None, "status_code")) in _NO_BODY:
                return
            response_class = argument(call, None, "response_class")
            if response_class is not None and not (
                site.module.qualified(response_class) & JSON_RESPONSES
            ):
                return
        if not _returns_a_value(module, handler):
            return  # the response is `null`: no body to describe
        returns = types.classify(module, handler.returns.annotation) if handler.returns else None
        model = argument(call, None, "response_model") if call is not None else None
        if model is not None:
            if isinstance(model, cst.Name) and model.value == "None":
                if returns is None or returns.kind not in ("response", "special"):
                    yield ctx.report(
                        site.module,
                        site.node,
                        f"response of `{name}` is not a pydantic model: `response_model=None`",
                    )
                return
            info = types.classify(site.module, model)
            if not self._acceptable(info):
                yield ctx.report(
                    site.module,
                    site.node,
                    f"response of `{name}` is not a pydantic model: "
                    f"`response_model={info.text}`" + (f" ({info.detail})" if info.detail else ""),
                )
            return
        if returns is None:
            yield ctx.report(
                module,
                handler.name,
                f"response of `{name}` is not a pydantic model: the route has no "
                "`response_model=` and the handler no return annotation",
            )
        elif not self._acceptable(returns) and returns.kind not in ("none", "response", "special"):
            yield ctx.report(
                module,
                handler.name,
                f"response of `{name}` is not a pydantic model: it returns {returns.describe()}",
            )

    def _acceptable(self, info: TypeInfo) -> bool:
        if info.kind in ("model", "unknown"):
            return True
        return info.kind == "scalar" and bool(self.options.get("allow-scalar-responses"))

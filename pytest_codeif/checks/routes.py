"""The `routes` check: where the code declares HTTP routes (scope it to forbid them
outside the routes layer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.js_code import JsCode
from pytest_codeif.checks.shared.js_routes import (
    JS_FRAMEWORK_NAMES,
    js_routes,
    project_framework,
)
from pytest_codeif.checks.shared.web_routes import Project, RouteSite, shown
from pytest_codeif.code.languages import JS_FAMILY

FRAMEWORK_NAMES: Final = {"fastapi": "FastAPI", "flask": "Flask", "django": "Django"}

#: Bases of class-based views, by framework (`pkg.*`: anything below `pkg`).
_VIEW_BASES: Final = {
    "django": (
        "django.views.*",
        "rest_framework.views.APIView",
        "rest_framework.viewsets.*",
        "rest_framework.generics.*",
    ),
    "flask": (
        "flask.views.View",
        "flask.views.MethodView",
        "flask_restful.Resource",
        "flask_restx.Resource",
    ),
}


def _declaration(site: RouteSite) -> str:
    """The declaring call, shortened to its path: `@router.get("/items", ...)`."""
    call = site.call
    prefix = "@" if isinstance(site.node, cst.Decorator) else ""
    whole = shown(call if call is not None else site.node, 1000)
    if len(whole) <= 60:
        return prefix + whole
    if call is None:
        return prefix + shown(site.node)
    args = [a for a in call.args if a.keyword is None and not a.star]
    first = shown(args[0].value, 50) if args else ""
    more = ", ..." if len(call.args) > (1 if args else 0) else ""
    return f"{prefix}{shown(call.func, 40)}({first}{more if first else more[2:]})"


def _describe(site: RouteSite) -> str:
    framework = FRAMEWORK_NAMES[site.framework]
    if site.what == "router":
        return f"router created: `{_declaration(site)}` ({framework})"
    if site.what == "url pattern":
        return f"URL pattern declared: `{_declaration(site)}` ({framework})"
    handler = f" `{site.handler[1].name.value}`" if site.handler is not None else ""
    return f"route{handler} declared: `{_declaration(site)}` ({framework})"


class RoutesCheck(Check):
    """No HTTP route is declared in the code the constraint covers: scope it to everything
    but the routes layer.

    Why: "routes live in `app.api`, nowhere else" keeps the HTTP surface in one place;
    a route declared in a service or a model module mixes transport into business code.
    The check reports every route declaration in its scope, so a team writes it with
    `exclude-modules: [app.api]` (Django: `exclude-modules: ["**.urls"]`) and every
    route elsewhere is a violation. What counts as declaring a route:

    - FastAPI: a function decorated by a method of a `FastAPI`/`APIRouter` object (or a
      Starlette app or router): `@app.get/post/put/patch/delete/head/options/trace`,
      `@router.api_route`, `@app.route`, `@app.websocket`; `add_api_route`,
      `add_api_websocket_route`, `add_route`, `add_websocket_route` on one (also
      `app.router.add_api_route`); a Starlette `Route(...)`/`WebSocketRoute(...)` or
      FastAPI `APIRoute(...)` made by hand; an `APIRouter(...)` (or a project subclass
      of it) created.
    - Flask (and Quart, APIFlask, Flask-Smorest, Flask-RESTX, Flask-RESTful): a function
      decorated by `@app.route` or `@bp.route/get/post/put/patch/delete` of a `Flask` or
      `Blueprint` object; `add_url_rule`; `add_resource` of an `Api`; a `Blueprint(...)`
      created.
    - Django: `path(...)`, `re_path(...)`, `url(...)` (wherever they are, not only in
      `urlpatterns`); Django REST framework's `DefaultRouter()`/`SimpleRouter()` created
      and `router.register(...)`.

    A router or blueprint created counts only when a route is declared on it somewhere
    in the project: a blueprint made for CLI commands or error handlers declares none.
    The app or router object is followed through the project: `bp = Blueprint(...)` in
    `app/main/__init__.py` and `@bp.route("/")` in `app/main/routes.py` after `from
    app.main import bp` is a route; so is a variable assigned one in the enclosing
    function (an app factory) or a parameter annotated `Flask`/`FastAPI`. An object the
    check cannot follow (made by a factory function, an attribute of `self`) counts when
    its decorator's first argument is a URL path literal (`@api.get("/items")`) and the
    module imports exactly one of FastAPI/Starlette or Flask/Quart.

    What it does not count: wiring (`app.include_router(...)`,
    `app.register_blueprint(...)`, `app.mount(...)`, Django's `include(...)` on its
    own), the app object itself (`FastAPI()`, `Flask(__name__)`: it belongs to the
    entry point), middleware and error handlers; routes built from data (a loop
    calling `add_url_rule` with a computed endpoint still counts, a dict of paths
    handed to a router-building library does not). Class-based views are handlers,
    not routes: Django's `View`/DRF's `APIView`/`ViewSet` subclasses and Flask's
    `View`/`MethodView` count only with `views: true`.

    Node (JavaScript and TypeScript, `checks/shared/js_routes.py`): a verb method
    (`get`, `post`, `put`, `patch`, `delete`, `all`, `route`...) called with a URL path
    first on an app or router the code made (`express()`, `Router()`, `Fastify()`, `new
    Hono()`, a `@koa/router` router), or on an object it did not make (a Fastify
    plugin's `fastify`) with a handler function last when the project imports exactly
    one of these frameworks; Fastify's `route({ url, ... })`; NestJS's `@Get()`,
    `@Post()`... handler decorators. A client's `axios.get("/api")` passes no handler.
    Scope them by path names (`exclude-modules: [src.routes]`) or files.

    Options: `frameworks` (any of `fastapi`, `flask`, `django`, `express`, `fastify`,
    `hono`, `koa`, `nestjs`; default all),
    `routers` (default true: creating an `APIRouter`, a `Blueprint` or a DRF router
    that routes are declared on counts as declaring routes), `views` (default false:
    class-based views count).

    Example:

        - check: routes
          exclude-modules: [app.api]
          message: Declare routes in app.api only.
    """

    name = "routes"
    category = "Code Context"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Declare the route in the routes layer the constraint leaves out of its scope (e.g. "
        "`app.api`) and call the code here from it; keep routers and blueprints there too."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "frameworks": {
                "type": "array",
                "items": {"enum": sorted({*FRAMEWORK_NAMES, *JS_FRAMEWORK_NAMES})},
                "minItems": 1,
                "uniqueItems": True,
            },
            "routers": {"type": "boolean"},
            "views": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(  # a service calling an API and reading a map: no route
            """
            import axios from "axios";
            const cache = new Map();

            export async function users() {
              return cache.get("/users") ?? (await axios.get("/api/users")).data;
            }
            """,
            language="javascript",
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/main.py": """
                    from fastapi import FastAPI
                    from flask import Flask

                    from app.api import items

                    app = FastAPI(title="shop")
                    app.include_router(items.router, prefix="/api")
                    admin = Flask(__name__)
                    admin.register_blueprint(items.blueprint)
                    """,
                "app/services.py": """
                    import functools
                    from unittest import mock

                    import requests

                    CACHE: dict[str, str] = {}

                    @functools.lru_cache
                    def list_items() -> list[str]:
                        return requests.get("/items", timeout=5).json()

                    @mock.patch("/items")
                    def patched() -> None:
                        CACHE.get("/items")
                    """,
            },
        ),
        Sample(
            """
            from django.views import View
            from flask.views import MethodView

            class Items(MethodView):
                def get(self):
                    return []

            class Page(View):
                def get(self, request):
                    return None
            """,
        ),
    )
    violated_by = (
        Sample(  # an Express router made and routed in a service
            {
                "src/services/users.js": """
                    import { Router } from "express";
                    export const users = Router();
                    users.get("/users/:id", async (req, res) => res.json({}));
                    """,
            },
            message='`users.get("/users/:id", async (req, res) => res.json({}))` (Express)',
            path="src/services/users.js",
            line=3,
        ),
        Sample(  # a Fastify plugin: the framework read from the project
            {
                "lib/app.js": "const Fastify = require('fastify')\nmodule.exports = Fastify()\n",
                "lib/services/tags.js": """
                    module.exports = async function (fastify) {
                      fastify.route({ method: 'GET', url: '/tags', handler: async () => [] })
                    }
                    """,
            },
            message="(Fastify)",
            path="lib/services/tags.js",
            line=2,
        ),
        Sample(
            """
            import { Controller, Get } from "@nestjs/common";

            @Controller("tags")
            export class TagsController {
              @Get(":id")
              one() { return {}; }
            }
            """,
            language="typescript",
            message='route declared: `@Get(":id")` (NestJS)',
            line=5,
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/api/__init__.py": "",
                "app/api/deps.py": """
                    from fastapi import APIRouter

                    router = APIRouter(prefix="/items")
                    """,
                "app/services/__init__.py": "",
                "app/services/items.py": """
                    from app.api.deps import router

                    @router.post("")
                    def create_item() -> None:
                        pass
                    """,
            },
            message='route `create_item` declared: `@router.post("")` (FastAPI)',
        ),
        Sample(
            {
                "shop/__init__.py": "",
                "shop/main/__init__.py": """
                    from flask import Blueprint

                    bp = Blueprint("main", __name__)
                    """,
                "shop/main/models.py": """
                    from shop.main import bp

                    @bp.route("/orders", methods=["POST"])
                    def orders():
                        return "ok"
                    """,
            },
            message='route `orders` declared: `@bp.route("/orders", methods=["POST"])` (Flask)',
        ),
        Sample(
            """
            from flask import Flask

            def create_app():
                app = Flask(__name__)

                def index():
                    return "hi"

                app.add_url_rule("/", view_func=index)
                return app
            """,
            message='route `index` declared: `app.add_url_rule("/", view_func=index)` (Flask)',
        ),
        Sample(
            """
            from django.urls import path

            from . import views

            urlpatterns = [path("orders/", views.orders, name="orders")]
            """,
            {"frameworks": ["django"]},
            message='URL pattern declared: `path("orders/", views.orders, name="orders")`',
        ),
        Sample(
            """
            from flask.views import MethodView

            class Items(MethodView):
                def get(self):
                    return []
            """,
            {"views": True},
            message="class-based view declared: `Items` (Flask)",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        frameworks = set(self.options.get("frameworks", {*FRAMEWORK_NAMES, *JS_FRAMEWORK_NAMES}))
        findings = self._js(ctx, frameworks)
        if not ctx.modules():
            return findings
        routers = bool(self.options.get("routers", True))
        project = Project(ctx)
        for module in project.scoped:
            for site in project.routes(module, routers=routers):
                if site.what == "router" and not (
                    isinstance(site.node, cst.Call) and project.router_used(module, site.node)
                ):
                    continue
                if site.framework in frameworks:
                    findings.append(ctx.report(module, site.node, _describe(site)))
            if self.options.get("views", False):
                for cls in module.nodes(cst.ClassDef):
                    for framework, bases in _VIEW_BASES.items():
                        if framework in frameworks and project.inherits(module, cls, bases):
                            message = (
                                f"class-based view declared: `{cls.name.value}` "
                                f"({FRAMEWORK_NAMES[framework]})"
                            )
                            findings.append(ctx.report(module, cls, message))
                            break
        return sorted(findings, key=lambda f: (f.path or "", f.line or 0))

    def _js(self, ctx: CheckContext, frameworks: set[str]) -> list[Finding]:
        """The routes JS/TS code in scope declares (`checks/shared/js_routes.py`); the
        project's framework read from all its JS/TS modules, in scope or not."""
        scripts = ctx.js_modules()
        if not scripts:
            return []
        code = JsCode(scripts, ctx.unit)
        every = (code.module_at(f.relpath) for f in ctx.unit.files if f.language in JS_FAMILY)
        fallback = project_framework(read for read in every if read is not None)
        return [
            ctx.finding(
                f"route declared: `{route.shown}` ({JS_FRAMEWORK_NAMES[route.framework]})",
                path=read.module.relpath,
                line=read.module.line_of(route.node),
            )
            for read in (code.code[m.relpath] for m in scripts)
            for route in js_routes(read, fallback)
            if route.framework in frameworks
        ]

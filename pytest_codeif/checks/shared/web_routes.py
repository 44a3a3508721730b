"""What the web-framework convention checks share (`routes`, `fastapi-bodies`,
`session-injection`, `django-no-connection`): the project's modules by name, what a
name is bound to across them, class ancestry, the route declarations of FastAPI, Flask
and Django, and the project functions a function reaches through its calls.

Modules outside the constraint's scope are parsed on demand, when a name leads there (a
handler in `app.api` annotated with a model declared in `app.models`, a blueprint made in
`app/main/__init__.py` and decorating views in `app/main/routes.py`): the scope decides
where findings may be, not what the code in scope means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.base import CheckContext
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.identifiers import as_read
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Undecidable

#: What a top-level name can be bound to: a function, a class, or an assigned value.
Definition = cst.FunctionDef | cst.ClassDef | cst.BaseExpression

#: How far names are followed (re-exports, aliases, base classes, calls).
MAX_DEPTH: Final = 8

#: Makers of application and router objects, and the framework each belongs to.
APPS: Final[dict[str, str]] = {
    "fastapi.FastAPI": "fastapi",
    "fastapi.applications.FastAPI": "fastapi",
    "fastapi.APIRouter": "fastapi",
    "fastapi.routing.APIRouter": "fastapi",
    "starlette.applications.Starlette": "fastapi",
    "starlette.routing.Router": "fastapi",
    "flask.Flask": "flask",
    "flask.app.Flask": "flask",
    "flask.Blueprint": "flask",
    "flask.blueprints.Blueprint": "flask",
    "flask_smorest.Blueprint": "flask",
    "flask_restx.Api": "flask",
    "flask_restx.Namespace": "flask",
    "flask_restful.Api": "flask",
    "apiflask.APIFlask": "flask",
    "apiflask.APIBlueprint": "flask",
    "quart.Quart": "flask",
    "quart.Blueprint": "flask",
    "rest_framework.routers.DefaultRouter": "django",
    "rest_framework.routers.SimpleRouter": "django",
}
#: Of those, the ones whose creation is itself part of declaring routes (a router or a
#: blueprint groups routes; an application object does not).
ROUTERS: Final = frozenset(
    {
        "fastapi.APIRouter",
        "fastapi.routing.APIRouter",
        "starlette.routing.Router",
        "flask.Blueprint",
        "flask.blueprints.Blueprint",
        "flask_smorest.Blueprint",
        "flask_restx.Namespace",
        "apiflask.APIBlueprint",
        "quart.Blueprint",
        "rest_framework.routers.DefaultRouter",
        "rest_framework.routers.SimpleRouter",
    }
)
#: Methods of an app or router that declare a route when they decorate a function.
DECORATOR_METHODS: Final[dict[str, frozenset[str]]] = {
    "fastapi": frozenset(
        {
            "get",
            "post",
            "put",
            "patch",
            "delete",
            "head",
            "options",
            "trace",
            "api_route",
            "route",
            "websocket",
            "websocket_route",
        }
    ),
    "flask": frozenset({"route", "get", "post", "put", "patch", "delete"}),
    "django": frozenset(),
}
#: Methods of an app or router that declare a route when called.
CALL_METHODS: Final[dict[str, frozenset[str]]] = {
    "fastapi": frozenset(
        {"add_api_route", "add_api_websocket_route", "add_route", "add_websocket_route"}
    ),
    "flask": frozenset({"add_url_rule", "add_resource"}),
    "django": frozenset({"register"}),
}
#: Functions that declare a route wherever they are called.
ROUTE_FUNCTIONS: Final[dict[str, str]] = {
    "django.urls.path": "django",
    "django.urls.re_path": "django",
    "django.urls.conf.path": "django",
    "django.urls.conf.re_path": "django",
    "django.conf.urls.url": "django",
    "django.conf.urls.re_path": "django",
    "starlette.routing.Route": "fastapi",
    "starlette.routing.WebSocketRoute": "fastapi",
    "fastapi.routing.APIRoute": "fastapi",
    "fastapi.routing.APIWebSocketRoute": "fastapi",
}
#: Driver calls that open a connection or a pool.
DRIVER_CONNECTS: Final = frozenset(
    {
        "sqlite3.connect",
        "aiosqlite.connect",
        "psycopg2.connect",
        "psycopg.connect",
        "psycopg.Connection.connect",
        "psycopg.AsyncConnection.connect",
        "psycopg_pool.ConnectionPool",
        "psycopg_pool.AsyncConnectionPool",
        "asyncpg.connect",
        "asyncpg.create_pool",
        "pymysql.connect",
        "MySQLdb.connect",
        "mysql.connector.connect",
        "aiomysql.connect",
        "aiomysql.create_pool",
        "aiopg.connect",
        "aiopg.create_pool",
        "cx_Oracle.connect",
        "oracledb.connect",
        "pyodbc.connect",
        "pymssql.connect",
        "duckdb.connect",
        "databases.Database",
    }
)
#: Top-level packages whose import says which framework an unresolvable `@x.get("/")` is.
_FRAMEWORK_PACKAGES: Final = {
    "fastapi": "fastapi",
    "starlette": "fastapi",
    "flask": "flask",
    "quart": "flask",
    "apiflask": "flask",
}
#: Bases known not to lead anywhere a check looks for (the standard library's).
_KNOWN_BASES: Final = (
    "builtins.",
    "typing.",
    "typing_extensions.",
    "enum.",
    "abc.",
    "collections.",
    "dataclasses.",
)
_PATH_PARAM: Final = re.compile(r"\{(\w+)(?::\w+)?\}")


def shown(node: cst.CSTNode, limit: int = 70) -> str:
    """The code of `node` on one line, shortened to about `limit` characters."""
    text = " ".join(code_of(node).split())
    for wide, tight in (("( ", "("), ("[ ", "["), ("{ ", "{"), (", )", ")"), (" )", ")")):
        text = text.replace(wide, tight)
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


@dataclass(frozen=True)
class Binding:
    """What a name is bound to, and the module that binds it (where the bound node's own
    names resolve)."""

    module: ParsedModule
    name: str
    node: Definition

    @property
    def where(self) -> str:
        """`path:line` of the binding, for messages."""
        return f"{self.module.relpath}:{self.module.line_of(self.node)}"


@dataclass(frozen=True)
class RouteSite:
    """One route declaration: a decorator, a call or a router's creation."""

    module: ParsedModule
    #: Where it is declared: a `cst.Decorator` or a `cst.Call`.
    node: cst.CSTNode
    framework: str
    #: "route", "router" or "url pattern".
    what: str
    #: The call that declares it (the decorator's call, if it has one), for its arguments.
    call: cst.Call | None
    #: The method or function name (`get`, `route`, `add_api_route`, `path`, `APIRouter`).
    method: str
    #: The function handling the route, with its module, when it is known.
    handler: tuple[ParsedModule, cst.FunctionDef] | None
    #: The app or router's binding (`router = APIRouter(...)`), when it is known.
    instance: Binding | None

    def path_template(self) -> str | None:
        """The route's path, when it is a string literal (the first argument or
        `path=`)."""
        if self.call is None:
            return None
        value = argument(self.call, 0, "path")
        if isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str):
            return value.evaluated_value
        return None

    def path_params(self) -> set[str]:
        """Names of the path parameters in the route's path and its router's prefix."""
        texts = [self.path_template() or ""]
        if self.instance is not None and isinstance(self.instance.node, cst.Call):
            prefix = argument(self.instance.node, None, "prefix")
            if isinstance(prefix, cst.SimpleString) and isinstance(prefix.evaluated_value, str):
                texts.append(prefix.evaluated_value)
        return {m.group(1) for text in texts for m in _PATH_PARAM.finditer(text)}

    def http_methods(self) -> set[str]:
        """The HTTP methods the route answers (GET for `api_route`/`route` without
        `methods=`, none for websockets)."""
        if self.method in ("websocket", "websocket_route", "add_api_websocket_route"):
            return set()
        if self.method in DECORATOR_METHODS["fastapi"] - {"api_route", "route"}:
            return {self.method.upper()}
        methods = argument(self.call, None, "methods") if self.call is not None else None
        if isinstance(methods, (cst.List, cst.Tuple, cst.Set)):
            return {
                e.value.evaluated_value.upper()
                for e in methods.elements
                if isinstance(e.value, cst.SimpleString)
                and isinstance(e.value.evaluated_value, str)
            }
        return {"GET"} if methods is None else {"GET", "POST", "PUT", "PATCH", "DELETE"}


def argument(call: cst.Call, position: int | None, keyword: str) -> cst.BaseExpression | None:
    """The argument of `call` given by `keyword`, or at `position` among the positional
    ones (None: only by keyword)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    if position is not None and position < len(positional):
        return positional[position].value
    return None


def _suite(block: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return block.body


class Project:
    """The modules of one code unit by name, what their names are bound to, and caches.

    Made once per evaluation: it parses the out-of-scope modules it is led to, once.
    """

    def __init__(self, ctx: CheckContext) -> None:
        self.unit = ctx.unit
        self.scoped = ctx.modules()
        names = self.unit.names
        self._sources: dict[str, SourceFile] = {}
        if names is not None:
            for source in self.unit.files:
                name = names.modules.get(source.relpath)
                if name is not None:
                    self._sources[name] = source
        self._parsed: dict[str, ParsedModule | None] = {
            m.place.name: m for m in self.scoped if m.place is not None
        }
        self._tops: dict[int, dict[str, Definition]] = {}
        self._resolved: dict[str, Binding | None] = {}
        self._bound: dict[tuple[int, str], Binding | None] = {}
        self._imports: dict[int, set[str]] = {}
        self._routes: dict[tuple[int, bool], list[RouteSite]] = {}

    # -- modules and names --------------------------------------------------------------
    def module(self, name: str) -> ParsedModule | None:
        """The project module called `name` (None: not in the project, or unparsable)."""
        if name in self._parsed:
            return self._parsed[name]
        source = self._sources.get(name)
        parsed: ParsedModule | None = None
        if source is not None:
            try:
                parsed = ParsedModule(source, self.unit.place(source.relpath))
            except Undecidable:
                parsed = None
        self._parsed[name] = parsed
        return parsed

    def modules_containing(self, *texts: str) -> list[ParsedModule]:
        """Every parsable module of the project whose source contains one of `texts`
        (in scope or not, identifiers as Python reads them); the scoped modules first."""
        found = [m for m in self.scoped if _mentions(m.source.text, texts)]
        seen = {id(m) for m in self.scoped}
        for name, source in self._sources.items():
            if _mentions(source.text, texts):
                module = self.module(name)
                if module is not None and id(module) not in seen:
                    seen.add(id(module))
                    found.append(module)
        return found

    def top_level(self, module: ParsedModule) -> dict[str, Definition]:
        """The names `module` binds at its top level (also inside top-level `if`, `try`
        and `with` blocks), the last binding of each."""
        found = self._tops.get(id(module))
        if found is None:
            found = {}
            _collect_top(module.tree.body, found)
            self._tops[id(module)] = found
        return found

    def imported_packages(self, module: ParsedModule) -> set[str]:
        """The top-level packages `module` imports from."""
        found = self._imports.get(id(module))
        if found is None:
            found = {
                target.split(".")[0]
                for targets in module.names.imports.values()
                for target in targets
            }
            self._imports[id(module)] = found
        return found

    def bound(self, module: ParsedModule, name: str, depth: int = 0) -> Binding | None:
        """What `name` is bound to at the top level of `module`, following imports into
        the project (re-exports included)."""
        key = (id(module), name)
        if key in self._bound:
            return self._bound[key]
        self._bound[key] = None  # a cycle of re-exports ends here
        found: Binding | None = None
        node = self.top_level(module).get(name)
        if node is not None:
            found = Binding(module, name, node)
        elif depth < MAX_DEPTH:
            for target in sorted(module.names.imports.get(name, ())):
                found = self.resolve(target, depth + 1)
                if found is not None:
                    break
        self._bound[key] = found
        return found

    def resolve(self, qualified: str, depth: int = 0) -> Binding | None:
        """The project definition a fully qualified name (`app.models.User`) refers to."""
        if qualified in self._resolved:
            return self._resolved[qualified]
        self._resolved[qualified] = None
        parts = qualified.split(".")
        found: Binding | None = None
        for cut in range(len(parts) - 1, 0, -1):
            module = self.module(".".join(parts[:cut]))
            if module is None:
                continue
            if cut == len(parts) - 1:
                found = self.bound(module, parts[-1], depth)
            break
        self._resolved[qualified] = found
        return found

    def binding(self, module: ParsedModule, expr: cst.CSTNode) -> Binding | None:
        """The project definition `expr` (a name or dotted name in `module`) refers to."""
        if isinstance(expr, cst.Name):
            return self.bound(module, expr.value)
        if isinstance(expr, cst.Attribute):
            for qualified in sorted(module.qualified(expr)):
                found = self.resolve(qualified)
                if found is not None:
                    return found
        return None

    def alias_target(self, binding: Binding) -> Binding:
        """Follow `x = y` and `x: T = y` chains of plain names to what they end at."""
        seen = 0
        while isinstance(binding.node, (cst.Name, cst.Attribute)) and seen < MAX_DEPTH:
            nxt = self.binding(binding.module, binding.node)
            if nxt is None or nxt == binding:
                break
            binding, seen = nxt, seen + 1
        return binding

    # -- classes ------------------------------------------------------------------------
    def inherits(
        self, module: ParsedModule, cls: cst.ClassDef, targets: Iterable[str], depth: int = 0
    ) -> bool | None:
        """Whether `cls` derives from one of `targets` (qualified names; `pkg.*` for
        everything below `pkg`): True, False, or None when a base outside the project
        and the standard library hides the answer."""
        wanted = tuple(targets)
        unknown = False
        for base in cls.bases:
            expr = base.value.value if isinstance(base.value, cst.Subscript) else base.value
            names = module.qualified(expr)
            if any(_matches(n, wanted) for n in names):
                return True
            binding = self.binding(module, expr)
            if binding is not None:
                binding = self.alias_target(binding)
            if binding is not None and isinstance(binding.node, cst.ClassDef):
                if depth >= MAX_DEPTH:
                    unknown = True
                    continue
                inner = self.inherits(binding.module, binding.node, wanted, depth + 1)
                if inner:
                    return True
                unknown = unknown or inner is None
            elif not names or not all(n.startswith(_KNOWN_BASES) for n in names):
                unknown = True
        return None if unknown else False

    def class_of(self, module: ParsedModule, expr: cst.CSTNode) -> Binding | None:
        """The project class `expr` names, through aliases."""
        binding = self.binding(module, expr)
        if binding is None:
            return None
        binding = self.alias_target(binding)
        return binding if isinstance(binding.node, cst.ClassDef) else None

    # -- apps, routers and routes ---------------------------------------------------------
    def maker(self, module: ParsedModule, call: cst.Call, depth: int = 0) -> str | None:
        """The app or router class (one of `APPS`) `call` makes an instance of, directly or
        through a project subclass."""
        for name in sorted(module.qualified(call.func)):
            if name in APPS:
                return name
        cls = self.class_of(module, call.func)
        if cls is not None and depth < MAX_DEPTH:
            return self._app_base(cls, depth + 1)
        return None

    def _app_base(self, cls: Binding, depth: int) -> str | None:
        if not isinstance(cls.node, cst.ClassDef):
            return None
        for base in cls.node.bases:
            for name in sorted(cls.module.qualified(base.value)):
                if name in APPS:
                    return name
            inner = self.class_of(cls.module, base.value)
            if inner is not None and depth < MAX_DEPTH:
                found = self._app_base(inner, depth + 1)
                if found is not None:
                    return found
        return None

    def instance(
        self, module: ParsedModule, expr: cst.BaseExpression, depth: int = 0
    ) -> tuple[str, Binding | None] | None:
        """The app or router class `expr` is an instance of, and its binding: a name bound
        to `APIRouter(...)` here or in another module, `app.router` of a FastAPI app, a
        variable assigned one in the enclosing function, or a parameter annotated with
        the class."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, cst.Call):
            made = self.maker(module, expr)
            return (made, None) if made is not None else None
        if isinstance(expr, cst.Attribute) and expr.attr.value == "router":
            inner = self.instance(module, expr.value, depth + 1)
            if inner is not None and APPS[inner[0]] == "fastapi":
                return "fastapi.APIRouter", None
        binding = self.binding(module, expr)
        if binding is not None:
            if isinstance(binding.node, cst.Call):
                made = self.maker(binding.module, binding.node)
                return (made, binding) if made is not None else None
            if isinstance(binding.node, (cst.Name, cst.Attribute)):
                return self.instance(binding.module, binding.node, depth + 1)
            return None
        if isinstance(expr, cst.Name):
            return self._local_instance(module, expr)
        return None

    def _local_instance(self, module: ParsedModule, name: cst.Name) -> tuple[str, None] | None:
        scope = module.scope_of(name)
        while scope is not None:
            if isinstance(scope, cst.FunctionDef):
                for assign in module.nodes(cst.Assign, within=scope.body):
                    if isinstance(assign.value, cst.Call) and any(
                        isinstance(t.target, cst.Name) and t.target.value == name.value
                        for t in assign.targets
                    ):
                        made = self.maker(module, assign.value)
                        if made is not None:
                            return made, None
                for param in _all_params(scope.params):
                    if param.name.value == name.value and param.annotation is not None:
                        names = module.qualified(param.annotation.annotation)
                        for qualified in sorted(names):
                            if qualified in APPS:
                                return qualified, None
            scope = module.scope_of(scope)
        return None

    def _guess_framework(self, module: ParsedModule, call: cst.Call | None) -> str | None:
        """For `@x.get("/path")` on an object the check cannot follow (made by a factory,
        passed in): the framework the module imports, when the first argument is a URL
        path literal."""
        if call is None:
            return None
        first = argument(call, 0, "path") or argument(call, None, "rule")
        if not (
            isinstance(first, cst.SimpleString)
            and isinstance(first.evaluated_value, str)
            and (first.evaluated_value.startswith("/") or first.evaluated_value == "")
        ):
            return None
        imported = self.imported_packages(module)
        found = {fw for pkg, fw in _FRAMEWORK_PACKAGES.items() if pkg in imported}
        return found.pop() if len(found) == 1 else None

    def handler(
        self, module: ParsedModule, expr: cst.BaseExpression | None
    ) -> tuple[ParsedModule, cst.FunctionDef] | None:
        """The function `expr` (an endpoint given by reference) names."""
        if expr is None:
            return None
        binding = self.binding(module, expr)
        if binding is not None:
            binding = self.alias_target(binding)
            if isinstance(binding.node, cst.FunctionDef):
                return binding.module, binding.node
            return None
        if isinstance(expr, cst.Name):
            for _, node in module.definitions:
                if isinstance(node, cst.FunctionDef) and node.name.value == expr.value:
                    return module, node
        return None

    def routes(self, module: ParsedModule, *, routers: bool = True) -> list[RouteSite]:
        """Every route declaration in `module`: decorators, then calls (with `routers`,
        router and blueprint creations too)."""
        key = (id(module), routers)
        found = self._routes.get(key)
        if found is None:
            found = []
            for decorator in module.nodes(cst.Decorator):
                site = self._decorator_route(module, decorator)
                if site is not None:
                    found.append(site)
            for call in module.nodes(cst.Call):
                site = self._call_route(module, call, routers=routers)
                if site is not None:
                    found.append(site)
            self._routes[key] = found
        return found

    def _decorator_route(self, module: ParsedModule, decorator: cst.Decorator) -> RouteSite | None:
        expr = decorator.decorator
        call = expr if isinstance(expr, cst.Call) else None
        func = call.func if call is not None else expr
        if not isinstance(func, cst.Attribute):
            return None
        method = func.attr.value
        if not any(method in methods for methods in DECORATOR_METHODS.values()):
            return None
        found = self.instance(module, func.value)
        framework = APPS[found[0]] if found is not None else self._guess_framework(module, call)
        if framework is None or method not in DECORATOR_METHODS[framework]:
            return None
        owner = module.scope_of(decorator)
        handler = (module, owner) if isinstance(owner, cst.FunctionDef) else None
        instance = found[1] if found is not None else None
        return RouteSite(module, decorator, framework, "route", call, method, handler, instance)

    def _call_route(
        self, module: ParsedModule, call: cst.Call, *, routers: bool
    ) -> RouteSite | None:
        names = module.qualified(call.func)
        for name in sorted(names):
            framework = ROUTE_FUNCTIONS.get(name)
            if framework is not None:
                what = "url pattern" if framework == "django" else "route"
                endpoint = argument(call, 1, "view" if framework == "django" else "endpoint")
                handler = self.handler(module, endpoint)
                method = name.rsplit(".", 1)[1]
                return RouteSite(module, call, framework, what, call, method, handler, None)
            if name in ROUTERS:
                if not routers:
                    return None
                method = name.rsplit(".", 1)[1]
                return RouteSite(module, call, APPS[name], "router", call, method, None, None)
        func = call.func
        if isinstance(func, cst.Name) and routers:  # a project subclass of a router
            cls = self.class_of(module, func)
            made = self._app_base(cls, 1) if cls is not None else None
            if made is not None and made in ROUTERS:
                return RouteSite(module, call, APPS[made], "router", call, func.value, None, None)
        if not isinstance(func, cst.Attribute):
            return None
        method = func.attr.value
        if not any(method in methods for methods in CALL_METHODS.values()):
            return None
        found = self.instance(module, func.value)
        if found is None or method not in CALL_METHODS[APPS[found[0]]]:
            return None
        framework = APPS[found[0]]
        endpoint = argument(call, 1, "view_func" if framework == "flask" else "endpoint")
        return RouteSite(
            module, call, framework, "route", call, method, self.handler(module, endpoint), found[1]
        )

    def router_used(self, module: ParsedModule, creation: cst.Call) -> bool:
        """Whether the router or blueprint `creation` makes has a route declared on it,
        in any module of the project (a blueprint made only for CLI commands or error
        handlers declares no route)."""
        names = [
            target.target.value
            for assign in module.nodes(cst.Assign)
            if assign.value is creation
            for target in assign.targets
            if isinstance(target.target, cst.Name)
        ]
        names += [
            assign.target.value
            for assign in module.nodes(cst.AnnAssign)
            if assign.value is creation and isinstance(assign.target, cst.Name)
        ]
        top = self.top_level(module)
        for name in names:
            if top.get(name) is not creation:  # made inside a function: this module only
                if any(s.what == "route" for s in self.routes(module, routers=False)):
                    return True
                continue
            for other in self.modules_containing(f"{name}.", f"{name} "):
                for site in self.routes(other, routers=False):
                    if site.instance is not None and site.instance.node is creation:
                        return True
        return False

    # -- calls ----------------------------------------------------------------------------
    def callees(
        self, module: ParsedModule, function: cst.FunctionDef
    ) -> Iterator[tuple[cst.Call, Binding]]:
        """Each call in `function` (its body, nested functions included) of a function the
        project defines, with that function (`__init__` for a class)."""
        for call in module.nodes(cst.Call, within=function.body):
            binding = self.binding(module, call.func)
            if binding is None:
                continue
            binding = self.alias_target(binding)
            if isinstance(binding.node, cst.FunctionDef):
                yield call, binding
            elif isinstance(binding.node, cst.ClassDef):
                for statement in _suite(binding.node.body):
                    if (
                        isinstance(statement, cst.FunctionDef)
                        and statement.name.value == "__init__"
                    ):
                        yield call, Binding(binding.module, binding.name, statement)


def _mentions(text: str, texts: Sequence[str]) -> bool:
    """Whether `text` holds one of `texts`, as written or as Python reads it (NFKC;
    a prefilter, so folding string contents too only lets more through)."""
    if any(t in text for t in texts):
        return True
    return not text.isascii() and any(t in as_read(text) for t in texts)


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith(".*") else name == p for p in patterns)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        found.append(params.star_arg)
    if params.star_kwarg is not None:
        found.append(params.star_kwarg)
    return found


def _blocks(statement: cst.CSTNode) -> list[Sequence[cst.CSTNode]] | None:
    """The statement lists inside a top-level `if`, `try` or `with` (None for others)."""
    if isinstance(statement, cst.If):
        found: list[Sequence[cst.CSTNode]] = []
        branch: cst.If | cst.Else | None = statement
        while branch is not None:  # an `elif` chain, without recursion
            found.append(_suite(branch.body))
            branch = branch.orelse if isinstance(branch, cst.If) else None
        return found
    if isinstance(statement, cst.Try):
        parts = [statement.body, *(h.body for h in statement.handlers)]
        parts += [p.body for p in (statement.orelse, statement.finalbody) if p is not None]
        return [_suite(part) for part in parts]
    if isinstance(statement, cst.With):
        return [_suite(statement.body)]
    return None


def _collect_top(body: Sequence[cst.CSTNode], found: dict[str, Definition]) -> None:
    for statement in body:
        blocks = _blocks(statement)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            found[statement.name.value] = statement
        elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                _collect_small(small, found)
        elif blocks is not None:
            for block in blocks:
                _collect_top(block, found)
        else:  # the small statements of a one-line suite (`if X: y = 1`)
            _collect_small(statement, found)


def _collect_small(small: cst.CSTNode, found: dict[str, Definition]) -> None:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                found[target.target.value] = small.value
    elif (
        isinstance(small, cst.AnnAssign)
        and small.value is not None
        and isinstance(small.target, cst.Name)
    ):
        found[small.target.value] = small.value
    elif isinstance(small, cst.TypeAlias):
        found[small.name.value] = small.value


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Every parameter of a function, `*args` and `**kwargs` included."""
    return _all_params(params)


def free_names(module: ParsedModule, function: cst.FunctionDef) -> list[cst.Name]:
    """The names `function`'s body reads that it does not bind itself (parameters,
    assignment, loop, `with ... as`, comprehension, walrus and `except ... as` targets,
    imports, nested definitions): the module-level or builtin names it uses, first use
    of each, in order. Attribute names (`x.attr`) and keywords (`f(key=1)`) are not
    names read."""
    body = function.body
    bound = {p.name.value for p in _all_params(function.params)}
    targets: list[cst.CSTNode] = []
    for node in module.nodes(
        cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, within=body
    ):
        targets.append(node.target)
    targets += [n.asname.name for n in module.nodes(cst.WithItem, within=body) if n.asname]
    targets += [n.target for n in module.nodes(cst.NamedExpr, within=body)]
    targets += [
        n.name.name for n in module.nodes(cst.ExceptHandler, within=body) if n.name is not None
    ]
    for target in targets:
        bound.update(n.value for n in module.nodes(cst.Name, within=target))
        if isinstance(target, cst.Name):
            bound.add(target.value)
    for definition in module.nodes(cst.FunctionDef, cst.ClassDef, within=body):
        bound.add(definition.name.value)
    for alias in module.nodes(cst.ImportAlias, within=body):
        name = alias.asname.name if alias.asname is not None else alias.name
        if isinstance(name, cst.Name):
            bound.add(name.value)
        elif isinstance(name, cst.Attribute):
            bound.add(code_of(name).split(".")[0])
    skipped = {id(n.attr) for n in module.nodes(cst.Attribute, within=body)}
    skipped |= {id(a.keyword) for a in module.nodes(cst.Arg, within=body) if a.keyword}
    skipped |= {id(p.name) for p in module.nodes(cst.Param, within=body)}
    seen: set[str] = set()
    found: list[cst.Name] = []
    for name in module.nodes(cst.Name, within=body):
        if id(name) in skipped or name.value in bound or name.value in seen:
            continue
        seen.add(name.value)
        found.append(name)
    return found

"""Where Node code declares HTTP routes: what the `routes` check reports in JavaScript and
TypeScript, as `web_routes.py` finds them in Python.

A route is declared by:

- a method named for an HTTP verb (`get`, `post`, `put`, `patch`, `delete`, `del`,
  `head`, `options`, `all`) or `route`, called with a URL path literal first (`"/users"`,
  `"/:id"`, `"*"`) on an app or router the code made: `express()`, `express.Router()`
  / `Router()`, `Fastify()`, `new Hono()`, a `@koa/router` / `koa-router` router;
- the same call on an object the code did not make (a Fastify plugin's `fastify`
  parameter, a router passed in) when its last argument is a function (the handler)
  and the project imports exactly one of these frameworks, whose route it is then;
- Fastify's `route({ method, url, handler })` on either;
- a NestJS handler decorator of `@nestjs/common` (`@Get()`, `@Post(":id")`...).

A client call (`axios.get("/api/users")`, `fetch`) passes no handler, and a `Map.get`
no path: neither is a route.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_code import JsModuleCode, literal, made_by

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: The Node frameworks, as the `routes` check's `frameworks` option names them.
JS_FRAMEWORK_NAMES: Final[Mapping[str, str]] = {
    "express": "Express",
    "fastify": "Fastify",
    "hono": "Hono",
    "koa": "Koa",
    "nestjs": "NestJS",
}
#: What makes an app or router, by framework.
_MAKERS: Final[Mapping[str, str]] = {
    "express": "express",
    "express.default": "express",
    "express.Router": "express",
    "fastify": "fastify",
    "fastify.fastify": "fastify",
    "fastify.default": "fastify",
    "hono.Hono": "hono",
    "@koa/router": "koa",
    "@koa/router.default": "koa",
    "koa-router": "koa",
}
#: The packages whose import tells a project's framework.
_PACKAGES: Final[Mapping[str, str]] = {
    "express": "express",
    "fastify": "fastify",
    "fastify-plugin": "fastify",
    "hono": "hono",
    "koa": "koa",
    "@koa/router": "koa",
    "koa-router": "koa",
    "@nestjs/common": "nestjs",
    "@nestjs/core": "nestjs",
}
_VERBS: Final = frozenset(
    {"get", "post", "put", "patch", "delete", "del", "head", "options", "all", "route"}
)
_NEST_ROUTES: Final = frozenset(
    f"@nestjs/common.{name}"
    for name in ("Get", "Post", "Put", "Patch", "Delete", "Head", "Options", "All")
)
_FUNCTIONS: Final = frozenset(
    {"arrow_function", "function_expression", "function", "identifier", "member_expression"}
)
_WRAPPERS: Final = ("await_expression", "parenthesized_expression", "non_null_expression")


@dataclass(frozen=True)
class JsRoute:
    """One route declaration: the node, the framework, and how it reads."""

    node: SgNode
    framework: str
    shown: str


def project_framework(codes: Iterable[JsModuleCode]) -> str | None:
    """The one web framework the project's modules import, or None (none, or several)."""
    found = {
        framework
        for code in codes
        for package, framework in _PACKAGES.items()
        if code.names.imports(package)
    }
    return found.pop() if len(found) == 1 else None


def js_routes(code: JsModuleCode, fallback: str | None) -> Iterator[JsRoute]:
    """The routes `code` declares (see the module docstring); `fallback` is the
    project's framework, for calls on objects the module did not make."""
    module = code.module
    made = made_by(code, _MAKERS)
    for call in module.nodes("call_expression"):
        callee = call.field("function")
        arguments = call.field("arguments")
        if callee is None or arguments is None or callee.kind() != "member_expression":
            continue
        method = callee.field("property")
        if method is None or method.text() not in _VERBS:
            continue
        given = [a for a in arguments.named_children() if a.kind() != "comment"]
        if not given or not _route_shaped(method.text(), given):
            continue
        framework = _maker(code, callee.field("object"), made)
        if framework is None and fallback is not None:
            handled = len(given) > 1 and given[-1].kind() in _FUNCTIONS
            options = method.text() == "route" and given[0].kind() == "object"
            framework = fallback if handled or options else None
        if framework is not None:
            yield JsRoute(call, framework, module.snippet(call, 60))
    for decorator in module.nodes("decorator"):
        inner = decorator.named_children()
        target = inner[0] if inner else None
        if target is not None and target.kind() == "call_expression":
            target = target.field("function")
        if code.names.qualified(target) in _NEST_ROUTES:
            yield JsRoute(decorator, "nestjs", module.snippet(decorator, 60))


def _route_shaped(method: str, given: list[SgNode]) -> bool:
    """A path literal first (`route` of Fastify: an object with a `url`)."""
    first = given[0]
    if method == "route" and first.kind() == "object":
        return any(
            pair.kind() == "pair" and (key := pair.field("key")) is not None and key.text() == "url"
            for pair in first.named_children()
        )
    path = literal(first)
    return path is not None and (path.startswith("/") or path == "*")


def _maker(code: JsModuleCode, node: SgNode | None, made: Mapping[str, str]) -> str | None:
    """The framework of the app or router `node` is, when the module made it (also
    `express.Router().get(...)`, chained calls on one, `app.route("/x").get(...)`)."""
    while node is not None:
        kind = node.kind()
        if kind in _WRAPPERS:
            inner = node.named_children()
            node = inner[-1] if inner else None
        elif kind == "identifier":
            return made.get(node.text())
        elif kind in ("call_expression", "new_expression"):
            callee = node.field("function" if kind == "call_expression" else "constructor")
            qualified = code.names.qualified(callee)
            if qualified is not None and qualified in _MAKERS:
                return _MAKERS[qualified]
            node = callee.field("object") if callee is not None else None
        elif kind == "member_expression":
            node = node.field("object")
        else:
            return None
    return None

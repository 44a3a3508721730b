"""The `framework` check: the code is built on a framework, not only importing it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.import_sites import import_sites, imports_module
from pytest_codeif.checks.shared.js_code import JsCode
from pytest_codeif.checks.shared.js_frameworks import (
    JS_FRAMEWORKS,
    JsFramework,
    js_pattern_sites,
)
from pytest_codeif.checks.shared.js_imports import js_imports, js_imports_module
from pytest_codeif.code.cst import ParsedModule

_RULE = "framework"


@dataclass(frozen=True)
class Framework:
    """What using a framework means: importing it and writing its defining pattern.

    Names are qualified (resolved through imports); a name ending in `.*` matches every
    name below it. `instances`/`methods`: an object made by one of `instances` whose
    method from `methods` decorates a function (`@app.route(...)`).
    """

    imports: tuple[str, ...]
    subclass: tuple[str, ...] = ()
    decorator: tuple[str, ...] = ()
    call: tuple[str, ...] = ()
    instances: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [f"a subclass of {' / '.join(self.subclass)}"] if self.subclass else []
        parts += [f"a @{d} decorator" for d in self.decorator[:2]]
        parts += [f"a call of {c}" for c in self.call[:2]]
        if self.instances:
            parts.append(
                f"a function decorated by a method ({', '.join(self.methods[:3])}...) "
                f"of a {' / '.join(self.instances)} object"
            )
        return "; or ".join(parts)


_HTTP = (
    "route",
    "get",
    "post",
    "put",
    "delete",
    "patch",
    "head",
    "options",
    "api_route",
    "websocket",
    "errorhandler",
    "before_request",
    "after_request",
    "middleware",
)
FRAMEWORKS: Final[dict[str, Framework]] = {
    "flask": Framework(
        ("flask",),
        subclass=("flask.views.*",),
        call=("flask.Flask", "flask.Blueprint"),
        instances=("flask.Flask", "flask.Blueprint"),
        methods=_HTTP,
    ),
    "fastapi": Framework(
        ("fastapi",),
        call=("fastapi.FastAPI", "fastapi.APIRouter"),
        instances=("fastapi.FastAPI", "fastapi.APIRouter"),
        methods=_HTTP,
    ),
    "django": Framework(
        ("django",),
        subclass=("django.*",),
        call=(
            "django.urls.path",
            "django.urls.re_path",
            "django.conf.settings.configure",
            "django.setup",
            "django.core.management.execute_from_command_line",
            "django.shortcuts.render",
            "django.http.*",
        ),
        decorator=("django.*",),
    ),
    "unittest": Framework(("unittest",), subclass=("unittest.TestCase", "unittest.*")),
    "pytest": Framework(
        ("pytest",),
        decorator=("pytest.fixture", "pytest.mark.*"),
        call=("pytest.raises", "pytest.fixture"),
    ),
    "cement": Framework(("cement",), subclass=("cement.*",), decorator=("cement.ex", "cement.*")),
    "cornice": Framework(
        ("cornice",),
        decorator=("cornice.resource.resource", "cornice.resource.view"),
        instances=("cornice.Service", "cornice.service.Service"),
        methods=_HTTP,
    ),
    "pyramid": Framework(
        ("pyramid",),
        decorator=("pyramid.view.view_config",),
        call=("pyramid.config.Configurator",),
    ),
    "click": Framework(("click",), decorator=("click.command", "click.group", "click.*")),
    "typer": Framework(
        ("typer",), instances=("typer.Typer",), methods=("command", "callback"), call=("typer.run",)
    ),
    "tornado": Framework(("tornado",), subclass=("tornado.web.RequestHandler", "tornado.*")),
    "aiohttp": Framework(
        ("aiohttp",),
        instances=("aiohttp.web.RouteTableDef",),
        methods=_HTTP,
        call=("aiohttp.web.Application", "aiohttp.web.run_app"),
    ),
    "sqlalchemy": Framework(
        ("sqlalchemy",),
        subclass=("sqlalchemy.orm.DeclarativeBase",),
        call=(
            "sqlalchemy.orm.declarative_base",
            "sqlalchemy.ext.declarative.declarative_base",
            "sqlalchemy.create_engine",
        ),
    ),
}


def _hit(names: set[str], patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        if pattern.endswith(".*"):
            if any(n.startswith(pattern[:-1]) for n in names):
                return True
        elif pattern in names:
            return True
    return False


def _instances(module: ParsedModule, makers: Sequence[str]) -> set[str]:
    """Variables (`app`, `self.app`) assigned an object made by one of `makers`."""
    found: set[str] = set()
    for node in module.walk():
        if (
            isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Call)
            and _hit(module.qualified(node.value.func), makers)
        ):
            found.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    return found


def pattern_sites(module: ParsedModule, framework: Framework) -> Iterator[cst.CSTNode]:
    """Nodes where the framework's defining pattern appears."""
    objects = _instances(module, framework.instances) if framework.instances else set()
    for node in module.walk():
        if isinstance(node, cst.ClassDef) and framework.subclass:
            if any(_hit(module.qualified(b.value), framework.subclass) for b in node.bases):
                yield node
        elif isinstance(node, cst.Decorator):
            expr = node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator
            if _hit(module.qualified(expr), framework.decorator) or (
                isinstance(expr, cst.Attribute)
                and isinstance(expr.value, cst.Name)
                and expr.value.value in objects
                and expr.attr.value in framework.methods
            ):
                yield node
        elif isinstance(node, cst.Call) and _hit(module.qualified(node.func), framework.call):
            yield node


_NAMES = {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*(\\.\\*)?$"}}


class FrameworkCheck(Check):
    """The code is built on a framework: it imports it and writes its defining pattern.

    Why: "write it as a Flask app" is not met by `import flask` alone; the code must do
    what makes it a Flask app. Known frameworks and their patterns: flask (an app or
    blueprint made, `Flask(...)`/`Blueprint(...)`, a view registered with
    `@app.route/get/post...`, or a `flask.views` class), fastapi (the same with `FastAPI`
    and `APIRouter`), django (a subclass of a django class, `path(...)`, a django
    decorator...), unittest (a `TestCase` subclass), pytest (fixtures, marks,
    `pytest.raises`), cement (an `App`/`Controller` subclass, `@ex`), cornice (a
    `Service` with views, `@resource`), pyramid (`Configurator`, `@view_config`),
    click, typer, tornado (a `RequestHandler`), aiohttp, sqlalchemy. Names are resolved
    through imports, so `from flask import Flask as F` counts.

    Node frameworks (JavaScript and TypeScript, `checks/shared/js_frameworks.py`):
    express (an app or router made: `express()`, `express.Router()`, `Router()`),
    fastify (`Fastify()` / `fastify()`, or a plugin wrapped by `fastify-plugin`), hono
    (`new Hono()`), koa (`new Koa()`, or a `@koa/router` / `koa-router` router) and
    nestjs (a `@Controller`, `@Module` or `@Injectable` class of `@nestjs/common`, or
    `NestFactory.create(...)`), names resolved through `import` and `require` (`const
    { Router } = require("express")` counts). A framework of your own (`imports`,
    `subclass`, `decorator`, `call`) is read in JS/TS too, a name qualified by its
    package (`express.Router`, `@nestjs/common.Controller`). The framework must not
    leak into layers that should not know it (an Express import in a repository):
    that is the `imports` check's `forbid`, scoped to those layers (`indirect: true`
    follows it through helpers).

    Options: `framework` (one of the names above), or a framework of your own with
    `imports` (required) and any of `subclass`, `decorator`, `call` (qualified names;
    `pkg.*` matches everything below `pkg`).

    Example:

        - check: framework
          framework: flask
    """

    name = "framework"
    category = "Environment"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Build the code on the framework the task names, in its defining pattern (a Flask app or "
        "blueprint with routes, a `unittest.TestCase` subclass, a click command...), not only an "
        "import of it."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "oneOf": [
            {"required": ["framework"]},
            {
                "required": ["imports"],
                "anyOf": [
                    {"required": ["subclass"]},
                    {"required": ["decorator"]},
                    {"required": ["call"]},
                ],
            },
        ],
        "properties": {
            "framework": {"enum": sorted({*FRAMEWORKS, *JS_FRAMEWORKS})},
            "imports": {**_NAMES, "minItems": 1},
            "subclass": _NAMES,
            "decorator": _NAMES,
            "call": _NAMES,
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "from flask import Flask as F\n\napp = F(__name__)\n\n@app.route('/')\n"
            "def index():\n    return 'hi'\n",
            {"framework": "flask"},
        ),
        Sample(
            "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n"
            "        self.assertTrue(True)\n",
            {"framework": "unittest"},
        ),
        Sample(
            "from mylib.plugins import Plugin\n\nclass P(Plugin):\n    pass\n",
            {"imports": ["mylib"], "subclass": ["mylib.plugins.Plugin"]},
        ),
        Sample(
            """
            import express from "express";
            import { listUsers } from "./services/users.js";

            const router = express.Router();
            router.get("/users", async (req, res) => res.json(await listUsers()));
            export default router;
            """,
            {"framework": "express"},
            language="javascript",
        ),
        Sample(
            """
            const { Router } = require("express");
            module.exports = Router().get("/health", (req, res) => res.send("ok"));
            """,
            {"framework": "express"},
            language="javascript",
        ),
        Sample(
            """
            'use strict'
            const fp = require('fastify-plugin')

            module.exports = fp(async function tags (server) {
              server.get('/tags', async () => ({ tags: [] }))
            })
            """,
            {"framework": "fastify"},
            language="javascript",
        ),
        Sample(
            """
            import { Controller, Get } from "@nestjs/common";

            @Controller("tags")
            export class TagController {
              @Get() findAll() { return []; }
            }
            """,
            {"framework": "nestjs"},
            language="typescript",
        ),
        Sample(
            'import { Hono } from "hono";\nconst app = new Hono();\nexport default app;\n',
            {"framework": "hono"},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            "import flask\n\ndef index():\n    return flask.jsonify({'a': 1})\n",
            {"framework": "flask"},
        ),
        Sample("class T:\n    def test_a(self):\n        pass\n", {"framework": "unittest"}),
        Sample(  # Express only imported for a type: no app, no router
            """
            import type { Request, Response } from "express";

            export function show(req: Request, res: Response) {
              res.json({ ok: true });
            }
            """,
            {"framework": "express"},
            language="typescript",
            message="the code does not use express as a framework",
        ),
        Sample(  # a Koa app asked for, an Express one written
            'const express = require("express");\nconst app = express();\n',
            {"framework": "koa"},
            language="javascript",
            message="koa is never imported",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        name = options.get("framework")
        self.label = str(name or options["imports"][0])
        own = (
            None
            if name
            else Framework(
                tuple(options["imports"]),
                subclass=tuple(options.get("subclass", ())),
                decorator=tuple(options.get("decorator", ())),
                call=tuple(options.get("call", ())),
            )
        )
        #: The framework as Python code uses it, and as JS/TS code does (a framework of
        #: one language is never used by the other's code: it is not imported there).
        self.framework: Framework | None = FRAMEWORKS.get(name) if name else own
        self.js_framework: JsFramework | None = (
            JS_FRAMEWORKS.get(name)
            if name
            else JsFramework(own.imports, own.call, own.subclass, own.decorator)
            if own is not None
            else None
        )

    def advise(self) -> str:
        if self.options.get("framework"):
            name = self.options["framework"]
            return (
                f"Build the code on {name}: import it and write what makes it a {name} program "
                "(e.g. its app or router with routes, its base class or decorators), not only "
                "an import."
            )
        return (
            f"Build the code on {listed(self.options.get('imports', ()))}: import it and use "
            "its base classes, decorators or calls as the task's framework pattern says."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        modules = ctx.modules()
        scripts = ctx.js_modules()
        path = (modules or scripts)[0].relpath if modules or scripts else None
        python, js = self.framework, self.js_framework
        imported = python is not None and any(
            imports_module(site.module, wanted)
            for module in modules
            for site in import_sites(module)
            for wanted in python.imports
        )
        imported = imported or (
            js is not None
            and any(
                js_imports_module(site.specifier, wanted)
                for module in scripts
                for site in js_imports(module)
                for wanted in js.imports
            )
        )
        findings: list[Finding] = []
        if not imported:
            findings.append(Finding(f"{self.label} is never imported", _RULE, path, 1))
        used = python is not None and any(
            True for module in modules for _ in pattern_sites(module, python)
        )
        if js is not None and scripts and not used:
            code = JsCode(scripts, ctx.unit)
            used = any(True for read in code.code.values() for _ in js_pattern_sites(read, js))
        if not used:
            shown: Framework | JsFramework | None = python
            if js is not None and (python is None or (scripts and not modules)):
                shown = js
            expected = shown.describe() if shown is not None else ""
            findings.append(
                Finding(
                    f"the code does not use {self.label} as a framework: expected {expected}",
                    _RULE,
                    path,
                    1,
                )
            )
        return findings

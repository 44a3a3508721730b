"""Node web frameworks as the `framework` check reads them: what importing one is, and
the pattern that makes code an app of it. Names are qualified by package
(`js_code.JsNames.qualified`): `express.Router` for `import { Router } from "express"`
or `express.Router()` after `import express from "express"`; a pattern ending in `.*`
matches every name below it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_code import JsModuleCode, calls
from pytest_codeif.checks.shared.js_data_access import bases

if TYPE_CHECKING:
    from ast_grep_py import SgNode


@dataclass(frozen=True)
class JsFramework:
    """What using a Node framework means: importing one of `imports` and making one
    of its objects (`calls`: a call or `new`), extending one of its classes
    (`subclass`) or decorating with one of its decorators (`decorator`)."""

    imports: tuple[str, ...]
    calls: tuple[str, ...] = ()
    subclass: tuple[str, ...] = ()
    decorator: tuple[str, ...] = ()

    def describe(self) -> str:
        parts = [f"a call of {c}" for c in self.calls[:3]]
        parts += [f"a subclass of {s}" for s in self.subclass[:2]]
        parts += [f"a @{d} decorator" for d in self.decorator[:2]]
        return "; or ".join(parts)


JS_FRAMEWORKS: Final[dict[str, JsFramework]] = {
    "express": JsFramework(("express",), calls=("express", "express.Router", "express.default")),
    "fastify": JsFramework(
        ("fastify", "fastify-plugin"),
        calls=("fastify", "fastify.fastify", "fastify.default", "fastify-plugin"),
    ),
    "hono": JsFramework(("hono",), calls=("hono.Hono",)),
    "koa": JsFramework(
        ("koa", "@koa/router", "koa-router"),
        calls=("koa", "koa.default", "@koa/router", "koa-router", "koa-router.default"),
    ),
    "nestjs": JsFramework(
        ("@nestjs/core", "@nestjs/common"),
        calls=("@nestjs/core.NestFactory.create",),
        decorator=(
            "@nestjs/common.Controller",
            "@nestjs/common.Module",
            "@nestjs/common.Injectable",
        ),
    ),
}


def hit(name: str | None, patterns: Sequence[str]) -> bool:
    """Whether the qualified `name` is one of `patterns` (`pkg.*`: below `pkg`)."""
    if name is None:
        return False
    return any(name.startswith(p[:-1]) if p.endswith(".*") else name == p for p in patterns)


def js_pattern_sites(code: JsModuleCode, framework: JsFramework) -> Iterator[SgNode]:
    """Nodes of `code` where the framework's defining pattern appears."""
    module, names = code.module, code.names
    if framework.calls:
        for call, callee in calls(module):
            if hit(names.qualified(callee), framework.calls):
                yield call
    if framework.subclass or framework.decorator:
        for node in module.nodes("class_declaration", "class", "abstract_class_declaration"):
            if any(hit(names.qualified(b), framework.subclass) for b in bases(node)):
                yield node
        for decorator in module.nodes("decorator"):
            inner = decorator.named_children()
            target = inner[0] if inner else None
            if target is not None and target.kind() == "call_expression":
                target = target.field("function")
            if hit(names.qualified(target), framework.decorator):
                yield decorator

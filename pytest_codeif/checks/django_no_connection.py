"""The `django-no-connection` check: Django views do not touch the raw database
connection."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.web_routes import DRIVER_CONNECTS, Project, free_names, shown
from pytest_codeif.code.cst import ParsedModule

_CONNECTIONS: Final = frozenset({"django.db.connection", "django.db.connections"})
#: Methods that open a raw cursor or connection, whatever they are called on.
_CURSOR_METHODS: Final = frozenset({"cursor", "raw_connection"})
_VIEW_BASES: Final = (
    "django.views.*",
    "rest_framework.views.APIView",
    "rest_framework.viewsets.*",
    "rest_framework.generics.*",
)
_VIEW_DECORATORS: Final = (
    "django.views.decorators.",
    "django.contrib.auth.decorators.",
    "django.contrib.admin.views.decorators.",
    "rest_framework.decorators.api_view",
)


def is_views_module(module: ParsedModule) -> bool:
    """A module named `views` or inside a `views` package (`blog.views`,
    `blog.views.admin`; a file `views.py` when the code has no package)."""
    if module.place is not None:
        parts = module.place.name.split(".")
    else:
        parts = module.relpath.removesuffix(".py").split("/")
    return "views" in parts


class DjangoConnectionCheck(Check):
    """Django views do not touch the raw database connection: no `connection`,
    `connections[...]` or `.cursor()` in view code.

    Why: views that open cursors bypass the ORM (and the model layer's rules,
    validation, signals and query logging) and tie request handling to one database's
    SQL. "Views query through the models" is decided from the view's own code: any use
    of `django.db.connection` or `django.db.connections` (however imported: `from
    django import db; db.connections["trac"]` counts), any `.cursor()` or
    `.raw_connection()` call, whatever it is called on, and any use of a module-level
    cursor or connection (`cursor = db.cursor()` or `db = mysql.connector.connect(...)`
    at the top of a module, here or imported).

    View code is, with `views-only: true` (the default): every statement of a module
    named `views` or inside a `views` package (`blog/views.py`, `blog/views/admin.py`;
    helpers in it count as view code), plus, in any other module in scope, class-based
    views (subclasses of `django.views` classes or Django REST framework's `APIView`,
    viewsets and generic views, followed through the project's own bases), functions a
    `path()`/`re_path()`/`url()` anywhere in the project routes to, and functions
    decorated by Django's view decorators (`login_required`, `require_http_methods`,
    `csrf_exempt`...) or DRF's `@api_view`. With `views-only: false`, all code in
    scope is judged (for rule files that scope it themselves: `modules: [shop.web]`).

    What it does not follow: functions the view calls (a manager or repository method
    running raw SQL is the data layer's business: forbid it there with `raw-sql`), a
    cursor reached through an object's attribute chain that never names the connection
    and never calls `.cursor()` (`self.conn.execute(...)`), and `Model.objects.raw()`
    (raw SQL through the ORM: the `raw-sql` check's).

    Options: `views-only` (default true).

    Example:

        - check: django-no-connection
          exclude-modules: [reports.views.legacy]
    """

    name = "django-no-connection"
    category = "Code Quality"
    advice = (
        "Query through the models (`Model.objects.filter(...)`, annotations, aggregates) instead "
        "of a connection or cursor in the view; where raw SQL is unavoidable, move it into a "
        "model manager or repository function that the view calls."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"views-only": {"type": "boolean"}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            {
                "shop/__init__.py": "",
                "shop/models.py": """
                    from django.db import connection, models

                    class OrderManager(models.Manager):
                        def totals(self):
                            with connection.cursor() as cursor:
                                cursor.execute("SELECT SUM(total) FROM shop_order")
                                return cursor.fetchone()

                    class Order(models.Model):
                        total = models.IntegerField()
                        objects = OrderManager()
                    """,
                "shop/views.py": """
                    from django.db import transaction
                    from django.http import JsonResponse

                    from shop.models import Order

                    def totals(request):
                        with transaction.atomic():
                            return JsonResponse({"total": Order.objects.totals()})

                    def export(request, db):
                        return JsonResponse({"rows": db.connection_count})
                    """,
            },
        ),
        Sample(
            """
            import sqlite3

            def migrate(path):
                with sqlite3.connect(path) as conn:
                    conn.cursor().execute("VACUUM")
            """,
        ),
    )
    violated_by = (
        Sample(
            {
                "tracker/__init__.py": "",
                "tracker/views.py": """
                    from django import db
                    from django.shortcuts import render

                    def bouncing(request):
                        cursor = db.connections["trac"].cursor()
                        cursor.execute("SELECT * FROM bouncing")
                        return render(request, "t.html", {"rows": cursor.fetchall()})
                    """,
            },
            message='`bouncing` uses Django\'s raw connection (`db.connections["trac"].cursor()`)',
        ),
        Sample(
            {
                "shop/__init__.py": "",
                "shop/urls.py": """
                    from django.urls import path

                    from shop import pages

                    urlpatterns = [path("report/", pages.report)]
                    """,
                "shop/pages.py": """
                    from django.db import connection
                    from django.http import JsonResponse
                    from django.views import View

                    def report(request):
                        return JsonResponse({"vendor": connection.vendor})

                    class Stats(View):
                        def get(self, request):
                            with connection.cursor() as cursor:
                                cursor.execute("SELECT 1")
                            return JsonResponse({})
                    """,
            },
            message="`report` uses Django's raw connection (`connection.vendor`)",
        ),
        Sample(
            """
            from django.contrib.auth.decorators import login_required
            from django.db import connections

            @login_required
            def dashboard(request):
                rows = connections["default"].cursor().fetchall()
                return rows
            """,
            message="`dashboard` uses Django's raw connection",
        ),
        Sample(
            """
            from django.db import connection

            def nightly():
                connection.close()
            """,
            {"views-only": False},
            message="`nightly` uses Django's raw connection (`connection.close()`)",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        project = Project(ctx)
        views_only = bool(self.options.get("views-only", True))
        routed = self._routed(project) if views_only else set()
        findings: list[Finding] = []
        for module in project.scoped:
            if not views_only or is_views_module(module):
                regions: list[cst.CSTNode] = [module.tree]
            else:
                regions = list(self._views(project, module, routed))
            for region in regions:
                findings.extend(
                    ctx.report(module, node, message)
                    for node, message in self._uses(module, region)
                )
                findings.extend(
                    ctx.report(module, node, message)
                    for node, message in self._shared(project, module, region)
                )
        return sorted(findings, key=lambda f: (f.path or "", f.line or 0))

    def _routed(self, project: Project) -> set[int]:
        """The function views that URL patterns anywhere in the project route to."""
        return {
            id(site.handler[1])
            for module in project.modules_containing("path(", "url(")
            for site in project.routes(module, routers=False)
            if site.framework == "django" and site.handler is not None
        }

    def _views(
        self, project: Project, module: ParsedModule, routed: set[int]
    ) -> Iterator[cst.CSTNode]:
        inside: set[int] = set()
        for _, node in module.definitions:
            if id(node) in inside:
                continue
            if isinstance(node, cst.ClassDef):
                is_view = bool(project.inherits(module, node, _VIEW_BASES))
            else:
                is_view = id(node) in routed or any(
                    name.startswith(_VIEW_DECORATORS)
                    for decorator in node.decorators
                    for name in module.qualified(
                        decorator.decorator.func
                        if isinstance(decorator.decorator, cst.Call)
                        else decorator.decorator
                    )
                )
            if is_view:
                inside.update(id(n) for n in module.walk(node))
                yield node

    def _uses(self, module: ParsedModule, region: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, str]]:
        nodes = module.walk(region)
        skipped: set[int] = set()
        for node in nodes:
            if isinstance(node, (cst.Import, cst.ImportFrom)):
                skipped.update(id(n) for n in module.walk(node))
            elif isinstance(node, cst.Attribute):
                skipped.add(id(node.attr))
            elif isinstance(node, cst.Arg) and node.keyword is not None:
                skipped.add(id(node.keyword))
        for node in nodes:
            if id(node) in skipped:
                continue
            if isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Attribute) and func.attr.value in _CURSOR_METHODS:
                    raw = any(
                        module.qualified(n) & _CONNECTIONS
                        for n in module.nodes(cst.Name, cst.Attribute, within=func.value)
                        if id(n) not in skipped
                    )
                    what = "uses Django's raw connection" if raw else "opens a cursor"
                    yield node, f"{_owner(module, node)} {what} (`{shown(node, 60)}`)" + _HINT
                    skipped.update(id(n) for n in module.walk(node))
            elif (
                isinstance(node, (cst.Name, cst.Attribute))
                and module.qualified(node) & _CONNECTIONS
            ):
                parent = _outermost(nodes, node)
                yield (
                    node,
                    (
                        f"{_owner(module, node)} uses Django's raw connection "
                        f"(`{shown(parent, 60)}`)" + _HINT
                    ),
                )
                skipped.update(id(n) for n in module.walk(node))

    def _shared(
        self, project: Project, module: ParsedModule, region: cst.CSTNode
    ) -> Iterator[tuple[cst.CSTNode, str]]:
        """Module-level cursors and connections (`cursor = db.cursor()` at the top of the
        module, or imported) that the functions of `region` use."""
        inside = {id(n) for n in module.walk(region)}
        for function in module.nodes(cst.FunctionDef, within=region):
            for name in free_names(module, function):
                binding = project.bound(module, name.value)
                if binding is None or not isinstance(binding.node, cst.Call):
                    continue
                if binding.module is module and id(binding.node) in inside:
                    continue  # made in the region itself: reported where it is made
                if self._is_raw(binding.module, binding.node):
                    made = shown(binding.node, 50)
                    where = (
                        binding.where
                        if binding.module is not module
                        else (f"line {binding.module.line_of(binding.node)}")
                    )
                    yield (
                        name,
                        (
                            f"{_owner(module, name)} uses the module-level `{name.value}` "
                            f"(`{made}`, {where})" + _HINT
                        ),
                    )

    @staticmethod
    def _is_raw(module: ParsedModule, call: cst.Call) -> bool:
        """Whether `call` makes a cursor or a raw connection."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _CURSOR_METHODS:
            return True
        names = module.qualified(func)
        return bool(names & DRIVER_CONNECTS) or any(
            n.startswith(("django.db.connection.", "django.db.connections.")) for n in names
        )


_HINT: Final = ": query through the ORM (a model's manager)"


def _owner(module: ParsedModule, node: cst.CSTNode) -> str:
    """`name` of the function `node` is in (`Class.method` for a method), or "module-level
    code"."""
    scope = module.scope_of(node)
    while scope is not None and not isinstance(scope, cst.FunctionDef):
        scope = module.scope_of(scope)
    if scope is None:
        return "module-level code"
    owner = module.scope_of(scope)
    if isinstance(owner, cst.ClassDef):
        return f"`{owner.name.value}.{scope.name.value}`"
    return f"`{scope.name.value}`"


def _outermost(nodes: list[cst.CSTNode], node: cst.CSTNode) -> cst.CSTNode:
    """The largest attribute access, call or subscript built on `node`
    (`connections["x"].cursor()` for `connections`), to show the use in a message;
    `nodes` are the region's nodes, parents first."""
    for candidate in nodes:
        current: cst.CSTNode = candidate
        while isinstance(current, (cst.Attribute, cst.Call, cst.Subscript)):
            if current is node:
                return candidate
            current = current.func if isinstance(current, cst.Call) else current.value
        if current is node:
            return candidate
    return node

"""Framework conventions (`routes`, `fastapi-bodies`, `session-injection`,
`django-no-connection`) and the typed public API (`public-api`): beyond their samples
(proven in test_check_samples.py), the near misses they must not report, what they cannot
see, and one project run end to end with scope keys."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_codeif import Check, Sample
from pytest_codeif.checks.django_no_connection import DjangoConnectionCheck
from pytest_codeif.checks.fastapi_bodies import FastapiBodiesCheck
from pytest_codeif.checks.public_api import PublicApiCheck, exports
from pytest_codeif.checks.routes import RoutesCheck
from pytest_codeif.checks.session_injection import SessionInjectionCheck
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.outcome import Verdict
from pytest_codeif.testing import sample_verdict
from tests.conftest import FIXTURES, copy_into


def verdict(
    check: type[Check], code: str | Mapping[str, str], tmp_path: Path, **options: Any
) -> Verdict:
    return sample_verdict(check, Sample(code, options), tmp_path)


def messages(result: Verdict) -> list[str]:
    assert result.status != "error", result.error
    return [e.message for e in result.evidence]


# -- routes -----------------------------------------------------------------------------


def test_routes_follow_the_app_through_factories_subclasses_and_parameters(
    tmp_path: Path,
) -> None:
    code = """
        from fastapi import APIRouter, FastAPI
        from flask import Flask
        from starlette.routing import Route

        class VersionedRouter(APIRouter):
            pass

        v2 = VersionedRouter(prefix="/v2")

        @v2.get("/ping")
        def ping() -> str:
            return "pong"

        def register(app: FastAPI) -> None:
            app.add_api_route("/health", ping, methods=["GET"])

        def make_flask():
            web = Flask(__name__)

            @web.route("/")
            def home():
                return "hi"

            return web

        routes = [Route("/raw", ping)]
        """
    found = messages(verdict(RoutesCheck, code, tmp_path))
    assert found == [
        'router created: `VersionedRouter(prefix="/v2")` (FastAPI)',
        'route `ping` declared: `@v2.get("/ping")` (FastAPI)',
        'route `ping` declared: `app.add_api_route("/health", ping, methods=["GET"])` (FastAPI)',
        'route `home` declared: `@web.route("/")` (Flask)',
        'route `ping` declared: `Route("/raw", ping)` (FastAPI)',
    ]


def test_an_object_the_check_cannot_follow_counts_by_its_url_literal(tmp_path: Path) -> None:
    code = """
        from fastapi import Depends
        from app.factory import make_router

        api = make_router()

        @api.post("/items")
        def create() -> None:
            pass

        @api.post(PATH)
        def other() -> None:
            pass

        @api.get("items")
        def relative() -> None:
            pass
        """
    found = messages(verdict(RoutesCheck, code, tmp_path))
    assert found == ['route `create` declared: `@api.post("/items")` (FastAPI)']


def test_wiring_app_objects_and_lookalikes_are_not_routes(tmp_path: Path) -> None:
    code = """
        from fastapi import FastAPI
        from flask import Blueprint, Flask
        from django.urls import include

        from app.api import router, bp

        app = FastAPI()
        app.include_router(router, prefix="/api")
        app.mount("/static", object())
        web = Flask(__name__)
        web.register_blueprint(bp)
        commands = Blueprint("cli", __name__, cli_group=None)
        errors = Blueprint("errors", __name__)

        @commands.cli.command("seed")
        def seed():
            pass

        @errors.app_errorhandler(404)
        def not_found(error):
            return "missing", 404

        @app.middleware("http")
        async def timing(request, call_next):
            return await call_next(request)

        patterns = include("blog.urls")
        config = {"get": "/items"}
        value = config.get("/items")
        """
    assert messages(verdict(RoutesCheck, code, tmp_path)) == []


def test_routes_options_select_frameworks_routers_and_views(tmp_path: Path) -> None:
    code = """
        from django.urls import path
        from flask import Blueprint
        from rest_framework import routers, viewsets

        bp = Blueprint("shop", __name__)

        @bp.get("/")
        def index():
            return "hi"

        class Users(viewsets.ModelViewSet):
            pass

        router = routers.DefaultRouter()
        router.register("users", Users)
        urlpatterns = [path("", index)]
        """
    everything = messages(verdict(RoutesCheck, code, tmp_path, views=True))
    assert len(everything) == 6, everything
    assert "class-based view declared: `Users` (Django)" in everything
    assert 'route declared: `router.register("users", Users)` (Django)' in everything
    django_only = messages(verdict(RoutesCheck, code, tmp_path, frameworks=["django"]))
    assert django_only == [
        "router created: `routers.DefaultRouter()` (Django)",
        'route declared: `router.register("users", Users)` (Django)',
        'URL pattern declared: `path("", index)` (Django)',
    ]
    no_routers = messages(verdict(RoutesCheck, code, tmp_path, routers=False))
    assert not any(m.startswith("router created") for m in no_routers)


# -- fastapi-bodies -----------------------------------------------------------------------


def test_bodies_read_as_fastapi_reads_parameters(tmp_path: Path) -> None:
    code = """
        from typing import Annotated, Any, Optional

        from fastapi import Body, FastAPI, File, Form, Header, UploadFile
        from fastapi.responses import HTMLResponse, StreamingResponse
        from pydantic import BaseModel
        from vendor.schemas import External

        class Item(BaseModel):
            name: str

        app = FastAPI()

        @app.post("/a/{slug}")
        def a(
            slug,
            item: Annotated[Item, Body(embed=True)],
            items: list[Item],
            maybe: Optional[Item],
            ext: External,
            upload: UploadFile = File(...),
            note: str = Form(""),
            agent: Annotated[str | None, Header()] = None,
            page=1,
        ) -> list[Item]:
            return items

        @app.get("/b", response_class=HTMLResponse)
        def b():
            return "<p>"

        @app.get("/c")
        def c() -> StreamingResponse:
            return StreamingResponse(iter([]))

        @app.post("/d", response_model=None)
        def d(item: Item) -> HTMLResponse:
            return HTMLResponse("ok")

        @app.post("/e")
        def e(item: Item):
            print(item)
        """
    assert messages(verdict(FastapiBodiesCheck, code, tmp_path)) == []


def test_what_is_not_a_model_is_named(tmp_path: Path) -> None:
    code = """
        from typing import Any

        from fastapi import FastAPI

        app = FastAPI()

        @app.post("/a")
        def a(tags: list[str], blob: Any, opts: dict | None = None) -> Any:
            return {"tags": tags}
        """
    found = messages(verdict(FastapiBodiesCheck, code, tmp_path))
    assert found == [
        "request body `tags: list[str]` of `a` is not a pydantic model (FastAPI reads a list "
        "as the body; a query list needs `Query()`)",
        "parameter `blob` of `a` (POST) is typed `Any`: FastAPI reads it as a query string; "
        "a request body must be a pydantic model",
        "request body `opts: dict | None = None` of `a` is not a pydantic model",
        "response of `a` is not a pydantic model: it returns `Any`",
    ]


def test_scalar_responses_may_be_allowed_and_requests_or_responses_skipped(
    tmp_path: Path,
) -> None:
    code = """
        from fastapi import FastAPI

        app = FastAPI()

        @app.get("/health")
        def health() -> bool:
            return True

        @app.post("/echo")
        def echo(body: dict) -> dict:
            return body
        """
    allowed = messages(
        verdict(FastapiBodiesCheck, code, tmp_path, **{"allow-scalar-responses": True})
    )
    assert [m.split(":")[0] for m in allowed] == [
        "request body `body",
        "response of `echo` is not a pydantic model",
    ]
    assert messages(verdict(FastapiBodiesCheck, code, tmp_path, response=False)) == [
        "request body `body: dict` of `echo` is not a pydantic model"
    ]
    assert len(messages(verdict(FastapiBodiesCheck, code, tmp_path, request=False))) == 2


# -- session-injection --------------------------------------------------------------------


def test_sessions_made_in_handlers_in_every_form(tmp_path: Path) -> None:
    code = """
        import sqlite3

        from fastapi import APIRouter
        from sqlalchemy import create_engine
        from sqlalchemy.orm import Session

        from app.database import async_session, get_db

        router = APIRouter()
        engine = create_engine("sqlite://")

        @router.get("/a")
        def a():
            with Session(engine) as s:
                return s.scalar(1)

        @router.get("/b")
        def b():
            with engine.connect() as conn:
                return conn.execute(1)

        @router.get("/c")
        async def c():
            async with async_session() as s:
                return await s.scalar(1)

        @router.get("/d")
        def d():
            return sqlite3.connect("x.db").execute("SELECT 1").fetchall()
        """
    found = messages(verdict(SessionInjectionCheck, code, tmp_path))
    assert found == [
        "`a` creates a session (`Session(engine)`) itself: receive it with `Depends(...)` instead",
        "`b` opens a connection (`engine.connect()`) itself: receive it with `Depends(...)` "
        "instead",
        "`c` creates a session (`async_session()`) itself: receive it with `Depends(...)` instead",
        '`d` opens a connection (`sqlite3.connect("x.db")`) itself: receive it with '
        "`Depends(...)` instead",
    ]


def test_a_dependency_called_by_hand_is_followed(tmp_path: Path) -> None:
    code = """
        from fastapi import FastAPI
        from sqlalchemy.orm import sessionmaker

        SessionLocal = sessionmaker()
        app = FastAPI()

        def get_db():
            db = SessionLocal()
            try:
                yield db
            finally:
                db.close()

        @app.get("/users")
        def users():
            db = next(get_db())
            return db.query("User").all()
        """
    found = messages(verdict(SessionInjectionCheck, code, tmp_path))
    assert found == [
        "`users` calls `get_db`, which creates a session (`SessionLocal()`, line 8): receive "
        "the session with `Depends(...)` and pass it on"
    ]


def test_shared_engines_and_factories_are_fine_only_sessions_are_not(tmp_path: Path) -> None:
    code = """
        from fastapi import Depends, FastAPI
        from sqlalchemy import create_engine
        from sqlalchemy.orm import Session, sessionmaker

        engine = create_engine("sqlite://")
        SessionLocal = sessionmaker(bind=engine)
        app = FastAPI()

        def get_db():
            with SessionLocal() as db:
                yield db

        @app.get("/dialect")
        def dialect(db: Session = Depends(get_db)) -> str:
            return engine.dialect.name + str(SessionLocal.kw)
        """
    assert messages(verdict(SessionInjectionCheck, code, tmp_path)) == []


def test_a_helper_using_a_module_level_connection_is_followed(tmp_path: Path) -> None:
    code = """
        import sqlite3

        from fastapi import FastAPI

        app = FastAPI()
        conn = sqlite3.connect("app.db")
        cache = {}

        def count_users() -> int:
            return conn.execute("SELECT COUNT(*) FROM users").fetchone()[0]

        @app.get("/users/count")
        def users_count() -> int:
            cache["n"] = count_users()
            return cache["n"]
        """
    assert messages(verdict(SessionInjectionCheck, code, tmp_path)) == [
        "`users_count` calls `count_users`, which uses the module-level `conn`, which opens "
        'a connection (`sqlite3.connect("app.db")`, line 6): receive the session with '
        "`Depends(...)` and pass it on"
    ]


# -- django-no-connection -----------------------------------------------------------------


def test_views_outside_views_modules_are_found_by_base_decorator_and_url(
    tmp_path: Path,
) -> None:
    project = {
        "site/__init__.py": "",
        "site/urls.py": """
            from django.urls import path

            from site.pages import about

            urlpatterns = [path("about/", about)]
            """,
        "site/pages.py": """
            from django.db import connection
            from rest_framework.views import APIView

            def about(request):
                return connection.vendor

            def helper():
                return connection.vendor

            class Stats(APIView):
                def get(self, request):
                    return self.connection.cursor

            class Base(APIView):
                pass

            class Report(Base):
                def get(self, request):
                    return connection.queries
            """,
    }
    found = messages(verdict(DjangoConnectionCheck, project, tmp_path))
    assert found == [
        "`about` uses Django's raw connection (`connection.vendor`): query through the ORM "
        "(a model's manager)",
        "`Report.get` uses Django's raw connection (`connection.queries`): query through the "
        "ORM (a model's manager)",
    ]


def test_a_module_level_cursor_used_by_a_view(tmp_path: Path) -> None:
    code = """
        import mysql.connector
        from django.http import JsonResponse
        from django.views import View

        db = mysql.connector.connect(host="localhost")
        cursor = db.cursor()

        class Feedback(View):
            def post(self, request):
                cursor.execute("INSERT INTO feedback VALUES (1)")
                db.commit()
                return JsonResponse({})

        def report():
            return cursor.fetchall()
        """
    assert messages(verdict(DjangoConnectionCheck, code, tmp_path)) == [
        "`Feedback.post` uses the module-level `cursor` (`db.cursor()`, line 6): query "
        "through the ORM (a model's manager)",
        '`Feedback.post` uses the module-level `db` (`mysql.connector.connect(host="localhost")`, '
        "line 5): query through the ORM (a model's manager)",
    ]


# -- public-api ---------------------------------------------------------------------------


def test_what_is_public(tmp_path: Path) -> None:
    project = {
        "lib/__init__.py": "",
        "lib/_internal/__init__.py": "",
        "lib/_internal/util.py": "def hidden(x):\n    return x\n",
        "lib/api.py": """
            class Client:
                class Config:
                    def load(self, path):
                        return path

                class _Secret:
                    def reveal(self, key):
                        return key

                @classmethod
                def create(cls, url: str) -> "Client":
                    return cls()

                @staticmethod
                def parse(text) -> int:
                    return int(text)

                @property
                def name(self) -> str:
                    return "c"

                @name.setter
                def name(self, value) -> None:
                    pass

                def __eq__(self, other) -> bool:
                    return True

                def __private(self, x):
                    return x
            """,
    }
    found = messages(verdict(PublicApiCheck, project, tmp_path))
    assert found == [
        "public function `lib.api.Client.Config.load` lacks annotations: parameter `path`, "
        "the return type",
        "public function `lib.api.Client.parse` lacks annotations: parameter `text`",
        "public function `lib.api.Client.name` lacks annotations: parameter `value`",
        "public function `lib.api.Client.__eq__` lacks annotations: parameter `other`",
    ]
    functions_only = messages(
        verdict(PublicApiCheck, project, tmp_path, **{"include-methods": False})
    )
    assert functions_only == []


def test_dunder_all_forms_and_a_computed_one(tmp_path: Path) -> None:
    project = {
        "pkg/__init__.py": "",
        "pkg/mod.py": """
            from pkg import base

            __all__ = base.__all__ + ["extra"]

            def extra(x):
                return x

            def _hidden(y):
                return y
            """,
    }
    result = verdict(PublicApiCheck, project, tmp_path)
    assert messages(result) == [
        "public function `pkg.mod.extra` lacks annotations: parameter `x`, the return type"
    ]
    assert result.notes == (
        "pkg/mod.py: `__all__` is computed, not a list of strings: its public "
        "names are judged by their leading underscore instead",
    )


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ("__all__ = ['a', 'b']\n", {"a", "b"}),
        ("__all__: list[str] = ('a',)\n__all__ += ['b']\n__all__.append('c')\n", {"a", "b", "c"}),
        ("__all__ = ['a'] + ['b']\n__all__.extend(['c'])\n", {"a", "b", "c"}),
        ("x = 1\n", None),
    ],
)
def test_dunder_all_is_read_statically(source: str, names: set[str] | None) -> None:
    module = ParsedModule(SourceFile("mod.py", source, Path("mod.py")))
    found = exports(module)
    assert found.names == (frozenset(names) if names is not None else None)
    assert not found.computed


def test_annotations_none_needs_docstrings(tmp_path: Path) -> None:
    result = verdict(PublicApiCheck, "def f(x):\n    return x\n", tmp_path, annotations="none")
    assert result.status == "error"
    assert result.error_kind == "invalid-task"


# -- end to end ---------------------------------------------------------------------------


def test_conventions_on_projects_with_scope_keys(pytester: pytest.Pytester) -> None:
    copy_into(pytester, FIXTURES / "conventions" / "shop")
    copy_into(pytester, FIXTURES / "conventions" / "blog")
    copy_into(pytester, FIXTURES / "conventions" / "notes")
    copy_into(pytester, FIXTURES / "conventions" / "conventions.codeif.yaml")
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    by_id = {(t["id"], c["constraint"]): c for t in report["tasks"] for c in t["constraints"]}
    status = {key: c["status"] for key, c in by_id.items()}
    assert status == {
        ("shop", "routes"): "violated",
        ("shop", "fastapi-bodies"): "violated",
        ("shop", "session-injection"): "violated",
        ("shop", "public-api"): "violated",
        ("shop", "api-typed"): "satisfied",
        ("blog", "routes"): "satisfied",
        ("blog", "django-no-connection"): "violated",
        ("blog", "no-connection-anywhere"): "violated",
        ("notes", "routes"): "violated",
    }
    where = {
        key: [(e["path"], e["line"], e["message"]) for e in c["evidence"]]
        for key, c in by_id.items()
    }
    assert where[("shop", "routes")] == [
        ("shop/app/services/orders.py", 6, "router created: `APIRouter()` (FastAPI)"),
        (
            "shop/app/services/orders.py",
            27,
            'route `order_stats` declared: `@router.get("/orders/stats")` (FastAPI)',
        ),
    ]
    assert [(p, line) for p, line, _ in where[("shop", "fastapi-bodies")]] == [
        ("shop/app/api/orders.py", 10),
        ("shop/app/api/orders.py", 11),
        ("shop/app/api/orders.py", 16),
        ("shop/app/api/orders.py", 16),
    ]
    assert where[("shop", "session-injection")] == [
        (
            "shop/app/api/orders.py",
            12,
            "`create_order` calls `place_order`, which creates a session (`SessionLocal()`, "
            "app/services/orders.py:21): receive the session with `Depends(...)` and pass it on",
        ),
        (
            "shop/app/api/orders.py",
            17,
            "`update_order` creates a session (`SessionLocal()`) itself: receive it with "
            "`Depends(...)` instead",
        ),
    ]
    assert where[("shop", "public-api")] == [
        (
            "shop/app/services/_pricing.py",
            4,
            "public function `app.services._pricing.price_with_tax` lacks annotations: "
            "parameter `price`, the return type",
        ),
        (
            "shop/app/services/orders.py",
            20,
            "public function `app.services.orders.place_order` lacks annotations: "
            "parameter `notify`, the return type",
        ),
    ]
    assert [(p, line) for p, line, _ in where[("blog", "django-no-connection")]] == [
        ("blog/blog/feeds.py", 9),
        ("blog/blog/views.py", 13),
    ]
    assert [(p, line) for p, line, _ in where[("blog", "no-connection-anywhere")]] == [
        ("blog/blog/feeds.py", 9),
        ("blog/blog/feeds.py", 22),
        ("blog/blog/views.py", 13),
    ]
    assert where[("notes", "routes")] == [
        (
            "notes/notes/__init__.py",
            16,
            'route `health` declared: `app.add_url_rule("/health", view_func=health)` (Flask)',
        )
    ]
    result.assert_outcomes(passed=2, failed=7)

"""The `session-injection` check: FastAPI handlers receive their database session through
dependency injection, never make one."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.fastapi_types import FastapiTypes
from pytest_codeif.checks.shared.web_routes import (
    DRIVER_CONNECTS,
    MAX_DEPTH,
    Binding,
    Project,
    all_params,
    free_names,
    shown,
)
from pytest_codeif.code.cst import ParsedModule

#: FastAPI route declarations whose handler FastAPI injects dependencies into.
HANDLED: Final = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "trace", "api_route"}
    | {"websocket", "add_api_route", "add_api_websocket_route"}
)
_SESSIONS: Final = frozenset(
    {
        "sqlalchemy.orm.Session",
        "sqlalchemy.orm.session.Session",
        "sqlmodel.Session",
        "sqlmodel.orm.session.Session",
        "sqlalchemy.ext.asyncio.AsyncSession",
        "sqlalchemy.ext.asyncio.session.AsyncSession",
        "sqlmodel.ext.asyncio.session.AsyncSession",
    }
)
_SESSION_FACTORIES: Final = frozenset(
    {
        "sqlalchemy.orm.sessionmaker",
        "sqlalchemy.orm.session.sessionmaker",
        "sqlalchemy.orm.scoped_session",
        "sqlalchemy.orm.scoping.scoped_session",
        "sqlalchemy.ext.asyncio.async_sessionmaker",
        "sqlalchemy.ext.asyncio.async_scoped_session",
    }
)
_ENGINES: Final = frozenset(
    {
        "sqlalchemy.create_engine",
        "sqlalchemy.engine.create_engine",
        "sqlmodel.create_engine",
        "sqlalchemy.ext.asyncio.create_async_engine",
    }
)
#: Connection and session classes a handler parameter may be typed with.
_CONNECTION_TYPES: Final = _SESSIONS | frozenset(
    {
        "sqlite3.Connection",
        "sqlalchemy.engine.Connection",
        "sqlalchemy.Connection",
        "sqlalchemy.ext.asyncio.AsyncConnection",
        "asyncpg.Connection",
        "asyncpg.connection.Connection",
        "psycopg.Connection",
        "psycopg.AsyncConnection",
        "psycopg2.extensions.connection",
    }
)
_ENGINE_METHODS: Final = frozenset({"connect", "begin", "raw_connection"})
_ENGINE_NAME: Final = re.compile(r"(?i)(^|_)engine$")
#: Names a session factory goes by, when the check cannot see where it is made (it is
#: imported from a module outside the code): `SessionLocal()`, `async_session()`.
_FACTORY_NAME: Final = re.compile(
    r"^(SessionLocal|Session(Maker|Factory)|(async_)?session_?(local|maker|factory)"
    r"|async_session|AsyncSessionLocal)$"
)


#: What a call of these (resolved) names makes.
_MADE_BY_NAME: Final = (
    (_SESSIONS, "creates a session"),
    (DRIVER_CONNECTS, "opens a connection"),
    (_ENGINES, "creates an engine"),
    (_SESSION_FACTORIES, "creates a session factory"),
)


#: What a module-level value may not be, when a handler uses it.
_SHARED: Final = frozenset({"creates a session", "opens a connection"})


@dataclass(frozen=True)
class Creation:
    """A session, connection or engine made: the node, what it makes, where."""

    module: ParsedModule
    node: cst.CSTNode
    what: str

    def describe(self) -> str:
        return f"{self.what} (`{shown(self.node, 50)}`)"

    def where(self, seen_from: ParsedModule) -> str:
        """`line N` in the module the finding is in, else `path:line`."""
        line = self.module.line_of(self.node)
        return f"line {line}" if self.module is seen_from else f"{self.module.relpath}:{line}"


class SessionInjectionCheck(Check):
    """FastAPI route handlers receive their database session or connection through
    dependency injection (`Depends(get_db)`), never create one themselves.

    Why: a session made in the handler escapes the request's lifecycle (no close on
    error, no rollback, no single transaction per request) and cannot be replaced in
    tests with `app.dependency_overrides`. The dependency (`get_db`, yielding a session)
    is where sessions are made; the handler takes `db: Session = Depends(get_db)` or
    `db: SessionDep` (an `Annotated[Session, Depends(get_db)]` alias).

    Violations, in a handler of a FastAPI route (as the `routes` check finds them):

    - it creates one: `Session(engine)`, `AsyncSession(engine)`, a call of a session
      factory (a name bound to `sessionmaker(...)`/`async_sessionmaker(...)`/
      `scoped_session(...)`, followed through imports; or, when it is imported from
      outside the code, one named like `SessionLocal`/`async_session`),
      `engine.connect()`/`.begin()`/`.raw_connection()` on an engine (made by
      `create_engine` or named `engine`), a driver's `connect` (`sqlite3.connect`,
      `asyncpg.connect`/`create_pool`, `psycopg.connect`...), `create_engine(...)`;
    - it calls a project function that does, or that uses a module-level session or
      connection, at any depth (a service, a helper, the dependency `get_db()` called
      by hand; up to 8 calls deep): reported at the handler's call, naming the chain
      and where the session is made;
    - it uses a module-level session or connection (`db = SessionLocal()` at the top of
      a module, here or imported): one shared by every request;
    - it takes a parameter typed `Session`/`AsyncSession`/a connection with neither
      `Depends(...)` as its default nor in its `Annotated` type: FastAPI cannot fill it.

    Dependencies themselves are not judged (that is where sessions are made), nor are
    functions passed by reference (`background_tasks.add_task(job)`: a background task
    must open its own session). What it cannot see: a session reached through an
    object's method (`self.repo.session()`, `app.state.db`), through `getattr`, or made
    by a factory from a package outside the project under another name.

    Options: none.

    Example:

        - check: session-injection
          modules: [app.api]
    """

    name = "session-injection"
    category = "Code Quality"
    advice = (
        "Take the database session as a handler parameter FastAPI fills, `db: Session = "
        "Depends(get_db)` (or an `Annotated[Session, Depends(get_db)]` alias), and pass it on to "
        "the functions you call, instead of creating a session or connection or using a "
        "module-level one."
    )
    satisfied_by = (
        Sample(
            {
                "app/__init__.py": "",
                "app/db.py": """
                    from sqlalchemy import create_engine
                    from sqlalchemy.orm import sessionmaker

                    engine = create_engine("sqlite:///app.db")
                    SessionLocal = sessionmaker(bind=engine)

                    def get_db():
                        db = SessionLocal()
                        try:
                            yield db
                        finally:
                            db.close()
                    """,
                "app/services.py": """
                    from app.db import SessionLocal

                    def add_user(db, name: str) -> None:
                        db.add(name)

                    def nightly_report() -> None:
                        with SessionLocal() as db:
                            db.execute("SELECT 1")
                    """,
                "app/api.py": """
                    from typing import Annotated

                    from fastapi import APIRouter, BackgroundTasks, Depends
                    from sqlalchemy.orm import Session

                    from app.db import get_db
                    from app.services import add_user, nightly_report

                    router = APIRouter()
                    SessionDep = Annotated[Session, Depends(get_db)]

                    @router.post("/users")
                    def create_user(name: str, db: Session = Depends(get_db)) -> None:
                        add_user(db, name)

                    @router.post("/reports")
                    def report(db: SessionDep, tasks: BackgroundTasks) -> None:
                        tasks.add_task(nightly_report)
                    """,
            },
        ),
    )
    violated_by = (
        Sample(
            """
            from fastapi import FastAPI
            from sqlalchemy import create_engine
            from sqlalchemy.orm import sessionmaker

            engine = create_engine("sqlite:///app.db")
            SessionLocal = sessionmaker(bind=engine)
            app = FastAPI()

            @app.get("/users")
            def list_users():
                db = SessionLocal()
                try:
                    return db.query("User").all()
                finally:
                    db.close()
            """,
            message="`list_users` creates a session (`SessionLocal()`) itself",
        ),
        Sample(
            {
                "app/__init__.py": "",
                "app/repo.py": """
                    import sqlite3

                    def connect():
                        return sqlite3.connect("app.db")

                    def find(user_id: int):
                        with connect() as conn:
                            return conn.execute("SELECT 1").fetchone()
                    """,
                "app/api.py": """
                    from fastapi import APIRouter

                    from app import repo

                    router = APIRouter()

                    @router.get("/users/{user_id}")
                    def read_user(user_id: int):
                        return repo.find(user_id)
                    """,
            },
            message="`read_user` calls `repo.find` -> `connect`, which opens a connection "
            '(`sqlite3.connect("app.db")`, app/repo.py:4)',
        ),
        Sample(
            """
            from fastapi import FastAPI
            from sqlalchemy.orm import Session

            from app.database import SessionLocal

            app = FastAPI()
            db = SessionLocal()

            @app.get("/items")
            def items():
                return db.query("Item").all()

            @app.post("/items")
            def add(name: str, session: Session):
                session.add(name)
            """,
            message="`items` uses the module-level `db`, which creates a session",
        ),
        Sample(
            """
            from fastapi import FastAPI
            from sqlalchemy.orm import Session

            app = FastAPI()

            @app.post("/items")
            def add(name: str, session: Session):
                session.add(name)
            """,
            message="parameter `session: Session` of `add` is not injected",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        finder = _Finder(Project(ctx))
        findings: list[Finding] = []
        seen: set[int] = set()
        for module in finder.project.scoped:
            for site in finder.project.routes(module, routers=False):
                if site.framework != "fastapi" or site.method not in HANDLED or not site.handler:
                    continue
                handler_module, handler = site.handler
                if id(handler) in seen:
                    continue
                seen.add(id(handler))
                findings.extend(
                    ctx.report(handler_module, node, message)
                    for node, message in finder.handler(handler_module, handler)
                )
        return sorted(findings, key=lambda f: (f.path or "", f.line or 0))


class _Finder:
    """Finds sessions made, reached and shared, with caches for one evaluation."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.types = FastapiTypes(project)
        self._reached: dict[int, tuple[list[Binding], Creation] | None] = {}
        self._globals: dict[tuple[int, str], Creation | None] = {}

    def handler(
        self, module: ParsedModule, handler: cst.FunctionDef
    ) -> Iterator[tuple[cst.CSTNode, str]]:
        name = handler.name.value
        yield from self._parameters(module, handler)
        inside: set[int] = set()  # calls within a reported one: `sessionmaker(...)()`
        for call in module.nodes(cst.Call, within=handler.body):
            made = self.creation(module, call) if id(call) not in inside else None
            if made is not None:
                inside.update(id(c) for c in module.nodes(cst.Call, within=call))
                yield (
                    call,
                    (
                        f"`{name}` {made.what} (`{shown(call, 50)}`) itself: receive it with "
                        "`Depends(...)` instead"
                    ),
                )
        for call, callee in self.project.callees(module, handler):
            reached = self.reached(callee, {id(handler)})
            if reached is not None:
                chain, made = reached
                path = " -> ".join(f"`{_label(module, call, b, i)}`" for i, b in enumerate(chain))
                yield (
                    call,
                    (
                        f"`{name}` calls {path}, which {made.what} (`{shown(made.node, 50)}`, "
                        f"{made.where(module)}): receive the session with `Depends(...)` and "
                        "pass it on"
                    ),
                )
        yield from self._shared(module, handler)

    def _parameters(
        self, module: ParsedModule, handler: cst.FunctionDef
    ) -> Iterator[tuple[cst.CSTNode, str]]:
        for param in all_params(handler.params):
            if param.annotation is None:
                continue
            annotation = param.annotation.annotation
            info = self.types.classify(module, annotation)
            if self.types.marker(module, param.default) or info.marker:
                continue
            inner = annotation
            if isinstance(inner, cst.Subscript) and inner.slice:  # Optional[Session]
                first = inner.slice[0].slice
                inner = first.value if isinstance(first, cst.Index) else inner
            names = module.qualified(inner) | module.qualified(annotation)
            if names & _CONNECTION_TYPES:
                written = f"{param.name.value}: {shown(annotation, 40)}"
                yield (
                    param,
                    (
                        f"parameter `{written}` of `{handler.name.value}` is not injected: "
                        "FastAPI cannot fill it; give it `= Depends(get_db)` (or an "
                        "`Annotated[..., Depends(...)]` type)"
                    ),
                )

    def _shared(
        self, module: ParsedModule, handler: cst.FunctionDef
    ) -> Iterator[tuple[cst.CSTNode, str]]:
        for node, made in self._globals_used(module, handler):
            yield (
                node,
                (
                    f"`{handler.name.value}` uses the module-level `{node.value}`, which "
                    f"{made.describe()} at {made.where(module)} and every request shares: "
                    "receive a session with `Depends(...)`"
                ),
            )

    def _globals_used(
        self, module: ParsedModule, function: cst.FunctionDef
    ) -> Iterator[tuple[cst.Name, Creation]]:
        """The module-level sessions and connections `function` uses (here or imported)."""
        for name in free_names(module, function):
            made = self._global(module, name)
            if made is not None:
                yield name, made

    def _global(self, module: ParsedModule, name: cst.Name) -> Creation | None:
        key = (id(module), name.value)
        if key not in self._globals:
            binding = self.project.bound(module, name.value)
            made = None
            if binding is not None and isinstance(binding.node, cst.Call):
                made = self.creation(binding.module, binding.node)
                if made is not None and made.what not in _SHARED:
                    made = None  # an engine or a factory is meant to be shared
            self._globals[key] = made
        return self._globals[key]

    def reached(
        self, callee: Binding, seen: set[int], depth: int = 0
    ) -> tuple[list[Binding], Creation] | None:
        """The first creation `callee` makes or reaches through its calls (at most
        `MAX_DEPTH` calls deep), with the chain of functions from `callee` to the one
        that makes it."""
        key = id(callee.node)
        if key in self._reached:
            return self._reached[key]
        if key in seen or depth > MAX_DEPTH:
            return None
        seen.add(key)
        function = callee.node
        if not isinstance(function, cst.FunctionDef):
            return None
        found: tuple[list[Binding], Creation] | None = None
        for call in callee.module.nodes(cst.Call, within=function.body):
            made = self.creation(callee.module, call)
            if made is not None:
                found = ([callee], made)
                break
        for name, shared in self._globals_used(callee.module, function):
            if found is None:
                what = f"uses the module-level `{name.value}`, which {shared.what}"
                found = ([callee], Creation(shared.module, shared.node, what))
        if found is None:
            for _, inner in self.project.callees(callee.module, function):
                deeper = self.reached(inner, seen, depth + 1)
                if deeper is not None:
                    found = ([callee, *deeper[0]], deeper[1])
                    break
        if found is not None or depth == 0:
            self._reached[key] = found  # a miss below the top may be a cut-off cycle
        return found

    def creation(self, module: ParsedModule, call: cst.Call) -> Creation | None:
        """What `call` makes, if it is a session, connection, engine or session factory."""
        func = call.func
        if isinstance(func, cst.Call):  # sessionmaker(bind=engine)()
            inner = self.creation(module, func)
            if inner is not None and "factory" in inner.what:
                return Creation(module, call, "creates a session")
            return None
        names = module.qualified(func)
        for kinds, what in _MADE_BY_NAME:
            if names & kinds:
                return Creation(module, call, what)
        if isinstance(func, cst.Attribute) and func.attr.value in _ENGINE_METHODS:
            if self._is_engine(module, func.value):
                return Creation(module, call, "opens a connection")
            return None
        binding = self.project.binding(module, func)
        if binding is not None:
            binding = self.project.alias_target(binding)
            if isinstance(binding.node, cst.Call):
                made = binding.module.qualified(binding.node.func)
                if made & _SESSION_FACTORIES:
                    return Creation(module, call, "creates a session")
            elif isinstance(binding.node, cst.ClassDef) and self.project.inherits(
                binding.module, binding.node, tuple(_SESSIONS)
            ):
                return Creation(module, call, "creates a session")
            return None
        last = func.attr.value if isinstance(func, cst.Attribute) else None
        last = func.value if isinstance(func, cst.Name) else last
        if last is not None and _FACTORY_NAME.match(last):
            return Creation(module, call, "creates a session")
        return None

    def _is_engine(self, module: ParsedModule, expr: cst.BaseExpression) -> bool:
        binding = self.project.binding(module, expr)
        if binding is not None:
            binding = self.project.alias_target(binding)
            return isinstance(binding.node, cst.Call) and bool(
                binding.module.qualified(binding.node.func) & _ENGINES
            )
        if isinstance(expr, cst.Call):
            return bool(module.qualified(expr.func) & _ENGINES)
        last = expr.attr.value if isinstance(expr, cst.Attribute) else None
        last = expr.value if isinstance(expr, cst.Name) else last
        return last is not None and bool(_ENGINE_NAME.search(last))


def _label(module: ParsedModule, call: cst.Call, binding: Binding, index: int) -> str:
    """How a function of a call chain is named: the first as the handler wrote it
    (`repo.find`), the others by their own names."""
    if index == 0:
        return shown(call.func, 40)
    return binding.name

"""The import graph: how import statements are read (the scan agrees with `ast`), how
they become edges, and the queries the architecture checks rely on."""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_codeif.checks.acyclic import AcyclicCheck
from pytest_codeif.checks.layers import LayersCheck, parse_layer
from pytest_codeif.checks.shared.contracts import prepared
from pytest_codeif.code.import_graph import (
    Import,
    ImportGraph,
    Level,
    Route,
    build_import_graph,
    import_graph_of,
    parse_import_expression,
)
from pytest_codeif.code.import_statements import (
    ImportStatement,
    scan_statements,
    statements_of_tree,
)
from pytest_codeif.code.unit import CodeUnit, SourceFile


def both(code: str) -> list[ImportStatement]:
    """The statements of `code` by the scan, after asserting `ast` reads the same."""
    text = textwrap.dedent(code)
    scanned = scan_statements(text)
    assert scanned == statements_of_tree(ast.parse(text)), text
    return scanned


def unit_of(files: dict[str, str], root_package: str | None = None) -> CodeUnit:
    sources = tuple(
        SourceFile(path, textwrap.dedent(text), Path("/nowhere") / path)
        for path, text in sorted(files.items())
    )
    return CodeUnit("k", sources, None, is_project=True, root_package=root_package)


def edges(graph: ImportGraph) -> set[tuple[str, str, int]]:
    return {(i.importer, i.imported, i.line) for i in graph.imports()}


# -- reading statements ------------------------------------------------------------------
def test_statement_forms() -> None:
    found = both(
        """\
        import a.b as c, d
        from . import (x as y,  # a comment
            z,
        )
        from ..pkg . mod import *
        from .import w
        from a \\
            import b
        import e; import f
        """
    )
    assert [(s.line, s.is_from, s.level, s.module, s.names) for s in found] == [
        (1, False, 0, None, ("a.b", "d")),
        (2, True, 1, None, ("x", "z")),
        (5, True, 2, "pkg.mod", ("*",)),
        (6, True, 1, None, ("w",)),
        (7, True, 0, "a", ("b",)),
        (9, False, 0, None, ("e",)),
        (9, False, 0, None, ("f",)),
    ]


def test_guards() -> None:
    found = both(
        """\
        from typing import TYPE_CHECKING
        import typing

        if TYPE_CHECKING:
            import checked
        else:
            import at_run_time
        if typing.TYPE_CHECKING: import one_line
        if not TYPE_CHECKING:
            import negated

        class C:
            import in_class

            def method(self):
                if TYPE_CHECKING:
                    import both_flags

        async def f(
        x=1,
        ):
            import in_async
        """
    )
    flags = {s.names[0]: (s.type_checking, s.in_function) for s in found}
    assert flags == {
        "TYPE_CHECKING": (False, False),
        "typing": (False, False),
        "checked": (True, False),
        "at_run_time": (False, False),
        "one_line": (True, False),
        "negated": (False, False),
        "in_class": (False, False),
        "both_flags": (True, True),
        "in_async": (False, True),
    }


def test_what_is_not_an_import() -> None:
    assert (
        both(
            '''\
            """Docs that say:
            import os
            from sys import path
            """
            x = "import json"  # import re
            s = f"from {x} import y"
            def g(e):
                raise ValueError() from e
            def h():
                yield from []
            reimport = importlib = 1
            '''
        )
        == []
    )


def test_awkward_layout() -> None:
    found = both(
        "def f():\n"
        "    x = call(\n"
        "1)  # a continuation line less indented than the body\n"
        "    import inside\n"
        "\x0cimport after_form_feed\n"
        "if True:\n"
        "\tif TYPE_CHECKING:\n"
        "\t\timport tabbed\n"
        "try: import ujson as json\n"
        "except ImportError: import json\n"
    )
    assert [(s.names[0], s.type_checking, s.in_function) for s in found] == [
        ("inside", False, True),
        ("after_form_feed", False, False),
        ("tabbed", True, False),
        ("ujson", False, False),
        ("json", False, False),
    ]
    crlf = "import a\r\nif TYPE_CHECKING:\r\n    import b\r\n"
    assert [(s.line, s.type_checking) for s in scan_statements(crlf)] == [(1, False), (3, True)]


@pytest.mark.parametrize(
    "package", ["_pytest", "importlinter", "email", "asyncio", "pytest_codeif"]
)
def test_scan_agrees_with_ast_on_real_code(package: str) -> None:
    """On every file of real packages. (The scan was also compared on the 16,578 files
    of the standard library, this environment's site-packages and two applications:
    no difference.)"""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    files = sorted(Path(spec.origin).parent.rglob("*.py"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert scan_statements(text) == statements_of_tree(ast.parse(text)), path


_NAMES = st.sampled_from(["a", "b.c", "os.path", "pkg"])
_SIMPLE = st.one_of(
    st.builds(lambda n: f"import {n}", _NAMES),
    st.builds(lambda n: f"import {n} as alias", _NAMES),
    st.builds(lambda d, n: f"from {d}{n} import x, y", st.sampled_from(["", ".", ".."]), _NAMES),
    st.builds(lambda n: f"from {n} import (\n    x,  # why\n    y,\n)", _NAMES),
    st.builds(lambda n: f"from {n} \\\n    import z", _NAMES),
    st.just('x = "import nothing"'),
    st.just("y = (1,\n2)"),
    st.just('"""import nothing\nfrom here import x\n"""'),
    st.just("pass  # import nothing"),
    st.just("a = 1; import semi"),
)
_HEADERS = st.sampled_from(
    [
        "if TYPE_CHECKING:",
        "if typing.TYPE_CHECKING:",
        "def f():",
        "async def g(x=(1,\n2)):",
        "class K:",
        "try:",
        "for i in range(2):",
        "with ctx:",
        "if x:",
    ]
)


@st.composite
def programs(draw: st.DrawFn, depth: int = 0) -> list[str]:
    """Lines of a random valid program mixing imports, blocks and decoys."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 3 and draw(st.booleans()):
            header = draw(_HEADERS)
            lines.append(header)
            body = draw(programs(depth + 1))
            lines.extend("    " + line for text in body for line in text.split("\n"))
            if header == "try:":
                lines.append("except ImportError:")
                lines.append("    import fallback")
            elif header.startswith("if") and draw(st.booleans()):
                lines.append("else:")
                lines.extend("    " + line for line in draw(_SIMPLE).split("\n"))
        else:
            lines.append(draw(_SIMPLE))
    return lines


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_scan_agrees_with_ast_on_generated_programs(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    ast.parse(text)  # the generator writes valid code only
    assert scan_statements(text) == statements_of_tree(ast.parse(text)), text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("import from ().:;\\\n#'\"\tx")), max_size=80))
def test_scan_never_fails_on_any_text(text: str) -> None:
    scan_statements(text)  # invalid code gets a best reading, never an exception


# -- building the graph --------------------------------------------------------------------
def test_edges_resolve_to_the_deepest_module() -> None:
    graph = build_import_graph(
        unit_of(
            {
                "app/__init__.py": "from . import api\nfrom .api import VERSION\n",
                "app/api/__init__.py": "VERSION = 1\n",
                "app/api/routes.py": (
                    "from ..services import users, helper_function\n"
                    "import app.models.user\n"
                    "from sqlalchemy.orm import Session\n"
                    "from ... import too_far\n"
                    "from app.models.user import User\n"
                ),
                "app/services/users.py": "",
                "app/models/user.py": "",
            }
        )
    )
    assert graph.modules >= {"app", "app.api", "app.services", "app.models.user"}
    assert edges(graph) == {
        ("app", "app.api", 1),
        ("app", "app.api", 2),
        ("app.api.routes", "app.services.users", 1),
        ("app.api.routes", "app.services", 1),  # helper_function is no module
        ("app.api.routes", "app.models.user", 2),
        ("app.api.routes", "sqlalchemy", 3),
        ("app.api.routes", "app.models.user", 5),
    }
    assert graph.externals == {"sqlalchemy"}
    assert graph.lines("app.api.routes", "app.models.user") == (2, 5)
    assert graph.files["app.api.routes"] == "app/api/routes.py"


def test_src_layout_and_a_package_root() -> None:
    src = build_import_graph(
        unit_of(
            {
                "src/shop/__init__.py": "",
                "src/shop/api.py": "from . import db\n",
                "src/shop/db.py": "",
            }
        )
    )
    assert edges(src) == {("shop.api", "shop.db", 1)}
    rooted = build_import_graph(
        unit_of(
            {"__init__.py": "", "api.py": "from .db import x\n", "db.py": ""}, root_package="shop"
        )
    )
    assert edges(rooted) == {("shop.api", "shop.db", 1)}


def test_unparsed_and_unnamed_files_contribute_nothing() -> None:
    graph = build_import_graph(
        unit_of(
            {
                "app/bad.py": "import os\ndef (:\n",
                "app/v1.2/x.py": "import os\n",
                "app/good.py": "import os\n",
            }
        )
    )
    assert edges(graph) == {("app.good", "os", 1)}
    assert list(graph.unparsed) == ["app/bad.py"] and "line 2" in graph.unparsed["app/bad.py"]
    assert list(graph.unnamed) == ["app/v1.2/x.py"]


def test_a_single_module_has_no_package() -> None:
    single = CodeUnit(
        "k",
        (SourceFile("solution.py", "from . import x\nimport os\n", Path("s")),),
        "solution",
        False,
    )
    graph = build_import_graph(single)
    assert graph.modules == {"solution"}
    assert edges(graph) == {("solution", "os", 2)}


def test_the_graph_is_built_once_per_unit() -> None:
    class Context:
        def __init__(self, unit: CodeUnit) -> None:
            self.unit = unit

    first = unit_of({"a/x.py": "import os\n"})
    graph = import_graph_of(Context(first))
    assert import_graph_of(Context(first)) is graph
    same_key = unit_of({"a/x.py": "import sys\n"})  # a sample reuses the key with other code
    assert edges(import_graph_of(Context(same_key))) == {("a.x", "sys", 1)}


# -- queries ---------------------------------------------------------------------------------
def graph_of(pairs: list[tuple[str, str]], externals: frozenset[str] = frozenset()) -> ImportGraph:
    """A graph of these (importer, imported) pairs, the n-th import on line n + 1; every
    name but `externals` is a module of the project, with its parent packages."""
    imports = [
        Import(a, b, a.replace(".", "/") + ".py", n + 1, external=b in externals)
        for n, (a, b) in enumerate(pairs)
    ]
    names = {m for pair in pairs for m in pair} - externals
    with_parents = {".".join(m.split(".")[:i]) for m in names for i in range(1, m.count(".") + 2)}
    return ImportGraph(with_parents, imports)


def test_chains_are_shortest_and_deterministic() -> None:
    graph = graph_of(
        [("p.a", "p.c"), ("p.a", "p.b"), ("p.b", "p.d"), ("p.c", "p.d"), ("p.d", "p.e")]
    )
    assert graph.find_chain(["p.a"], ["p.e"]) == ("p.a", "p.b", "p.d", "p.e")
    assert graph.find_chain(["p.a"], ["p.e"], ignore={"p.b"}) == ("p.a", "p.c", "p.d", "p.e")
    assert graph.find_chain(["p.e"], ["p.a"]) is None
    assert graph.find_chains(["p.a"], ["p.d"]) == [("p.a", "p.b", "p.d"), ("p.a", "p.c", "p.d")]
    assert graph.describe(("p.a", "p.b", "p.d")) == "p.a -> p.b (l.2) -> p.d (l.3)"


def test_module_expressions() -> None:
    graph = graph_of(
        [("app.x.models", "app.y.models.z"), ("app.x.api", "sqlalchemy")],
        externals=frozenset({"sqlalchemy"}),
    )
    assert graph.matching("app.*.models") == {"app.x.models", "app.y.models"}
    assert graph.matching("app.**.z") == {"app.y.models.z"}
    assert graph.matching("app.**") == graph.modules - {"app"}
    assert graph.matching("sqlalchemy") == {"sqlalchemy"}
    trimmed, unmatched = graph.ignoring(["app.*.models -> app.**", "app.nope -> app.x"])
    assert edges(trimmed) == {("app.x.api", "sqlalchemy", 2)}
    assert unmatched == ("app.nope -> app.x",)
    with pytest.raises(ValueError, match="import expression"):
        parse_import_expression("app.x app.y")
    with pytest.raises(ValueError, match="module expression"):
        parse_import_expression("app.x* -> app.y")


def test_illegal_dependencies_have_routes_with_heads_and_tails() -> None:
    graph = graph_of(
        [
            ("app.low.a", "app.mid.m"),
            ("app.low.b", "app.mid.m"),
            ("app.mid.m", "app.high.x"),
            ("app.mid.m", "app.high.y"),
            ("app.low.c", "app.high.x"),
            ("app.low.d", "app.other.o"),
            ("app.other.o", "app.high.y"),
        ]
    )
    levels = [
        Level(frozenset({"app.high"})),
        Level(frozenset({"app.other"})),
        Level(frozenset({"app.low"})),
    ]
    found = graph.illegal_dependencies(levels)
    assert [(d.importer, d.imported) for d in found] == [
        ("app.low", "app.high"),
        ("app.low", "app.other"),
        ("app.other", "app.high"),
    ]
    assert found[0].routes == (
        Route(("app.low.a", "app.low.b"), ("app.mid.m",), ("app.high.x", "app.high.y")),
        Route(("app.low.c",), (), ("app.high.x",)),
    )  # not through app.other: that is a layer, with its own dependency


def test_cycle_breakers_follow_grimps_ordering() -> None:
    graph = graph_of(
        [
            ("app.a.m", "app.b.n"),
            ("app.b.n", "app.a.m"),
            ("app.b.o", "app.a.m"),
            ("app.c.p", "app.a.m"),
        ]
    )
    # a: out 1, in 3; b: out 2, in 1: b comes first, so a -> b points back.
    assert graph.cycle_breakers("app") == {("app.a", "app.b"): [("app.a.m", "app.b.n")]}
    assert graph.cycle_breakers("app.a") == {}
    assert graph_of([("app.a", "app.b")]).cycle_breakers("app") == {}


# -- options -------------------------------------------------------------------------------
def test_layer_syntax() -> None:
    assert parse_layer("api").names == (("api", False),)
    assert parse_layer("(cli)").names == (("cli", True),)
    assert parse_layer("a | b") == parse_layer(["a", "b"])
    assert not parse_layer("a : b").independent
    with pytest.raises(ValueError, match="mixes"):
        parse_layer("a | b : c")
    with pytest.raises(ValueError, match="one layer only"):
        LayersCheck({"layers": ["a", "a | b"]})
    with pytest.raises(ValueError, match="needs `containers`"):
        LayersCheck({"layers": ["a"], "exhaustive": True})
    with pytest.raises(ValueError, match="import expression"):
        AcyclicCheck({"ignore-imports": ["a.b"]})


def test_type_checking_imports_can_be_excluded() -> None:
    graph = build_import_graph(
        unit_of(
            {
                "app/x.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import app.y\n"
                ),
                "app/y.py": "",
            }
        )
    )
    assert ("app.x", "app.y", 3) in edges(graph)
    kept, _ = prepared(graph, {"exclude-type-checking-imports": True})
    assert ("app.x", "app.y", 3) not in edges(kept)

"""Module names of a project's files, and relative imports made absolute."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_codeif.code.module_names import (
    ModuleNames,
    import_from_candidates,
    module_names,
    resolve_relative,
)

# (case id, relpaths, root_package, relpath -> module name, namespace packages, regular packages)
NAMING = [
    (
        "namespace packages: no __init__.py anywhere",
        ["app/main.py", "app/api/routes.py", "app/repositories/user_repo.py"],
        None,
        {
            "app/main.py": "app.main",
            "app/api/routes.py": "app.api.routes",
            "app/repositories/user_repo.py": "app.repositories.user_repo",
        },
        {"app", "app.api", "app.repositories"},
        set(),
    ),
    (
        "src layout: src/ is a root, not a package; files beside it keep the project root",
        ["src/shop/__init__.py", "src/shop/models.py", "tests/test_shop.py", "conftest.py"],
        None,
        {
            "src/shop/__init__.py": "shop",
            "src/shop/models.py": "shop.models",
            "tests/test_shop.py": "tests.test_shop",
            "conftest.py": "conftest",
        },
        {"tests"},
        {"shop"},
    ),
    (
        "src layout: a top-level src.py is still the module src",
        ["src/tool.py", "src.py"],
        None,
        {"src/tool.py": "tool", "src.py": "src"},
        set(),
        set(),
    ),
    (
        "src/ holding __init__.py is an ordinary package",
        ["src/__init__.py", "src/models.py"],
        None,
        {"src/__init__.py": "src", "src/models.py": "src.models"},
        set(),
        {"src"},
    ),
    (
        "regular packages, nested",
        ["pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py", "pkg/sub/deep/__init__.py"],
        None,
        {
            "pkg/__init__.py": "pkg",
            "pkg/sub/__init__.py": "pkg.sub",
            "pkg/sub/mod.py": "pkg.sub.mod",
            "pkg/sub/deep/__init__.py": "pkg.sub.deep",
        },
        set(),
        {"pkg", "pkg.sub", "pkg.sub.deep"},
    ),
    (
        "a directory without __init__.py inside a regular package is a namespace subpackage",
        ["shop/__init__.py", "shop/util/helpers.py"],
        None,
        {"shop/__init__.py": "shop", "shop/util/helpers.py": "shop.util.helpers"},
        {"shop.util"},
        {"shop"},
    ),
    (
        "a regular package under a plain directory: the directory is a namespace package",
        ["backend/app/__init__.py", "backend/app/models.py", "manage.py"],
        None,
        {
            "backend/app/__init__.py": "backend.app",
            "backend/app/models.py": "backend.app.models",
            "manage.py": "manage",
        },
        {"backend"},
        {"backend.app"},
    ),
    (
        "root_package: the project directory is that package",
        ["__init__.py", "a.py", "sub/__init__.py", "sub/b.py", "src/helper.py"],
        "mypkg",
        {
            "__init__.py": "mypkg",
            "a.py": "mypkg.a",
            "sub/__init__.py": "mypkg.sub",
            "sub/b.py": "mypkg.sub.b",
            "src/helper.py": "mypkg.src.helper",
        },
        {"mypkg.src"},
        {"mypkg", "mypkg.sub"},
    ),
    (
        "root_package without a root __init__.py: a namespace package",
        ["a.py"],
        "ns",
        {"a.py": "ns.a"},
        {"ns"},
        set(),
    ),
    (
        "a dotted root_package",
        ["__init__.py", "a.py"],
        "company.app",
        {"__init__.py": "company.app", "a.py": "company.app.a"},
        set(),
        {"company.app"},
    ),
    (
        "one module",
        ["solution.py"],
        None,
        {"solution.py": "solution"},
        set(),
        set(),
    ),
    (
        "names Python's import system accepts though no import statement spells them",
        ["scripts/run-db.py", "pkg/__init__.py", "pkg/class/__init__.py", "2fa.py"],
        None,
        {
            "scripts/run-db.py": "scripts.run-db",
            "pkg/__init__.py": "pkg",
            "pkg/class/__init__.py": "pkg.class",
            "2fa.py": "2fa",
        },
        {"scripts"},
        {"pkg", "pkg.class"},
    ),
    (
        "other files are ignored",
        ["README.md", "data/rows.csv", "app/run.py", "app/stub.pyi"],
        None,
        {"app/run.py": "app.run"},
        {"app"},
        set(),
    ),
]


@pytest.mark.parametrize(
    ("relpaths", "root_package", "modules", "namespaces", "regular"),
    [pytest.param(*case[1:], id=case[0]) for case in NAMING],
)
def test_module_names(
    relpaths: list[str],
    root_package: str | None,
    modules: dict[str, str],
    namespaces: set[str],
    regular: set[str],
) -> None:
    names = module_names(relpaths, root_package)
    assert dict(names.modules) == modules
    assert names.namespace_packages == namespaces
    assert names.packages == namespaces | regular
    assert dict(names.unimportable) == {}


# (case id, relpaths, relpath -> module name of the files that are reached,
#  relpath -> a phrase of the reason each other file is not)
UNIMPORTABLE = [
    (
        "a regular package wins over a module of the same name",
        ["x/__init__.py", "x.py"],
        {"x/__init__.py": "x"},
        {"x.py": "`x` is x/__init__.py, found first"},
    ),
    (
        "a module wins over a namespace package: its directory is unreachable",
        ["foo.py", "foo/bar.py"],
        {"foo.py": "foo"},
        {"foo/bar.py": "`foo` is foo.py, not a package"},
    ),
    (
        "the project root comes before src/",
        ["util.py", "src/util.py", "src/shop/__init__.py"],
        {"util.py": "util", "src/shop/__init__.py": "shop"},
        {"src/util.py": "`util` is util.py, found first"},
    ),
    (
        "a regular package in src/ beats a namespace directory at the root",
        ["dup/one.py", "src/dup/__init__.py", "src/dup/two.py"],
        {"src/dup/__init__.py": "dup", "src/dup/two.py": "dup.two"},
        {"dup/one.py": "`dup` is src/dup/__init__.py, found first"},
    ),
    (
        "a dot in a file or directory name",
        ["a.b.py", "v1.2/x.py", ".hidden.py", "ok.py"],
        {"ok.py": "ok"},
        {
            "a.b.py": "`a.b` holds a dot",
            "v1.2/x.py": "`v1.2` holds a dot",
            ".hidden.py": "`.hidden` holds a dot",
        },
    ),
]


@pytest.mark.parametrize(
    ("relpaths", "modules", "reasons"),
    [pytest.param(*case[1:], id=case[0]) for case in UNIMPORTABLE],
)
def test_unimportable_files(
    relpaths: list[str], modules: dict[str, str], reasons: dict[str, str]
) -> None:
    names = module_names(relpaths)
    assert dict(names.modules) == modules
    assert set(names.unimportable) == set(reasons)
    for relpath, phrase in reasons.items():
        assert phrase in names.unimportable[relpath]


def test_namespace_portions_in_the_root_and_src_merge() -> None:
    names = module_names(["ns/b.py", "src/ns/a.py"])
    assert dict(names.modules) == {"ns/b.py": "ns.b", "src/ns/a.py": "ns.a"}
    assert names.namespace_packages == {"ns"}


def test_a_src_directory_inside_src_layout_is_a_namespace_package() -> None:
    names = module_names(["src/src/x.py", "src/y.py"])
    assert dict(names.modules) == {"src/src/x.py": "src.x", "src/y.py": "y"}
    assert names.namespace_packages == {"src"}


@pytest.mark.parametrize(
    ("relpaths", "root_package", "message"),
    [
        (["__init__.py", "a.py"], None, "pass root_package"),
        (["/abs/a.py"], None, "normalized relative POSIX path"),
        (["../a.py"], None, "normalized relative POSIX path"),
        (["./a.py"], None, "normalized relative POSIX path"),
        (["a//b.py"], None, "normalized relative POSIX path"),
        (["a.py"], "", "not a dotted module name"),
        (["a.py"], "a..b", "not a dotted module name"),
        (["a.py"], "a/b", "not a dotted module name"),
    ],
)
def test_bad_input_is_a_value_error(
    relpaths: list[str], root_package: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        module_names(relpaths, root_package)


# (importer module, importer is a package, level, module, expected absolute base)
RELATIVE = [
    # from a module: a.b.c is a/b/c.py
    ("a.b.c", False, 1, None, "a.b"),
    ("a.b.c", False, 1, "x", "a.b.x"),
    ("a.b.c", False, 2, None, "a"),
    ("a.b.c", False, 2, "x", "a.x"),
    ("a.b.c", False, 2, "x.y", "a.x.y"),
    ("a.b.c", False, 3, None, None),
    ("a.b.c", False, 3, "x", None),
    ("a.b.c.d", False, 3, "x", "a.x"),
    # from a package: a.b is a/b/__init__.py
    ("a.b", True, 1, None, "a.b"),
    ("a.b", True, 1, "x", "a.b.x"),
    ("a.b", True, 2, None, "a"),
    ("a.b", True, 2, "x", "a.x"),
    ("a.b", True, 3, None, None),
    ("a.b.c", True, 3, "x", "a.x"),
    ("a", True, 1, "x", "a.x"),
    ("a", True, 2, None, None),
    # a top-level module has no package: solution.py, main.py
    ("solution", False, 1, None, None),
    ("solution", False, 1, "x", None),
    ("solution", False, 2, "x", None),
    # level 0 is an absolute import
    ("a.b.c", False, 0, "os.path", "os.path"),
]


@pytest.mark.parametrize(("importer", "is_package", "level", "module", "expected"), RELATIVE)
def test_resolve_relative(
    importer: str, is_package: bool, level: int, module: str | None, expected: str | None
) -> None:
    assert resolve_relative(importer, is_package, level, module) == expected


@pytest.mark.parametrize(("importer", "is_package", "level", "module", "expected"), RELATIVE)
def test_resolve_relative_agrees_with_importlib(
    importer: str, is_package: bool, level: int, module: str | None, expected: str | None
) -> None:
    package = importer if is_package else importer.rpartition(".")[0]
    try:
        theirs: str | None = importlib.util.resolve_name("." * level + (module or ""), package)
    except ImportError:
        theirs = None
    assert resolve_relative(importer, is_package, level, module) == theirs == expected


@pytest.mark.parametrize(
    ("level", "module", "message"),
    [(-1, "x", "at least 0"), (0, None, "names its module"), (0, "", "names its module")],
)
def test_resolve_relative_rejects_impossible_imports(
    level: int, module: str | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_relative("a.b", False, level, module)


@pytest.mark.parametrize(
    ("importer", "is_package", "level", "module", "names", "expected"),
    [
        (
            "app.api.routes",
            False,
            2,
            "repositories",
            ["user_repo"],
            ("app.repositories", "app.repositories.user_repo"),
        ),
        ("app.api.routes", False, 2, None, ["repositories"], ("app", "app.repositories")),
        (
            "app.api.routes",
            False,
            2,
            "repositories.user_repo",
            ["get_user"],
            ("app.repositories.user_repo", "app.repositories.user_repo.get_user"),
        ),
        ("app.api.routes", False, 1, None, ["x", "y"], ("app.api", "app.api.x", "app.api.y")),
        ("app.api", True, 1, None, ["x"], ("app.api", "app.api.x")),
        ("app.api.routes", False, 1, "v1", ["*"], ("app.api.v1",)),
        ("app.api.routes", False, 1, None, ["x", "x"], ("app.api", "app.api.x")),
        ("app.api.routes", False, 0, "os", ["path"], ("os", "os.path")),
        ("app.api.routes", False, 3, None, ["x"], None),
        ("solution", False, 1, None, ["x"], None),
    ],
)
def test_import_from_candidates(
    importer: str,
    is_package: bool,
    level: int,
    module: str | None,
    names: list[str],
    expected: tuple[str, ...] | None,
) -> None:
    assert import_from_candidates(importer, is_package, level, module, names) == expected


@pytest.fixture
def project() -> ModuleNames:
    return module_names(
        [
            "src/shop/__init__.py",
            "src/shop/api/__init__.py",
            "src/shop/api/views.py",
            "src/shop/models.py",
            "scripts/run-db.py",
            "a.b.py",
        ]
    )


def test_resolve_by_file(project: ModuleNames) -> None:
    assert project.resolve("src/shop/api/views.py", 2, "models") == "shop.models"
    assert project.resolve("src/shop/api/__init__.py", 1, None) == "shop.api"
    assert project.resolve("src/shop/api/__init__.py", 2, "models") == "shop.models"
    assert project.resolve("src/shop/api/__init__.py", 3, None) is None
    assert project.resolve("src/shop/__init__.py", 1, "api") == "shop.api"
    assert project.resolve("scripts/run-db.py", 1, "other") == "scripts.other"
    # a file no import reaches has no package: only absolute imports resolve
    assert project.resolve("a.b.py", 1, "x") is None
    assert project.resolve("a.b.py", 0, "os") == "os"


def test_import_from_by_file(project: ModuleNames) -> None:
    assert project.import_from("src/shop/api/views.py", 2, None, ["models"]) == (
        "shop",
        "shop.models",
    )
    assert project.import_from("src/shop/models.py", 2, None, ["x"]) is None


def test_relpath_of(project: ModuleNames) -> None:
    assert project.relpath_of("shop") == "src/shop/__init__.py"
    assert project.relpath_of("shop.api.views") == "src/shop/api/views.py"
    assert project.relpath_of("scripts") is None  # a namespace package has no file
    assert project.relpath_of("os") is None


_PROBE = """
import importlib, importlib.util, json, sys
names, imports = json.loads(sys.argv[1]), json.loads(sys.argv[2])
found = {}
for relpath, name in names.items():
    module = importlib.import_module(name)
    found[relpath] = module.__file__
resolved = []
for relpath, level, module in imports:
    package = sys.modules[names[relpath]].__package__
    try:
        resolved.append(importlib.util.resolve_name("." * level + (module or ""), package))
    except ImportError:
        resolved.append(None)
print(json.dumps({"found": found, "resolved": resolved}))
"""


def test_names_are_what_python_imports(tmp_path: Path) -> None:
    """Build the tree for real and let a fresh interpreter import every name."""
    relpaths = [
        "nsapp_q/api/routes.py",
        "nsapp_q/repositories/user_repo.py",
        "src/shop_q/__init__.py",
        "src/shop_q/api/__init__.py",
        "src/shop_q/api/views.py",
        "src/shop_q/util/helpers.py",
        "dup_q/one.py",
        "src/dup_q/__init__.py",
        "top_q.py",
    ]
    for relpath in relpaths:
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text("")
    names = module_names(relpaths)
    assert set(names.unimportable) == {"dup_q/one.py"}
    imports = [
        ("nsapp_q/api/routes.py", 2, "repositories"),
        ("nsapp_q/api/routes.py", 3, None),
        ("src/shop_q/api/__init__.py", 1, None),
        ("src/shop_q/api/__init__.py", 2, None),
        ("src/shop_q/api/views.py", 2, "util.helpers"),
        ("src/shop_q/util/helpers.py", 2, None),
        ("src/shop_q/util/helpers.py", 3, None),
        ("top_q.py", 1, "x"),
    ]
    path = [str(tmp_path), str(tmp_path / "src")]
    probe = textwrap.dedent(_PROBE)
    script = f"import sys; sys.path[:0] = {path!r}\n{probe}"
    arguments = [json.dumps(dict(names.modules)), json.dumps(imports)]
    out = subprocess.run(
        [sys.executable, "-c", script, *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    result = json.loads(out.stdout)
    assert result["found"] == {r: str(tmp_path / r) for r in names.modules}
    ours = [names.resolve(relpath, level, module) for relpath, level, module in imports]
    assert ours == result["resolved"]
    assert ours == [
        "nsapp_q.repositories",
        None,
        "shop_q.api",
        "shop_q",
        "shop_q.util.helpers",
        "shop_q",
        None,
        None,
    ]

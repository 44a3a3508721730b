"""The `database` check reads connection URLs from a project's files other than Python
(`.env`, `run.sh`, compose and settings files), at their file and line; test
configuration, examples and CI files stay out, as does what the scope leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

# Imported before any pytester run (see tests/test_project_files.py).
import pytest_codeif.testing  # noqa: F401
from pytest_codeif.checks.shared.config_urls import file_kind, file_urls

USES_URL = (
    "import os\n\nfrom sqlalchemy import create_engine\n\n"
    'engine = create_engine(os.environ["DATABASE_URL"])\n'
)


def schemes(relpath: str, text: str) -> list[tuple[int, str]]:
    return [(url.line, url.scheme) for url in file_urls(relpath, text)]


@pytest.mark.parametrize(
    ("relpath", "kind"),
    [
        (".env", "environment"),
        (".env.production", "environment"),
        ("deploy/prod.env", "environment"),
        ("run.sh", "shell"),
        ("Procfile", "shell"),
        ("Dockerfile", "shell"),
        ("docker-compose.yml", "compose"),
        ("compose.prod.yaml", "compose"),
        ("alembic.ini", "settings"),
        ("config/settings.toml", "settings"),
        ("k8s/deployment.yaml", "settings"),
        ("appsettings.json", "settings"),
        # Test configuration, examples, CI and other files are not read.
        (".env.test", None),
        ("tests/.env", None),
        ("docker-compose.test.yml", None),
        ("pytest.ini", None),
        ("tox.ini", None),
        (".env.example", None),
        ("config.sample.toml", None),
        (".gitlab-ci.yml", None),
        ("azure-pipelines.yml", None),
        ("README.md", None),
        ("data.json", None),
        ("requirements.txt", None),
    ],
)
def test_which_files_are_read(relpath: str, kind: str | None) -> None:
    assert file_kind(relpath) == kind


def test_urls_in_environment_files_and_scripts() -> None:
    env = "# DATABASE_URL=mysql://old\nexport DATABASE_URL='postgresql+psycopg://u:p@db/app'\n"
    assert schemes(".env", env) == [(2, "postgresql+psycopg")]
    script = (
        "#!/bin/sh\n# sqlite:///x in a comment\nDATABASE_URL=${DATABASE_URL:-sqlite:///app.db} "
        "exec gunicorn app:app --bind 0.0.0.0:8080\necho http://localhost:8080\n"
    )
    assert schemes("run.sh", script) == [(3, "sqlite"), (4, "http")]


def test_compose_files_are_read_in_environment_entries_only() -> None:
    compose = """\
services:
  db:
    image: postgres:16
    healthcheck:
      test: ["CMD", "pg_isready", "-d", "postgresql://user:password@localhost/conduit"]
  app:
    build: .
    environment:
      - DATABASE_URL=sqlite:///data/app.db
      # - DATABASE_URL=mysql://commented
    ports: ["8080:8080"]
  worker:
    environment:
    - BROKER=redis://redis
    - DATABASE_URL=postgresql://user:password@db/conduit
    command: celery --result-backend db+mysql://nope
  other:
    environment: {DATABASE_URL: "mysql+pymysql://u@h/app"}
"""
    assert schemes("docker-compose.yml", compose) == [
        (9, "sqlite"),
        (14, "redis"),
        (15, "postgresql"),
        (18, "mysql+pymysql"),
    ]


def test_test_sections_of_settings_files_are_not_read() -> None:
    pyproject = (
        '[tool.app]\ndatabase = "postgresql://db/app"\n'
        '[tool.pytest.ini_options]\nenv = ["DATABASE_URL=sqlite://"]\n'
        '[tool.other]\nurl = "mysql://db/app"\n'
    )
    assert schemes("pyproject.toml", pyproject) == [(2, "postgresql"), (6, "mysql")]
    setup_cfg = (
        "[tool:pytest]\naddopts = --db sqlite://\n[app]\n; sqlite:// old\nurl = postgres://x\n"
    )
    assert schemes("setup.cfg", setup_cfg) == [(5, "postgres")]


def test_hostile_text_is_read_in_linear_time() -> None:
    """Long runs of scheme characters before and without `://` end quickly (the scan
    reads at most 64 characters back from each `://`)."""
    text = "a" * 500_000 + "://" + "b" * 500_000 + ("x://" * 50_000)
    found = schemes(".env", text)
    assert len(found) == 50_001
    assert found[0][1] == "a" * 64


DB_TASK = """
tasks:
  - id: app
    directory: app
    exclude: ["!.env"]
    constraints:
      - {check: database, is: postgresql}
      - {check: database, id: scoped, is: postgresql, exclude-files: ["deploy/**"]}
"""


def write(root: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def test_urls_in_env_and_run_sh_are_found_at_their_lines(pytester: pytest.Pytester) -> None:
    write(
        pytester.path / "app",
        {
            "main.py": USES_URL,
            ".gitignore": ".env\n",
            ".env": "# local\nDATABASE_URL=postgresql://user:password@postgres:5432/conduit\n",
            ".env.test": "DATABASE_URL=sqlite:///test.db\n",
            "tests/settings.toml": 'url = "sqlite:///t.db"\n',
            "deploy/run.sh": "#!/bin/sh\nexport DATABASE_URL=sqlite:///prod.db\nexec python x\n",
        },
    )
    pytester.makefile(".codeif.yaml", t=DB_TASK)
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*app/deploy/run.sh:2: [[]database[]] uses SQLite (a `sqlite://...` connection "
            "URL in a script), but the database must be PostgreSQL*",
        ]
    )
    out = result.stdout.str()
    assert "test.db" not in out and "t.db" not in out and ".env.test" not in out
    assert "PASSED t.codeif.yaml::app::scoped" in out


def test_a_url_only_in_run_sh_decides_what_was_undecidable(pytester: pytest.Pytester) -> None:
    write(pytester.path / "app", {"main.py": USES_URL})
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: app
            directory: app
            constraints:
              - {check: database, is: postgresql}
        """,
    )
    before = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    before.assert_outcomes(errors=1)
    before.stdout.fnmatch_lines(["*no-observations*"])

    write(pytester.path / "app", {"run.sh": "export DATABASE_URL=postgresql://db/app\n"})
    pytester.runpytest("--codeif", "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_url_only_in_a_test_file_is_still_ignored(pytester: pytest.Pytester) -> None:
    """As before: the code's own URL decides; a test's SQLite URL, in Python under
    `exclude-files` or in test configuration, does not."""
    write(
        pytester.path / "app",
        {
            "main.py": 'URL = "postgresql://db/app"\n',
            "tests/test_app.py": 'URL = "sqlite://"\n',
            "pytest.ini": "[pytest]\nenv = DATABASE_URL=sqlite://\n",
            "docker-compose.test.yml": "services:\n  app:\n    environment:\n"
            "      - DATABASE_URL=sqlite://\n",
        },
    )
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: app
            directory: app
            constraints:
              - {check: database, is: postgresql, exclude-files: ["tests/**"]}
        """,
    )
    pytester.runpytest("--codeif", "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_matching_url_beside_code_that_uses_no_database_is_no_use(
    pytester: pytest.Pytester,
) -> None:
    write(
        pytester.path / "app",
        {"main.py": "def add(a, b):\n    return a + b\n", "run.sh": "DATABASE_URL=sqlite://\n"},
    )
    pytester.makefile(
        ".codeif.yaml",
        t="""
        tasks:
          - id: app
            directory: app
            constraints:
              - {check: database, is: sqlite}
        """,
    )
    result = pytester.runpytest("--codeif", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no database is used*"])

"""Connection URL schemes and the database each names: what the `database` check reads
of a URL, in Python strings, JS/TS strings and a project's other files alike."""

from __future__ import annotations

import re
from typing import Final

#: URL schemes (SQLAlchemy's, dj-database-url's, libpq's, Node drivers') and the
#: database each names.
URL_SCHEMES: Final = {
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "spatialite": "sqlite",
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "pgsql": "postgresql",
    "postgis": "postgresql",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mysqlgis": "mysql",
    "oracle": "oracle",
    "mssql": "mssql",
    "sqlserver": "mssql",
    "cockroachdb": "cockroachdb",
    "duckdb": "duckdb",
    "db2": "db2",
    "ibm_db_sa": "db2",
    "mongodb": "mongodb",
}
#: A URL's head: its scheme, with a `+driver` (`postgresql+asyncpg://`, `mongodb+srv://`).
URL_HEAD: Final = re.compile(
    r"\s*(?P<scheme>[A-Za-z][A-Za-z0-9_]*)(?:\+(?P<driver>[A-Za-z0-9_]+))?://"
)


def url_database(text: str, *, whole: bool) -> tuple[str, str] | None:
    """(the URL's head as shown, its database) when `text` opens with a connection URL
    of a known scheme; None otherwise. A `whole` text (a literal, not the head of an
    f-string or template) with spaces in it is prose that mentions a URL, not one."""
    url = URL_HEAD.match(text)
    if url is None or (whole and any(c.isspace() for c in text.strip())):
        return None
    database = URL_SCHEMES.get(url["scheme"].lower())
    return (url.group().strip(), database) if database is not None else None

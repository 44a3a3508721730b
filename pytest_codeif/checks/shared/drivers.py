"""Database driver modules (DB-API and async drivers), the database each talks to, and their
imports in a module: what the `db-drivers`, `database`, `raw-sql` and `orm-only` checks
look for."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from pytest_codeif.checks.shared.import_sites import ImportSite, import_sites, imports_module
from pytest_codeif.code.cst import ParsedModule

#: Database driver modules (DB-API and async drivers) and the database each talks to;
#: None: a generic bridge (ODBC) that says nothing about which database.
DRIVERS: Final[Mapping[str, str | None]] = {
    "sqlite3": "sqlite",
    "_sqlite3": "sqlite",
    "pysqlite2": "sqlite",
    "pysqlite3": "sqlite",
    "aiosqlite": "sqlite",
    "apsw": "sqlite",
    "psycopg2": "postgresql",
    "psycopg": "postgresql",
    "psycopg_pool": "postgresql",
    "asyncpg": "postgresql",
    "pg8000": "postgresql",
    "aiopg": "postgresql",
    "pgdb": "postgresql",
    "pymysql": "mysql",
    "MySQLdb": "mysql",
    "mysql.connector": "mysql",
    "mysqlx": "mysql",
    "aiomysql": "mysql",
    "asyncmy": "mysql",
    "mariadb": "mysql",
    "cx_Oracle": "oracle",
    "oracledb": "oracle",
    "pymssql": "mssql",
    "pyodbc": None,
    "aioodbc": None,
    "ibm_db": "db2",
    "duckdb": "duckdb",
}

#: How the databases are named in messages.
DATABASE_NAMES: Final[Mapping[str, str]] = {
    "sqlite": "SQLite",
    "postgresql": "PostgreSQL",
    "mysql": "MySQL",
    "oracle": "Oracle",
    "mssql": "SQL Server",
    "db2": "Db2",
    "duckdb": "DuckDB",
    "mongodb": "MongoDB",
    "cockroachdb": "CockroachDB",
}


def driver_of(qualified: str) -> str | None:
    """The driver module `qualified` (a module or a name inside one) belongs to."""
    for driver in DRIVERS:
        if qualified == driver or qualified.startswith(driver + "."):
            return driver
    return None


@dataclass(frozen=True)
class DriverImport:
    """An import of a driver module: the driver, its database, the import site."""

    driver: str
    database: str | None
    site: ImportSite


def driver_imports(
    module: ParsedModule, extra: Iterable[str] = (), sites: Iterable[ImportSite] | None = None
) -> Iterator[DriverImport]:
    """Every import of a driver (or of one of `extra`) in `module` (or among its import
    `sites`, when they are known already), once per statement."""
    names = [*DRIVERS, *extra]
    seen: set[tuple[int, str]] = set()
    for site in import_sites(module) if sites is None else sites:
        for name in names:
            if imports_module(site.module, name) and (id(site.node), name) not in seen:
                seen.add((id(site.node), name))
                yield DriverImport(name, DRIVERS.get(name), site)
                break


def describe(driver: DriverImport) -> str:
    database = DATABASE_NAMES.get(driver.database or "")
    return f"`{driver.driver}` ({database})" if database else f"`{driver.driver}`"

"""Shared code of checks: what more than one check uses (functions and their parameters,
import sites, call sites, value shapes, naming conventions, web routes, database drivers,
ORM models, SQL text and where it is executed, the architecture contracts...). It holds
no check; a check imports from here and from `checks.base`, never from another check."""

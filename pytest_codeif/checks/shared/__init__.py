"""Shared code of checks: what several checks use (function lookup, value shapes, web
routes, SQL text...). It holds no check; a check imports from
here and from `checks.base`, never from another check."""

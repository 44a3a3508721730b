"""The set of known checks, filled through the `pytest_codeif_register_checks` hook."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

import jsonschema

from pytest_codeif.checks.base import Check, Sample

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


class CheckRegistrationError(Exception):
    """A check class does not declare what every check must declare."""


def verify_options_schema(check: type[Check], where: str) -> None:
    """Raise `CheckRegistrationError` when `check.options_schema` is no JSON Schema."""
    try:
        jsonschema.Draft202012Validator.check_schema(dict(check.options_schema))
    except jsonschema.SchemaError as exc:
        raise CheckRegistrationError(f"{where}: invalid options_schema: {exc.message}") from None


class CheckRegistry:
    """Check classes by name, with "did you mean" for near misses."""

    def __init__(self) -> None:
        self._checks: dict[str, type[Check]] = {}

    def register(self, check: type[Check]) -> None:
        """Add `check`, after verifying its declarations; names must be unique. Whether
        its samples reach their verdicts is verified apart (`pytest_codeif.testing`)."""
        where = f"{check.__module__}.{check.__qualname__}"
        name = getattr(check, "name", None)
        if not isinstance(name, str) or not _NAME.match(name):
            raise CheckRegistrationError(f"{where}: `name` must match {_NAME.pattern}")
        if not isinstance(getattr(check, "category", None), str):
            raise CheckRegistrationError(f"{where}: `category` must be a string")
        # The built-in checks' schemas are verified by the test suite
        # (`test_check_samples.py`); verifying every one against the metaschema would
        # cost every run a fifth of a second.
        if not check.__module__.startswith("pytest_codeif."):
            verify_options_schema(check, where)
        # A check without samples is accepted (a first draft may have none): the session
        # lists it as unproven, and `codeif check-samples` fails on it.
        for attribute in ("satisfied_by", "violated_by"):
            samples = getattr(check, attribute)
            if isinstance(samples, Sample) or not all(isinstance(s, Sample) for s in samples):
                raise CheckRegistrationError(
                    f"{where}: `{attribute}` must be a sequence of Sample(...) objects"
                )
        existing = self._checks.get(name)
        if existing is not None and existing is not check:
            raise CheckRegistrationError(
                f"{where}: check name {name!r} is already taken by "
                f"{existing.__module__}.{existing.__qualname__}"
            )
        self._checks[name] = check

    def get(self, name: str) -> type[Check] | None:
        return self._checks.get(name)

    def suggest(self, name: str) -> str | None:
        """The registered name closest to `name`, if any is close."""
        close = difflib.get_close_matches(name, list(self._checks), n=1, cutoff=0.6)
        return close[0] if close else None

    def __iter__(self) -> Iterator[type[Check]]:
        return iter(sorted(self._checks.values(), key=lambda c: c.name))

    def __len__(self) -> int:
        return len(self._checks)

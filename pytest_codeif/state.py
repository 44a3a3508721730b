"""Per-session plugin state, kept in `config.stash` (never as attributes on config)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_codeif.checks.registry import CheckRegistrationError, CheckRegistry
from pytest_codeif.engine.engine import Engine
from pytest_codeif.engine.functional_pool import FunctionalPool
from pytest_codeif.engine.verdict_cache import VerdictCache
from pytest_codeif.sandbox.isolation import choose_isolation
from pytest_codeif.settings import settings_of
from pytest_codeif.taskfile.parsed_cache import FOLDER, TaskFileCache


@dataclass
class CodeifState:
    """The check registry, the engine and its pool that runs functional tests."""

    registry: CheckRegistry
    engine: Engine
    #: The engine's functional pool (`engine.runs.pool`), closed with the engine.
    pool: FunctionalPool
    #: Reads task files, through pytest's cache directory when there is one.
    taskfiles: TaskFileCache
    #: Node ids whose tool runs are planned (see `planning.py`).
    planned: set[str] = field(default_factory=set)
    #: Plan as items arrive (a pytest-xdist worker) instead of all at collection.
    plan_on_arrival: bool = False
    #: Something was planned since the planned work was last begun (`planning.start`).
    unstarted: bool = False


STATE_KEY = pytest.StashKey[CodeifState]()


def create_state(config: pytest.Config) -> CodeifState:
    """Build the registry through the plugin hook, and an engine with a private work dir."""
    registry = CheckRegistry()
    try:
        config.hook.pytest_codeif_register_checks(registry=registry)
    except CheckRegistrationError as exc:
        raise pytest.UsageError(f"pytest-codeif: cannot register a check: {exc}") from None
    settings = settings_of(config)
    try:
        isolation = choose_isolation(settings.sandbox)
    except ValueError as exc:
        raise pytest.UsageError(f"pytest-codeif: {exc}") from None
    workdir = Path(tempfile.mkdtemp(prefix="pytest-codeif-"))
    cache_dir = None
    # `config.cache` exists only with pytest's cacheprovider (not under -p no:cacheprovider).
    pytest_cache = getattr(config, "cache", None)
    if pytest_cache is not None and not settings.no_cache:
        cache_dir = pytest_cache.mkdir("codeif-verdicts")
    cache = VerdictCache(cache_dir)
    engine = Engine(config.rootpath, workdir, isolation, cache, eager=not settings.stops_early)
    taskfiles = TaskFileCache(pytest_cache.mkdir(FOLDER) if pytest_cache else None, registry)
    return CodeifState(registry, engine, engine.runs.pool, taskfiles)


def get_state(config: pytest.Config) -> CodeifState:
    return config.stash[STATE_KEY]

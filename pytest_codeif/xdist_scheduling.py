"""With pytest-xdist, keep each task's items on one worker: the task's code is then read
and parsed once, and its constraint and test items share one worker's batches.

Registered only when pytest-xdist is installed and `--codeif` is given; it replaces the
default `--dist load` with `loadscope`, whose scope of `path::task::item` is
`path::task`. Any other `--dist` mode is left as chosen.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling


@pytest.hookimpl(trylast=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "load":
        return None
    return LoadScopeScheduling(config, log)

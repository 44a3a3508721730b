"""Where typeshed's standard-library stubs are: inside the installed mypy, which pins
them (the tools' versions are part of every verdict's cache key). Read by
`python-version` (when names appeared) and `calls` (which keywords a callable takes)."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path


@cache
def typeshed_stdlib() -> Path | None:
    """The typeshed `stdlib` folder inside the installed mypy, if any."""
    spec = importlib.util.find_spec("mypy")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "typeshed" / "stdlib"
        if (folder / "VERSIONS").is_file():
            return folder
    return None

"""Shared helpers: paths to the repository's fixtures and examples, and a way to copy
them into a pytester directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

# Import the plugin's modules (and PyYAML's C loader with them) before any pytester run:
# pytester restores sys.modules after each in-process run, and a module imported during
# a run would be imported again in the next one, which PyYAML's C extension does not
# survive (its nodes come back with no tags).
import pytest_codeif.collect  # noqa: F401

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
EXAMPLES = REPO / "examples"
CORPUS = REPO.parent / "shared" / "corpora" / "multicodeif"


def copy_into(pytester: pytest.Pytester, source: Path) -> Path:
    """Copy a fixture file or folder into the pytester directory; return the copy."""
    target = pytester.path / source.name
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    return target


@pytest.fixture
def examples(pytester: pytest.Pytester) -> Path:
    """The bundled examples, copied into the pytester directory."""
    return copy_into(pytester, EXAMPLES)

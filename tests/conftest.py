"""Shared helpers: paths to the repository's fixtures and examples, a way to copy them
into a pytester directory, and `run_codeif`, which runs every test that checks
aggregation plain, with `-n 0` and with `-n 2`."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

# Import the plugin's modules (and PyYAML's C loader with them) before any pytester run:
# pytester restores sys.modules after each in-process run, and a module imported during
# a run would be imported again in the next one, which PyYAML's C extension does not
# survive (its nodes come back with no tags).
import pytest_codeif.collection.items

# Likewise the sample audit's module: a run that imports it afresh would see the built-in
# checks as classes of another module and audit their samples again (seconds per run).
import pytest_codeif.testing  # noqa: F401

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


#: How aggregation is exercised: a plain run, `-n 0`, and two pytest-xdist workers (whose
#: records the controller gathers for the summary and the JSON report).
AGGREGATION_MODES: Final = {"plain": (), "n0": ("-n", "0"), "n2": ("-n", "2")}


@dataclass(frozen=True)
class CodeifRunner:
    """`pytest --codeif ARGS` in the pytester directory, in one of AGGREGATION_MODES, with
    no verdict cache (each run decides every verdict afresh)."""

    pytester: pytest.Pytester
    mode: str

    def __call__(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        run = self.pytester.runpytest_subprocess if subprocess else self.pytester.runpytest
        return run("--codeif", "-p", "no:cacheprovider", *args, *AGGREGATION_MODES[self.mode])


@pytest.fixture(params=list(AGGREGATION_MODES))
def run_codeif(request: pytest.FixtureRequest, pytester: pytest.Pytester) -> CodeifRunner:
    """Runs `pytest --codeif` plain, with `-n 0` and with `-n 2`: every test that checks
    the summary or the JSON report takes this fixture, so what it checks holds in each.
    Tests that aggregate nothing run plain (`-n 2` is the slow mode)."""
    return CodeifRunner(pytester, request.param)

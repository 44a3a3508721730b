"""The forged-results corpus (fixtures/hostile/forged_results.codeif.yaml): code that
writes verdicts of its own (records on every descriptor it finds, after the harness's,
for tests that never ran, malformed or flooding), patches the clocks and memory counters
a measurement reads, hides work in a child, or fakes an exception's class. None passes;
the honest tasks beside them do; nothing floods the outputs."""

from __future__ import annotations

import json
import shutil

import pytest

from pytest_codeif.sandbox.isolation import choose_isolation
from tests.conftest import FIXTURES

BWRAP = choose_isolation("auto").name == "bubblewrap"

#: Every outcome of the corpus, by task and constraint: the honest tasks satisfied, every
#: forgery caught, as what it is.
EXPECTED = {
    ("honest-calls", "tests"): ("satisfied", None),
    ("honest-pytest", "tests"): ("satisfied", None),
    ("honest-growth", "complexity"): ("satisfied", None),
    ("honest-growth", "space"): ("satisfied", None),
    ("value-then-exit", "tests"): ("error", "protocol"),
    ("success-then-spin", "tests"): ("error", "timeout"),
    ("other-processes-descriptors", "tests"): ("violated", None),
    ("atexit-and-child-append", "tests"): ("violated", None),
    ("patched-encoder", "tests"): ("error", "protocol"),
    ("deep-record", "tests"): ("error", "protocol"),
    ("flood", "tests"): ("error", "protocol"),
    ("own-value-error", "tests"): ("violated", None),
    ("mro-faking-metaclass", "tests"): ("violated", None),
    ("forged-pytest-outcomes", "tests"): ("error", "protocol"),
    ("patched-clocks", "complexity"): ("violated", None),
    ("work-in-a-child", "complexity"): ("error", "crash"),
    ("patched-memory-counter", "complexity"): ("error", "protocol"),
    ("inflated-calibration", "complexity"): ("violated", None),
    ("colliding-dict-keys", "tests"): ("error", "protocol"),
    ("huge-int-within-tolerance", "tests"): ("violated", None),
    ("interrupts-the-supervisor", "tests"): ("violated", None),
    ("patches-test-reports", "tests"): ("violated", None),
}


@pytest.mark.skipif(not BWRAP, reason="bubblewrap cannot run here")
def test_no_forged_result_passes(pytester: pytest.Pytester) -> None:
    for name in ("forged_results.codeif.yaml", "forged_results_checks.py"):
        shutil.copyfile(FIXTURES / "hostile" / name, pytester.path / name)
    result = pytester.runpytest(
        "--codeif", "--codeif-sandbox=bubblewrap", "-rA", "--codeif-report=r.json"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    outcomes = {}
    for task in report["tasks"]:
        for constraint in task["constraints"]:
            outcomes[task["id"], constraint["constraint"]] = (
                constraint["status"],
                constraint.get("error_kind"),
            )
        if task["functional"]:
            functional = task["functional"]
            outcomes[task["id"], "tests"] = (functional["status"], functional.get("error_kind"))
    assert outcomes == EXPECTED
    result.stdout.fnmatch_lines(
        [
            "*(protocol): *the code wrote a test outcome of its own*",
            "*(protocol): *the code's memory figure (0 bytes) is below what the kernel*",
            "*expected ValueError, but it raised solution.ValueError: not a number*",
        ],
        consecutive=False,
    )
    assert "Traceback" not in result.stdout.str()
    # The flood's 8 MB message and 20,000 records reach neither the terminal nor the report.
    assert len(result.stdout.str()) < 200_000
    assert (pytester.path / "r.json").stat().st_size < 200_000

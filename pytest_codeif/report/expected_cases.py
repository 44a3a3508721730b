"""How many assertions a task's functional tests count: each case a run gave is one, and
a case of the task file that never ran counts every assertion it was to give, none
passed, so that tests that could not run weigh in the pass rate as a run where all of
them failed does (a Newman collection whose service never started counts its ~290
assertions, not one).

A case of the task file never ran when its line in the task file has no result, or
only one result per case there, labelled as the case itself and not passed (what the
runner reports for a case that gave none of its own: the service not started, Newman
reporting no assertion, the stage killed, a missing tool, no code); each result of a
case that ran is labelled below it (`file.py::test_x`, `name > request > test`). A
request, a command line and a call give one result labelled as themselves: for them
the rule changes nothing.

What a case was to give is counted from the task file and the files it names, never by
running anything: one per call case, HTTP request and command-line case; one per test
function a `pytest:` file defines (as `functional.pytest_file.expected_test_names` finds
them; one when it defines none, as the runner then reports the file as one case); and
for a Newman collection, the assertions of its test scripts (`pm.test(...)` calls and
the older `tests["name"] = ...`, both of which Newman counts), each counted once per
request it runs after (a collection's or a folder's script runs after each request
under it). A script that asserts in a loop or under a condition makes Newman's own
count differ: this is the count of a run where each assertion runs once, at least one.
A collection that ran counts what Newman counted, its assertions (passed, failed or
skipped), as the benchmark's A% does: a test script that threw and a run that ended
badly are failed cases of the task, but no assertions (a script that threw also stops
the assertions after it, which Newman then does not count either).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Final

from pytest_codeif.functional.pytest_file import expected_test_names
from pytest_codeif.records import CaseEntry
from pytest_codeif.spec import CliCase, HttpCase, NewmanCase, PytestCase
from pytest_codeif.taskfile.model import Task

#: An assertion of a Postman test script: `pm.test(` (`pm.test ("name", ...)` too), or
#: the older form Newman counts as well, `tests["name"] = value` (not `==`).
_ASSERTION: Final = re.compile(
    r"""\bpm\s*\.\s*test\s*\("""
    r"""|\btests\s*\[(?:\s*"(?:[^"\\]|\\.)*"\s*|\s*'(?:[^'\\]|\\.)*'\s*|[^\]"']*)\]\s*=(?!=)"""
)
#: Folders nested deeper than this are not walked (a collection is a few levels deep).
_MAX_DEPTH: Final = 64


#: A case of the task file: its line, its label, and how many cases it gives when it
#: runs (computed only when needed: it reads the file a case names).
_Unit = tuple[int, str, Callable[[], int]]


def _units(task: Task) -> list[_Unit]:
    """Every case of `task`'s file that gives results (labels as the runner gives them)."""
    units: list[_Unit] = [(c.location.line, str(c.label), lambda: 1) for c in task.calls]
    cases = [*task.pytest_files, *(task.behaviour.cases if task.behaviour else ())]
    for case in cases:
        if isinstance(case, PytestCase):
            units.append((case.location.line, str(case.label), partial(_pytest_cases, case)))
        elif isinstance(case, NewmanCase):
            count = partial(collection_assertions, case.collection)
            units.append((case.location.line, str(case.label), count))
        elif isinstance(case, (HttpCase, CliCase)):
            units.append((case.location.line, str(case.label), lambda: 1))
    return units


def assertion_total(task: Task, cases: Sequence[CaseEntry]) -> int:
    """The assertions `task`'s functional tests count, given the `cases` a run gave."""
    results: dict[int, list[CaseEntry]] = {}
    for case in cases:
        results.setdefault(case["line"], []).append(case)
    units: dict[int, list[_Unit]] = {}
    for unit in _units(task):
        units.setdefault(unit[0], []).append(unit)
    newman_lines = {
        c.location.line
        for c in (task.behaviour.cases if task.behaviour else ())
        if isinstance(c, NewmanCase)
    }
    total = 0
    for line in sorted(results.keys() | units.keys()):
        found, asked = results.get(line, []), units.get(line, [])
        if asked and _never_ran(found, asked):
            total += sum(count() for _, _, count in asked)
        elif line in newman_lines and asked:
            total += sum(1 for c in found if c.get("assertion", True))
        else:
            total += len(found)
    return total


def _never_ran(found: Iterable[CaseEntry], asked: Iterable[_Unit]) -> bool:
    """No result at a line of the task file, or one per case of it, labelled as the case
    itself and not passed."""
    seen = list(found)
    if any(case["status"] == "passed" for case in seen):
        return False
    labels = sorted(case["label"] for case in seen)
    return labels in ([], sorted(label for _, label, _ in asked))


def _pytest_cases(case: PytestCase) -> int:
    return max(len(expected_test_names(case.path)), 1)


def collection_assertions(path: Path) -> int:
    """The `pm.test` assertions a Postman collection (v2.x JSON) runs; at least one,
    the collection itself, when it cannot be read or has none."""
    try:
        collection = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return 1
    if not isinstance(collection, dict):
        return 1
    return max(_assertions_under(collection, inherited=0, depth=0), 1)


def _assertions_under(node: dict[str, object], *, inherited: int, depth: int) -> int:
    """The assertions of a request (no `item` list), or of every request in a folder or
    collection, each with the `inherited` tests of the folders above it."""
    own = inherited + _test_calls(node.get("event"))
    children = node.get("item")
    if not isinstance(children, list):
        return own if "request" in node else 0
    if depth >= _MAX_DEPTH:
        return 0
    return sum(
        _assertions_under(child, inherited=own, depth=depth + 1)
        for child in children
        if isinstance(child, dict)
    )


def _test_calls(events: object) -> int:
    """Assertions in a node's `test` scripts (`exec`: a list of lines or a string); a
    line that is a `//` comment holds none."""
    if not isinstance(events, list):
        return 0
    count = 0
    for event in events:
        if not isinstance(event, dict) or event.get("listen") != "test":
            continue
        script = event.get("script")
        lines = script.get("exec") if isinstance(script, dict) else None
        if isinstance(lines, str):
            lines = [lines]
        if isinstance(lines, list):
            count += sum(len(_ASSERTION.findall(line)) for line in _code_lines(lines))
    return count


def _code_lines(values: Iterable[object]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield from (line for line in value.split("\n") if not line.lstrip().startswith("//"))

"""The assertion pass rate (A%): every functional case is one assertion; a case of the
task file that never ran counts all it was to give, none passed; the figures are pooled
and per-task means, as run and strict (a task with a constraint not satisfied passes
none), overall, by level and by group; the same with `-n 0` and `-n 2`."""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif.errors import Location
from pytest_codeif.records import CaseEntry
from pytest_codeif.report.expected_cases import assertion_total, collection_assertions
from pytest_codeif.report.figures.assertions import Assertions, counts
from pytest_codeif.report.figures.groups import by_group
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.json_report import SCHEMA_PATH
from pytest_codeif.report.terminal import group_lines, render
from pytest_codeif.spec import (
    Behaviour,
    CallCase,
    CliCase,
    CodeSpec,
    HttpCase,
    NewmanCase,
    PytestCase,
    ServiceSpec,
)
from pytest_codeif.taskfile.model import Task

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))

# -- the figures, from records -------------------------------------------------------------


def constraint(task: str, status: str, level: int | None = None, **more: Any) -> dict[str, Any]:
    return {
        "kind": "constraint",
        "nodeid": f"f::{task}::c{random.random()}",
        "file": "f",
        "task": task,
        "status": status,
        "check": "construct",
        "category": "Algorithm",
        "level": level,
        "error_kind": "timeout" if status == "error" else None,
        **more,
    }


def functional(task: str, passed: int, total: int, **more: Any) -> dict[str, Any]:
    return {
        "kind": "functional",
        "nodeid": f"f::{task}::tests",
        "file": "f",
        "task": task,
        "status": "satisfied" if passed == total else "violated",
        "error_kind": None,
        "assertions": {"passed": passed, "total": total},
        **more,
    }


RECORDS: list[dict[str, Any]] = [
    # a: all satisfied, 9/10 at level 1 (a level-0 and a level-1 constraint)
    constraint("a", "satisfied", 0),
    constraint("a", "satisfied", 1),
    functional("a", 9, 10),
    # b: a violated constraint (level 0): 1/2 as run, 0/2 strict
    constraint("b", "violated", 0),
    functional("b", 1, 2),
    # c: an undecidable constraint zeroes too (it was not shown to be satisfied)
    constraint("c", "error", 2),
    functional("c", 3, 3),
    # d: a constraint the CI gate skipped was not judged: it zeroes nothing
    constraint("d", "skipped"),
    functional("d", 2, 4),
    # e: no functional tests: not counted at all
    constraint("e", "satisfied", 0),
]


def test_pooled_and_mean_of_tasks_as_run_and_strict() -> None:
    found = summarize(RECORDS).assertions.overall
    assert (found.run.tasks, found.run.passed, found.run.total) == (4, 15, 19)
    assert found.run.rate == 15 / 19
    assert found.run.mean_task_rate == pytest.approx((0.9 + 0.5 + 1.0 + 0.5) / 4)
    # strict: b and c count none passed, d's skipped constraint does not zero it
    assert (found.strict.passed, found.strict.total) == (11, 19)
    assert found.strict.mean_task_rate == pytest.approx((0.9 + 0 + 0 + 0.5) / 4)


def test_a_task_counts_under_its_highest_level() -> None:
    by_level = summarize(RECORDS).assertions.by_level
    assert sorted(by_level) == [0, 1, 2]  # d has no level; e no tests
    assert (by_level[1].run.passed, by_level[1].run.total) == (9, 10)  # a
    assert (by_level[0].run.passed, by_level[0].strict.passed) == (1, 0)  # b
    assert (by_level[2].run.passed, by_level[2].strict.passed) == (3, 0)  # c


def test_a_task_with_no_assertion_is_in_the_sums_but_not_the_mean() -> None:
    found = Assertions()
    found.add_task([functional("x", 0, 0)])
    found.add_task([functional("y", 1, 2)])
    assert (found.overall.run.tasks, found.overall.run.total) == (1, 2)
    assert found.overall.run.mean_task_rate == 0.5


def test_a_failed_task_with_no_assertion_weighs_zero_in_the_mean() -> None:
    """Every Newman script threw before asserting: Newman counts 0/0, and the task
    failed; it weighs in the mean as a rate of 0, never as no task at all."""
    found = Assertions()
    found.add_task([functional("x", 0, 0, status="violated")])
    found.add_task([functional("y", 1, 2)])
    assert (found.overall.run.tasks, found.overall.run.total) == (2, 2)
    assert found.overall.run.mean_task_rate == 0.25
    assert found.overall.strict.mean_task_rate == 0.25


def test_no_functional_tests_no_figures() -> None:
    found = summarize([constraint("e", "satisfied", 0)]).assertions
    assert not found.shown
    assert found.to_dict()["rate"] is None and found.to_dict()["mean_task_rate"] is None
    assert not any("assertions" in line for line in render(summarize([])))


def test_a_report_written_before_assertions_counts_its_cases() -> None:
    old = functional("a", 0, 0)
    del old["assertions"]
    old["cases"] = [{"status": "passed"}, {"status": "failed"}, {"status": "error"}]
    assert counts(old) == (1, 3)


def test_the_figures_do_not_depend_on_the_order_of_records() -> None:
    """Means of rates like 1/3 and 2/7 summed as floats in another order could differ in
    their last digit; the figures are summed exactly."""
    many = [
        record
        for i in range(60)
        for record in (
            constraint(f"t{i}", "satisfied" if i % 3 else "violated", i % 4),
            functional(f"t{i}", i % 7, 7 + i % 5),
        )
    ]
    expected = summarize(many).to_dict()["assertions"]
    for seed in range(10):
        shuffled = many[:]
        random.Random(seed).shuffle(shuffled)
        assert summarize(shuffled).to_dict()["assertions"] == expected
    rates = [Fraction(i % 7, 7 + i % 5) for i in range(60)]
    assert expected["mean_task_rate"] == float(sum(rates, Fraction()) / 60)


def test_the_summary_section_and_the_figures_hold_to_the_schema() -> None:
    summary = summarize(RECORDS).to_dict()
    jsonschema.validate(summary, {**SCHEMA["$defs"]["summary"], "$defs": SCHEMA["$defs"]})
    row = SCHEMA["$defs"]["assertion_row"]
    assert set(summary["assertions"]) == set(
        SCHEMA["$defs"]["summary"]["properties"]["assertions"]["properties"]
    )
    assert set(summary["assertions"]["by_level"]["0"]) == set(row["properties"])
    assert set(summary["assertions"]["strict"]) == set(
        SCHEMA["$defs"]["assertion_rate"]["properties"]
    )


def test_terminal_line_and_group_rows() -> None:
    lines = render(summarize(RECORDS))
    assert "  assertions passed: 15/19 78.9%, task mean 72.5%, strict 57.9%" in lines
    records = [{**r, "metadata": {"model": "m1" if r["task"] < "c" else "m2"}} for r in RECORDS]
    shown = group_lines("model", by_group(records, "model"))
    rows = {line.split("  ")[1].strip(): line.split()[-2:] for line in shown if "A%" in line}
    # m1: a (9/10) and b (1/2, strict 0/2); m2: c (3/3, strict 0) and d (2/4)
    assert rows == {
        "A%: pooled": ["83.3%", "71.4%"],
        "A%: task mean": ["70.0%", "75.0%"],
        "A% strict: pooled": ["75.0%", "28.6%"],
        "A% strict: task mean": ["45.0%", "25.0%"],
    }
    assert all(len(line) <= 80 for line in shown + lines)


# -- what a task's cases count --------------------------------------------------------------

COLLECTION = {
    "info": {"name": "c"},
    "event": [{"listen": "test", "script": {"exec": ["pm.test('every response', () => {});"]}}],
    "item": [
        {
            "name": "folder",
            "event": [{"listen": "prerequest", "script": {"exec": ["pm.test('not a test')"]}}],
            "item": [
                {
                    "name": "register",
                    "request": {"method": "POST"},
                    "event": [
                        {
                            "listen": "test",
                            "script": {
                                "exec": ["pm.test('a', f);", "pm.test ('b', g); pm.test('c')"]
                            },
                        }
                    ],
                },
                {"name": "login", "request": {"method": "POST"}},
            ],
        },
        {
            "name": "health",
            "request": "http://x/",
            "event": [{"listen": "test", "script": {"exec": "pm.test('up', h)"}}],
        },
    ],
}


def test_a_collection_counts_its_tests_once_per_request_they_run_after(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(COLLECTION))
    # register: 1 inherited + 3; login: 1 inherited; health: 1 inherited + 1
    assert collection_assertions(path) == 4 + 1 + 2
    path.write_text("{not json")
    assert collection_assertions(path) == 1
    path.write_text(json.dumps({"item": []}))
    assert collection_assertions(path) == 1
    assert collection_assertions(tmp_path / "missing.json") == 1


def test_the_older_tests_form_counts_and_comments_do_not(tmp_path: Path) -> None:
    """Newman counts `tests["name"] = value` as it counts `pm.test` (the RealWorld
    collection Constraint Decay runs uses both); a comparison or a comment is none."""
    script = [
        "tests['Response has \\'user\\''] = json.user !== undefined;",
        'tests["has [brackets]"] = true; tests[name] = ok;',
        "if (tests['x'] == true) {}",
        "  // tests['commented'] = true; pm.test('commented too')",
        "pm.test('one', () => {}); // and a note",
    ]
    path = tmp_path / "c.json"
    request = {
        "name": "r",
        "request": {},
        "event": [{"listen": "test", "script": {"exec": script}}],
    }
    path.write_text(json.dumps({"item": [request]}))
    assert collection_assertions(path) == 4


def test_the_conduit_fixture_collection_counts_as_newman_does() -> None:
    """fixtures/services' collection: 24 `pm.test` and 4 `tests[...]` assertions, the 28
    Newman reports for it (each request's script runs once)."""
    path = (
        Path(__file__).parent.parent / "fixtures" / "services" / "conduit.postman_collection.json"
    )
    assert collection_assertions(path) == 28


def at(line: int) -> Location:
    return Location(Path("t.codeif.yaml"), line, ())


def case(label: str, status: str, line: int, *, assertion: bool = True) -> CaseEntry:
    entry: CaseEntry = {"label": label, "status": status, "message": "", "line": line}
    if not assertion:
        entry["assertion"] = False
    return entry


def service_task(tmp_path: Path) -> Task:
    collection = tmp_path / "c.json"
    collection.write_text(json.dumps(COLLECTION))
    tests = tmp_path / "test_api.py"
    tests.write_text(
        "def test_a():\n    pass\n\ndef test_b():\n    pass\n\n"
        "class TestC:\n    def test_c(self):\n        pass\n"
    )
    service = ServiceSpec(("./run.sh",), 8080, "/health", 60.0, (), at(3))
    cases = (
        HttpCase("register", at(10), "POST", "/api/users"),
        NewmanCase("conduit", at(11), collection),
        PytestCase("test_api.py", tests, at(12)),
        CliCase("upper", at(13), ("python", "main.py")),
    )
    return Task(
        id="svc",
        path=tmp_path / "t.codeif.yaml",
        location=at(1),
        code=CodeSpec("directory", "app", at(2), None),
        calls=(CallCase("f(1)", at(20), expression="f(1)"),),
        behaviour=Behaviour(service, None, cases),
    )


def test_cases_that_ran_count_one_each(tmp_path: Path) -> None:
    task = service_task(tmp_path)
    ran = [
        case("register", "passed", 10),
        *(case(f"conduit > r{i} > t", "failed" if i else "passed", 11) for i in range(9)),
        case("test_api.py::test_a", "passed", 12),
        case("test_api.py::TestC::test_c", "failed", 12),
        case("upper", "failed", 13),
        case("f(1)", "passed", 20),
    ]
    # Newman ran 9 assertions (not the 7 its scripts hold): its own count is the count
    assert assertion_total(task, ran) == len(ran) == 14


def test_cases_that_never_ran_count_all_they_were_to_give(tmp_path: Path) -> None:
    task = service_task(tmp_path)
    never = [
        case(label, "error", line)
        for label, line in (("register", 10), ("conduit", 11), ("test_api.py", 12), ("upper", 13))
    ]
    never.append(case("f(1)", "error", 20))
    # one request, 7 collection assertions, 3 tests, one command line, one call
    assert assertion_total(task, never) == 1 + 7 + 3 + 1 + 1
    # tests that could not run at all (no code, a syntax error): no case, the same count
    assert assertion_total(task, []) == 13


def test_a_case_that_gave_none_of_its_own_results_counts_all_it_was_to_give(
    tmp_path: Path,
) -> None:
    """A collection whose service never started fails as one case labelled as itself
    (Newman reported no assertion): it counts its 7 assertions, as a pytest file that
    reported nothing of its own counts its 3 tests."""
    task = service_task(tmp_path)
    found = [
        case("register", "failed", 10),
        case("conduit", "failed", 11),
        case("test_api.py", "failed", 12),
        case("upper", "passed", 13),
        case("f(1)", "error", 20),
    ]
    assert assertion_total(task, found) == 1 + 7 + 3 + 1 + 1
    # One result of its own (a test) is a run: counted as it is; a collection that ran
    # counts what Newman counted, its assertions: a test script that threw (it stopped
    # the others) and the run's own failure fail the task but are no assertions, as the
    # judge marks them, whatever their labels (a test named from the response's data may
    # read "... > test-script" and is still an assertion).
    found[1:3] = [
        case("conduit > r > t", "failed", 11),
        case("conduit > r > x > test-script", "failed", 11),
        case("conduit > r > test-script", "failed", 11, assertion=False),
        case("conduit > run", "failed", 11, assertion=False),
        case("test_api.py::test_a", "error", 12),
    ]
    assert assertion_total(task, found) == 1 + 2 + 1 + 1 + 1


# -- end to end: records, summary, terminal; -n 0 and -n 2 -----------------------------------

TASKS = """
tasks:
  - id: all-pass
    code: "def f(x):\\n    return x + 1\\n"
    tests:
      - {call: "f(1)", expect: 2}
      - {call: "f(2)", expect: 3}
    constraints:
      - {check: construct, forbid: [loop], level: 0}
  - id: half
    code: "def f(x):\\n    for _ in []:\\n        pass\\n    return 2\\n"
    tests:
      - {call: "f(1)", expect: 2}
      - {call: "f(2)", expect: 3}
      - {call: "f(3)", expect: 4}
      - {call: "f(4)", expect: 5}
    constraints:
      - {check: construct, forbid: [loop], level: 1}
  - id: broken
    code: "def f(:\\n"
    tests:
      - {call: "f(1)", expect: 2}
      - {call: "f(2)", expect: 3}
      - {call: "f(3)", expect: 4}
  - id: file-two-of-three
    code: "def f(x):\\n    return x\\n"
    tests:
      - pytest: behaviour.py
  - id: file-broken
    code: "def f(x:\\n"
    tests:
      - pytest: behaviour.py
"""

BEHAVIOUR = """
from solution import f

def test_one():
    assert f(1) == 1

def test_two():
    assert f(2) == 2

class TestThree:
    def test_three(self):
        assert f(3) == 4
"""

#: (passed, total) per task.
EXPECTED = {
    "all-pass": (2, 2),
    "half": (1, 4),
    "broken": (0, 3),  # never ran: its three calls
    "file-two-of-three": (2, 3),
    "file-broken": (0, 3),  # never ran: the three tests the file defines
}


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest(
        "--codeif",
        "-p",
        "no:cacheprovider",
        "--codeif-report=r.json",
        "--codeif-group-by=kind",
        *args,
    )
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, SCHEMA)
    return result, report


def test_records_summary_and_terminal_agree_with_and_without_workers(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makefile(".py", behaviour=BEHAVIOUR)
    plain, plain_report = run(pytester, "-n", "0")
    workers, workers_report = run(pytester, "-n", "2")
    for report in (plain_report, workers_report):
        found = {t["id"]: t["functional"]["assertions"] for t in report["tasks"]}
        assert {k: (v["passed"], v["total"]) for k, v in found.items()} == EXPECTED
    summary = plain_report["summary"]["assertions"]
    assert summary == workers_report["summary"]["assertions"]
    assert plain_report["groups"] == workers_report["groups"]
    assert (summary["passed"], summary["total"], summary["tasks"]) == (5, 15, 5)
    assert summary["mean_task_rate"] == float(Fraction(1) + Fraction(1, 4) + Fraction(2, 3)) / 5
    # half's constraint is violated: strict counts none of its assertions
    assert (summary["strict"]["passed"], summary["strict"]["total"]) == (4, 15)
    assert summary["by_level"]["1"]["strict"]["passed"] == 0
    assert summary["by_level"]["0"]["passed"] == 2
    line = "  assertions passed: 5/15 33.3%, task mean 38.3%, strict 26.7%"
    for result in (plain, workers):
        assert line in result.outlines
    assert [x for x in plain.outlines if "A%" in x] == [x for x in workers.outlines if "A%" in x]


# -- the HTML page ----------------------------------------------------------------------------

HOSTILE = "<img src=x onerror=alert(1)>"


def page_of(records: list[dict[str, Any]], **options: Any) -> str:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    from pytest_codeif.report.html import build_page
    from pytest_codeif.report.json_report import build_report

    full = [{"metadata": {}, "evidence": [], "notes": [], "error": None, **r} for r in records]
    report = build_report(full, complete=True, exit_status=1, versions={})
    jsonschema.validate(report, SCHEMA)
    return build_page(report, **options)


def cells(page: str, label: str) -> list[list[str]]:
    """The text of each cell in the first table row headed `label`."""
    row = page[page.index(f"<tr><th>{label}</th>") :]
    row = row[: row.index("</tr>")]
    shown = [cell[cell.index(">") + 1 :] for cell in row.split("<td")[1:]]
    return [re.sub(r"<[^>]+>", " ", cell).split() for cell in shown]


def test_the_page_shows_a_percent_beside_pass_fail_by_group_level_and_task() -> None:
    records = [
        {
            **r,
            "task": f"{r['task']}{HOSTILE}",
            "metadata": {"model": "m1" if r["task"] < "c" else "m2"},
        }
        for r in RECORDS
    ]
    page = page_of(records, group_by="model")
    assert '<section id="assertions">' in page and '<a href="#assertions">A%</a>' in page
    # the summary's rows: all, m1, m2 (pooled with passed/total, means with tasks)
    assert cells(page, "assertions passed, A% (pooled)") == [
        ["78.9%", "15/19"],
        ["83.3%", "10/12"],
        ["71.4%", "5/7"],
    ]
    assert cells(page, "A%: mean of the tasks&#x27; rates") == [
        ["72.5%", "4", "tasks"],
        ["70.0%", "2", "tasks"],
        ["75.0%", "2", "tasks"],
    ]
    assert cells(page, "A% strict (pooled)")[0] == ["57.9%", "11/19"]
    # by level: a curve per group (as run and strict) and the table
    section = page[page.index('<section id="assertions">') :]
    section = section[: section.index("</section>")]
    assert section.count("<svg") == 1 and "A% strict by level (pooled)" in section
    # each task: b's violated constraint zeroes its strict figure; hostile ids stay text
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in section
    b = section[section.index("b&lt;img") :]
    assert re.sub(r"<[^>]+>", " ", b[: b.index("</tr>")]).split()[-3:] == ["1/2", "50.0%", "0.0%"]


def test_without_functional_tests_the_page_has_no_assertion_figures() -> None:
    page = page_of([constraint("e", "satisfied", 0)])
    assert 'id="assertions"' not in page and "A%" not in page

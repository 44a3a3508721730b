"""`codeif generate pacific`: seeded PACIFIC answer tasks. The same arguments write the
same bytes and another seed another benchmark; chains are type-consistent and stay in
every instruction's domain; the expected answers are the references' results; the
written benchmark runs under `pytest --codeif` as the issue checks it."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_codeif.cli import main
from pytest_codeif.generate.pacific import Settings, generate
from pytest_codeif.generate.pool import length_of, load_pool

ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
STRICT = re.compile(r"\[ANSWER\]\[(\d+)\] (.*) \[\\ANSWER\]")
ISSUE = ["--instructions", "5", "--length", "5", "--samples", "12", "--seed", "7"]


def _generate(folder: Path, *arguments: str) -> int:
    return main(["generate", "pacific", *arguments, "-o", str(folder)])


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _task_file(folder: Path) -> dict[str, Any]:
    (path,) = folder.glob("*.codeif.yaml")
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_same_arguments_same_bytes_another_seed_another_benchmark(tmp_path: Path) -> None:
    assert _generate(tmp_path / "a", *ISSUE) == 0
    assert _generate(tmp_path / "b", *ISSUE) == 0
    first = _files(tmp_path / "a")
    assert set(first) == {"pacific-7-i5-l5.codeif.yaml", "prompts.jsonl", "reference.jsonl"}
    assert (tmp_path / "a" / "responses").is_dir()
    assert not any((tmp_path / "a" / "responses").iterdir())
    assert first == _files(tmp_path / "b")

    other = [*ISSUE[:-1], "8"]
    assert _generate(tmp_path / "c", *other) == 0
    prompts = [r["prompt"] for r in _jsonl(tmp_path / "a" / "prompts.jsonl")]
    others = [r["prompt"] for r in _jsonl(tmp_path / "c" / "prompts.jsonl")]
    assert len(prompts) == len(others) == 12
    assert all(mine != theirs for mine, theirs in zip(prompts, others, strict=True))


def test_reference_holds_12_answers_of_5_blocks(tmp_path: Path) -> None:
    assert _generate(tmp_path, *ISSUE) == 0
    tasks = _task_file(tmp_path)["tasks"]
    records = _jsonl(tmp_path / "reference.jsonl")
    assert [r["task_id"] for r in records] == [t["id"] for t in tasks]
    assert {r["model"] for r in records} == {"reference"}
    for record, task in zip(records, tasks, strict=True):
        lines = record["response"].splitlines()
        blocks = [STRICT.fullmatch(line) for line in lines]
        assert all(blocks), lines
        assert [int(b[1]) for b in blocks if b] == [1, 2, 3, 4, 5]
        literals = [json.loads(b[2]) for b in blocks if b]
        assert literals == [step["expected"] for step in task["answers"]["steps"]]
        # ints bare, strings in JSON double quotes
        for block, value in zip(blocks, literals, strict=True):
            assert block is not None
            assert block[2] == (str(value) if isinstance(value, int) else json.dumps(value))


def test_the_task_file_reads_answers_and_carries_the_metadata(tmp_path: Path) -> None:
    assert _generate(tmp_path, *ISSUE, "--languages", "python,java,cpp") == 0
    data = _task_file(tmp_path)
    assert data["version"] == 1
    tasks = data["tasks"]
    assert [t["id"] for t in tasks] == [f"pacific-7-i5-l5-{n:03d}" for n in range(1, 13)]
    languages = set()
    for task in tasks:
        assert ID.match(task["id"])
        assert task["responses"] == "responses"
        metadata = task["metadata"]
        assert metadata["benchmark"] == "pacific"
        assert metadata["seed"] == "7"
        assert (metadata["instructions"], metadata["length"]) == (5, 5)
        assert (metadata["render"], metadata["mode"]) == ("code", "prompt")
        languages.add(metadata["language"])
        steps = task["answers"]["steps"]
        assert metadata["chain"] == [step["instruction"] for step in steps]
        assert all(type(step["expected"]) in (int, str) for step in steps)
    assert languages <= {"python", "java", "cpp"}
    assert len(languages) > 1  # 12 draws among three languages
    prompts = {r["task_id"]: r["prompt"] for r in _jsonl(tmp_path / "prompts.jsonl")}
    for task in tasks:
        fence = {"python": "```python", "java": "```java", "cpp": "```cpp"}
        assert fence[task["metadata"]["language"]] in prompts[task["id"]]


def test_chains_are_type_consistent_inside_domains_and_computed_by_the_references() -> None:
    pool = load_pool([])
    for instructions, length in [(3, 3), (8, 5), (15, 10)]:
        samples = generate(Settings(instructions, length, 40, "chains"), pool)
        for sample in samples:
            assert len(sample.steps) == instructions
            value = sample.start
            previous = None
            for step in sample.steps:
                instruction = step.instruction
                if previous is not None:
                    assert instruction.input == previous.output
                assert instruction.domain.admits(value)
                assert step.result == instruction.reference()(value)
                assert type(step.result) is (int if instruction.output == "int" else str)
                if isinstance(step.result, int):
                    assert -(2**31) < step.result < 2**31
                value, previous = step.result, instruction


def test_the_target_length_steers_the_results() -> None:
    pool = load_pool([])

    def mean_length(length: int) -> float:
        samples = generate(Settings(3, length, 60, "steer"), pool)
        return statistics.mean(length_of(s.result) for sample in samples for s in sample.steps)

    short, middle, long = mean_length(3), mean_length(5), mean_length(10)
    assert short < middle < long
    assert abs(short - 3) < 1.5
    assert abs(long - 10) < 4


def test_a_sample_does_not_depend_on_the_count_the_rendering_or_the_languages() -> None:
    pool = load_pool([])
    few = generate(Settings(5, 5, 3, "s"), pool)
    many = generate(Settings(5, 5, 9, "s", languages=("java", "cpp")), pool)
    words = generate(Settings(5, 5, 3, "s", render="nl"), pool)
    for a, b, c in zip(few, many, words, strict=False):
        assert a.task_id == b.task_id == c.task_id
        assert a.start == b.start == c.start
        assert a.steps == b.steps == c.steps
    assert {s.language for s in words} == {"nl"}
    assert {s.language for s in few} == {"python"}


def test_nl_rendering_and_chat_mode(tmp_path: Path) -> None:
    assert _generate(tmp_path, *ISSUE, "--render", "nl", "--mode", "chat") == 0
    tasks = {t["id"]: t for t in _task_file(tmp_path)["tasks"]}
    pool = load_pool([])
    for record in _jsonl(tmp_path / "prompts.jsonl"):
        assert set(record) == {"task_id", "messages"}
        system, user = record["messages"]
        assert (system["role"], user["role"]) == ("system", "user")
        assert "[ANSWER][i] result [\\ANSWER]" in system["content"]
        assert "```" not in user["content"]
        task = tasks[record["task_id"]]
        assert task["metadata"]["language"] == "nl"
        for number, name in enumerate(task["metadata"]["chain"], 1):
            assert f"Step {number}: {pool[name].text}" in user["content"]


def test_prompt_mode_gives_the_code_the_input_and_the_format(tmp_path: Path) -> None:
    assert _generate(tmp_path, "--instructions", "3", "--length", "3", "--samples", "2",
                     "--seed", "p") == 0  # fmt: skip
    task = _task_file(tmp_path)["tasks"][0]
    record = _jsonl(tmp_path / "prompts.jsonl")[0]
    assert set(record) == {"task_id", "prompt"}
    text = record["prompt"]
    pool = load_pool([])
    for name in task["metadata"]["chain"]:
        assert pool[name].code["python"].rstrip() in text
    assert "Step 1: " in text
    assert "Step 2: " in text
    assert "Step 3: " in text
    assert "[ANSWER][i] result [\\ANSWER]" in text
    assert "Answer all 3 steps" in text


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--instructions", "5"], "give --length, --samples, --seed"),
        ([*ISSUE[:-2]], "give --seed"),
    ],
)
def test_missing_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], said: str
) -> None:
    assert _generate(tmp_path, *arguments) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "prompts.jsonl").exists()


@pytest.mark.parametrize(
    "arguments",
    [
        ["--seed", "a b"],
        ["--instructions", "0"],
        ["--languages", "python,rust"],
        ["--mode", "batch"],
    ],
)
def test_bad_arguments_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _generate(tmp_path, *ISSUE, *arguments)
    assert exited.value.code == 2
    assert "codeif generate pacific: error: argument" in capsys.readouterr().err


def test_an_output_that_cannot_be_written_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert _generate(blocker, *ISSUE) == 2
    assert "cannot write" in capsys.readouterr().err


def _answers(report: Path) -> dict[str, Any]:
    answers: dict[str, Any] = json.loads(report.read_text())["summary"]["answers"]
    return answers


def _rewrite(records: list[dict[str, Any]], change: Any) -> str:
    out = []
    for record in records:
        lines = [change(line) for line in record["response"].splitlines()]
        out.append({**record, "response": "\n".join(line for line in lines if line is not None)})
    return "".join(json.dumps(record) + "\n" for record in out)


def test_the_issue_check_end_to_end(pytester: pytest.Pytester) -> None:
    """The issue's check: reference answers are 12 of 12 prompt-level over 60 steps; step
    2 removed from every answer is 12 missing steps; step 3 changed is 12 wrong ones,
    none missing."""
    bench = pytester.path / "bench"
    assert _generate(bench, *ISSUE) == 0
    reference = _jsonl(bench / "reference.jsonl")
    responses = bench / "responses"
    arguments = ["--codeif", "-p", "no:cacheprovider", "--codeif-report=r.json", "bench"]

    shutil.copy(bench / "reference.jsonl", responses / "reference.jsonl")
    result = pytester.runpytest(*arguments)
    result.assert_outcomes(passed=60)
    answers = _answers(pytester.path / "r.json")
    assert answers["tasks"] == 12
    assert answers["steps"] == 60
    for reading in ("strict", "loose"):
        assert answers[reading]["prompt_level"]["satisfied"] == 12
        assert answers[reading]["prompt_level"]["total"] == 12
        assert answers[reading]["steps"]["satisfied"] == 60

    (responses / "reference.jsonl").write_text(
        _rewrite(reference, lambda line: None if line.startswith("[ANSWER][2] ") else line)
    )
    result = pytester.runpytest(*arguments)
    result.assert_outcomes(passed=48, failed=12)
    result.stdout.fnmatch_lines(["*[[]missing[]] step 2 (*): no answer*"])
    answers = _answers(pytester.path / "r.json")
    assert answers["strict"]["prompt_level"]["satisfied"] == 0
    assert answers["strict"]["not_satisfied"]["missing"] == 12
    assert answers["strict"]["not_satisfied"]["wrong"] == 0

    def changed(line: str) -> str:
        found = STRICT.fullmatch(line)
        if found is None or found[1] != "3":
            return line
        value = json.loads(found[2])
        other = value + 1 if isinstance(value, int) else value + "x"
        return f"[ANSWER][3] {json.dumps(other)} [\\ANSWER]"

    (responses / "reference.jsonl").write_text(_rewrite(reference, changed))
    result = pytester.runpytest(*arguments)
    result.assert_outcomes(passed=48, failed=12)
    result.stdout.fnmatch_lines(["*[[]wrong[]] step 3 (*): expected *, got *"])
    answers = _answers(pytester.path / "r.json")
    assert answers["strict"]["prompt_level"]["satisfied"] == 0
    assert answers["strict"]["not_satisfied"]["missing"] == 0
    assert answers["strict"]["not_satisfied"]["wrong"] == 12

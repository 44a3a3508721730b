"""A response record naming a task no task reads (a typo in its `task_id`) is warned
about at its file and line, with the closest task id, never dropped without a word;
records of tasks in another task file reading the same samples are not."""

from __future__ import annotations

import json
import textwrap

import pytest

TASK = textwrap.dedent(
    """\
    tasks:
      - id: {id}
        responses: ../samples.jsonl
        answers:
          steps: [{{expected: 49}}]
    """
)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_record_no_task_reads_is_warned_about(pytester: pytest.Pytester, workers: str) -> None:
    pytester.mkdir("a")
    pytester.mkdir("b")
    (pytester.path / "a" / "one.codeif.yaml").write_text(TASK.format(id="chain-001"))
    (pytester.path / "b" / "two.codeif.yaml").write_text(TASK.format(id="chain-002"))
    records = [
        {"task_id": "chain-001", "model": "m", "response": "[ANSWER][1] 49 [\\ANSWER]"},
        {"task_id": "chain-002", "model": "m", "response": "[ANSWER][1] 49 [\\ANSWER]"},
        {"task_id": "chain-01\x1b[2J", "model": "m", "response": "[ANSWER][1] 49 [\\ANSWER]"},
    ]
    (pytester.path / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = pytester.runpytest("--codeif", "-n", workers, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*UnreadResponsesWarning: 1 response record(s) name a task that no collected task*"
            "samples.jsonl:3: task 'chain-01\\x1b[[]2J' (did you mean 'chain-00*'*"
        ]
    )
    assert "\x1b[2J" not in result.stdout.str()
    # Run alone, a task file does not see the other's tasks: their records are unread.
    alone = pytester.runpytest("--codeif", "a", "-p", "no:cacheprovider")
    alone.stdout.fnmatch_lines(["*2 response record(s)*"])

"""A model response kept in a file is read as a response, never parsed as Python."""

from __future__ import annotations

import json

import pytest

ANSWER = """Sure! Here is the function you asked for.

```python
import os

def add(a, b):
    return a + b
```

It adds two numbers.
"""

TASKS = """
tasks:
  - id: by-extension
    file: answer.md
    constraints:
      - {check: ruff, select: [F401]}
    tests:
      - {call: 'add(1, 2)', expect: 3}
  - id: explicit
    response-file: answer.md
    constraints:
      - {check: ruff, select: [F401]}
  - id: python-file
    file: solution.py
    constraints:
      - {check: ruff, select: [F401]}
  - id: prose-only
    response-file: prose.txt
    constraints:
      - {check: ruff, select: [F401]}
"""


def test_a_response_file_is_extracted_and_findings_point_into_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".md", answer=ANSWER)
    pytester.makefile(".txt", prose="I cannot help with that.\nSorry.\n")
    pytester.makepyfile(solution="def add(a, b):\n    return a + b\n")
    pytester.makefile(".codeif.yaml", t=TASKS)
    result = pytester.runpytest("--codeif", "--codeif-report=r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    by_task = {t["id"]: t for t in report["tasks"]}
    for task in ("by-extension", "explicit"):
        (constraint,) = by_task[task]["constraints"]
        assert constraint["status"] == "violated"
        (evidence,) = constraint["evidence"]
        assert (evidence["path"], evidence["line"]) == ("answer.md", 4)  # `import os`
    assert by_task["by-extension"]["functional"]["status"] == "satisfied"
    assert by_task["python-file"]["constraints"][0]["status"] == "satisfied"
    prose = by_task["prose-only"]["constraints"][0]
    assert (prose["status"], prose["error_kind"]) == ("error", "no-code")
    assert "prose.txt holds no Python code" in prose["error"]
    result.assert_outcomes(passed=2, failed=2, errors=1)

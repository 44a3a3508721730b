"""The result channel is read up to a cap, and a line too deep to parse is skipped: only
the harness's supervisor writes to it, but it is read as untrusted all the same. The code
under evaluation cannot reach it: its worker closed the channel before the import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.functional.channel import MAX_RESULT_LINES, read_records
from pytest_codeif.functional.measure import Request, measure
from pytest_codeif.outcome import Undecidable
from pytest_codeif.sandbox.isolation import choose_isolation

FLOOD = MAX_RESULT_LINES + 1000


def test_records_are_read_up_to_the_cap() -> None:
    lines = [json.dumps({"line": i}) for i in range(FLOOD)]
    records = read_records("\n".join(["not json", "[1, 2]", *lines]) + "\n")
    assert len(records) == MAX_RESULT_LINES - 2  # the first two lines are no records
    assert records[0] == {"line": 0}
    assert records[-1] == {"line": MAX_RESULT_LINES - 3}


def test_a_torn_last_line_is_skipped() -> None:
    assert read_records('{"a": 1}\n{"b": ') == [{"a": 1}]


def test_a_line_too_deep_to_parse_is_skipped() -> None:
    assert read_records("[" * 200_000 + "\n" + '{"a": 1}\n') == [{"a": 1}]


def test_a_measurements_channel_is_out_of_the_codes_reach(tmp_path: Path) -> None:
    # The code, on import, tries to write records of its own to the harness's channel:
    # the descriptor is closed in the worker that imports it, so the write fails and no
    # record of the code's is ever counted.
    code = (
        "import os, sys\n"
        "channel = int(sys.argv[sys.argv.index('--channel') + 1])\n"
        f'os.write(channel, b\'{{"size": 10, "value": 1e-9}}\\n\' * {FLOOD})\n\n'
        "def count(xs):\n"
        "    return len(xs)\n"
    )
    unit = CodeUnit("flood", (SourceFile("solution.py", code, tmp_path),), "solution", False)
    request = Request("count", "[list(range(n))]", (10, 20, 40), "time")
    with pytest.raises(Undecidable, match=r"OSError: .*Bad file descriptor"):
        measure(
            unit,
            "solution",
            request,
            workdir=tmp_path / "work",
            isolation=choose_isolation("auto"),
            timeout=20,
        )

"""`codeif merge`: shards' reports combine into the report of one whole run."""

from __future__ import annotations

import json
import shutil

from pytest_codeif.cli import main
from tests.conftest import FIXTURES, CodeifRunner


def comparable(report: dict) -> dict:
    return {key: report[key] for key in ("tasks", "invalid", "lost", "summary", "complete")}


def test_merged_shards_equal_one_run(run_codeif: CodeifRunner, capsys) -> None:
    pytester = run_codeif.pytester
    shutil.copytree(FIXTURES / "bad", pytester.path / "bad")
    shutil.copytree(FIXTURES / "good", pytester.path / "good")
    run_codeif("bad", "--codeif-report=shard-1.json")
    run_codeif("good", "--codeif-report=shard-2.json")
    run_codeif("bad", "good", "--codeif-report=whole.json")
    out = pytester.path / "merged.json"
    assert (
        main(
            [
                "merge",
                str(pytester.path / "shard-1.json"),
                str(pytester.path / "shard-2.json"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    merged = json.loads(out.read_text())
    whole = json.loads((pytester.path / "whole.json").read_text())
    assert whole["tasks"] and whole["invalid"]  # each shard adds something to compare
    assert comparable(merged) == comparable(whole)
    printed = capsys.readouterr().out
    assert "tasks: all constraints" in printed and "2 reports ->" in printed


def test_merge_refuses_a_file_that_is_not_a_report(tmp_path, capsys) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"tasks": []}')
    assert main(["merge", str(bad), "-o", str(tmp_path / "o.json")]) == 2
    assert "cannot read a report" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()

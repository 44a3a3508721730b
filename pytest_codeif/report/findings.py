"""What the CI outputs (SARIF, GitHub annotations) say about a record, said once: its
rule id, the text of a finding, the text of an undecidable verdict, and where a path is
in the repository. The texts quote code under evaluation: they are made data by
`safe_text`.

Evidence paths are relative to pytest's rootdir; code scanning and annotations want
them relative to the repository's root, which is the rootdir or a folder above it (a
`pyproject.toml` in a sub-folder of the repository).
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_codeif.records import EvidenceEntry, OutcomeRecord, Record
from pytest_codeif.report.records import FUNCTIONAL_SCOPE
from pytest_codeif.report.safe_text import safe_text


def rule_id(record: OutcomeRecord) -> str:
    """`<check>/<constraint id>` (e.g. `construct/recursive`, `ruff/ruff` when the id is
    the default); a task's functional tests are `functional/tests`."""
    if record["kind"] == "functional":
        return "/".join(FUNCTIONAL_SCOPE)
    return f"{record['check']}/{record['constraint']}"


def finding_text(record: OutcomeRecord, evidence: EvidenceEntry) -> str:
    """A finding's message with its rule (when it says more than the check's name), then
    what to do: the constraint's `message`, or else the check's own advice."""
    text = safe_text(evidence["message"] + links_text(evidence))
    rule = str(evidence.get("rule") or "")
    if rule and rule != record.get("check"):
        text = f"[{safe_text(rule)}] {text}"
    todo = record.get("message") or record.get("advice")
    if todo:
        text += f"\nWhat to do: {safe_text(str(todo))}"
    return text


def violation_findings(record: OutcomeRecord) -> list[EvidenceEntry]:
    """A violated record's findings; without any, one at the item's own line (with no
    rule: the text is the check's alone)."""
    return record.get("evidence") or [
        {"path": record["file"], "line": record.get("line"), "rule": "", "message": "violated"}
    ]


def links_text(evidence: EvidenceEntry) -> str:
    """` (links: a.py:3, b.py:7)` for a finding about a chain or cycle of imports, each
    link where it was written (a change may have added any of them); else empty."""
    links = evidence.get("links") or []
    if len(links) < 2:
        return ""
    shown = ", ".join(f"{link.get('path')}:{link.get('line')}" for link in links)
    return f" (links: {shown})"


def item_label(record: Record) -> str:
    """`task::constraint` (`task::tests` for functional tests): the item, in its node id's
    words."""
    if record["kind"] == "constraint":
        return f"{record['task']}::{record['constraint']}"
    if record["kind"] == "functional":
        return f"{record['task']}::{FUNCTIONAL_SCOPE[1]}"
    return str(record.get("task") or record["nodeid"])


def error_text(record: Record) -> str:
    """Why an item has no verdict: undecidable, an invalid task file, or lost."""
    return safe_text(_error_text(record))


def _error_text(record: Record) -> str:
    kind = record.get("error_kind") or "unknown"
    if record["kind"] == "constraint":
        what = f"constraint {record['constraint']!r} (check {record['check']})"
        return f"{what} could not be decided ({kind}): {record.get('error')}"
    if record["kind"] == "functional":
        return f"the functional tests could not be decided ({kind}): {record.get('error')}"
    if record["kind"] == "invalid":
        return f"invalid task file: {record.get('error')}"
    return str(record.get("error") or "no verdict")


def source_root(rootdir: Path) -> Path:
    """The repository's root: the nearest folder from `rootdir` up that holds `.git` (a
    folder, or a file in a worktree or submodule); `rootdir` itself when there is none."""
    for folder in (rootdir, *rootdir.parents):
        if (folder / ".git").exists():
            return folder
    return rootdir


def repo_path(shown: str, rootdir: Path, root: Path) -> str | None:
    """`shown` (a path as the report shows it: relative to `rootdir`, or absolute) as a
    POSIX path relative to `root`; None when it lies outside `root`."""
    target = Path(os.path.normpath(rootdir / shown))
    try:
        return target.relative_to(root).as_posix()
    except ValueError:
        return None

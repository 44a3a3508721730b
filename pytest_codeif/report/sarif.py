"""The SARIF 2.1.0 log (`--codeif-sarif=PATH`): violations as code-scanning results.

One run, whose tool is pytest-codeif. Each constraint is a rule `<check>/<constraint id>`
(`functional/tests` for functional tests), described by its check's docstring (first line:
`shortDescription`; up to its options: `fullDescription`; whole: `help`) and by what to
do when every constraint of that id says the same (the constraint's `message`, else its
check's advice). Each finding of a
violated item is a result of level `error` at its file and line, relative to the
repository root (`uriBaseId` `%SRCROOT%`), with the finding's message and the constraint's
`message`, and a `partialFingerprints` entry that ignores line numbers (see
`fingerprints.py`). Items without a verdict (undecidable, invalid task files, lost) are
not findings in the code: they are the invocation's `toolExecutionNotifications`, level
`warning` for an undecidable verdict and `error` for a task file that could not be read
or an item whose verdict never arrived, so they never open a code-scanning alert.

With a baseline (`--codeif-baseline`), a finding it accepts is still a result, with
`baselineState` `unchanged` and an `external` suppression (accepted), so a reviewer can
see it and code scanning does not alert on it; every other result is `new`. No
`baselineGuid`: the baseline is pytest-codeif's file, not an earlier SARIF run. Findings
outside the changed code (`--codeif-changed-since`) are not results: they were not judged.

Built from records alone, in node-id order, so plain runs and pytest-xdist runs give the
same log. Valid against the OASIS schema (`fixtures/sarif/`, tested).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from pytest_codeif.records import GateEntry, OutcomeRecord, Record, is_outcome, line_of
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.findings import (
    error_text,
    finding_text,
    item_label,
    repo_path,
    rule_id,
    violation_findings,
)

SARIF_VERSION: Final = "2.1.0"
SARIF_SCHEMA: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT: Final = "%SRCROOT%"
#: The `partialFingerprints` key; versioned as SARIF asks (§3.27.17). GitHub's upload
#: action adds its own `primaryLocationLineHash` beside it.
FINGERPRINT_KEY: Final = "codeifFingerprint/v1"
INFORMATION_URI: Final = "https://pytest-codeif.readthedocs.io/"
_FUNCTIONAL_DOC: Final = (
    "The task's functional tests pass.\n\n"
    "Why: the code must work as well as be built as asked. Call cases and pytest files "
    "run in the sandbox; a finding points at the failing case's line in the task file."
)
#: How a finding the baseline file accepts is suppressed (SARIF §3.35: kept outside the
#: source, accepted).
_BASELINE_SUPPRESSION: Final = {
    "kind": "external",
    "status": "accepted",
    "justification": "recorded in the pytest-codeif baseline file (--codeif-baseline)",
}
_SECTION = re.compile(r"^(Options|Example)s?:", re.MULTILINE)


def _doc_parts(doc: str, check: str) -> tuple[str, str]:
    """(first line, text up to the options) of a check's cleaned docstring; the second
    with each paragraph's lines joined, as the docstring's wrapping means nothing there."""
    doc = doc.strip() or f"The constraint of the `{check}` check holds."
    summary = doc.splitlines()[0].strip()
    cut = _SECTION.search(doc)
    head = (doc[: cut.start()] if cut else doc).strip()
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", head))
    return summary, "\n\n".join(p for p in paragraphs if p)


def _rule(rid: str, records: list[OutcomeRecord], doc: str) -> dict[str, Any]:
    first = records[0]
    check = "functional" if first["kind"] == "functional" else str(first["check"])
    summary, description = _doc_parts(doc, check)
    # The constraint's message, else its check's advice (reports from before records
    # carried `advice` have only the message).
    messages = {r.get("advice") or r.get("message") for r in records}
    advice = ""
    if len(messages) == 1 and (message := messages.pop()):
        advice = f"What to do: {message}"
    full = f"{description}\n\n{advice}".strip()
    help_text = f"{advice}\n\n{doc}".strip() if doc else full
    help_md = f"**{advice}**\n\n{doc}".strip() if advice else (doc or full)
    categories = sorted({str(r.get("category")) for r in records if r.get("category")})
    properties: dict[str, Any] = {
        "tags": ["pytest-codeif", *categories],
        "precision": "very-high",
        "check": check,
    }
    if first["kind"] == "constraint":
        properties["constraint"] = first["constraint"]
    return {
        "id": rid,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": "error"},
        "properties": properties,
    }


def _location(
    shown: str, line: int | None, column: int | None, *, rootdir: Path, root: Path
) -> dict[str, Any]:
    """A physical location: relative to %SRCROOT% when inside the repository, else an
    absolute file URI."""
    relative = repo_path(shown, rootdir, root)
    if relative is not None:
        # A file name that is not UTF-8 (its bytes kept as surrogates) is quoted byte
        # by byte: `quote` of the text would fail on them.
        artifact = {"uri": quote(os.fsencode(relative)), "uriBaseId": SRCROOT}
    else:
        artifact = {"uri": (rootdir / shown).resolve().as_uri()}
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if line is not None and line >= 1:
        region: dict[str, Any] = {"startLine": line}
        if column is not None and column >= 1:
            region["startColumn"] = column
        physical["region"] = region
    return {"physicalLocation": physical}


def _results(
    record: OutcomeRecord, rule_index: int, *, rootdir: Path, root: Path, absorbed: bool = False
) -> Iterable[dict[str, Any]]:
    """The results of a record's findings; with `absorbed`, of those its baseline
    accepts (`gate.absorbed`), each suppressed and `unchanged`, where the others are `new`."""
    rid = rule_id(record)
    properties: dict[str, Any] = {
        "nodeid": record["nodeid"],
        "taskFile": record["file"],
        "task": record["task"],
    }
    if record["kind"] == "constraint":
        properties.update(constraint=record["constraint"], check=record["check"])
    gate: GateEntry = record.get("gate") or {}
    evidence = (gate.get("absorbed") or []) if absorbed else violation_findings(record)
    for item in evidence:
        text = f"{finding_text(record, item)}\n({item_label(record)})"
        result: dict[str, Any] = {
            "ruleId": rid,
            "ruleIndex": rule_index,
            "level": "error",
            "message": {"text": text},
            "locations": [
                _location(
                    item["path"], item.get("line"), item.get("column"), rootdir=rootdir, root=root
                )
            ],
            "properties": properties,
        }
        links = item.get("links") or []
        if len(links) > 1:  # a chain or cycle: every import of it, where it was written
            result["relatedLocations"] = [
                {
                    "id": index,
                    **_location(link["path"], link.get("line"), None, rootdir=rootdir, root=root),
                    "message": {"text": f"link {index + 1} of {len(links)}"},
                }
                for index, link in enumerate(links)
            ]
        if item.get("fingerprint"):
            result["partialFingerprints"] = {FINGERPRINT_KEY: item["fingerprint"]}
        if "baseline" in gate:
            result["baselineState"] = "unchanged" if absorbed else "new"
        if absorbed:
            result["suppressions"] = [_BASELINE_SUPPRESSION]
        yield result


def _notification(
    record: Record, rules: Mapping[str, int], *, rootdir: Path, root: Path
) -> dict[str, Any]:
    undecidable = is_outcome(record)
    notification: dict[str, Any] = {
        "level": "warning" if undecidable else "error",
        "message": {"text": f"{error_text(record)}\n({item_label(record)})"},
        "descriptor": {"id": str(record.get("error_kind") or "unknown")},
        "locations": [_location(record["file"], line_of(record), None, rootdir=rootdir, root=root)],
        "properties": {"nodeid": record["nodeid"]},
    }
    if is_outcome(record):
        rid = rule_id(record)
        notification["associatedRule"] = {"id": rid, "index": rules[rid]}
    return notification


def build_sarif(
    records: Iterable[Record],
    *,
    docs: Mapping[str, str],
    rootdir: Path,
    root: Path,
    version: str,
    exit_status: int,
    complete: bool,
    gate: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The SARIF log as plain data. `docs` maps check names to their cleaned docstrings;
    `rootdir` is pytest's, which evidence paths are relative to; `root` the repository's
    (`%SRCROOT%`); `complete` is false when the run was interrupted or lost items."""
    ordered = sorted(records, key=lambda r: str(r["nodeid"]))
    by_rule: dict[str, list[OutcomeRecord]] = {}
    for record in ordered:
        if record["kind"] in ("constraint", "functional"):
            by_rule.setdefault(rule_id(record), []).append(record)
    rule_ids = sorted(by_rule)
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules = []
    for rid in rule_ids:
        first = by_rule[rid][0]
        doc = _FUNCTIONAL_DOC if first["kind"] == "functional" else docs.get(first["check"], "")
        rules.append(_rule(rid, by_rule[rid], doc))
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for record in ordered:
        if record["status"] == "error":
            notifications.append(_notification(record, index, rootdir=rootdir, root=root))
        if not is_outcome(record):
            continue  # lost and invalid items: an error, never a finding
        if record["status"] == "violated":
            rid = rule_id(record)
            results.extend(_results(record, index[rid], rootdir=rootdir, root=root))
        if (record.get("gate") or {}).get("absorbed"):
            rid = rule_id(record)
            results.extend(_results(record, index[rid], rootdir=rootdir, root=root, absorbed=True))
    invocation: dict[str, Any] = {
        "executionSuccessful": complete,
        "exitCode": exit_status,
        "toolExecutionNotifications": notifications,
    }
    if gate is not None:
        invocation["properties"] = {"gate": gate}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "pytest-codeif",
                "version": version,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"summary": summarize(ordered).to_dict()},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}

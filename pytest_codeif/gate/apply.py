"""The gate applied to one constraint: skipped when its scope holds no changed file,
else its findings sorted into those that count, those outside the changed code, and
those the baseline accepts. Runs where the verdict is reached (a pytest-xdist worker), so
the item's outcome is decided there and its record carries every figure the controller
sums.

What a finding is placed by: its file and line as the reports show them (for a directory
task, the real file and line; for inline code, the task file's line holding it; for a
response file, that file's line). A finding without a line counts when its file changed,
even with --codeif-changed-lines: it cannot be placed on a line, and dropping it would
hide it. A finding about a chain or cycle of imports (the architecture contracts) is
placed by every link: it counts when any import on it is in the changed code, since a
change that adds one link makes the chain, wherever the finding is shown. Those
constraints, and mypy's (types cross files), are judged whenever any file of the code
changed (a new link outside their scope can close a chain inside it), and when none
did, skipped only once their options are known to name real modules: a rule that cannot
be applied is an error, never skipped. A finding outside the changed code that no
baseline accepts still counts when the merge base's code does not have it
(`base_code.py`): the change caused it where it cannot be placed (something it removed,
reported at line 1 of the scope's first file; a caller its edit broke). A finding in a
file outside the repository never counts under --codeif-changed-since: nothing there
changed since the ref. A functional test's failure is not filtered: behaviour has no
line.

The record's `gate` entry says what was done: `skipped` (the reason), `outside_changes`
(findings not counted), `baseline` (`read` or `write`), `absorbed` (findings the baseline
accepts, or records when writing, kept for the SARIF log and the baseline file) and
`disappeared` (recorded findings of this constraint no longer found).
"""

from __future__ import annotations

from dataclasses import replace

from pytest_codeif.checks.base import needs_of
from pytest_codeif.engine.engine import Engine
from pytest_codeif.gate.baseline import constraint_key
from pytest_codeif.gate.session import GateState
from pytest_codeif.outcome import Status, Undecidable, Verdict
from pytest_codeif.records import ConstraintRecord, EvidenceEntry, GateEntry
from pytest_codeif.report.records import with_gate
from pytest_codeif.taskfile.model import ConstraintSpec, Task
from pytest_codeif.text import counted as _many
from pytest_codeif.tools import MypyConfig
from pytest_codeif.tools_node import TscConfig


def skip_reason(
    gate: GateState, engine: Engine, task: Task, constraint: ConstraintSpec
) -> str | None:
    """Why `constraint` is not judged (no file in its scope changed), or None. A task
    whose code cannot be read, or a scope that holds no file, is left to the verdict:
    those are errors, not unchanged code."""
    changes = gate.changes
    if changes is None:
        return None
    try:
        unit = engine.unit(task)
    except Undecidable:
        return None
    files = engine.in_scope(unit, constraint.scope)
    if not files:
        return None
    needs = needs_of(constraint.check)
    whole = any(isinstance(config, MypyConfig | TscConfig) for config in needs.tool_configs)
    if needs.judges_import_graph or whole:
        # A chain of imports, or mypy's or tsc's types, cross files: a change anywhere in the
        # code can break what the scope holds.
        if any(gate.changed(source.origin) for source in unit.files):
            return None
        if engine.evaluate(task, constraint).status == "error":
            return None  # a task error (a module name matching nothing) is never skipped
        return f"no file of the code changed {changes.since}"
    if any(gate.changed(source.origin) for source in files):
        return None
    # A project's other files in scope too: a changed requirements.txt or run.sh is what
    # the `files` and `database` checks read.
    if any(gate.changed(other.origin) for other in unit.others_in(constraint.scope)):
        return None
    return f"no file in this constraint's scope changed {changes.since}"


def apply_gate(
    gate: GateState,
    verdict: Verdict,
    record: ConstraintRecord,
    *,
    task: Task | None = None,
    constraint: ConstraintSpec | None = None,
) -> tuple[Verdict, ConstraintRecord]:
    """The verdict once the gate has sorted its findings, and `record` (the verdict's, its
    evidence in the same order) as a new record that matches it. With `task` and
    `constraint`, a finding outside the changed code that the merge base's code lacks
    counts (`base_code.py`)."""
    info: GateEntry = {}
    if gate.baseline is not None or gate.writing:
        info["baseline"] = "write" if gate.writing else "read"
        info["absorbed"] = []
    if verdict.status == "error":
        # Undecidable: no finding is known, so none counts as disappeared either.
        return verdict, with_gate(record, info)
    evidence = record["evidence"]
    located = [(e["path"], e.get("fingerprint")) for e in evidence]
    absorbed = [gate.writing] * len(evidence)
    if gate.baseline is not None and not gate.writing:
        absorbed, info["disappeared"] = gate.baseline.match(constraint_key(record), located)
    in_changes = [True] * len(evidence)
    caused: list[str] = []
    if gate.changes is not None:
        changes = gate.changes
        in_changes = [
            changes.has_line(path, e.get("line"))
            or any(changes.has_line(*link) for link in found.links)
            for (path, _), e, found in zip(located, evidence, verdict.evidence, strict=True)
        ]
        if gate.base is not None and task is not None and constraint is not None:
            outside = [i for i, inside in enumerate(in_changes) if not inside and not absorbed[i]]
            new, doubt = gate.base.new_findings(task, constraint, verdict, outside)
            for index in new:
                in_changes[index] = True
            caused = [doubt] if doubt else []
            if new and not doubt:
                them = "it" if len(new) == 1 else "them"
                caused.append(
                    f"{_many(len(new), 'finding')} outside the changed code counted: the "
                    f"merge base's code does not have {them}, so the change caused {them}"
                )
        info["outside_changes"] = in_changes.count(False)
    kept = [i for i in range(len(evidence)) if in_changes[i] and not absorbed[i]]
    notes = (
        list(verdict.notes)
        + caused
        + _notes(
            gate,
            info,
            [evidence[i] for i in range(len(evidence)) if in_changes[i] and absorbed[i]],
        )
    )
    if len(kept) == len(evidence) and not notes[len(verdict.notes) :]:
        return verdict, with_gate(record, info)
    status: Status = "violated" if kept else "satisfied"
    judged = (status, [evidence[i] for i in kept], notes)
    changed = replace(
        verdict,
        status=status,
        evidence=tuple(verdict.evidence[i] for i in kept),
        notes=tuple(notes),
    )
    return changed, with_gate(record, info, judged=judged)


def _notes(gate: GateState, info: GateEntry, absorbed: list[EvidenceEntry]) -> list[str]:
    """The notes saying what the gate did not count; fills `info["absorbed"]`."""
    notes: list[str] = []
    outside = info.get("outside_changes", 0)
    if outside and gate.changes is not None:
        where = "lines" if gate.changes.lines is not None else "files"
        notes.append(
            f"{_many(outside, 'finding')} outside the {where} changed {gate.changes.since} "
            "not counted"
        )
    if "absorbed" in info:
        info["absorbed"] = absorbed
        if absorbed and gate.writing:
            notes.append(
                f"{_many(len(absorbed), 'finding')} recorded into the baseline {gate.shown}"
            )
        elif absorbed:
            notes.append(f"{_many(len(absorbed), 'finding')} accepted by the baseline {gate.shown}")
    disappeared = info.get("disappeared", 0)
    if disappeared:
        notes.append(
            f"{_many(disappeared, 'finding')} recorded in the baseline {gate.shown} no longer "
            "found (rewrite it with --codeif-baseline-write to drop them)"
        )
    return notes

"""Feedback an agent (or a person) can act on, from outcome records alone: per task, what
was asked, what was found, where, and what to do instead.

Two renderings of the same entries. JSONL (a `.jsonl` path) is for a program: one object
per task (each response of a `responses:` task is a task) with something to fix, in the
shape `entries` documents, whose `text` is the feedback as plain text, ready to send to a
model for its next round. Markdown (any other path) is for a person, a pull-request
comment or GitHub's job summary: a one-line summary, then each task's violated and
undecided items, capped so a huge run still fits a summary. Only items that are not
satisfied appear; skipped constraints and findings a baseline accepts are not findings.

The controller writes it at the end of a run (`--codeif-feedback`, the same with or
without pytest-xdist: records are ordered, never taken in order of arrival), and `codeif
feedback REPORT.json` writes it from a saved JSON report, through these functions.
Messages come from code under evaluation: the Markdown shows every text through
`safe_text` (no control character, no workflow command) and escapes it, so a finding
cannot inject markup, links or @-mentions into a pull-request comment. The JSONL is data:
its texts are exact (as capped in the records).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from pytest_codeif.records import (
    CodeEntry,
    EvidenceEntry,
    GateEntry,
    OutcomeRecord,
    Record,
    is_outcome,
    line_of,
)
from pytest_codeif.report.files import write_text_atomically
from pytest_codeif.report.findings import links_text
from pytest_codeif.report.records import FUNCTIONAL_ADVICE, FUNCTIONAL_SCOPE
from pytest_codeif.report.safe_text import safe_text
from pytest_codeif.text import counted as _many

#: The `version` of every JSONL object; raised when a key changes meaning or goes.
FEEDBACK_VERSION: Final = 1
#: Markdown stops listing tasks after this many, items of one task after MAX_MD_ITEMS and
#: findings of one item after MAX_MD_FINDINGS (the JSONL lists everything).
MAX_MD_TASKS: Final = 50
MAX_MD_ITEMS: Final = 30
MAX_MD_FINDINGS: Final = 10
#: Markdown stops adding tasks past this many characters: GitHub takes at most 1 MiB of
#: job summary per step.
MAX_MD_CHARS: Final = 400_000
#: Longest message, instruction and source line shown in Markdown.
MAX_MD_TEXT: Final = 400
MAX_MD_INSTRUCTION: Final = 600
MAX_SOURCE: Final = 200
#: Largest real file whose lines are read for source excerpts.
MAX_SOURCE_FILE: Final = 2 << 20

#: What to do about an item no check could decide, by error kind.
ERROR_ADVICE: Final = {
    "no-code": "Give the code the task asks for: answer with the code in a fenced "
    "```python block, or provide the file the task names.",
    "syntax-error": "Fix the syntax error so that the code parses; nothing else can be "
    "judged until it does.",
    "timeout": "Make the code finish within the task's time limit: no endless loop, no "
    "waiting for input or the network.",
    "crash": "Make the code run without killing its process (no exit, no unbounded "
    "recursion or memory).",
    "missing-file": "Provide the file the task names, at the path it names.",
    "missing-module": "Install the module the error names where the code runs, or, if no "
    "such package exists, write the code with modules that do.",
    "too-large": "Keep the code within the size limits (the error says which).",
    "checker-failure": "The checker failed, not the code: report the error to whoever "
    "maintains the check or the task.",
    "invalid-task": "Fix the task file at the line the error names.",
    "protocol": "Leave the harness's pipes and descriptors alone: only what the code "
    "returns, raises or prints is read, and a run that writes there is not judged.",
}

#: Reads a file's lines for excerpts: a path as the records show it, its lines or None.
LineReader = Callable[[str], Sequence[str] | None]


def feedback_format(path: Path | str) -> str:
    """`jsonl` for a path ending in `.jsonl`, else `markdown`."""
    return "jsonl" if str(path).lower().endswith(".jsonl") else "markdown"


def code_lines(text: str) -> list[str]:
    r"""The lines of code as findings number them: split at "\n" alone (`str.splitlines`
    also splits at `\f`, `\v`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029, so a hostile
    file would have a finding quote another line than its own), each without a trailing
    "\r"."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def file_lines(rootdir: Path) -> LineReader:
    """A reader of files under `rootdir` (each read once, none larger than
    MAX_SOURCE_FILE, none outside `rootdir`), for excerpts of `file:` and `directory:`
    code."""
    cache: dict[str, list[str] | None] = {}
    base = rootdir.resolve()

    def read(shown: str) -> list[str] | None:
        if shown not in cache:
            cache[shown] = None
            target = (base / shown).resolve()
            try:
                if target.is_relative_to(base) and target.stat().st_size <= MAX_SOURCE_FILE:
                    text = target.read_bytes().decode("utf-8-sig", errors="replace")
                    cache[shown] = code_lines(text)
            except OSError:
                pass  # gone since the run: no excerpt
        return cache[shown]

    return read


# -- the entries (the JSONL objects) ----------------------------------------------------


def _codes(records: Iterable[OutcomeRecord]) -> dict[tuple[str, str], CodeEntry]:
    """Each task's `code` entry, from whichever of its records carries one."""
    found: dict[tuple[str, str], CodeEntry] = {}
    for record in records:
        code = record.get("code")
        if isinstance(code, Mapping):
            found.setdefault((record["file"], record["task"]), code)
    return found


def _value(value: Any) -> str:
    """An option's value in a line: code and long text summarised, lists inline."""
    if isinstance(value, str):
        if "\n" in value.strip():
            return f"({value.strip().count(chr(10)) + 1} lines)"
        return value if len(value) <= 60 else value[:57] + "..."
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


#: Options that are not part of what a constraint asks: a `pattern` rule's `examples`
#: prove the rule to the team (`codeif check-samples`); sent to a model they would give
#: away the team's code and crowd the rule itself out of the summary.
_NOT_ASKED: Final = frozenset({"examples"})


def options_summary(options: Mapping[str, object]) -> str:
    """A constraint's options in one line (`require: [recursion]; function: fib`), at most
    200 characters; code given as an option is shown as its number of lines, and a rule's
    `examples` are left out (they are not what is asked)."""
    text = "; ".join(
        f"{key}: {_value(value)}" for key, value in options.items() if key not in _NOT_ASKED
    )
    return text if len(text) <= 200 else text[:197] + "..."


def _asked(record: OutcomeRecord) -> str:
    if record["kind"] == "functional":
        return "the task's functional tests pass"
    options = options_summary(record.get("options") or {})
    return f"{record['check']} with {options}" if options else str(record["check"])


def _is_real_file(record: OutcomeRecord, evidence: EvidenceEntry) -> bool:
    """The finding is in a real file of the project (`file:`, `directory:`), where the
    path and line the reports show are the code's own; else in a task or response file
    holding the code."""
    code_path = evidence.get("code_path")
    path = str(evidence.get("path") or "")
    return (
        code_path is not None
        and path != record["file"]
        and Path(path).as_posix().endswith(str(code_path))
        and evidence.get("line") == evidence.get("code_line")
    )


def _source(
    record: OutcomeRecord,
    evidence: EvidenceEntry,
    code: CodeEntry | None,
    lines_of: LineReader | None,
) -> str | None:
    """The text of the finding's line in the code, when it can be shown."""
    line = evidence.get("code_line")
    if not isinstance(line, int) or line < 1:
        return None
    lines: Sequence[str] | None = None
    if _is_real_file(record, evidence):
        lines = lines_of(str(evidence["path"])) if lines_of is not None else None
    elif code is not None and code.get("path") == evidence.get("code_path"):
        text = code.get("text")
        lines = code_lines(text) if isinstance(text, str) else None
    if lines is None or line > len(lines):
        return None
    shown = lines[line - 1].rstrip()
    return shown if len(shown) <= MAX_SOURCE else shown[: MAX_SOURCE - 3] + "..."


def _finding(
    record: OutcomeRecord,
    evidence: EvidenceEntry,
    code: CodeEntry | None,
    lines_of: LineReader | None,
    relocate: Callable[[str], str],
) -> dict[str, Any]:
    path = evidence.get("path")
    return {
        "message": str(evidence.get("message", "")) + links_text(evidence),
        "rule": evidence.get("rule"),
        "path": relocate(str(path)) if path is not None else None,
        "line": evidence.get("line"),
        "column": evidence.get("column"),
        "code_path": evidence.get("code_path"),
        "code_line": evidence.get("code_line"),
        "code_column": evidence.get("code_column"),
        "in_project_file": _is_real_file(record, evidence),
        "source": _source(record, evidence, code, lines_of),
    }


def _what_to_do(record: OutcomeRecord) -> str:
    if record["status"] == "error":
        kind = str(record.get("error_kind") or "")
        advice = ERROR_ADVICE.get(kind)
        if kind == "no-observations" or advice is None:
            advice = f"Make the code judgeable: {record.get('error') or 'see the error'}."
            if record.get("advice"):
                advice += f" Then: {record['advice']}"
        return advice
    if record["kind"] == "functional":
        return str(record.get("advice") or FUNCTIONAL_ADVICE)
    return str(record.get("advice") or record.get("message") or "See the check's documentation.")


def _item(
    record: OutcomeRecord,
    *,
    code: CodeEntry | None,
    docs: Mapping[str, str],
    lines_of: LineReader | None,
    relocate: Callable[[str], str],
) -> dict[str, Any]:
    constraint = record if record["kind"] == "constraint" else None
    check = FUNCTIONAL_SCOPE[0] if constraint is None else str(constraint["check"])
    return {
        "kind": record["kind"],
        "status": record["status"],
        "nodeid": record["nodeid"],
        "constraint": FUNCTIONAL_SCOPE[1] if constraint is None else constraint["constraint"],
        "check": check,
        "category": record.get("category"),
        "level": record.get("level"),
        "asked": _asked(record),
        "description": docs.get(check),
        "options": {} if constraint is None else dict(constraint.get("options") or {}),
        "message": record.get("message"),
        "task_file": relocate(str(record["file"])),
        "task_line": record.get("line"),
        "findings": [
            _finding(record, e, code, lines_of, relocate) for e in record.get("evidence") or []
        ],
        "error_kind": record.get("error_kind"),
        "error": record.get("error"),
        "what_to_do": _what_to_do(record),
    }


def _counts(records: Sequence[OutcomeRecord]) -> dict[str, Any]:
    constraints = [r for r in records if r["kind"] == "constraint"]
    functional = next((r for r in records if r["kind"] == "functional"), None)
    status = [r["status"] for r in constraints]
    return {
        "constraints": len(constraints) - status.count("skipped"),
        "satisfied": status.count("satisfied"),
        "violated": status.count("violated"),
        "undecided": status.count("error"),
        "skipped": status.count("skipped"),
        "functional": None if functional is None else functional["status"],
    }


def _needs_work(record: OutcomeRecord) -> bool:
    return record["status"] in ("violated", "error")


def entries(
    records: Iterable[Record],
    *,
    docs: Mapping[str, str] | None = None,
    lines_of: LineReader | None = None,
    relocate: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """One object per task with a violated or undecided item, ordered by task file and
    task id. Shape (`version` 1):

    - `version`, `file` (the task file), `task` (its id: `fib[gpt-4o-s2]` for a
      response), `metadata` (model, sample, round... when the task has them),
      `instruction` (the task's prompt, or null);
    - `counts`: `constraints` judged, `satisfied`, `violated`, `undecided`, `skipped`,
      and `functional` (the functional tests' status, or null without tests);
    - `violations` (an entry per violated constraint, then the failing functional tests)
      and `undecided` (items no check could decide), each with `kind`, `status`,
      `nodeid`, `constraint`, `check`, `category`, `level`, `asked` (check and options
      in a line), `description` (the check's first documentation line, or null),
      `options`, `message` (the constraint's, or null), `task_file` and `task_line`
      (where the constraint is written), `findings`, `error_kind`, `error` and
      `what_to_do` (the constraint's message, else the check's advice; for an undecided
      item, what would let it be decided);
    - each finding: `message`, `rule`, `path` / `line` / `column` (the file the user
      wrote: the project's own file, or the task or response file holding the code),
      `code_path` / `code_line` / `code_column` (the same place in the code evaluated:
      for a response, a line of the code extracted from it; null for a failing test
      case, which is a line of the task file), `in_project_file`, and `source` (the text
      of that line of the code, when known);
    - `text`: all of it as plain text, addressed to whoever writes the next attempt.

    `docs` maps check names to their first documentation line; `lines_of` reads real
    files for `source`; `relocate` maps a path as records show it (relative to the
    rootdir) to the one to print (relative to the repository root)."""
    move = relocate or (lambda path: path)
    ordered = sorted((r for r in records if is_outcome(r)), key=lambda r: r["nodeid"])
    codes = _codes(ordered)
    by_task: dict[tuple[str, str], list[OutcomeRecord]] = {}
    for record in ordered:
        by_task.setdefault((str(record["file"]), str(record["task"])), []).append(record)
    found: list[dict[str, Any]] = []
    for key in sorted(by_task):
        task_records = by_task[key]
        open_items = sorted(
            (r for r in task_records if _needs_work(r)),
            key=lambda r: (r["kind"] == "functional", r.get("line") or 0, str(r["nodeid"])),
        )
        if not open_items:
            continue
        items = [
            _item(r, code=codes.get(key), docs=docs or {}, lines_of=lines_of, relocate=move)
            for r in open_items
        ]
        first = task_records[0]
        entry: dict[str, Any] = {
            "version": FEEDBACK_VERSION,
            "file": move(key[0]),
            "task": key[1],
            "metadata": dict(first.get("metadata") or {}),
            "instruction": first.get("instruction"),
            "counts": _counts(task_records),
            "violations": [i for i in items if i["status"] == "violated"],
            "undecided": [i for i in items if i["status"] == "error"],
        }
        entry["text"] = task_text(entry)
        found.append(entry)
    return found


# -- plain text (for a model) -----------------------------------------------------------


def _where_text(finding: Mapping[str, Any]) -> str:
    """Where a finding is, for whoever wrote the code: its own file and line, or the line
    of the code (for inline code and responses), or the task file's line (a test case)."""
    if finding["in_project_file"]:
        return f"{finding['path']}:{finding['line']}" if finding["line"] else finding["path"]
    if finding["code_line"]:
        return f"line {finding['code_line']} of your code"
    if finding["line"]:
        return f"{finding['path']}:{finding['line']}"
    return str(finding["path"] or "the code")


def _state(item: Mapping[str, Any]) -> str:
    if item["kind"] == "functional":
        return "failed" if item["status"] == "violated" else "could not run"
    return "violated" if item["status"] == "violated" else "could not be checked"


def _asked_text(item: Mapping[str, Any]) -> str | None:
    """The constraint's message, else the check's description; not the message when it
    is what "What to do" says already (a message stands in for the check's advice)."""
    if item["message"] and item["message"] != item["what_to_do"]:
        return str(item["message"])
    return item["description"] or None


def _label(item: Mapping[str, Any]) -> str:
    if item["kind"] == "functional":
        return "The functional tests"
    return f"Constraint `{item['constraint']}` ({item['asked']})"


def task_text(entry: Mapping[str, Any]) -> str:
    """The feedback on one task as plain text: each violated or undecided item with what
    was asked, what was found where (with the line of code), and what to do."""
    counts = entry["counts"]
    lines = [f"Feedback on task {entry['task']}: {_counts_text(counts)}."]
    for number, item in enumerate([*entry["violations"], *entry["undecided"]], start=1):
        lines.append(f"{number}. {_label(item)} {_state(item)}.")
        asked = _asked_text(item)
        if asked:
            lines.append(f"   Asked: {asked}")
        for finding in item["findings"]:
            lines.append(f"   - {_where_text(finding)}: {finding['message']}")
            if finding["source"] is not None:
                lines.append(f"       {finding['source'].strip()}")
        if item["status"] == "error":
            lines.append(f"   Why: {item['error']}")
        lines.append(f"   What to do: {item['what_to_do']}")
    return "\n".join(lines)


def _counts_text(counts: Mapping[str, Any]) -> str:
    parts = [f"{counts['violated']} of {_many(counts['constraints'], 'constraint')} violated"]
    if counts["undecided"]:
        parts.append(f"{counts['undecided']} could not be checked")
    if counts["functional"] == "violated":
        parts.append("functional tests failing")
    elif counts["functional"] == "error":
        parts.append("functional tests could not run")
    return ", ".join(parts)


def to_jsonl(found: Iterable[Mapping[str, Any]]) -> str:
    """One JSON object per line (keys in the documented order, non-ASCII kept, but for
    characters Python would not print: see `_json_escape`)."""
    return "".join(
        _UNPRINTED.sub(_json_escape, json.dumps(entry, ensure_ascii=False, default=str)) + "\n"
        for entry in found
    )


# Characters `json.dumps(ensure_ascii=False)` leaves raw that are not printable: C1
# controls, bidi overrides, and U+0085 / U+2028 / U+2029, which `str.splitlines` and
# some JSON readers take for line ends. JSON strings are the only place they can be.
_UNPRINTED = re.compile(r"[^\x00-\x7e]")


def _json_escape(match: re.Match[str]) -> str:
    """A character that is not printable as its JSON escape (a surrogate pair past
    U+FFFF): the value read back is exact, and the line is safe to print."""
    char = match.group()
    return char if char.isprintable() else json.dumps(char)[1:-1]


# -- Markdown (for a person) ------------------------------------------------------------

_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_SPECIAL = re.compile(r"([\\*_\[\]<>#|!~`])")


def _escape(text: str) -> str:
    """Plain text for Markdown (made data by `safe_text`): punctuation that is markup
    backslash-escaped, `&` an entity, and an @ kept from mentioning anyone."""
    return _markup(safe_text(text))


def _markup(text: str) -> str:
    text = text.replace("&", "&amp;")
    return _SPECIAL.sub(r"\\\1", text).replace("@", "@\u200b")


def code_span(text: str) -> str:
    """`text` (made data by `safe_text`) as one inline code span, whatever backticks it
    holds."""
    return _span(safe_text(text))


def _span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def inline(text: str, limit: int = MAX_MD_TEXT) -> str:
    """Text from a finding as one line of Markdown, made data by `safe_text`: code spans
    it writes (`name`) kept as code, everything else escaped; whitespace collapsed, cut
    at `limit`."""
    flat = " ".join(safe_text(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 3] + "..."
    out: list[str] = []
    last = 0
    for match in _SPAN.finditer(flat):
        out.append(_markup(flat[last : match.start()]))
        out.append(_span(match.group(2)))
        last = match.end()
    out.append(_markup(flat[last:]))
    return "".join(out)


def _where_md(finding: Mapping[str, Any]) -> str:
    if finding["in_project_file"] or not finding["code_line"]:
        where = f"{finding['path']}:{finding['line']}" if finding["line"] else finding["path"]
        return code_span(str(where))
    code = f"{finding['code_path']}:{finding['code_line']}"
    shown = f"{finding['path']}:{finding['line']}" if finding["line"] else finding["path"]
    return f"{code_span(code)} (at {code_span(str(shown))})"


def _item_md(item: Mapping[str, Any]) -> list[str]:
    state = "violated" if item["status"] == "violated" else "undecided"
    where = code_span(f"{item['task_file']}:{item['task_line']}") if item["task_line"] else ""
    if item["kind"] == "functional":
        head = f"- **{state}**: functional tests {where}"
    else:
        asked = inline(item["asked"], 200)
        head = f"- **{state}**: {code_span(str(item['constraint']))} · {asked} {where}"
    lines = [head.rstrip()]
    if item["message"] and item["message"] != item["what_to_do"]:
        lines.append(f"  - asked: {inline(item['message'])}")
    findings = item["findings"]
    for finding in findings[:MAX_MD_FINDINGS]:
        text = f"  - {_where_md(finding)}: {inline(finding['message'])}"
        if finding["source"] is not None:
            text += f" — {code_span(finding['source'].strip())}"
        lines.append(text)
    if len(findings) > MAX_MD_FINDINGS:
        lines.append(f"  - ... and {len(findings) - MAX_MD_FINDINGS} more findings")
    if item["status"] == "error":
        lines.append(f"  - why: {inline(str(item['error']))}")
    lines.append(f"  - **what to do:** {inline(item['what_to_do'], 1000)}")
    return lines


def _task_md(entry: Mapping[str, Any]) -> list[str]:
    title = f"#### {code_span(entry['task'])} in {code_span(entry['file'])}"
    lines = [title, ""]
    metadata = entry["metadata"]
    if metadata:
        shown = " · ".join(f"{_escape(str(k))} {code_span(str(v))}" for k, v in metadata.items())
        lines += [shown, ""]
    if entry["instruction"]:
        lines += [f"> {inline(entry['instruction'], MAX_MD_INSTRUCTION)}", ""]
    items = [*entry["violations"], *entry["undecided"]]
    for item in items[:MAX_MD_ITEMS]:
        lines += _item_md(item)
    if len(items) > MAX_MD_ITEMS:
        lines.append(f"- ... and {_many(len(items) - MAX_MD_ITEMS, 'more item')} to fix")
    return [*lines, ""]


def summary_line(records: Sequence[Record], found: Sequence[Mapping[str, Any]]) -> str:
    """The run in one line: what is violated and undecided, in how many tasks."""
    constraints = [r for r in records if r["kind"] == "constraint"]
    status = [r["status"] for r in constraints]
    tasks = {(r["file"], r["task"]) for r in records if is_outcome(r)}
    judged = len(status) - status.count("skipped")
    violated, undecided = status.count("violated"), status.count("error")
    failing = sum(
        1 for r in records if r["kind"] == "functional" and r["status"] in ("violated", "error")
    )
    if not found:
        text = f"every constraint judged is satisfied ({status.count('satisfied')} of {judged}"
        text += f" in {_many(len(tasks), 'task')})"
    else:
        parts = [_many(violated, "constraint") + " violated"]
        if undecided:
            parts.append(f"{undecided} undecided")
        text = f"{' and '.join(parts)} in {len(found)} of {_many(len(tasks), 'task')}"
        text += f" ({status.count('satisfied')} of {judged} constraints satisfied)"
        if failing:
            text += f"; functional tests failing in {_many(failing, 'task')}"
    extras = []
    if status.count("skipped"):
        extras.append(f"{status.count('skipped')} skipped (no change in their scope)")
    gates = [r.get("gate") or GateEntry() for r in constraints]
    absorbed = sum(len(gate.get("absorbed") or []) for gate in gates)
    if absorbed and any(gate.get("baseline") == "read" for gate in gates):
        extras.append(f"{_many(absorbed, 'finding')} accepted by the baseline")
    broken = [r for r in records if r["kind"] in ("invalid", "lost")]
    if broken:
        extras.append(f"{_many(len(broken), 'item')} not checked (invalid or lost)")
    if extras:
        text += "; " + ", ".join(extras)
    return f"**pytest-codeif:** {text}."


def to_markdown(records: Sequence[Record], found: Sequence[Mapping[str, Any]]) -> str:
    """The feedback for a person: the summary line, then each task with something to fix
    (at most MAX_MD_TASKS, and MAX_MD_CHARS in all), then items that were not checked."""
    lines = [summary_line(records, found), ""]
    size = 0
    shown = 0
    for entry in found:
        if shown >= MAX_MD_TASKS or size > MAX_MD_CHARS:
            break
        block = _task_md(entry)
        size += sum(len(line) + 1 for line in block)
        lines += block
        shown += 1
    if shown < len(found):
        lines += [
            f"... and {_many(len(found) - shown, 'more task')} with something to fix: "
            "see the JSONL feedback or the JSON report.",
            "",
        ]
    broken = sorted(
        (r for r in records if r["kind"] in ("invalid", "lost")), key=lambda r: str(r["nodeid"])
    )
    if broken:
        lines += ["#### Not checked", ""]
        for record in broken[:MAX_MD_TASKS]:
            line = line_of(record)
            where = f"{record['file']}:{line}" if line else record["file"]
            lines.append(f"- {code_span(str(where))}: {inline(str(record.get('error')))}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render(
    records: Iterable[Record],
    fmt: str,
    *,
    docs: Mapping[str, str] | None = None,
    lines_of: LineReader | None = None,
    relocate: Callable[[str], str] | None = None,
) -> str:
    """The feedback as `fmt` (`jsonl` or `markdown`) text."""
    ordered = sorted(records, key=lambda r: str(r["nodeid"]))
    found = entries(ordered, docs=docs, lines_of=lines_of, relocate=relocate)
    return to_jsonl(found) if fmt == "jsonl" else to_markdown(ordered, found)


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (a temporary file renamed over it)."""
    write_text_atomically(path, text)

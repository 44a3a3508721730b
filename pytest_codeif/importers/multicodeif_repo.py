"""`codeif import multicodeif REPO -o DIR`: MultiCodeIF's repository read as it is, with
no conversion step, into the task files `import_multicodeif` writes from `tasks.jsonl`
and `responses/<model>.jsonl`.

The repository's layout (SYSUSELab/MultiCodeIF):

- `dataset/instructions/single_level/<type>.json`: a JSON list of tasks (`id`,
  `category`, `constraint`, `prompt`, `answer`), one file per constraint type; a task's
  key is `<type>/<id>`;
- `dataset/instructions/testcase/<type>.json`: the same tasks with their `tests`;
- `results/single_level/<model>/<type>_<model>_<timestamp>.json`: a JSON list of
  `{id, response}`, `response` the conversation as `[prompt, answer]` turns (the answer
  is the last turn's); the model is the folder's name (the file's may add a suffix,
  `Llama-3.2-3B-Instruct` in `Llama-3.2-3B/`);
- `results/self_repair/R<k>/<model>/...`: the same for round k of the feedback loop.

Each task becomes the record `import_multicodeif` reads, each response the answer it
reads, mapped by the same `build_task`, so the task files are the same (a task's
`metadata.responses` names the results file its response came from). One task file per
setting and model: `<model>.codeif.yaml` (round R0), `R<k>-<model>.codeif.yaml`. Python,
JavaScript and TypeScript tasks are imported (`multicodeif_language`); every task left
out (once: not again for each of its responses), every response whose task is unknown,
and every older run of the same type and model is listed with the reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_codeif.importers.multicodeif import ImportResult, build_task
from pytest_codeif.importers.multicodeif_language import language_of
from pytest_codeif.importers.yaml_out import write_task_file

INSTRUCTIONS: Final = Path("dataset", "instructions")
RESULTS: Final = Path("results")
#: The settings read: their folder under `results/`, and whether it holds round folders.
SETTINGS: Final = {"single_level": False, "self_repair": True}
#: A results file larger than this is not read (it is held in memory whole).
MAX_FILE_BYTES: Final = 1 << 30
_STAMP: Final = re.compile(r"_(\d{8}_\d{6})\.json$")
_ROUND: Final = re.compile(r"R\d+$")
#: The languages whose tasks are imported (`multicodeif_language`'s names).
IMPORTED: Final = frozenset({"Python", "JavaScript", "TypeScript"})
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.\-]")


@dataclass(frozen=True)
class ResultsFile:
    """One results file: where, and what its place in the layout says it holds."""

    path: Path
    shown: str  # relative to the repository, `/`-separated
    round: str  # "R0" for single-level results
    model: str
    type_file: str
    stamp: str


def looks_like_repository(path: Path) -> bool:
    """Whether `path` is a checkout of the MultiCodeIF repository."""
    return (path / INSTRUCTIONS / "single_level").is_dir() and (path / RESULTS).is_dir()


def import_repository(
    repo: Path, out: Path, settings: Iterable[str] = tuple(SETTINGS)
) -> ImportResult:
    """Write one task file per setting (and round) and model of `repo` into `out`."""
    if not looks_like_repository(repo):
        raise ValueError(
            f"{repo} is not a MultiCodeIF checkout: it has no "
            f"{INSTRUCTIONS.as_posix()}/single_level/ and {RESULTS.as_posix()}/ folders"
        )
    result = ImportResult()
    tasks_read = _tasks(repo, result)
    files = _results_files(repo, tasks_read.types, settings, result)
    out.mkdir(parents=True, exist_ok=True)
    by_output: dict[tuple[str, str], list[ResultsFile]] = {}
    for found in files:
        by_output.setdefault((found.round, found.model), []).append(found)
    for (round_, model), group in sorted(by_output.items()):
        name = model if round_ == "R0" else f"{round_}-{model}"
        tasks = _import_group(group, tasks_read, model, result)
        target = out / f"{_UNSAFE.sub('-', name)}.codeif.yaml"
        header = (
            f"Imported by `codeif import multicodeif` from the MultiCodeIF repository "
            f"{repo.name}/\n({len(tasks)} tasks of {model}, round {round_}). Regenerate "
            "rather than edit."
        )
        write_task_file(target, {"version": 1, "tasks": tasks}, header)
        result.files.append(target)
        result.tasks += len(tasks)
    return result


@dataclass(frozen=True)
class _Tasks:
    """The Python tasks by key (as `tasks.jsonl` holds them), the keys of the tasks left
    out, and every type's name."""

    records: dict[str, dict[str, Any]]
    skipped: set[str]
    types: list[str]


def _tasks(repo: Path, result: ImportResult) -> _Tasks:
    """The tasks of `repo`; a task in another language (or in none) is listed as not
    imported."""
    folder = repo / INSTRUCTIONS / "single_level"
    types = sorted(path.stem for path in folder.glob("*.json"))
    records: dict[str, dict[str, Any]] = {}
    skipped: set[str] = set()
    for type_file in types:
        shown = (INSTRUCTIONS / "single_level" / f"{type_file}.json").as_posix()
        tests = _tests_by_id(repo / INSTRUCTIONS / "testcase" / f"{type_file}.json")
        for task in _json_list(folder / f"{type_file}.json"):
            key = f"{type_file}/{task.get('id')}"
            language = language_of(task)
            if language.name not in IMPORTED:
                # The language quoted: `codeif import` counts reasons with quotes elided.
                why = (
                    f"written in {language.name!r} (read from its {language.source})"
                    if language.name
                    else "names no language (in its answer, prompt's code block or prompt)"
                )
                reason = f"{why}; language not supported yet"
                result.unmapped.append({"file": shown, "key": key, "reason": reason})
                skipped.add(key)
                continue
            record = {
                "key": key,
                "type_file": type_file,
                "id": task.get("id"),
                "category": task.get("category"),
                "constraint": task.get("constraint"),
                "prompt": task.get("prompt"),
                "answer": task.get("answer"),
                "language": language.name,
            }
            cases = tests.get(str(task.get("id")))
            if cases:
                record["tests"] = cases
            records[key] = record
    return _Tasks(records, skipped, types)


def _tests_by_id(path: Path) -> dict[str, list[Any]]:
    """Each task's `tests` in a testcase file (none when the file is absent)."""
    if not path.is_file():
        return {}
    found: dict[str, list[Any]] = {}
    for task in _json_list(path):
        cases = task.get("tests")
        if isinstance(cases, list):
            found[str(task.get("id"))] = cases
    return found


def _results_files(
    repo: Path, types: list[str], settings: Iterable[str], result: ImportResult
) -> list[ResultsFile]:
    """The newest results file of each setting, round, model and type; the others, and
    files whose names follow no known type, are listed."""
    newest: dict[tuple[str, str, str], ResultsFile] = {}
    for setting in settings:
        base = repo / RESULTS / setting
        rounds = sorted(p for p in base.glob("*") if p.is_dir()) if SETTINGS[setting] else [base]
        for round_folder in rounds:
            if SETTINGS[setting] and not _ROUND.fullmatch(round_folder.name):
                continue
            round_ = round_folder.name if SETTINGS[setting] else "R0"
            for model_folder in sorted(p for p in round_folder.glob("*") if p.is_dir()):
                for path in sorted(model_folder.glob("*.json")):
                    found = _named(repo, path, round_, model_folder.name, types)
                    if found is None:
                        reason = "not named <type>_<model>_<timestamp>.json for a known type"
                        result.unmapped.append({"file": _shown(repo, path), "reason": reason})
                        continue
                    slot = (found.round, found.model, found.type_file)
                    older = newest.get(slot)
                    if older is not None and older.stamp > found.stamp:
                        older, found = found, older
                    if older is not None:
                        reason = f"an older run of the same type and model ({found.shown} is read)"
                        result.unmapped.append({"file": older.shown, "reason": reason})
                    newest[slot] = found
    return sorted(newest.values(), key=lambda f: (f.round, f.model, f.type_file))


def _named(repo: Path, path: Path, round_: str, model: str, types: list[str]) -> ResultsFile | None:
    """What a results file's name says: its type (the longest known type its name starts
    with) and its timestamp; None when it follows no known type."""
    stamp = _STAMP.search(path.name)
    if stamp is None:
        return None
    stem = path.name[: stamp.start()]
    known = [t for t in types if stem.startswith(f"{t}_")]
    if not known:
        return None
    return ResultsFile(path, _shown(repo, path), round_, model, max(known, key=len), stamp[1])


def _import_group(
    group: list[ResultsFile],
    tasks_read: _Tasks,
    model: str,
    result: ImportResult,
) -> list[dict[str, Any]]:
    """The tasks of one setting and model, as `import_multicodeif` builds them from one
    responses file (its loop, over the records of the results files)."""
    records, skipped = tasks_read.records, tasks_read.skipped
    tasks: list[dict[str, Any]] = []
    for found in group:
        for number, answer in enumerate(_json_list(found.path), 1):
            key = f"{found.type_file}/{answer.get('id')}"
            where = f"{found.shown}:{number}"
            record = records.get(key)
            if record is None:
                if key not in skipped:  # a task left out is listed once, by its own line
                    reason = "no task record with this key"
                    result.unmapped.append({"file": where, "key": key, "reason": reason})
                continue
            response = _last_answer(answer.get("response"))
            if response is None:
                reason = "the record holds no [prompt, answer] turn"
                result.unmapped.append({"file": where, "key": key, "reason": reason})
                continue
            task, notes = build_task(record, model, response, found.shown)
            task["metadata"]["round"] = found.round
            if task.get("constraints") or task.get("tests"):
                tasks.append(task)
            else:
                notes.append("task not written: nothing to check")
            result.constraints += len(task.get("constraints", []))
            result.unmapped.extend(
                {
                    "file": where,
                    "key": key,
                    "model": model,
                    "type_file": str(record.get("type_file")),
                    "reason": note,
                }
                for note in notes
            )
    return tasks


def _last_answer(turns: object) -> str | None:
    """The answer of the conversation's last `[prompt, answer]` turn."""
    if not isinstance(turns, list) or not turns:
        return None
    last = turns[-1]
    if isinstance(last, list) and len(last) >= 2 and isinstance(last[1], str):
        return last[1]
    return None


def _json_list(path: Path) -> list[dict[str, Any]]:
    """A JSON file holding a list of objects; anything else a ValueError naming it."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB; not read")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise ValueError(f"{path}: expected a JSON list of objects")
    return data


def _shown(repo: Path, path: Path) -> str:
    return path.relative_to(repo).as_posix()

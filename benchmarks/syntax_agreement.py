"""Ruff's parser screening syntax for Python's: do they agree, and what does it save?

The engine lets ruff screen the files of a large unit and has Python parse only the files
ruff flags (`pytest_codeif/engine/syntax_check.py`). That is exact only if ruff never
accepts a file Python rejects. This script counts the disagreements on real code: every
Python file of this repository (package, tests, fixtures, examples, including the hostile
samples) and, when ../shared is present, the code extracted from every MultiCodeIF model
response (2,118 responses plus the self-repair rounds), many of them broken. It prints
the count of files where the screened verdict differs from Python's own (must be 0), and
the time of both ways as ratios against Python's parser with the collector paused,
measured in the same run.

Usage: python benchmarks/syntax_agreement.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from pytest_codeif.code.extract import extract_python
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.engine.syntax_check import collector_paused, python_syntax_error, syntax_errors

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpora" / "multicodeif"


def _display(path: Path) -> str:
    return path.as_posix()


def repository_files() -> list[SourceFile]:
    found = []
    for path in sorted(REPO.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(REPO).parts):
            continue
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        found.append(SourceFile(path.relative_to(REPO).as_posix(), text, path))
    return found


def corpus_files() -> list[SourceFile]:
    found = []
    origin = Path("response.md")
    files = sorted(CORPUS.glob("responses/*.jsonl")) + sorted(CORPUS.glob("self_repair/*.jsonl"))
    for jsonl in files:
        for number, line in enumerate(jsonl.read_text(encoding="utf-8").splitlines()):
            if not line.strip():
                continue
            record = json.loads(line)
            texts = [v for k, v in record.items() if isinstance(v, str) and "response" in k]
            for index, text in enumerate(texts):
                code = extract_python(text)
                if code is not None:
                    name = f"{jsonl.stem}/{number}/{index}.py"
                    found.append(SourceFile(name, code.text, origin, tuple(code.line_origin)))
    return found


def main() -> int:
    files = repository_files()
    if CORPUS.is_dir():
        files += corpus_files()
    else:
        print(f"{CORPUS} not found: the repository's files only", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with collector_paused():
            alone = [python_syntax_error(f, _display) for f in files]
        python_time = time.perf_counter() - start
        start = time.perf_counter()
        screened = syntax_errors(files, _display, Path(tmp))
        screened_time = time.perf_counter() - start
    differ = [
        f.relpath
        for f, a, b in zip(files, alone, screened, strict=True)
        if (a is None) != (b is None) or (a is not None and str(a) != str(b))
    ]
    broken = sum(a is not None for a in alone)
    print(f"{len(files)} files, {broken} with a syntax error (Python's parser)")
    print(f"  screened verdict differs from Python's: {len(differ)}")
    for name in differ[:20]:
        print(f"    {name}")
    print(f"  Python's parser, collector paused (baseline) {python_time:7.3f} s   1.00 x")
    print(
        f"  ruff screening + Python on flagged files     {screened_time:7.3f} s"
        f"   {screened_time / python_time:.2f} x"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())

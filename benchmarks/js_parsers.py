"""JavaScript and TypeScript parsers for the checks, measured on the MultiCodeIF corpus's
real JS/TS responses (issue 27): which one to build the JS/TS checks on.

Candidates, each on the same extracted code, in the same run:

- `ast-grep-py` (tree-sitter grammars inside, with ast-grep's pattern language): the
  chosen one (see "Last results" in benchmarks/README.md);
- `tree-sitter` with the `tree-sitter-javascript` and `tree-sitter-typescript` wheels
  (the same grammars, no pattern language): the baseline, the floor ast-grep builds on;
- `esprima` (pure Python, ECMAScript 2017 at most, no JSX, no TypeScript).

Figures per parser: total and per-file parse time (ratios against the baseline), files
it says do not parse, and its agreement with a reference on that: the TypeScript
compiler's own parser (`ts.createSourceFile`'s syntactic diagnostics; JavaScript read
as JSX, TypeScript as TS and then as TSX when TS fails, as the checks do for code with no
file name), run by Node when `--reference DIR` names a folder holding
`node_modules/typescript`. Also: what each does with hostile input (nesting 100,000
deep, a 2 MB file), and, for context, libcst on the corpus's Python responses (what a
Python file costs the engine today).

Parsers that are not installed are skipped with a line saying so. Usage:

    python benchmarks/js_parsers.py [--reference DIR] [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpora" / "multicodeif" / "all-languages" / "responses"

_JS_TAGS = {"javascript", "js", "jsx", "mjs", "cjs", "node", "nodejs"}
_TS_TAGS = {"typescript", "ts", "tsx"}


@dataclass(frozen=True)
class Snippet:
    """One response's JS or TS code: where it came from, its language and text."""

    key: str
    language: str  # "javascript" or "typescript"
    text: str


def corpus_snippets() -> tuple[list[Snippet], list[str]]:
    """The JS/TS code of every JavaScript or TypeScript record (fences tagged as the
    language, else untagged ones), and the Python code of the Python records."""
    from pytest_codeif.code.extract import find_blocks  # noqa: PLC0415 - after sys.path

    js: list[Snippet] = []
    python: list[str] = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            language = str(record.get("language", "")).lower()
            blocks = find_blocks(str(record.get("response", "")))
            if language == "python":
                chosen = [b.text for b in blocks if b.tag in ("python", "py")]
                if chosen:
                    python.append("\n\n".join(chosen) + "\n")
                continue
            if language not in ("javascript", "typescript"):
                continue
            tags = _TS_TAGS if language == "typescript" else _JS_TAGS
            chosen = [b.text for b in blocks if b.tag in tags] or [
                b.text for b in blocks if not b.tag
            ]
            text = "\n\n".join(t for t in chosen if t.strip())
            if text.strip():
                js.append(Snippet(f"{path.stem}:{number}", language, text + "\n"))
    return js, python


Parse = Callable[[Snippet], bool]  # True when the parser says the code parses


def ast_grep_parser() -> Parse | None:
    try:
        from ast_grep_py import SgRoot  # noqa: PLC0415 - optional
    except ImportError:
        return None

    def errors(node: Any) -> bool:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.kind() == "ERROR":
                return True
            children = current.children()
            if not children and current.range().start.index == current.range().end.index:
                return current is not node  # a MISSING node: zero width
            stack.extend(children)
        return False

    def parse(snippet: Snippet) -> bool:
        if snippet.language == "javascript":
            return not errors(SgRoot(snippet.text, "javascript").root())
        if not errors(SgRoot(snippet.text, "typescript").root()):
            return True
        return not errors(SgRoot(snippet.text, "tsx").root())

    return parse


def tree_sitter_parser() -> Parse | None:
    try:
        import tree_sitter_javascript  # type: ignore[import-not-found]  # noqa: PLC0415
        import tree_sitter_typescript  # type: ignore[import-not-found]  # noqa: PLC0415
        from tree_sitter import Language, Parser  # type: ignore[import-not-found]  # noqa: PLC0415
    except ImportError:
        return None
    js = Parser(Language(tree_sitter_javascript.language()))
    ts = Parser(Language(tree_sitter_typescript.language_typescript()))
    tsx = Parser(Language(tree_sitter_typescript.language_tsx()))

    def parse(snippet: Snippet) -> bool:
        data = snippet.text.encode("utf-8")
        if snippet.language == "javascript":
            return not js.parse(data).root_node.has_error
        return not ts.parse(data).root_node.has_error or not tsx.parse(data).root_node.has_error

    return parse


def esprima_parser() -> Parse | None:
    try:
        import esprima  # type: ignore[import-not-found]  # noqa: PLC0415 - optional
    except ImportError:
        return None

    def parse(snippet: Snippet) -> bool:
        for parse_as in (esprima.parseModule, esprima.parseScript):
            try:
                parse_as(snippet.text, {"jsx": True, "tolerant": False})
            except Exception:  # noqa: BLE001, S112 - esprima raises its own Error class
                continue
            return True
        return False

    return parse


_REFERENCE_JS = r"""
const ts = require(process.argv[1] + "/node_modules/typescript");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
const out = [];
for (const line of lines) {
  const s = JSON.parse(line);
  const kinds = s.language === "javascript"
    ? [ts.ScriptKind.JSX] : [ts.ScriptKind.TS, ts.ScriptKind.TSX];
  let ok = false;
  for (const kind of kinds) {
    const f = ts.createSourceFile("x", s.text, ts.ScriptTarget.Latest, false, kind);
    if (f.parseDiagnostics.length === 0) { ok = true; break; }
  }
  out.push(ok);
}
process.stdout.write(JSON.stringify(out));
"""


def reference_verdicts(snippets: list[Snippet], folder: Path) -> list[bool] | None:
    """Whether the TypeScript compiler's parser accepts each snippet (None: no Node)."""
    node = shutil.which("node")
    if node is None or not (folder / "node_modules" / "typescript").is_dir():
        return None
    given = "\n".join(json.dumps({"language": s.language, "text": s.text}) for s in snippets)
    done = subprocess.run(
        [node, "-e", _REFERENCE_JS, str(folder.resolve())],
        input=given,
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts: list[bool] = json.loads(done.stdout)
    return verdicts


def timed(parse: Parse, snippets: list[Snippet], rounds: int) -> tuple[float, list[bool], float]:
    """(best total seconds over `rounds`, verdicts, median seconds per file)."""
    best = float("inf")
    verdicts: list[bool] = []
    per_file: list[float] = []
    for _ in range(rounds):
        times: list[float] = []
        verdicts = []
        for snippet in snippets:
            start = time.perf_counter()
            verdicts.append(parse(snippet))
            times.append(time.perf_counter() - start)
        if sum(times) < best:
            best, per_file = sum(times), times
    return best, verdicts, statistics.median(per_file)


def hostile_inputs() -> Iterator[tuple[str, Snippet]]:
    yield (
        "nesting 100,000 deep",
        Snippet("deep", "javascript", "x = " + "[" * 100_000 + "]" * 100_000),
    )
    yield "2 MB of statements", Snippet("big", "javascript", "let a = 1 + 2;\n" * 140_000)
    yield "100,000 unclosed braces", Snippet("open", "typescript", "{" * 100_000)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--reference", type=Path, help="folder with node_modules/typescript")
    options.add_argument("--rounds", type=int, default=3)
    args = options.parse_args()
    snippets, python = corpus_snippets()
    size = sum(len(s.text.encode()) for s in snippets)
    counts = {
        lang: sum(s.language == lang for s in snippets) for lang in ("javascript", "typescript")
    }
    print(f"{len(snippets)} responses ({counts}), {size / 1e6:.2f} MB of JS/TS code")
    reference = reference_verdicts(snippets, args.reference) if args.reference else None
    if reference is not None:
        print(f"reference (TypeScript's parser): {reference.count(False)} do not parse")
    parsers = {
        "tree-sitter (baseline)": tree_sitter_parser(),
        "ast-grep-py": ast_grep_parser(),
        "esprima": esprima_parser(),
    }
    base: float | None = None
    for name, parse in parsers.items():
        if parse is None:
            print(f"{name}: not installed, skipped")
            continue
        total, verdicts, median = timed(parse, snippets, args.rounds)
        base = base if base is not None else total
        line = (
            f"{name}: {total:.3f} s ({total / base:.2f} x baseline), median "
            f"{median * 1e3:.2f} ms/file, {verdicts.count(False)} do not parse"
        )
        if reference is not None:
            agree = sum(v == r for v, r in zip(verdicts, reference, strict=True))
            missed = sum(v and not r for v, r in zip(verdicts, reference, strict=True))
            false = sum(r and not v for v, r in zip(verdicts, reference, strict=True))
            line += (
                f"; agrees with the reference on {agree}/{len(snippets)} "
                f"(accepts {missed} it rejects, rejects {false} it accepts)"
            )
        print(line)
    for name, parse in parsers.items():
        if parse is None:
            continue
        for what, snippet in hostile_inputs():
            start = time.perf_counter()
            try:
                result = "parses" if parse(snippet) else "syntax error"
            except Exception as exc:  # noqa: BLE001 - what a parser does with it is the figure
                result = f"{type(exc).__name__}"
            print(f"  {name}, {what}: {result} in {time.perf_counter() - start:.2f} s")
    try:
        import libcst  # noqa: PLC0415 - optional
    except ImportError:
        return
    start = time.perf_counter()
    for text in python:
        with contextlib.suppress(Exception):  # only the time counts here
            libcst.parse_module(text)
    spent = time.perf_counter() - start
    python_size = sum(len(t.encode()) for t in python)
    print(
        f"context: libcst on {len(python)} Python responses ({python_size / 1e6:.2f} MB): "
        f"{spent:.3f} s, {spent / python_size * 1e9:.1f} µs/KB against the baseline's "
        f"{(base or 0) / size * 1e9:.1f} µs/KB"
    )


if __name__ == "__main__":
    main()

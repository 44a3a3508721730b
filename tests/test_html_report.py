"""A report a reader can use: the JSON report carries each task's code and each finding's
place in it, and `codeif report` turns a report into one HTML page, read here by a real
headless browser (Debian's chromium) where one is installed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_codeif.cli import main
from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.errors import Location
from pytest_codeif.report.figures.summary import summarize
from pytest_codeif.report.json_report import SCHEMA_PATH, build_report, records_of
from pytest_codeif.report.task_code import MAX_CODE_CHARS, code_entry, line_runs
from pytest_codeif.spec import CodeSpec
from tests.conftest import CodeifRunner

# Imported before any pytester run, which restores sys.modules after it: matplotlib's
# compiled parts (numpy's) cannot be imported a second time in one process.
with contextlib.suppress(ImportError):  # the tests that need the `report` extra skip
    import matplotlib.figure  # noqa: F401

SCHEMA = json.loads(SCHEMA_PATH.read_text())

TASKS = """\
tasks:
  - id: inline
    metadata: {model: m-a}
    code: |
      def f(xs):
          for x in xs:
              pass
    constraints:
      - check: construct
        forbid: [loop]
  - id: answer
    metadata: {model: m-b}
    response: |
      Sure:
      ```python
      def g(s):
          return eval(s)
      ```
    constraints:
      - check: ruff
        select: [S307]
  - id: real
    file: solution.py
    constraints:
      - check: ruff
        select: [S307]
  - id: many
    responses: answers.jsonl
    constraints:
      - check: construct
        forbid: [loop]
      - check: naming
        function: snake_case
"""
ANSWER = "Here it is:\n```python\ndef f(xs):\n    for x in xs:\n        pass\n```\n"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_report_carries_each_tasks_code_once_and_findings_in_both_places(
    run_codeif: CodeifRunner,
) -> None:
    pytester = run_codeif.pytester
    pytester.makefile(".codeif.yaml", t=TASKS)
    pytester.makepyfile(solution="def h(s):\n    return eval(s)\n")
    answers = json.dumps({"key": "many", "model": "m-c", "response": ANSWER})
    pytester.path.joinpath("answers.jsonl").write_text(answers + "\n")
    result = run_codeif("--codeif-report=r.json")
    result.assert_outcomes(passed=1, failed=4)
    report = json.loads(pytester.path.joinpath("r.json").read_text())
    jsonschema.validate(report, SCHEMA)
    tasks = {t["id"]: t for t in report["tasks"]}
    assert all("code" not in c for t in tasks.values() for c in t["constraints"])
    yaml = pytester.path.joinpath("t.codeif.yaml").read_text()

    inline = tasks["inline"]
    first = line_of(yaml, "def f(xs):")
    assert inline["code"] == {
        "kind": "code",
        "origin": "t.codeif.yaml",
        "origin_line": first,
        "path": "solution.py",
        "text": "def f(xs):\n    for x in xs:\n        pass\n",
        "lines": [[1, first, 3]],
        "lines_in": "origin",
        "lines_total": 3,
        "lines_shown": 3,
    }
    (loop,) = inline["constraints"][0]["evidence"]
    assert (loop["path"], loop["line"], loop["column"]) == ("t.codeif.yaml", first + 1, None)
    assert (loop["code_path"], loop["code_line"]) == ("solution.py", 2)

    answer = tasks["answer"]
    fence = line_of(yaml, "```python")
    assert answer["code"]["text"] == "def g(s):\n    return eval(s)\n"
    assert answer["code"]["lines"] == [[1, fence + 1, 2]]
    (call,) = answer["constraints"][0]["evidence"]
    assert (call["line"], call["column"]) == (fence + 2, None)
    assert (call["code_line"], call["code_column"]) == (2, 12)

    real = tasks["real"]
    assert real["code"] == {"kind": "file", "paths": ["solution.py"], "paths_total": 1}
    (call,) = real["constraints"][0]["evidence"]
    assert (call["path"], call["line"], call["column"]) == ("solution.py", 2, 12)
    assert (call["code_line"], call["code_column"]) == (2, 12)

    # A response on one line of a JSONL file: its code lines map to the response's lines.
    many = tasks["many[m-c-s0]"]
    assert many["code"]["origin"] == "answers.jsonl"
    assert many["code"]["origin_line"] == 1
    assert (many["code"]["lines"], many["code"]["lines_in"]) == ([[1, 3, 3]], "response")
    loop = next(c for c in many["constraints"] if c["check"] == "construct")["evidence"][0]
    assert (loop["path"], loop["line"], loop["code_line"]) == ("answers.jsonl", 1, 2)

    # `codeif report` shows each violation's code with its line marked, the real file's too.
    # Drawing the page needs the `report` extra; the JSON report above is checked without it.
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    page_path = pytester.path / "r.html"
    assert (
        main(
            [
                "report",
                str(pytester.path / "r.json"),
                "-o",
                str(page_path),
                "--root",
                str(pytester.path),
            ]
        )
        == 0
    )
    page = page_path.read_text()
    assert '<td class="ln">▶ 2</td><td class="src">    for x in xs:</td>' in page
    assert '<td class="src">    return <span class="at">eval(s)</span></td>' in page
    assert page.count('<tr class="hit">') == 4


def test_code_is_capped_with_a_note_and_runs_stay_compact() -> None:
    assert line_runs((5, 6, 7, 9, 10, 10)) == [[1, 5, 3], [4, 9, 2], [6, 10, 1]]
    text = "".join(f"x{i} = {i}  # {'y' * 60}\n" for i in range(2000))
    source = SourceFile("solution.py", text, Path("/r/t.codeif.yaml"), tuple(range(10, 2010)))
    unit = CodeUnit("u1", (source,), "solution", is_project=False)
    spec = CodeSpec("code", text, Location(Path("/r/t.codeif.yaml"), 9, ()), None)
    entry = code_entry(spec, unit, lambda p: p.name)
    assert len(entry["text"]) <= MAX_CODE_CHARS
    assert entry["text"].endswith("\n")
    assert entry["lines_total"] == 2000
    assert entry["lines_shown"] == entry["text"].count("\n") < 2000
    assert entry["lines"] == [[1, 10, entry["lines_shown"]]]
    assert "the report keeps the first" in entry["note"]


# -- the HTML page ---------------------------------------------------------------------

HOSTILE = "</script><img src=x onerror=alert(1)><script>alert(2)</script>"
CODE = f"def f(xs):\n    # {HOSTILE}\n    for x in xs:\n        pass\n    return xs\n"


def record(
    task: str,
    constraint: str,
    status: str,
    *,
    model: str,
    round_: str,
    level: int,
    count: int,
    category: str = "Algorithm",
    code_line: int | None = None,
) -> dict[str, Any]:
    evidence = []
    if status == "violated":
        evidence = [
            {
                "path": "t.codeif.yaml",
                "line": 10 + (code_line or 0),
                "column": None,
                "code_path": "solution.py",
                "code_line": code_line,
                "code_column": 5 if code_line else None,
                "rule": f"rule-{HOSTILE}",
                "message": f"found a loop {HOSTILE}",
            }
        ]
    return {
        "kind": "constraint",
        "nodeid": f"t.codeif.yaml::{task}::{constraint}",
        "file": "t.codeif.yaml",
        "task": task,
        "metadata": {"model": model, "round": round_, "note": HOSTILE},
        "status": status,
        "error_kind": "timeout" if status == "error" else None,
        "error": f"timed out {HOSTILE}" if status == "error" else None,
        "evidence": evidence,
        "notes": [],
        "cached": False,
        "line": 9,
        "constraint": constraint,
        "check": "construct",
        "category": category,
        "level": level,
        "options": {},
        "message": f"Use recursion {HOSTILE}",
        "constraints_in_task": count,
        "has_tests": False,
    }


def synthetic_report() -> dict[str, Any]:
    """Two models (one hostile name), two rounds, chains of levels 0-1, a hostile code."""
    records: list[dict[str, Any]] = []
    models = ("model-a", f"m{HOSTILE}")
    for m, model in enumerate(models):
        for r, round_ in enumerate(("R0", "R1")):
            for step in range(2):
                task = f"t{m}{step}[{model}-{round_}]"  # one task, answered in two rounds
                for level in range(step + 1):
                    ok = (m + r + level) % 2 == 0 or (r == 1 and level == 0)
                    status = "satisfied" if ok else "violated"
                    if m == 1 and r == 0 and step == 1 and level == 0:
                        status = "error"
                    category = "Algorithm" if level == 0 else HOSTILE
                    records.append(
                        record(
                            task,
                            f"c{level}",
                            status,
                            model=model,
                            round_=round_,
                            level=level,
                            count=step + 1,
                            category=category,
                            code_line=3,
                        )
                    )
                first = next(x for x in records if x["task"] == task)
                first["code"] = {
                    "kind": "response",
                    "origin": "answers.jsonl",
                    "origin_line": m + 1,
                    "path": "solution.py",
                    "text": CODE,
                    "lines": [[1, 3, 5]],
                    "lines_in": "response",
                    "lines_total": 5,
                    "lines_shown": 5,
                }
    report = build_report(records, complete=True, exit_status=1, versions={"ruff": HOSTILE})
    jsonschema.validate(report, SCHEMA)
    return report


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each table's cells."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append(" ".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and data.strip():
            self._cell.append(data.strip())


def parsed(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


@pytest.fixture
def page() -> str:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    from pytest_codeif.report.html import build_page

    return build_page(synthetic_report())


def test_hostile_text_stays_text(page: str) -> None:
    tags = parsed(page)
    names = {tag for tag, _ in tags.tags}
    assert not names & {"script", "img", "iframe", "object", "embed", "link"}
    handlers = [name for _, attrs in tags.tags for name, _ in attrs if name.startswith("on")]
    assert handlers == []
    assert "<img" not in page and "</script>" not in page
    # ... and is shown, escaped: in tables, code, messages, metadata and the plots' labels.
    shown = "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
    assert page.count(shown) >= 10
    heatmap = page[page.index('id="heatmap"') : page.index('id="decay"')]
    assert "onerror" in heatmap and "<img" not in heatmap
    # Nothing is fetched when the page is viewed: no address but SVG's namespaces.
    addresses = [n for _, attrs in tags.tags for n, v in attrs if v and "://" in v]
    assert all(name.startswith("xmlns") for name in addresses)
    assert re.search(r"url\((?!#)", page) is None  # in-page references only


def test_page_sections_and_marked_lines(page: str) -> None:
    tags = parsed(page)
    for section in ("summary", "heatmap", "decay", "rounds", "violations", "errors"):
        assert f'<section id="{section}">' in page
    assert page.count("<svg") == 3  # heatmap, decay, rounds
    overall = summarize(records_of(synthetic_report()))
    ssr = next(row for table in tags.tables for row in table if row[0].startswith("constraints"))
    c = overall.constraints
    assert ssr[1] == f"{c.rate * 100:.1f}% {c.satisfied}/{c.total}"
    # Every violation shows its code with the offending line (code line 3) marked.
    violated = sum(
        o["status"] == "violated" for t in synthetic_report()["tasks"] for o in t["constraints"]
    )
    assert page.count('<tr class="hit"><td class="ln">▶ 3</td>') == violated
    assert '<span class="at">for x in xs:</span>' in page


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text(json.dumps(build_report([], complete=True, exit_status=0, versions={})))
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from pytest_codeif.cli import main\n"
        f"raise SystemExit(main(['report', {str(report)!r}, '-o', {str(tmp_path / 'r.html')!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'pytest-codeif[report]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_file_that_is_no_report_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    bad = tmp_path / "bad.json"
    bad.write_text('{"tasks": []}')
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    assert "not a report ($: 'schema_version' is a required property)" in capsys.readouterr().err
    bad.write_text("{not json")
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    assert f"cannot read {bad}" in capsys.readouterr().err


def chromium() -> str | None:
    return next((p for name in ("chromium", "chromium-browser") if (p := shutil.which(name))), None)


def test_page_in_headless_chromium(tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does)")
    pytest.importorskip("matplotlib", reason="the `report` extra (matplotlib) is not installed")
    pytest.importorskip("PIL", reason="Pillow (which matplotlib brings) reads the screenshot")
    from PIL import Image

    from pytest_codeif.report.html import build_page

    report = synthetic_report()
    target = tmp_path / "report.html"
    target.write_text(build_page(report), encoding="utf-8")
    shot = tmp_path / "shot.png"
    common = [
        browser,
        "--headless",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,2400",
    ]
    if os.geteuid() == 0:
        common.append("--no-sandbox")  # chromium refuses to run as root with its sandbox

    def browse(*args: str) -> str:
        done = subprocess.run(
            [*common, *args, target.as_uri()],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.stdout

    browse(f"--screenshot={shot}")
    dom = browse("--dump-dom")

    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 2400)
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50, "the screenshot is (nearly) blank"
    background = max(colours)[0]
    assert background < 0.9 * image.size[0] * image.size[1]

    tables = parsed(dom).tables
    rows = {row[0]: row[1:] for table in tables for row in table if row}
    overall = summarize(records_of(report))
    c, t = overall.constraints, overall.tasks_all
    assert rows["constraints satisfied (SSR)"][0] == f"{c.rate * 100:.1f}% {c.satisfied}/{c.total}"
    assert rows["tasks: all constraints (HSR)"][0] == f"{t.rate * 100:.1f}% {t.satisfied}/{t.total}"
    level1 = report["summary"]["decay"]["by_level"]["1"]["constraints"]
    assert rows["level 1"][0].endswith(f"{level1['satisfied']}/{level1['total']}")
    assert "R1" in rows and "+" in rows["R1"][-1]  # what round R1 fixed and broke


def test_plot_labels_are_text_the_fonts_can_draw() -> None:
    from pytest_codeif.report.html_plots import label

    # A lone surrogate (a model name read back from a JSON report) stopped FreeType.
    assert label("bad\ud800x") == "bad?x"
    assert label("_hidden") == " _hidden"

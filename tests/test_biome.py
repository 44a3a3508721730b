"""The `biome` check (issue 27): Biome's lint rules on JavaScript and TypeScript, one run
per configuration for every unit of the session, findings at the file and line the code
came from; `// biome-ignore` comments blanked (and `eslint-disable` ones reported) and
a planted `biome.json` never read, unless the task allows suppressions; a missing Biome
a `missing-tool` error, never a pass; file names and positions the tool cannot take
mapped or refused, never misplaced."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from pytest_codeif.checks.biome import BiomeCheck
from pytest_codeif.code.js_suppressions import BIOME_KINDS, find_js_suppressions, neutralise_js
from pytest_codeif.code.unit import CodeUnit, SourceFile
from pytest_codeif.engine import tool_batches as batches_module
from pytest_codeif.engine.engine import Engine
from pytest_codeif.errors import Location
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task
from pytest_codeif.tools_node import (
    BiomeConfig,
    NodeRun,
    biome_binary,
    biome_configuration,
    run_biome,
)
from pytest_codeif.tools_node.biome import _biome_findings

needs_biome = pytest.mark.skipif(
    biome_binary() is None,
    reason="Biome is not installed (npm @biomejs/biome on PATH, or CODEIF_NODE_TOOLS)",
)


def run(pytester: pytest.Pytester, tasks: str, *args: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess(
        "--codeif", "-p", "no:randomly", "-p", "no:cacheprovider", *args
    )


def task(tmp_path: Path, task_id: str, code: str, language: str = "javascript") -> Task:
    location = Location(tmp_path / "t.codeif.yaml", 1, ())
    spec = CodeSpec("code", code, location, None, language=language)
    return Task(task_id, location.path, location, spec)


def constraint(check: BiomeCheck) -> ConstraintSpec:
    return ConstraintSpec(check.name, check, check.category, None, None, Location(Path("x"), 1, ()))


def js(text: str, relpath: str = "app.js") -> SourceFile:
    return SourceFile(relpath, textwrap.dedent(text), Path(relpath), language="javascript")


# -- suppression comments ---------------------------------------------------------------


def test_only_real_comments_are_suppressions_and_blanking_keeps_every_position() -> None:
    source = js(
        """\
        const s = "// biome-ignore lint: in a string";
        const t = `/* eslint-disable */ ${x}`;
        const r = /biome-ignore/;
        // biome-ignore lint/suspicious/noDoubleEquals: é😀
        if (a == 1) {}
        /* biome-ignore-all lint: spans
           two lines */ if (b == 2) {}
        /* eslint-disable no-var */
        """
    )
    found = find_js_suppressions(source)
    assert [(s.kind, s.line, s.column) for s in found] == [
        ("biome-ignore", 4, 0),
        ("biome-ignore", 6, 0),
        ("eslint-disable", 8, 0),
    ]
    assert found[1].text == "/* biome-ignore-all lint: spans"  # its first line, as shown
    blanked = neutralise_js(source.text, found, BIOME_KINDS)
    assert "biome-ignore lint/" not in blanked and "biome-ignore-all" not in blanked
    assert "eslint-disable no-var" in blanked  # not a kind Biome honours: left as written
    assert "// biome-ignore lint: in a string" in blanked  # a string is code
    assert len(blanked) == len(source.text)
    assert blanked.splitlines()[6].endswith("if (b == 2) {}")
    assert [len(line) for line in blanked.split("\n")] == [
        len(line) for line in source.text.split("\n")
    ]


def test_blanking_keeps_javascript_line_terminators_inside_a_comment() -> None:
    text = "/* biome-ignore lint: a\r\nb\u2028c */ x == 1;\n"
    [found] = find_js_suppressions(js(text))
    blanked = neutralise_js(text, [found], BIOME_KINDS)
    assert blanked == " " * 23 + "\r\n" + " " + "\u2028" + " " * 4 + " x == 1;\n"


def test_code_that_does_not_parse_has_no_suppressions_to_report() -> None:
    assert find_js_suppressions(js("// biome-ignore lint: x\nfunction (\n")) == []


# -- options ------------------------------------------------------------------------------


@needs_biome
def test_a_selector_that_names_no_rule_is_refused_with_a_suggestion() -> None:
    with pytest.raises(ValueError, match=r"'noDoubleEqual' names no Biome .*'noDoubleEquals'"):
        BiomeCheck({"select": ["noDoubleEqual"]})
    with pytest.raises(ValueError, match=r"'style/noVar' .*did you mean 'suspicious/noVar'"):
        BiomeCheck({"select": ["style/noVar"]})
    for fine in ("noVar", "suspicious", "suspicious/noVar", "lint/suspicious/noVar", "react"):
        assert BiomeCheck({"select": [fine]}).config.only == (fine,)


@needs_biome
def test_a_preset_with_more_rules_switches_them_on_instead_of_narrowing_it() -> None:
    config = BiomeCheck(
        {"select": ["recommended", "noDefaultExport", "style", "react"], "ignore": ["noVar"]}
    ).config
    assert (config.preset, config.only, config.skip) == ("recommended", (), ("noVar",))
    assert dict(config.settings) == {
        "linter.rules.style.noDefaultExport": '"on"',
        "linter.rules.style": '"on"',
        "linter.domains.react": '"all"',
    }


def test_max_complexity_configures_biomes_cognitive_complexity_rule() -> None:
    config = BiomeCheck({"select": ["noExcessiveCognitiveComplexity"], "max-complexity": 3}).config
    [(key, value)] = config.settings
    assert key == "linter.rules.complexity.noExcessiveCognitiveComplexity"
    assert json.loads(value) == {"level": "on", "options": {"maxAllowedComplexity": 3}}


def test_settings_that_name_files_are_refused_by_the_schema(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
        tasks:
          - id: t
            language: javascript
            code: "let a = 1;\\n"
            constraints:
              - check: biome
                select: [noVar]
                settings: {files.includes: ["/etc/**"]}
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*tasks.codeif.yaml:8: at *.settings: `files.includes` does not*"])


# -- end to end ---------------------------------------------------------------------------

TASKS = """
tasks:
  - id: response
    response: |
      Here it is:
      ```js
      var total = 0;
      // biome-ignore lint/suspicious/noDoubleEquals: the model says so
      if (total == "0") {
        total += 1;
      }
      ```
    constraints:
      - check: biome
        select: [noVar, suspicious/noDoubleEquals]
  - id: allowed
    language: typescript
    code: |
      // biome-ignore lint/suspicious/noDoubleEquals: coerces on purpose
      export const isZero = (x: unknown): boolean => x == 0;
    constraints:
      - check: biome
        select: [noDoubleEquals]
        allow-suppressions: true
  - id: project
    directory: project
    constraints:
      - check: biome
        select: [noVar, noDebugger]
  - id: clean
    language: javascript
    code: |
      const total = 1;
      export default total;
    constraints:
      - check: biome
        select: [recommended]
"""


def write_project(root: Path) -> None:
    src = root / "project" / "src"
    src.mkdir(parents=True)
    # Planted configuration that would switch the linter off, were it read.
    (root / "project" / "biome.json").write_text('{"root": true, "linter": {"enabled": false}}')
    (root / "project" / ".eslintrc").write_text('{"rules": {"no-var": "off"}}')
    (root / "project" / "package.json").write_text('{"name": "p", "type": "module"}')
    (src / "a.js").write_text("/* eslint-disable */\nvar a = 1;\nexport { a };\n")
    (src / "b.ts").write_text("export function f(): void {\n  debugger;\n}\n")


@needs_biome
def test_biome_judges_responses_code_and_projects_in_one_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    real = batches_module.run_biome

    def counting(config: BiomeConfig, root: Path, files: list[str], workdir: Path) -> NodeRun:
        runs.append(len(files))
        return real(config, root, files, workdir)

    monkeypatch.setattr(batches_module, "run_biome", counting)
    write_project(pytester.path)
    result = run(pytester, TASKS, "-rA")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*tasks.codeif.yaml:6: [[]lint/suspicious/noVar[]] Use let or const instead of var.",
            "*tasks.codeif.yaml:8: [[]lint/suspicious/noDoubleEquals[]] Using == may be unsafe*",
            "note: tasks.codeif.yaml:7: `// biome-ignore lint/suspicious/noDoubleEquals: the "
            "model says so` disregarded by biome (suppressions are not allowed*",
            "*project/src/a.js:2: [[]lint/suspicious/noVar[]] Use let or const instead of var.",
            "*project/src/b.ts:2: [[]lint/suspicious/noDebugger[]] This is an unexpected use*",
            "note: project/src/a.js:1: `/[*] eslint-disable [*]/` disregarded by biome*",
        ],
        consecutive=False,
    )
    # Four configurations (three selections and a preset), each run once for its units.
    assert len(runs) == 4 and sum(runs) == 5


@needs_biome
def test_one_process_for_many_units_and_the_same_verdicts_as_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = [
        "var a = 1;\n",
        "let b = 2;\nif (b == 2) {}\n",
        "const c = 3;\nexport { c };\n",
        "// biome-ignore lint/suspicious/noVar: no\nvar d = 4;\n",
        "function (\n",  # no parse: a syntax error, never in the batch
    ]
    check = constraint(BiomeCheck({"select": ["noVar", "noDoubleEquals"]}))
    calls: list[int] = []
    real = batches_module.run_biome

    def counting(config: BiomeConfig, root: Path, files: list[str], workdir: Path) -> NodeRun:
        calls.append(len(files))
        return real(config, root, files, workdir)

    monkeypatch.setattr(batches_module, "run_biome", counting)

    def verdicts(batched: bool) -> list[tuple[str, tuple[int | None, ...]]]:
        engine = Engine(tmp_path, tmp_path / f"work-{batched}")
        tasks = [task(tmp_path, f"t{i}", code) for i, code in enumerate(codes)]
        if batched:
            for each in tasks:
                engine.plan(each, check)
        found: list[tuple[str, tuple[int | None, ...]]] = []
        for each in tasks:
            verdict = engine.evaluate(each, check)
            found.append((verdict.status, tuple(e.code_line for e in verdict.evidence)))
        engine.close()
        return found

    batched = verdicts(batched=True)
    assert calls == [4]
    calls.clear()
    assert verdicts(batched=False) == batched
    assert calls == [1, 1, 1, 1]
    assert batched == [
        ("violated", (1,)),
        ("violated", (2,)),
        ("satisfied", ()),
        ("violated", (2,)),
        ("error", ()),
    ]


# -- what Biome cannot take ------------------------------------------------------------------


def test_a_file_biome_cannot_parse_has_no_verdict_and_the_settings_fail_the_run(
    tmp_path: Path,
) -> None:
    (tmp_path / "u").mkdir()
    (tmp_path / "u" / "a.js").write_text("a\rb\n== c\n")
    found = _biome_findings(
        [
            {"category": "parse", "message": "expected x", "location": {"path": "u/a.js"}},
            {
                "category": "lint/suspicious/noDoubleEquals",
                "message": "Using ==",
                "location": {"path": "u/a.js", "start": {"line": 3, "column": 1}},
            },
            {"category": "suppressions/unused", "severity": "warning", "message": "unused"},
        ],
        tmp_path,
    )
    assert found.file_errors == {
        "u/a.js": ("syntax-error", "Biome cannot parse line None: expected x")
    }
    # Biome counts "\r" as a line break; the finding is at line 2 of the file as split at "\n".
    [finding] = found.by_file["u/a.js"]
    assert (finding.line, finding.column) == (2, 1)
    refused = _biome_findings(
        [{"category": "deserialize", "severity": "error", "message": "unknown key"}], tmp_path
    )
    assert (refused.failure_kind, refused.failure) == (
        "invalid-task",
        "biome: deserialize: unknown key",
    )


@needs_biome
def test_positions_are_lines_at_newlines_and_columns_in_characters(tmp_path: Path) -> None:
    folder = tmp_path / "root" / "u"
    folder.mkdir(parents=True)
    (folder / "a.js").write_text('var s = "é😀";\rif (s == 1) {}\n\tif (s == 2) {}\n', newline="")
    done = run_biome(
        BiomeConfig(("noDoubleEquals",)), tmp_path / "root", ["u/a.js", "u/b\udcff.js"], tmp_path
    )
    # "var s = \"é😀\";" is 13 characters (not UTF-8 bytes, not UTF-16 units), then "\r".
    assert [(f.line, f.column) for f in done.by_file["u/a.js"]] == [(1, 21), (2, 8)]
    assert done.file_errors["u/b\udcff.js"][0] == "checker-failure"


@needs_biome
def test_hostile_file_names_are_errors_never_passes(pytester: pytest.Pytester) -> None:
    src = pytester.path / "project"
    src.mkdir()
    (src / "ok.js").write_text("const a = 1;\nexport { a };\n")
    Path(os.fsdecode(bytes(src) + b"/bad\xff.js")).write_bytes(b"var b = 2;\n")
    result = run(
        pytester,
        """
        tasks:
          - id: project
            directory: project
            constraints:
              - check: biome
                select: [noVar]
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*checker-failure*'bad\\udcff.js': Biome cannot read a file*"])


def test_a_missing_biome_is_a_missing_tool_error_naming_the_package(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(pytester.path / "no-tools"))
    monkeypatch.setenv("CODEIF_NODE_TOOLS", str(pytester.path / "no-tools"))
    assert BiomeCheck.unavailable() is not None
    result = run(
        pytester,
        """
        tasks:
          - id: t
            language: javascript
            code: "var a = 1;\\n"
            constraints:
              - check: biome
                select: [noVar]
        """,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*(missing-tool): Biome is not installed: *`npm install @biomejs/biome`*"]
    )


def test_a_crash_is_run_again_in_halves_so_it_spoils_only_its_unit(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    units = [engine.unit(task(tmp_path, f"t{i}", f"let v{i} = {i};\n")) for i in range(5)]
    culprit = units[3]
    seen: list[int] = []

    def lint(group: list[CodeUnit]) -> NodeRun:
        seen.append(len(group))
        if culprit in group:
            return NodeRun({}, "biome exited with 101: panicked", crashed=True)
        return NodeRun({})

    parts = batches_module._halved(lint, units)
    engine.close()
    crashed = [group for group, run in parts if run.crashed]
    assert crashed == [[culprit]]
    assert sorted(u.key for group, _ in parts for u in group) == sorted(u.key for u in units)
    assert seen == [5, 2, 3, 1, 2, 1, 1]


@needs_biome
def test_typescript_as_written_parses_decorators_and_a_tsx_answers_jsx(tmp_path: Path) -> None:
    nest = (
        "function Inject(t: string): ParameterDecorator {\n  return () => {};\n}\n"
        'export class S {\n  constructor(@Inject("db") private readonly db: string) {}\n}\n'
    )
    tsx = "export const el = <div>{1}</div>;\nexport const same = el == 0;\n"
    engine = Engine(tmp_path, tmp_path / "work")
    check = constraint(BiomeCheck({"select": ["noDoubleEquals"]}))
    tasks = [task(tmp_path, "nest", nest, "typescript"), task(tmp_path, "tsx", tsx, "typescript")]
    for each in tasks:
        engine.plan(each, check)
    verdicts = [engine.evaluate(each, check) for each in tasks]
    engine.close()
    assert [v.status for v in verdicts] == ["satisfied", "violated"]
    assert [(e.code_line, e.rule) for e in verdicts[1].evidence] == [
        (2, "lint/suspicious/noDoubleEquals")
    ]


def test_a_rule_given_options_alone_is_switched_on() -> None:
    config = BiomeCheck(
        {
            "select": ["useNamingConvention"],
            "settings": {"linter.rules.style.useNamingConvention.options.strictCase": False},
        }
    ).config
    style = biome_configuration(config)["linter"]["rules"]["style"]
    assert style == {"useNamingConvention": {"level": "on", "options": {"strictCase": False}}}


@needs_biome
def test_settings_biome_refuses_are_task_errors_in_its_words(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'linter.rules.style.noVar' .*'linter.rules.suspicious"):
        BiomeCheck({"select": ["noVar"], "settings": {"linter.rules.style.noVar": "on"}})
    engine = Engine(tmp_path, tmp_path / "work")
    check = BiomeCheck({"select": ["noVar"], "settings": {"javascript.parser.noSuchOption": True}})
    verdict = engine.evaluate(task(tmp_path, "t", "var a = 1;\n"), constraint(check))
    engine.close()
    assert (verdict.status, verdict.error_kind) == ("error", "invalid-task")
    assert verdict.error == (
        "Biome refused the task's settings: Found an unknown key `noSuchOption`."
    )


def test_a_rule_beside_a_preset_without_biome_is_a_missing_tool_not_an_invalid_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pytest_codeif.checks.biome as biome_check
    from pytest_codeif.outcome import Undecidable

    monkeypatch.setattr(biome_check, "biome_rules", lambda: None)
    monkeypatch.setattr(biome_check, "biome_missing", lambda: "Biome is not installed")
    check = biome_check.BiomeCheck({"select": ["recommended", "noConsole"]})
    assert check.unresolved == ("noConsole",)
    with pytest.raises(Undecidable) as raised:
        check.evaluate(None)  # type: ignore[arg-type]  # decided before any context
    assert raised.value.kind == "missing-tool"
    # Installed, but unable to say the group (not from npm): an error, never a run without it.
    monkeypatch.setattr(biome_check, "biome_missing", lambda: None)
    with pytest.raises(Undecidable) as raised:
        check.evaluate(None)  # type: ignore[arg-type]
    assert raised.value.kind == "invalid-task"

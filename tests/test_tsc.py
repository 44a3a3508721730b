"""The `tsc` check (issue 27): the TypeScript compiler with the task's options, every
single answer of the session in one program and every program of a configuration in one
Node process; each answer a module of its own, an answer that reaches into the whole
program's declarations alone, a syntax error in one answer hiding nothing of another's;
`// @ts-ignore` and its kin blanked (and reported) and a planted `tsconfig.json` never
read unless the task allows suppressions; the compiler reads nothing outside the code
and its own folder; a missing compiler a `missing-tool` error, never a pass."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from pytest_codeif.checks.tsc import TscCheck
from pytest_codeif.code.js_suppressions import TSC_KINDS, find_js_suppressions, neutralise_js
from pytest_codeif.code.unit import SourceFile
from pytest_codeif.engine import tool_batches as batches_module
from pytest_codeif.engine.engine import Engine
from pytest_codeif.errors import Location
from pytest_codeif.outcome import Verdict
from pytest_codeif.taskfile.model import CodeSpec, ConstraintSpec, Task
from pytest_codeif.tools_node import (
    NodeRun,
    TscConfig,
    TscProgram,
    program_wide,
    tsc_missing,
    typescript_package,
)

needs_tsc = pytest.mark.skipif(
    tsc_missing() is not None,
    reason="the TypeScript compiler is not installed (npm typescript and @types/node, and Node)",
)


def run(pytester: pytest.Pytester, tasks: str, *args: str) -> pytest.RunResult:
    pytester.makefile(".codeif.yaml", tasks=textwrap.dedent(tasks))
    return pytester.runpytest_inprocess(
        "--codeif", "-p", "no:randomly", "-p", "no:cacheprovider", *args
    )


def task(tmp_path: Path, task_id: str, code: str) -> Task:
    location = Location(tmp_path / "t.codeif.yaml", 1, ())
    spec = CodeSpec("code", code, location, None, language="typescript")
    return Task(task_id, location.path, location, spec)


def constraint(check: TscCheck) -> ConstraintSpec:
    return ConstraintSpec(check.name, check, check.category, None, None, Location(Path("x"), 1, ()))


def said(verdict: Verdict) -> list[tuple[int | None, str]]:
    return [(e.code_line, e.rule) for e in verdict.evidence]


# -- suppression comments and options -------------------------------------------------------


def test_the_compilers_suppressions_are_found_in_comments_only_and_blanked_in_place() -> None:
    text = textwrap.dedent(
        """\
        // @ts-nocheck
        const s = "// @ts-ignore in a string";
        /* @ts-expect-error: on purpose */ const n: number = "x";
        // @ts-ignore
        const m: number = "y";
        // @ts-check is no suppression
        """
    )
    source = SourceFile("a.ts", text, Path("a.ts"), language="typescript")
    found = find_js_suppressions(source)
    assert [(s.kind, s.line) for s in found] == [
        ("ts-ignore", 1),
        ("ts-ignore", 3),
        ("ts-ignore", 4),
    ]
    blanked = neutralise_js(text, found, TSC_KINDS)
    assert "@ts-nocheck" not in blanked and "@ts-expect-error" not in blanked
    assert '"// @ts-ignore in a string"' in blanked
    assert blanked.splitlines()[2].endswith(' const n: number = "x";')
    assert len(blanked) == len(text)


def test_flags_and_compiler_options_become_compiler_options() -> None:
    check = TscCheck(
        {
            "strict": True,
            "flags": ["--noUnusedLocals", "--lib=es2022,dom", "--noImplicitAny=false"],
            "compiler-options": {"noUncheckedIndexedAccess": True},
            "target": "es2020",
            "error-codes": ["2322", "TS7006"],
        }
    )
    assert dict(check.config.options) == {
        "lib": '["es2022", "dom"]',
        "noImplicitAny": "false",
        "noUncheckedIndexedAccess": "true",
        "noUnusedLocals": "true",
        "strict": "true",
        "target": '"es2020"',
    }
    assert check.codes == {"TS2322", "TS7006"}
    with pytest.raises(ValueError, match="'--outDir=/tmp/x' is not allowed here"):
        TscCheck({"flags": ["--outDir=/tmp/x"]})
    with pytest.raises(ValueError, match="did you mean '--noImplicitAny'"):
        TscCheck({"flags": ["--noimplicitany"]})


def test_what_reaches_into_the_whole_program_is_checked_alone() -> None:
    assert program_wide("declare global {\n  interface Window { x: 1 }\n}\n")
    assert program_wide('declare   module "fs" {}\n')
    assert program_wide('/// <reference path="../other.ts" />\n')
    assert program_wide("export as namespace Lib;\n")
    assert not program_wide("export const declared = 1; // a module of its own\n")


# -- end to end -----------------------------------------------------------------------------

TASKS = """
tasks:
  - id: strict
    language: typescript
    code: |
      export function twice(x) {
        return x * 2;
      }
    constraints:
      - check: tsc
        strict: true
  - id: response
    response: |
      Sure:
      ```ts
      // @ts-ignore
      export const n: number = "one";
      ```
    constraints:
      - check: tsc
  - id: allowed
    language: typescript
    code: |
      // @ts-expect-error: the test feeds a string on purpose
      export const n: number = "one";
    constraints:
      - check: tsc
        allow-suppressions: true
  - id: project
    directory: project
    constraints:
      - check: tsc
        strict: true
  - id: packages
    language: typescript
    code: |
      import express from "express";
      import { readFileSync } from "node:fs";
      export const app = express();
      export const text: string = readFileSync("x", "utf8");
    constraints:
      - check: tsc
        ignore-missing-imports: true
      - check: tsc
  - id: plain-js
    language: javascript
    code: "export const a = 1;\\n"
    constraints:
      - check: tsc
"""


def write_project(root: Path) -> None:
    src = root / "project" / "src"
    src.mkdir(parents=True)
    # Planted configuration that would switch strictness off, were it read.
    (root / "project" / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": false, "noImplicitAny": false, "noLib": true}}'
    )
    (root / "project" / "types.d.ts").write_text("declare const VERSION: string;\n")
    (src / "math.ts").write_text(
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n"
    )
    (src / "main.ts").write_text(
        'import { add } from "./math";\n\nexport const total: string = add(1, 2);\n'
        "export const version: string = VERSION;\nexport const loose = (x) => x;\n"
    )


@needs_tsc
def test_tsc_judges_code_responses_and_projects_where_they_were_written(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    processes: list[int] = []
    real = batches_module.run_tsc

    def counting(config: TscConfig, programs: list[TscProgram], workdir: Path) -> list[NodeRun]:
        processes.append(len(programs))
        return real(config, programs, workdir)

    monkeypatch.setattr(batches_module, "run_tsc", counting)
    write_project(pytester.path)
    result = run(pytester, TASKS, "-rA")
    result.assert_outcomes(passed=2, failed=4, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*(invalid-task): check 'tsc' judges typescript code*written in javascript",
            "*tasks.codeif.yaml:5: [[]TS7006[]] Parameter 'x' implicitly has an 'any' type.",
            "*tasks.codeif.yaml:16: [[]TS2322[]] Type 'string' is not assignable to type 'number*",
            "note: tasks.codeif.yaml:15: `// @ts-ignore` disregarded by tsc (suppressions are*",
            "*project/src/main.ts:3: [[]TS2322[]] Type 'number' is not assignable to type 'str*",
            "*project/src/main.ts:5: [[]TS7006[]] Parameter 'x' implicitly has an 'any' type.",
            "*tasks.codeif.yaml:36: [[]TS2307[]] Cannot find module 'express' or its *",
        ],
        consecutive=False,
    )
    # The project's declarations (`VERSION`) were read; its planted tsconfig.json was not
    # (no `noLib`: `string` is known, no implicit any allowed).
    assert "VERSION" not in result.stdout.str()
    assert "Cannot find global type" not in result.stdout.str()
    # Four configurations (strict, default, allowing suppressions, missing imports as
    # `any`), each one process, whatever the number of programs in it (the strict one:
    # the answer's, and the project's own).
    assert sorted(processes) == [1, 1, 1, 2]


@needs_tsc
def test_answers_in_one_program_never_meet_nor_hide_each_others_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = {
        # Script-style answers with the same top-level names (and `name`, a DOM global).
        "a": "const name = 1;\nfunction add(a: number, b: number) { return a + b; }\n",
        "b": "const name = 'b';\nfunction add(a: string) { return a; }\n",
        # A global augmentation: it must not make another answer's call type-check.
        "augments": "declare global {\n  interface Array<T> { evil(): void }\n}\nexport {};\n",
        "uses": "export function f(xs: number[]): void {\n  xs.evil();\n}\n",
        # A syntax error the compiler finds (tree-sitter does not): the `tsc` command
        # would then report no type error of any other file.
        "leading-zero": "export const n = 08;\n",
        "typed": "export const s: string = 1;\n",
        # JSX in an answer's TypeScript (a tsx block): read as TSX, not as syntax errors;
        # an old-style cast, which TSX cannot read, stays TypeScript.
        "jsx": "export const el = <div>{1}</div>;\nexport const k: string = 2;\n",
        "cast": "const a = <number>(1 as unknown);\nexport const b: string = a;\n",
    }
    runs: list[list[int]] = []
    real = batches_module.run_tsc

    def counting(config: TscConfig, programs: list[TscProgram], workdir: Path) -> list[NodeRun]:
        runs.append([len(p.files) for p in programs])
        return real(config, programs, workdir)

    monkeypatch.setattr(batches_module, "run_tsc", counting)
    engine = Engine(tmp_path, tmp_path / "work")
    check = constraint(TscCheck({}))
    tasks = {name: task(tmp_path, name, code) for name, code in codes.items()}
    for each in tasks.values():
        engine.plan(each, check)
    verdicts = {name: engine.evaluate(each, check) for name, each in tasks.items()}
    engine.close()
    assert {name: v.status for name, v in verdicts.items()} == {
        "a": "satisfied",
        "b": "satisfied",
        "augments": "satisfied",
        "uses": "violated",
        "leading-zero": "violated",
        "typed": "violated",
        "jsx": "violated",
        "cast": "violated",
    }
    assert said(verdicts["uses"]) == [(2, "TS2339")]
    assert said(verdicts["leading-zero"]) == [(1, "TS1489")]
    assert said(verdicts["typed"]) == [(1, "TS2322")]
    assert said(verdicts["jsx"]) == said(verdicts["cast"]) == [(2, "TS2322")]
    assert runs == [[7, 1]]  # one process: seven answers side by side, one alone


@needs_tsc
def test_the_compiler_reads_nothing_outside_the_code(tmp_path: Path) -> None:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.json").write_text('{"hidden_key_x7": "value"}')
    (secret / "other.ts").write_text('export const leaked_name_q3: number = "nope";\n')
    code = (
        f'/// <reference path="{secret / "other.ts"}" />\n'
        f'import data from "{secret / "secret.json"}";\n'
        "export const v: number = data.missing;\n"
    )
    engine = Engine(tmp_path, tmp_path / "work")
    verdict = engine.evaluate(task(tmp_path, "reader", code), constraint(TscCheck({})))
    engine.close()
    assert verdict.status == "violated"
    shown = " ".join(e.message for e in verdict.evidence)
    assert ("TS2307" in {e.rule for e in verdict.evidence}) and "Cannot find module" in shown
    assert "hidden_key_x7" not in shown and "leaked_name_q3" not in shown


@needs_tsc
def test_options_the_compiler_refuses_are_a_task_error(tmp_path: Path) -> None:
    engine = Engine(tmp_path, tmp_path / "work")
    check = constraint(TscCheck({"compiler-options": {"target": "es1999"}}))
    verdict = engine.evaluate(task(tmp_path, "t", "export const a = 1;\n"), check)
    engine.close()
    assert verdict.status == "error" and verdict.error_kind == "invalid-task"
    assert "the compiler options are refused: Argument for '--target' option must be" in str(
        verdict.error
    )


def test_a_missing_compiler_or_node_is_a_missing_tool_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    typescript = typescript_package()
    empty = pytester.path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("CODEIF_NODE_TOOLS", raising=False)
    assert TscCheck.unavailable() is not None
    tasks = """
        tasks:
          - id: t
            language: typescript
            code: "export const a: number = 1;\\n"
            constraints:
              - check: tsc
        """
    result = run(pytester, tasks)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*(missing-tool): the TypeScript compiler is not installed: *`npm install typescript*"]
    )
    if typescript is None:
        return  # the compiler without Node is not for this machine to show
    # The compiler and its types found (a `tsc` on PATH), Node not.
    os.symlink(typescript / "bin" / "tsc", empty / "tsc")
    result = run(pytester, tasks)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*(missing-tool): node (Node.js) is not on PATH*"])

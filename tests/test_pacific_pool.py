"""The PACIFIC instruction pool: data files, checked on load (a bad file is an error
naming the file, the line and the key path) and by `--check-pool` (renderings agree
with the reference, declared types and length effects hold); a user adds or replaces an
instruction by adding a file."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_codeif.cli import main
from pytest_codeif.generate import pool_harness
from pytest_codeif.generate.pacific import Settings, generate
from pytest_codeif.generate.pool import BUILTIN_POOL, load_pool, read_instruction

INCREMENT = textwrap.dedent(
    """\
    name: increment
    text: Add one to the number.
    input: {type: int, min: 0, max: 1000}
    output: int
    length: {effect: grows}
    reference: |
      def increment(n):
          return n + 1
    code:
      python: |
        def increment(n):
            return n + 1
      java: |
        static long increment(long n) {
            return n + 1;
        }
      cpp: |
        long long increment(long long n) {
            return n + 1;
        }
    """
)


def _pool(folder: Path, **files: str) -> Path:
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.yaml").write_text(text)
    return folder


def _check(folder: Path, *extra: str) -> int:
    arguments = ["--check-pool", "--no-builtin-pool", "--pool", str(folder), *extra]
    return main(["generate", "pacific", *arguments])


def test_the_builtin_pool_has_the_papers_examples_and_every_rendering() -> None:
    pool = load_pool([])
    assert len(pool) >= 22
    assert {"next_perfect_square", "to_roman", "shift_back", "replace_vowels_with_gh"} <= set(pool)
    for name, instruction in pool.items():
        assert instruction.path == BUILTIN_POOL / f"{name}.yaml"
        assert set(instruction.code) == {"python", "java", "cpp"}
        assert all(f"{name}(" in source for source in instruction.code.values())
    # domains avoid undefined cases: no Roman numeral of 0 or past 3999, no 0th element
    assert (pool["to_roman"].domain.minimum, pool["to_roman"].domain.maximum) == (1, 3999)
    assert pool["fibonacci"].domain.minimum == 1
    # both types are taken and given, so chains of any length can be drawn
    assert (
        {i.input for i in pool.values()} == {i.output for i in pool.values()} == {"int", "string"}
    )


def test_the_builtin_pool_holds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "pacific", "--check-pool"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("the pool holds")
    assert "Python (" in out


def test_check_pool_lists_each_problem_with_file_instruction_expected_and_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_harness, "RUN_TIMEOUT", 2.0)
    python = "  python: |\n    def {0}(n):\n        return n + 1"
    wrong_python = INCREMENT.replace("increment", "off_by_one").replace(
        python.format("off_by_one"), python.format("off_by_one").replace("n + 1", "n + 2")
    )
    bad_java = INCREMENT.replace("increment", "no_java").replace(
        "return n + 1;\n    }\n  cpp:", 'return n + "1";\n    }\n  cpp:'
    )
    looping = INCREMENT.replace("increment", "loops").replace(
        python.format("loops"),
        python.format("loops").replace("return", "while n == 0:\n            pass\n        return"),
    )
    shrinks = (
        INCREMENT.replace("increment", "says_shrinks")
        .replace("grows", "shrinks")
        .replace("n + 1", "n * 2")
    )
    as_text = INCREMENT.replace("increment", "as_text").replace(
        "def as_text(n):\n      return n + 1", "def as_text(n):\n      return str(n + 1)"
    )
    for name, text in [("off_by_one", wrong_python), ("no_java", bad_java), ("loops", looping),
                       ("says_shrinks", shrinks), ("as_text", as_text)]:  # fmt: skip
        assert text != INCREMENT.replace("increment", name)  # each variant is broken
    folder = _pool(
        tmp_path / "pool",
        off_by_one=wrong_python,
        no_java=bad_java,
        loops=looping,
        says_shrinks=shrinks,
        as_text=as_text,
    )
    assert _check(folder) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()

    def line_of(name: str, what: str) -> str:
        found = [line for line in lines if f"/{name}.yaml: {name}: {what}" in line]
        assert found, (name, what, out)
        return found[0]

    assert "the Python rendering on 0: expected 1, found 2 (and on " in line_of(
        "off_by_one", "the Python rendering on "
    )
    assert "expected code that compiles, found line 2: " in line_of(
        "no_java", "the Java rendering does not compile"
    )
    assert "expected 1, found an error: still running after 2 s (and on " in line_of(
        "loops", "the Python rendering on 0"
    )
    shrunk = line_of("says_shrinks", "length effect `shrinks` on ")
    assert "on 1000 -> 2000: expected a length at most 10, found 11 (and on " in shrunk
    assert "expected an int, found str '1'" in line_of("as_text", "the reference's result on 0")
    assert lines[-1].endswith("problem(s)")
    # the instructions that are right in a language are still checked in it
    assert "Java (" in out


def test_a_missing_compiler_is_said_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = pool_harness.shutil.which
    monkeypatch.setattr(
        pool_harness.shutil, "which", lambda tool: None if tool in ("javac", "g++") else real(tool)
    )
    assert _check(_pool(tmp_path / "pool", increment=INCREMENT)) == 0
    out = capsys.readouterr().out
    assert "Java renderings skipped: javac not found on PATH" in out
    assert "C++ renderings skipped: g++ not found on PATH" in out
    assert "the pool holds" in out


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("reference:", "refrence:"), "increment.yaml:6: refrence: unknown key"),
        (("output: int", "output: float"), "increment.yaml:4: output: "),
        (("max: 1000", "max: 10000000000"), "increment.yaml:3: input.max: "),
        (("min: 0, max: 1000", "min: 0"), "increment.yaml:3: input: missing required key `max`"),
        (("min: 0, max: 1000", "min: 5, max: 1"), "increment.yaml:3: input.max: `max` is less"),
        (("type: int, min", "type: string, min"), "input.min: `min` is not a key of a domain"),
        (("      return n + 1", "      return n +"), "increment.yaml:6: reference: the reference"),
        (("  def increment(n):", "  def other(n):"), "the reference defines no function"),
        (("effect: grows}", "effect: keeps, factor: 2}"), "length.factor: an instruction that"),
        (("name: increment", "name: Increment!"), "increment.yaml:1: name: expected a function"),
        (("text: Add", "text: [Add"), "increment.yaml:3: (top level): invalid YAML: did not find"),
    ],
)
def test_a_bad_pool_file_names_file_line_and_key_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], said: str
) -> None:
    old, new = change
    assert old in INCREMENT
    folder = _pool(tmp_path / "pool", increment=INCREMENT.replace(old, new))
    assert _check(folder) == 2
    err = capsys.readouterr().err
    assert "codeif generate pacific: bad pool file: " in err
    assert said in err, err
    # generation refuses it the same way
    out = tmp_path / "out"
    generating = ["--instructions", "2", "--length", "3", "--samples", "1", "--seed", "1"]
    assert main(["generate", "pacific", "--pool", str(folder), *generating, "-o", str(out)]) == 2
    assert not out.exists()


def test_two_files_of_one_name_in_a_folder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _pool(tmp_path / "pool", increment=INCREMENT, increment_again=INCREMENT)
    assert _check(folder) == 2
    assert (
        "increment_again.yaml:1: name: `increment` is also the name in" in capsys.readouterr().err
    )


def test_a_user_adds_and_replaces_instructions_by_adding_files(tmp_path: Path) -> None:
    roman = (BUILTIN_POOL / "to_roman.yaml").read_text()
    mine = roman.replace("Write the number as a Roman numeral", "Spell the number in Roman")
    folder = _pool(tmp_path / "pool", increment=INCREMENT, to_roman=mine)
    pool = load_pool([folder])
    assert pool["increment"].path == folder / "increment.yaml"
    assert pool["to_roman"].text.startswith("Spell the number in Roman")
    assert len(pool) == len(load_pool([])) + 1

    only = load_pool([folder], builtin=False)
    assert set(only) == {"increment", "to_roman"}
    samples = generate(Settings(4, 5, 3, "mine"), only)
    for sample in samples:
        value = sample.start
        for step in sample.steps:
            assert step.result == step.instruction.reference()(value)
            value = step.result


def test_a_pool_that_cannot_chain_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text_only = (BUILTIN_POOL / "to_roman.yaml").read_text()
    folder = _pool(tmp_path / "pool", to_roman=text_only)
    arguments = ["--no-builtin-pool", "--pool", str(folder), "--instructions", "2",
                 "--length", "3", "--samples", "1", "--seed", "1"]  # fmt: skip
    assert main(["generate", "pacific", *arguments, "-o", str(tmp_path / "out")]) == 2
    assert "no chain of 2 instructions" in capsys.readouterr().err


def test_every_builtin_file_reads_alone() -> None:
    for path in sorted(BUILTIN_POOL.glob("*.yaml")):
        instruction = read_instruction(path)
        assert instruction.name == path.stem
        assert instruction.text

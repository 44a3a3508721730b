"""Run a pool's code renderings on inputs, in a child process per language, for
`--check-pool`: Python by the interpreter running this, Java by `javac` and `java`, C++
by `g++`, each where it is installed.

All of a language's renderings go into one program (one compilation, one process): the
program reads calls (`name<TAB>input`, one per line) and answers each on a line of its
own, flushed, `=result` or `!error`. A call that crashes the program or runs past the
time limit is known by being the first unanswered one: it is reported and the program
is started again after it, so one broken rendering does not hide the others.

A compilation error is mapped back to the instruction whose rendering holds its line.
The renderings are the pool's own code (trusted as its user's code is), not a model's.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pytest_codeif.generate.pool import Instruction, Language, Value

#: Seconds a program may run on its calls (a rendering that loops forever is cut here).
RUN_TIMEOUT: Final = 20.0
COMPILE_TIMEOUT: Final = 180.0
_ESCAPES: Final = {"\\": "\\\\", "\n": "\\n", "\r": "\\r"}
_UNESCAPE: Final = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Call:
    """One rendering called on one input."""

    instruction: Instruction
    value: Value


@dataclass(frozen=True)
class Answer:
    """What a call gave: its result as text (JSON for Python: typed), or an error."""

    text: str | None
    error: str | None = None


@dataclass
class LanguageRun:
    """A language's answers, by call index; or why none could be had."""

    answers: dict[int, Answer] = field(default_factory=dict)
    #: Instruction name -> the compiler's first complaint about its rendering.
    compile_errors: dict[str, str] = field(default_factory=dict)
    skipped: str | None = None


def missing_tools(language: Language) -> list[str]:
    """The programs `language` needs that are not on PATH."""
    needed = {"python": [], "java": ["javac", "java"], "cpp": ["g++"]}[language]
    return [tool for tool in needed if shutil.which(tool) is None]


def run_language(
    language: Language, instructions: Sequence[Instruction], calls: Sequence[Call]
) -> LanguageRun:
    """Every call answered by `language`'s renderings of `instructions`."""
    missing = missing_tools(language)
    if missing:
        return LanguageRun(skipped=f"{' and '.join(missing)} not found on PATH")
    with tempfile.TemporaryDirectory(prefix="codeif-pool-") as work:
        folder = Path(work)
        if language == "python":
            python = _python_program(folder, instructions)
            return LanguageRun(run_calls(python, calls, json.dumps))
        build = _java_program if language == "java" else _cpp_program
        program, errors = build(folder, instructions)
        if errors and "" not in errors:
            # Compile again without the renderings that do not compile, to check the rest.
            kept = [i for i in instructions if i.name not in errors]
            program, more = build(folder, kept) if kept else (None, {})
            errors.update(more)
        if program is None:
            return LanguageRun(compile_errors=errors)
        left_out = set(errors)
        run = run_calls(program, [c for c in calls if c.instruction.name not in left_out], str)
        return LanguageRun(_reindexed(run, calls, left_out), errors)


def _reindexed(
    answers: dict[int, Answer], calls: Sequence[Call], left_out: set[str]
) -> dict[int, Answer]:
    """Answers to the calls kept (renumbered from 0) put back at their indices in
    `calls`."""
    kept = [i for i, call in enumerate(calls) if call.instruction.name not in left_out]
    return {kept[i]: answer for i, answer in answers.items()}


def run_calls(
    command: Sequence[str], calls: Sequence[Call], encode: Callable[[Value], str]
) -> dict[int, Answer]:
    """Each call's answer, restarting the program after a call that ends it; each input
    written by `encode` (JSON for Python, plain text for the others: a domain's strings
    are printable ASCII, without tabs or line ends)."""
    answers: dict[int, Answer] = {}
    pending = list(range(len(calls)))
    while pending:
        lines = "".join(f"{calls[i].instruction.name}\t{encode(calls[i].value)}\n" for i in pending)
        try:
            done = subprocess.run(
                list(command),
                input=lines.encode(),
                capture_output=True,
                timeout=RUN_TIMEOUT,
                check=False,
            )
            output, ending, hung = done.stdout, _ended(done.returncode, done.stderr), False
        except subprocess.TimeoutExpired as exc:
            output, ending, hung = exc.stdout or b"", f"still running after {RUN_TIMEOUT:g} s", True
        got = output.decode("utf-8", "replace").split("\n")[:-1]
        for index, line in zip(pending, got, strict=False):
            answers[index] = _answer(line)
        pending = pending[len(got) :]
        if not pending:
            break
        culprit, pending = pending[0], pending[1:]
        answers[culprit] = Answer(None, ending)
        if hung:
            # One wait per rendering that loops: its other calls are not run.
            name = calls[culprit].instruction.name
            for index in (i for i in pending if calls[i].instruction.name == name):
                answers[index] = Answer(None, "not run: it ran past the time limit before")
            pending = [i for i in pending if calls[i].instruction.name != name]
    return answers


def _ended(returncode: int, stderr: bytes) -> str:
    last = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    return f"the program ended (exit status {returncode}) {last[0][:200]}".strip()


def _answer(line: str) -> Answer:
    text = _UNESCAPE.sub(lambda m: {"n": "\n", "r": "\r"}.get(m[1], m[1]), line[1:])
    return Answer(text) if line.startswith("=") else Answer(None, text or "failed")


def _python_program(folder: Path, instructions: Sequence[Instruction]) -> list[str]:
    sources = {i.name: i.code["python"] for i in instructions}
    (folder / "renderings.json").write_text(json.dumps(sources), encoding="utf-8")
    (folder / "harness.py").write_text(_PYTHON_HARNESS, encoding="utf-8")
    return [sys.executable, "-I", str(folder / "harness.py"), str(folder / "renderings.json")]


_PYTHON_HARNESS: Final = r"""
import json, sys

sources = json.load(open(sys.argv[1], encoding="utf-8"))
functions = {}
# What a rendering prints must not be taken for an answer.
answers, sys.stdout = sys.stdout, sys.stderr


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


for line in sys.stdin:
    name, _, given = line.rstrip("\n").partition("\t")
    try:
        if name not in functions:
            namespace = {"__name__": "rendering"}
            exec(compile(sources[name], name, "exec"), namespace)
            functions[name] = namespace[name]
        value = functions[name](json.loads(given))
        out = "=" + escape(json.dumps(value))
    except BaseException as exc:
        out = "!" + escape(f"{type(exc).__name__}: {exc}")
    answers.write(out + "\n")
    answers.flush()
"""


def _java_program(
    folder: Path, instructions: Sequence[Instruction]
) -> tuple[list[str] | None, dict[str, str]]:
    lines = ["import java.io.*;", "", "public class PoolCheck {"]
    spans = []
    for instruction in instructions:
        first = len(lines) + 1
        lines += ["    " + line for line in instruction.code["java"].rstrip().splitlines()]
        spans.append((first, len(lines), instruction.name))
        lines.append("")
    lines += _JAVA_MAIN_HEAD.splitlines()
    for instruction in instructions:
        argument = "Long.parseLong(arg)" if instruction.input == "int" else "arg"
        lines.append(
            f'            case "{instruction.name}": '
            f"return String.valueOf({instruction.name}({argument}));"
        )
    lines += _JAVA_MAIN_TAIL.splitlines()
    source = folder / "PoolCheck.java"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    compiled = _compile(["javac", "-encoding", "UTF-8", "-d", str(folder), str(source)])
    if compiled is not None:
        return None, _blame(compiled, r"PoolCheck\.java:(\d+): error: (.*)", spans)
    return ["java", "-Xss16m", "-cp", str(folder), "PoolCheck"], {}


_JAVA_MAIN_HEAD: Final = """
    private static String escape(String s) {
        return s.replace("\\\\", "\\\\\\\\").replace("\\n", "\\\\n").replace("\\r", "\\\\r");
    }

    private static String call(String name, String arg) {
        switch (name) {"""
_JAVA_MAIN_TAIL: Final = """\
            default: throw new IllegalArgumentException("no function " + name);
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        System.setOut(System.err);  // what a rendering prints is not an answer
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\\t');
            String result;
            try {
                result = "=" + escape(call(line.substring(0, tab), line.substring(tab + 1)));
            } catch (Throwable e) {
                result = "!" + escape(e.toString());
            }
            out.print(result + "\\n");
            out.flush();
        }
    }
}"""


def _cpp_program(
    folder: Path, instructions: Sequence[Instruction]
) -> tuple[list[str] | None, dict[str, str]]:
    lines = _CPP_HEAD.splitlines()
    spans = []
    for instruction in instructions:
        first = len(lines) + 1
        lines += instruction.code["cpp"].rstrip().splitlines()
        spans.append((first, len(lines), instruction.name))
        lines.append("")
    lines += _CPP_CALL_HEAD.splitlines()
    for instruction in instructions:
        argument = "std::stoll(arg)" if instruction.input == "int" else "arg"
        lines.append(
            f'    if (name == "{instruction.name}") '
            f"return pool_check_show({instruction.name}({argument}));"
        )
    lines += _CPP_TAIL.splitlines()
    source = folder / "pool_check.cpp"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    program = folder / "pool_check"
    compiled = _compile(["g++", "-std=c++17", "-O1", "-o", str(program), str(source)])
    if compiled is not None:
        return None, _blame(compiled, r"pool_check\.cpp:(\d+):\d+: error: (.*)", spans)
    return [str(program)], {}


_CPP_HEAD: Final = """#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>
"""
_CPP_CALL_HEAD: Final = """\
static std::string pool_check_show(long long value) { return std::to_string(value); }
static std::string pool_check_show(const std::string& value) { return value; }

static std::string pool_check_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\\\') out += "\\\\\\\\";
        else if (c == '\\n') out += "\\\\n";
        else if (c == '\\r') out += "\\\\r";
        else out += c;
    }
    return out;
}

static std::string pool_check_call(const std::string& name, const std::string& arg) {"""
_CPP_TAIL: Final = """    throw std::runtime_error("no function " + name);
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::size_t tab = line.find('\\t');
        std::string result;
        try {
            std::string given = line.substr(tab + 1);
            result = "=" + pool_check_escape(pool_check_call(line.substr(0, tab), given));
        } catch (const std::exception& e) {
            result = "!" + pool_check_escape(e.what());
        }
        std::cout << result << '\\n' << std::flush;
    }
    return 0;
}"""


def _compile(command: list[str]) -> str | None:
    """None when `command` compiles; else the compiler's output."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=COMPILE_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return f"{command[0]}: still compiling after {COMPILE_TIMEOUT:.0f} s"
    if done.returncode == 0:
        return None
    return (done.stderr + done.stdout).decode("utf-8", "replace")


def _blame(output: str, pattern: str, spans: list[tuple[int, int, str]]) -> dict[str, str]:
    """Each instruction whose rendering's lines hold a compiler error, with the first
    error said about it (line numbers relative to the rendering); the whole output
    under "" when no error falls in a rendering."""
    blamed: dict[str, str] = {}
    for match in re.finditer(pattern, output):
        line = int(match[1])
        for first, last, name in spans:
            if first <= line <= last and name not in blamed:
                blamed[name] = f"line {line - first + 1}: {match[2].strip()}"
    if not blamed:
        blamed[""] = output.strip()[:500]
    return blamed

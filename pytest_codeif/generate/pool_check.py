"""`codeif generate pacific --check-pool`: does every instruction of a pool do what its
file says, on inputs sampled from its domain?

- its reference runs, returns the declared type, and keeps numbers inside a signed
  32-bit int;
- its declared length effect holds on every input (`keeps`: same length, `grows`: not
  shorter, `shrinks`: not longer), and a declared `factor` is within a factor of 2 of
  the median ratio of output to input length;
- each code rendering (Python; Java and C++ where `javac`/`java` and `g++` are on PATH,
  else skipped and said so) gives the reference's result, run in a child process.

Every input is drawn from a seeded stream per instruction, so a check says the same on
every run.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from pytest_codeif.generate.pacific import draw_value, length_range, result_problem, stream
from pytest_codeif.generate.pool import (
    LANGUAGES,
    Instruction,
    Language,
    Value,
    length_of,
    literal,
)
from pytest_codeif.generate.pool_harness import Answer, Call, run_language

#: Inputs sampled per instruction.
SAMPLES: Final = 24
#: Longest string sampled (beyond the domain's shortest), to keep the check quick.
MAX_SAMPLED_LENGTH: Final = 16
LANGUAGE_NAMES: Final = {"python": "Python", "java": "Java", "cpp": "C++"}


@dataclass(frozen=True)
class Problem:
    """One way an instruction is not what its file says."""

    path: Path
    instruction: str
    what: str
    expected: str
    found: str

    def __str__(self) -> str:
        return (
            f"{self.path}: {self.instruction}: {self.what}: "
            f"expected {self.expected}, found {self.found}"
        )


@dataclass
class PoolReport:
    """What `check_pool` found."""

    instructions: int
    inputs: int
    problems: list[Problem] = field(default_factory=list)
    #: Language -> why its renderings were not run.
    skipped: dict[str, str] = field(default_factory=dict)
    #: Language -> how many calls of its renderings agreed with the references.
    agreed: dict[str, int] = field(default_factory=dict)


def check_pool(
    pool: Mapping[str, Instruction],
    languages: Sequence[Language] = LANGUAGES,
    samples: int = SAMPLES,
) -> PoolReport:
    """Check every instruction of `pool` (see the module's docstring)."""
    instructions = [pool[name] for name in sorted(pool)]
    report = PoolReport(len(instructions), samples)
    calls: list[tuple[Call, Value]] = []
    for instruction in instructions:
        results = _reference_results(instruction, sample_inputs(instruction, samples), report)
        calls += [(Call(instruction, value), result) for value, result in results]
    for language in languages:
        _compare(language, instructions, calls, report)
    return report


def sample_inputs(instruction: Instruction, count: int) -> list[Value]:
    """`count` inputs of the instruction's domain, drawn from a stream of its own: the
    bounds of a number range and numbers of every length; strings of every length up to
    `MAX_SAMPLED_LENGTH` over the whole alphabet."""
    domain = instruction.domain
    rng = stream(f"check:{instruction.name}")
    low, high = length_range(domain)
    drawn: list[Value] = []
    if domain.type == "int":
        drawn += [domain.minimum, domain.maximum]
        while len(drawn) < count:
            drawn.append(draw_value(rng, domain, rng.randint(low, high)))
    else:
        top = min(high, max(low, MAX_SAMPLED_LENGTH))
        while len(drawn) < count:
            size = rng.randint(low, top)
            drawn.append("".join(rng.choice(domain.alphabet) for _ in range(size)))
    return list(dict.fromkeys(drawn))[:count]


def _reference_results(
    instruction: Instruction, inputs: Iterable[Value], report: PoolReport
) -> list[tuple[Value, Value]]:
    """The reference's result on each input where it gives a valid one; the problems
    met on the others, and those of the length effect, added to `report`."""
    function = instruction.reference()
    results: list[tuple[Value, Value]] = []
    failed: list[Problem] = []
    for value in inputs:
        try:
            result = function(value)
        except Exception as exc:  # noqa: BLE001 (any failure of the pool's code is its own)
            what = f"the reference on {literal(value)}"
            failed.append(_problem(instruction, what, "a result", _error(exc)))
            continue
        wrong = result_problem(instruction, result)
        if wrong is not None:
            what = f"the reference's result on {literal(value)}"
            failed.append(_problem(instruction, what, *wrong))
            continue
        results.append((value, result))
    report.problems += _first(failed)
    report.problems += _length_problems(instruction, results)
    return results


def _length_problems(
    instruction: Instruction, results: Sequence[tuple[Value, Value]]
) -> list[Problem]:
    effect = instruction.length
    wanted = {"keeps": "equal to", "grows": "at least", "shrinks": "at most"}.get(effect.effect)
    broken = []
    for value, result in results:
        before, after = length_of(value), length_of(result)
        if wanted is not None and not effect.holds(before, after):
            what = f"length effect `{effect.effect}` on {literal(value)} -> {literal(result)}"
            broken.append(_problem(instruction, what, f"a length {wanted} {before}", str(after)))
    problems = _first(broken)
    if effect.declared and results:
        ratio = statistics.median(length_of(r) / length_of(v) for v, r in results)
        if not effect.factor / 2 <= ratio <= effect.factor * 2:
            expected = (
                f"a median ratio of output to input length between {effect.factor / 2:g} "
                f"and {effect.factor * 2:g} (declared factor {effect.factor:g})"
            )
            problems.append(_problem(instruction, "length factor", expected, f"{ratio:.2f}"))
    return problems


def _compare(
    language: Language,
    instructions: Sequence[Instruction],
    calls: Sequence[tuple[Call, Value]],
    report: PoolReport,
) -> None:
    """Run `language`'s renderings on every call; add what disagrees to `report`."""
    run = run_language(language, instructions, [call for call, _ in calls])
    name = LANGUAGE_NAMES[language]
    if run.skipped is not None:
        report.skipped[language] = run.skipped
        return
    for broken, message in run.compile_errors.items():
        where = next((i for i in instructions if i.name == broken), None)
        what = f"the {name} rendering does not compile"
        if where is None:
            report.problems.append(Problem(Path(f"<{name} program>"), "*", what, "", message))
        else:
            report.problems.append(_problem(where, what, "code that compiles", message))
    wrong: dict[str, list[Problem]] = {}
    agreed = 0
    for index, (call, expected) in enumerate(calls):
        if call.instruction.name in run.compile_errors or "" in run.compile_errors:
            continue
        answer = run.answers.get(index, Answer(None, "no answer"))
        found = _disagreement(language, answer, expected)
        if found is None:
            agreed += 1
            continue
        what = f"the {name} rendering on {literal(call.value)}"
        problem = _problem(call.instruction, what, literal(expected), found)
        wrong.setdefault(call.instruction.name, []).append(problem)
    report.agreed[language] = agreed
    for problems in wrong.values():
        report.problems += _first(problems)


def _disagreement(language: Language, answer: Answer, expected: Value) -> str | None:
    """How `answer` differs from `expected`, or None when it agrees."""
    if answer.text is None:
        return f"an error: {answer.error}"
    if language == "python":
        got = json.loads(answer.text)
        same = type(got) is type(expected) and got == expected
        return None if same else answer.text
    if answer.text == str(expected):
        return None
    return json.dumps(answer.text) if isinstance(expected, str) else answer.text


def _problem(instruction: Instruction, what: str, expected: str, found: str) -> Problem:
    return Problem(instruction.path, instruction.name, what, expected, found)


def _first(problems: list[Problem]) -> list[Problem]:
    """The first of an instruction's problems of one kind, saying how many inputs more."""
    if len(problems) <= 1:
        return problems
    first = problems[0]
    more = len(problems) - 1
    found = f"{first.found} (and on {more} more input{'s' * (more > 1)})"
    return [Problem(first.path, first.instruction, first.what, first.expected, found)]


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"

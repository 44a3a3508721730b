"""The text a model is given for a PACIFIC sample, and the reference answer.

As in PACIFIC, the model is asked to dry-run the chain (work out every step without
running code) and to give each intermediate result as `[ANSWER][i] literal [\\ANSWER]`,
a number bare and a string in double quotes. A `code` rendering shows each instruction's
function in the sample's language and names the function of each step; an `nl`
rendering gives each step's instruction in words. In `prompt` mode the whole is one
prompt; in `chat` mode the rules are the system message and the sample the user's.
"""

from __future__ import annotations

from typing import Final

from pytest_codeif.generate.pacific import Sample
from pytest_codeif.generate.pool import LANGUAGES, Instruction, Language, literal

#: The fence language of each code rendering.
FENCES: Final[dict[str, str]] = {"python": "python", "java": "java", "cpp": "cpp"}
NAMES: Final[dict[str, str]] = {"python": "Python", "java": "Java", "cpp": "C++"}

_INTRO: Final = (
    "Work out, without running any code, the result of every step below. The first step "
    "takes the input; every next step takes the result of the step before it."
)


def rules(steps: int) -> str:
    """How to answer: PACIFIC's answer format, the literal style, the number of answers."""
    return (
        f"Answer all {steps} steps, in order, each on a line of its own, in exactly this "
        "format, where i is the step's number:\n"
        "[ANSWER][i] result [\\ANSWER]\n"
        "Write a number as a plain integer and a string in double quotes, for example:\n"
        "[ANSWER][1] 42 [\\ANSWER]\n"
        '[ANSWER][2] "abc" [\\ANSWER]'
    )


def body(sample: Sample) -> str:
    """The sample itself: the code (or the instructions in words), the input, the steps."""
    parts = []
    if sample.language == "nl":
        parts.append(f"Input: {literal(sample.start)}")
        parts.append(
            "\n".join(
                f"Step {number}: {step.instruction.text}"
                for number, step in enumerate(sample.steps, 1)
            )
        )
    else:
        parts.append(functions(sample, _language(sample.language)))
        parts.append(f"Input: {literal(sample.start)}")
        lines = []
        for number, step in enumerate(sample.steps, 1):
            given = "the input" if number == 1 else f"the result of step {number - 1}"
            lines.append(f"Step {number}: {step.instruction.name}({given})")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def functions(sample: Sample, language: Language) -> str:
    """Each instruction of the chain once, in order of first use, as a fenced block."""
    seen: dict[str, Instruction] = {}
    for step in sample.steps:
        seen.setdefault(step.instruction.name, step.instruction)
    joined = "\n\n".join(i.code[language].rstrip() for i in seen.values())
    return f"The functions, in {NAMES[language]}:\n\n```{FENCES[language]}\n{joined}\n```"


def prompt(sample: Sample) -> str:
    """The sample as one prompt (`prompt` mode)."""
    return f"{_INTRO}\n\n{body(sample)}\n\n{rules(len(sample.steps))}\n"


def messages(sample: Sample) -> list[dict[str, str]]:
    """The sample as chat messages (`chat` mode): the rules, then the sample."""
    return [
        {"role": "system", "content": f"{_INTRO}\n\n{rules(len(sample.steps))}"},
        {"role": "user", "content": body(sample)},
    ]


def reference_answer(sample: Sample) -> str:
    """The right answer in the format asked for: one line per step."""
    return "\n".join(
        f"[ANSWER][{number}] {literal(step.result)} [\\ANSWER]"
        for number, step in enumerate(sample.steps, 1)
    )


def summary(sample: Sample) -> str:
    """A one-line description of the task (the task file's `instruction`)."""
    names = ", ".join(step.instruction.name for step in sample.steps)
    return (
        f"Apply {names} in turn to {literal(sample.start)} and give each result as "
        "[ANSWER][i] literal [\\ANSWER]."
    )


def _language(name: str) -> Language:
    """`name` as a rendering language (samples only carry the pool's languages)."""
    for language in LANGUAGES:
        if language == name:
            return language
    raise ValueError(f"not a rendering language: {name!r}")

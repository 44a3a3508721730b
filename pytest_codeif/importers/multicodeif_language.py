"""The programming language a MultiCodeIF task asks for, read from the task alone (the
benchmark mixes 14 languages in one file per constraint type and records none).

In order: the first field of the machine-readable `answer` when it names a language
(`python;Collections`, `Rust;serde`); else the tag of the prompt's first fenced block
(a code-context or exemplar task shows its code); else the first language the prompt
names as a word (`Write a Python function`). A reference solution in the `answer` is not
read: it is the benchmark authors' code, not the instruction. On the benchmark's 1,526
single-level tasks this selects the 353 Python tasks of the corpus the project
validates against; a task that names no language is read as none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

#: Names and fence tags, lower case -> the language.
NAMES: Final = {
    "python": "Python",
    "py": "Python",
    "java": "Java",
    "javascript": "JavaScript",
    "js": "JavaScript",
    "typescript": "TypeScript",
    "ts": "TypeScript",
    "rust": "Rust",
    "cpp": "C++",
    "c++": "C++",
    "c": "C",
    "c#": "C#",
    "csharp": "C#",
    "go": "Go",
    "golang": "Go",
    "kotlin": "Kotlin",
    "haskell": "Haskell",
    "zig": "Zig",
    "php": "PHP",
    "scala": "Scala",
    "prolog": "Prolog",
    "lua": "Lua",
    "julia": "Julia",
    "coffeescript": "CoffeeScript",
    "ruby": "Ruby",
    "swift": "Swift",
}
_FENCE: Final = re.compile(r"```([A-Za-z+#]+)")
#: A language named as a word, as prompts write them (`Go`, not `go`, is the language).
_NAMED: Final = re.compile(
    r"(?<![\w#+.])(Python|JavaScript|TypeScript|Java|Rust|C\+\+|C#|Kotlin|Haskell|Zig|PHP"
    r"|Scala|Golang|Go|C)(?![\w#+])"
)


@dataclass(frozen=True)
class Language:
    """A task's language (None: it names none) and where it was read."""

    name: str | None
    source: str  # "answer", "prompt's code block", "prompt", or "" for none


def language_of(record: Mapping[str, Any]) -> Language:
    """The language task `record` (`prompt`, `answer`) asks for."""
    answer = str(record.get("answer") or "")
    prompt = str(record.get("prompt") or "")
    first = answer.split(";", 1)[0].strip().lower()
    if first in NAMES:
        return Language(NAMES[first], "answer")
    fence = _FENCE.search(prompt)
    if fence is not None and fence.group(1).lower() in NAMES:
        return Language(NAMES[fence.group(1).lower()], "prompt's code block")
    named = _NAMED.search(prompt)
    if named is not None:
        return Language(NAMES[named.group(1).lower()], "prompt")
    return Language(None, "")

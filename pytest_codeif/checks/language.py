"""The `language` check: the code is written in the language the task asks for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.code.languages import JS_FAMILY, UnknownLanguage, languages
from pytest_codeif.code.languages import language as language_named
from pytest_codeif.outcome import Undecidable

_RULE = "language"
#: Every registered language: the check reads which language each file of the code is in.
_EVERY: Final = frozenset(lang.name for lang in languages())


class LanguageCheck(Check):
    """The code is written in one language: every file judged is source of
    `language` (`python`, `javascript`, `typescript`).

    Why: "write it in JavaScript" is an instruction of its own (MultiCodeIF's language
    records); an answer in TypeScript, or in Python, does not follow it, however good.

    A response is read in its task's language, or in the other of JavaScript and
    TypeScript when it holds only that one's blocks ("write it in JavaScript" answered
    in TypeScript), so this check fails where the code is TypeScript and JavaScript was
    asked (a file's language is its suffix's in a project, its fences' in a response).
    A response with no code in the task's language (an answer in C++), or whose code in
    it is only comments (`// see the Python above`), violates it, at the response's
    line; code that does not parse in its language is a syntax error before any check,
    never a pass.
    What it does not judge: the version of the language (`python-version` does for
    Python; no ECMAScript edition is checked), and languages no parser here reads
    (CoffeeScript, Rust...): asking for one is a located task error.

    Options: `language` (required).

    Example:

        - check: language
          language: javascript
    """

    name = "language"
    category = "Language"
    languages = _EVERY
    judges_missing_code = True
    advice = "Write the code in the language the task asks for, and only in it."
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["language"],
        "properties": {"language": {"type": "string", "minLength": 1}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample("const square = (x) => x * x;\n", {"language": "javascript"}, language="javascript"),
        Sample("def square(x):\n    return x * x\n", {"language": "python"}),
        Sample(
            {"src/app.ts": "export const n: number = 1;\n", "src/util.ts": "export {};\n"},
            {"language": "typescript"},
        ),
    )
    violated_by = (
        Sample(
            "const square = (x: number): number => x * x;\n",
            {"language": "javascript"},
            language="typescript",
            message="written in typescript, not javascript",
            line=1,
        ),
        Sample(
            "// The answer is in the Python block above.\n",
            {"language": "javascript"},
            language="javascript",
            message="holds no javascript code, only comments",
            line=1,
        ),
        Sample(
            {"web/app.js": "export const n = 1;\n", "web/util.ts": "export const m = 2;\n"},
            {"language": "javascript"},
            message="`web/util.ts` is written in typescript, not javascript",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        asked = str(options["language"]).strip().lower()
        #: Why the language asked cannot be judged (None: it can), said when evaluated.
        self.problem: str | None = None
        try:
            self.wanted = language_named(asked).name
        except UnknownLanguage as exc:
            self.wanted = asked
            self.problem = f"{exc}: no parser here reads it, so no code can be judged written in it"

    def advise(self) -> str:
        return f"Write the code in {self.wanted}, and only in it."

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        if self.problem is not None:
            raise Undecidable("invalid-task", self.problem, key_path=("language",))
        files = [f for f in ctx.unit.files if ctx.in_scope(f.relpath)]
        several = len(files) > 1
        wrong = [f for f in files if f.language != self.wanted]
        for source in wrong:
            where = f"`{source.relpath}` is written" if several else "written"
            message = f"{where} in {source.language}, not {self.wanted}"
            yield Finding(message, _RULE, source.relpath, 1)
        if not wrong and files and not self._holds_code(ctx):
            # A block of comments beside the answer in another language is no answer
            # in this one (`// see the Python above`).
            yield Finding(f"holds no {self.wanted} code, only comments", _RULE, files[0].relpath, 1)

    def _holds_code(self, ctx: CheckContext) -> bool:
        """Whether some file of the code holds a statement or declaration (not only
        comments)."""
        if self.wanted in JS_FAMILY:
            return any(
                child.kind() != "comment"
                for module in ctx.js_modules()
                for child in module.root.children()
            )
        return any(module.tree.body for module in ctx.modules())

"""A `pattern` rule for JavaScript and TypeScript: ast-grep's own pattern language.

A pattern is JS/TS code with metavariables: `$X` matches one node (the same `$X` twice
must match the same code), `$$$ARGS` any run of nodes (arguments, statements...),
`$_` anything, binding nothing. `not`, `inside` and `not-inside` become ast-grep's
`not` and `inside` (searched up to the file's top, `stopBy: end`) around the rule's
pattern; `where` regexes are searched in the text a metavariable matched, by RE2 as
for Python. What ast-grep cannot parse as a pattern of the language (tree-sitter
reports an error in it) is refused when the task file is read, at its option; so is
a `where` name no pattern binds, and `qualified` (which needs import resolution, not
built for JS/TS yet).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from pytest_codeif.code.js_syntax import first_error
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.safe_regex import SafePattern, SubjectTooLong
from pytest_codeif.safe_regex import compile_pattern as compile_regex

if TYPE_CHECKING:
    from ast_grep_py import Config, SgNode

#: Metavariables in a pattern's text: `$X`, `$$$ARGS` (`$_` binds nothing).
_METAVARIABLE: Final = re.compile(r"\$(?:\$\$)?([A-Z_][A-Z0-9_]*)")
#: The grammars a pattern is read with, by the rule's language.
_GRAMMARS: Final = {"javascript": ("javascript",), "typescript": ("typescript", "tsx")}


@dataclass(frozen=True)
class JsCondition:
    """What the code a metavariable matched must (not) contain a match of."""

    regex: SafePattern | None
    not_regex: SafePattern | None


@dataclass(frozen=True)
class JsRule:
    """A pattern rule compiled for JS/TS (see the module docstring)."""

    language: str | None  # "javascript", "typescript", or None: either, by the file
    patterns: tuple[str, ...]
    excluded: tuple[str, ...]
    inside: tuple[str, ...]
    not_inside: tuple[str, ...]
    where: Mapping[str, JsCondition]

    def matches(self, module: JsModule) -> list[tuple[SgNode, str]]:
        """Every (node, pattern) the rule matches in `module`, in document order, each
        node once (the first pattern of `any` that matches it)."""
        found: dict[tuple[int, int], tuple[int, SgNode, str]] = {}
        for pattern in self.patterns:
            config = cast("Config", {"rule": self._rule(pattern)})
            for node in module.root.find_all(config):
                span = node.range()
                key = (span.start.index, span.end.index)
                if key not in found and self._where_holds(node):
                    found[key] = (span.start.index, node, pattern)
        return [(node, pattern) for _, node, pattern in sorted(found.values(), key=_first)]

    def _rule(self, pattern: str) -> dict[str, Any]:
        rule: dict[str, Any] = {"pattern": pattern}
        around = [{"inside": {"pattern": p, "stopBy": "end"}} for p in self.inside]
        if around:
            rule = {"all": [rule, *around]}
        excluded: list[dict[str, Any]] = [{"pattern": p} for p in self.excluded]
        excluded += [{"inside": {"pattern": p, "stopBy": "end"}} for p in self.not_inside]
        if excluded:
            rule["not"] = {"any": excluded}
        return rule

    def _where_holds(self, node: SgNode) -> bool:
        for name, condition in self.where.items():
            bare = name.lstrip("$")
            if name.startswith("$$$"):
                parts = node.get_multiple_matches(bare)
                text = ", ".join(part.text() for part in parts if part.is_named())
            else:
                bound = node.get_match(bare)
                if bound is None:
                    return False
                text = bound.text()
            try:
                if condition.regex is not None and not condition.regex.search(text):
                    return False
                if condition.not_regex is not None and condition.not_regex.search(text):
                    return False
            except SubjectTooLong:
                return False
        return True


def _first(entry: tuple[int, SgNode, str]) -> int:
    return entry[0]


def compile_js_rule(options: Mapping[str, Any], language: str | None) -> JsRule:
    """The options as a JS/TS rule of `language` (None: JavaScript or TypeScript, as the
    pattern parses); `ValueError` naming the option whose pattern ast-grep cannot
    parse, or whose `where` cannot hold."""
    key = "pattern" if "pattern" in options else "any"
    patterns = _texts(options[key], key, language)
    rule = JsRule(
        language,
        patterns,
        _texts(options.get("not", ()), "not", language),
        _texts(options.get("inside", ()), "inside", language),
        _texts(options.get("not-inside", ()), "not-inside", language),
        {name: _condition(name, raw) for name, raw in options.get("where", {}).items()},
    )
    bound = {m.group(0) for p in (*rule.patterns, *rule.inside) for m in _METAVARIABLE.finditer(p)}
    for name in rule.where:
        if name not in bound:
            shown = ", ".join(sorted(bound)) or "none"
            raise ValueError(
                f"where: `{name}` is not a metavariable of the rule's patterns (ast-grep "
                f"writes a run as `$$$NAME`); its metavariables: {shown}"
            )
    return rule


def js_pattern_problem(text: str, language: str | None) -> str | None:
    """Why ast-grep cannot read `text` as a pattern of `language` (None: JavaScript or
    TypeScript); None when it can."""
    from ast_grep_py import SgRoot  # noqa: PLC0415 - loaded by JS/TS rules only

    grammars = _GRAMMARS[language] if language else ("javascript", "typescript", "tsx")
    first = None
    for grammar in grammars:
        error = first_error(SgRoot(text, grammar).root())
        if error is None:
            return None
        first = first or error
    shown = language or "JavaScript or TypeScript"
    line, what = first if first is not None else (1, "invalid syntax")
    return f"`{text}` is not {shown} ast-grep can read ({what} at line {line} of the pattern)"


def _texts(raw: str | Sequence[str], key: str, language: str | None) -> tuple[str, ...]:
    texts = (raw,) if isinstance(raw, str) else tuple(raw)
    for index, text in enumerate(texts):
        problem = js_pattern_problem(text, language)
        if problem is not None:
            where = key if isinstance(raw, str) else f"{key}[{index}]"
            raise ValueError(f"{where}: {problem}")
    return texts


def _condition(name: str, raw: Mapping[str, Any]) -> JsCondition:
    if "qualified" in raw or "not-qualified" in raw:
        raise ValueError(
            f"where.{name}: `qualified` resolves names through Python's imports; it is not "
            "offered for JavaScript or TypeScript rules yet (use `regex`)"
        )

    def regex(key: str) -> SafePattern | None:
        if key not in raw:
            return None
        try:
            return compile_regex(raw[key])
        except ValueError as exc:
            raise ValueError(f"where.{name}.{key}: {exc}") from None

    return JsCondition(regex("regex"), regex("not-regex"))

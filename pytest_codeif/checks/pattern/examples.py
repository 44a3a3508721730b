"""A pattern rule's own examples: code the rule must match and code it must not.

They prove a team rule as samples prove a check (as `semgrep --test` and `ast-grep test`
do): `codeif check-samples` evaluates the rule on each and fails, at the example's line
in the task file, when one does not behave. A session never evaluates them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

#: The keys of `examples`, each with what the rule must do on its code.
MATCH: Final = "match"
NO_MATCH: Final = "no-match"

_CODE_LIST: Final = {
    "type": "array",
    "items": {"type": "string", "minLength": 1},
    "minItems": 1,
}
EXAMPLES_SCHEMA: Final = {
    "type": "object",
    "minProperties": 1,
    "properties": {
        MATCH: {**_CODE_LIST, "description": "Modules the rule must match at least once."},
        NO_MATCH: {**_CODE_LIST, "description": "Modules the rule must not match."},
    },
    "additionalProperties": False,
    "description": "Code the rule must match and code it must not, verified by "
    "`codeif check-samples`.",
}


@dataclass(frozen=True)
class RuleExamples:
    """The `examples` of one rule, each a module's source."""

    match: tuple[str, ...] = ()
    no_match: tuple[str, ...] = ()

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> RuleExamples:
        raw = options.get("examples", {})
        return cls(tuple(raw.get(MATCH, ())), tuple(raw.get(NO_MATCH, ())))

    def __len__(self) -> int:
        return len(self.match) + len(self.no_match)

    def each(self) -> list[tuple[str, int, str]]:
        """(key, index, code) of every example, `match` ones first."""
        return [(MATCH, i, code) for i, code in enumerate(self.match)] + [
            (NO_MATCH, i, code) for i, code in enumerate(self.no_match)
        ]

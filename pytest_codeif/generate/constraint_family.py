"""What one samplable constraint is: a check, its options, how to word it as an
instruction, and which other samplable constraints it must never be drawn with.

IFEval gives each instruction a `build_description` (a few wordings, with parameters
drawn at random) and a conflict table; a `Family` is the same for a check of this
package. The built-in families are in `constraint_catalog.py`; a third-party check
offers its own through the `samplable` class attribute (read by `family_from`, and
documented on the docs page `generate-constraints.md`).

Placeholders: in `options` and `wordings`, `{name}` stands for a value of the drawn
variant (`{"module": "re"}`) or for `{function}`, the base problem's entry point (a
family that names it is offered only for problems that have one). An option value that
is exactly one placeholder takes the value's own type (an integer stays an integer);
elsewhere the value is written into the text. Braces that name nothing (`\\d{3}` in a
pattern) are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import jsonschema

#: A family's id: a constraint id of the generated task files (after `l1-`), so plain.
FAMILY_ID: Final = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_PLACEHOLDER: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

#: The shape of one entry of a check's `samplable` attribute (plain data, so a rule
#: author needs to import nothing to offer one).
SAMPLABLE_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "required": ["id", "wordings"],
    "properties": {
        "id": {"type": "string", "pattern": FAMILY_ID.pattern},
        "options": {"type": "object"},
        "wordings": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "minLength": 1},
        },
        "conflicts": {"type": "array", "items": {"type": "string"}},
        "variants": {"type": "array", "minItems": 1, "items": {"type": "object"}},
        "category": {"type": "string", "minLength": 1},
    },
    "additionalProperties": False,
}


class FamilyError(ValueError):
    """A samplable entry that cannot be used, and why."""


def fill(template: str, values: Mapping[str, Any]) -> str:
    """`template` with each `{name}` that `values` holds replaced by its value."""

    def value(match: re.Match[str]) -> str:
        name = match[1]
        return str(values[name]) if name in values else match[0]

    return _PLACEHOLDER.sub(value, template)


def fill_options(template: Any, values: Mapping[str, Any]) -> Any:
    """`template` (plain data) with its placeholders filled: a string that is exactly
    one known placeholder becomes the value itself, other strings are `fill`ed."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole and whole[1] in values:
            return values[whole[1]]
        return fill(template, values)
    if isinstance(template, Mapping):
        return {key: fill_options(item, values) for key, item in template.items()}
    if isinstance(template, (list, tuple)):
        return [fill_options(item, values) for item in template]
    return template


def placeholders(template: Any) -> set[str]:
    """Every placeholder name `template` (plain data or text) uses."""
    if isinstance(template, str):
        return set(_PLACEHOLDER.findall(template))
    if isinstance(template, Mapping):
        return set().union(*(placeholders(item) for item in template.values()))
    if isinstance(template, (list, tuple)):
        return set().union(*(placeholders(item) for item in template))
    return set()


@dataclass(frozen=True)
class Family:
    """One samplable constraint of a check, with its variants and wordings."""

    id: str
    check: str
    options: Mapping[str, Any]
    wordings: tuple[str, ...]
    conflicts: frozenset[str] = frozenset()
    #: Parameter values, one mapping per variant (IFEval's random parameters, listed).
    variants: tuple[Mapping[str, Any], ...] = ({},)
    #: The constraint's category; None keeps the check's own.
    category: str | None = None
    #: Where it was declared: "built-in" or the check class's dotted name.
    origin: str = "built-in"
    #: Its check judges values seen when the tests run (`observes_calls`): a witness
    #: run asking about it runs the problem's tests too.
    observes_calls: bool = False

    @property
    def needs_function(self) -> bool:
        """The options or wordings name the problem's entry point."""
        return "function" in placeholders([self.options, list(self.wordings)])

    def values(self, variant: int, function: str | None) -> dict[str, Any]:
        """The placeholder values of `variant` for a problem whose entry point is
        `function`."""
        found = dict(self.variants[variant])
        if function is not None:
            found.setdefault("function", function)
        return found

    def resolved(self, variant: int, function: str | None) -> dict[str, Any]:
        """The constraint's options for `variant` and the problem's entry point."""
        filled = fill_options(self.options, self.values(variant, function))
        return dict(filled)

    def worded(self, variant: int, wording: int, function: str | None) -> str:
        """Wording number `wording` of `variant`, placeholders filled."""
        return fill(self.wordings[wording], self.values(variant, function))

    def label(self, variant: int) -> str:
        """The family id with the variant's values: `imports-forbid[module=re]`."""
        shown = ",".join(f"{k}={v}" for k, v in sorted(self.variants[variant].items()))
        return f"{self.id}[{shown}]" if shown else self.id


def family_from(entry: object, check: str, origin: str, schema: Mapping[str, Any]) -> Family:
    """The family a `samplable` entry of check `check` declares; `FamilyError` saying
    what is wrong when the entry is malformed, or when an option set it gives does not
    validate against the check's `schema` (with `{function}` as `f`)."""
    try:
        jsonschema.validate(entry, SAMPLABLE_SCHEMA)
    except jsonschema.ValidationError as exc:
        where = "/".join(map(str, exc.absolute_path)) or "the entry"
        raise FamilyError(f"{where}: {exc.message}") from None
    if not isinstance(entry, Mapping):  # the schema said so; this tells mypy
        raise FamilyError("the entry is not a mapping")
    family = Family(
        id=entry["id"],
        check=check,
        options=dict(entry.get("options", {})),
        wordings=tuple(entry["wordings"]),
        conflicts=frozenset(entry.get("conflicts", ())),
        variants=tuple(dict(v) for v in entry.get("variants", [{}])),
        category=entry.get("category"),
        origin=origin,
    )
    verify(family, schema)
    return family


def verify(family: Family, schema: Mapping[str, Any]) -> None:
    """`FamilyError` unless every variant's options validate against `schema` and
    every placeholder of the options and wordings has a value in every variant."""
    for number, variant in enumerate(family.variants):
        known = set(variant) | {"function"}
        unknown = placeholders([family.options, list(family.wordings)]) - known
        if unknown:
            names = ", ".join(sorted(unknown))
            raise FamilyError(f"variant {number + 1} gives no value for {{{names}}}")
        options = family.resolved(number, "f")
        try:
            jsonschema.validate(options, dict(schema))
        except jsonschema.ValidationError as exc:
            raise FamilyError(
                f"variant {number + 1}: options {options!r} are not valid for check "
                f"`{family.check}`: {exc.message}"
            ) from None


def conflict_table(families: Sequence[Family]) -> dict[str, frozenset[str]]:
    """Each family's conflicts, made symmetric (A conflicting with B makes B conflict
    with A) and reflexive (a family is never drawn twice in one task)."""
    table: dict[str, set[str]] = {family.id: {family.id} for family in families}
    for family in families:
        for other in family.conflicts:
            if other in table:
                table[family.id].add(other)
                table[other].add(family.id)
    return {name: frozenset(others) for name, others in table.items()}

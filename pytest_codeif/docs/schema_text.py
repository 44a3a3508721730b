"""JSON Schema said in words for the reference pages: what a key accepts, as one table
cell, and the rules that tie an object's keys together (`anyOf` of `required`...)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

_NUMERIC_BOUNDS: Final = (
    ("minimum", ">="),
    ("exclusiveMinimum", ">"),
    ("maximum", "<="),
    ("exclusiveMaximum", "<"),
)


def code(value: object) -> str:
    """`value` as inline code (a string as it is, anything else as JSON). Safe in a table
    cell as it is: Markdown's tables take a pipe inside a code span as the span's text,
    and an escaping backslash there would be shown."""
    text = value if isinstance(value, str) else json.dumps(value)
    fence = "``" if "`" in text else "`"
    padded = f" {text} " if fence == "``" else text
    return f"{fence}{padded}{fence}"


#: A code span (its backtick run, its text, the same run closing it), or one pipe.
_SPAN_OR_PIPE = re.compile(r"(`+)(?:.+?)(?<!`)\1(?!`)|\|", re.DOTALL)


def table_text(text: str) -> str:
    """`text` safe in a table cell: pipes outside code spans escaped (`\\|`), those inside
    left as they are (see `code`)."""
    return _SPAN_OR_PIPE.sub(lambda m: "\\|" if m[0] == "|" else m[0], text)


def names(keys: Sequence[str], conjunction: str = "or") -> str:
    """`a`, `b` or `c`."""
    quoted = [code(key) for key in keys]
    if len(quoted) < 2:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} {conjunction} {quoted[-1]}"


def accepts(schema: Mapping[str, Any]) -> str:
    """What a value of `schema` may be, in a few words (`list of string, at least 1`)."""
    if "const" in schema:
        return code(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(code(v) for v in schema["enum"])
    kind = schema.get("type")
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema and kind is None:
            return " or ".join(accepts(branch) for branch in schema[combinator])
    if isinstance(kind, list):
        return " or ".join(accepts({**schema, "type": one}) for one in kind)
    if kind == "array":
        return _array(schema)
    if kind == "object":
        return _object(schema)
    if kind in ("integer", "number"):
        bounds = [f"{sign} {schema[key]}" for key, sign in _NUMERIC_BOUNDS if key in schema]
        return " ".join([str(kind), *bounds[:1]]) + "".join(f", {b}" for b in bounds[1:])
    if kind == "string":
        return _string(schema)
    if isinstance(kind, str):
        return kind
    return "any value"


def _string(schema: Mapping[str, Any]) -> str:
    text = f"string matching {code(schema['pattern'])}" if "pattern" in schema else "string"
    limits = []
    if schema.get("minLength") == 1:
        limits.append("not empty")
    elif schema.get("minLength", 0) > 1:
        limits.append(f"at least {schema['minLength']} characters")
    if "maxLength" in schema:
        limits.append(f"at most {schema['maxLength']} characters")
    return ", ".join([text, *limits])


def _array(schema: Mapping[str, Any]) -> str:
    items = schema.get("items")
    text = "list"
    if isinstance(items, Mapping):
        each = accepts(items)
        # `list of (a or b) (at least 1)`: whose the limits are is said by the brackets.
        text = f"list of ({each})" if " or " in each else f"list of {each}"
    limits = []
    if schema.get("minItems"):
        limits.append(f"at least {schema['minItems']}")
    if "maxItems" in schema:
        limits.append(f"at most {schema['maxItems']}")
    if schema.get("uniqueItems"):
        limits.append("no repeats")
    return f"{text} ({', '.join(limits)})" if limits else text


def _object(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties")
    if properties and len(properties) > 3:
        return "mapping"
    if properties:
        return f"mapping with keys {names(list(properties), 'and')}"
    values = schema.get("additionalProperties")
    if isinstance(values, Mapping):
        return f"mapping of names to {accepts(values)}"
    return "mapping"


def key_rules(schema: Mapping[str, Any]) -> list[str]:
    """The rules on an object's keys as a whole, one sentence each: which key must be
    given, which together, which forbids which."""
    rules: list[str] = []
    required = schema.get("required", [])
    if required:
        rules.append(f"Required: {names(required, 'and')}.")
    for combinator, quantity in (("anyOf", "at least one"), ("oneOf", "exactly one")):
        if combinator in schema:
            forms = [_form(branch) for branch in schema[combinator]]
            rules.append(f"Give {quantity} of: {'; '.join(forms)}.")
    for key, needs in schema.get("dependentRequired", {}).items():
        rules.append(f"{code(key)} needs {names(needs, 'and')}.")
    if schema.get("minProperties") == 1:
        rules.append("Give at least one option.")
    if "if" in schema and "then" in schema:
        when, then = _condition(schema["if"], "is"), _condition(schema["then"], "must be")
        rules.append(f"When {when}, {then}.")
    return rules


def _form(branch: Mapping[str, Any]) -> str:
    """One form of a `oneOf` / `anyOf`: the keys it requires, and its own choices."""
    text = names(branch.get("required", []), "and") or "any keys"
    inner = [_form(b) for b in branch.get("anyOf", [])]
    return f"{text} with {' or '.join(inner)}" if inner else text


def _condition(schema: Mapping[str, Any], verb: str) -> str:
    """`annotations` is `none`: the `const` values an if/then branch names (else the keys
    it requires, which must be given)."""
    properties = schema.get("properties", {})
    said = [
        f"{code(key)} {verb} {code(value['const'])}"
        for key, value in properties.items()
        if isinstance(value, Mapping) and "const" in value
    ]
    return " and ".join(said) or f"give {names(schema.get('required', []), 'and')}"


def keys_table(schema: Mapping[str, Any], heading: str = "key") -> str:
    """A Markdown table of `schema`'s properties: name, what it accepts, and its
    description (a column left out when no property has one)."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    described = any(isinstance(v, Mapping) and v.get("description") for v in properties.values())
    rows = [f"| {heading} | accepts |" + (" description |" if described else "")]
    rows.append("| --- | --- |" + (" --- |" if described else ""))
    required = set(schema.get("required", []))
    for key, value in properties.items():
        text = value if isinstance(value, Mapping) else {}
        marker = " (required)" if key in required else ""
        row = f"| {code(key)}{marker} | {accepts(text)} |"
        if described:
            said = table_text(" ".join(str(text.get("description", "")).split()))
            row += f" {said} |"
        rows.append(row)
    return "\n".join(rows) + "\n"

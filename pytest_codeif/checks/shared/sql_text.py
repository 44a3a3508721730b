"""SQL in Python strings: the text an expression builds, and whether it is an SQL statement.

Shared by the data-access checks (`raw-sql`, `orm-only`). Two steps:

- `built_text` reads the text a string expression builds: a literal, an f-string, `+`
  concatenations, `%`-formatting, `.format()`, `"sep".join([...])`, `textwrap.dedent`,
  psycopg's `sql.SQL(...)`. What is unknown at this point (an f-string's `{name}`, a
  variable added to a literal, a `.format` argument) becomes the identifier `codeif_p`,
  which fits where SQL puts a value or a name (`WHERE id = codeif_p`, `FROM codeif_p`).
- `SqlParser.statement` asks sqlglot, a real SQL parser, whether that text is an SQL
  statement. sqlglot is lenient (`Update your profile` parses as an UPDATE of a table
  `your`, `create a user` as a generic command), so a parse counts only when its top
  expression is a statement with the parts that make it one: a SELECT with columns, an
  INSERT with VALUES or a query, an UPDATE with SET, a DELETE FROM a table, a CREATE or
  DROP of a named kind of object... and never sqlglot's catch-all `Command`.

Strings are hostile data. Text is handed to sqlglot only when its first word is one
that starts a statement, at most `MAX_SQL_CHARS` of it (past that, its first statement,
if that one is short enough), and each evaluation of a check may hand sqlglot at most
`PARSE_BUDGET` characters in all (each dialect tried counts): measured on adversarial
input (deep nesting, 20,000-character expressions, unbalanced quotes, random tokens) a
parse stays under half a second, and nesting past Python's recursion limit fails fast
(`RecursionError`, caught like sqlglot's own errors).
"""

from __future__ import annotations

import ast
import logging
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final

import libcst as cst

from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.outcome import Undecidable

if TYPE_CHECKING:
    from sqlglot import exp

#: Stands for any part of the text not known before the code runs.
DUMMY: Final = "codeif_p"
#: Longest text handed to sqlglot at once (longer: only its first statement).
MAX_SQL_CHARS: Final = 20_000
#: Characters handed to sqlglot per check evaluation, each dialect tried counted (the
#: worst text costs about a second per 70,000 characters; real SQL parses at the first).
PARSE_BUDGET: Final = 500_000
#: Longest text `built_text` builds (joins of joins stop growing here).
_MAX_BUILT: Final = MAX_SQL_CHARS + 1
_MAX_DEPTH: Final = 40

#: sqlglot's default dialect first; the others only when it fails (backquotes: MySQL;
#: `PRAGMA`: SQLite; `E'...'`: PostgreSQL; `TOP n`: SQL Server).
_DIALECTS: Final = (None, "mysql", "postgres", "sqlite", "tsql")
#: First words of the statements looked for; other text is never parsed.
_LEADING_WORDS: Final = frozenset(
    {
        "select",
        "insert",
        "update",
        "delete",
        "create",
        "drop",
        "alter",
        "with",
        "replace",
        "merge",
        "truncate",
        "pragma",
        "explain",
        "begin",
        "start",
        "commit",
        "rollback",
        "set",
        "show",
        "copy",
        "grant",
        "revoke",
        "analyze",
        "attach",
        "detach",
        "vacuum",
        "reindex",
    }
)
#: Commands sqlglot has no tree for, accepted with at most one word after them.
_COMMANDS: Final = frozenset({"VACUUM", "REINDEX"})
#: Statement kinds that configure a connection or control a transaction.
_NO_DATA: Final = frozenset(
    {"PRAGMA", "SET", "BEGIN", "COMMIT", "ROLLBACK", "SHOW", "ATTACH", "DETACH", "VACUUM"}
)
_TRANSACTION_WORDS: Final = frozenset(
    {
        "TRANSACTION",
        "WORK",
        "DEFERRED",
        "IMMEDIATE",
        "EXCLUSIVE",
        "ISOLATION",
        "LEVEL",
        "READ",
        "WRITE",
        "ONLY",
        "COMMITTED",
        "UNCOMMITTED",
        "REPEATABLE",
        "SERIALIZABLE",
        "DEFERRABLE",
        "NOT",
    }
)
_PERCENT_FIELD = re.compile(r"%%|%(?:\([^()\s]{1,64}\))?[#0 +-]{0,4}\d{0,3}(?:\.\d{1,3})?[sdifrbt]")
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]{0,200}\}")
#: `:name` placeholders (a keyword as a name, `:notnull`, trips sqlglot), not `::` casts.
_NAMED_PLACEHOLDER = re.compile(r"(?<![:\w]):[A-Za-z_]\w*")
_LEADING_NOISE = re.compile(r"(?:\s+|\(|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.DOTALL)
_FIRST_WORD = re.compile(r"[A-Za-z]+")

#: Calls that return their first argument's text (as far as SQL is concerned).
_PASS_THROUGH: Final = frozenset(
    {
        "textwrap.dedent",
        "inspect.cleandoc",
        "builtins.str",
        "psycopg2.sql.SQL",
        "psycopg.sql.SQL",
    }
)
_TEXT_METHODS: Final = frozenset({"strip", "lstrip", "rstrip", "upper", "lower", "casefold"})


@dataclass(frozen=True)
class SqlStatement:
    """An SQL text sqlglot parsed: its first statement's kind (`SELECT`) and a short
    summary (`SELECT ... FROM users`), and how many statements the text holds."""

    kind: str
    summary: str
    count: int = 1

    @property
    def touches_data(self) -> bool:
        """Whether it reads or writes data or schema; not a connection's configuration
        or transaction control (`PRAGMA foreign_keys = ON`, `SET ...`, `BEGIN`)."""
        return self.kind not in _NO_DATA

    def describe(self) -> str:
        """The summary, with how many more statements follow."""
        more = self.count - 1
        if more:
            return f"{self.summary} (+{more} more statement{'s' if more > 1 else ''})"
        return self.summary


# -- the text an expression builds ------------------------------------------------------

#: Resolves a name (or `self.attr`) to the text it holds where it is read, or None.
Lookup = Callable[[cst.BaseExpression, int], "str | None"]


def built_text(
    module: ParsedModule,
    node: cst.BaseExpression,
    lookup: Lookup | None = None,
    depth: int = 0,
) -> str | None:
    """The text `node` builds, unknown parts replaced by `DUMMY`; None when it builds no
    text we can see (not a string expression, or nothing of it known). `lookup` reads
    names; without it, names are unknown."""
    if depth > _MAX_DEPTH:
        return None
    text: str | None = None
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    elif isinstance(node, cst.ConcatenatedString):
        text = _concatenated_text(node)
    elif isinstance(node, cst.FormattedString):
        text = _fstring_text(node)
    elif isinstance(node, cst.BinaryOperation):
        text = _operation_text(module, node, lookup, depth)
    elif isinstance(node, cst.Call):
        text = _call_text(module, node, lookup, depth)
    elif isinstance(node, cst.IfExp):
        text = built_text(module, node.body, lookup, depth + 1)
        if text is None:
            text = built_text(module, node.orelse, lookup, depth + 1)
    elif isinstance(node, (cst.Name, cst.Attribute)) and lookup is not None:
        text = lookup(node, depth + 1)
    return None if text is None else capped(text)


def capped(text: str) -> str:
    """`text`, cut past the longest text worth building."""
    return text[:_MAX_BUILT] if len(text) > _MAX_BUILT else text


def _concatenated_text(node: cst.ConcatenatedString) -> str:
    """`"SELECT a " "FROM t"`: the parts joined, without recursion (a long query is
    often written as dozens of them)."""
    pieces: list[str] = []
    size = 0
    pending: list[cst.BaseExpression] = [node]
    while pending and size <= _MAX_BUILT:
        current = pending.pop()
        if isinstance(current, cst.ConcatenatedString):
            pending.extend((current.right, current.left))
            continue
        if isinstance(current, cst.FormattedString):
            piece = _fstring_text(current)
        elif isinstance(current, cst.SimpleString):
            value = current.evaluated_value
            piece = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        else:
            continue
        pieces.append(piece)
        size += len(piece)
    return "".join(pieces)


def _fstring_text(node: cst.FormattedString) -> str:
    literal_start = node.start.replace("f", "").replace("F", "")
    pieces: list[str] = []
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            pieces.append(_unescape(literal_start, part.value, node.end))
        else:
            pieces.append(DUMMY)
    return "".join(pieces)


def _unescape(start: str, raw: str, end: str) -> str:
    """An f-string's literal part as the string it stands for (escapes decoded)."""
    try:
        value = ast.literal_eval(f"{start}{raw}{end}")
    except (SyntaxError, ValueError, MemoryError):
        value = raw
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text.replace("{{", "{").replace("}}", "}")


def _operands(node: cst.BinaryOperation) -> list[cst.BaseExpression]:
    """`a + b + c` as [a, b, c], without recursion (long chains are plain data)."""
    found: list[cst.BaseExpression] = []
    pending: list[cst.BaseExpression] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.BinaryOperation) and isinstance(current.operator, cst.Add):
            pending.extend((current.right, current.left))
        else:
            found.append(current)
    return found


def _operation_text(
    module: ParsedModule, node: cst.BinaryOperation, lookup: Lookup | None, depth: int
) -> str | None:
    if isinstance(node.operator, cst.Modulo):  # "... %s" % args: Python fills them in
        left = built_text(module, node.left, lookup, depth + 1)
        return None if left is None else _PERCENT_FIELD.sub(_fill_percent, left)
    if not isinstance(node.operator, cst.Add):
        return None
    texts = [built_text(module, operand, lookup, depth + 1) for operand in _operands(node)]
    if all(text is None for text in texts):
        return None
    joined: list[str] = []
    size = 0
    for text in texts:
        piece = DUMMY if text is None else text
        joined.append(piece)
        size += len(piece)
        if size > _MAX_BUILT:
            break
    return "".join(joined)


def _format(
    module: ParsedModule, template: str, call: cst.Call, lookup: Lookup | None, depth: int
) -> str:
    """`template.format(...)`: each field replaced by its argument's text, or `DUMMY`."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    automatic = iter(range(len(positional) + 1))

    def field(match: re.Match[str]) -> str:
        token = match.group()
        if token in ("{{", "}}"):
            return token[0]
        name = re.split(r"[!:.\[]", token[1:-1], maxsplit=1)[0]
        argument: cst.BaseExpression | None
        if not name:
            index = next(automatic, len(positional))
            argument = positional[index] if index < len(positional) else None
        elif name.isdigit():
            argument = positional[int(name)] if int(name) < len(positional) else None
        else:
            argument = keywords.get(name)
        whole = name == token[1:-1]  # `{0.attr}`, `{x!r}`, `{x:>5}`: not the argument's text
        text = built_text(module, argument, lookup, depth + 1) if argument and whole else None
        return DUMMY if text is None else text

    return _FORMAT_FIELD.sub(field, template)


def _call_text(
    module: ParsedModule, node: cst.Call, lookup: Lookup | None, depth: int
) -> str | None:
    func = node.func
    first = node.args[0].value if node.args and node.args[0].keyword is None else None
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method == "format":
            receiver = built_text(module, func.value, lookup, depth + 1)
            return None if receiver is None else _format(module, receiver, node, lookup, depth)
        if method in _TEXT_METHODS:
            receiver = built_text(module, func.value, lookup, depth + 1)
            if receiver is None:
                return None
            return receiver.upper() if method == "upper" else receiver
        if method == "join" and isinstance(first, (cst.List, cst.Tuple)):
            separator = built_text(module, func.value, lookup, depth + 1)
            if separator is None:
                return None
            items = [built_text(module, e.value, lookup, depth + 1) for e in first.elements]
            if all(item is None for item in items):
                return None
            return separator.join(DUMMY if item is None else item for item in items)
    if first is not None and module.qualified(func) & _PASS_THROUGH:
        return built_text(module, first, lookup, depth + 1)
    return None


# -- is it SQL? -------------------------------------------------------------------------


def _fill_percent(match: re.Match[str]) -> str:
    return "%" if match.group() == "%%" else DUMMY


def normalise(text: str) -> str:
    """DB-API placeholders (`%s`, `%(name)s`, `:name`: always values) as `?`, `%%` as
    `%`: sqlglot reads `?` and `$1`, not Python's pyformat nor `:name` named like a
    keyword (`:notnull`)."""
    text = _PERCENT_FIELD.sub(lambda m: "%" if m.group() == "%%" else "?", text)
    return _NAMED_PLACEHOLDER.sub("?", text)


def leading_word(text: str) -> str:
    """The first word of `text` past blanks, opening parentheses and SQL comments."""
    start = _LEADING_NOISE.match(text[:2000])
    rest = text[start.end() if start else 0 :]
    word = _FIRST_WORD.match(rest[:32])
    return word.group().lower() if word else ""


class SqlParser:
    """Parses texts with sqlglot within a budget of characters (one per check run, so a
    hostile module cannot make a check parse for minutes)."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = PARSE_BUDGET if budget is None else budget
        self.remaining = self.budget

    def statement(self, text: str | None) -> SqlStatement | None:
        """The SQL statement `text` is, or None (not SQL, or too long to judge).

        Raises `Undecidable("too-large")` once the budget is spent."""
        if text is None or leading_word(text) not in _LEADING_WORDS:
            return None
        text = _first_statements(normalise(text))
        if text is None:
            return None
        if len(text) * len(_DIALECTS) > self.remaining:  # the most one text may cost
            raise Undecidable(
                "too-large",
                f"more than {self.budget:,} characters of SQL-like text to parse",
            )
        statement, attempts = _parse(text)
        self.remaining -= len(text) * attempts
        return statement


def _first_statements(text: str) -> str | None:
    """`text`, or when it is too long, its first statement (None if that is too long)."""
    if len(text) <= MAX_SQL_CHARS:
        return text
    end = text.find(";", 0, MAX_SQL_CHARS)
    return text[: end + 1] if end > 0 else None


class _QuietWhileParsing(logging.Filter):
    """sqlglot logs a warning for each text it falls back to a generic command for; in
    this thread, while we parse, those are expected and not news."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(self.local, "parsing", False)


_QUIET = _QuietWhileParsing()
logging.getLogger("sqlglot").addFilter(_QUIET)


@lru_cache(maxsize=2048)
def _parse(text: str) -> tuple[SqlStatement | None, int]:
    """The statement `text` is (None: not one), and how many dialects were tried."""
    # sqlglot costs 0.2 s to import: only sessions that look for SQL pay it.
    import sqlglot  # noqa: PLC0415

    _QUIET.local.parsing = True
    try:
        for attempt, dialect in enumerate(_DIALECTS, 1):
            statements = _statements(sqlglot.parse, text, dialect)
            if statements and all(_is_statement(tree) for tree in statements):
                first = statements[0]
                found = SqlStatement(_kind(first), _summary(first, text), len(statements))
                return found, attempt
        return None, len(_DIALECTS)
    finally:
        _QUIET.local.parsing = False


def _statements(
    parse: Callable[..., list[exp.Expr | None]], text: str, dialect: str | None
) -> list[exp.Expr]:
    """The statements sqlglot parses `text` into in `dialect`; none when it cannot."""
    try:
        trees = parse(text, read=dialect)
    # Not SQL, or not SQL sqlglot can read: its ParseError and TokenError, RecursionError
    # on deep nesting, and whatever else its parser raises on text it was not written for.
    except Exception:  # noqa: BLE001
        return []
    return [tree for tree in trees if tree is not None]


def _is_statement(tree: exp.Expr) -> bool:
    """A statement with the parts that make it one (see the module docstring)."""
    from sqlglot import exp  # noqa: PLC0415

    args = tree.args
    if isinstance(tree, exp.Select):
        return bool(tree.expressions)
    if isinstance(tree, exp.Insert):
        return args.get("expression") is not None
    if isinstance(tree, exp.Update):
        return bool(tree.expressions)
    if isinstance(tree, exp.Delete):
        return isinstance(args.get("this"), exp.Table)
    if isinstance(tree, (exp.Create, exp.Drop, exp.Alter)):
        return bool(args.get("kind"))
    if isinstance(tree, exp.Transaction):
        modes = args.get("modes") or []
        return all(set(str(mode).upper().split()) <= _TRANSACTION_WORDS for mode in modes)
    if isinstance(tree, exp.Command):
        rest = str(args.get("expression") or "").split()
        return str(args.get("this") or "").upper() in _COMMANDS and len(rest) <= 1
    if isinstance(tree, exp.Describe):
        inner = args.get("this")
        return isinstance(inner, exp.Expr) and _is_statement(inner)
    return isinstance(tree, _plain_statements())


#: Statements whose every parse counts (sqlglot versions differ in which they have).
_PLAIN_STATEMENTS: Final = (
    "SetOperation",
    "Merge",
    "TruncateTable",
    "Pragma",
    "Commit",
    "Rollback",
    "Set",
    "Copy",
    "Grant",
    "Revoke",
    "Analyze",
    "Show",
    "Attach",
    "Detach",
)


@lru_cache(maxsize=1)
def _plain_statements() -> tuple[type[exp.Expr], ...]:
    from sqlglot import exp  # noqa: PLC0415

    found = (getattr(exp, name, None) for name in _PLAIN_STATEMENTS)
    return tuple(kind for kind in found if isinstance(kind, type))


_KIND_NAMES: Final = {
    "truncatetable": "TRUNCATE",
    "transaction": "BEGIN",
    "describe": "EXPLAIN",
    "union": "SELECT",
    "intersect": "SELECT",
    "except": "SELECT",
}


def _kind(tree: exp.Expr) -> str:
    from sqlglot import exp  # noqa: PLC0415

    if isinstance(tree, exp.Command):
        return str(tree.args.get("this") or "").upper()
    key = tree.key.lower()
    return _KIND_NAMES.get(key, key.upper())


def _tables(tree: exp.Expr) -> Iterator[str]:
    from sqlglot import exp  # noqa: PLC0415

    for table in tree.find_all(exp.Table):
        name = table.name
        if name:
            yield name.replace(DUMMY, "{...}")


def short(text: str, limit: int = 40) -> str:
    """`text` on one line, `DUMMY` shown as `{...}`, cut to about `limit` characters."""
    line = " ".join(text.replace(DUMMY, "{...}").split())
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


def _summary(tree: exp.Expr, text: str) -> str:
    """`SELECT ... FROM users`, `INSERT INTO users ...`, `CREATE TABLE users ...`; a
    statement naming no table is quoted (`PRAGMA foreign_keys = ON`), cut short."""
    from sqlglot import exp  # noqa: PLC0415

    kind = _kind(tree)
    table = next(_tables(tree), None)
    if table is None:
        first = text.split(";", 1)[0]
        return short(first) if leading_word(first) else f"{kind} ..."
    if isinstance(tree, (exp.Select, exp.SetOperation)):
        return f"{kind} ... FROM {table}"
    if isinstance(tree, exp.Insert):
        return f"{kind} INTO {table} ..."
    if isinstance(tree, exp.Update):
        return f"{kind} {table} SET ..."
    if isinstance(tree, exp.Delete):
        return f"{kind} FROM {table} ..."
    if isinstance(tree, (exp.Create, exp.Drop, exp.Alter)):
        what = str(tree.args.get("kind") or "").upper()
        return f"{kind} {what} {table} ..." if what else f"{kind} {table} ..."
    return f"{kind} ... {table} ..."

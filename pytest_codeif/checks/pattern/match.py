"""The pattern language of the `pattern` check: Python code with metavariables, matched
structurally on libcst trees.

A pattern is compiled once (`compile_pattern`, in the check's constructor, so a bad one is
a located task-file error) and matched by a `Matcher` bound to one parsed module. Metavariables
(`$X`, `$...ARGS`) and the `...` of argument and parameter lists are not Python, so the text
is rewritten first into placeholder identifiers that parse; only pattern trees are read for
placeholders, never the code under evaluation. Every match step is paid from a `Budget`, so
a pattern whose ellipses could try combinations without end against hostile code stops.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import keyword
import re
import textwrap
import tokenize
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

import libcst as cst

from pytest_codeif.code.cst import ParsedModule, all_nodes
from pytest_codeif.code.identifiers import folded_tree

#: What a metavariable stands for: one node, or (`$...X`) a run of items.
Bound = cst.CSTNode | tuple[cst.CSTNode, ...]
#: Metavariable (as written: `$X`, `$...ARGS`) to the code it matched. Never mutated:
#: a new binding makes a new mapping, so alternatives explored by backtracking stay apart.
Bindings = Mapping[str, Bound]

_RESERVED: Final = "__codeif_"
_ONE: Final = "__codeif_mv_"
_SEQ: Final = "__codeif_mvseq_"
_DOTS: Final = "__codeif_dots_"
ANONYMOUS: Final = "$_"
ANONYMOUS_RUN: Final = "$..._"

#: Bounds on a pattern itself (real rules are a line or two).
MAX_PATTERN_LENGTH: Final = 5000
MAX_PATTERN_NODES: Final = 2000
MAX_PATTERN_DEPTH: Final = 60

# A metavariable as written: `$X`, `$SQL_1`, `$_`, `$...ARGS`. This expression reads the
# pattern's own text (bounded above) and cannot backtrack: it is not a task-file regex.
_METAVARIABLE: Final = re.compile(r"\$(\.\.\.)?([A-Z_][A-Z0-9_]*)(?![A-Za-z0-9_])")
_WHOLE_METAVARIABLE: Final = re.compile(r"\$(\.\.\.)?([A-Z_][A-Z0-9_]*)")

# Formatting fields: layout, brackets and separators are not what a pattern is about.
_LAYOUT_FIELDS: Final = frozenset(
    {
        "lpar",
        "rpar",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "comma",
        "semicolon",
        "equal",
        "dot",
        "colon",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "indent",
        "trailing_whitespace",
        "leading_whitespace",
        "first_colon",
        "second_colon",
        "default_indent",
        "default_newline",
        "has_trailing_newline",
        "encoding",
        "newline",
        "separator",
        "trailing_comma",
        "posonly_ind",
        "start",  # a formatted string's prefix and quote
        "end",
    }
)
#: Fields among the layout that carry meaning, compared by what they mean: an f-string's
#: `r` prefix (not its quotes), and the `=` of `f"{x=}"` (whether it is there).
_MEANINGFUL: Final[dict[tuple[type, str], Callable[[object], object]]] = {
    (cst.FormattedString, "start"): lambda start: "r" in str(start).lower(),
    (cst.FormattedStringExpression, "equal"): lambda equal: _plain(equal) is not None,
}
#: Parts a pattern may leave out: when the pattern has none, the code may have any.
_OPTIONAL: Final = frozenset(
    {
        (cst.FunctionDef, "decorators"),
        (cst.FunctionDef, "returns"),
        (cst.FunctionDef, "asynchronous"),
        (cst.FunctionDef, "type_parameters"),
        (cst.ClassDef, "decorators"),
        (cst.ClassDef, "bases"),
        (cst.ClassDef, "keywords"),
        (cst.ClassDef, "type_parameters"),
        (cst.If, "orelse"),
        (cst.For, "orelse"),
        (cst.For, "asynchronous"),
        (cst.While, "orelse"),
        (cst.Try, "orelse"),
        (cst.Try, "finalbody"),
        (cst.TryStar, "orelse"),
        (cst.TryStar, "finalbody"),
        (cst.ExceptHandler, "name"),
        (cst.ExceptStarHandler, "name"),
        (cst.With, "asynchronous"),
        (cst.WithItem, "asname"),
        (cst.Param, "annotation"),
        (cst.Param, "default"),
        (cst.Raise, "cause"),
        (cst.Assert, "msg"),
        (cst.ImportAlias, "asname"),
        (cst.CompFor, "asynchronous"),
    }
)
_STRINGS: Final = (cst.SimpleString, cst.ConcatenatedString)
_NUMBERS: Final = (cst.Integer, cst.Float, cst.Imaginary)
_BLOCKS: Final = (cst.IndentedBlock, cst.SimpleStatementSuite)
#: Roots whose candidates must be expressions of their own (not an attribute's name, a
#: keyword, a name in an import, a part of `"a" "b"`).
_REFERENCE_ROOTS: Final = frozenset(
    {cst.Name, cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString}
)
_FIELDS: dict[type, tuple[str, ...]] = {}
_Parsed = TypeVar("_Parsed", cst.Module, cst.BaseExpression)


class PatternSyntaxError(ValueError):
    """A pattern that cannot be used; the message says why and what to write instead."""


class BudgetExceeded(Exception):
    """Matching took more steps than its budget allows; the message says which limit."""


class Budget:
    """Steps left for matching (each node comparison costs one): in all, and for the
    place being tried (`start`), so one pathological place stops early."""

    __slots__ = ("here", "left", "limit", "per_place")

    def __init__(self, limit: int, per_place: int) -> None:
        self.limit = limit
        self.left = limit
        self.per_place = per_place
        self.here = per_place

    def start(self) -> None:
        """A new place is tried: its own allowance starts afresh."""
        self.here = self.per_place

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        self.here -= steps
        if self.here < 0:
            raise BudgetExceeded(f"matching at one place took more than {self.per_place:,} steps")
        if self.left < 0:
            raise BudgetExceeded(f"matching took more than {self.limit:,} steps in all")


@dataclass(frozen=True, eq=False)
class Pattern:
    """A compiled pattern: one node, or (`is_sequence`) consecutive statements."""

    text: str
    items: tuple[cst.CSTNode, ...]
    #: The metavariables it binds, as written (`$X`, `$...ARGS`); `$_` is never bound.
    metavariables: frozenset[str]

    @property
    def is_sequence(self) -> bool:
        return len(self.items) > 1

    @property
    def root(self) -> cst.CSTNode:
        """The node a match starts at (a sequence's first statement that is not `...`)."""
        return next(item for item in self.items if _item_kind(item)[0] == "one")

    @property
    def root_types(self) -> tuple[type[cst.CSTNode], ...] | None:
        """The node types a match can start at; None for any expression (`$X`)."""
        root = self.root
        if _metavariable(root) is not None:
            return None
        if isinstance(root, (cst.Name, cst.Attribute)) and _pattern_dotted(root) is not None:
            return (cst.Name, cst.Attribute)
        if _imported_member(root) is not None:
            return (cst.Name, cst.Attribute)
        if isinstance(root, _STRINGS):
            return _STRINGS
        if isinstance(root, _BLOCKS):
            return _BLOCKS
        return (type(root),)

    @property
    def one_line(self) -> str:
        """The pattern's text on one line, for messages."""
        return " ".join(line.strip() for line in self.text.strip().splitlines())


# --- compiling ---------------------------------------------------------------------------


_BRACKET: Final = re.compile(r"[()\[\]{}]")


def compile_pattern(text: str, where: str = "pattern") -> Pattern:
    """Parse `text` into a pattern; `PatternSyntaxError` (naming `where`) when it cannot be."""
    if len(text) > MAX_PATTERN_LENGTH:
        raise PatternSyntaxError(
            f"{where}: the pattern is {len(text):,} characters long; at most {MAX_PATTERN_LENGTH:,}"
        )
    if _RESERVED in text:
        raise PatternSyntaxError(f"{where}: names starting with {_RESERVED!r} are reserved")
    source = textwrap.dedent(text).strip()
    if not source:
        raise PatternSyntaxError(f"{where}: the pattern is empty")
    _check_brackets(source, where)
    items = _parse(_substitute_metavariables(source, where), where)
    _check_size(items, where)
    _check_placement(items, where)
    # Matches are looked for at every statement: a sequence's leading or trailing `...`
    # adds nothing.
    kinds = [_item_kind(item)[0] for item in items]
    if "one" not in kinds:
        raise PatternSyntaxError(
            f"{where}: a pattern of only `...` matches everything; write the code to look for"
        )
    first, last = kinds.index("one"), len(kinds) - kinds[::-1].index("one")
    items = items[first:last]
    if len(items) == 1 and type(items[0]) is cst.Expr:
        items = (items[0].value,)
    return Pattern(text, items, frozenset().union(*map(_names_in, items)))


def _substitute_metavariables(source: str, where: str) -> str:
    """`source` with each `$X` / `$...X` outside string literals replaced by a placeholder
    identifier (inside f-strings too; a string that is only `"$X"` becomes a placeholder)."""
    out: list[str] = []
    at, end = 0, len(source)
    while at < end:
        char = source[at]
        if char == "#":
            stop = source.find("\n", at)
            stop = end if stop < 0 else stop
            out.append(source[at:stop])
            at = stop
        elif char in "'\"":
            at = _copy_string(source, at, out)
        elif char == "$":
            found = _METAVARIABLE.match(source, at)
            if found is None:
                shown = source[at : at + 12].split(maxsplit=1)[0] if source[at:].strip() else "$"
                raise PatternSyntaxError(
                    f"{where}: `{shown}` is not a metavariable: write `$` and an upper-case "
                    "name (`$X`, `$SQL`, `$_`), or `$...NAME` for a run of arguments"
                )
            out.append(_placeholder(found[1] is not None, found[2]))
            at = found.end()
        else:
            out.append(char)
            at += 1
    return "".join(out)


def _placeholder(sequence: bool, name: str) -> str:
    return (_SEQ if sequence else _ONE) + name


def _copy_string(source: str, at: int, out: list[str]) -> int:
    """Copy the string literal starting at `at` to `out` (metavariables in an f-string's
    text replaced); return where it ends."""
    prefix = ""
    back = len(out) - 1
    while back >= 0 and out[back].isalpha() and len(prefix) < 3:
        prefix = out[back] + prefix
        back -= 1
    quote = source[at] * 3 if source.startswith(source[at] * 3, at) else source[at]
    body_start = at + len(quote)
    cursor = body_start
    while cursor < len(source) and not source.startswith(quote, cursor):
        cursor += 2 if source[cursor] == "\\" else 1
    body = source[body_start:cursor]
    whole = _WHOLE_METAVARIABLE.fullmatch(body)
    if "f" in prefix.lower():
        body = _METAVARIABLE.sub(lambda m: _placeholder(m[1] is not None, m[2]), body)
    elif whole is not None:
        body = _placeholder(whole[1] is not None, whole[2])
    out.append(quote + body + (quote if cursor < len(source) else ""))
    return min(cursor + len(quote), len(source))


def _parse(named: str, where: str) -> tuple[cst.CSTNode, ...]:
    """The pattern's nodes: an expression, else statements, else an `except` clause."""
    attempts = dict.fromkeys((_argument_dots(named), named))
    problems: list[str] = []
    for text in attempts:
        expression = _parsed(cst.parse_expression, text, problems)
        if expression is not None:
            return (expression,)
    problems.clear()  # say why it is no statement: that is the last form most try
    for text in attempts:
        module = _parsed(cst.parse_module, text + "\n", problems)
        if module is not None:
            return tuple(statements(module))
    if named.startswith("except"):
        for text in attempts:
            wrapped = _parsed(cst.parse_module, "try:\n    pass\n" + text + "\n", [])
            handlers: Sequence[cst.CSTNode] = (
                getattr(wrapped.body[0], "handlers", ()) if wrapped else ()
            )
            if len(handlers) == 1:
                return (handlers[0],)
    raise PatternSyntaxError(
        f"{where}: the pattern is not Python code ({problems[0]}); write a whole expression "
        "or statement, with `...` for any arguments or body (`if $X: ...`, "
        "`def $F(...): ...`, `except Exception: pass`)"
    )


def _parsed(parse: Callable[[str], _Parsed], text: str, problems: list[str]) -> _Parsed | None:
    """`parse(text)` with identifiers as Python reads them (NFKC, as in the code
    matched), or None with the reason added to `problems`."""
    try:
        return parse(text) if text.isascii() else folded_tree(parse(text))
    except cst.ParserSyntaxError as exc:
        problems.append(_first_line(exc))
    except cst.CSTValidationError as exc:  # parsed, but not valid Python
        problems.append(str(exc))
    except RecursionError:
        problems.append("nested too deeply")
    return None


def _first_line(exc: cst.ParserSyntaxError) -> str:
    """libcst's complaint, short: where, and the start of what it expected."""
    text = exc.message.splitlines()[0].removeprefix("parser error: ")
    return text if len(text) <= 100 else text[:97] + "..."


def _argument_dots(text: str) -> str:
    """`text` with each `...` (or `$...X` placeholder) that is a whole item of a call's
    arguments or a def's parameters made into something that parses there:
    `f(x=1, ...)` is not Python, `f(x=1, **__codeif_dots_0)` is."""
    try:
        tokens = [
            t
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
        ]
    except (tokenize.TokenError, SyntaxError):
        return text
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    brackets: list[_Bracket] = []
    for index, tok in enumerate(tokens):
        if tok.type == tokenize.OP and tok.string in "([{":
            brackets.append(_Bracket(_bracket_kind(tokens, index)))
        elif tok.type == tokenize.OP and tok.string in ")]}":
            if brackets:
                brackets.pop()
        elif brackets:
            replacement = brackets[-1].read(tokens, index)
            if replacement is not None:
                start = starts[tok.start[0] - 1] + tok.start[1]
                edits.append((start, start + len(tok.string), replacement))
    for start, stop, replacement in reversed(edits):
        text = text[:start] + replacement + text[stop:]
    return text


@dataclass
class _Bracket:
    """An open bracket while rewriting: a call's ("call"), a def's ("def") or another, and
    whether a keyword argument or default ("keyword") or a star ("star") came in it:
    what may follow them differs."""

    kind: str
    seen: str = ""

    def read(self, tokens: Sequence[tokenize.TokenInfo], index: int) -> str | None:
        """What token `index` inside the bracket becomes (None: it stays)."""
        tok = tokens[index]
        if tok.type == tokenize.OP and tok.string in ("=", "*", "**"):
            after_item = index > 0 and tokens[index - 1].string in ("(", ",")
            if tok.string == "=" or (tok.string == "**" and after_item):
                self.seen = self.seen or "keyword"
            elif after_item:
                self.seen = "star"
            return None
        if self.kind == "other" or not _is_item(tokens, index):
            return None
        name = f"{_DOTS}{index}" if tok.string == "..." else tok.string
        if self.kind == "call":  # `*x` may follow keywords, `**x` anything
            return ("**" if self.seen == "keyword" else "*") + name
        return name + "=0" if self.seen == "keyword" else name  # after `*`: keyword-only


def _bracket_kind(tokens: Sequence[tokenize.TokenInfo], index: int) -> str:
    """ "def" for a def's parameter list, "call" for a call's (or a class's) arguments."""
    if tokens[index].string != "(" or index == 0:
        return "other"
    before = tokens[index - 1]
    if before.type == tokenize.NAME and not keyword.iskeyword(before.string):
        earlier = tokens[index - 2].string if index >= 2 else ""
        return "def" if earlier == "def" else "call"
    return "call" if before.string in (")", "]") else "other"


def _is_item(tokens: Sequence[tokenize.TokenInfo], index: int) -> bool:
    """Whether token `index` is `...` or a `$...X` placeholder standing alone between
    `(`/`,` and `,`/`)`."""
    tok = tokens[index]
    if tok.string != "..." and not tok.string.startswith(_SEQ):
        return False
    if index == 0 or index + 1 >= len(tokens):
        return False
    return tokens[index - 1].string in ("(", ",") and tokens[index + 1].string in (")", ",")


def _check_brackets(source: str, where: str) -> None:
    """Refuse brackets nested deeper than a pattern may be, before libcst parses them:
    its native parser overflows its stack, killing the process, at about 1,500 levels
    (well within `MAX_PATTERN_LENGTH`). Brackets inside strings count too: a pattern
    never needs that many."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(source):
        depth = depth + 1 if bracket in "([{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_PATTERN_DEPTH:
        raise PatternSyntaxError(
            f"{where}: the pattern is too large (at most {MAX_PATTERN_NODES} syntax nodes, "
            f"nested at most {MAX_PATTERN_DEPTH} deep)"
        )


def _check_size(items: Sequence[cst.CSTNode], where: str) -> None:
    count = 0
    stack: list[tuple[cst.CSTNode, int]] = [(item, 1) for item in items]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_PATTERN_NODES or depth > MAX_PATTERN_DEPTH:
            raise PatternSyntaxError(
                f"{where}: the pattern is too large (at most {MAX_PATTERN_NODES} syntax nodes, "
                f"nested at most {MAX_PATTERN_DEPTH} deep)"
            )
        stack.extend((child, depth + 1) for child in node.children)


def _check_placement(items: Sequence[cst.CSTNode], where: str) -> None:
    """`$...X` and the argument `...` stand only where a run of items does."""
    as_items = {
        id(node)
        for item in items
        for parent in all_nodes(item)
        for node in _sequence_items(parent)
        if _item_kind(node)[0] != "one"
    }
    as_items.update(id(item) for item in items if _item_kind(item)[0] != "one")
    for item in items:
        if type(item) is cst.Ellipsis:
            raise PatternSyntaxError(
                f"{where}: a pattern of only `...` matches everything; write the code to look for"
            )
        if _sequence_metavariable(item) is not None:
            raise PatternSyntaxError(
                f"{where}: a pattern of only `{_sequence_metavariable(item)}` matches nothing: "
                "a run of items stands in arguments, parameters, elements or statements"
            )
        for node in all_nodes(item):
            for child in (getattr(node, name, None) for name in ("value", "name")):
                placeholder = _sequence_metavariable(child) or (
                    "..." if _is_dots_name(child) else None
                )
                if placeholder is not None and id(node) not in as_items:
                    raise PatternSyntaxError(
                        f"{where}: `{placeholder}` stands for a run of arguments, parameters, "
                        "elements or statements; it cannot stand where one expression does "
                        "(use `$X` or `...` there)"
                    )


def _sequence_items(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The items of `node`'s sequences (arguments, parameters, elements, statements)."""
    if type(node) is cst.Parameters:
        return _parameters(node)
    if isinstance(node, _BLOCKS):
        return statements(node)
    found: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, cst.CSTNode))
    return found


# --- reading pattern nodes ----------------------------------------------------------------


def _metavariable(node: object) -> str | None:
    """`$X` when `node` is the placeholder of a one-node metavariable."""
    if type(node) is cst.Name and node.value.startswith(_ONE):
        return "$" + node.value[len(_ONE) :]
    if type(node) is cst.SimpleString:
        inner = node.value.strip("'\"")
        if inner.startswith(_ONE) and node.value[0] in "'\"":
            return "$" + inner[len(_ONE) :]
    return None


def _sequence_metavariable(node: object) -> str | None:
    """`$...X` when `node` is the placeholder of a run metavariable."""
    if type(node) is cst.Name and node.value.startswith(_SEQ):
        return "$..." + node.value[len(_SEQ) :]
    return None


def _is_dots_name(node: object) -> bool:
    return type(node) is cst.Name and node.value.startswith(_DOTS)


def _item_kind(item: object) -> tuple[str, str | None]:
    """How a pattern item of a sequence matches: ("dots", None) any run of items,
    ("seq", "$...X") a run bound to a metavariable, ("one", None) exactly one item."""
    if item is _GAP:
        return "dots", None
    value: object = None
    if type(item) is cst.Arg:
        if item.keyword is not None:
            return "one", None
        value = item.value
        if type(value) is cst.Ellipsis and item.star == "":
            return "dots", None
    elif type(item) in (cst.Element, cst.StarredElement, cst.Expr):
        value = item.value  # type: ignore[attr-defined]
        if type(value) is cst.Ellipsis and type(item) is not cst.StarredElement:
            return "dots", None
    elif type(item) is cst.Param:
        value = item.name
    elif type(item) is cst.SubscriptElement:
        if type(item.slice) is cst.Index and type(item.slice.value) is cst.Ellipsis:
            return "dots", None
        return "one", None
    if _is_dots_name(value):
        return "dots", None
    sequence = _sequence_metavariable(value)
    if sequence is not None:
        return "seq", sequence
    return "one", None


#: A gap the matcher inserts itself (around a pattern's decorators).
_GAP: Final = object()


def _pattern_dotted(node: cst.CSTNode) -> str | None:
    """`a.b.c` for a pattern's Name/Attribute chain with no metavariable in it."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        if _metavariable(node.attr) is not None:
            return None
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.value.startswith(_RESERVED):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _imported_member(node: cst.CSTNode) -> tuple[str, str] | None:
    """(`a.b`, `$M`) for a pattern `a.b.$M`: a module's member, whichever it is."""
    if type(node) is not cst.Attribute:
        return None
    member = _metavariable(node.attr)
    base = _pattern_dotted(node.value)
    if member is None or base is None:
        return None
    return base, member


def code_dotted(node: cst.CSTNode, limit: int) -> str | None:
    """`a.b.c` for the code's Name/Attribute chain of at most `limit` names, else None."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        if len(parts) >= limit:
            return None
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or len(parts) >= limit:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def statements(block: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements of a block or module, `a; b` counted as two."""
    if type(block) is cst.SimpleStatementSuite:
        return list(block.body)
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.Module)) else ()
    found: list[cst.CSTNode] = []
    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            found.extend(statement.body)
        else:
            found.append(statement)
    return found


#: The markers of a parameter list: `/` ends the positional-only parameters, a bare `*`
#: starts the keyword-only ones.
_MARKERS: Final = (cst.ParamSlash, cst.ParamStar)
#: The `/` of code whose tree holds none of its own (libcst writes one for any
#: positional-only parameter).
_SLASH: Final = cst.ParamSlash()


def _parameters(node: cst.Parameters) -> list[cst.CSTNode]:
    """A parameter list in order, with its `/` and bare `*` as items of their own, where
    they stand: `def f(a, /, b, *, c)` is `a`, `/`, `b`, `*`, `c`."""
    slash: list[cst.CSTNode] = []
    if node.posonly_params:
        slash = [node.posonly_ind if isinstance(node.posonly_ind, cst.ParamSlash) else _SLASH]
    star = [node.star_arg] if isinstance(node.star_arg, (cst.Param, cst.ParamStar)) else []
    kwargs = [node.star_kwarg] if node.star_kwarg is not None else []
    return [*node.posonly_params, *slash, *node.params, *star, *node.kwonly_params, *kwargs]


def _tuple_index(node: cst.Subscript) -> bool:
    """Whether `node` indexes with a tuple written bare: `x[a, b]`, `x[a,]`."""
    return len(node.slice) > 1 or _plain(node.slice[0].comma) is not None


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(
            f.name
            for f in dataclasses.fields(kind)
            if (kind, f.name) in _MEANINGFUL
            or (f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace"))
        )
    return names


def _plain(value: object) -> object:
    """A field's value with libcst's "not given" sentinel and empty stars read as None."""
    if value is cst.MaybeSentinel.DEFAULT or value == "":
        return None
    return value


def _string_value(node: cst.CSTNode) -> str | bytes | None:
    try:
        value = node.evaluated_value  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - whatever the literal is, it is then not equal
        return None
    return value if isinstance(value, (str, bytes)) else None


def _number_value(node: cst.CSTNode) -> object:
    try:
        return node.evaluated_value  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - too long to convert: compare as written
        return node.value.replace("_", "").lower()  # type: ignore[attr-defined]


# --- matching -------------------------------------------------------------------------------


class Matcher:
    """Matches patterns against the code of one module, paying each step from `budget`."""

    def __init__(self, module: ParsedModule, budget: Budget) -> None:
        self.module = module
        self.budget = budget
        self._non_references: set[int] | None = None

    # Where a match may start.

    def find(self, pattern: Pattern) -> Iterator[tuple[cst.CSTNode, Iterator[Bindings]]]:
        """Each place `pattern` may match, with its (lazy) alternative bindings; a
        sequence's place is its first statement."""
        if pattern.is_sequence:
            yield from self._find_sequence(pattern)
            return
        root = pattern.items[0]
        for node in self.candidates(pattern):
            self.budget.start()
            yield node, self.match(root, node, {})

    def candidates(self, pattern: Pattern) -> Iterator[cst.CSTNode]:
        """The nodes of the types the pattern's root can match, depth first."""
        types = pattern.root_types
        found: list[cst.CSTNode]
        if types is None:
            found = [n for n in self.module.walk() if isinstance(n, cst.BaseExpression)]
        else:
            found = self.module.nodes(*types)
        self.budget.spend(len(found) // 16)
        needs_reference = types is None or bool(_REFERENCE_ROOTS.intersection(types))
        for node in found:
            if not needs_reference or self.is_reference(node):
                yield node

    def _find_sequence(self, pattern: Pattern) -> Iterator[tuple[cst.CSTNode, Iterator[Bindings]]]:
        types = pattern.root_types
        for block in [self.module.tree, *self.module.nodes(*_BLOCKS)]:
            body = statements(block)
            self.budget.spend(1 + len(body) // 16)
            run = _Run.of(pattern.items, body, prefix=True)  # one run: what fails is shared
            for start, statement in enumerate(body):
                if types is None or type(statement) in types:
                    self.budget.start()
                    yield statement, (bindings for bindings, _ in self._items(run, 0, start, {}))

    def is_reference(self, node: cst.CSTNode) -> bool:
        """False for names that are no expression: an attribute's name, a keyword, a
        definition's name, a parameter, anything in an import."""
        if self._non_references is None:
            self._non_references = self._collect_non_references()
        return id(node) not in self._non_references

    def _collect_non_references(self) -> set[int]:
        module = self.module
        ids: set[int] = set()
        ids.update(id(n.attr) for n in module.nodes(cst.Attribute))
        ids.update(id(n.keyword) for n in module.nodes(cst.Arg) if n.keyword is not None)
        ids.update(id(n.name) for n in module.nodes(cst.FunctionDef, cst.ClassDef, cst.Param))
        ids.update(id(n.name) for n in module.nodes(cst.NameItem, cst.AsName))
        for statement in module.nodes(cst.Import, cst.ImportFrom):
            ids.update(id(n) for n in module.walk(statement))
        for joined in module.nodes(cst.ConcatenatedString):  # its parts are no expressions
            ids.update((id(joined.left), id(joined.right)))
        self.budget.spend(len(ids) // 16)
        return ids

    # Node against node.

    def match(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Each way pattern node `p` matches code node `c`, extending bindings `b`."""
        self.budget.spend()
        variable = _metavariable(p)
        if variable is not None:
            if type(p) is cst.SimpleString and not isinstance(c, _STRINGS):
                return _NOTHING
            return self._bind(variable, c, b)
        special = _SPECIAL.get(type(p))
        if special is not None:
            return special(self, p, c, b)
        if type(c) is not type(p):
            return _NOTHING
        return self._fields(p, c, _fields(type(p)), 0, b)

    def _anything(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """`...` where one item stands matches any code."""
        return iter((b,))

    def _name(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """A dotted name (written so, or resolved through imports), `a.b.$M` (also a
        member imported by name), or an attribute of something with metavariables."""
        dotted = _pattern_dotted(p)
        if dotted is not None:
            return iter((b,)) if self.names_match(c, dotted) else _NOTHING
        member = _imported_member(p)
        if member is not None and type(c) is cst.Name:
            return self._member(member, c, b)
        if type(c) is not type(p):
            return _NOTHING
        return self._fields(p, c, _fields(type(p)), 0, b)

    def _string(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Strings compare by value; `"..."` is any string literal."""
        if not isinstance(c, _STRINGS):
            return _NOTHING
        wanted = _string_value(p)
        if wanted is None:  # a concatenation with an f-string in it: compare its parts
            if type(c) is not type(p):
                return _NOTHING
            return self._fields(p, c, _fields(type(p)), 0, b)
        if wanted in ("...", _string_value(c)):
            return iter((b,))
        if wanted == b"..." and isinstance(_string_value(c), bytes):
            return iter((b,))  # `b"..."`: any bytes literal
        return _NOTHING

    def _fstring(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """`f"..."` is any f-string; others compare part by part."""
        if type(c) is not cst.FormattedString:
            return _NOTHING
        if _is_any_fstring(p):
            return iter((b,))
        return self._fields(p, c, _fields(cst.FormattedString), 0, b)

    def _number(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Numbers compare by value: `0x10` is `16`."""
        if type(c) is type(p) and _number_value(p) == _number_value(c):
            return iter((b,))
        return _NOTHING

    def _block(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """A block holds exactly its statements (`...` for any run of them), however
        laid out (`if x: pass` is `if x:` and an indented `pass`)."""
        if not isinstance(c, _BLOCKS):
            return _NOTHING
        return self._all_of(statements(p), statements(c), b)

    def _subscript(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Indexes in order; `x[a,]` indexes with a tuple, `x[a]` does not (unless the
        pattern's indexes hold a `...`, which stands for any number)."""
        if not isinstance(p, cst.Subscript) or not isinstance(c, cst.Subscript):
            return _NOTHING
        loose = any(_item_kind(e)[0] != "one" for e in p.slice)
        if not loose and _tuple_index(p) != _tuple_index(c):
            return _NOTHING
        return self._fields(p, c, _fields(cst.Subscript), 0, b)

    def _parameters(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Parameters in order. A `/` or bare `*` the pattern writes is an item that only
        the same marker in the code matches (`def $F(*, ...)`: only keyword-only
        parameters; `def $F(..., /, ...)`: some positional-only ones); a marker the
        pattern leaves out may be in the code, anywhere (`def $F($X, $Y)` matches
        `def f(a, *, b)`), as annotations and defaults may."""
        if not isinstance(p, cst.Parameters) or not isinstance(c, cst.Parameters):
            return _NOTHING
        wanted = _parameters(p)
        written = {type(item) for item in wanted if isinstance(item, _MARKERS)}
        code = [x for x in _parameters(c) if not isinstance(x, _MARKERS) or type(x) in written]
        return self._all_of(wanted, code, b)

    def _call(self, p: cst.CSTNode, c: cst.CSTNode, b: Bindings) -> Iterator[Bindings]:
        """Positional arguments in order; keyword arguments (and `**x`) in any order, others
        allowed when the pattern's arguments have a `...` (or `$...X`) anywhere."""
        if not isinstance(p, cst.Call) or not isinstance(c, cst.Call):
            return
        runs = [a for a in p.args if _item_kind(a)[0] != "one"]
        positional = [a for a in p.args if a.keyword is None and a.star != "**"]
        positional += [a for a in runs if a not in positional]
        keywords = [a for a in p.args if a not in positional]
        code_positional = [a for a in c.args if a.keyword is None and a.star != "**"]
        code_keywords = [a for a in c.args if a.keyword is not None or a.star == "**"]
        for bindings in self.match(p.func, c.func, b):
            for matched in self._all_of(positional, code_positional, bindings):
                yield from self._keywords(keywords, code_keywords, matched, bool(runs), ())

    def _keywords(
        self,
        wanted: Sequence[cst.Arg],
        given: Sequence[cst.Arg],
        b: Bindings,
        loose: bool,
        used: tuple[int, ...],
    ) -> Iterator[Bindings]:
        if len(used) == len(wanted):
            if loose or len(used) == len(given):
                yield b
            return
        pattern = wanted[len(used)]
        for index, arg in enumerate(given):
            if index not in used:
                for bindings in self.match(pattern, arg, b):
                    yield from self._keywords(wanted, given, bindings, loose, (*used, index))

    def _fields(
        self, p: cst.CSTNode, c: cst.CSTNode, names: tuple[str, ...], index: int, b: Bindings
    ) -> Iterator[Bindings]:
        """Field by field, from field `index` on."""
        if index == len(names):
            yield b
            return
        name = names[index]
        for bindings in self._value(type(p), name, getattr(p, name), getattr(c, name), b):
            yield from self._fields(p, c, names, index + 1, bindings)

    def _value(
        self, owner: type, name: str, pv: object, cv: object, b: Bindings
    ) -> Iterator[Bindings]:
        meaning = _MEANINGFUL.get((owner, name))
        if meaning is not None:
            return iter((b,)) if meaning(pv) == meaning(cv) else _NOTHING
        pv, cv = _plain(pv), _plain(cv)
        if (owner, name) in _OPTIONAL and not pv:
            return iter((b,))
        if isinstance(pv, (list, tuple)):
            if not isinstance(cv, (list, tuple)):
                return _NOTHING
            items: list[object] = list(pv)
            if name == "decorators":  # the pattern's decorators, among any others
                items = [_GAP, *(x for d in pv for x in (d, _GAP))]
            return self._all_of(items, cv, b)
        if isinstance(pv, cst.CSTNode):
            return self.match(pv, cv, b) if isinstance(cv, cst.CSTNode) else _NOTHING
        return iter((b,)) if pv == cv else _NOTHING

    def _bind(
        self, variable: str, c: cst.CSTNode | Sequence[cst.CSTNode], b: Bindings
    ) -> Iterator[Bindings]:
        if variable in (ANONYMOUS, ANONYMOUS_RUN):
            return iter((b,))
        if not isinstance(c, cst.CSTNode):
            c = tuple(c)
        bound = b.get(variable)
        if bound is None:
            return iter(({**b, variable: c},))
        return iter((b,)) if self.same(bound, c) else _NOTHING

    def _member(self, member: tuple[str, str], c: cst.Name, b: Bindings) -> Iterator[Bindings]:
        """`requests.$M` against `get` imported by `from requests import get`."""
        base, variable = member
        if self.is_reference(c) and f"{base}.{c.value}" in self.module.qualified(c):
            return self._bind(variable, c, b)
        return _NOTHING

    # Runs of items: arguments, parameters, elements, statements.

    def _all_of(
        self, ps: Sequence[object], cs: Sequence[cst.CSTNode], b: Bindings
    ) -> Iterator[Bindings]:
        """Each way the pattern items `ps` match all the code items `cs`."""
        return (bindings for bindings, _ in self._sequence(ps, cs, b))

    def _sequence(
        self, ps: Sequence[object], cs: Sequence[cst.CSTNode], b: Bindings, prefix: bool = False
    ) -> Iterator[tuple[Bindings, int]]:
        """Each way the pattern items `ps` match the code items `cs` (all of them, or with
        `prefix` a run at their start), with how many code items were used."""
        run = _Run.of(ps, cs, prefix)
        if run.needed[0] > len(cs):
            return _NOTHING_USED
        return self._items(run, 0, 0, b)

    def _items(self, run: _Run, i: int, j: int, b: Bindings) -> Iterator[tuple[Bindings, int]]:
        """Pattern items from `i` on against code items from `j` on. A place that failed
        once fails again with the same bindings, and a `...` that failed from one item
        fails from every later one: both are remembered, so a block is searched from
        each of its statements in linear, not quadratic, time."""
        self.budget.spend()
        if i == len(run.items):
            if run.prefix or j == len(run.code):
                yield b, j
            return
        key = run.key(i, j, b)
        if key in run.failed or run.gave_up.get(key[::2], len(run.code) + 1) <= j:
            return
        step = self._one_item if run.kinds[i][0] == "one" else self._some_items
        found = False
        for result in step(run, i, j, b):
            found = True
            yield result
        if not found:
            run.failed.add(key)
            if run.kinds[i] == ("dots", None):
                run.gave_up[key[::2]] = j

    def _one_item(self, run: _Run, i: int, j: int, b: Bindings) -> Iterator[tuple[Bindings, int]]:
        if j < len(run.code):
            for bindings in self.match(run.items[i], run.code[j], b):  # type: ignore[arg-type]
                yield from self._items(run, i + 1, j + 1, bindings)

    def _some_items(self, run: _Run, i: int, j: int, b: Bindings) -> Iterator[tuple[Bindings, int]]:
        """`...` or `$...X`: any number of items, as few as possible first (a final one in
        a whole run takes all that is left)."""
        variable = run.kinds[i][1] or ANONYMOUS
        last = len(run.code) - run.needed[i + 1]
        final = i + 1 == len(run.items) and not run.prefix
        for length in (last - j,) if final else range(last - j + 1):
            for bindings in self._bind(variable, run.code[j : j + length], b):
                yield from self._items(run, i + 1, j + length, bindings)

    # Code against code.

    def same(self, x: Bound, y: Bound) -> bool:
        """Whether two pieces of code are the same code, layout and comments aside."""
        stack: list[tuple[object, object]] = [(x, y)]
        while stack:
            self.budget.spend()
            a, b = stack.pop()
            a, b = _plain(a), _plain(b)
            if isinstance(a, (list, tuple)):
                if not isinstance(b, (list, tuple)) or len(a) != len(b):
                    return False
                stack.extend(zip(a, b, strict=True))
            elif isinstance(a, _BLOCKS) and isinstance(b, _BLOCKS):
                stack.append((statements(a), statements(b)))
            elif isinstance(a, _STRINGS) and isinstance(b, _STRINGS):
                value = _string_value(a)
                if value is None or value != _string_value(b):
                    return False
            elif type(a) is not type(b):
                return False
            elif isinstance(a, cst.CSTNode):
                stack.extend(self._children_pairs(a, b))  # type: ignore[arg-type]
            elif a != b:
                return False
        return True

    @staticmethod
    def _children_pairs(a: cst.CSTNode, b: cst.CSTNode) -> list[tuple[object, object]]:
        if isinstance(a, _NUMBERS):
            return [(_number_value(a), _number_value(b))]
        if type(a) is cst.Parameters:
            return [(_parameters(a), _parameters(b))]  # type: ignore[arg-type]
        pairs: list[tuple[object, object]] = []
        if type(a) is cst.Subscript:
            pairs.append((_tuple_index(a), _tuple_index(b)))  # type: ignore[arg-type]
        for name in _fields(type(a)):
            x, y = getattr(a, name), getattr(b, name)
            meaning = _MEANINGFUL.get((type(a), name))
            pairs.append((x, y) if meaning is None else (meaning(x), meaning(y)))
        return pairs

    # Names.

    def names_match(self, c: cst.CSTNode, dotted: str) -> bool:
        """Whether code `c` is the dotted name `dotted`: written so, or (an expression)
        resolving to it through imports (`builtins.` implied for a bare name)."""
        limit = dotted.count(".") + 1
        written = code_dotted(c, limit)
        if written == dotted:
            return True
        if written is None or not self.is_reference(c):
            return False
        resolved = self.module.qualified(c)
        return dotted in resolved or f"builtins.{dotted}" in resolved

    def resolves_to(self, c: cst.CSTNode, names: Sequence[str]) -> bool:
        """Whether `c` (a call: its callee) is one of `names`, through imports;
        `pkg.*` stands for everything below `pkg`."""
        if type(c) is cst.Call:
            c = c.func
        exact = [n for n in names if not n.endswith(".*")]
        if any(self.names_match(c, name) for name in exact):
            return True
        below = [n[:-1] for n in names if n.endswith(".*")]
        if not below or not self.is_reference(c) or code_dotted(c, 64) is None:
            return False
        resolved = self.module.qualified(c) | {code_dotted(c, 64) or ""}
        return any(q.startswith(prefix) for q in resolved for prefix in below)


def _is_any_fstring(node: cst.CSTNode) -> bool:
    """`f"..."`: any f-string."""
    parts = node.parts if type(node) is cst.FormattedString else ()
    return len(parts) == 1 and type(parts[0]) is cst.FormattedStringText and parts[0].value == "..."


_NOTHING: Final[Iterator[Bindings]] = iter(())
_NOTHING_USED: Final[Iterator[tuple[Bindings, int]]] = iter(())


@dataclass(frozen=True)
class _Run:
    """Pattern items against code items: each item's kind, how many single items the
    pattern still needs from each item on, the metavariables of each suffix, whether a
    run at the start is enough, and what is known to fail."""

    items: Sequence[object]
    kinds: Sequence[tuple[str, str | None]]
    needed: Sequence[int]
    names: Sequence[frozenset[str]]
    code: Sequence[cst.CSTNode]
    prefix: bool
    #: (item, code item, bindings that matter) that matched nothing.
    failed: set[tuple[object, ...]] = field(default_factory=set)
    #: (a `...` item, bindings that matter) -> a code item it failed from.
    gave_up: dict[tuple[object, ...], int] = field(default_factory=dict)

    @classmethod
    def of(cls, items: Sequence[object], code: Sequence[cst.CSTNode], prefix: bool) -> _Run:
        kinds = [_item_kind(item) for item in items]
        needed = [0] * (len(items) + 1)
        names: list[frozenset[str]] = [frozenset()] * (len(items) + 1)
        for index in range(len(items) - 1, -1, -1):
            needed[index] = needed[index + 1] + (kinds[index][0] == "one")
            names[index] = names[index + 1] | _names_in(items[index])
        return cls(items, kinds, needed, names, code, prefix)

    def key(self, i: int, j: int, b: Bindings) -> tuple[object, ...]:
        """What decides whether items from `i` match code from `j`: the positions, and
        the code bound to the metavariables still ahead (by identity: code nodes live as
        long as their module)."""
        ahead = self.names[i]
        if not ahead or not b:
            return (i, j, ())
        bound = tuple((name, _identity(b[name])) for name in sorted(ahead) if name in b)
        return (i, j, bound)


def _identity(bound: Bound) -> object:
    return tuple(map(id, bound)) if isinstance(bound, tuple) else id(bound)


@functools.lru_cache(maxsize=4096)
def _names_in(item: object) -> frozenset[str]:
    """The metavariables in a pattern item (pattern nodes only: they are few and live as
    long as their check)."""
    if not isinstance(item, cst.CSTNode):
        return frozenset()
    found = {
        name
        for node in all_nodes(item)
        if (name := _metavariable(node) or _sequence_metavariable(node)) is not None
    }
    return frozenset(found - {ANONYMOUS, ANONYMOUS_RUN})


_SPECIAL: Final[
    dict[type, Callable[[Matcher, cst.CSTNode, cst.CSTNode, Bindings], Iterator[Bindings]]]
] = {
    cst.Ellipsis: Matcher._anything,
    cst.Name: Matcher._name,
    cst.Attribute: Matcher._name,
    cst.SimpleString: Matcher._string,
    cst.ConcatenatedString: Matcher._string,
    cst.FormattedString: Matcher._fstring,
    cst.Integer: Matcher._number,
    cst.Float: Matcher._number,
    cst.Imaginary: Matcher._number,
    cst.IndentedBlock: Matcher._block,
    cst.SimpleStatementSuite: Matcher._block,
    cst.Parameters: Matcher._parameters,
    cst.Subscript: Matcher._subscript,
    cst.Call: Matcher._call,
}

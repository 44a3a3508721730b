"""Regular expressions from task files, matched by RE2 in time linear in the text.

Task files give patterns (`naming` rules, `values` specs) that are matched in the pytest
process against text the code under evaluation controls, and Python's backtracking `re`
can take exponential time there (`^(a+)+$` against 'a' * 40 + '!'); every such match goes
through here, with patterns in Python's syntax and what RE2 cannot do refused up front.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from typing import Final, Protocol

# google-re2 ships no type information; `_Compiled` below types the two methods used.
import re2  # type: ignore[import-untyped]

#: Longest pattern accepted. Real patterns are short; this keeps a pasted blob out.
MAX_PATTERN_LENGTH: Final = 10_000
#: Memory budget of one compiled pattern (RE2's `max_mem`, also its default): a pattern
#: that would need more is a `PatternError` rather than a memory blow-up.
MAX_PROGRAM_MEMORY: Final = 8 << 20
#: Longest text a pattern is matched against. Longer text raises `SubjectTooLong` rather
#: than a verdict: saying "matches" or "does not" without looking would be a guess, so
#: callers should report it as undecidable (too large).
MAX_SUBJECT_LENGTH: Final = 1_000_000
#: Repetition counts RE2 accepts (`a{1000}` at most).
MAX_REPEAT: Final = 1000
#: Compiled patterns kept. Each may grow to MAX_PROGRAM_MEMORY (program and DFA cache)
#: only when matched against long text; suites use a few dozen distinct patterns.
_CACHE_SIZE: Final = 128

_ENGINE: Final = (
    "patterns are matched by RE2, a linear-time engine: no backreferences or lookaround"
)

# Compatibility with Python's `re`: patterns keep Python's syntax and meaning.
# - Rewritten for RE2: \d \w \s and their negations (into Unicode classes matching what
#   Python's match, compared on every code point: only code points newer than Python's
#   Unicode version differ), \Z, \uXXXX, \UXXXXXXXX, \N{...}, octal escapes, {,n},
#   (?#...), (?u); in a search `$` also holds before a final newline, as in Python.
# - Refused (PatternError): backreferences, lookaround, atomic groups, possessive
#   quantifiers, conditional groups, flags other than i, m, s, u, \W or \S inside [^...],
#   repetition counts above 1000, escapes Python does not know.
# - Still different: \b and \B see only ASCII letters, digits and _ as word characters;
#   in a fullmatch `$` holds only at the very end (`a$\n` cannot match 'a\n'); RE2's
#   extras (\z, \p{Greek}) are accepted.

# Python's Unicode classes, as RE2 set items (\p{L}\p{N}_ is exactly Python's \w, and the
# list exactly str.isspace, for every code point Python's Unicode version assigns).
_DIGIT: Final = r"\p{Nd}"
_WORD: Final = r"\p{L}\p{N}_"
_SPACE: Final = (
    r"\t\n\x0b\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
    r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
)
_OUTSIDE: Final = {
    "d": _DIGIT,
    "D": r"\P{Nd}",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "Z": r"\z",
}
_INSIDE: Final = {"d": _DIGIT, "D": r"\P{Nd}", "w": _WORD, "s": _SPACE, "b": r"\x08"}
# Letter escapes Python accepts besides those above, which mean the same to RE2.
_SAME_OUTSIDE: Final = frozenset("afnrtvAbB")
_SAME_INSIDE: Final = frozenset("afnrtv")
# RE2's own Unicode classes (\p{L}, \pN), an extension Python does not have.
_EXTENSION: Final = frozenset("pP")
_REFUSED_GROUPS: Final = (
    ("(?=", "lookahead (?=...) is not supported"),
    ("(?!", "negative lookahead (?!...) is not supported"),
    ("(?<=", "lookbehind (?<=...) is not supported"),
    ("(?<!", "negative lookbehind (?<!...) is not supported"),
    ("(?P=", "backreferences ((?P=name)) are not supported"),
    ("(?>", "atomic groups (?>...) are not supported"),
    ("(?(", "conditional groups (?(...)...) are not supported"),
)
# Python's `re` below reads only the pattern (bounded) or one class of characters:
# neither can backtrack.
_FLAGS: Final = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_QUANTIFIER: Final = re.compile(r"\{([0-9]*)(,([0-9]*))?\}")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class PatternError(ValueError):
    """A pattern that cannot be used: the message says why, in one line."""

    def __init__(self, pattern: object, problem: str) -> None:
        """`problem` says what is wrong with `pattern` (shown cut to 80 characters)."""
        shown = repr(pattern) if len(repr(pattern)) <= 80 else repr(pattern)[:77] + "..."
        super().__init__(f"pattern {shown} cannot be used: {problem} ({_ENGINE})")
        self.pattern = pattern
        self.problem = problem


class SubjectTooLong(ValueError):
    """The text is longer than `MAX_SUBJECT_LENGTH`: no verdict, callers say undecidable."""

    def __init__(self, length: int) -> None:
        """`length` is the text's, in characters."""
        super().__init__(
            f"the text is {length:,} characters long; "
            f"patterns are matched against at most {MAX_SUBJECT_LENGTH:,}"
        )
        self.length = length
        self.limit = MAX_SUBJECT_LENGTH


class _Compiled(Protocol):
    """The part of a compiled `re2` pattern used here."""

    def search(self, text: str) -> object: ...

    def fullmatch(self, text: str) -> object: ...


class SafePattern:
    """A compiled pattern; `pattern` is the text it was compiled from (Python syntax)."""

    __slots__ = ("_for_fullmatch", "_for_search", "pattern")

    def __init__(self, pattern: str, for_fullmatch: _Compiled, for_search: _Compiled) -> None:
        """Made by `compile_pattern`: RE2's programs for fullmatch and for search."""
        self.pattern = pattern
        self._for_fullmatch = for_fullmatch
        self._for_search = for_search

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of `text` matches, as `re.fullmatch` would say.

        Raises `SubjectTooLong` past `MAX_SUBJECT_LENGTH` characters."""
        subject = _subject(text)
        try:
            return self._for_fullmatch.fullmatch(subject) is not None
        except UnicodeEncodeError:  # lone surrogates, which UTF-8 cannot carry
            return self._for_fullmatch.fullmatch(_SURROGATE.sub("\ufffd", subject)) is not None

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in `text`, as `re.search` would say.

        Raises `SubjectTooLong` past `MAX_SUBJECT_LENGTH` characters."""
        subject = _subject(text)
        try:
            return self._for_search.search(subject) is not None
        except UnicodeEncodeError:
            return self._for_search.search(_SURROGATE.sub("\ufffd", subject)) is not None

    def __repr__(self) -> str:
        """`SafePattern('^[a-z]+$')`."""
        return f"SafePattern({self.pattern!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickled as its pattern: compiled again (through the cache) when unpickled."""
        return compile_pattern, (self.pattern,)


def compile_pattern(pattern: str) -> SafePattern:
    """The compiled `pattern` (cached); raises `PatternError` if it cannot be used."""
    if not isinstance(pattern, str):
        raise PatternError(pattern, f"it is of type {type(pattern).__name__}, not a string")
    return _compile(pattern)


def validate_pattern(pattern: str) -> str | None:
    """Why `pattern` cannot be used (a one-line message), or None when it can."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def _subject(text: str) -> str:
    """`text`, checked: a str of at most `MAX_SUBJECT_LENGTH` characters."""
    if not isinstance(text, str):
        raise TypeError(f"a pattern is matched against a str, not a {type(text).__name__}")
    if len(text) > MAX_SUBJECT_LENGTH:
        raise SubjectTooLong(len(text))
    return text


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compile(pattern: str) -> SafePattern:
    """Translate, bound and compile `pattern` (a str); `PatternError` if it cannot be."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(
            pattern,
            f"it is {len(pattern):,} characters long, more than the {MAX_PATTERN_LENGTH:,} "
            "accepted",
        )
    for_fullmatch, for_search = _Translator(pattern).translate()
    compiled = _re2_compile(pattern, for_fullmatch)
    if for_search != for_fullmatch:
        return SafePattern(pattern, compiled, _re2_compile(pattern, for_search))
    return SafePattern(pattern, compiled, compiled)


def _re2_compile(pattern: str, translated: str) -> _Compiled:
    """RE2's compiled form of `translated`, the RE2 text of `pattern`."""
    options = re2.Options()
    options.max_mem = MAX_PROGRAM_MEMORY
    options.log_errors = False  # RE2 would print every refusal on stderr
    options.never_capture = True  # only "does it match" is asked: much faster on long text
    try:
        compiled: _Compiled = re2.compile(translated, options)
    except re2.error as exc:
        raise PatternError(pattern, _describe_re2_error(exc)) from None
    except UnicodeEncodeError:
        raise PatternError(pattern, "it contains a lone surrogate character") from None
    return compiled


def _describe_re2_error(exc: Exception) -> str:
    """What RE2's refusal means, in words (RE2 gives its message as bytes)."""
    message = exc.args[0] if exc.args else ""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    if "pattern too large" in str(message):
        return f"compiled, it would need more than {MAX_PROGRAM_MEMORY >> 20} MiB"
    if "invalid repetition size" in str(message):
        return f"nested repetition counts multiply to more than {MAX_REPEAT}"
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))
    return f"it is not valid: {shown}"


class _Translator:
    """Rewrites a pattern in Python's syntax into RE2's, refusing what RE2 cannot do."""

    def __init__(self, pattern: str) -> None:
        """Ready to read `pattern` from its start."""
        self.pattern = pattern
        self.out: list[str] = []
        self.at = 0
        self.dollars: list[int] = []  # where in `out` a `$` is
        self.multiline = False  # an `m` flag appears somewhere

    def refuse(self, problem: str) -> PatternError:
        """The error to raise for `problem` with this pattern."""
        return PatternError(self.pattern, problem)

    def translate(self) -> tuple[str, str]:
        """The whole pattern in RE2's syntax: for `fullmatch`, and for `search`."""
        p = self.pattern
        quantified = False  # the last token was a quantifier (a possessive `+` may follow)
        while self.at < len(p):
            c = p[self.at]
            if c in "*+?":
                if quantified and c == "+":
                    raise self.refuse("possessive quantifiers (a*+, a++) are not supported")
                self.out.append(c)
                self.at += 1
                quantified = not quantified  # `*?` is lazy: a quantifier no more
                continue
            quantified = False
            if c == "\\":
                self.out.append(self.escape(inside=False))
            elif c == "[":
                self.out.append(self.character_set())
            elif c == "(" and p.startswith("(?", self.at):
                self.group_prefix()
            elif c == "{":
                quantified = self.brace()
            elif c in "]}":
                self.out.append("\\" + c)  # a literal in Python; escaped for RE2
                self.at += 1
            else:
                if c == "$":
                    self.dollars.append(len(self.out))
                self.out.append(c)
                self.at += 1
        for_fullmatch = "".join(self.out)
        if self.multiline:  # (?m)$ means the same to both
            return for_fullmatch, for_fullmatch
        # Python's `$` also holds before a final newline, RE2's only at the very end; in
        # a search (a yes or no) consuming that newline there is the same. In a fullmatch
        # it is not, and nothing is needed: the match must reach the very end anyway.
        for index in self.dollars:
            self.out[index] = r"(?:\n?\z)"
        return for_fullmatch, "".join(self.out)

    def group_prefix(self) -> None:
        """What follows `(?`: refused (lookaround...), dropped (a comment) or passed on."""
        p = self.pattern
        for prefix, problem in _REFUSED_GROUPS:
            if p.startswith(prefix, self.at):
                raise self.refuse(problem)
        if p.startswith("(?#", self.at):  # a comment: dropped
            end = p.find(")", self.at)
            if end < 0:
                raise self.refuse("a (?# comment is never closed")
            self.at = end + 1
            return
        flags = _FLAGS.match(p, self.at)
        if flags is None:  # (?: and (?P<name> mean the same to RE2
            self.out.append("(?")
            self.at += 2
            return
        on, off, closer = flags[1], flags[2], flags[3]
        unknown = sorted(set(on + (off or "")) - set("imsu"))
        if unknown:
            raise self.refuse(f"the inline flag {unknown[0]!r} is not supported (i, m, s are)")
        if off == "" or "u" in (off or "") or not (on or off is not None or closer == ":"):
            raise self.refuse(f"the inline flags {flags[0]!r} are not valid")
        on, off = on.replace("u", ""), off or ""  # u: Python's default for str anyway
        self.multiline = self.multiline or "m" in on
        if on or off:
            self.out.append(f"(?{on}-{off}{closer}" if off else f"(?{on}{closer}")
        elif closer == ":":
            self.out.append("(?:")
        self.at = flags.end()

    def brace(self) -> bool:
        """A `{m,n}` quantifier (True), or a literal `{` (False), as Python reads it."""
        found = _QUANTIFIER.match(self.pattern, self.at)
        if found is None or found[0] == "{}":
            self.out.append("\\{")
            self.at += 1
            return False
        low, comma, high = found[1], found[2], found[3]
        if any(int(n) > MAX_REPEAT for n in (low, high) if n):
            raise self.refuse(f"repetition counts above {MAX_REPEAT} are not supported")
        if low and high and int(low) > int(high):
            raise self.refuse(f"in {found[0]} the minimum is above the maximum")
        self.out.append(f"{{{low or 0},{high}}}" if comma else f"{{{low}}}")
        self.at = found.end()
        return True

    def escape(self, *, inside: bool) -> str:
        """The RE2 text for the escape at `self.at` (a backslash), consumed."""
        p, at = self.pattern, self.at
        if at + 1 >= len(p):
            raise self.refuse("it ends with a lone backslash")
        c = p[at + 1]
        self.at = at + 2
        table = _INSIDE if inside else _OUTSIDE
        if c in table:
            return table[c]
        if c in (_SAME_INSIDE if inside else _SAME_OUTSIDE):
            return "\\" + c
        if c in _EXTENSION:
            return self.property_class(c)
        if c in "xuU":
            return self.code_point(c)
        if c == "N":
            return self.named()
        if c in string.digits:
            return self.number(c, inside=inside)
        if c in string.ascii_letters:
            raise self.refuse(f"\\{c} is not a known escape")
        if c in string.punctuation:
            return "\\" + c
        return c  # any other character escaped means itself

    def property_class(self, c: str) -> str:
        """RE2's `\\p{Greek}` or `\\pL`, passed on whole (RE2 checks the name)."""
        p, at = self.pattern, self.at
        end = p.find("}", at) + 1 if p.startswith("{", at) else at + 1
        if end <= at or end > len(p):
            raise self.refuse(f"\\{c} must be followed by a Unicode class name")
        self.at = end
        return f"\\{c}{p[at:end]}"

    def code_point(self, c: str) -> str:
        """`\\xhh`, `\\uhhhh` or `\\Uhhhhhhhh`, exactly as many digits as Python wants."""
        digits = {"x": 2, "u": 4, "U": 8}[c]
        hex_digits = self.pattern[self.at : self.at + digits]
        if len(hex_digits) != digits or any(h not in string.hexdigits for h in hex_digits):
            raise self.refuse(f"\\{c} must be followed by {digits} hexadecimal digits")
        self.at += digits
        return self.literal(int(hex_digits, 16), f"\\{c}{hex_digits}")

    def named(self) -> str:
        """`\\N{EM DASH}`: the named character."""
        p, at = self.pattern, self.at
        end = p.find("}", at)
        if not p.startswith("{", at) or end < 0:
            raise self.refuse("\\N must be followed by a character name in braces")
        try:
            char = unicodedata.lookup(p[at + 1 : end])
        except KeyError:
            raise self.refuse(f"there is no character named {p[at + 1 : end]!r}") from None
        self.at = end + 1
        return self.literal(ord(char), p[at - 2 : end + 1])

    def number(self, first: str, *, inside: bool) -> str:
        """An octal escape or (outside a set) a backreference, by Python's rules: `\\0`
        and three octal digits are octal outside a set, any octal digits inside one."""
        p, at = self.pattern, self.at
        if inside or first == "0":
            if first not in string.octdigits:
                raise self.refuse(f"\\{first} is not a known escape")
            end = at
            while end < at + 2 and end < len(p) and p[end] in string.octdigits:
                end += 1
        elif len(p[at : at + 2]) == 2 and all(
            d in string.octdigits for d in first + p[at : at + 2]
        ):
            end = at + 2
        else:
            more = p[at] if p[at : at + 1] and p[at] in string.digits else ""
            raise self.refuse(f"backreferences (\\{first}{more}) are not supported")
        self.at = end
        value = int(first + p[at:end], 8)
        if value > 0o377:
            raise self.refuse(f"the octal escape \\{first}{p[at:end]} is above \\377")
        return self.literal(value, f"\\{first}{p[at:end]}")

    def literal(self, value: int, written: str) -> str:
        """One code point, as RE2 writes it."""
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            raise self.refuse(f"{written} is not a character UTF-8 can carry")
        return f"\\x{{{value:x}}}"

    def character_set(self) -> str:
        """A `[...]` set, read item by item as Python reads it, in RE2's words."""
        p = self.pattern
        start = self.at
        self.at += 1
        negated = p.startswith("^", self.at)
        self.at += negated
        items: list[str] = []
        complements: list[str] = []
        first = True
        while True:
            if self.at >= len(p):
                raise self.refuse(f"the set [ opened at offset {start} is never closed")
            if p[self.at] == "]" and not first:
                self.at += 1
                break
            first = False
            kind, text = self.set_item()
            if p.startswith("-", self.at) and self.at + 1 < len(p) and p[self.at + 1] != "]":
                self.at += 1
                end_kind, end_text = self.set_item()
                if kind != "char" or end_kind != "char":
                    raise self.refuse("a range in a set must run between two characters")
                items.append(f"{text}-{end_text}")
            elif kind == "complement":
                if negated:
                    raise self.refuse(
                        "\\W or \\S inside a negated set [^...] is not supported; "
                        "list what the set should match instead (e.g. \\p{L} for letters)"
                    )
                complements.append(text)
            else:
                items.append(text)
        body = "".join(items)
        if not complements:
            return f"[{'^' if negated else ''}{body}]"
        # [a\\W] is "a, or not a word character": an RE2 set cannot say it, an alternation can.
        parts = [f"[{body}]"] if body else []
        return "(?:" + "|".join([*parts, *complements]) + ")"

    def set_item(self) -> tuple[str, str]:
        """One item of a set: its kind (char, class, complement) and its RE2 text."""
        c = self.pattern[self.at]
        if c != "\\":
            self.at += 1
            return "char", "\\" + c if c in "[]^-\\" else c
        following = self.pattern[self.at + 1 : self.at + 2]
        if following in ("W", "S"):
            self.at += 2
            return "complement", _OUTSIDE[following]
        text = self.escape(inside=True)
        return ("class" if following in "dDswpP" else "char"), text

"""Task-file patterns matched by RE2 (pytest_codeif.safe_regex): linear time on hostile
text, Python's meaning on ordinary patterns, clear refusals for what RE2 cannot do."""

from __future__ import annotations

import ast
import pickle
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_codeif import safe_regex
from pytest_codeif.safe_regex import (
    MAX_PATTERN_LENGTH,
    MAX_SUBJECT_LENGTH,
    PatternError,
    SafePattern,
    SubjectTooLong,
    compile_pattern,
    validate_pattern,
)

# Patterns on which Python's `re` backtracks exponentially (or quadratically), with
# hostile text and what the answer is. Python's `re` would not finish most of these.
CATASTROPHIC = [
    (r"^(a+)+$", "a" * 40 + "!", False),
    (r"^(a+)+$", "a" * 100_000 + "!", False),
    (r"^(a+)+$", "a" * 100_000, True),
    (r"(x+x+)+y", "x" * 100_000, False),
    (r"^(a|aa)+$", "a" * 100_000 + "b", False),
    (r"^(\w+\s?)*$", "word " * 20_000 + "!", False),
    (  # an email pattern found in the wild, exponential in Python's re
        r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}"
        r"(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
        "a" * 50_000 + "!",
        False,
    ),
]


@pytest.mark.parametrize(("pattern", "text", "expected"), CATASTROPHIC)
def test_catastrophic_patterns_answer_on_hostile_text(
    pattern: str, text: str, expected: bool
) -> None:
    compiled = compile_pattern(pattern)
    assert compiled.fullmatch(text) is expected
    assert compiled.search(text) is expected


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(a)\1", "backreferences (\\1)"),
        (r"(a)(b)\12", "backreferences (\\12)"),
        (r"(?P<x>a)(?P=x)", "backreferences ((?P=name))"),
        (r"(?=a)a", "lookahead"),
        (r"a(?!b)", "negative lookahead"),
        (r"(?<=a)b", "lookbehind"),
        (r"(?<!a)b", "negative lookbehind"),
        (r"(?>a+)b", "atomic groups"),
        (r"a*+b", "possessive quantifiers"),
        (r"a{2}+", "possessive quantifiers"),
        (r"(a)?(?(1)b|c)", "conditional groups"),
        (r"(?x) a b", "inline flag 'x'"),
        (r"a{1001}", "repetition counts above 1000"),
        (r"[^\W_]", "negated set"),
        (r"\q", "\\q is not a known escape"),
        ("a\\", "lone backslash"),
        ("[ab", "never closed"),
        ("(ab", "missing )"),
    ],
)
def test_what_re2_cannot_do_is_refused_with_the_reason(pattern: str, problem: str) -> None:
    with pytest.raises(PatternError) as raised:
        compile_pattern(pattern)
    message = str(raised.value)
    assert problem in message
    assert raised.value.problem in message
    assert message.startswith(f"pattern {pattern!r} cannot be used: ")
    assert "RE2" in message and "no backreferences or lookaround" in message
    assert "\n" not in message
    assert isinstance(raised.value, ValueError)


def test_refusal_messages_stay_on_one_line() -> None:
    for pattern in (")\n(", "a\n\\1", "(?#\n", "[\n"):
        message = validate_pattern(pattern)
        assert message is not None and "\n" not in message, pattern


def test_bounds_on_patterns() -> None:
    long = "a" * (MAX_PATTERN_LENGTH + 1)
    with pytest.raises(PatternError, match="10,001 characters long"):
        compile_pattern(long)
    assert compile_pattern("a" * MAX_PATTERN_LENGTH).fullmatch("a" * MAX_PATTERN_LENGTH)
    # Each \w is a Unicode class of thousands of instructions: this would need > 8 MiB.
    with pytest.raises(PatternError, match="would need more than 8 MiB"):
        compile_pattern(r"\w{1000}")
    with pytest.raises(PatternError, match="multiply to more than 1000"):
        compile_pattern(r"(a{100}){100}")


@pytest.mark.parametrize("pattern", [5, None, b"abc", ["a"]])
def test_a_pattern_that_is_not_a_string_is_refused(pattern: object) -> None:
    with pytest.raises(PatternError, match="not a string"):
        compile_pattern(pattern)  # type: ignore[arg-type]


# (pattern, subjects): ordinary naming and value patterns, each subject checked against
# Python's re.fullmatch and re.search.
ORDINARY = [
    (r"[a-z_][a-z0-9_]*", ["snake_case", "_private", "CamelCase", "x1", "1x", "", "a-b"]),
    (r"^test_", ["test_x", "x_test", "test", "TEST_x", "test_"]),
    (r"[A-Z][A-Za-z0-9]*", ["HttpClient", "httpClient", "A", "A_b", "Ünïcode"]),
    (r"^[a-z]+$", ["abc", "abc\n", "ab1", "", "ABC"]),
    (r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$", ["load_data", "load__data", "load_", "l2_d3", "Load"]),
    (r"^[\w.+-]+@[\w-]+\.[\w.]+$", ["a.b+c@d-e.org", "no@tld", "josé@café.fr", "@x.y", "a@b.c\n"]),
    (r"^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,}$", ["a@b.com", "a b@c.com", "a@b.c", "a@@b.com"]),
    (
        r"^\d{4}-\d{2}-\d{2}$",
        [
            "2024-01-31",
            "2024-1-31",
            "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0663\u0661",
            "2024-01-31\n",
            "x2024-01-31",
        ],
    ),
    (
        r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
        ["2024-02-29", "2024-13-01", "2024-00-10", "2024-12-32", "2024-12-31"],
    ),
    (r"^\d{1,2}/\d{1,2}/\d{4}$", ["1/2/2024", "01/02/2024", "1/2/24", "123/1/2024"]),
    (r"^-?\d+(\.\d+)?$", ["-3.14", "3.", "42", "--1", "1e5", ".5"]),
    (r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$", ["1e10", "-.5E-3", "1.2.3", "e5", "+7."]),
    (r"\s+", ["a b", "ab", "a\u3000b", "a\u00a0b", "\t", "a\u200bb"]),
    (r"^\S+$", ["abc", "a c", "é\u2003", "日本語"]),
    (r"\W", ["abc", "a-b", "é", "_", "a\u0301"]),
    (r"^\w+$", ["wörd", "日本語", "a1_", "x!", "Ⅻ²", "ǅ"]),
    (r"(?i)^hello", ["HELLO world", "hello", "hELLo", "say hello"]),
    (r"(?i)straße", ["STRASSE", "Straße", "STRAẞE"]),
    (r"a{,3}b", ["b", "aaab", "aaaab", "a{,3}b"]),
    (r"x{}y", ["x{}y", "xy"]),
    (r"[]a]+", ["]a]", "a", "b"]),
    (r"[a\W]+", ["a-!", "ab", "é", "a é"]),
    (r"[\w-]+", ["ab-c", "é-1", "a b"]),
    (r"[a-z-0]+", ["a-0", "z", "5"]),
    (r"abc\Z", ["abc", "abc\n", "xabc"]),
    (r"\u00e9|\N{EM DASH}|\x41|\101", ["é", "—", "A", "B"]),
    (r"(?#a comment)ab", ["ab", "a"]),
    (r"(?m)^b$", ["a\nb\nc", "b", "ab"]),
    (r"(?s)a.c", ["a\nc", "abc", "ac"]),
    (r"a.c", ["a\nc", "abc"]),
    (r"(?P<year>\d{4})-", ["2024-", "x"]),
    (
        r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        ["123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-42661417400"],
    ),
    (r"^(?:\d{1,3}\.){3}\d{1,3}$", ["192.168.0.1", "1.2.3", "1.2.3.4.5"]),
    (r"^https?://[^\s/$.?#].[^\s]*$", ["http://x.y/z", "https://a b", "ftp://x"]),
    (r"a+?b|c*?", ["aab", "", "ccc"]),
    (r"\$\d+(\.\d\d)?", ["$12.50", "$", "12"]),
]
CASES = [(pattern, text) for pattern, texts in ORDINARY for text in texts]


@pytest.mark.parametrize(("pattern", "text"), CASES)
def test_ordinary_patterns_mean_what_they_mean_to_python(pattern: str, text: str) -> None:
    compiled = compile_pattern(pattern)
    assert compiled.fullmatch(text) is (re.fullmatch(pattern, text) is not None)
    assert compiled.search(text) is (re.search(pattern, text) is not None)


def test_the_table_holds_both_answers() -> None:
    """A table where every answer is the same could not catch a broken translation."""
    fullmatches = {re.fullmatch(p, t) is not None for p, t in CASES}
    searches = {re.search(p, t) is not None for p, t in CASES}
    assert fullmatches == searches == {True, False}


def test_unicode_classes_keep_pythons_meaning() -> None:
    digits = compile_pattern(r"\d+")
    assert digits.fullmatch("٣٤٥")  # Arabic-Indic digits are \d to Python
    assert not digits.fullmatch("²")  # superscript two is not a decimal digit
    assert compile_pattern(r"\w+").fullmatch("naïve_ΣΑΣ_日本")
    assert not compile_pattern(r"\w").fullmatch("\u0301")  # a combining mark is not \w
    assert compile_pattern(r"\s").fullmatch("\u3000")
    assert compile_pattern(r"\s").fullmatch("\x1c")  # str.isspace() says so
    assert not compile_pattern(r"\s").fullmatch("\u200b")  # zero-width space is not


_ATOMS = [
    "a", "b", "é", "1", "٣", "_", " ", ".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S",
    r"\.", r"\x41", r"\u00e9", "[ab]", "[^ab]", r"[\d_]", r"[a\W]", "[a-c]", "[]a]",
    r"[\w-]", "^", "$", r"\Z", r"\A", "{", "}", "]", "x{}",
]  # fmt: skip
_QUANTIFIERS = ["", "", "*", "+", "?", "*?", "+?", "{2}", "{,2}", "{1,}", "{0,3}", "{2}?"]


@st.composite
def _patterns(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            opener = draw(st.sampled_from(["(", "(?:", "(?i:"]))
            atom = opener + draw(_patterns(depth + 1)) + ")"
        else:
            atom = draw(st.sampled_from(_ATOMS))
        parts.append(atom + draw(st.sampled_from(_QUANTIFIERS)))
    if depth < 2 and draw(st.booleans()):
        parts.append("|" + draw(_patterns(depth + 1)))
    return "".join(parts)


@settings(max_examples=150, deadline=None)
@given(_patterns(), st.lists(st.text("ab1é٣_ \nA{}].-x", max_size=6), min_size=1, max_size=5))
def test_generated_patterns_agree_with_python(pattern: str, texts: list[str]) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            python = re.compile(pattern)
    except re.error:
        return  # not a pattern to Python: nothing to agree with
    compiled = compile_pattern(pattern)
    for text in texts:
        assert compiled.search(text) is (python.search(text) is not None), text
        expected = python.fullmatch(text) is not None
        if "$" in pattern and expected and text.endswith("\n"):
            continue  # documented: in a fullmatch, `$` cannot hold before a final newline
        assert compiled.fullmatch(text) is expected, text


def test_text_longer_than_the_limit_is_not_judged() -> None:
    compiled = compile_pattern(r"^(a+)+$")
    at_limit = "a" * MAX_SUBJECT_LENGTH
    assert compiled.fullmatch(at_limit) is True
    assert compiled.search(at_limit) is True
    for method in (compiled.fullmatch, compiled.search):
        with pytest.raises(SubjectTooLong) as raised:
            method(at_limit + "a")
        assert raised.value.length == MAX_SUBJECT_LENGTH + 1
        assert raised.value.limit == MAX_SUBJECT_LENGTH
        assert "1,000,001 characters" in str(raised.value)
    assert not issubclass(SubjectTooLong, PatternError)


def test_a_subject_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="not a bytes"):
        compile_pattern("a").fullmatch(b"a")  # type: ignore[arg-type]


def test_lone_surrogates_in_the_text_are_single_characters() -> None:
    assert compile_pattern(r"^a.b$").fullmatch("a\ud800b")
    assert not compile_pattern(r"^\w+$").fullmatch("a\ud800b")
    assert compile_pattern(r"\W").search("a\udfffb")


def test_validate_pattern() -> None:
    assert validate_pattern(r"^[a-z_][a-z0-9_]*$") is None
    assert validate_pattern(r"\p{Greek}+") is None  # RE2's own classes are welcome
    message = validate_pattern(r"(a)\1")
    assert message == (
        "pattern '(a)\\\\1' cannot be used: backreferences (\\1) are not supported "
        "(patterns are matched by RE2, a linear-time engine: no backreferences or lookaround)"
    )
    assert validate_pattern(3) is not None  # type: ignore[arg-type]


def test_compiled_patterns_are_cached_and_pickle_as_their_text() -> None:
    first = compile_pattern(r"^[a-z]+\d*$")
    assert compile_pattern(r"^[a-z]+\d*$") is first
    assert isinstance(first, SafePattern) and first.pattern == r"^[a-z]+\d*$"
    assert repr(first) == r"SafePattern('^[a-z]+\\d*$')"
    copy = pickle.loads(pickle.dumps(first))
    assert copy.pattern == first.pattern and copy.fullmatch("abc12")


def test_the_module_imports_nothing_of_the_package() -> None:
    tree = ast.parse(Path(safe_regex.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported, "no import found: the walk is broken"
    assert not {name for name in imported if name.startswith("pytest_codeif")}

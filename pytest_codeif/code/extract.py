"""Find the code of one language in a raw model response (markdown with fenced blocks).

Rules, in order: blocks tagged as the language (for Python: python, py, python3, py3)
are taken; if there
are none, untagged blocks are taken; blocks tagged with another language (bash, json,
text...) never are. Several blocks are joined in order, a blank line apart. A fence left
open runs to the end of the response. An `<artifact language="python">` element counts as
a Python block. With no block at all, a response that parses as Python as a whole (and is
more than one bare expression) is taken as Python code: about half of one small model's answers
in the MultiCodeIF corpus are bare code. Likewise for JavaScript and TypeScript when the
task names the language: a response that parses with no error and holds a declaration or
more than one statement. Anything else is "no code".

A response's language, when its task does not say (`response_language`): Python when it
holds a Python block or is bare Python (as before any other language was known);
otherwise TypeScript when it holds a TypeScript block, JavaScript when it holds a
JavaScript block; otherwise Python (untagged blocks are read as Python, as always).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

from pytest_codeif.code.js_syntax import MAX_LINE, MAX_NESTING, JsBounds, first_error
from pytest_codeif.code.languages import JAVASCRIPT, PYTHON, TYPESCRIPT, Language

# Responses are hostile text: possessive quantifiers keep these matches linear (a line of
# "```" and 40,000 spaces took 7 s with plain ones, and hours at the size bound).
_OPEN = re.compile(r"^(?P<indent>[ \t]*+)(?P<fence>`{3,}+|~{3,}+)[ \t]*+(?P<info>[^`\n]*+)$")
_TAG = re.compile(r"[{.]*([A-Za-z0-9_+#-]+)")
_ARTIFACT_OPEN = re.compile(r"<artifact\b")
_LANGUAGE = re.compile(r"\blanguage=\"([\w+-]+)\"")
_ARTIFACT_END = "</artifact>"
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class CodeBlock:
    """A fenced block: its language tag (lower case, '' if none), text and first line."""

    tag: str
    text: str
    first_line: int  # 1-based line of the response where the block's content starts
    closed: bool


@dataclass(frozen=True)
class ExtractedCode:
    """The code to evaluate and, for each of its lines, the response line it came from."""

    text: str
    line_origin: tuple[int, ...]
    blocks_used: int
    blocks_found: int


def find_blocks(response: str) -> list[CodeBlock]:
    """Every fenced block of `response`, in order."""
    # Lines end at "\n", "\r\n" or "\r", as Python's tokenizer ends them: not at "\f",
    # "\x1c", U+2028... (`str.splitlines`), which may sit in a comment or a string of the
    # code and would change the code judged.
    lines = _LINE_END.split(response)
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, indent = opened["fence"], len(opened["indent"])
        tag = _tag(opened["info"])
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = [_dedent(line, indent) for line in lines[i + 1 : j]]
        blocks.append(CodeBlock(tag, "\n".join(body), i + 2, j < len(lines)))
        i = j + 1
    return blocks


def extract_python(response: str) -> ExtractedCode | None:
    """The Python code of `response`, or None when it holds no usable block."""
    return extract_code(response, PYTHON)


def extract_code(response: str, language: Language) -> ExtractedCode | None:
    """The code in `language` of `response`, or None when it holds no usable block."""
    blocks = find_blocks(response) + _artifacts(response)
    blocks.sort(key=lambda b: b.first_line)
    tags = language.fence_tags
    chosen = [b for b in blocks if b.tag in tags] or [b for b in blocks if not b.tag]
    chosen = [b for b in chosen if b.text.strip()]
    if not chosen:
        if blocks:
            return None
        # Without a fence: bare code of the language asked for (see the module docstring).
        return _bare(response) if language is PYTHON else _bare_js(response, language)
    text_parts: list[str] = []
    origin: list[int] = []
    for block in chosen:
        if text_parts:
            text_parts.append("")
            origin.append(block.first_line - 1)
        block_lines = block.text.split("\n")
        text_parts.extend(block_lines)
        origin.extend(range(block.first_line, block.first_line + len(block_lines)))
    return ExtractedCode("\n".join(text_parts) + "\n", tuple(origin), len(chosen), len(blocks))


def response_language(response: str) -> Language:
    """The language a response is read in when its task names none (see the module
    docstring): Python blocks first, then TypeScript's, then JavaScript's."""
    blocks = find_blocks(response) + _artifacts(response)
    tags = {b.tag for b in blocks if b.text.strip()}
    if tags & PYTHON.fence_tags:
        return PYTHON
    for other in (TYPESCRIPT, JAVASCRIPT):
        if tags & other.fence_tags:
            return other
    return PYTHON


def _tag(info: str) -> str:
    """The language of a fence's info string: `python`, `python:app.py`, `py title="x"`,
    `{.python}` all give python; '' when there is none."""
    found = _TAG.match(info.strip())
    return found[1].lower() if found else ""


def _dedent(line: str, indent: int) -> str:
    """Remove up to `indent` leading whitespace characters (the fence's own indent)."""
    strip = 0
    while strip < indent and strip < len(line) and line[strip] in " \t":
        strip += 1
    return line[strip:]


def _artifacts(response: str) -> list[CodeBlock]:
    """`<artifact ... language="python">code</artifact>` elements, as blocks."""
    # A scan from tag to tag, not one regex over the response: `<artifact` repeated with no
    # `>` made a `[^>]*` pattern quadratic (cubic with `language="..."` repeated).
    found: list[CodeBlock] = []
    pos, line, counted = 0, 1, 0
    while (opened := _ARTIFACT_OPEN.search(response, pos)) is not None:
        close = response.find(">", opened.end())
        if close < 0:
            break
        pos = close + 1
        languages = _LANGUAGE.findall(response, opened.end(), close)
        if not languages:
            continue
        start = close + 1
        end = response.find(_ARTIFACT_END, start)
        body = response[start : end if end >= 0 else len(response)]
        line += response.count("\n", counted, start)  # counted once, front to back
        counted = start
        first_line = line
        if body.startswith("\n"):
            body, first_line = body[1:], first_line + 1
        found.append(CodeBlock(languages[-1].lower(), body.rstrip(), first_line, end >= 0))
    return found


def _bare_js(response: str, language: Language) -> ExtractedCode | None:
    """The whole response, when it is JavaScript or TypeScript code without any fence
    (its task says which): it parses with no error, within the bounds of `js_syntax`,
    and holds a declaration or more than one statement (prose never parses so)."""
    if language.name not in (JAVASCRIPT.name, TYPESCRIPT.name) or not response.strip():
        return None
    bounds = JsBounds.of(response)
    if bounds.nesting > MAX_NESTING or bounds.longest_line > MAX_LINE:
        return None
    from ast_grep_py import SgRoot  # noqa: PLC0415 - loaded only for such a response

    grammar = "typescript" if language.name == TYPESCRIPT.name else "javascript"
    root = SgRoot(response, grammar).root()
    if first_error(root) is not None:
        return None
    statements = [node for node in root.children() if node.kind() != "comment"]
    declares = any(node.kind().endswith("declaration") for node in statements)
    if len(statements) < 2 and not declares:
        return None  # a lone word or expression: prose that happens to parse
    return _whole(response)


def _bare(response: str) -> ExtractedCode | None:
    """The whole response, when it is Python code without any fence around it."""
    try:
        # Parsing only (no compile to bytecode, nothing executed), warnings silenced.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(response)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(tree.body) < 2 and all(isinstance(stmt, ast.Expr) for stmt in tree.body):
        return None  # prose that happens to parse ("Done.") or a lone name
    return _whole(response)


def _whole(response: str) -> ExtractedCode:
    """The whole response as the code, each line its own, trailing blank lines dropped."""
    lines = response.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return ExtractedCode("\n".join(lines) + "\n", tuple(range(1, len(lines) + 1)), 0, 0)

"""Find the code of one language in a raw model response (markdown with fenced blocks).

Rules, in order: blocks tagged as the language (for Python: python, py, python3, py3)
are taken; if there
are none, untagged blocks are taken; blocks tagged with another language (bash, json,
text...) never are. Several blocks are joined in order, a blank line apart. A fence left
open runs to the end of the response. An `<artifact language="python">` element counts as
a Python block. A fence whose info string is a file name (`main.js`, `src/app.ts`, also
after a language: `javascript:src/App.vue`) is tagged by the file's language (a file of
no language by its suffix: `yaml`, `json`). For JavaScript and TypeScript, the
`<script>` elements of markup blocks (`html`, `vue`, `svelte`: a single-file component)
are blocks of the language their `lang` attribute says (JavaScript without one), read
as a browser reads the markup: a script with `src=` or a non-script `type`, or inside a
comment, an attribute's value or a `<textarea>`/`<template>`, holds no code. With no
block at all, a response that parses as Python as a whole (and is more than one bare
expression) is taken as Python code: about half of one small model's answers in the
MultiCodeIF corpus are bare code. Likewise for JavaScript and TypeScript when the task
names the language: a response that parses with no error and holds a declaration or more
than one statement. Anything else is "no code".

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
from typing import Final

from pytest_codeif.code.js_syntax import MAX_LINE, MAX_NESTING, JsBounds, first_error
from pytest_codeif.code.languages import (
    JAVASCRIPT,
    PYTHON,
    TYPESCRIPT,
    Language,
    language_of_file,
)

# Responses are hostile text: possessive quantifiers keep these matches linear (a line of
# "```" and 40,000 spaces took 7 s with plain ones, and hours at the size bound).
_OPEN = re.compile(r"^(?P<indent>[ \t]*+)(?P<fence>`{3,}+|~{3,}+)[ \t]*+(?P<info>[^`\n]*+)$")
_TAG = re.compile(r"[{.]*([A-Za-z0-9_+#-]+)")
#: An info string that is a file's name (`main.js`, `src/app.ts`): its suffix.
_FILE_NAME = re.compile(r"[\w\-/]++(?:\.[\w\-]++)*?(\.[A-Za-z0-9]++)")
#: Fences of markup whose `<script>` elements hold code (a Vue or Svelte component, a page).
_MARKUP_TAGS: Final = frozenset({"html", "htm", "xhtml", "vue", "svelte"})
# A markup block is read as a browser's tokenizer reads it, in one pass from tag to tag
# (HTML's whitespace and ASCII case only: `\s` and IGNORECASE would also take U+00A0,
# U+017F).
#: What the scan stops at: a comment, a bogus comment (`<!DOCTYPE`, `<?xml`: to the next
#: `>`) or a start tag's name; an end tag is text to it.
_MARKUP_NEXT = re.compile(r"<(?:(!--)|[!?]|([A-Za-z][^\t\n\f\r />]*+))")
_COMMENT_END = re.compile(r"--!?>")
#: One attribute of a start tag (name, then `=` and a value, quoted or not), or its `>`;
#: an unterminated quote runs to the end (the tag never ends, as in a browser).
_ATTRIBUTE = re.compile(
    r"""[\t\n\f\r /]*+(?:>|([^\t\n\f\r />][^\t\n\f\r />=]*+)"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+("[^"]*+"?|'[^']*+'?|[^\t\n\f\r >]*+))?)"""
)
#: Elements whose content is text to a browser (no `<script>` in it runs) or inert
#: (`<template>`), each ended by its own end tag: `</name` then whitespace, `/` or `>`.
_TEXT_ELEMENTS: Final = {
    name: re.compile(rf"</{name}(?=[\t\n\f\r />])", re.IGNORECASE | re.ASCII)
    for name in (
        "script",
        "style",
        "textarea",
        "title",
        "xmp",
        "iframe",
        "noembed",
        "noframes",
        "noscript",
        "template",
    )
}
#: HTML's case folding of names and values: ASCII letters only.
_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: `lang=` values of a TypeScript script (a Vue or Svelte component's).
_TS_LANGS: Final = frozenset({"ts", "typescript", "tsx"})
#: `type=` values of a script element that runs as JavaScript (HTML's own list, plus
#: Babel's in-browser JSX).
_JS_TYPES: Final = frozenset(
    {
        "module",
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        *(f"text/javascript1.{minor}" for minor in range(6)),
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
        "text/babel",
        "text/jsx",
    }
)
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
        inner = lines[i + 1 : j]
        # A fence indented where its code is not (a stray space before the fence, as in
        # 770 of one model's MultiCodeIF answers, whose code starts at column 0) indents
        # nothing: taking it off the lines that have it would change the code's own
        # indentation (two spaces to one, a tab to nothing). Only the first code line
        # says so: in a list-indented fence, a later line at column 0 is a multi-line
        # string's or a comment's, and CommonMark's dedent is kept (none of the 770 has
        # its first line indented as its fence).
        first = next((line for line in inner if line.strip()), "")
        if not first.startswith(opened["indent"]):
            indent = 0
        body = [_dedent(line, indent) for line in inner]
        blocks.append(CodeBlock(tag, "\n".join(body), i + 2, j < len(lines)))
        i = j + 1
    return blocks


def extract_python(response: str) -> ExtractedCode | None:
    """The Python code of `response`, or None when it holds no usable block."""
    return extract_code(response, PYTHON)


def extract_code(response: str, language: Language) -> ExtractedCode | None:
    """The code in `language` of `response`, or None when it holds no usable block."""
    blocks = code_blocks(response, scripts=language.name in (JAVASCRIPT.name, TYPESCRIPT.name))
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
    blocks = code_blocks(response, scripts=False)
    tags = {b.tag for b in blocks if b.text.strip()}
    if tags & PYTHON.fence_tags:
        return PYTHON
    for other in (TYPESCRIPT, JAVASCRIPT):
        if tags & other.fence_tags:
            return other
    return PYTHON


def code_blocks(response: str, *, scripts: bool) -> list[CodeBlock]:
    """Every block of `response` that may hold code, in order: fenced blocks, artifacts
    and, with `scripts`, the `<script>` elements of markup blocks (tagged `js` or `ts`)."""
    blocks = find_blocks(response) + _artifacts(response)
    if scripts:
        blocks += [s for b in blocks if b.tag in _MARKUP_TAGS for s in markup_scripts(b)]
    blocks.sort(key=lambda b: b.first_line)
    return blocks


def markup_scripts(block: CodeBlock) -> list[CodeBlock]:
    """The `<script>` elements of a markup block holding code, as blocks tagged `ts`
    (`lang="ts"`) or `js`, read as a browser reads them: one with `src=` or a `type`
    that is not JavaScript holds none; one inside a comment, an attribute's value, a
    `<textarea>`, `<style>`, `<template>`... is none; it ends at `</script` followed by
    whitespace, `/` or `>`."""
    found: list[CodeBlock] = []
    text, pos = block.text, 0
    line, counted = block.first_line, 0  # newlines counted once, front to back
    # One pass from tag to tag (each search starts past the last one's end, and a comment
    # or tag left open ends the scan), so hostile markup of repeated `<script`, `<!--`
    # or `<a x="` stays linear.
    while (found_at := _MARKUP_NEXT.search(text, pos)) is not None:
        if found_at[1] is not None:  # `<!--`: to `-->` (`<!-->` and `<!--->` end at once)
            start = found_at.end()
            if text.startswith((">", "->"), start):
                pos = text.index(">", start) + 1
                continue
            ended = _COMMENT_END.search(text, start)
            if ended is None:
                break
            pos = ended.end()
            continue
        if found_at[2] is None:  # a bogus comment: to the next `>`
            pos = text.find(">", found_at.end()) + 1
            if pos == 0:
                break
            continue
        opened = _start_tag(text, found_at.end())
        if opened is None:
            break
        attributes, close = opened
        name = _ascii_lower(found_at[2])
        if name == "plaintext":  # the rest is text
            break
        end_tag = _TEXT_ELEMENTS.get(name)
        if end_tag is None:
            pos = close
            continue
        ended = end_tag.search(text, close)
        end = ended.start() if ended else len(text)
        pos = ended.end() if ended else len(text)
        tag = _script_language(attributes) if name == "script" else None
        if tag is None:
            continue
        body = text[close:end]
        line += text.count("\n", counted, close)
        counted = close
        first_line = line
        if body.startswith("\n"):
            body, first_line = body[1:], first_line + 1
        found.append(CodeBlock(tag, body.rstrip(), first_line, ended is not None))
    return found


def _start_tag(text: str, pos: int) -> tuple[dict[str, str], int] | None:
    """The attributes (names in lower case, the first of a name kept) of the start tag
    whose name ends at `pos`, and the position past its `>`; None when it never ends."""
    attributes: dict[str, str] = {}
    while (part := _ATTRIBUTE.match(text, pos)) is not None:
        pos = part.end()
        if part[1] is None:
            return attributes, pos
        value = part[2] or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]  # a quote left open runs to the end: never returned
        attributes.setdefault(_ascii_lower(part[1]), value)
    return None


def _script_language(attributes: dict[str, str]) -> str | None:
    """`js` or `ts` for a script element with these attributes whose content runs (the
    `lang` of a component's script says TypeScript), None when it holds no code: it has
    `src`, or a `type` (or old `language`) that is not JavaScript. A type's parameters
    (`; charset=utf-8`) are let pass, as models write them."""
    if "src" in attributes:
        return None
    kind = attributes.get("type")
    if kind is None and attributes.get("language"):
        kind = "text/" + attributes["language"]
    essence = _ascii_lower((kind or "").partition(";")[0].strip(" \t\n\f\r"))
    if essence and essence not in _JS_TYPES:
        return None
    return "ts" if _ascii_lower(attributes.get("lang", "").strip()) in _TS_LANGS else "js"


def _ascii_lower(name: str) -> str:
    """`name` in lower case as HTML folds it: ASCII letters only (Python's `lower` turns
    the Kelvin sign into "k")."""
    return name.translate(_ASCII_LOWER)


def _tag(info: str) -> str:
    """The language of a fence's info string: `python`, `python:app.py`, `py title="x"`,
    `{.python}` all give python; a file's name gives its language's (`main.js`:
    javascript, `app.py`: python, `App.vue`: vue), also after a language
    (`javascript:src/App.vue`: vue, `javascript:k8s.yaml`: yaml); '' when there is
    none."""
    stripped = info.strip()
    head = stripped.split(maxsplit=1)[0] if stripped else ""
    named = _FILE_NAME.fullmatch(head)
    if named is not None:
        suffix = named[1].lower()
        owner = language_of_file(head)
        if owner is not None:
            return owner.name
        if suffix[1:] in _MARKUP_TAGS:
            return suffix[1:]
    language, colon, path = head.partition(":")
    named = _FILE_NAME.fullmatch(path) if colon and language else None
    if named is not None:
        # `javascript:src/App.vue`, `javascript:k8s.yaml`: the file's suffix says what
        # the block holds (a component, a manifest), before the language named first.
        owner = language_of_file(path)
        return owner.name if owner is not None else named[1].lower()[1:]
    found = _TAG.match(stripped)
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

"""MultiCodeIF's JavaScript and TypeScript records -> the same checks as Python's, with
their JavaScript meanings.

A record's machine-readable `answer` starts with its language (`javascript;Arrow
Functions`, `TypeScript;zod`); what follows is read as for Python where the check reads
JS/TS (naming, construct, imports, calls, framework, comments, brace style, indentation,
language), through the JavaScript world's tools where the rule is a lint rule (`var`
declarations: Biome's `noVar`), and left unmapped with the reason where no check decides
it for JS/TS yet or where the task asks for another language (CoffeeScript).

Call cases: MultiCodeIF's `input` (`args`) and `expected_output`, run by Node. JavaScript
has no keyword arguments, so a record whose tests pass `kwargs` (the benchmark's
description of an HTTP request, a component's props) gets no call cases, with a note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from pytest_codeif.checks.shared.js_context import js_definitions, parse_js_option
from pytest_codeif.checks.shared.js_exemplar import js_units
from pytest_codeif.code.extract import code_blocks, extract_code
from pytest_codeif.code.languages import language as language_named
from pytest_codeif.importers.entry_choice import EntryChoice, named_function
from pytest_codeif.importers.multicodeif_types import Mapped, TaskRecord, Unmapped

#: The corpus's language names -> the task file's `language`.
JS_LANGUAGES: Final = {"javascript": "javascript", "typescript": "typescript"}

#: An advanced-syntax record's feature, in its words -> the `construct` names.
_SYNTAX: Final[list[tuple[str, list[str]]]] = [
    (r"async\s*/\s*await|\basync\b", ["async-function", "await"]),
    (r"arrow function", ["arrow-function"]),
    (r"spread|rest (?:operator|parameter)|destructuring", ["unpacking"]),
    (r"template literal", ["f-string"]),
    (r"generator", ["generator"]),
    (r"\bclass(?:es)?\b", ["class"]),
    (r"decorator", ["decorator"]),
    (r"switch", ["match"]),
]
#: Library names as records write them -> the npm packages (any one counts).
_NPM: Final[dict[str, list[str]]] = {
    "nestjs": ["@nestjs/common", "@nestjs/core"],
    "vue.js": ["vue"],
    "vue": ["vue"],
    "socket.io": ["socket.io", "socket.io-client"],
    "whatsup": ["whatsup", "@whatsup/core"],
    "node.js express": ["express"],
}
#: Frameworks the `framework` check knows for Node, by a record's name for them.
_NODE_FRAMEWORKS: Final = {
    "express": "express",
    "express.js": "express",
    "node.js express": "express",
    "fastify": "fastify",
    "koa": "koa",
    "hono": "hono",
    "nestjs": "nestjs",
}
#: A declaration style -> the Biome rule that decides it for JS/TS.
_DECLARATIONS: Final = {
    # "Type inference keywords like 'var' or 'auto' are disallowed": JavaScript's `var`.
    "disallowTypeInference": ["noVar"],
    # "if (int x = getValue())": JavaScript's form is an assignment inside an expression.
    "noInlineDeclaration": ["noAssignInExpressions"],
}
#: A name that can be an npm scope (`@tsoa`) as well as a package.
_SCOPE_NAME: Final = re.compile(r"[a-z0-9][a-z0-9._-]*")
_IDENTIFIER_STYLES: Final = ("camelCase", "PascalCase", "UPPER_CASE", "snake_case")


def _language_type(r: TaskRecord, out: Mapped, language: str) -> None:
    asked = r.parts[0].strip()
    if asked.lower() not in JS_LANGUAGES:
        raise Unmapped(f"the task asks for {asked!r}: language not supported yet")
    # The response is read in the task's language, or in the other of JS and TS when it
    # holds only that one's blocks: `language` fails the latter (see the check).
    out.constraints.append({"check": "language", "language": JS_LANGUAGES[asked.lower()]})
    if re.search(r"\bES ?6\b|ECMAScript ?(?:6|2015)", r.prompt, re.IGNORECASE):
        out.left_out.append("the ECMAScript edition asked (ES6) is not checked")


def _advanced_syntax(r: TaskRecord, out: Mapped, language: str) -> None:
    feature = r.parts[1].lower()
    found = [c for pattern, names in _SYNTAX if re.search(pattern, feature) for c in names]
    if not found:
        raise Unmapped(f"syntax feature {r.parts[1]!r} is not a known construct")
    if "unpacking" in found and "spread" in feature:
        out.left_out.append(
            "the spread operator is read as `unpacking`, which destructuring also satisfies"
        )
    out.constraints.append({"check": "construct", "require": list(dict.fromkeys(found))})


def _function(r: TaskRecord, out: Mapped, language: str) -> None:
    out.constraints.append({"check": "calls", "require": [r.parts[1].strip()]})


def _npm(name: str) -> list[str]:
    """The npm packages of a library named in a record: its own table entry, else the
    package of that name or any in its scope (`tsoa`: `tsoa` or `@tsoa/runtime`)."""
    lowered = name.strip().lower()
    if lowered in _NPM:
        return _NPM[lowered]
    if "/" not in lowered and not lowered.startswith("@") and _SCOPE_NAME.fullmatch(lowered):
        return [lowered, f"@{lowered}"]
    return [lowered]


def _library(r: TaskRecord, out: Mapped, language: str) -> None:
    packages = _npm(r.parts[1])
    key = "require" if len(packages) == 1 else "require-any"
    out.constraints.append({"check": "imports", key: packages})


def _framework(r: TaskRecord, out: Mapped, language: str) -> None:
    name = r.parts[1].strip().lower()
    framework = _NODE_FRAMEWORKS.get(name)
    if framework is not None:
        out.constraints.append({"check": "framework", "framework": framework})
        return
    # A front-end framework the `framework` check has no defining pattern for: its
    # import is what decides (the components' shape is not checked).
    packages = _npm(name)
    key = "require" if len(packages) == 1 else "require-any"
    out.constraints.append({"check": "imports", key: packages})
    out.left_out.append(f"{r.parts[1].strip()}: read as its import; its component shape is not")


def _naming(r: TaskRecord, out: Mapped, language: str) -> None:
    options: dict[str, Any] = {}
    for pair in r.parts[1].split(","):
        what, _, style = (x.strip() for x in pair.partition(":"))
        if style in _IDENTIFIER_STYLES:
            options[what] = style
        else:
            out.left_out.append(f"{what}: {style} is not a JavaScript identifier style")
    if not options:
        raise Unmapped(f"no naming rule expressible for JavaScript: {'; '.join(out.left_out)}")
    out.constraints.append({"check": "naming", **options})


def _comments(r: TaskRecord, out: Mapped, language: str) -> None:
    """A comment style: JSDoc (`/** */`) is JavaScript's docstring, a block comment
    (`/* */` or a run of `//` lines) its multi-line comment."""
    style = r.parts[1].lower()
    options: dict[str, Any] = {"check": "comments"}
    if r.entry:
        options["function"] = r.entry
    if "doc" in style:
        options["docstrings"] = "required"
    elif "single-line" in style or "single line" in style:
        options["function-start"] = "comment"
    elif "multi-line" in style or "multiline" in style or "block" in style:
        options.update({"function-start": "either", "start-lines": 2})
    elif "inline" in style:
        # "Use an inline comment to explain the calculation directly in the code": a
        # comment among the function's lines (`//`), as JavaScript writers use the word;
        # the narrower sense (at the end of a line of code) would fail the usual answer.
        options["min-comments"] = 1
    else:
        raise Unmapped(f"comment style {r.parts[1]!r} is not one the comments check knows")
    out.constraints.append(options)


def _declarations(r: TaskRecord, out: Mapped, language: str) -> None:
    style = re.search(r"Declaration Style Type\*\*\s*:\s*(\w+)", r.answer)
    name = style.group(1) if style else ""
    rules = _DECLARATIONS.get(name)
    if rules is None:
        raise Unmapped(
            f"declaration style {name or '?'!r}: the `declarations` check reads Python only"
        )
    out.constraints.append({"check": "biome", "select": list(rules)})


_BRACE_STYLES: Final = {"allman": "allman", "k&r": "k&r", "kr": "k&r", "1tbs": "1tbs"}


def _braces(r: TaskRecord, out: Mapped, language: str) -> None:
    style = _BRACE_STYLES.get(r.parts[1].strip().lower()) if len(r.parts) > 1 else None
    if style is None:
        raise Unmapped(f"brace style {r.answer!r} is not Allman, K&R or 1TBS")
    out.constraints.append({"check": "brace-style", "style": style})


def _indentation(r: TaskRecord, out: Mapped, language: str) -> None:
    """`spaces:N` or `tabs`, then `spacing` or `no spacing` (spaces around operators and
    after commas, as the benchmark's seed defines them) -> `indentation`."""
    asked = r.parts[1].strip().lower() if len(r.parts) > 1 else ""
    spaces = re.fullmatch(r"spaces?\s*:\s*(\d+)", asked)
    if asked == "tabs":
        unit: int | str = "tabs"
    elif spaces is not None and 1 <= int(spaces[1]) <= 8:
        unit = int(spaces[1])
    else:
        raise Unmapped(f"indentation {asked!r} is not spaces:N or tabs")
    constraint: dict[str, Any] = {"check": "indentation", "indent": unit}
    spacing = r.parts[2].strip().lower() if len(r.parts) > 2 else ""
    if spacing in ("spacing", "no spacing"):
        constraint["spacing"] = "spaced" if spacing == "spacing" else "unspaced"
    elif spacing:
        out.left_out.append(f"spacing {r.parts[2].strip()!r}: not checked")
    if spacing == "no spacing" and re.search(r"\bkeywords?\b", r.prompt, re.IGNORECASE):
        out.left_out.append(
            "no space after keywords (`if(`): not checked; operators and commas are"
        )
    if re.search(r"line breaks?|blank lines?", r.prompt, re.IGNORECASE):
        out.left_out.append("blank lines between logical sections: not checked")
    out.constraints.append(constraint)


#: A given function the prompt asks the new code to call: "encrypts it using the
#: `encryptData` function", "Use the existing `ping` method".
_USE_GIVEN: Final = re.compile(
    r"\b(?:using|uses?|utili[sz]e|call(?:ing)?)\s+(?:the\s+)?(?:existing\s+)?"
    r"`([A-Za-z_$][\w$]*)(?:\([^`]*\))?`",
    re.IGNORECASE,
)


def _given_code(prompt: str, language: str) -> str | None:
    """The JS/TS code a prompt gives: its blocks in the task's language (or in the other
    one when it holds only those), as a response's code is read."""
    written = response_js_language(prompt, language)
    extracted = extract_code(prompt, language_named(written))
    return extracted.text if extracted else None


def _context(r: TaskRecord, out: Mapped, language: str) -> None:
    """As Python's: the prompt's code is the context to keep (the record's answer is a
    reference solution, which may add symbols of its own). A prompt that asks to build
    on given functions by name ("using `findProductById`") adds `reuse` of them."""
    context = _given_code(r.prompt, language)
    if not context:
        raise Unmapped("the record's prompt holds no JavaScript/TypeScript context")
    module = parse_js_option(context, "context")
    if isinstance(module, str):
        raise Unmapped(f"the prompt's context is not valid JavaScript or TypeScript ({module})")
    defined = js_definitions(module).symbols
    if not defined:
        raise Unmapped("the prompt's context defines no function or class to keep")
    out.constraints.append({"check": "context", "context": context})
    symbols: list[str] = []
    for name in dict.fromkeys(_USE_GIVEN.findall(r.prompt)):
        methods = [s for s in defined if "." in s and s.rpartition(".")[2] == name]
        if name in defined:
            symbols.append(name)
        elif len(methods) == 1:
            symbols.append(methods[0])
    if symbols:
        out.constraints.append(
            {
                "id": "context-reuse",
                "check": "context",
                "context": context,
                "mode": "reuse",
                "symbols": symbols,
            }
        )


def _exemplar(r: TaskRecord, out: Mapped, language: str) -> None:
    """As Python's: the prompt's code is the example; `function` is the function the
    prompt names that the example does not define, `example-function` the example's own
    function it names in backticks."""
    example = _given_code(r.prompt, language)
    if not example:
        raise Unmapped("the prompt holds no example code")
    module = parse_js_option(example, "exemplar")
    if isinstance(module, str):
        raise Unmapped(f"the example code is not valid JavaScript or TypeScript ({module})")
    units = js_units(module)
    if not units:
        raise Unmapped("the example defines no function, handler or class to imitate")
    defined = {u.name for u in units if u.name}
    options: dict[str, Any] = {"check": "exemplar", "exemplar": example}
    function = named_function(r.prompt, exclude=defined)
    if function:
        options["function"] = function
    named = re.findall(r"`([A-Za-z_$][\w$]*)\(", r.prompt)
    example_function = next((n for n in named if n in defined), None)
    if example_function:
        options["example-function"] = example_function
    out.constraints.append(options)


def _requirements(r: TaskRecord, out: Mapped, language: str) -> None:
    """A scenario or a code-quality prompt: the Node frameworks and npm libraries it names
    in so many words (`Express`, `socket.io`); the rest of it is not decided here."""
    found = _named_packages(r.prompt)
    if not found:
        raise Unmapped("the prompt names no framework or library a check decides for JS/TS")
    out.constraints.extend(found)
    out.left_out.append("read for the frameworks and libraries it names; the rest is not decided")


#: A framework the code is asked to be written with ("using Express.js", "use Node.js with
#: the Express framework", "in Node.js using NestJS"), not one the setting names ("a
#: platform built with Express": a change to one of its services; "a middleware for an
#: Express.js application": no app of its own).
_USING: Final = r"(?<!built )\b(?:using|use|with)\s+(?:node\.js\s+(?:and|with)\s+)?(?:the\s+)?"
#: Frameworks and libraries a prompt may name, by their words -> the constraint.
#: D3's own modules, published apart (`d3-array`): importing one is using D3.
_D3_MODULES: Final = tuple(
    f"d3-{m}"
    for m in [
        "array",
        "axis",
        "brush",
        "chord",
        "color",
        "dispatch",
        "drag",
        "dsv",
        "ease",
        "fetch",
        "force",
        "format",
        "geo",
        "hierarchy",
        "interpolate",
        "path",
        "polygon",
        "quadtree",
        "random",
        "scale",
        "selection",
        "shape",
        "time",
        "timer",
        "transition",
        "zoom",
    ]
)
_PROMPT_PACKAGES: Final[list[tuple[str, dict[str, Any]]]] = [
    (_USING + r"express(?:\.js)?\b", {"check": "framework", "framework": "express"}),
    (_USING + r"koa\b", {"check": "framework", "framework": "koa"}),
    (_USING + r"fastify\b", {"check": "framework", "framework": "fastify"}),
    (_USING + r"nestjs\b", {"check": "framework", "framework": "nestjs"}),
    (r"\bsocket\.io\b", {"check": "imports", "require-any": ["socket.io", "socket.io-client"]}),
    (r"\bmongoose\b", {"check": "imports", "require": ["mongoose"]}),
    (r"\bmongodb\b", {"check": "imports", "require-any": ["mongoose", "mongodb"]}),
    (r"\bmysql\b", {"check": "imports", "require-any": ["mysql", "mysql2", "sequelize", "knex"]}),
    (r"\bsequelize\b", {"check": "imports", "require": ["sequelize"]}),
    (r"\bredis\b", {"check": "imports", "require-any": ["redis", "ioredis"]}),
    (r"\baxios\b", {"check": "imports", "require": ["axios"]}),
    (r"\bbcrypt\b", {"check": "imports", "require-any": ["bcrypt", "bcryptjs"]}),
    (r"\bwinston\b", {"check": "imports", "require": ["winston"]}),
    (r"\belectron\b", {"check": "imports", "require": ["electron"]}),
    (r"\bclass-validator\b", {"check": "imports", "require": ["class-validator"]}),
    # "an Express middleware": no app of its own, but Express's types or Router imported.
    (r"\bexpress(?:\.js)? middleware\b", {"check": "imports", "require": ["express"]}),
    # A page loads D3 with a <script> tag and reads its `d3` global: the imports check
    # counts that (see `browser_global_reads`).
    (r"\bd3(?:\.js)?\b", {"check": "imports", "require-any": ["d3", *_D3_MODULES]}),
    (
        r"\bJWTs?\b|\bJSON Web Tokens?\b",
        {
            "check": "imports",
            "require-any": ["jsonwebtoken", "jose", "express-jwt", "@nestjs/jwt", "jwt-simple"],
        },
    ),
    # A React component is written with React (its JSX needs it, or its hooks).
    (r"\breact\b(?! native)", {"check": "imports", "require-any": ["react", "react-dom"]}),
    (
        r"\bredux\b",
        {"check": "imports", "require-any": ["redux", "react-redux", "@reduxjs/toolkit"]},
    ),
    (r"\bangular\b", {"check": "imports", "require": ["@angular/core"]}),
]
#: "using the `unorm` library": a library named in backticks.
_BACKTICKED_LIBRARY: Final = re.compile(r"`(@?[a-z0-9][\w.\-/]*)`\s+(?:library|package|module)")


def _named_packages(prompt: str) -> list[dict[str, Any]]:
    found = [dict(c) for pattern, c in _PROMPT_PACKAGES if re.search(pattern, prompt, re.I)]
    found += [
        {"check": "imports", "require": [name]}
        for name in dict.fromkeys(_BACKTICKED_LIBRARY.findall(prompt))
        if {"check": "imports", "require": [name]} not in found
    ]
    return found


_MAPPERS: Final[dict[str, Callable[[TaskRecord, Mapped, str], None]]] = {
    "syntax_language_type": _language_type,
    "syntax_advanced_syntax": _advanced_syntax,
    "syntax_function": _function,
    "syntax_library": _library,
    "syntax_framework": _framework,
    "code_convention_naming_convention": _naming,
    "code_convention_comment_formatting": _comments,
    "code_convention_declaration_style": _declarations,
    "situation": _requirements,
    "non_functional_requirements": _requirements,
    "code_convention_brace_block_formatting": _braces,
    "code_convention_indentation_spacing": _indentation,
    "code_contextual": _context,
    "example": _exemplar,
}


def map_js_constraint(
    r: TaskRecord, language: str, shared: Mapping[str, Callable[[TaskRecord, Mapped], None]]
) -> Mapped:
    """The checks for one JavaScript or TypeScript task record; raises `Unmapped` with the
    reason when no check decides it for JS/TS. `shared`: the Python mappers whose reading
    holds in every language (complexity: a class measured on the tests' inputs)."""
    if r.kind in shared:
        mapped = Mapped()
        shared[r.kind](r, mapped)
        return mapped
    mapper = _MAPPERS.get(r.kind)
    if mapper is None:
        raise Unmapped(f"{r.kind}: no mapping for JavaScript or TypeScript yet")
    mapped = Mapped()
    mapper(r, mapped, language)
    return mapped


_FUNCTION_DEF: Final = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
    r"|^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*"
    r"(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)",
    re.MULTILINE,
)


def js_functions(code: str) -> list[str]:
    """The top-level functions of JS/TS `code` (a line that starts with `function f` or
    binds a function or arrow function), in order; indented ones are inside something."""
    return list(dict.fromkeys(a or b for a, b in _FUNCTION_DEF.findall(code)))


def js_entry(named: str | None, code: str | None) -> EntryChoice:
    """The function the tests call: the one the prompt names, else the response's only
    top-level function."""
    if named:
        return EntryChoice(named, "named by the prompt")
    functions = js_functions(code or "")
    if len(functions) == 1:
        return EntryChoice(functions[0], "the response's only top-level function")
    if not functions:
        return EntryChoice(None, "the prompt names no function and the response defines none")
    return EntryChoice(
        None, f"the prompt names no function; the response defines several ({', '.join(functions)})"
    )


def js_tests(record: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The record's call cases for Node, or none and why: JavaScript has no keyword
    arguments, so tests that pass some are not the function's calls."""
    cases: list[dict[str, Any]] = []
    for test in record.get("tests") or []:
        if not isinstance(test, dict) or not isinstance(test.get("input"), dict):
            continue
        if test["input"].get("kwargs"):
            return [], "tests pass keyword arguments, which JavaScript functions do not take"
        case: dict[str, Any] = {
            "input": {"args": list(test["input"].get("args", []))},
            "expected_output": test.get("expected_output"),
        }
        if test.get("name"):
            case = {"name": str(test["name"])[:200], **case}
        cases.append(case)
    return cases, None


def response_js_language(response: str, asked: str) -> str:
    """The language `response` is read in for a task asking for `asked` (javascript or
    typescript): `asked`, unless the response holds blocks of the other one only."""
    tags = {b.tag for b in code_blocks(response, scripts=True) if b.text.strip()}
    if tags & language_named(asked).fence_tags:
        return asked
    other = "typescript" if asked == "javascript" else "javascript"
    return other if tags & language_named(other).fence_tags else asked

"""The `calls` check: named APIs are (or are not) called, resolved through imports."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.call_sites import call_sites
from pytest_codeif.checks.shared.js_calls import (
    MISSING,
    JsCallSite,
    arguments_of,
    constants_of,
    js_call_sites,
    js_literal,
)
from pytest_codeif.checks.shared.js_functions import find_js_function, js_functions
from pytest_codeif.checks.shared.structure import code_of, scopes
from pytest_codeif.checks.shared.stub_signatures import accepted_keywords
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.js_tree import JsModule

_RULE = "calls"
_NAMES = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[A-Za-z_][\\w.]*$"},
    "minItems": 1,
}
_ARGUMENT: Final = {
    "type": "object",
    "anyOf": [{"required": ["position"]}, {"required": ["keyword"]}],
    "properties": {
        "position": {"type": "integer", "minimum": 1},
        "keyword": {"type": "string", "pattern": "^[A-Za-z_]\\w*$"},
        "one-of": {"type": "array", "minItems": 1},
        "not-one-of": {"type": "array", "minItems": 1},
    },
    "additionalProperties": False,
}


_BUILTIN_TYPES = frozenset(
    {
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "object",
    }
)


def _is_type_name(head: str) -> bool:
    last = head.rsplit(".", 1)[-1]
    return last in _BUILTIN_TYPES or last[:1].isupper()


def matches(qualified: set[str], method: str | None, wanted: str) -> bool:
    """Whether a call site is a call of `wanted` (a dotted name).

    A bare name also matches the builtin of that name, an imported function of that name,
    and a method of that name; `Type.method` also matches a method call on an object.
    """
    if wanted in qualified:
        return True
    head, _, last = wanted.rpartition(".")
    if not head:
        return (
            f"builtins.{wanted}" in qualified
            or any(q.rsplit(".", 1)[-1] == wanted for q in qualified)
            or method == wanted
        )
    if _is_type_name(head):
        return method == last or f"builtins.{wanted}" in qualified
    return False


class CallsCheck(Check):
    """Required functions are called and forbidden ones are not, resolved through imports.

    Why: "memoise with functools.lru_cache", "don't use eval", "sort with sorted()":
    the name is resolved however it was imported (`from functools import lru_cache as
    lc`, `import functools as ft; ft.lru_cache`), so renaming an import neither hides a
    forbidden call nor fakes a required one. A decorator counts as a call. A bare name
    (`sorted`, `namedtuple`, `fillna`) matches the builtin, an imported function and a
    method of that name. Object types are not inferred, so `Type.method` (a builtin type
    or a capitalised class: `str.upper`, `DataFrame.fillna`) matches any `x.method(...)`
    call whose receiver is not an imported module, class or function.

    A required call counts only when it can do what is asked: a call passing a keyword
    the callee does not take raises TypeError and is no use of it (the keywords of
    standard-library callables are read from typeshed's stubs; others are not judged),
    and with `arguments` each rule must hold for the call's argument at that `position`
    (1 is the first) or passed by that `keyword`: its value is `one-of` the listed values
    or `not-one-of` them ("a 32-byte salt from `os.urandom(32)`", "a map backed by the
    file, not anonymous: `mmap.mmap(fd, ...)` with `fd` not -1"). A value is read when it
    is a literal or a name the module binds once to one (`SALT_SIZE = 32`); an argument
    left out or computed is not judged.

    JavaScript and TypeScript: function calls, method calls (`obj.m()`), `new X()` and
    decorators, named through `import` and `require` the same way (`fs.readFileSync`
    for `import { readFileSync as r } from "node:fs"; r(p)`); a global, never imported,
    is named as written (`eval`, `console.log`, `JSON.parse`). `arguments` rules go by
    `position` (JavaScript has no keyword arguments) and read literals and names
    declared once with `const`.

    Options: `require`, `require-any` (at least one of these is called), `forbid` (lists
    of dotted names; at least one of the three), `arguments` (rules for the required
    calls' arguments), `function` (only look inside this function).

    Example:

        - check: calls
          require: [functools.lru_cache]
          forbid: [eval, exec]

        - check: calls
          require-any: [os.urandom, secrets.token_bytes]
          arguments: [{position: 1, keyword: nbytes, one-of: [32]}]
    """

    name = "calls"
    languages = frozenset({"python", "javascript", "typescript"})
    category = "Environment"
    advice = (
        "Call the functions the task requires (a decorator counts) and do the work of each "
        "forbidden call another way; renaming an import neither hides a call nor fakes one."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [
            {"required": ["require"]},
            {"required": ["require-any"]},
            {"required": ["forbid"]},
        ],
        "properties": {
            "require": _NAMES,
            "require-any": _NAMES,
            "forbid": _NAMES,
            "arguments": {"type": "array", "items": _ARGUMENT, "minItems": 1},
            "function": {"type": "string"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "import functools as ft\n\n@ft.lru_cache(maxsize=None)\ndef f(n):\n    return n\n",
            {"require": ["functools.lru_cache"]},
        ),
        Sample(
            "from functools import lru_cache as memo\n\n@memo\ndef f(n):\n    return n\n",
            {"require": ["functools.lru_cache"], "forbid": ["eval"]},
        ),
        Sample(
            "from collections import namedtuple\n\nP = namedtuple('P', 'x')\n\n"
            "def shout(text):\n    return text.strip().upper()\n",
            {"require": ["namedtuple", "str.upper"]},
        ),
        Sample(
            """
            import hashlib
            import secrets

            SALT_BYTES = 32

            def anonymise(email):
                salt = secrets.token_bytes(SALT_BYTES)
                return salt.hex() + hashlib.sha256(salt + email.encode()).hexdigest()
            """,
            {
                "require-any": ["os.urandom", "secrets.token_bytes"],
                "arguments": [{"position": 1, "keyword": "nbytes", "one-of": [32]}],
            },
        ),
        Sample(
            """
            import mmap

            def lines(path):
                with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                    yield from iter(m.readline, b"")
            """,
            {
                "require": ["mmap.mmap"],
                "arguments": [{"position": 1, "keyword": "fileno", "not-one-of": [-1]}],
            },
        ),
        Sample(
            """
            const { randomBytes: rb } = require("node:crypto");
            const SALT_BYTES = 32;

            function salt() {
              return rb(SALT_BYTES).toString("hex");
            }
            """,
            {
                "require": ["crypto.randomBytes"],
                "forbid": ["eval", "Math.random"],
                "arguments": [{"position": 1, "one-of": [32]}],
            },
            language="javascript",
        ),
        Sample(
            """
            import { readFile } from "fs/promises";

            export async function load(path: string): Promise<Map<string, number>> {
              const data = JSON.parse(await readFile(path, "utf8"));
              return new Map(Object.entries(data));
            }
            """,
            {"require": ["fs.readFile", "JSON.parse", "Map"], "function": "load"},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            "def f(n):\n    return n\n",
            {"require": ["functools.lru_cache"]},
            message="`functools.lru_cache` is never called",
        ),
        Sample(
            "function run(code) {\n  const ev = eval;\n  return eval(code);\n}\n",
            {"forbid": ["eval"]},
            message="calls `eval`, which is forbidden",
            line=3,
            language="javascript",
        ),
        Sample(
            'import crypto from "crypto";\n\nexport const salt = (): Buffer => '
            "crypto.randomBytes(16);\n",
            {"require-any": ["crypto.randomBytes"], "arguments": [{"position": 1, "one-of": [32]}]},
            message="argument 1 is 16, expected one of 32",
            line=3,
            language="typescript",
        ),
        Sample(
            "from builtins import eval as e\n\ne('1')\n",
            {"forbid": ["eval"]},
            message="calls `eval`, which is forbidden",
            line=3,
        ),
        Sample(
            "import string\n\nstring.upper('a')\n",
            {"require": ["str.upper"]},
            message="`str.upper` is never called",
        ),
        Sample(
            "def g():\n    return sorted([2, 1])\n\ndef f():\n    return [1]\n",
            {"require": ["sorted"], "function": "f"},
            message="`sorted` is never called in `f`",
            line=4,
        ),
        Sample(  # a hard-coded salt: no random source is called
            """
            import hashlib

            def anonymise(email):
                salt = b"fixed-salt-value"
                return hashlib.sha256(salt + email.encode()).hexdigest()
            """,
            {
                "require-any": ["os.urandom", "secrets.token_bytes"],
                "arguments": [{"position": 1, "keyword": "nbytes", "one-of": [32]}],
            },
            message="none of `os.urandom` or `secrets.token_bytes` is called",
        ),
        Sample(  # too short a salt
            "import os\n\ndef salt():\n    return os.urandom(16)\n",
            {
                "require-any": ["os.urandom", "secrets.token_bytes"],
                "arguments": [{"position": 1, "keyword": "nbytes", "one-of": [32]}],
            },
            message="argument 1 is 16, expected one of 32",
            line=4,
        ),
        Sample(  # anonymous memory, not the file
            "import mmap\n\ndef load(size):\n    return mmap.mmap(-1, size)\n",
            {
                "require": ["mmap.mmap"],
                "arguments": [{"position": 1, "keyword": "fileno", "not-one-of": [-1]}],
            },
            message="argument 1 is -1, expected none of -1",
            line=4,
        ),
        Sample(  # a keyword mmap does not take: the call raises TypeError
            "import mmap\n\ndef load(f):\n    return mmap.mmap(f.fileno(), 0, access_mmap='r')\n",
            {"require": ["mmap.mmap"]},
            message="passes `access_mmap=`, a keyword `mmap.mmap` does not take",
            line=4,
        ),
    )

    def advise(self) -> str:
        where = f" in `{self.options['function']}`" if self.options.get("function") else ""
        parts = []
        if self.options.get("require"):
            parts.append(f"Call {listed(self.options['require'])}{where} (a decorator counts).")
        if self.options.get("require-any"):
            one = listed(self.options["require-any"], conjunction="or")
            parts.append(f"Call {one}{where}.")
        if self.options.get("arguments"):
            rules = "; ".join(_rule_text(r) for r in self.options["arguments"])
            parts.append(f"Pass the required calls arguments that meet: {rules}.")
        if self.options.get("forbid"):
            forbidden = listed(self.options["forbid"], conjunction="or")
            parts.append(f"Do not call {forbidden}{where}: do that work another way.")
        return " ".join(parts) or self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        where = self.options.get("function")
        js = ctx.js_modules()
        js_function = find_js_function(js, where) if where and js else None
        sites: list[_Site | JsCallSite] = []
        if js_function is not None:
            sites = list(js_call_sites(js_function.module, js_function.node))
            path, line = js_function.module.relpath, js_function.line
        elif where and js and not ctx.modules():
            return [_no_js_function(js, where)]
        else:
            places = scopes(ctx, where, _RULE) if ctx.modules() or not js else []
            if isinstance(places, Finding):
                return [places]
            sites = [
                (names, method, m, site)
                for m, node in places
                for names, method, site in call_sites(m, node)
            ]
            if not where:
                sites += [site for m in js for site in js_call_sites(m)]
            first = places[0][0].relpath if places else js[0].relpath
            path = first
            line = places[0][0].line_of(places[0][1]) if where and places else 1
        findings: list[Finding] = []
        scope_text = f" in `{where}`" if where else ""
        for wanted in self.options.get("require", []):
            made = [s for s in sites if _matches(s, wanted)]
            if not made:
                findings.append(
                    Finding(f"`{wanted}` is never called{scope_text}", _RULE, path, line)
                )
            elif not any(self._works(wanted, s) for s in made):
                findings.extend(self._unusable(wanted, made))
        choices = self.options.get("require-any", [])
        made_any = [(w, s) for w in choices for s in sites if _matches(s, w)]
        if choices and not any(self._works(w, s) for w, s in made_any):
            if not made_any:
                none = listed(choices, conjunction="or")
                findings.append(Finding(f"none of {none} is called{scope_text}", _RULE, path, line))
            for wanted in dict.fromkeys(w for w, _ in made_any):
                findings.extend(self._unusable(wanted, [s for w, s in made_any if w == wanted]))
        for banned in self.options.get("forbid", []):
            findings.extend(
                Finding(f"calls `{banned}`{scope_text}, which is forbidden", _RULE, *_place(site))
                for site in sites
                if _matches(site, banned)
            )
        return findings

    def _works(self, wanted: str, site: _Site | JsCallSite) -> bool:
        """Whether a call of `wanted` can do what is asked (see the class doc)."""
        return not any(self._problems(wanted, site))

    def _problems(self, wanted: str, site: _Site | JsCallSite) -> Iterator[str]:
        rules = self.options.get("arguments", [])
        if isinstance(site, JsCallSite):
            return _js_call_problems(site, rules)
        return _call_problems(wanted, site, rules)

    def _unusable(self, wanted: str, made: list[_Site | JsCallSite]) -> Iterator[Finding]:
        """A finding for each call of `wanted` that cannot do what is asked."""
        for site in made:
            for problem in self._problems(wanted, site):
                yield Finding(f"`{wanted}` is called here, but {problem}", _RULE, *_place(site))


_Site = tuple[set[str], str | None, ParsedModule, cst.CSTNode]
_MISSING: Final = object()


def _matches(site: _Site | JsCallSite, wanted: str) -> bool:
    if isinstance(site, JsCallSite):
        return matches(set(site.names), site.method, wanted)
    return matches(site[0], site[1], wanted)


def _place(site: _Site | JsCallSite) -> tuple[str, int]:
    if isinstance(site, JsCallSite):
        return site.module.relpath, site.module.line_of(site.node)
    return site[2].relpath, site[2].line_of(site[3])


def _no_js_function(js: Sequence[JsModule], name: str) -> Finding:
    """The function `name` is defined in none of the JS/TS modules."""
    defined = sorted({f.qualname for m in js for f in js_functions(m) if f.qualname})
    shown = ", ".join(defined[:10]) or "none"
    return Finding(
        f"function `{name}` is not defined (functions found: {shown})", _RULE, js[0].relpath, 1
    )


def _js_call_problems(site: JsCallSite, rules: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """Why a JS/TS call cannot do what is asked: an argument rule broken at its
    `position` (JavaScript passes no keywords: `keyword` is Python's alone)."""
    given = arguments_of(site)
    if given is None or not rules:
        return
    constants = constants_of(site.module)
    for rule in rules:
        position = rule.get("position")
        if position is None or position > len(given):
            continue
        if any(a.kind() == "spread_element" for a in given[:position]):
            continue  # `f(...args)`: where the argument lands is not known
        node = given[position - 1]
        value = js_literal(node)
        if value is MISSING and node.kind() == "identifier":
            value = constants.get(node.text(), MISSING)
        if value is MISSING:
            continue
        where = f"argument {position}"
        allowed, refused = rule.get("one-of"), rule.get("not-one-of")
        if allowed is not None and value not in allowed:
            yield f"{where} is {value!r}, expected one of {', '.join(map(repr, allowed))}"
        elif refused is not None and value in refused:
            yield f"{where} is {value!r}, expected none of {', '.join(map(repr, refused))}"


def _rule_text(rule: Mapping[str, Any]) -> str:
    where = " or ".join(
        ([f"argument {rule['position']}"] if "position" in rule else [])
        + ([f"`{rule['keyword']}=`"] if "keyword" in rule else [])
    )
    if "one-of" in rule:
        return f"{where} is one of {', '.join(map(repr, rule['one-of']))}"
    if "not-one-of" in rule:
        return f"{where} is none of {', '.join(map(repr, rule['not-one-of']))}"
    return f"{where} is given"


def _bound_once(module: ParsedModule) -> dict[str, Any]:
    """Names the module binds exactly once, to a literal (`SALT_BYTES = 32`)."""
    values: dict[str, list[Any]] = {}
    for assign in module.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign):
        targets = (
            [t.target for t in assign.targets]
            if isinstance(assign, cst.Assign)
            else [assign.target]
        )
        value = (
            _literal(assign.value)
            if isinstance(assign, (cst.Assign, cst.AnnAssign)) and assign.value is not None
            else _MISSING
        )
        for target in targets:
            if isinstance(target, cst.Name):
                values.setdefault(target.value, []).append(value)
    return {k: v[0] for k, v in values.items() if len(v) == 1 and v[0] is not _MISSING}


def _literal(node: cst.BaseExpression) -> Any:
    """The value of a literal expression, or _MISSING."""
    if not isinstance(
        node, (cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation, cst.Name)
    ):
        return _MISSING
    if isinstance(node, cst.Name) and node.value not in ("True", "False", "None"):
        return _MISSING
    try:
        return ast.literal_eval(code_of(node).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _MISSING


def _argument(call: cst.Call, rule: Mapping[str, Any]) -> tuple[cst.BaseExpression, str] | None:
    """The call's argument a rule is about, and how it is named in a message: by
    keyword, else by position (None: left out, or passed through `*args`/`**kwargs`)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == rule.get("keyword"):
            return arg.value, f"`{arg.keyword.value}=`"
    positional = [a for a in call.args if a.keyword is None]
    position = rule.get("position")
    if position is None or any(a.star for a in positional[:position]):
        return None
    if position > len(positional):
        return None
    return positional[position - 1].value, f"argument {position}"


def _call_problems(wanted: str, site: _Site, rules: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """Why a call of `wanted` at `site` cannot do what is asked (nothing: it can)."""
    names, _, module, node = site
    if not isinstance(node, cst.Call):
        return  # a decorator: no arguments to judge
    callee = wanted if "." in wanted and wanted in names else None
    accepted = accepted_keywords(callee) if callee else None
    if accepted is not None:
        for arg in node.args:
            if arg.keyword is not None and not accepted.accepts(arg.keyword.value):
                yield (
                    f"passes `{arg.keyword.value}=`, a keyword `{wanted}` does not take "
                    "(the call raises TypeError)"
                )
    constants = _bound_once(module) if rules else {}
    for rule in rules:
        found = _argument(node, rule)
        if found is None:
            continue
        given, where = found
        value = _literal(given)
        if value is _MISSING and isinstance(given, cst.Name):
            value = constants.get(given.value, _MISSING)
        if value is _MISSING:
            continue  # computed: not judged
        allowed, refused = rule.get("one-of"), rule.get("not-one-of")
        if allowed is not None and value not in allowed:
            yield f"{where} is {value!r}, expected one of {', '.join(map(repr, allowed))}"
        elif refused is not None and value in refused:
            yield f"{where} is {value!r}, expected none of {', '.join(map(repr, refused))}"

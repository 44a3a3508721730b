"""The `context` check: code written into a given context keeps and uses its symbols."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import libcst as cst

from pytest_codeif.checks.base import (
    Check,
    CheckContext,
    Finding,
    Sample,
    Undecidable,
    dedented,
    listed,
)
from pytest_codeif.checks.shared.call_sites import call_sites
from pytest_codeif.checks.shared.js_context import (
    FRAGMENT_CLASS,
    js_definitions,
    js_uses,
    parse_js_option,
    read_as_members,
)
from pytest_codeif.checks.shared.option_code import parse_option_code
from pytest_codeif.code.js_tree import JsModule, JsSyntaxError
from pytest_codeif.code.languages import JS_FAMILY


def _params(node: cst.FunctionDef) -> list[str]:
    p = node.params
    names = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    if isinstance(p.star_arg, cst.Param):
        names.append("*" + p.star_arg.name.value)
    if p.star_kwarg is not None:
        names.append("**" + p.star_kwarg.name.value)
    return names


def top_level_signatures(tree: cst.Module) -> dict[str, list[str] | None]:
    """Top-level function name -> parameter names; class name (and `Class.method`) too
    (a class maps to None)."""
    found: dict[str, list[str] | None] = {}
    for statement in tree.body:
        if isinstance(statement, cst.FunctionDef):
            found[statement.name.value] = _params(statement)
        elif isinstance(statement, cst.ClassDef):
            found[statement.name.value] = None
            for item in statement.body.body:
                if isinstance(item, cst.FunctionDef):
                    found[f"{statement.name.value}.{item.name.value}"] = _params(item)
    return found


_RULE = "context"
#: Longest parameter shown in a message.
_PARAM = 40


def _python_form(node: cst.CSTNode) -> str:
    """A Python definition's code as Python's `ast` reads it: the same whatever its
    layout and comments (a copy of a given function is the given one repeated)."""
    code = textwrap.dedent(cst.Module([]).code_for_node(node))
    try:
        return ast.dump(ast.parse(code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""


def python_forms(tree: cst.Module) -> dict[str, str]:
    """Top-level function name (and `Class.method`) -> its `_python_form`."""
    found: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, cst.FunctionDef):
            found[statement.name.value] = _python_form(statement)
        elif isinstance(statement, cst.ClassDef):
            for item in statement.body.body:
                if isinstance(item, cst.FunctionDef):
                    found[f"{statement.name.value}.{item.name.value}"] = _python_form(item)
    return found


def _used_names(ctx: CheckContext) -> set[str]:
    """What the code calls: plain names (`read`, `Graph`) and, as `.name`, methods
    (`graph.get_neighbors(...)` gives `.get_neighbors`)."""
    used: set[str] = set()
    for module in ctx.modules():
        for _, method, node in call_sites(module, module.tree):
            if method:
                used.add(f".{method}")
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                used.add(node.func.value)
            elif isinstance(node, cst.Decorator) and isinstance(node.decorator, cst.Name):
                used.add(node.decorator.value)
    return used


def _is_used(symbol: str, used: set[str]) -> bool:
    head, _, method = symbol.rpartition(".")
    return f".{method}" in used if head else symbol in used


Params = list[str] | None


@dataclass(frozen=True)
class _Given:
    """The context read in one language: its symbols (name -> parameters; None for a
    class, or a name listed in `symbols` alone) and its classes' fields (JS/TS)."""

    symbols: dict[str, Params]
    fields: frozenset[str] = frozenset()
    #: Each function's code, layout and comments aside (see `_Defined.form`).
    forms: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Defined:
    """A symbol the code defines: its parameters, file and line, and its code with
    layout and comments aside ("": not read), to tell a copy of the given function
    (the context repeated) from one written anew."""

    params: Params
    path: str
    line: int
    form: str = ""


@dataclass
class _Code:
    """The code read against the context: the context's symbols and fields in the code's
    languages, what the code defines and what it uses."""

    symbols: dict[str, Params] = field(default_factory=dict)
    fields: set[str] = field(default_factory=set)
    forms: dict[str, str] = field(default_factory=dict)
    defined: dict[str, _Defined] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    path: str | None = None


def _js_files(ctx: CheckContext) -> list[tuple[JsModule, bool]]:
    """The JS/TS modules in scope, each with whether it is class members alone (a method
    written for a class of the context, read as such: `js_context.read_as_members`);
    a file that reads neither way keeps its syntax error."""
    try:
        return [(module, False) for module in ctx.js_modules()]
    except Undecidable as exc:
        if exc.kind != "syntax-error":
            raise
        error = exc
    read: list[tuple[JsModule, bool]] = []
    for source in ctx.unit.files:
        if source.language not in JS_FAMILY or not ctx.in_scope(source.relpath):
            continue
        try:
            read.append((JsModule(source), False))
        except JsSyntaxError:
            members = read_as_members(source)
            if members is None:
                raise error from None
            read.append((members, True))
    return read


def _shown(params: list[str]) -> str:
    """Parameters for a message, each cut short (a destructured one may be long)."""
    return ", ".join(p if len(p) <= _PARAM else p[: _PARAM - 3] + "..." for p in params)


def _fragment_member(name: str, params: Params, symbols: Mapping[str, Params]) -> list[str]:
    """The context's symbols a member written alone (`name`, a method) may be: the
    methods of that name of the context's classes, those with the same parameters when
    there are some."""
    same_name = [s for s in symbols if "." in s and s.rpartition(".")[2] == name]
    same_params = [s for s in same_name if symbols[s] == params]
    return same_params or same_name


class ContextCheck(Check):
    """Code written into a given context keeps the context's interface and reuses it.

    Why: "complete this module" or "build on these helpers" is not met by code that
    breaks or ignores what it was given. The code is read as an addition to the context
    (a response may repeat the context or give only its new part). Two modes:
    `preserve` (default): every symbol of the context (its top-level functions, classes
    and their methods, or the listed `symbols`) that the code defines again keeps its
    parameters, and the code defines or calls at least one of them; `reuse`: every
    listed symbol is called (or used as a decorator) by the code and not defined again
    in it, so the code relies on the given implementation instead of writing its own
    (a copy of the given definition, layout and comments aside, is the context
    repeated, not a definition of its own).

    JavaScript and TypeScript: the context is read in the code's language
    (`checks/shared/js_context.py`): functions (declared, or a `const` bound to a
    function or an arrow function, exported or not, `exports.f = ...`), classes with
    their methods (`Class.method`, `constructor` and static methods included, a field
    bound to a function such as a React handler, `Class.prototype.m = function ...`),
    and the parameters of each as written (`...rest`, a destructured one as written; a
    TypeScript annotation is no part of a parameter's name). Using the context is
    calling its functions (`f()`, `new Graph()`, `extends Graph`), calling or reading
    its methods (`this.findById(id)`, `onClick={this.add}`), or reading its classes'
    fields (`this.items`). Code that is class members alone (`removeItem(name) {...}`,
    the method a prompt asked for, written to go inside a class of the context) is read
    as members of the context's class that has methods of those names, so a method
    given again keeps its parameters. A context that does not parse in the code's
    language is a task error at `context`.

    Options: `context` (the given code: Python, JavaScript or TypeScript source),
    `symbols` (names, `Class.method` allowed; required without `context`), `mode`
    (`preserve` or `reuse`).

    Example:

        - check: context
          mode: reuse
          symbols: [read_file, clean_text]
    """

    name = "context"
    category = "Code Context"
    languages = frozenset({"python", "javascript", "typescript"})
    # Class members alone (a method for a given class) parse only inside a class: the
    # check reads them so, and keeps the syntax error of code that reads neither way.
    reads_js_fragments = True
    advice = (
        "Build on the given code: keep the parameters of every function and method you define "
        "again, and call the given functions instead of writing your own versions of them."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [{"required": ["context"]}, {"required": ["symbols"]}],
        "properties": {
            "context": {"type": "string", "minLength": 1},
            "symbols": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[A-Za-z_$][\\w.$]*$"},
                "minItems": 1,
            },
            "mode": {"enum": ["preserve", "reuse"]},
        },
        "additionalProperties": False,
    }
    _CART = dedented(
        """
        class Cart {
          constructor() {
            this.items = [];
          }

          addItem(item, quantity) {
            this.items.push({ item, quantity });
          }
        }
        """
    )
    satisfied_by = (
        Sample(
            "def read(path):\n    return open(path).read()\n\n"
            "def words(path):\n    return read(path).split()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def walk(graph, start):\n    return list(graph.get_neighbors(start))\n",
            {"context": "class Graph:\n    def get_neighbors(self, node):\n        return []\n"},
        ),
        Sample(
            "from helpers import clean\n\ndef run(text):\n    return clean(text)\n",
            {"symbols": ["clean"], "mode": "reuse"},
        ),
        # The method asked for, written alone: a member of the context's class.
        Sample(
            """
            removeItem(name) {
              this.items = this.items.filter(({ item }) => item.name !== name);
            }
            """,
            {"context": _CART},
            language="javascript",
        ),
        Sample(
            """
            class Cart {
              constructor() {
                this.items = [];
              }

              addItem(item, quantity) {
                this.items.push({ item, quantity });
              }

              addAll(entries) {
                entries.forEach(([item, quantity]) => this.addItem(item, quantity));
              }
            }
            """,
            {"context": _CART},
            language="javascript",
        ),
        Sample(
            """
            import { readText } from "./files";

            export const countWords = (path: string): number => readText(path).split(" ").length;
            """,
            {"symbols": ["readText"], "mode": "reuse"},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            "def read(filename, mode):\n    return open(filename, mode).read()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def words(path):\n    return open(path).read().split()\n",
            {"context": "def read(path):\n    return open(path).read()\n"},
        ),
        Sample(
            "def clean(text):\n    return text.strip()\n\ndef run(text):\n    return clean(text)\n",
            {"symbols": ["clean"], "mode": "reuse"},
        ),
        Sample(
            "def run(text):\n    return text.strip()\n", {"symbols": ["clean"], "mode": "reuse"}
        ),
        Sample(
            """
            class Cart {
              constructor(owner) {
                this.owner = owner;
                this.items = [];
              }
            }
            """,
            {"context": _CART},
            language="javascript",
            message="`Cart.constructor` takes (owner) instead of the context's ()",
            line=2,
        ),
        Sample(
            """
            function total(prices) {
              return prices.reduce((sum, price) => sum + price, 0);
            }
            """,
            {"context": _CART},
            language="javascript",
            message="neither defines nor uses anything of the context",
            line=1,
        ),
        Sample(
            """
            const readText = (path: string): string => "";

            export function countWords(path: string): number {
              return readText(path).split(" ").length;
            }
            """,
            {
                "context": 'export function readText(path: string): string {\n  return "";\n}\n',
                "mode": "reuse",
                "symbols": ["readText"],
            },
            language="typescript",
            message="`readText` is defined again instead of reused",
            line=1,
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        listed_symbols = options.get("symbols")
        #: The context read as Python and as JavaScript/TypeScript; None: it does not
        #: read so (`not_python`, `not_js` say why).
        self.python: _Given | None = None
        self.js: _Given | None = None
        self.not_python = self.not_js = ""
        if "context" not in options:
            self.python = self.js = _Given(dict.fromkeys(listed_symbols or ()))
        else:
            try:
                tree = parse_option_code(options["context"], "context")
                self.python = _Given(
                    self._listed(top_level_signatures(tree)), forms=python_forms(tree)
                )
            except ValueError as exc:
                self.not_python = str(exc)
            module = parse_js_option(options["context"], "context")
            if isinstance(module, str):
                self.not_js = f"`context` is not valid JavaScript or TypeScript ({module})"
            else:
                found = js_definitions(module)
                signatures = {
                    n: None if d.params is None else list(d.params)
                    for n, d in found.symbols.items()
                }
                forms = {n: d.form for n, d in found.symbols.items()}
                self.js = _Given(self._listed(signatures), frozenset(found.fields), forms)
            if self.python is None and self.js is None:
                detail = self.not_js.removeprefix("`context` is not valid ")
                raise ValueError(f"{self.not_python}; nor {detail}")
        read = [g for g in (self.python, self.js) if g is not None]
        if not any(g.symbols for g in read):
            raise ValueError("`context` defines no function or class to keep")
        # The Python reading when there is one (the symbols advice and messages name).
        self.symbols: dict[str, Params] = (self.python or self.js or _Given({})).symbols

    def _listed(self, given: Mapping[str, Params]) -> dict[str, Params]:
        """The symbols to keep: those listed in `symbols`, else every one given."""
        listed_symbols = self.options.get("symbols")
        if listed_symbols:
            return {s: given.get(s) for s in listed_symbols}
        return dict(given)

    def advise(self) -> str:
        symbols = self.options.get("symbols")
        if self.options.get("mode") == "reuse" and symbols:
            return (
                f"Call {listed(symbols)} from the given code instead of defining them again; "
                "rely on the given implementation."
            )
        return self.advice

    def _given(self, given: _Given | None, language: str, why: str) -> _Given:
        """The context read in `language`, or a task error at `context` saying why not."""
        if given is None:
            raise Undecidable("invalid-task", why, key_path=("context",))
        if not given.symbols:
            raise Undecidable(
                "invalid-task",
                f"`context` defines no {language} function or class to keep",
                key_path=("context",),
            )
        return given

    def _read(self, ctx: CheckContext) -> _Code:
        """The code read against the context, in each language of the code that the
        context reads in (a project may hold both); a task error at `context` when it
        reads in none of them."""
        code = _Code()
        modules = ctx.modules()
        js = _js_files(ctx)
        python_read = self.python is not None and bool(self.python.symbols)
        js_read = self.js is not None and bool(self.js.symbols)
        if modules and js and (python_read or js_read):
            # Each language's files judged where the context reads in it, the others left.
            modules = modules if python_read else []
            js = js if js_read else []
        if modules:
            given = self._given(self.python, "Python", self.not_python)
            code.symbols.update(given.symbols)
            code.forms.update(given.forms)
            code.path = modules[0].relpath
            for module in modules:
                forms = python_forms(module.tree)
                for name, params in top_level_signatures(module.tree).items():
                    code.defined.setdefault(
                        name, _Defined(params, module.relpath, 1, forms.get(name, ""))
                    )
            code.used |= _used_names(ctx)
        if js:
            given = self._given(self.js, "JavaScript or TypeScript", self.not_js)
            code.symbols.update(given.symbols)
            code.fields |= given.fields
            code.forms.update(given.forms)
            code.path = code.path or js[0][0].relpath
            for js_module, members_alone in js:
                for name, found in js_definitions(js_module).symbols.items():
                    params = None if found.params is None else list(found.params)
                    owner, _, member = name.rpartition(".")
                    names = [name]
                    if members_alone:
                        if owner != FRAGMENT_CLASS:
                            continue  # the class read around the members: not the code's
                        names = _fragment_member(member, params, given.symbols)
                    for each in names:
                        code.defined.setdefault(
                            each, _Defined(params, js_module.relpath, found.line, found.form)
                        )
            code.used |= js_uses(module for module, _ in js)
        return code

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        code = self._read(ctx)
        if self.options.get("mode") == "reuse":
            return self._reuse(code)
        findings: list[Finding] = []
        for name, params in code.symbols.items():
            mine = code.defined.get(name)
            if params is not None and mine is not None and mine.params != params:
                findings.append(
                    Finding(
                        f"`{name}` takes ({_shown(mine.params or [])}) instead of the "
                        f"context's ({_shown(params)})",
                        _RULE,
                        mine.path,
                        mine.line,
                    )
                )
        kept = any(n in code.defined or _is_used(n, code.used) for n in code.symbols)
        if not kept and not any(_is_used(f, code.used) for f in code.fields):
            findings.append(
                Finding(
                    "the code neither defines nor uses anything of the context "
                    f"({', '.join(list(code.symbols)[:5])})",
                    _RULE,
                    code.path,
                    1,
                )
            )
        return findings

    def _reuse(self, code: _Code) -> list[Finding]:
        findings: list[Finding] = []
        for name in code.symbols:
            mine = code.defined.get(name)
            if mine is not None and not (mine.form and mine.form == code.forms.get(name)):
                findings.append(
                    Finding(
                        f"`{name}` is defined again instead of reused", _RULE, mine.path, mine.line
                    )
                )
            elif not _is_used(name, code.used):
                findings.append(Finding(f"`{name}` is never used", _RULE, code.path, 1))
        return findings

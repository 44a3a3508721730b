"""The `pattern` check: a team rule written as Python code with metavariables."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.pattern.examples import EXAMPLES_SCHEMA, RuleExamples
from pytest_codeif.checks.pattern.js import JsRule, compile_js_rule
from pytest_codeif.checks.pattern.match import (
    ANONYMOUS,
    ANONYMOUS_RUN,
    MAX_PATTERN_LENGTH,
    Bindings,
    Budget,
    BudgetExceeded,
    Matcher,
    Pattern,
    compile_pattern,
)
from pytest_codeif.checks.shared.structure import code_of
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.code.languages import JS_FAMILY
from pytest_codeif.safe_regex import SafePattern, SubjectTooLong
from pytest_codeif.safe_regex import compile_pattern as compile_regex

#: Matching steps allowed per constraint (a step is about 4 µs): a base and more for each
#: node of the code, and at most PLACE_STEPS at any one place. Real rules take a few
#: steps per node; the bounds stop patterns whose `...` would try combinations without
#: end against hostile code (`f(..., $A, ..., $A, ...)` on a call with 10,000 arguments).
BASE_STEPS: Final = 500_000
STEPS_PER_NODE: Final = 20
PLACE_STEPS: Final = 250_000
_SNIPPET: Final = 80
_MAX_PATTERNS: Final = 50

_PATTERN: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_PATTERN_LENGTH,
    "description": "Python code with metavariables ($X, $...ARGS) and `...`.",
}
_ONE_OR_MORE: Final = {
    "type": ["string", "array"],
    "minLength": 1,
    "maxLength": MAX_PATTERN_LENGTH,
    "items": _PATTERN,
    "minItems": 1,
    "maxItems": _MAX_PATTERNS,
}
_NAMES: Final = {
    "type": "array",
    "items": {"type": "string", "pattern": r"^[A-Za-z_][\w.]*(\.\*)?$"},
    "minItems": 1,
}
_REGEX: Final = {"type": "string", "minLength": 1}
_CONDITION: Final = {
    "type": "object",
    "minProperties": 1,
    "properties": {
        "regex": _REGEX,
        "not-regex": _REGEX,
        "qualified": _NAMES,
        "not-qualified": _NAMES,
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Condition:
    """What the code a metavariable matched must be (`where`)."""

    regex: SafePattern | None = None
    not_regex: SafePattern | None = None
    qualified: tuple[str, ...] = ()
    not_qualified: tuple[str, ...] = ()


@dataclass(frozen=True)
class Match:
    """Code a rule matched: its node in its module, and the pattern (of `any`) that did."""

    module: ParsedModule
    node: cst.CSTNode
    pattern: Pattern


class PatternCheck(Check):
    """Code matching a pattern (Python with metavariables) is not there.

    Why: most team rules are "never write this": no `print()` in library code, no
    exception swallowed, no SQL built with an f-string, no `requests` call without a
    timeout. A pattern states such a rule as the code it forbids, so it needs no Python
    class; each match is a violation, reported at its line with the code it matched.

    A pattern is Python: an expression, one or more statements (consecutive, in any
    block), or an `except` clause. It is matched on the syntax tree, so layout,
    comments, parentheses and quote style do not matter, and dotted names resolve
    through imports: `subprocess.run(...)` also matches `sp.run(...)` after `import
    subprocess as sp` and `run(...)` after `from subprocess import run`, and `print`
    matches `echo` after `from builtins import print as echo`.

    - `$X` (upper case) matches any one expression or name; the same metavariable twice
      must match the same code; `$_` matches anything and binds nothing.
    - `...` matches any run of arguments, parameters, elements or statements
      (`f(...)`, `f($X, ...)`, `def $F(...): ...`, `except Exception: ...`) and any
      expression where one stands (`x = ...`); `$...ARGS` is a run bound to a name.
    - Keyword arguments match in any order; with `...` among the arguments, other
      arguments may be there too (`subprocess.$F(..., shell=True, ...)`).
    - `"..."` matches any string literal, `b"..."` any bytes literal, `f"..."` any
      f-string, `"$X"` binds one; strings compare by value and numbers by value (`0x10`
      is `16`); `x[a,]` indexes with a tuple, `x[a]` does not.
    - A block holds exactly the statements written: `except Exception: pass` is an
      empty handler, not any handler starting with `pass`.
    - Parts a pattern leaves out may be there: decorators, annotations, defaults and
      return types, a class's bases and keywords, type parameters, `else` and
      `finally`, an `except`'s or `with`'s `as` name, an import's `as`, `assert`'s
      message, `raise`'s `from`; `def`, `for`, `with` and a comprehension's `for` also
      match their `async` forms (write `async` for those only). Parts a pattern writes
      are compared: `*args` and `**kwargs` are no plain parameters, `f"{x=}"` is not
      `f"{x}"`, `global $X` is no `nonlocal`.
    - A parameter list's `/` and bare `*` count where the pattern writes them:
      `def $F(*, ...): ...` matches only functions whose parameters are all
      keyword-only, `def $F(..., *, ...): ...` those with some, `def $F(..., /, ...): ...`
      those with positional-only ones (`*args` is no bare `*`); a pattern without them
      matches whatever kinds the parameters are (`def $F($X, $Y): ...` matches
      `def f(a, *, b)`). Lambdas alike.

    Options: `pattern` (one pattern) or `any` (a list; a match of any one counts);
    `not` (a pattern or list: a match is dropped when one of these matches the same
    code too, with the metavariables bound so far); `inside` / `not-inside` (a pattern
    or list: a match counts only within code matching every `inside` pattern and no
    `not-inside` one, e.g. `async def $F(...): ...`, `with $X: ...`,
    `if __name__ == "__main__": ...`; their metavariables join the match's); `where`
    (metavariable to conditions on the code it matched: `regex` / `not-regex`, searched
    in its source text, so anchor with `^...$`; `qualified` / `not-qualified`, dotted
    names it must (not) resolve to through imports, `pkg.*` for anything below `pkg`);
    `examples` (`match`: modules the rule must match, `no-match`: modules it must not;
    `codeif check-samples` verifies them and names the example that misbehaves, and
    `codeif pattern 'PATTERN' FILE...` shows what a pattern matches).
    Patterns, regexes and `where` names are checked when the task file is read: a
    pattern that is not Python, a misspelt option or a `where` on a metavariable that
    no pattern binds is an error at its line, never a rule that silently matches
    nothing. The scope keys (`files`, `exclude-files`, `modules`, `exclude-modules`)
    choose the files a rule is about; the constraint's `message` says what to do
    instead. Not modelled: data flow (in `sql = f"..."; cur.execute(sql)` the call's
    argument is no f-string) and the types of objects.

    JavaScript and TypeScript: ast-grep's own pattern language (`checks/pattern/js.py`):
    JS/TS code where `$X` matches one node, `$$$ARGS` any run of nodes (ast-grep's
    `...`), `$_` anything; `not`, `inside`, `not-inside` and `where` regexes as above
    (`qualified` is Python's alone for now). `language: javascript` or `typescript`
    makes a rule the language's alone (its patterns read with its grammar, Python files
    left alone; a scope with no file of it is an error); without `language`, a rule is
    Python's, refused when it is not Python, and read too as JavaScript/TypeScript where
    its patterns parse so (`eval($X)` is both), each file judged by its own language's
    form; a JS/TS file meeting a rule whose patterns are not JS/TS is an error, never a
    pass. A pattern ast-grep cannot parse is an error at its option when the task file
    is read.

    Example:

        - check: pattern
          id: no-console
          language: javascript
          pattern: console.log($$$ARGS)
          not-inside: "if (require.main === module) { $$$ }"

        - check: pattern
          id: requests-timeout
          pattern: requests.$METHOD(...)
          where:
            $METHOD: {regex: "^(get|post|put|patch|delete|head|request)$"}
          not:
            - requests.$METHOD(..., timeout=$T, ...)
            - requests.$METHOD(..., **$KWARGS)
          message: Pass timeout= to every requests call.
          examples:
            match: ["requests.get(url)"]
            no-match: ["requests.get(url, timeout=5)"]
    """

    name = "pattern"
    category = "Code Quality"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Remove or rewrite the code the rule's pattern matches (each finding shows the code it "
        "matched): the rule forbids that construction."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "oneOf": [{"required": ["pattern"]}, {"required": ["any"]}],
        "x-message": "give exactly one of `pattern` or `any`",
        "properties": {
            "pattern": _PATTERN,
            "any": {"type": "array", "items": _PATTERN, "minItems": 1, "maxItems": _MAX_PATTERNS},
            "not": _ONE_OR_MORE,
            "inside": _ONE_OR_MORE,
            "not-inside": _ONE_OR_MORE,
            "examples": EXAMPLES_SCHEMA,
            "language": {"enum": ["python", "javascript", "typescript"]},
            "where": {
                "type": "object",
                "propertyNames": {
                    "pattern": r"^\$(\.\.\.|\$\$)?[A-Z_][A-Z0-9_]*$",
                    "x-message": (
                        "a `where` key is a metavariable such as $X, $...ARGS (Python) or "
                        "$$$ARGS (JavaScript)"
                    ),
                },
                "additionalProperties": _CONDITION,
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            function greet(name) {
              logger.info("hello", name);
            }
            if (require.main === module) {
              console.log("done");
            }
            """,
            {
                "pattern": "console.log($$$ARGS)",
                "not-inside": "if (require.main === module) { $$$ }",
                "language": "javascript",
            },
            language="javascript",
        ),
        Sample(
            """
            const rows = await db.query("SELECT * FROM users WHERE id = $1", [id]);
            """,
            {
                "any": ["$DB.$RUN($SQL)", "$DB.$RUN($SQL, $$$REST)"],
                "where": {"$RUN": {"regex": "^(query|execute)$"}, "$SQL": {"regex": "^`"}},
                "language": "typescript",
            },
            language="typescript",
        ),
        Sample(
            """
            import logging

            def greet(name):
                logging.getLogger(__name__).info("hello %s", name)

            if __name__ == "__main__":
                print("done")
            """,
            {"pattern": "print(...)", "not-inside": 'if __name__ == "__main__": ...'},
        ),
        Sample(
            """
            try:
                import ujson as json
            except ImportError:
                import json

            def load(text):
                try:
                    return json.loads(text)
                except ValueError as exc:
                    raise ValueError(f"bad input: {exc}") from exc
            """,
            {"any": ["except: pass", "except Exception: pass", "except BaseException: pass"]},
        ),
        Sample(
            """
            def find(conn, name):
                cur = conn.cursor()
                cur.execute("SELECT * FROM users WHERE name = ?", (name,))
                log.info(f"looked up {name}")
                return cur.fetchall()
            """,
            {
                "any": ['$CUR.$RUN(f"...", ...)', '$CUR.$RUN("..." % $ARGS, ...)'],
                "where": {"$RUN": {"regex": "^(execute|executemany|executescript)$"}},
            },
        ),
        Sample(
            """
            import requests

            def fetch(url, **options):
                first = requests.get(url, timeout=5)
                return first, requests.post(url, **options)
            """,
            {
                "pattern": "requests.$METHOD(...)",
                "where": {"$METHOD": {"regex": "^(get|post|put|patch|delete|head|request)$"}},
                "not": ["requests.$METHOD(..., timeout=$T, ...)", "requests.$METHOD(..., **$KW)"],
            },
        ),
        Sample(
            """
            import asyncio
            import time

            async def poll():
                await asyncio.sleep(1)

            def wait():
                time.sleep(1)
            """,
            {"pattern": "time.sleep(...)", "inside": "async def $F(...): ..."},
        ),
        Sample(
            """
            import subprocess

            subprocess.run(["ls", "-l"], check=True)
            subprocess.run("ls", shell=False)
            """,
            {"any": ["subprocess.$FUNC(..., shell=True, ...)", "os.system(...)"]},
        ),
    )
    violated_by = (
        Sample(
            """
            function greet(name) {
              console.log("hello", name);
            }
            """,
            {
                "pattern": "console.log($$$ARGS)",
                "not-inside": "if (require.main === module) { $$$ }",
                "language": "javascript",
            },
            language="javascript",
            message='`console.log("hello", name)` matches the pattern `console.log($$$ARGS)`',
            line=2,
        ),
        Sample(
            """
            export async function find(id: string) {
              return db.query(`SELECT * FROM users WHERE id = ${id}`);
            }
            """,
            {
                "any": ["$DB.$RUN($SQL)", "$DB.$RUN($SQL, $$$REST)"],
                "where": {"$RUN": {"regex": "^(query|execute)$"}, "$SQL": {"regex": "^`"}},
                "language": "typescript",
            },
            language="typescript",
            message="matches the pattern `$DB.$RUN($SQL)`",
            line=2,
        ),
        Sample(
            "const run = (input) => eval(input);\n",
            {"pattern": "eval($X)"},
            language="javascript",
            message="`eval(input)` matches the pattern `eval($X)`",
            line=1,
        ),
        Sample(
            """
            def greet(name):
                print("hello", name)
            """,
            {"pattern": "print(...)", "not-inside": 'if __name__ == "__main__": ...'},
            message='`print("hello", name)` matches the pattern `print(...)`',
        ),
        Sample(
            """
            from builtins import print as echo

            echo("hi")
            """,
            {"pattern": "print(...)"},
            message='`echo("hi")` matches',
        ),
        Sample(
            """
            def load(text):
                try:
                    return parse(text)
                except Exception as exc:  # the reason is lost
                    pass
            """,
            {"any": ["except: pass", "except Exception: pass", "except BaseException: pass"]},
            message="`except Exception as exc: pass` matches the pattern `except Exception: pass`",
            line=4,
        ),
        Sample(
            """
            def find(conn, name):
                cursor = conn.cursor()
                cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
                return cursor.fetchall()
            """,
            {
                "any": ['$CUR.$RUN(f"...", ...)', '$CUR.$RUN("..." % $ARGS, ...)'],
                "where": {"$RUN": {"regex": "^(execute|executemany|executescript)$"}},
            },
            message="`cursor.execute(f\"SELECT * FROM users WHERE name = '{name}'\")` matches",
        ),
        Sample(
            """
            from requests import get

            def fetch(url):
                return get(url, headers={"Accept": "text/plain"})
            """,
            {
                "pattern": "requests.$METHOD(...)",
                "where": {"$METHOD": {"regex": "^(get|post|put|patch|delete|head|request)$"}},
                "not": ["requests.$METHOD(..., timeout=$T, ...)", "requests.$METHOD(..., **$KW)"],
            },
            message='`get(url, headers={"Accept": "text/plain"})` matches the pattern '
            "`requests.$METHOD(...)`",
        ),
        Sample(
            """
            import time

            class Poller:
                async def poll(self):
                    time.sleep(1)
            """,
            {"pattern": "time.sleep(...)", "inside": "async def $F(...): ..."},
            message="`time.sleep(1)` matches",
            line=5,
        ),
        Sample(
            """
            import subprocess as sp

            def list_dir(path):
                return sp.check_output("ls " + path, text=True, shell=True)
            """,
            {"any": ["subprocess.$FUNC(..., shell=True, ...)", "os.system(...)"]},
            message="matches the pattern `subprocess.$FUNC(..., shell=True, ...)`",
            line=4,
        ),
        Sample(
            """
            def total(prices):
                return sum(prices) + sum(prices)
            """,
            {"pattern": "$X + $X", "where": {"$X": {"qualified": ["sum"]}}},
            message="`sum(prices) + sum(prices)` matches the pattern `$X + $X`",
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        if ("pattern" in options) == ("any" in options):
            raise ValueError("give exactly one of `pattern` or `any`")
        language = options.get("language")
        #: The rule for JS/TS files (ast-grep's patterns); None when it has none.
        self.js_rule: JsRule | None = None
        #: Why the rule has no Python form (None: it has one, or it is JS/TS's alone).
        self.not_python: str | None = None
        #: Why the rule has no JS/TS form (None: it has one, or it is Python's alone).
        self.not_js: str | None = None
        self.patterns: tuple[Pattern, ...] = ()
        self.excluded: tuple[Pattern, ...] = ()
        self.inside: tuple[Pattern, ...] = ()
        self.not_inside: tuple[Pattern, ...] = ()
        self.where: dict[str, Condition] = {}
        #: Code the rule must match and code it must not (`codeif check-samples`).
        self.examples = RuleExamples.of(options)
        if language in JS_FAMILY:
            self.js_rule = compile_js_rule(options, language)
            return
        if language == "python":
            self._compile_python(options)
            return
        # No language: a Python rule, refused as one when it is not Python; read too as
        # JavaScript/TypeScript where its patterns parse so (`eval($X)`), each file
        # judged by its own language's form.
        try:
            self._compile_python(options)
        except ValueError as exc:
            hint = ""
            try:
                compile_js_rule(options, None)
                hint = " (for a JavaScript or TypeScript rule, say `language: javascript`)"
            except ValueError:
                pass
            raise ValueError(f"{exc}{hint}") from None
        try:
            self.js_rule = compile_js_rule(options, None)
        except ValueError as exc:
            self.not_js = str(exc)

    @property
    def example_language(self) -> str | None:
        """The language the rule's `examples` are written in (None: Python)."""
        language = self.options.get("language")
        if language in JS_FAMILY:
            return str(language)
        return None

    def _compile_python(self, options: Mapping[str, Any]) -> None:
        key = "pattern" if "pattern" in options else "any"
        self.patterns = _compile_all(options[key], key)
        self._labels = (
            [f"`{key}`"]
            if key == "pattern"
            else [f"`any[{index}]`" for index in range(len(self.patterns))]
        )
        self.excluded = _single(_compile_all(options.get("not", ()), "not"))
        self.inside = _single(_compile_all(options.get("inside", ()), "inside"))
        self.not_inside = _single(_compile_all(options.get("not-inside", ()), "not-inside"))
        self.where = {name: _condition(name, raw) for name, raw in options.get("where", {}).items()}
        self._check_where()
        self._check_not()

    def _check_where(self) -> None:
        """Each `where` metavariable is bound wherever a match can come from."""
        from_inside = {name for p in self.inside for name in p.metavariables}
        for name, condition in self.where.items():
            if name in (ANONYMOUS, ANONYMOUS_RUN):
                raise ValueError(f"where: `{name}` binds nothing, so it cannot be tested")
            if name.startswith("$...") and (condition.qualified or condition.not_qualified):
                raise ValueError(
                    f"where.{name}: `qualified` tests one name; `{name}` is a run of items"
                )
            if name in from_inside:
                continue
            for label, pattern in zip(self._labels, self.patterns, strict=True):
                if name not in pattern.metavariables:
                    bound = ", ".join(sorted(pattern.metavariables)) or "none"
                    raise ValueError(
                        f"where: `{name}` is not a metavariable of {label} "
                        f"(`{pattern.one_line}`) nor of an `inside` pattern; its "
                        f"metavariables: {bound}"
                    )

    def _check_not(self) -> None:
        """A `not` pattern whose root can never be where a match starts is a mistake."""
        starts = [p.root_types for p in self.patterns]
        if any(types is None for types in starts):
            return
        possible = {t for types in starts if types is not None for t in types}
        for index, excluded in enumerate(self.excluded):
            types = excluded.root_types
            if types is not None and not possible.intersection(types):
                shown = ", ".join(sorted(t.__name__ for t in possible))
                raise ValueError(
                    f"not[{index}]: `{excluded.one_line}` ({types[0].__name__}) can never "
                    f"match where a match starts ({shown}): a `not` pattern is matched at "
                    "the same code as the match"
                )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        # Every match is a finding: the gate sorts them by changed code and baseline, and
        # a summary finding in their place could be absorbed while a new match hid in it.
        language = self.options.get("language")
        python = [] if language in JS_FAMILY else ctx.modules()
        js = [] if language == "python" else ctx.js_modules()
        if language is not None and not python and not js:
            raise Undecidable(
                "invalid-task",
                f"the rule is for {language} code, and the constraint's scope holds none",
                key_path=("language",),
            )
        if python and self.not_python is not None:
            raise Undecidable("invalid-task", f"for the Python code: {self.not_python}")
        if js and self.js_rule is None:
            raise Undecidable("invalid-task", f"for the JavaScript/TypeScript code: {self.not_js}")
        findings = [
            ctx.report(hit.module, hit.node, _describe(hit)) for hit in self.matches(python)
        ]
        if self.js_rule is not None:
            for module in js:
                for node, pattern in self.js_rule.matches(module):
                    span = node.range().start
                    message = f"`{module.snippet(node)}` matches the pattern `{_one_line(pattern)}`"
                    findings.append(
                        Finding(message, "pattern", module.relpath, span.line + 1, span.column + 1)
                    )
        return findings

    def matches(self, modules: Sequence[ParsedModule]) -> list[Match]:
        """Every match of the rule in `modules`, in order, each module's by position;
        `Undecidable` ("too-large") when matching would take too long."""
        budget = Budget(
            BASE_STEPS + STEPS_PER_NODE * sum(len(m.walk()) for m in modules), PLACE_STEPS
        )
        try:
            return [hit for module in modules for hit in _Search(self, module, budget).hits()]
        except BudgetExceeded as exc:
            raise Undecidable(
                "too-large",
                f"{exc} on this code; a pattern with fewer `...` between metavariables is "
                "matched faster",
            ) from None
        except SubjectTooLong as exc:
            raise Undecidable("too-large", f"a `where` regex: {exc}") from None
        except RecursionError:
            raise Undecidable("too-large", "the code is nested too deeply to match") from None


class _Search:
    """One module searched for one rule's matches."""

    def __init__(self, check: PatternCheck, module: ParsedModule, budget: Budget) -> None:
        self.check = check
        self.module = module
        self.matcher = Matcher(module, budget)
        self.budget = budget
        #: Per `inside` / `not-inside` pattern: node id -> bindings of each match around it.
        self._around: dict[tuple[str, int], dict[int, list[Bindings]]] = {}

    def hits(self) -> list[Match]:
        found: dict[int, Match] = {}
        for pattern in self.check.patterns:
            for node, alternatives in self.matcher.find(pattern):
                if id(node) not in found and any(self._accepts(node, b) for b in alternatives):
                    found[id(node)] = Match(self.module, node, pattern)
        positions = self.module.positions if found else {}
        return sorted(
            found.values(),
            key=lambda hit: (positions[hit.node].start.line, positions[hit.node].start.column),
        )

    def _accepts(self, node: cst.CSTNode, bindings: Bindings) -> bool:
        check = self.check
        for merged in self._inside(node, bindings, 0):
            if any(True for _ in self._around_with("not-inside", node, merged)):
                continue
            if not self._where_holds(merged):
                continue
            if any(
                True
                for excluded in check.excluded
                for _ in self.matcher.match(excluded.items[0], node, merged)
            ):
                continue
            return True
        return False

    def _inside(self, node: cst.CSTNode, bindings: Bindings, index: int) -> Iterator[Bindings]:
        if index == len(self.check.inside):
            yield bindings
            return
        for merged in self._around_with("inside", node, bindings, index):
            yield from self._inside(node, merged, index + 1)

    def _around_with(
        self, kind: str, node: cst.CSTNode, bindings: Bindings, only: int | None = None
    ) -> Iterator[Bindings]:
        """`bindings` merged with those of each match of the `kind` patterns (only
        pattern `only`, when given) around `node`, where they agree."""
        patterns = self.check.inside if kind == "inside" else self.check.not_inside
        for index, pattern in enumerate(patterns):
            if only is not None and index != only:
                continue
            for outer in self._table(kind, index, pattern).get(id(node), ()):
                merged = self._merge(bindings, outer)
                if merged is not None:
                    yield merged

    def _table(self, kind: str, index: int, pattern: Pattern) -> dict[int, list[Bindings]]:
        table = self._around.get((kind, index))
        if table is None:
            table = self._around[(kind, index)] = {}
            for outer, alternatives in self.matcher.find(pattern):
                found = list(alternatives)
                if found:
                    inner = self.module.walk(outer)
                    self.budget.spend(len(inner))
                    for node in inner:
                        table.setdefault(id(node), []).extend(found)
        return table

    def _merge(self, bindings: Bindings, outer: Bindings) -> Bindings | None:
        for name, bound in outer.items():
            mine = bindings.get(name)
            if mine is not None and not self.matcher.same(mine, bound):
                return None
        return {**outer, **bindings}

    def _where_holds(self, bindings: Bindings) -> bool:
        for name, condition in self.check.where.items():
            bound = bindings.get(name)
            if bound is None:
                return False
            nodes = bound if isinstance(bound, tuple) else (bound,)
            if condition.regex is not None or condition.not_regex is not None:
                text = ", ".join(code_of(n).strip().rstrip(",").strip() for n in nodes)
                if condition.regex is not None and not condition.regex.search(text):
                    return False
                if condition.not_regex is not None and condition.not_regex.search(text):
                    return False
            if isinstance(bound, tuple):
                continue
            if condition.qualified and not self.matcher.resolves_to(bound, condition.qualified):
                return False
            if condition.not_qualified and self.matcher.resolves_to(bound, condition.not_qualified):
                return False
        return True


def _compile_all(raw: str | Sequence[str], key: str) -> tuple[Pattern, ...]:
    """One pattern (a string) or several (a list), each error naming its key."""
    if isinstance(raw, str):
        return (compile_pattern(raw, key),)
    return tuple(compile_pattern(text, f"{key}[{index}]") for index, text in enumerate(raw))


def _single(patterns: tuple[Pattern, ...]) -> tuple[Pattern, ...]:
    for pattern in patterns:
        if pattern.is_sequence:
            raise ValueError(
                f"`{pattern.one_line}`: `not`, `inside` and `not-inside` take one expression "
                "or statement each, not a sequence of statements"
            )
    return patterns


def _condition(name: str, raw: Mapping[str, Any]) -> Condition:
    def regex(key: str) -> SafePattern | None:
        if key not in raw:
            return None
        try:
            return compile_regex(raw[key])
        except ValueError as exc:
            raise ValueError(f"where.{name}.{key}: {exc}") from None

    return Condition(
        regex("regex"),
        regex("not-regex"),
        tuple(raw.get("qualified", ())),
        tuple(raw.get("not-qualified", ())),
    )


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _describe(hit: Match) -> str:
    return f"`{_snippet(hit.node)}` matches the pattern `{hit.pattern.one_line}`"


def _snippet(node: cst.CSTNode) -> str:
    """The matched code on one line, comments left out, shortened."""
    try:
        text = _without_comments(code_of(node))
    except RecursionError:
        return "(code nested too deeply to show)"
    line = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return line if len(line) <= _SNIPPET else line[: _SNIPPET - 3] + "..."


def _without_comments(text: str) -> str:
    """`text` with its comments cut out (unchanged if it does not tokenize)."""
    lines = text.splitlines(keepends=True)
    try:
        comments = [
            t.start
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return text
    for row, column in comments:
        lines[row - 1] = lines[row - 1][:column].rstrip() + "\n"
    return "".join(lines)

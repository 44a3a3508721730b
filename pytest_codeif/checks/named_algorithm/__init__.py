"""The `named-algorithm` check: the code implements the algorithm an instruction names
(Miller-Rabin, FNV-1a, Kadane, merge sort, a B-tree...), recognised by its structure and,
where structure cannot tell, by the values its call cases returned.

The recognisers live beside it, one module per family of algorithms (`graphs.py`,
`sorts.py`, `hashing.py`...), on the parts in `recogniser.py` and `patterns.py`, gathered
in `catalogue.py`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, Undecidable
from pytest_codeif.checks.named_algorithm.catalogue import CATALOGUE, documentation, lookup, names
from pytest_codeif.checks.named_algorithm.js_catalogue import READERS, js_names, js_reader
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Judgement,
    Recogniser,
)
from pytest_codeif.checks.shared.js_algorithms_parts import JsCode
from pytest_codeif.checks.shared.js_functions import find_js_function, require_js_function
from pytest_codeif.checks.shared.structure import find_function, scopes
from pytest_codeif.code.js_tree import JsModule

_RULE = "named-algorithm"


class NamedAlgorithmCheck(Check):
    """The code implements a named algorithm, recognised by the parts that make it.

    Why: "use the Miller-Rabin test", "hash with FNV-1a", "solve it with Kadane's
    algorithm", "store it in a B-tree" name an algorithm, and models answer with a near
    miss that passes the functional tests: trial division called Miller-Rabin, FNV-1
    called FNV-1a, `sorted()` called merge sort, a linear scan called binary search, a
    binary search tree called a B-tree. Each algorithm of the catalogue is recognised by
    the structure that makes it (libcst), and the evidence says what was found or what is
    missing ("no pow(a, d, n) with a loop of witness rounds: looks like trial division").
    Where structure cannot tell, the values the task's call cases returned decide (run
    once in the sandbox, shared with the functional item; the check adds no calls of its
    own, so write cases that tell the algorithm from its near misses): Miller-Rabin is
    refuted when it calls a Carmichael number (561, 1105...) prime, where a Fermat test
    lies; FNV-1a and FNV-1 are told apart by the hashes returned.

    A library call that does the whole job (`bisect` for binary search, `math.gcd` for
    Euclid, `random.shuffle` for Fisher-Yates, `graphlib` for a topological sort,
    `functools.lru_cache(maxsize=N)` for an LRU cache, `queue.PriorityQueue` for a heap)
    counts only with `allow-library: true`: by default the instruction asked for the
    algorithm to be written. `sorted()` and `.sort()` never count as a named sort.

    Names: the catalogue below (option value, the other names instructions use, and what
    is looked for); `codeif import multicodeif` looks instructions' spellings up ("Kadane's
    Algorithm", "Miller-Rabin's method", "in-place shuffling").

    JavaScript and TypeScript: the algorithms listed after the catalogue are recognised
    by the same parts, read through ast-grep (`[a[j], a[j + 1]] = [a[j + 1], a[j]]`, a
    swap through a temporary or a `swap(a, i, j)` helper, `Math.max(x, cur + x)`, a
    hand-written priority queue's `dequeue()`, a Map's `get`), in functions, arrow
    functions and class methods alike. Asked of JS/TS code, any other algorithm of the
    catalogue is a task error naming it, never a verdict.

    Options: `name` (required, one of the catalogue's option values), `function` (only look inside
    this function), `allow-library` (accept the standard library's implementation).

    Example:

        - check: named-algorithm
          name: miller-rabin
          function: is_prime
    """

    name = "named-algorithm"
    category = "Algorithm"
    languages = frozenset({"python", "javascript", "typescript"})
    advice = (
        "Implement the named algorithm itself rather than a library call or a simpler "
        "stand-in; the evidence names the part that is missing."
    )
    observes_calls = True
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"enum": names()},
            "function": {"type": "string", "minLength": 1},
            "allow-library": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = tuple(
        Sample(
            example.code,
            {"name": name, **example.options},
            calls=example.calls,
            language=example.language,
        )
        for name, examples in (
            *((r.name, r.satisfied) for r in CATALOGUE),
            *((j.name, j.satisfied) for j in READERS),
        )
        for example in examples
    )
    violated_by = tuple(
        Sample(
            example.code,
            {"name": name, **example.options},
            calls=example.calls,
            message=example.message,
            language=example.language,
        )
        for name, examples in (
            *((r.name, r.violated) for r in CATALOGUE),
            *((j.name, j.violated) for j in READERS),
        )
        for example in examples
    )

    def advise(self) -> str:
        """The advice, naming the algorithm and the parts it is recognised by."""
        recogniser = lookup(str(self.options.get("name", "")))
        if recogniser is None:
            return self.advice
        return (
            f"Implement {recogniser.title} itself, not a library call or a simpler stand-in; "
            f"it is recognised by {recogniser.summary}."
        )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        recogniser = lookup(str(self.options["name"]))
        if recogniser is None:  # the schema lets only catalogue names through
            raise ValueError(f"unknown algorithm {self.options['name']!r}")
        function = self.options.get("function")
        subject = f"`{function}`" if function else "the code"
        python, js = ctx.modules(), ctx.js_modules()
        if js and (not python or (function and find_function(ctx, function) is None)):
            return self._evaluate_js(ctx, recogniser, js, subject)
        places = scopes(ctx, function, _RULE)
        if isinstance(places, Finding):
            return [places]
        code = Code(
            places,
            ctx.observed,
            ctx.probe,
            function=function,
            allow_library=bool(self.options.get("allow-library", False)),
        )
        try:
            judgement = recogniser.decide(code)
        except RecursionError:
            # libcst prints and compares trees recursively: code nested thousands deep.
            raise Undecidable(
                "too-large", f"the code is nested too deeply to recognise {recogniser.title}"
            ) from None
        if not judgement.found and js and not function and js_reader(recogniser.name):
            # Python and JS/TS together: the algorithm found in either language counts
            # (where it is read in JS/TS at all; the Python verdict stands otherwise).
            other = self._judge_js(recogniser, [(m, None) for m in js])
            if other.found:
                judgement = other
        if judgement.found:
            ctx.notes.append(f"{recogniser.title} found in {subject}: {judgement.evidence}")
            return []
        module, node = places[0]
        line = module.line_of(node) if function else 1
        return [
            self._finding(
                ctx, recogniser, judgement, subject=subject, path=module.relpath, line=line
            )
        ]

    def _judge_js(self, recogniser: Recogniser, places: list[tuple[JsModule, Any]]) -> Judgement:
        """The judgement of JS/TS `places`; a task error when the algorithm has no JS/TS
        reader yet."""
        reader = js_reader(recogniser.name)
        if reader is None:
            known = ", ".join(js_names())
            raise Undecidable(
                "invalid-task",
                f"`{recogniser.name}` ({recogniser.title}) is not recognised in JavaScript or "
                f"TypeScript code yet (these are: {known})",
                key_path=("name",),
            )
        code = JsCode(
            places,
            function=self.options.get("function"),
            allow_library=bool(self.options.get("allow-library", False)),
        )
        return reader.decide(code)

    def _evaluate_js(
        self, ctx: CheckContext, recogniser: Recogniser, js: list[JsModule], subject: str
    ) -> list[Finding]:
        """The check on JavaScript/TypeScript modules (the function, or every module)."""
        function = self.options.get("function")
        places: list[tuple[JsModule, Any]] = [(m, None) for m in js]
        line = 1
        if function:
            found = find_js_function(js, function)
            if found is None:
                missing = require_js_function(ctx, function, _RULE)
                return [missing] if isinstance(missing, Finding) else []
            places, line = [(found.module, found.node)], found.line
        judgement = self._judge_js(recogniser, places)
        if judgement.found:
            ctx.notes.append(f"{recogniser.title} found in {subject}: {judgement.evidence}")
            return []
        return [
            self._finding(
                ctx, recogniser, judgement, subject=subject, path=places[0][0].relpath, line=line
            )
        ]

    def _finding(
        self,
        ctx: CheckContext,
        recogniser: Recogniser,
        judgement: Judgement,
        *,
        subject: str,
        path: str,
        line: int,
    ) -> Finding:
        """The finding for a judgement: at the place it names, else at `path:line`."""
        message = f"{subject} does not implement {recogniser.title}: {judgement.evidence}"
        at = judgement.at
        if at is not None:
            if isinstance(at[0], JsModule):
                js_module, js_node = at
                return ctx.finding(message, path=js_module.relpath, line=js_module.line_of(js_node))
            module, node = at
            return ctx.report(module, node, message)
        return ctx.finding(message, path=path, line=line)


# The catalogue is part of the documentation, generated so that it cannot drift.
NamedAlgorithmCheck.__doc__ = (
    (NamedAlgorithmCheck.__doc__ or "")
    + documentation("    ")
    + "\n    Recognised in JavaScript and TypeScript too: "
    + ", ".join(f"`{name}`" for name in js_names())
    + ".\n"
)

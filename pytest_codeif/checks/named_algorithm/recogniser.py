"""What a recogniser of a named algorithm is: a name with aliases, a decision over the
code's structure (and, where structure cannot tell, over the values its call cases
returned), and samples proving both verdicts.

A recogniser never runs code: behaviour is read from `Code.observed`, the task's own call
cases run once in the sandbox by the engine, as plain data decoded in this process.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import libcst as cst

from pytest_codeif.checks.shared.js_algorithms_parts import JsPlace
from pytest_codeif.code.cst import ParsedModule
from pytest_codeif.functional.plain import decode
from pytest_codeif.outcome import CaseResult, Undecidable
from pytest_codeif.spec import CallCase

Place = tuple[ParsedModule, cst.CSTNode]
NodeT = TypeVar("NodeT", bound=cst.CSTNode)


@dataclass(frozen=True)
class Judgement:
    """A recogniser's verdict: `found`, and in either case what was seen (`evidence`,
    a sentence naming the parts found or missing) and where (`at`, if anywhere)."""

    found: bool
    evidence: str
    at: Place | JsPlace | None = None


def found(evidence: str, at: Place | JsPlace | None = None) -> Judgement:
    return Judgement(True, evidence, at)


def missing(evidence: str, at: Place | JsPlace | None = None) -> Judgement:
    return Judgement(False, evidence, at)


@dataclass(frozen=True)
class Example:
    """Code a recogniser must accept (in `satisfied`) or reject (in `violated`, with a
    text its evidence must contain). `calls` are call cases run for behaviour;
    `options` are extra options of the check (`allow-library`); `language` the code's
    (`javascript`, `typescript`; None: Python)."""

    code: str
    message: str | None = None
    calls: Sequence[Mapping[str, Any]] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    language: str | None = None


@dataclass(frozen=True)
class Observation:
    """One call case that returned: the function called, its arguments and the decoded
    value it returned."""

    function: str | None
    args: tuple[Any, ...]
    value: Any


class Code:
    """The code a recogniser judges: the places in scope (a function, or every module),
    what its call cases returned (read lazily: asking runs them), and the check's options."""

    def __init__(
        self,
        places: Sequence[Place],
        observe: Callable[[], list[tuple[CallCase, CaseResult]]],
        probe: Callable[[str, Sequence[tuple[Any, ...]]], list[CaseResult]],
        *,
        function: str | None = None,
        allow_library: bool = False,
    ) -> None:
        self.places = list(places)
        self._observe = observe
        self._probe = probe
        self.function = function
        self.allow_library = allow_library
        self._observed: list[Observation] | None = None

    def nodes(self, *types: type[cst.CSTNode]) -> list[Place]:
        """The nodes of these exact types in scope, depth first (source order)."""
        return [
            (module, node)
            for module, scope in self.places
            for node in module.nodes(*types, within=scope)
        ]

    def of(self, kind: type[NodeT]) -> list[tuple[ParsedModule, NodeT]]:
        """The nodes of one exact type in scope, typed as such."""
        return [(m, n) for m, n in self.nodes(kind) if isinstance(n, kind)]

    def functions(self) -> list[tuple[ParsedModule, cst.FunctionDef]]:
        """Every function and method in scope (the scoped function itself included)."""
        return self.of(cst.FunctionDef)

    def observed(self) -> list[Observation]:
        """The call cases of the task that returned a value (of the scoped function only,
        when there is one); empty when the task has none or they could not run."""
        if self._observed is None:
            try:
                pairs = self._observe()
            except Undecidable:
                pairs = []
            self._observed = [
                Observation(case.function, tuple(case.args), decode(result.value))
                for case, result in pairs
                if result.returned
                and case.args_known
                and not case.kwargs
                and (self.function is None or case.function == self.function)
            ]
        return self._observed

    def call(self, function: str, calls: Sequence[tuple[Any, ...]]) -> list[Any] | None:
        """What the code's top-level `function` returned on each argument tuple of
        `calls`, run in the sandbox (NO_VALUE where a call raised, crashed or timed out);
        None when the run could not be made (the probe was undecidable)."""
        try:
            results = self._probe(function, calls)
        except Undecidable:
            return None
        return [decode(r.value) if r.returned else NO_VALUE for r in results]


#: A probed call that returned nothing (it raised, crashed or timed out).
NO_VALUE: Final = object()


@dataclass(frozen=True)
class Recogniser:
    """One named algorithm: `name` (the option value), `title` (as prose names it),
    `aliases` (other names instructions use), `summary` (what the decision looks for,
    for the documentation), `decide`, and examples. `generic` are names of the technique
    in general ("in-place shuffling"), under which an importer also accepts the standard
    library's implementation (`allow-library`)."""

    name: str
    title: str
    summary: str
    decide: Callable[[Code], Judgement]
    aliases: tuple[str, ...] = ()
    satisfied: tuple[Example, ...] = ()
    violated: tuple[Example, ...] = ()
    generic: tuple[str, ...] = ()


def normalise(text: str) -> str:
    """A name as looked up: lower case, possessives, punctuation and filler words
    ("algorithm", "method", "using"...) dropped: "Kadane's Algorithm" -> "kadane"."""
    lowered = re.sub(r"['\u2019]s\b", "", text.lower())  # possessives, straight or curly
    words = re.findall(r"[a-z0-9]+", lowered)
    filler = {
        "algorithm",
        "algorithms",
        "method",
        "technique",
        "approach",
        "the",
        "a",
        "an",
        "using",
        "use",
        "with",
        "based",
        "implementation",
    }
    return " ".join(w for w in words if w not in filler)


def where(place: Place) -> str:
    """ "line N" of a place, for evidence."""
    module, node = place
    return f"line {module.line_of(node)}"

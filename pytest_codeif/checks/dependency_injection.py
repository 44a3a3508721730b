"""The `dependency-injection` check: a function or constructor receives a dependency typed
by an interface, and uses it instead of a value of its own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.structure import FunctionRef, code_of, functions, parameters
from pytest_codeif.code.cst import ParsedModule

_RULE = "dependency-injection"
#: Bases and metaclasses that make a class an interface.
_INTERFACE_BASES: Final = frozenset(
    {"abc.ABC", "typing.Protocol", "typing_extensions.Protocol", "abc.ABCMeta"}
)
_CALLABLES: Final = frozenset(
    {"typing.Callable", "collections.abc.Callable", "typing_extensions.Callable"}
)
_OPTIONAL: Final = frozenset({"typing.Optional", "typing.Union"})
#: A string annotation longer than this is not parsed (a type is short).
_LONGEST_REFERENCE: Final = 200
#: Functions listed in a violation's message, at most.
_LISTED: Final = 5


def _interfaces(module: ParsedModule) -> set[str]:
    """Names of the module's classes that are interfaces: derived from `abc.ABC` or
    `typing.Protocol`, made by `abc.ABCMeta`, or declaring an `abstractmethod`."""
    found: set[str] = set()
    for node in module.nodes(cst.ClassDef):
        declared = [module.qualified(b.value) for b in node.bases]
        declared += [module.qualified(k.value) for k in node.keywords if k.keyword]
        abstract = any(
            "abc.abstractmethod" in module.qualified(d.decorator)
            for f in module.nodes(cst.FunctionDef, within=node)
            for d in f.decorators
        )
        if abstract or any(names & _INTERFACE_BASES for names in declared):
            found.add(node.name.value)
    return found


def _interface_of(
    module: ParsedModule, annotation: cst.BaseExpression, interfaces: set[str]
) -> str | None:
    """What makes an annotation an interface ("an abstract class `X`", "a Callable"),
    or None; `Optional[X]` and `X | None` are read as X."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _interface_of(module, annotation.left, interfaces) or _interface_of(
            module, annotation.right, interfaces
        )
    if isinstance(annotation, cst.SimpleString):  # a forward reference: "Provider | None"
        text = annotation.evaluated_value
        if not isinstance(text, str) or len(text) > _LONGEST_REFERENCE:
            return None
        try:
            return _interface_of(module, cst.parse_expression(text), interfaces)
        except cst.ParserSyntaxError:
            return None
    base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    names = module.qualified(base)
    if names & _CALLABLES:
        return "a Callable"
    if isinstance(annotation, cst.Subscript) and names & _OPTIONAL:
        for element in annotation.slice:
            if isinstance(element.slice, cst.Index):
                found = _interface_of(module, element.slice.value, interfaces)
                if found:
                    return found
        return None
    name = base.attr.value if isinstance(base, cst.Attribute) else getattr(base, "value", None)
    if isinstance(name, str) and name in interfaces:
        return f"the interface `{name}`"
    return None


def _uses(module: ParsedModule, function: cst.FunctionDef, name: str) -> str | None:
    """How `function` uses its parameter `name`: a call of it, a method or attribute of
    it, or (a constructor) keeping it on `self` for the methods; None: unused."""
    for node in module.nodes(cst.Call, cst.Attribute, cst.Assign, within=function.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value == name:
                return f"calls `{name}(...)`"
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            if node.value.value == name:
                return f"uses `{code_of(node)}`"
        elif (
            isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Name)
            and node.value.value == name
        ):
            kept = [t.target for t in node.targets if isinstance(t.target, cst.Attribute)]
            if kept and function.name.value in ("__init__", "__post_init__"):
                return f"keeps it as `{code_of(kept[0])}`"
    return None


@dataclass(frozen=True)
class _Injected:
    """A parameter typed by an interface, and how its function uses it."""

    ref: FunctionRef
    param: str
    interface: str
    use: str | None


def _injected(module: ParsedModule, function: str | None) -> Iterator[_Injected]:
    interfaces = _interfaces(module)
    for ref in functions(module):
        if function is not None and function not in (ref.qualname, ref.node.name.value):
            continue
        for param in parameters(ref.node.params):
            if param.annotation is None or param.name.value in ("self", "cls"):
                continue
            interface = _interface_of(module, param.annotation.annotation, interfaces)
            if interface is not None:
                name = param.name.value
                yield _Injected(ref, name, interface, _uses(module, ref.node, name))


class DependencyInjectionCheck(Check):
    """A function or constructor receives a dependency typed by an interface and uses it.

    Why: "accept a tax-rate provider interface so the function can be unit-tested with
    mocked sources" asks for dependency injection: the code must take the collaborator
    from its caller, typed by what it promises rather than by one implementation, and
    work through it instead of a value or client of its own. An interface is, in
    Python's terms, an abstract class (derived from `abc.ABC`, made by `ABCMeta`, or
    declaring an `abstractmethod`), a `typing.Protocol`, or a `Callable`; the parameter
    may be optional (`Provider | None`). Used means the function calls it, calls or
    reads something of it (`provider.get_rate(region)`), or, in `__init__`, keeps it on
    the object for the methods. A parameter with no annotation, or typed by a concrete
    class, is no interface: a test could pass anything, but nothing says what.

    Options: `function` (only this function or method; by default any function or
    constructor of the code).

    Example:

        - check: dependency-injection
          function: calculate_tax
    """

    name = "dependency-injection"
    category = "Code Quality"
    advice = (
        "Take the collaborator as a parameter typed by an interface (an abstract base class, a "
        "typing.Protocol or a Callable) and call it, instead of computing or fetching the value "
        "inside the function: tests can then pass a stand-in."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {"function": {"type": "string", "minLength": 1}},
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            from abc import ABC, abstractmethod

            class RateSource(ABC):
                @abstractmethod
                def rate(self, region: str) -> float: ...

            def tax(amount: float, region: str, source: RateSource) -> float:
                return amount * source.rate(region)
            """
        ),
        Sample(
            """
            from typing import Protocol

            class Clock(Protocol):
                def now(self) -> float: ...

            class Timer:
                def __init__(self, clock: "Clock | None" = None):
                    self.clock = clock

                def elapsed(self, start):
                    return self.clock.now() - start
            """
        ),
        Sample(
            """
            from collections.abc import Callable

            def tax(amount: float, rate_of: Callable[[str], float], region: str) -> float:
                return amount * rate_of(region)
            """,
            {"function": "tax"},
        ),
    )
    violated_by = (
        Sample(
            """
            RATES = {"EU": 0.2}

            def tax(amount, region):
                return amount * RATES[region]
            """,
            message="no function or constructor takes a dependency typed by an interface",
        ),
        Sample(  # duck-typed: nothing says what the provider must offer
            """
            def tax(amount, provider):
                return amount * provider.rate()
            """,
            message="`tax(amount, provider)`",
        ),
        Sample(  # typed by an interface, but the rate is hard-coded anyway
            """
            from typing import Protocol

            class RateSource(Protocol):
                def rate(self) -> float: ...

            def tax(amount: float, source: RateSource) -> float:
                return amount * 0.2
            """,
            message="`tax` takes `source` (the interface `RateSource`) but never uses it",
        ),
    )

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        function = self.options.get("function")
        found = [i for m in ctx.modules() for i in _injected(m, function)]
        used = [i for i in found if i.use is not None]
        if used:
            first = used[0]
            ctx.notes.append(
                f"`{first.ref.qualname}` takes `{first.param}` ({first.interface}) and {first.use}"
            )
            return []
        if found:
            return [
                Finding(
                    f"`{i.ref.qualname}` takes `{i.param}` ({i.interface}) but never uses it; "
                    "work through it instead of a value of its own",
                    _RULE,
                    i.ref.module.relpath,
                    i.ref.line,
                )
                for i in found
            ]
        refs = [
            r
            for m in ctx.modules()
            for r in functions(m)
            if function is None or function in (r.qualname, r.node.name.value)
        ]
        shown = ", ".join(
            f"`{r.qualname}({', '.join(p.name.value for p in parameters(r.node.params))})`"
            for r in refs[:_LISTED]
        )
        first_module = ctx.modules()[0] if ctx.modules() else None
        return [
            Finding(
                "no function or constructor takes a dependency typed by an interface (an "
                "abstract class, a Protocol or a Callable) and uses it"
                + (f"; found {shown}" if shown else ""),
                _RULE,
                first_module.relpath if first_module else None,
                1,
            )
        ]

"""Hash recognisers: FNV-1a and FNV-1, told apart by the order of xor and multiply."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    Constants,
    constants,
    int_values,
    integers,
    shown,
)
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Example,
    Judgement,
    Observation,
    Place,
    Recogniser,
    found,
    missing,
    where,
)

#: Width -> (offset basis, prime), from the FNV specification.
FNV: Final = {
    32: (0x811C9DC5, 0x01000193),
    64: (0xCBF29CE484222325, 0x100000001B3),
    128: (0x6C62272E07BB014262B821756295C58D, 0x0000000001000000000000000000013B),
}
_PRIMES: Final = {prime: bits for bits, (_, prime) in FNV.items()}
_OFFSETS: Final = {offset: bits for bits, (offset, _) in FNV.items()}


@dataclass(frozen=True)
class _Step:
    """The xor and the multiply of one loop (or lambda) body, and which runs first."""

    region: Place
    xor: cst.CSTNode
    multiply: cst.CSTNode
    factor: int | None
    xor_first: bool


def _factor(node: cst.CSTNode, env: Constants) -> tuple[bool, set[int]]:
    """Whether `node` multiplies, and by which constants (empty: not a constant)."""
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.MultiplyAssign):
        return True, int_values(node.value, env)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return True, int_values(node.right, env) or int_values(node.left, env)
    return False, set()


def _pick(values: set[int]) -> int | None:
    """The FNV prime among a name's possible values, else its only value."""
    primes = sorted(values & set(_PRIMES))
    if primes:
        return primes[0]
    return next(iter(values)) if len(values) == 1 else None


def _xors(node: cst.CSTNode) -> bool:
    return (isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.BitXorAssign)) or (
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitXor)
    )


def _steps(code: Code) -> list[_Step]:
    env = constants(code)
    found_steps = []
    for module, region in code.nodes(cst.For, cst.While, cst.Lambda):
        order = [
            n for n in module.walk(region) if isinstance(n, (cst.AugAssign, cst.BinaryOperation))
        ]
        xors = [n for n in order if _xors(n)]
        multiplies = [(n, _pick(_factor(n, env)[1])) for n in order if _factor(n, env)[0]]
        if not xors or not multiplies:
            continue
        # Prefer the multiply by an FNV prime, then one by any constant.
        multiply, factor = min(multiplies, key=lambda m: (m[1] not in _PRIMES, m[1] is None))
        xor = xors[0]
        if any(n is xor for n in module.walk(multiply)):
            xor_first = True  # (h ^ b) * p
        elif any(n is multiply for n in module.walk(xor)):
            xor_first = False  # (h * p) ^ b
        else:
            xor_first = order.index(xor) < order.index(multiply)
        found_steps.append(_Step((module, region), xor, multiply, factor, xor_first))
    return found_steps


def _reference(data: bytes | list[int], bits: int, xor_first: bool) -> int:
    offset, prime = FNV[bits]
    mask = (1 << bits) - 1
    value = offset
    for unit in data:
        value = ((value ^ unit) * prime) & mask if xor_first else ((value * prime) & mask) ^ unit
    return value


def _variant(observation: Observation) -> set[tuple[int, bool]]:
    """The (width, xor first) variants of FNV whose hash of the argument is the value
    returned (over UTF-8 bytes or code points)."""
    arg, value = observation.args[0], observation.value
    if isinstance(arg, str):
        inputs: list[bytes | list[int]] = [arg.encode("utf-8"), [ord(c) for c in arg]]
    elif isinstance(arg, bytes):
        inputs = [arg]
    else:
        return set()
    return {
        (bits, xor_first)
        for bits in FNV
        for xor_first in (True, False)
        for data in inputs
        if _reference(data, bits, xor_first) == value
    }


def _by_values(code: Code) -> tuple[set[tuple[int, bool]], int]:
    """The FNV variants every hashing case agrees with, and how many cases there were."""
    cases = [
        o
        for o in code.observed()
        if len(o.args) == 1
        and isinstance(o.args[0], (str, bytes))
        and o.args[0]
        and type(o.value) is int
    ]
    if not cases:
        return set(), 0
    agreed = _variant(cases[0])
    for case in cases[1:]:
        agreed &= _variant(case)
    return agreed, len(cases)


def _name(xor_first: bool) -> str:
    return "FNV-1a" if xor_first else "FNV-1"


def _fnv(code: Code, xor_first: bool) -> Judgement:
    wanted, other = _name(xor_first), _name(not xor_first)
    steps = _steps(code)
    agreed, cases = _by_values(code)
    if not steps:
        matching = {bits for bits, order in agreed if order == xor_first}
        if matching:
            return found(
                f"the values returned on {cases} call case(s) are the {min(matching)}-bit "
                f"{wanted} hashes of the arguments (no xor and multiply loop was recognised)"
            )
        return missing("no loop that xors in each byte and multiplies by the FNV prime")
    step = next((s for s in steps if s.factor in _PRIMES), steps[0])
    at: Place = (step.region[0], step.multiply)
    every = integers(code)
    if step.factor not in _PRIMES:
        if step.factor is None:
            factor = "a value that is not a known constant, "
        elif step.factor in _OFFSETS:
            bits = _OFFSETS[step.factor]
            factor = f"{step.factor} ({step.factor:#x}), which is the {bits}-bit offset basis, "
        else:
            factor = f"{step.factor} ({step.factor:#x}), "
        return missing(
            f"the loop multiplies by {factor}not an FNV prime "
            f"({FNV[32][1]} for 32 bits, {FNV[64][1]} for 64) (`{shown(step.multiply)}`, "
            f"{where(at)})",
            at,
        )
    bits = _PRIMES[step.factor]
    offset = FNV[bits][0]
    if step.xor_first:
        order = f"xors each byte in, then multiplies by the {bits}-bit FNV prime {step.factor:#x}"
    else:
        order = f"multiplies by the {bits}-bit FNV prime {step.factor:#x}, then xors each byte in"
    if step.xor_first != xor_first:
        first = "xors first" if xor_first else "multiplies first"
        return missing(f"the loop {order} ({where(at)}): that is {other}; {wanted} {first}", at)
    if offset not in every:
        return missing(
            f"the loop {order}, but the hash never starts from the {bits}-bit offset basis "
            f"{offset} ({offset:#x})",
            at,
        )
    evidence = f"the loop {order} ({where(at)}), starting from the offset basis {offset:#x}"
    if agreed and not any(order_ == xor_first for _, order_ in agreed):
        return missing(
            f"{evidence}; but the values returned on {cases} call case(s) are {other} hashes",
            at,
        )
    if any(order_ == xor_first for _, order_ in agreed):
        evidence += f"; the values returned on {cases} call case(s) are {wanted} hashes"
    return found(evidence, at)


def fnv_1a(code: Code) -> Judgement:
    """The FNV-1a loop: xor each byte into the hash, then multiply by the FNV prime,
    starting from the offset basis; or values returned that are FNV-1a hashes."""
    return _fnv(code, True)


def fnv_1(code: Code) -> Judgement:
    """The FNV-1 loop: multiply by the FNV prime, then xor each byte in."""
    return _fnv(code, False)


_FNV_1A = """
def fnv1a(text):
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h
"""
_FNV_1 = """
FNV_PRIME = 16777619
OFFSET = 2166136261

def fnv1(text):
    h = OFFSET
    for byte in text.encode("utf-8"):
        h = (h * FNV_PRIME) & 0xFFFFFFFF
        h ^= byte
    return h
"""

RECOGNISERS: Final = (
    Recogniser(
        "fnv-1a",
        "FNV-1a",
        "a loop that xors each byte into the hash and then multiplies by the FNV prime "
        "(16777619 for 32 bits, 1099511628211 for 64), starting from the offset basis "
        "(2166136261 / 14695981039346656037); constants may be bound to names; values "
        "returned that are FNV-1 hashes refute it, FNV-1a hashes decide when no loop is seen",
        fnv_1a,
        ("fnv1a", "fnv 1a hash", "fnv 1a hashing", "fowler noll vo 1a"),
        satisfied=(
            Example(_FNV_1A, calls=({"function": "fnv1a", "args": ["hello"]},)),
            Example(
                """
                def fnv1a(text):
                    h = 2166136261
                    for b in text.encode():
                        h = mix(h, b)
                    return h

                def mix(h, b):
                    return ((h ^ b) * 16777619) & 0xFFFFFFFF
                """,
                calls=(
                    {"function": "fnv1a", "args": ["hello"]},
                    {"function": "fnv1a", "args": ["a"]},
                ),
            ),
            Example(
                """
                from functools import reduce

                def fnv1a(data: bytes) -> int:
                    return reduce(lambda h, b: ((h ^ b) * 1099511628211) % 2**64, data,
                                  14695981039346656037)
                """
            ),
        ),
        violated=(
            Example(_FNV_1, "that is FNV-1"),
            Example(
                """
                def fnv1a(text):
                    prime = 0x811C9DC5
                    h = 0
                    for c in text:
                        h ^= ord(c)
                        h *= prime
                    return h
                """,
                "which is the 32-bit offset basis",
            ),
            Example(
                """
                def fnv1a(text):
                    h = 0
                    for c in text:
                        h = (h ^ ord(c)) * 16777619 & 0xFFFFFFFF
                    return h
                """,
                "never starts from the 32-bit offset basis",
            ),
        ),
    ),
    Recogniser(
        "fnv-1",
        "FNV-1",
        "a loop that multiplies the hash by the FNV prime and then xors each byte in, "
        "starting from the offset basis",
        fnv_1,
        ("fnv1", "fnv 1 hash", "fnv 1 hashing", "fowler noll vo"),
        satisfied=(Example(_FNV_1),),
        violated=(Example(_FNV_1A, "that is FNV-1a"),),
    ),
)

"""Number-theory recognisers: Miller-Rabin, the sieve of Eratosthenes, Euclid's gcd."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import libcst as cst

from pytest_codeif.checks.named_algorithm.patterns import (
    ITERATIONS,
    calling,
    enclosing,
    flat,
    in_loop,
    parameters,
    positional,
    self_calls,
    shown,
    stores,
)
from pytest_codeif.checks.named_algorithm.recogniser import (
    Code,
    Example,
    Judgement,
    Place,
    Recogniser,
    found,
    missing,
    where,
)

#: The Carmichael numbers below 520,000: composites every base coprime to them passes
#: Fermat's test for, so a Fermat test calls them prime and Miller-Rabin does not.
CARMICHAEL: Final = {
    561: "3 · 11 · 17",
    1105: "5 · 13 · 17",
    1729: "7 · 13 · 19",
    2465: "5 · 17 · 29",
    2821: "7 · 13 · 31",
    6601: "7 · 23 · 41",
    8911: "7 · 19 · 67",
    10585: "5 · 29 · 73",
    15841: "7 · 31 · 73",
    29341: "13 · 37 · 61",
    41041: "7 · 11 · 13 · 41",
    46657: "13 · 37 · 97",
    52633: "7 · 73 · 103",
    62745: "3 · 5 · 47 · 89",
    63973: "7 · 13 · 19 · 37",
    75361: "11 · 13 · 17 · 31",
    101101: "7 · 11 · 13 · 101",
    115921: "13 · 37 · 241",
    126217: "7 · 13 · 19 · 73",
    162401: "17 · 41 · 233",
    172081: "7 · 13 · 31 · 61",
    188461: "7 · 13 · 19 · 109",
    252601: "41 · 61 · 101",
    278545: "5 · 17 · 29 · 113",
    294409: "37 · 73 · 109",
    314821: "13 · 61 · 397",
    334153: "19 · 43 · 409",
    340561: "13 · 17 · 23 · 67",
    399001: "31 · 61 · 211",
    410041: "41 · 73 · 137",
    449065: "5 · 19 · 29 · 163",
    488881: "37 · 73 · 181",
    512461: "31 · 61 · 271",
}
_PRIMALITY_LIBRARIES: Final = (
    "sympy.isprime",
    "sympy.ntheory.isprime",
    "sympy.ntheory.primetest.isprime",
    "gmpy2.is_prime",
)


@dataclass(frozen=True)
class _Power:
    """A modular exponentiation `pow(base, exp, mod)` (or a helper doing it)."""

    place: Place
    base: str
    exp: str
    mod: str


def _modexp_helpers(code: Code) -> set[str]:
    """Functions of the code that compute a modular power by squaring: three or more
    parameters, an exponent halved in a loop or recursion, and a `%`."""
    helpers: set[str] = set()
    for module in {m for m, _ in code.places}:
        for function in module.nodes(cst.FunctionDef):
            if len(parameters(function)) < 3:
                continue
            text = flat(function.body)
            halves = re.search(r"(\w+)(>>=1|//=2|=\1//2|=\1>>1)", text)
            if halves and "%" in text:
                helpers.add(function.name.value)
    return helpers


def _powers(code: Code) -> list[_Power]:
    helpers = _modexp_helpers(code)
    found = []
    for module, call in code.of(cst.Call):
        args = positional(call)
        is_pow = "builtins.pow" in module.qualified(call.func)
        is_helper = isinstance(call.func, cst.Name) and call.func.value in helpers
        if (is_pow or is_helper) and len(args) == 3:
            found.append(_Power((module, call), flat(args[0]), flat(args[1]), flat(args[2])))
    return found


def _in_rounds(code: Code, place: Place) -> bool:
    """The node runs in a loop or comprehension, or in a function called from one."""
    module, node = place
    if in_loop(module, node):
        return True
    function = module.scope_of(node)
    if not isinstance(function, cst.FunctionDef):
        return False
    name = function.name.value
    return any(
        flat(call.func).split(".")[-1] == name and in_loop(m, call)
        for m, call in code.nodes(cst.Call)
        if isinstance(call, cst.Call)
    )


def _halving_loop(code: Code) -> Place | None:
    """`while d % 2 == 0: d //= 2; s += 1`: n - 1 written as d·2^s."""
    for module, loop in code.of(cst.While):
        test = flat(loop.test)
        if not re.search(r"%2|&1", test):
            continue
        if re.search(r"(\w+)(>>=1|//=2|=\1//2|=\1>>1|/=2)", flat(loop.body)):
            return module, loop
    return None


def _squaring(code: Code, helpers: set[str]) -> Place | None:
    """`x = pow(x, 2, n)`, `x = x * x % n`, `x = x ** 2 % n`."""
    calls = "|".join(["pow", *sorted(helpers)])
    for module, node in code.nodes(cst.Assign, cst.AugAssign):
        for store in stores(module, node):
            x = re.escape(flat(store.target))
            value = flat(store.value)
            if re.match(
                rf"^(?:(?:{calls})\({x},2,|\(?{x}\*{x}\)?%|\(?{x}\*\*2\)?%|pow\({x},2\)%)", value
            ):
                return module, store.statement
            if isinstance(store.op, cst.MultiplyAssign) and value == flat(store.target):
                return module, store.statement  # x *= x, reduced on the next line
    return None


def _trial_division(code: Code) -> Place | None:
    """`n % i` in a loop, where `i` is a name (the divisor tried)."""
    for module, node in code.of(cst.BinaryOperation):
        if (
            isinstance(node.operator, cst.Modulo)
            and isinstance(node.right, cst.Name)
            and in_loop(module, node)
        ):
            return module, node
    return None


def miller_rabin(code: Code) -> Judgement:
    """Modular exponentiation `pow(a, d, n)` in witness rounds, n - 1 written as d·2^s,
    and repeated squaring looking for n - 1; refuted by an observed case calling a
    Carmichael number prime."""
    library = calling(code, *_PRIMALITY_LIBRARIES)
    powers = _powers(code)
    helpers = _modexp_helpers(code)
    witness = [p for p in powers if p.exp not in ("2", "-1")]
    if not witness:
        hint = "no modular exponentiation pow(a, d, n) with a loop of witness rounds"
        if library:
            return missing(f"{hint}: calls {flat(library[0][1].func)} instead", library[0])
        trial = _trial_division(code)
        if trial:
            return missing(
                f"{hint}: looks like trial division (`{shown(trial[1])}` in a loop, "
                f"{where(trial)})",
                trial,
            )
        return missing(hint)
    power = next((p for p in witness if _in_rounds(code, p.place)), witness[0])
    call_text = shown(power.place[1])
    halving = _halving_loop(code)
    squaring = _squaring(code, helpers)
    if halving is None and squaring is None and power.exp == f"{power.mod}-1":
        return missing(
            f"`{call_text}` ({where(power.place)}) is a Fermat test: n - 1 is never written as "
            "d·2^s and nothing is squared towards n - 1, so Carmichael numbers (561) pass it",
            power.place,
        )
    gaps = []
    if not _in_rounds(code, power.place):
        gaps.append("no loop of witness rounds around it (one base only)")
    if halving is None:
        gaps.append("n - 1 is never written as d·2^s (no `while d % 2 == 0: d //= 2`)")
    if squaring is None:
        gaps.append("no repeated squaring x = pow(x, 2, n)")
    if not any(f"{power.mod}-1" in flat(c) for _, c in code.nodes(cst.Comparison)):
        gaps.append(f"no comparison with {power.mod} - 1")
    if gaps or halving is None or squaring is None:
        return missing(f"`{call_text}` ({where(power.place)}) but " + "; ".join(gaps), power.place)
    evidence = (
        f"`{call_text}` in witness rounds ({where(power.place)}), n - 1 written as d·2^s "
        f"({where(halving)}), squaring towards n - 1 ({where(squaring)})"
    )
    return _carmichael(code, evidence, power.place)


#: Carmichael numbers with the fewest strong liars (0.6-1.4% of bases): a correct
#: Miller-Rabin calls two of them prime with odds under 1 in 1,000 even with one round,
#: while a Fermat test with a fixed base calls every one prime.
PROBED: Final = (561, 41041, 62745, 75361)


def _carmichael(code: Code, evidence: str, at: Place) -> Judgement:
    """Refute with an observed case that calls a Carmichael number prime; without one,
    probe the entry function on Carmichael numbers in the sandbox."""
    asked = [o for o in code.observed() if len(o.args) == 1 and type(o.args[0]) is int]
    for o in asked:
        number = o.args[0]
        if number in CARMICHAEL and o.value is True:
            call = f"{o.function or 'the function'}({number})"
            return missing(
                f"{evidence}; but {call} returned True: {number} = {CARMICHAEL[number]} is a "
                "Carmichael number, where a Fermat test lies and Miller-Rabin does not",
                at,
            )
    checked = sorted(o.args[0] for o in asked if o.args[0] in CARMICHAEL and o.value is False)
    if checked:
        evidence += f"; answers False for the Carmichael numbers {', '.join(map(str, checked))}"
        return found(evidence, at)
    return _probe_carmichael(code, evidence, at)


def _probe_carmichael(code: Code, evidence: str, at: Place) -> Judgement:
    """Call the entry function on PROBED in the sandbox: two or more answered True
    refute it (a correct test errs on one with odds of about 1 in 100 per round); an entry
    that cannot be found or called leaves the structural verdict, said so."""
    if code.function and "." in code.function:
        return found(f"{evidence}; not probed (a method)", at)
    entry = code.function or _unary_entry(code, at)
    if entry is None:
        return found(f"{evidence}; not probed (no function of one argument to call)", at)
    answers = code.call(entry, [(n,) for n in PROBED])
    if answers is None:
        return found(evidence, at)
    lied = [n for n, answer in zip(PROBED, answers, strict=True) if answer is True]
    said = [n for n, answer in zip(PROBED, answers, strict=True) if answer is False]
    if len(lied) >= 2:
        shown_numbers = ", ".join(f"{n} = {CARMICHAEL[n]}" for n in lied)
        return missing(
            f"{evidence}; but probed in the sandbox, {entry}() called the Carmichael numbers "
            f"{shown_numbers} prime, where Miller-Rabin does not (a Fermat test does)",
            at,
        )
    if len(said) == len(PROBED):
        numbers = ", ".join(map(str, PROBED))
        return found(f"{evidence}; probed: {entry}() answers False for {numbers}", at)
    return found(f"{evidence}; probing {entry}() on Carmichael numbers gave no clear answer", at)


def _unary_entry(code: Code, at: Place) -> str | None:
    """The top-level function to probe: the one holding the witness `pow` if it takes
    one argument, else the only top-level function taking one."""
    module, node = at
    unary = [
        (name, fn)
        for name, fn in module.definitions
        if isinstance(fn, cst.FunctionDef) and "." not in name and _one_required(fn)
    ]
    holding = [name for name, fn in unary if node in module.nodes(type(node), within=fn)]
    if holding:
        return holding[0]
    return unary[0][0] if len(unary) == 1 else None


def _one_required(fn: cst.FunctionDef) -> bool:
    """Whether `fn` can be called with exactly one positional argument."""
    params = fn.params
    positional = [*params.posonly_params, *params.params]
    required = [p for p in positional if p.default is None]
    kw_required = [p for p in params.kwonly_params if p.default is None]
    return len(required) == 1 and not kw_required


def sieve(code: Code) -> Judgement:
    """Multiples of each prime marked off in a table: `for m in range(p * p, n + 1, p):
    table[m] = False`, or a slice assignment `table[p * p :: p] = ...`."""
    for module, node in code.of(cst.For):
        iterator = node.iter
        if not (isinstance(iterator, cst.Call) and flat(iterator.func) == "range"):
            continue
        args = positional(iterator)
        if len(args) != 3 or not isinstance(args[2], (cst.Name, cst.Attribute)):
            continue
        target = flat(node.target)
        marks = [
            s
            for s in stores(module, node.body)
            if isinstance(s.target, cst.Subscript) and flat(s.target).endswith(f"[{target}]")
        ]
        if marks and enclosing(module, node, ITERATIONS):
            step = flat(args[2])
            return found(
                f"multiples of {step} marked in `{shown(marks[0].target)}` "
                f"(range step {step}, {where((module, node))}), for each {step} of an outer loop",
                (module, node),
            )
    for module, sub in code.of(cst.Subscript):
        element = sub.slice[0].slice if len(sub.slice) == 1 else None
        if isinstance(element, cst.Slice) and isinstance(element.step, (cst.Name, cst.Attribute)):
            step = flat(element.step)
            assigned = any(s.target is sub for s in stores(module, module.tree) if s.op is None)
            if assigned and in_loop(module, sub):
                return found(
                    f"multiples of {step} marked by a slice assignment `{shown(sub)}` "
                    f"({where((module, sub))})",
                    (module, sub),
                )
    trial = _trial_division(code)
    if trial:
        return missing(
            "no table with the multiples of each prime marked off: tests numbers by trial "
            f"division (`{shown(trial[1])}` in a loop, {where(trial)})",
            trial,
        )
    return missing("no table with the multiples of each prime marked off (range step p)")


_GCD_LIBRARIES: Final = ("math.gcd", "fractions.gcd", "numpy.gcd", "math.lcm")


def euclid(code: Code) -> Judgement:
    """The remainder step `a, b = b, a % b` in a loop, `gcd(b, a % b)` in recursion, or
    the subtractive form (`a -= b` and `b -= a` in a loop)."""
    for module, node in code.of(cst.Assign):
        target, value = node.targets[0].target, node.value
        if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple):
            names = [flat(e.value) for e in target.elements]
            values = [flat(e.value) for e in value.elements]
            if (
                len(names) == 2
                and values == [names[1], f"{names[0]}%{names[1]}"]
                and in_loop(module, node)
            ):
                return found(f"`{shown(node)}` in a loop ({where((module, node))})", (module, node))
    for module, function in code.functions():
        for call in self_calls(module, function):
            args = [flat(a) for a in positional(call)]
            if len(args) == 2 and re.fullmatch(rf"(\w+)%{re.escape(args[0])}", args[1]):
                return found(f"recursion `{shown(call)}` ({where((module, call))})", (module, call))
    for module, loop in code.nodes(cst.While):
        remainders = [
            s
            for s in stores(module, loop)
            if s.op is None and re.fullmatch(rf"\w+%{re.escape(flat(s.target))}", flat(s.value))
        ]
        if remainders:
            return found(
                f"remainder step `{shown(remainders[0].statement)}` in a loop "
                f"({where((module, loop))})",
                (module, loop),
            )
        subtracted = {
            (flat(s.target), flat(s.value))
            for s in stores(module, loop)
            if isinstance(s.op, cst.SubtractAssign)
        }
        if any((b, a) in subtracted for a, b in subtracted):
            return found(f"subtractive Euclid in a loop ({where((module, loop))})", (module, loop))
    library = calling(code, *_GCD_LIBRARIES)
    if library:
        if code.allow_library:
            return found(f"calls {flat(library[0][1].func)} ({where(library[0])})", library[0])
        return missing(
            f"no remainder step (a, b = b, a % b): calls {flat(library[0][1].func)} "
            f"({where(library[0])}) instead of writing Euclid's algorithm",
            library[0],
        )
    trial = _trial_division(code)
    if trial:
        return missing(
            "no remainder step (a, b = b, a % b): tries candidate divisors one by one "
            f"(`{shown(trial[1])}` in a loop, {where(trial)})",
            trial,
        )
    return missing("no remainder step (a, b = b, a % b) in a loop or recursion")


MILLER_RABIN_SAMPLE = """
import random

def is_prime(n, rounds=8):
    if n < 4:
        return n in (2, 3)
    if n % 2 == 0:
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for _ in range(rounds):
        a = random.randrange(2, n - 1)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True
"""

RECOGNISERS: Final = (
    Recogniser(
        "miller-rabin",
        "Miller-Rabin",
        "modular exponentiation `pow(a, d, n)` in a loop of witness rounds, n - 1 written "
        "as d·2^s, and squaring `x = pow(x, 2, n)` towards n - 1; an observed case calling a "
        "Carmichael number (561, 1105...) prime refutes it, and without one the function "
        "is probed in the sandbox on four Carmichael numbers (two called prime refute it)",
        miller_rabin,
        ("miller rabin", "rabin miller", "miller rabin primality test", "miller rabin test"),
        satisfied=(
            Example(
                MILLER_RABIN_SAMPLE,
                calls=(
                    {"function": "is_prime", "args": [561]},
                    {"function": "is_prime", "args": [97]},
                ),
            ),
            Example(MILLER_RABIN_SAMPLE),  # probed: False for every Carmichael number tried
        ),
        violated=(
            Example(
                """
                def is_prime(n):
                    if n < 2:
                        return False
                    i = 2
                    while i * i <= n:
                        if n % i == 0:
                            return False
                        i += 1
                    return True
                """,
                "looks like trial division",
            ),
            Example(
                """
                import random

                def is_prime(n, k=5):
                    if n < 4:
                        return n in (2, 3)
                    for _ in range(k):
                        a = random.randrange(2, n - 1)
                        if pow(a, n - 1, n) != 1:
                            return False
                    return True
                """,
                "is a Fermat test",
            ),
            Example(
                MILLER_RABIN_SAMPLE.replace("        else:\n            return False\n", ""),
                "is a Carmichael number",
                calls=({"function": "is_prime", "args": [561]},),
            ),
            # The same, with no telling call case: probed in the sandbox.
            Example(
                MILLER_RABIN_SAMPLE.replace("        else:\n            return False\n", ""),
                "probed in the sandbox, is_prime() called the Carmichael numbers 561",
            ),
        ),
    ),
    Recogniser(
        "sieve-of-eratosthenes",
        "the sieve of Eratosthenes",
        "a table in which the multiples of each prime are marked off: `range(p * p, n + 1, "
        "p)` stores or a slice assignment `table[p * p :: p]`, inside a loop over p",
        sieve,
        ("sieve", "eratosthenes sieve", "sieve eratosthenes", "prime sieve"),
        satisfied=(
            Example(
                """
                def primes(n):
                    marks = [True] * (n + 1)
                    marks[:2] = [False, False]
                    p = 2
                    while p * p <= n:
                        if marks[p]:
                            for m in range(p * p, n + 1, p):
                                marks[m] = False
                        p += 1
                    return [i for i, ok in enumerate(marks) if ok]
                """
            ),
            Example(
                """
                import math

                def primes(n):
                    sieve = bytearray([1]) * (n + 1)
                    sieve[:2] = b"\\x00\\x00"
                    for p in range(2, math.isqrt(n) + 1):
                        if sieve[p]:
                            sieve[p * p :: p] = bytes(len(range(p * p, n + 1, p)))
                    return [i for i in range(n + 1) if sieve[i]]
                """
            ),
        ),
        violated=(
            Example(
                """
                def primes(n):
                    found = []
                    for k in range(2, n + 1):
                        if all(k % d for d in range(2, int(k ** 0.5) + 1)):
                            found.append(k)
                    return found
                """,
                "trial division",
            ),
        ),
    ),
    Recogniser(
        "euclid-gcd",
        "Euclid's algorithm",
        "the remainder step `a, b = b, a % b` in a loop, `gcd(b, a % b)` in recursion, or "
        "the subtractive form; `math.gcd` only with `allow-library`",
        euclid,
        ("euclid", "euclidean algorithm", "euclid gcd", "euclidean gcd", "gcd euclid"),
        satisfied=(
            Example(
                """
                def gcd(a, b):
                    while b:
                        a, b = b, a % b
                    return abs(a)
                """
            ),
            Example("def gcd(a, b):\n    return a if b == 0 else gcd(b, a % b)\n"),
            Example(
                "import math\n\ndef gcd(a, b):\n    return math.gcd(a, b)\n",
                options={"allow-library": True},
            ),
        ),
        violated=(
            Example(
                "import math\n\ndef gcd(a, b):\n    return math.gcd(a, b)\n",
                "calls math.gcd",
            ),
            Example(
                """
                def gcd(a, b):
                    for d in range(min(a, b), 0, -1):
                        if a % d == 0 and b % d == 0:
                            return d
                    return max(a, b)
                """,
                "tries candidate divisors",
            ),
        ),
    ),
)

"""The instruction pool of `codeif generate pacific`: one YAML file per instruction (the
shape is `pool.schema.json`), read from the package's `pool/` folder and from folders the
user adds (`--pool DIR`); an instruction of a later folder replaces one of the same name.

An instruction is a function from a number or a string to a number or a string. Its
file gives its text in words, a Python reference (run here, in this process, to compute
every expected answer: a pool is code its user trusts, like a conftest.py), its code in
Python, Java and C++, its domain (the inputs where it is defined; a chain never gives it
another) and its effect on length (characters for strings, bits for numbers), which
steers a chain toward the target length.

A file that is not a valid instruction is a `TaskFileError` naming the file, the line and
the key path.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

from pytest_codeif.errors import Location, TaskFileError
from pytest_codeif.taskfile.schema import make_validator, schema_problems
from pytest_codeif.taskfile.yamlload import LoadedYaml, load_task_yaml

ValueType = Literal["int", "string"]
Effect = Literal["keeps", "grows", "shrinks", "any"]
Language = Literal["python", "java", "cpp"]
Value = int | str

LANGUAGES: Final[tuple[Language, ...]] = ("python", "java", "cpp")
#: The built-in pool, shipped as package data.
BUILTIN_POOL: Final = Path(__file__).with_name("pool")
SCHEMA_PATH: Final = Path(__file__).with_name("pool.schema.json")
#: Every number in a chain stays strictly inside a signed 32-bit int (so Java's and
#: C++'s renderings never overflow, and a model is never asked about one that does).
INT_BOUND: Final = 2**31
#: A string input may hold these characters unless its domain says otherwise.
DEFAULT_ALPHABET: Final = string.ascii_letters + string.digits
DEFAULT_MIN_LENGTH: Final = 1
DEFAULT_MAX_LENGTH: Final = 64
#: Pool files are YAML files of these suffixes.
SUFFIXES: Final = (".yaml", ".yml")
#: The typical ratio of output to input length an effect stands for, when the
#: instruction gives no `factor`.
DEFAULT_FACTORS: Final[Mapping[Effect, float]] = {
    "keeps": 1.0,
    "grows": 1.5,
    "shrinks": 0.5,
    "any": 1.0,
}


@dataclass(frozen=True)
class Domain:
    """The inputs an instruction is defined on: a range of ints, or strings of a length
    range over an alphabet."""

    type: ValueType
    minimum: int = -(INT_BOUND - 1)
    maximum: int = INT_BOUND - 1
    alphabet: str = DEFAULT_ALPHABET
    min_length: int = DEFAULT_MIN_LENGTH
    max_length: int = DEFAULT_MAX_LENGTH

    def admits(self, value: Value) -> bool:
        """Whether `value` is an input the instruction is defined on."""
        if self.type == "int":
            return is_int(value) and self.minimum <= int(value) <= self.maximum
        if not isinstance(value, str):
            return False
        allowed = _charset(self.alphabet)
        return self.min_length <= len(value) <= self.max_length and all(
            char in allowed for char in value
        )


@dataclass(frozen=True)
class LengthEffect:
    """How an instruction's result length compares with its input's."""

    effect: Effect
    factor: float
    #: Whether the file gives the factor (--check-pool verifies only a declared one).
    declared: bool = True

    def holds(self, before: int, after: int) -> bool:
        """Whether a step from length `before` to `after` is what the effect says."""
        if self.effect == "keeps":
            return after == before
        if self.effect == "grows":
            return after >= before
        if self.effect == "shrinks":
            return after <= before
        return True


@dataclass(frozen=True)
class Instruction:
    """One instruction of the pool, as its file gives it."""

    name: str
    path: Path
    domain: Domain
    output: ValueType
    length: LengthEffect
    text: str
    reference_source: str
    code: Mapping[Language, str]

    @property
    def input(self) -> ValueType:
        """The type of value the instruction takes."""
        return self.domain.type

    def reference(self) -> Callable[[Value], Any]:
        """The reference function (compiled once per instruction)."""
        return _compiled(self.path, self.name, self.reference_source)


class PoolError(Exception):
    """A pool cannot be used: the problems found, each located."""

    def __init__(self, problems: list[TaskFileError]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


def is_int(value: object) -> bool:
    """An int that is not a bool (YAML and Python both let a bool pass for one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def length_of(value: Value) -> int:
    """A value's length as the target length counts it: characters for a string, bits
    for a number (at least 1: zero is written with one digit)."""
    if isinstance(value, str):
        return len(value)
    return max(1, abs(value).bit_length())


def literal(value: Value) -> str:
    """A value as an answer writes it: an int bare, a string in JSON double quotes."""
    return json.dumps(value)


def load_pool(folders: Iterable[Path], *, builtin: bool = True) -> dict[str, Instruction]:
    """The pool made of the built-in folder (unless `builtin` is False) and `folders`,
    in that order, by name (a later file replaces an earlier one of the same name);
    `PoolError` listing every bad file."""
    pool: dict[str, Instruction] = {}
    problems: list[TaskFileError] = []
    for folder in [BUILTIN_POOL] * builtin + list(folders):
        if not folder.is_dir():
            problems.append(TaskFileError(Location(folder, 1, ()), "not a folder"))
            continue
        seen: dict[str, Path] = {}
        for path in sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES):
            try:
                instruction = read_instruction(path)
            except TaskFileError as exc:
                problems.append(exc)
                continue
            if instruction.name in seen:
                where = Location(path, 1, ("name",))
                message = f"`{instruction.name}` is also the name in {seen[instruction.name]}"
                problems.append(TaskFileError(where, message))
                continue
            seen[instruction.name] = path
            pool[instruction.name] = instruction
    if problems:
        raise PoolError(problems)
    if not pool:
        raise PoolError([TaskFileError(Location(Path("."), 1, ()), "the pool is empty")])
    return pool


def read_instruction(path: Path) -> Instruction:
    """The instruction in the file at `path`; `TaskFileError` at its first problem."""
    loaded = load_task_yaml(path)
    data = loaded.data
    if not isinstance(data, dict):
        raise TaskFileError(Location(path, 1, ()), "expected a mapping of an instruction's keys")
    problems = schema_problems(_validator(), data)
    if problems:
        first = problems[0]
        raise TaskFileError(loaded.location(first.path), first.message)
    domain = _domain(loaded, data["input"])
    name: str = data["name"]
    effect: Effect = data["length"]["effect"]
    factor = float(data["length"].get("factor", DEFAULT_FACTORS[effect]))
    if effect == "keeps" and factor != 1.0:
        raise TaskFileError(
            loaded.location(("length", "factor")), "an instruction that keeps length has factor 1"
        )
    instruction = Instruction(
        name=name,
        path=path,
        domain=domain,
        output=data["output"],
        length=LengthEffect(effect, factor, declared="factor" in data["length"]),
        text=data["text"].strip(),
        reference_source=data["reference"],
        code={language: data["code"][language] for language in LANGUAGES},
    )
    try:
        instruction.reference()
    except TaskFileError as exc:
        raise TaskFileError(loaded.location(("reference",)), exc.message) from None
    return instruction


def _domain(loaded: LoadedYaml, given: Mapping[str, Any]) -> Domain:
    """The `input:` mapping as a domain, or `TaskFileError` where it does not hold."""
    kind: ValueType = given["type"]
    other = ("alphabet", "min-length", "max-length") if kind == "int" else ("min", "max")
    for key in other:
        if key in given:
            message = f"`{key}` is not a key of a domain of type {kind}"
            raise TaskFileError(loaded.location(("input", key)), message)
    if kind == "int":
        for key in ("min", "max"):
            if key not in given:
                message = f"missing required key `{key}` (an int domain is bounded)"
                raise TaskFileError(loaded.location(("input",)), message)
        domain = Domain("int", minimum=given["min"], maximum=given["max"])
        if domain.minimum > domain.maximum:
            raise TaskFileError(loaded.location(("input", "max")), "`max` is less than `min`")
        return domain
    domain = Domain(
        "string",
        alphabet=given.get("alphabet", DEFAULT_ALPHABET),
        min_length=given.get("min-length", DEFAULT_MIN_LENGTH),
        max_length=given.get("max-length", DEFAULT_MAX_LENGTH),
    )
    if domain.min_length > domain.max_length:
        message = "`max-length` is less than `min-length`"
        raise TaskFileError(loaded.location(("input", "max-length")), message)
    return domain


@cache
def _validator() -> Any:
    return make_validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@cache
def _charset(alphabet: str) -> frozenset[str]:
    return frozenset(alphabet)


@cache
def _compiled(path: Path, name: str, source: str) -> Callable[[Value], Any]:
    """The function `name` that `source` defines. The source is the pool's own Python
    (trusted as its user's code is), compiled with the file's name for tracebacks."""
    namespace: dict[str, Any] = {"__name__": f"pacific_pool_{name}"}
    try:
        # S102: the reference is pool data its user trusts, never a model's output.
        exec(compile(source, f"{path}:reference", "exec"), namespace)  # noqa: S102
    except Exception as exc:  # noqa: BLE001 (any error of the pool's code is the file's)
        raise TaskFileError(
            Location(path, 1, ("reference",)),
            f"the reference does not run: {type(exc).__name__}: {exc}",
        ) from None
    function = namespace.get(name)
    if not callable(function):
        message = f"the reference defines no function `{name}` (the instruction's name)"
        raise TaskFileError(Location(path, 1, ("reference",)), message)
    return function  # type: ignore[no-any-return]

"""The `defines` check: the functions and classes an instruction names are defined, and
the classes derive from the bases it names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample, listed
from pytest_codeif.checks.shared.structure import code_of, require_function
from pytest_codeif.code.cst import ParsedModule

_RULE: Final = "defines"
_NAMES: Final = {
    "type": "array",
    "items": {"type": "string", "pattern": r"^[A-Za-z_][\w.]*$"},
    "minItems": 1,
    "uniqueItems": True,
}
_SHOWN: Final = 10


def _base_names(node: cst.ClassDef) -> set[str]:
    """What each base of `node` can be called: `models.Model` as itself and as `Model`."""
    found: set[str] = set()
    for arg in node.bases:
        if arg.keyword is None and arg.star == "":
            text = code_of(arg.value).strip()
            found |= {text, text.rsplit(".", 1)[-1]}
    return found


class DefinesCheck(Check):
    """The code defines the functions and classes the instruction names.

    Why: "write a function `add_task`", "classes for `Book` and `Member`", "a base class
    `Vehicle` and derived classes `Car` and `Truck`": the names are the interface others
    call, and a response that solves the problem under other names, or in one class
    where a hierarchy was asked for, does not do what was asked even when its output is
    right.

    A function is found by name anywhere (a method counts; `Class.method` asks for that
    method), a class by its name at any level. A base is matched by its name as written
    (`models.Model` or `Model`), directly or through other classes the code defines:
    `Truck(Car)` with `Car(Vehicle)` derives from `Vehicle`.

    Options (at least one): `functions`, `classes` (names); `bases` (a class name to the
    base names it must derive from).

    Example:

        - check: defines
          functions: [add_task, list_tasks_by_priority]
          classes: [Vehicle, Car, Truck]
          bases: {Car: [Vehicle], Truck: [Vehicle]}
    """

    name = "defines"
    category = "Interface Specification"
    advice = (
        "Define the functions and classes under the names the instruction gives, and derive "
        "each class from the bases it names."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "anyOf": [
            {"required": ["functions"]},
            {"required": ["classes"]},
            {"required": ["bases"]},
        ],
        "properties": {
            "functions": _NAMES,
            "classes": _NAMES,
            "bases": {
                "type": "object",
                "minProperties": 1,
                "propertyNames": {"pattern": r"^[A-Za-z_]\w*$"},
                "additionalProperties": _NAMES,
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            """
            class Vehicle:
                def display(self):
                    return "vehicle"

            class Car(Vehicle):
                pass

            class SportsCar(Car):
                pass

            def add_task(task):
                return [task]
            """,
            {
                "functions": ["add_task", "Vehicle.display"],
                "classes": ["Vehicle", "SportsCar"],
                "bases": {"SportsCar": ["Vehicle"]},
            },
        ),
        Sample(
            "from django.db import models\n\nclass Book(models.Model):\n    pass\n",
            {"bases": {"Book": ["Model"]}},
        ),
    )
    violated_by = (
        Sample(
            "def addTask(task):\n    return [task]\n",
            {"functions": ["add_task"]},
            message="function `add_task` is not defined (functions found: addTask)",
        ),
        Sample(
            "class Vehicle:\n    pass\n\nclass Truck:\n    pass\n",
            {"classes": ["Vehicle", "Truck"], "bases": {"Truck": ["Vehicle"]}},
            message="class `Truck` does not derive from `Vehicle`",
        ),
        Sample(
            "def car():\n    return 1\n",
            {"classes": ["Car"]},
            message="class `Car` is not defined (classes found: none)",
        ),
    )

    def advise(self) -> str:
        wanted = [*self.options.get("functions", []), *self.options.get("classes", [])]
        parts = [f"Define {listed(wanted)} under these names."] if wanted else []
        for cls, bases in self.options.get("bases", {}).items():
            parts.append(f"Derive `{cls}` from {listed(bases)}.")
        return " ".join(parts) or self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        path = ctx.unit.files[0].relpath if ctx.unit.files else None
        found = [require_function(ctx, name, _RULE) for name in self.options.get("functions", [])]
        findings = [f for f in found if isinstance(f, Finding)]
        classes: dict[str, set[str]] = {}
        where: dict[str, tuple[ParsedModule, cst.ClassDef]] = {}
        for module in ctx.modules():
            for _, node in module.definitions:
                if isinstance(node, cst.ClassDef):
                    classes.setdefault(node.name.value, set()).update(_base_names(node))
                    where.setdefault(node.name.value, (module, node))
        wanted = [*self.options.get("classes", []), *self.options.get("bases", {})]
        for name in dict.fromkeys(wanted):
            if name not in classes:
                shown = ", ".join(sorted(classes)[:_SHOWN]) or "none"
                message = f"class `{name}` is not defined (classes found: {shown})"
                findings.append(Finding(message, _RULE, path, 1))
        for name, bases in self.options.get("bases", {}).items():
            if name not in classes:
                continue
            reached = _ancestors(name, classes)
            for base in bases:
                if base not in reached:
                    direct = ", ".join(sorted(classes[name])) or "none"
                    module, node = where[name]
                    findings.append(
                        ctx.report(
                            module,
                            node,
                            f"class `{name}` does not derive from `{base}` (its bases: {direct})",
                        )
                    )
        return findings


def _ancestors(name: str, classes: Mapping[str, set[str]]) -> set[str]:
    """Every base name reached from class `name` through the classes defined."""
    seen: set[str] = set()
    stack = [name]
    while stack:
        for base in classes.get(stack.pop(), set()):
            if base not in seen:
                seen.add(base)
                stack.append(base)
    return seen

"""What the data-access and framework checks read of JavaScript and TypeScript code:
which package an imported name comes from, what an expression names through imports,
the text a string expression builds (followed through variables and through constants
imported from the project's other modules), and which objects a module makes with a
known constructor.

Names are qualified by the package they are imported from: `express` for `import
express from "express"` (and `import * as express`, `require("express")`),
`express.Router` for `import { Router } from "express"` or `express.Router`,
`@nestjs/common.Controller`, `sequelize.Sequelize`. A name not imported qualifies as
nothing (a local class is not a framework's).

Text (`JsText.text`): a string literal, a template literal (each `${...}` an unknown
part), `+`, `a ? b : c` (the first branch known), `[...].join(sep)`, `.trim()` and case
changes, and a name: the last assignment to it before the use in the nearest enclosing
function that assigns it, else in the module; a name imported from another module of
the project is that module's exported constant (`export const`, `exports.X =`,
`module.exports = { X: ... }`). Unknown parts stand for a value or a name (`DUMMY`), as
in `sql_text.built_text` for Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from pytest_codeif.checks.shared.js_imports import js_imports, package_of
from pytest_codeif.checks.shared.sql_text import DUMMY, capped
from pytest_codeif.code.js_project import JsProject
from pytest_codeif.code.js_resolve import Resolver
from pytest_codeif.code.js_tree import JsModule
from pytest_codeif.code.unit import CodeUnit

if TYPE_CHECKING:
    from ast_grep_py import SgNode

#: Kinds of nodes that open a scope of their own for variables.
FUNCTION_KINDS: Final = (
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
)
_MAX_DEPTH: Final = 30
#: Nodes read to build one text, at most.
_MAX_STEPS: Final = 5_000
_TEXT_METHODS: Final = frozenset({"trim", "trimStart", "trimEnd", "toUpperCase", "toLowerCase"})
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}
_REQUIRE: Final = "require"


@dataclass(frozen=True)
class Binding:
    """A name a module imports: from which specifier (as written), and which of its
    names (None: the module itself: a default import, `* as`, a whole `require`)."""

    specifier: str
    name: str | None

    def qualified(self) -> str:
        package = package_of(self.specifier) or self.specifier
        # `import { Router } from "express/lib"` names `express.Router` all the same.
        return package if self.name is None else f"{package}.{self.name}"


def literal(node: SgNode) -> str | None:
    """The text of a string literal (escapes read), or of a template literal with no
    `${...}`; None for anything else."""
    kind = node.kind()
    if kind == "string":
        return "".join(_piece(child) for child in node.named_children())
    if kind == "template_string":
        parts = node.named_children()
        if any(p.kind() not in ("string_fragment", "escape_sequence") for p in parts):
            return None
        return "".join(_piece(p) for p in parts)
    return None


def _piece(node: SgNode) -> str:
    text = node.text()
    if node.kind() != "escape_sequence":
        return text
    return _ESCAPES.get(text[1:2], text[1:2]) if len(text) == 2 else text


def enclosing(node: SgNode, kinds: Sequence[str]) -> SgNode | None:
    """The nearest ancestor of `node` of one of `kinds`."""
    parent = node.parent()
    while parent is not None:
        if parent.kind() in kinds:
            return parent
        parent = parent.parent()
    return None


class JsNames:
    """The imports of one module by local name (see the module docstring)."""

    def __init__(self, module: JsModule) -> None:
        self.module = module
        self.bindings: dict[str, Binding] = {}
        for statement in module.nodes("import_statement"):
            self._import_statement(statement)
        for declarator in module.nodes("variable_declarator"):
            self._required(declarator)
        #: The specifiers the module imports, as written.
        self.specifiers = tuple(site.specifier for site in js_imports(module))

    def _import_statement(self, statement: SgNode) -> None:
        source = statement.field("source")
        specifier = literal(source) if source is not None else None
        clause = next((c for c in statement.named_children() if c.kind() == "import_clause"), None)
        if specifier is None or clause is None:
            required = next(
                (c for c in statement.named_children() if c.kind() == "import_require_clause"),
                None,
            )
            if required is not None:
                name, source = required.named_children()[0], required.field("source")
                specifier = literal(source) if source is not None else None
                if specifier is not None:
                    self.bindings[name.text()] = Binding(specifier, None)
            return
        for part in clause.named_children():
            kind = part.kind()
            if kind == "identifier":
                self.bindings[part.text()] = Binding(specifier, None)
            elif kind == "namespace_import":
                named = part.named_children()
                if named:
                    self.bindings[named[-1].text()] = Binding(specifier, None)
            elif kind == "named_imports":
                for item in part.named_children():
                    if item.kind() != "import_specifier":
                        continue
                    names = [n.text() for n in item.named_children()]
                    if names:
                        self.bindings[names[-1]] = Binding(specifier, names[0])

    def _required(self, declarator: SgNode) -> None:
        """`const x = require("m")`, `const { a, b: c } = require("m")`,
        `const x = require("m").y`."""
        value = declarator.field("value")
        target = declarator.field("name")
        if value is None or target is None:
            return
        member: str | None = None
        callee = value.field("function") if value.kind() == "call_expression" else None
        verbose = callee.field("property") if callee is not None else None
        if callee is not None and verbose is not None and verbose.text() == "verbose":
            value = callee.field("object")  # sqlite3's `require("sqlite3").verbose()`
            if value is None:
                return
        if value.kind() == "member_expression":
            prop = value.field("property")
            member = prop.text() if prop is not None else None
            value = value.field("object")
            if value is None:
                return
        specifier = _required_specifier(value)
        if specifier is None:
            return
        if target.kind() == "identifier":
            self.bindings[target.text()] = Binding(specifier, member)
        elif target.kind() == "object_pattern" and member is None:
            for item in target.named_children():
                if item.kind() == "shorthand_property_identifier_pattern":
                    self.bindings[item.text()] = Binding(specifier, item.text())
                elif item.kind() == "pair_pattern":
                    key, local = item.field("key"), item.field("value")
                    if key is not None and local is not None and local.kind() == "identifier":
                        self.bindings[local.text()] = Binding(specifier, key.text())

    def qualified(self, node: SgNode | None) -> str | None:
        """What `node` names through imports (see the module docstring), or None."""
        parts: list[str] = []
        while node is not None:
            kind = node.kind()
            if kind in ("identifier", "type_identifier"):
                binding = self.bindings.get(node.text())
                if binding is None:
                    return None
                return ".".join([binding.qualified(), *reversed(parts)])
            if kind == "member_expression":
                prop = node.field("property")
                if prop is None:
                    return None
                parts.append(prop.text())
                node = node.field("object")
            elif kind in ("parenthesized_expression", "non_null_expression", "await_expression"):
                inner = node.named_children()
                node = inner[0] if inner else None
            elif kind == "call_expression":
                specifier = _required_specifier(node)
                if specifier is None:
                    return None
                package = package_of(specifier) or specifier
                return ".".join([package, *reversed(parts)])
            else:
                return None
        return None

    def imports(self, package: str) -> bool:
        """Whether the module imports `package` (or a path inside it)."""
        return any(
            (package_of(s) or s).lower() == package.lower()
            or s.lower().startswith(package.lower() + "/")
            for s in self.specifiers
        )


def _required_specifier(node: SgNode) -> str | None:
    """`m` of a `require("m")` call, else None."""
    if node.kind() != "call_expression":
        return None
    callee = node.field("function")
    if callee is None or callee.kind() != "identifier" or callee.text() != _REQUIRE:
        return None
    arguments = node.field("arguments")
    given = arguments.named_children() if arguments is not None else []
    return literal(given[0]) if len(given) == 1 else None


@dataclass
class _Assigned:
    """One assignment of a name: where, in which scope, and its value."""

    index: int
    scope: SgNode
    value: SgNode

    def holds(self, at: int) -> bool:
        """Whether the place `at` is inside the assigned value (`s = s + "x"` reads
        the `s` of before)."""
        span = self.value.range()
        return span.start.index <= at < span.end.index


@dataclass
class JsModuleCode:
    """One module's imports and assignments, read once."""

    module: JsModule
    names: JsNames
    assigned: dict[str, list[_Assigned]] = field(default_factory=dict)

    @staticmethod
    def of(module: JsModule) -> JsModuleCode:
        code = JsModuleCode(module, JsNames(module))
        for declarator in module.nodes("variable_declarator"):
            code._assign(declarator.field("name"), declarator.field("value"))
        for assignment in module.nodes("assignment_expression"):
            code._assign(assignment.field("left"), assignment.field("right"))
        for values in code.assigned.values():
            values.sort(key=lambda a: a.index)
        return code

    def _assign(self, target: SgNode | None, value: SgNode | None) -> None:
        if target is None or value is None or target.kind() != "identifier":
            return
        scope = enclosing(target, FUNCTION_KINDS) or self.module.root
        self.assigned.setdefault(target.text(), []).append(
            _Assigned(target.range().start.index, scope, value)
        )

    def value_of(self, name: SgNode) -> SgNode | None:
        """The value last assigned to the identifier `name` before it is read, in the
        nearest enclosing scope that assigns it (see the module docstring)."""
        found = self.assigned.get(name.text())
        if not found:
            return None
        at = name.range().start.index
        chain: list[SgNode] = []
        scope = enclosing(name, FUNCTION_KINDS)
        while scope is not None:
            chain.append(scope)
            scope = enclosing(scope, FUNCTION_KINDS)
        chain.append(self.module.root)
        for scope in chain:
            here = [a for a in found if _same(a.scope, scope) and not a.holds(at)]
            if here:
                before = [a for a in here if a.index < at]
                return (before or here)[-1].value
        return None

    def exported(self, name: str) -> SgNode | None:
        """The value the module exports as `name` (a module-level constant, `exports.X`,
        `module.exports = { X }`), or None."""
        for assigned in reversed(self.assigned.get(name, [])):
            if _same(assigned.scope, self.module.root):
                return assigned.value
        for assignment in self.module.nodes("assignment_expression"):
            left, right = assignment.field("left"), assignment.field("right")
            if left is None or right is None:
                continue
            written = left.text().replace(" ", "")
            if written in (f"exports.{name}", f"module.exports.{name}"):
                return right
            if written == "module.exports" and right.kind() == "object":
                for pair in right.named_children():
                    key = pair.field("key")
                    if pair.kind() == "pair" and key is not None and key.text() == name:
                        return pair.field("value")
        return None


def _same(one: SgNode, other: SgNode) -> bool:
    span, other_span = one.range(), other.range()
    return span.start.index == other_span.start.index and span.end.index == other_span.end.index


class JsCode:
    """The JS/TS modules a check reads, with what lets it follow names across them."""

    def __init__(self, modules: Iterable[JsModule], unit: CodeUnit) -> None:
        self.modules = list(modules)
        self.code = {m.relpath: JsModuleCode.of(m) for m in self.modules}
        self._resolver: Resolver | None = None
        self._unit = unit
        self._others: dict[str, JsModuleCode | None] = {}

    def resolver(self) -> Resolver:
        if self._resolver is None:
            self._resolver = Resolver(JsProject(self._unit))
        return self._resolver

    def imported_module(self, importer: str, specifier: str) -> JsModuleCode | None:
        """The project module `specifier` (imported by `importer`) reaches, read (even
        when it is out of the constraint's scope), or None."""
        if not specifier.startswith((".", "/", "#", "@/", "~")) and "/" not in specifier:
            return None  # a package by name: not the project's code
        found = self.resolver().resolve(importer, specifier)
        return self.module_at(found.path) if found.kind == "source" else None

    def module_at(self, relpath: str) -> JsModuleCode | None:
        """The JS/TS module at `relpath` read (even out of the constraint's scope), or
        None when the unit has none there or it does not parse."""
        if relpath in self.code:
            return self.code[relpath]
        if relpath not in self._others:
            self._others[relpath] = self._read(relpath)
        return self._others[relpath]

    def _read(self, relpath: str) -> JsModuleCode | None:
        source = next((f for f in self._unit.files if f.relpath == relpath), None)
        if source is None:
            return None
        try:
            return JsModuleCode.of(JsModule(source))
        except Exception:  # noqa: BLE001 - a module that does not parse gives no constant
            return None


class JsText:
    """Builds the text of string expressions of the modules of `code` (see the module
    docstring)."""

    def __init__(self, code: JsCode) -> None:
        self.code = code
        self._steps = 0

    def text(self, module: JsModuleCode, node: SgNode | None, depth: int = 0) -> str | None:
        """The text `node` builds, unknown parts as `DUMMY`; None when nothing of it is
        known. At most `_MAX_STEPS` nodes are read for one text (names that each add
        themselves twice would double the work at every level)."""
        if depth == 0:
            self._steps = 0
        self._steps += 1
        if node is None or depth > _MAX_DEPTH or self._steps > _MAX_STEPS:
            return None
        found = self._text(module, node, depth)
        return None if found is None else capped(found)

    def _text(self, module: JsModuleCode, node: SgNode, depth: int) -> str | None:
        kind = node.kind()
        if kind == "string":
            return literal(node)
        if kind == "template_string":
            return "".join(
                DUMMY if p.kind() == "template_substitution" else _piece(p)
                for p in node.named_children()
            )
        if kind in ("parenthesized_expression", "as_expression", "satisfies_expression"):
            inner = node.named_children()
            return self.text(module, inner[0], depth + 1) if inner else None
        if kind == "binary_expression":
            return self._sum(module, node, depth)
        if kind == "ternary_expression":
            branches = node.named_children()[1:]
            for branch in branches:
                found = self.text(module, branch, depth + 1)
                if found is not None:
                    return found
            return None
        if kind == "call_expression":
            return self._call(module, node, depth)
        if kind == "identifier":
            return self._name(module, node, depth)
        if kind == "member_expression":
            return self._member(module, node, depth)
        return None

    def _sum(self, module: JsModuleCode, node: SgNode, depth: int) -> str | None:
        operator = node.field("operator")
        if operator is None or operator.text() != "+":
            return None
        left = self.text(module, node.field("left"), depth + 1)
        right = self.text(module, node.field("right"), depth + 1)
        if left is None and right is None:
            return None
        return (left if left is not None else DUMMY) + (right if right is not None else DUMMY)

    def _call(self, module: JsModuleCode, node: SgNode, depth: int) -> str | None:
        callee = node.field("function")
        if callee is None or callee.kind() != "member_expression":
            return None
        method = callee.field("property")
        receiver = callee.field("object")
        if method is None or receiver is None:
            return None
        name = method.text()
        if name in _TEXT_METHODS:
            return self.text(module, receiver, depth + 1)
        if name == "join" and receiver.kind() == "array":
            arguments = node.field("arguments")
            given = arguments.named_children() if arguments is not None else []
            separator = self.text(module, given[0], depth + 1) if given else ","
            parts = [self.text(module, item, depth + 1) for item in receiver.named_children()]
            if all(part is None for part in parts):
                return None
            return (separator or "").join(DUMMY if p is None else p for p in parts)
        return None

    def _name(self, module: JsModuleCode, node: SgNode, depth: int) -> str | None:
        value = module.value_of(node)
        if value is not None:
            return self.text(module, value, depth + 1)
        binding = module.names.bindings.get(node.text())
        if binding is None or binding.name is None:
            return None
        return self._constant(module, binding.specifier, binding.name, depth)

    def _member(self, module: JsModuleCode, node: SgNode, depth: int) -> str | None:
        """`q.GET_USER` of `import * as q from "./queries.js"`."""
        target, prop = node.field("object"), node.field("property")
        if target is None or prop is None or target.kind() != "identifier":
            return None
        binding = module.names.bindings.get(target.text())
        if binding is None or binding.name is not None:
            return None
        return self._constant(module, binding.specifier, prop.text(), depth)

    def _constant(self, module: JsModuleCode, specifier: str, name: str, depth: int) -> str | None:
        other = self.code.imported_module(module.module.relpath, specifier)
        if other is None:
            return None
        value = other.exported(name)
        return self.text(other, value, depth + 1) if value is not None else None


def made_by(code: JsModuleCode, constructors: Mapping[str, str]) -> dict[str, str]:
    """Variables of `code` assigned an object made by one of `constructors` (qualified
    name -> what it makes): `const pool = new Pool()` with `pg.Pool`, `const db =
    knex({...})`, `const conn = await mysql.createConnection(...)`; name -> what."""
    found: dict[str, str] = {}
    for name, assignments in code.assigned.items():
        for assigned in assignments:
            what = made(code.names, assigned.value, constructors)
            if what is not None:
                found[name] = what
    return found


def made(names: JsNames, value: SgNode, constructors: Mapping[str, str]) -> str | None:
    """What `value` makes when it is a call (or `new`) of one of `constructors`."""
    while value.kind() in ("await_expression", "parenthesized_expression"):
        inner = value.named_children()
        if not inner:
            return None
        value = inner[-1]
    if value.kind() == "new_expression":
        callee = value.field("constructor")
    elif value.kind() == "call_expression":
        callee = value.field("function")
    else:
        return None
    qualified = names.qualified(callee)
    return constructors.get(qualified) if qualified is not None else None


def calls(module: JsModule) -> Iterator[tuple[SgNode, SgNode | None]]:
    """Every call of `module` with its callee (`new X()` too)."""
    for call in module.nodes("call_expression", "new_expression"):
        callee = call.field("function" if call.kind() == "call_expression" else "constructor")
        yield call, callee

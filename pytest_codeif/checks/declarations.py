"""The `declarations` check: where and how names are declared."""

from __future__ import annotations

import symtable
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Final

import libcst as cst

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.checks.shared.naming_conventions import follows, is_literal, named_things
from pytest_codeif.code.cst import ParsedModule

_RULE = "declarations"
#: Visibility by Python's conventions, in the order `visibility-order` asks for.
_VISIBILITY: Final = ("public", "protected", "private")


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _simple(statement: cst.BaseStatement, kinds: tuple[type[cst.CSTNode], ...]) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(s, kinds) for s in statement.body
    )


def _assigned_names(small: cst.BaseSmallStatement) -> Iterator[cst.Name]:
    targets: list[cst.BaseExpression] = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        targets = [small.target]
    stack = list(targets)
    while stack:
        target = stack.pop()
        if isinstance(target, cst.Name):
            yield target
        elif isinstance(target, (cst.Tuple, cst.List)):
            stack.extend(e.value for e in target.elements)
        elif isinstance(target, cst.StarredElement):
            stack.append(target.value)


def _statements(body: Sequence[cst.BaseStatement]) -> Iterator[cst.BaseSmallStatement]:
    """Every small statement in `body`, nested blocks included, functions and classes not."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        else:
            for child in statement.children:
                if isinstance(child, cst.IndentedBlock):
                    yield from _statements(child.body)
                elif isinstance(child, (cst.Else, cst.Finally, cst.ExceptHandler)):
                    block = child.body
                    if isinstance(block, cst.IndentedBlock):
                        yield from _statements(block.body)
                elif isinstance(child, (cst.If)):
                    yield from _statements([child])


class DeclarationsCheck(Check):
    """Names are declared where and how the team's declaration style says.

    Why: declaration-style rules ("constants at the top of the file", "declare variables
    at the top of the function", "annotate every variable", "descriptive names", "class
    members in a fixed order") are structural and decidable. Each option is one rule:
    `constants-at-top` (module-level constants, names bound once to a literal, come before
    any function, class or other statement; imports and the docstring may precede. With
    `true` or `module`, an UPPER_CASE name bound to a literal inside a function is a
    misplaced constant; with `function`, a function may declare its own constants, all
    together at its start: every UPPER_CASE name it assigns is assigned in the block that
    opens its body, before any other statement); `variables-at-top` (in each function,
    every local variable is first assigned in the block of assignments that opens the
    body, after the docstring; loop and `with` targets are exempt; and a module variable
    a function or class reads is assigned above it, not below: a module's declarations
    come before the code that uses them); `annotated-variables` (every local and module
    variable is declared with an annotation, `x: int = 0`, at its first assignment: no
    inferred types); `min-name-length` (functions, parameters and variables have at least
    this many characters, `_` and loop/comprehension variables exempt);
    `ordered-class-members` (in each class: attributes, then `__new__`/`__init__`, then
    other methods); `visibility-order` (in each class, members by visibility as Python
    spells it: public names, then protected `_name`, then private `__name`; dunders such
    as `__init__` are public; methods and class-level attributes are ordered, attributes
    a method assigns on `self` are not members of the class body and are not).
    Parameter and return annotations are the `ruff` check's ANN rules or `mypy`'s
    `--disallow-untyped-defs`.

    Options: the rules above (at least one): booleans, `module` or `function` for
    `constants-at-top`, and an integer for `min-name-length`.

    Example:

        - check: declarations
          constants-at-top: true
          annotated-variables: true
    """

    name = "declarations"
    category = "Coding Style"
    advice = (
        "Declare names as the team's rules say: constants at the top of the module, locals "
        "assigned where their function opens, an annotation on each variable's first assignment, "
        "names long enough to describe, and class members ordered attributes, `__init__`, then "
        "methods (the finding says which rule)."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "minProperties": 1,
        "properties": {
            "constants-at-top": {"enum": [True, False, "module", "function"]},
            "variables-at-top": {"type": "boolean"},
            "annotated-variables": {"type": "boolean"},
            "min-name-length": {"type": "integer", "minimum": 2},
            "ordered-class-members": {"type": "boolean"},
            "visibility-order": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            '"""Doc."""\nimport math\n\nRATE: float = 0.2\nLIMIT: int = 10\n\n'
            "def total(price: float) -> float:\n    taxed: float = price * (1 + RATE)\n"
            "    result: float = min(taxed, LIMIT * math.pi)\n    return result\n",
            {"constants-at-top": True, "annotated-variables": True, "variables-at-top": True},
        ),
        Sample(
            "class Account:\n    kind = 'basic'\n\n    def __init__(self, owner):\n"
            "        self.owner = owner\n\n    def describe(self):\n        return self.owner\n",
            {"ordered-class-members": True, "min-name-length": 3},
        ),
        Sample(
            """
            class Registry:
                def __init__(self):
                    self.__records = {}

                def add(self, key, value):
                    self._store(key, value)

                def _store(self, key, value):
                    self.__records[key] = value

                __limit = 100
            """,
            {"visibility-order": True},
        ),
        Sample(
            """
            def valid(name, minimum):
                \"\"\"Whether `name` is valid.\"\"\"
                MAX_LENGTH = 20
                MIN_LENGTH = minimum
                size = len(name)
                return MIN_LENGTH <= size <= MAX_LENGTH
            """,
            {"constants-at-top": "function"},
        ),
        Sample(
            """
            registered = []

            def register(name):
                registered.append(name)

            def main():
                register("a")
                print(registered)

            if __name__ == "__main__":
                result = main()
            """,
            {"variables-at-top": True},
        ),
    )
    violated_by = (
        Sample(
            "def total(price):\n    return price * RATE\n\nRATE = 0.2\n",
            {"constants-at-top": True},
        ),
        Sample(
            "def check(name):\n    MAX_LENGTH = 20\n    return len(name) <= MAX_LENGTH\n",
            {"constants-at-top": True},
        ),
        Sample(
            "def total(prices):\n    count = 0\n    for p in prices:\n        count += 1\n"
            "    average = sum(prices) / count\n    return average\n",
            {"variables-at-top": True},
        ),
        Sample(
            "def f(price):\n    taxed = price * 2\n    return taxed\n",
            {"annotated-variables": True},
        ),
        Sample("def f(a):\n    return a\n", {"min-name-length": 3}),
        Sample(
            "class A:\n    def describe(self):\n        return 1\n\n"
            "    def __init__(self):\n        pass\n",
            {"ordered-class-members": True},
        ),
        Sample(
            """
            class Registry:
                def _store(self, key, value):
                    self.records[key] = value

                def add(self, key, value):
                    self._store(key, value)
            """,
            {"visibility-order": True},
            message="public method `add` comes after protected `_store`",
            line=5,
        ),
        Sample(
            """
            def valid(name):
                if not name:
                    return False
                MAX_LENGTH = 20
                return len(name) <= MAX_LENGTH
            """,
            {"constants-at-top": "function"},
            message="constant `MAX_LENGTH` of `valid` is declared after other statements",
            line=4,
        ),
        Sample(
            """
            def add(name):
                registered.append(name)

            registered = []
            """,
            {"variables-at-top": True},
            message="module variable `registered` is assigned below `add` (line 1), which uses it",
            line=4,
        ),
    )

    def advise(self) -> str:
        rules = {
            "constants-at-top": (
                "declare each function's constants together where it starts, and module "
                "constants before any function or class"
                if self.options.get("constants-at-top") == "function"
                else "put module constants before any function or class"
            ),
            "variables-at-top": (
                "assign each local variable in the block opening its function, and each "
                "module variable above the functions that use it"
            ),
            "annotated-variables": "annotate each variable at its first assignment (`x: int = 0`)",
            "ordered-class-members": "order class members: attributes, `__init__`, then methods",
            "visibility-order": (
                "order class members public, then protected (`_name`), then private (`__name`)"
            ),
        }
        parts = [text for key, text in rules.items() if self.options.get(key)]
        if self.options.get("min-name-length"):
            parts.append(f"give names at least {self.options['min-name-length']} characters")
        return "; ".join(parts).capitalize() + "." if parts else self.advice

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings: list[Finding] = []
        for module in ctx.modules():

            def add(message: str, node: cst.CSTNode, module: ParsedModule = module) -> None:
                findings.append(Finding(message, _RULE, module.relpath, module.line_of(node)))

            where = self.options.get("constants-at-top")
            if where:
                self._constants_at_top(module, add, in_functions=where == "function")
            functions = [n for n in module.walk() if isinstance(n, cst.FunctionDef)]
            if self.options.get("variables-at-top"):
                for function in functions:
                    self._variables_at_top(function, add)
                _module_variables_below(module, add)
            if self.options.get("annotated-variables"):
                self._annotated(module, functions, add)
            if "min-name-length" in self.options:
                self._short_names(module, int(self.options["min-name-length"]), add)
            if self.options.get("ordered-class-members"):
                for node in module.walk():
                    if isinstance(node, cst.ClassDef):
                        self._ordered(node, add)
            if self.options.get("visibility-order"):
                for node in module.nodes(cst.ClassDef):
                    _visibility_order(node, add)
        return findings

    @staticmethod
    def _short_names(module: ParsedModule, limit: int, add: Any) -> None:
        loop_names = _loop_variables(module)
        judged = ("function", "method", "argument", "variable", "constant")
        for kind, name in named_things(module):
            if (
                kind in judged
                and len(name.value) < limit
                and name.value != "_"
                and id(name) not in loop_names
            ):
                add(f"{kind} `{name.value}` is shorter than {limit} characters", name)

    @staticmethod
    def _constants_at_top(module: ParsedModule, add: Any, in_functions: bool = False) -> None:
        if in_functions:
            for function in module.nodes(cst.FunctionDef):
                _function_constants(function, add)
        # An UPPER_CASE name bound to a literal inside a function is a constant too.
        for node in [] if in_functions else module.walk():
            scope = module.scope_of(node)
            if (
                isinstance(scope, cst.FunctionDef)
                and isinstance(node, (cst.Assign, cst.AnnAssign))
                and node.value is not None
                and is_literal(node.value)
            ):
                for name in _assigned_names(node):
                    if follows(name.value, "UPPER_CASE") and name.value.strip("_").isupper():
                        add(
                            f"constant `{name.value}` is declared inside `{scope.name.value}`; "
                            "constants go at the top of the file",
                            node,
                        )
        seen_other: cst.CSTNode | None = None
        for statement in module.tree.body:
            if _is_docstring(statement) or _simple(statement, (cst.Import, cst.ImportFrom)):
                continue
            is_constant = _simple(statement, (cst.Assign, cst.AnnAssign)) and any(
                kind == "constant" for kind, _ in named_things_in(module, statement)
            )
            if is_constant and seen_other is not None:
                add("a constant is declared after other code; constants go at the top", statement)
            elif not is_constant and seen_other is None:
                seen_other = statement

    @staticmethod
    def _variables_at_top(function: cst.FunctionDef, add: Any) -> None:
        body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
        if body and _is_docstring(body[0]):
            body = body[1:]
        declared: set[str] = set()
        params = function.params
        declared.update(
            p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        )
        index = 0
        while index < len(body) and _simple(body[index], (cst.Assign, cst.AnnAssign)):
            for small in body[index].body:  # type: ignore[attr-defined]
                declared.update(n.value for n in _assigned_names(small))
            index += 1
        reported: set[str] = set()
        for small in _statements(body[index:]):
            for name in _assigned_names(small):
                if name.value not in declared and name.value not in reported:
                    reported.add(name.value)
                    add(
                        f"variable `{name.value}` of `{function.name.value}` is first assigned "
                        "after the declarations at the top of the function",
                        small,
                    )

    @staticmethod
    def _annotated(module: ParsedModule, functions: list[cst.FunctionDef], add: Any) -> None:
        scopes: list[Sequence[cst.BaseStatement]] = [module.tree.body]
        scopes += [f.body.body for f in functions if isinstance(f.body, cst.IndentedBlock)]
        for body in scopes:
            annotated: set[str] = set()
            for small in _statements(body):
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    annotated.add(small.target.value)
                elif isinstance(small, cst.Assign):
                    for name in _assigned_names(small):
                        if (
                            name.value not in annotated
                            and name.value.strip("_")
                            and not name.value.startswith("__")
                        ):
                            annotated.add(name.value)  # one finding per name
                            add(f"`{name.value}` is declared without a type annotation", small)

    @staticmethod
    def _ordered(node: cst.ClassDef, add: Any) -> None:
        def rank(member: cst.BaseStatement | cst.BaseSmallStatement) -> int | None:
            if isinstance(member, cst.SimpleStatementLine) and _simple(
                member, (cst.Assign, cst.AnnAssign)
            ):
                return 0
            if isinstance(member, cst.FunctionDef):
                return 1 if member.name.value in ("__new__", "__init__", "__post_init__") else 2
            return None

        highest = 0
        for member in node.body.body:
            r = rank(member)
            if r is None:
                continue
            if r < highest:
                what = ("an attribute", "the constructor")[r]
                add(f"in class `{node.name.value}`, {what} comes after methods", member)
            highest = max(highest, r)


def named_things_in(module: ParsedModule, statement: cst.CSTNode) -> list[tuple[str, cst.Name]]:
    """`named_things` of one statement of `module`."""
    inside = {id(n) for n in module.walk(statement)}
    return [(k, n) for k, n in named_things(module) if id(n) in inside]


def _loop_variables(module: ParsedModule) -> set[int]:
    """Ids of the names bound by `for` loops and comprehensions (exempt from length)."""
    return {
        id(n)
        for loop in module.nodes(cst.For, cst.CompFor)
        for n in module.walk(loop.target)
        if isinstance(n, cst.Name)
    }


def _is_constant_name(name: str) -> bool:
    return follows(name, "UPPER_CASE") and name.strip("_").isupper()


def _function_constants(function: cst.FunctionDef, add: Any) -> None:
    """`constants-at-top: function`: every UPPER_CASE name the function assigns is
    assigned in the block of such assignments that opens its body (after the docstring)."""
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    if body and _is_docstring(body[0]):
        body = body[1:]
    index = 0
    while index < len(body) and _simple(body[index], (cst.Assign, cst.AnnAssign)):
        names = [n.value for small in body[index].body for n in _assigned_names(small)]  # type: ignore[attr-defined]
        if not names or not all(_is_constant_name(n) for n in names):
            break
        index += 1
    for small in _statements(body[index:]):
        if not isinstance(small, (cst.Assign, cst.AnnAssign)):
            continue
        for name in _assigned_names(small):
            if _is_constant_name(name.value):
                add(
                    f"constant `{name.value}` of `{function.name.value}` is declared after other "
                    "statements; declare the function's constants together at its start",
                    small,
                )


def _module_bindings(module: ParsedModule) -> dict[str, cst.CSTNode]:
    """Each module variable's first assignment at module level (in the module's own
    blocks: `if`, `try`, `with`, `for`, not inside a function or class)."""
    first: dict[str, cst.CSTNode] = {}
    for small in _statements(module.tree.body):
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and (
            not isinstance(small, cst.AnnAssign) or small.value is not None
        ):
            for name in _assigned_names(small):
                first.setdefault(name.value, small)
    return first


def _module_variables_below(module: ParsedModule, add: Any) -> None:
    """`variables-at-top` at module level: a module variable that a function or class
    defined above its assignment reads is declared below its use. Which names a
    definition reads as globals comes from Python's own symbol tables (`symtable`: a
    compile step that runs nothing), nested functions and methods included."""
    bindings = _module_bindings(module)
    if not bindings:
        return
    try:
        table = symtable.symtable(module.tree.code, module.relpath, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # Python refuses the symbols (`global x` after a use): nothing to read
    reported: set[str] = set()
    for child in table.get_children():
        used = _globals_read(child)
        for name in sorted(used & bindings.keys()):
            node = bindings[name]
            if name in reported or child.get_lineno() >= module.line_of(node):
                continue
            reported.add(name)
            add(
                f"module variable `{name}` is assigned below `{child.get_name()}` (line "
                f"{child.get_lineno()}), which uses it; declare it at the top of the module",
                node,
            )


def _globals_read(table: symtable.SymbolTable, depth: int = 0) -> set[str]:
    """Names `table` (a function or class) and the tables nested in it read as globals."""
    names = {s.get_name() for s in table.get_symbols() if s.is_global() and s.is_referenced()}
    if depth < 50:
        for child in table.get_children():
            names |= _globals_read(child, depth + 1)
    return names


def _visibility(name: str) -> int:
    """0 public (dunders included), 1 protected `_name`, 2 private `__name`."""
    if name.startswith("__") and name.endswith("__"):
        return 0
    if name.startswith("__"):
        return 2
    return 1 if name.startswith("_") else 0


def _member_names(member: cst.BaseStatement) -> list[tuple[str, str]]:
    """(kind, name) of what a class-body statement declares: a method, a nested class,
    or class attributes."""
    if isinstance(member, cst.FunctionDef):
        return [("method", member.name.value)]
    if isinstance(member, cst.ClassDef):
        return [("class", member.name.value)]
    if isinstance(member, cst.SimpleStatementLine):
        return [
            ("attribute", n.value)
            for small in member.body
            if isinstance(small, (cst.Assign, cst.AnnAssign))
            for n in _assigned_names(small)
        ]
    return []


def _visibility_order(node: cst.ClassDef, add: Any) -> None:
    """`visibility-order`: no member of a class comes after a less visible one."""
    if not isinstance(node.body, cst.IndentedBlock):
        return
    seen: tuple[int, str, str] | None = None  # the least visible member so far
    for member in node.body.body:
        for kind, name in _member_names(member):
            rank = _visibility(name)
            if seen is not None and rank < seen[0]:
                add(
                    f"in class `{node.name.value}`, {_VISIBILITY[rank]} {kind} `{name}` comes "
                    f"after {_VISIBILITY[seen[0]]} `{seen[2]}`; order members public, then "
                    "protected (`_name`), then private (`__name`)",
                    member,
                )
            elif seen is None or rank > seen[0]:
                seen = (rank, kind, name)

"""The `tsc` check: the TypeScript compiler, with the task's options, reports no (counted)
error."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from pytest_codeif.checks.base import Check, CheckContext, Finding, Sample
from pytest_codeif.code.languages import TYPESCRIPT
from pytest_codeif.tools import ToolConfig
from pytest_codeif.tools_node import TscConfig, tsc_missing

#: Compiler options that change what is checked or how code is read. Options that name
#: files or folders (`paths`, `baseUrl`, `typeRoots`, `rootDir`, `outDir`, `plugins`),
#: write anything, or change which files form the program are refused.
ALLOWED_OPTIONS: Final = frozenset(
    {
        "allowArbitraryExtensions",
        "allowImportingTsExtensions",
        "allowSyntheticDefaultImports",
        "allowUmdGlobalAccess",
        "allowUnreachableCode",
        "allowUnusedLabels",
        "alwaysStrict",
        "customConditions",
        "emitDecoratorMetadata",
        "erasableSyntaxOnly",
        "esModuleInterop",
        "exactOptionalPropertyTypes",
        "experimentalDecorators",
        "forceConsistentCasingInFileNames",
        "ignoreDeprecations",
        "isolatedDeclarations",
        "isolatedModules",
        "jsx",
        "lib",
        "module",
        "moduleResolution",
        "noErrorTruncation",
        "noFallthroughCasesInSwitch",
        "noImplicitAny",
        "noImplicitOverride",
        "noImplicitReturns",
        "noImplicitThis",
        "noPropertyAccessFromIndexSignature",
        "noUncheckedIndexedAccess",
        "noUncheckedSideEffectImports",
        "noUnusedLocals",
        "noUnusedParameters",
        "resolveJsonModule",
        "resolvePackageJsonExports",
        "resolvePackageJsonImports",
        "strict",
        "strictBindCallApply",
        "strictBuiltinIteratorReturn",
        "strictFunctionTypes",
        "strictNullChecks",
        "strictPropertyInitialization",
        "target",
        "useDefineForClassFields",
        "useUnknownInCatchVariables",
        "verbatimModuleSyntax",
    }
)
_OPTION_VALUE = {
    "anyOf": [
        {"type": ["string", "boolean"]},
        {"type": "array", "items": {"type": "string"}},
    ]
}
_FLAG: Final = re.compile(r"^--([a-zA-Z]+)(?:=(.+))?$")
_CODE: Final = re.compile(r"^(?:TS)?([0-9]{4,5})$")
#: Options whose value is a list (given to a flag as `--lib=es2022,dom`).
_LISTS: Final = frozenset({"lib", "customConditions"})


class TscCheck(Check):
    """The TypeScript compiler finds no error (or none of the listed error codes).

    Why: type correctness, and declaration style under `strict` (no implicit `any`, null
    checked), are what the compiler decides; it is to TypeScript what the `mypy` check
    is to Python. The compiler runs once per distinct set of options over all the
    TypeScript in the session (the program `tsc --noEmit` builds), with its options
    taken only from the task: a `tsconfig.json` beside the code is never read.

    Options: `strict` (bool), `flags` (compiler flags as `tsc` takes them, e.g.
    `--noImplicitAny`, `--noUnusedLocals`, `--target=es2020`, `--lib=es2022,dom`),
    `compiler-options` (the same as `tsconfig.json`'s `compilerOptions`, e.g.
    `{noUncheckedIndexedAccess: true}`), `target` (e.g. `es2020`), `error-codes` (count
    only these codes, e.g. `[TS2322, TS7006]`), `ignore-missing-imports` (an import of a
    package that is not there is `any`, as mypy's `--ignore-missing-imports`: no
    package of the code is installed, only Node's own types). Options that name files
    or write anything are refused. `// @ts-ignore`, `// @ts-expect-error` and
    `// @ts-nocheck` comments in the code are disregarded (and reported) unless
    `allow-suppressions: true`.

    Without options: `strict` off, the newest library with the DOM's and Node's types
    (`@types/node`), ES modules resolved as a bundler does (imports without extensions),
    JSON imports, JSX read as written. Each answer is a module of its own. Every error
    is counted, syntax errors the compiler finds included (the code does not compile).

    The compiler (npm `typescript` with `@types/node`, and Node.js) must be installed:
    on `PATH`, or in the folder named by `CODEIF_NODE_TOOLS`; without it the verdict is
    a `missing-tool` error.

    Example:

        - check: tsc
          strict: true
    """

    name = "tsc"
    category = "Code Quality"
    languages: ClassVar[frozenset[str]] = frozenset({TYPESCRIPT.name})
    advice = (
        "Fix the types the TypeScript compiler reports: correct the code or its annotations "
        "(and add the missing ones under strict settings) rather than silencing errors with "
        "`any`, casts or `// @ts-ignore`."
    )
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "strict": {"type": "boolean"},
            "flags": {"type": "array", "items": {"type": "string", "pattern": "^--"}},
            "compiler-options": {
                "type": "object",
                "propertyNames": {"enum": sorted(ALLOWED_OPTIONS)},
                "additionalProperties": _OPTION_VALUE,
            },
            "target": {"type": "string", "pattern": "^(es[0-9]{1,4}|esnext)$"},
            "allow-suppressions": {"type": "boolean"},
            "ignore-missing-imports": {"type": "boolean"},
            "error-codes": {
                "type": "array",
                "items": {"type": "string", "pattern": "^(TS)?[0-9]{4,5}$"},
                "minItems": 1,
            },
        },
        "additionalProperties": False,
    }
    satisfied_by = (
        Sample(
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
            {"strict": True},
            language="typescript",
        ),
        Sample("export function twice(x) {\n  return x * 2;\n}\n", {}, language="typescript"),
        Sample(
            "// @ts-expect-error: the test feeds a string on purpose\n"
            "export const n: number = 'one';\n",
            {"allow-suppressions": True},
            language="typescript",
        ),
    )
    violated_by = (
        Sample(
            "export function twice(x) {\n  return x * 2;\n}\n",
            {"strict": True},
            language="typescript",
            message="implicitly has an 'any' type",
            line=1,
        ),
        Sample(
            "export const n: number = 'one';\n",
            {},
            language="typescript",
            message="not assignable to type 'number'",
            line=1,
        ),
        Sample(
            "// @ts-ignore\nexport const n: number = 'one';\n",
            {},
            language="typescript",
            line=2,
        ),
        Sample(
            "const xs: number[] = [1, 2];\nexport const first: number = xs[0];\n",
            {
                "strict": True,
                "compiler-options": {"noUncheckedIndexedAccess": True},
                "error-codes": ["TS2322"],
            },
            language="typescript",
            line=2,
        ),
    )

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        chosen: dict[str, Any] = {}
        for flag in options.get("flags", ()):
            name, value = _flag(flag)
            chosen[name] = value
        chosen.update(options.get("compiler-options", {}))
        if options.get("strict"):
            chosen["strict"] = True
        if "target" in options:
            chosen["target"] = options["target"]
        self.config = TscConfig.from_mapping(
            chosen,
            ignore_missing_imports=bool(options.get("ignore-missing-imports", False)),
            honor_ignores=bool(options.get("allow-suppressions", False)),
        )
        self.codes = frozenset(_code(code) for code in options.get("error-codes", ()))

    @classmethod
    def unavailable(cls) -> str | None:
        return tsc_missing()

    def tool_configs(self) -> Iterable[ToolConfig]:
        return (self.config,)

    def evaluate(self, ctx: CheckContext) -> Iterable[Finding]:
        findings = ctx.tsc(self.config)
        return [f for f in findings if not self.codes or f.rule in self.codes]


def _flag(flag: str) -> tuple[str, Any]:
    """A `tsc` flag as a compiler option: `--strict` -> ("strict", True)."""
    found = _FLAG.match(flag)
    name = found.group(1) if found else None
    if found is None or name not in ALLOWED_OPTIONS:
        close = [o for o in ALLOWED_OPTIONS if name and o.lower() == name.lower()]
        hint = f"; did you mean '--{close[0]}'?" if close else ""
        raise ValueError(f"compiler flag {flag!r} is not allowed here{hint}")
    raw = found.group(2)
    if raw is None or raw.lower() == "true":
        return name, True
    if raw.lower() == "false":
        return name, False
    if name in _LISTS:
        return name, [part.strip() for part in raw.split(",") if part.strip()]
    return name, raw


def _code(code: str) -> str:
    found = _CODE.match(code)
    return f"TS{found.group(1)}" if found else code

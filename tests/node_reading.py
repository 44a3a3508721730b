"""An independent reading of a Node project's imports, for the tests of the JS/TS module
graph: the specifiers found by regular expressions (not by ast-grep), resolved by Node's
own resolvers (`createRequire(file).resolve` for CommonJS, `import.meta.resolve` for ES
modules) and, for TypeScript, by the TypeScript compiler's (`ts.resolveModuleName`, with
the project's tsconfig read by TypeScript itself: `extends`, `paths`, JSONC), when it is
installed (`tools_node.found.typescript_package`).

Also the architecture verdicts read the plain way a benchmark's verifier reads them: a
file's layer is its first folder under the top folder; a lower layer reaching a higher
one through files of no layer is a violation; sibling folders importing each other in a
cycle break `acyclic`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

NODE: Final = shutil.which("node")

_SCRIPT: Final = r"""
import { readFileSync, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const input = JSON.parse(readFileSync(0, "utf8"));
const root = input.root;
const ts = input.typescript ? createRequire(import.meta.url)(input.typescript) : null;
const FROM = /\b(import|export)\s+(type\s+)?([^;'"`]*?)\s*from\s*['"]([^'"]+)['"]/g;
const BARE = /\bimport\s*['"]([^'"]+)['"]/g;
const CALLS = /\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/g;

function packageType(file) {
  let dir = dirname(file);
  while (dir.startsWith(root)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type;
    if (dir === root) break;
    dir = dirname(dir);
  }
  return undefined;
}

const configs = new Map();
function compilerOptions(file) {
  const found = ts.findConfigFile(dirname(file), ts.sys.fileExists);
  if (!found) return {};
  if (!configs.has(found)) {
    const read = ts.readConfigFile(found, ts.sys.readFile);
    configs.set(found, ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(found)).options);
  }
  return configs.get(found);
}

function isFile(path) {
  return existsSync(path) && statSync(path).isFile();
}

function resolve(file, specifier) {
  if (specifier.startsWith("node:")) return null;
  if (/\.(ts|tsx|mts|cts)$/.test(file)) {
    if (!ts) return undefined;
    const found = ts.resolveModuleName(specifier, file, compilerOptions(file), ts.sys);
    return found.resolvedModule ? found.resolvedModule.resolvedFileName : null;
  }
  if (file.endsWith(".mjs") || (!file.endsWith(".cjs") && packageType(file) === "module")) {
    try {
      const path = fileURLToPath(import.meta.resolve(specifier, pathToFileURL(file).href));
      return isFile(path) ? path : null;
    } catch {
      return null;
    }
  }
  try {
    return createRequire(file).resolve(specifier);
  } catch {
    return null;
  }
}

function lineOf(text, index) {
  return text.slice(0, index).split("\n").length;
}

const out = [];
for (const relpath of input.files) {
  const file = join(root, relpath);
  const text = readFileSync(file, "utf8");
  const found = [];
  for (const m of text.matchAll(FROM)) {
    const at = m.index + m[0].lastIndexOf(m[4]);
    found.push([m[4], lineOf(text, at), Boolean(m[2])]);
  }
  for (const m of text.matchAll(BARE)) found.push([m[1], lineOf(text, m.index), false]);
  for (const m of text.matchAll(CALLS)) found.push([m[1], lineOf(text, m.index), false]);
  for (const [specifier, line, typeOnly] of found) {
    const target = resolve(file, specifier);
    if (target === undefined) continue;
    const inside = target && !relative(root, target).startsWith("..") &&
      !target.split(sep).includes("node_modules");
    const reached = inside ? relative(root, target).split(sep).join("/") : null;
    out.push([relpath, line, specifier, reached, typeOnly]);
  }
}
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True, order=True)
class NodeEdge:
    """One import as Node (or TypeScript) resolves it: the importer's file and line,
    the specifier, the project file reached (None: a package, or nothing)."""

    relpath: str
    line: int
    specifier: str
    target: str | None
    type_only: bool


def typescript_module() -> str | None:
    """The TypeScript package's main file, when TypeScript is installed."""
    from pytest_codeif.tools_node.found import typescript_package

    folder = typescript_package()
    main = folder / "lib" / "typescript.js" if folder is not None else None
    return str(main) if main is not None and main.is_file() else None


def node_edges(root: Path, files: Iterable[str]) -> list[NodeEdge]:
    """Every import of `files` (project-relative) as Node's and TypeScript's resolvers
    read it (TypeScript files skipped when TypeScript is not installed)."""
    assert NODE is not None
    payload = {
        "root": str(root.resolve()),
        "files": sorted(files),
        "typescript": typescript_module(),
    }
    run = subprocess.run(
        [NODE, "--experimental-import-meta-resolve", "--input-type=module", "-e", _SCRIPT],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return sorted(NodeEdge(*row) for row in json.loads(run.stdout))


def layer_violations(
    edges: Iterable[tuple[str, str]], top: str, layers: list[str]
) -> set[tuple[str, str]]:
    """(lower layer, higher layer) for each lower layer whose files reach a higher
    layer's through files of no layer, from file-level `edges`."""
    rank = {name: index for index, name in enumerate(layers)}
    following: dict[str, set[str]] = {}
    for importer, imported in edges:
        following.setdefault(importer, set()).add(imported)

    def layer(relpath: str) -> str | None:
        parts = relpath.split("/")
        return parts[1] if len(parts) > 2 and parts[0] == top and parts[1] in rank else None

    found: set[tuple[str, str]] = set()
    for start in following:
        home = layer(start)
        if home is None:
            continue
        seen, stack = {start}, [start]
        while stack:
            for nxt in following.get(stack.pop(), ()):
                if nxt in seen:
                    continue
                seen.add(nxt)
                there = layer(nxt)
                if there is None:
                    stack.append(nxt)
                elif there != home and rank[there] < rank[home]:
                    found.add((home, there))
    return found


def sibling_cycles(edges: Iterable[tuple[str, str]], top: str) -> list[set[str]]:
    """The cycles (strongly connected sets of two or more) among the children of the
    folder `top` (a child is the first name under it, a file's without its suffix)."""
    graph: dict[str, set[str]] = {}

    def child(relpath: str) -> str | None:
        parts = relpath.split("/")
        if len(parts) < 2 or parts[0] != top:
            return None
        return parts[1].split(".")[0]

    for importer, imported in edges:
        a, b = child(importer), child(imported)
        if a is not None and b is not None and a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    return [group for group in _components(graph) if len(group) > 1]


def _components(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """Strongly connected components (Kosaraju), each a set of nodes."""
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        seen.add(start)
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                order.append(node)
                stack.pop()
            elif nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(sorted(graph[nxt]))))
    reverse: dict[str, set[str]] = {node: set() for node in graph}
    for node, targets in graph.items():
        for target in targets:
            reverse[target].add(node)
    groups: list[set[str]] = []
    assigned: set[str] = set()
    for node in reversed(order):
        if node in assigned:
            continue
        group, stack2 = set(), [node]
        assigned.add(node)
        while stack2:
            current = stack2.pop()
            group.add(current)
            for prev in reverse[current]:
                if prev not in assigned:
                    assigned.add(prev)
                    stack2.append(prev)
        groups.append(group)
    return groups

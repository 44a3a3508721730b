"""TypeScript (and JSX) to JavaScript for the Node worker, on the host.

Node.js 20 cannot run TypeScript, so the TypeScript compiler's `transpileModule` turns
each `.ts`, `.tsx`, `.mts`, `.cts` and `.jsx` file of a unit into CommonJS JavaScript,
kept under its own name (the worker registers those suffixes, see `node_harness.mjs`).
It runs here, on the host, not in the sandbox: the transpiler is trusted code and the
source is only its input text, which it parses and prints without reading another file,
resolving an import, checking a type or running any of it (as ruff, mypy and tsc read
hostile text on the host). Here it costs nothing of the case's timeout, and the
sandbox needs no TypeScript. It runs in a Node.js of its own, with a timeout and a heap
cap, in an environment with nothing of the user's; its output is hostile code again, run
only in the sandbox. No type is checked: a type error does not stop a call case (the
`tsc` check judges types).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from pytest_codeif.functional.node_tools import Node, host_env

SCRIPT: Final = Path(__file__).with_name("node_transpile.cjs")
#: The suffixes of the files transpiled (a `.d.ts` is not source: never run).
SUFFIXES: Final = (".ts", ".tsx", ".mts", ".cts", ".jsx")
#: Seconds one batch may take (a unit's files at once; typescript.js loads in ~0.3 s).
TIMEOUT: Final = 120.0
#: Transpiled files kept, by their text's hash (the same file of several runs).
CACHED_FILES: Final = 2048


class TranspileError(Exception):
    """The transpiler could not be run, or failed."""


def transpiled(relpath: str) -> bool:
    """Whether the file at `relpath` runs transpiled."""
    return relpath.endswith(SUFFIXES)


_cache: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()


def transpile(sources: Mapping[str, str], node: Node, typescript: Path) -> dict[str, str]:
    """Each file of `sources` (relative path -> text) as CommonJS JavaScript."""
    keys = {rel: _key(typescript, rel, text) for rel, text in sources.items()}
    done: dict[str, str] = {}
    with _lock:
        for rel, key in keys.items():
            if key in _cache:
                _cache.move_to_end(key)
                done[rel] = _cache[key]
    todo = {rel: text for rel, text in sources.items() if rel not in done}
    if todo:
        fresh = _run(todo, node, typescript)
        with _lock:
            for rel, text in fresh.items():
                _cache[keys[rel]] = text
                while len(_cache) > CACHED_FILES:
                    _cache.popitem(last=False)
        done.update(fresh)
    return done


def _key(typescript: Path, relpath: str, text: str) -> str:
    digest = hashlib.sha256()
    for part in (str(typescript), relpath, text):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _run(sources: Mapping[str, str], node: Node, typescript: Path) -> dict[str, str]:
    request = json.dumps({"files": dict(sources)})  # ASCII: escapes reach Node intact
    argv = [str(node.path), "--max-old-space-size=2048", str(SCRIPT), str(typescript)]
    try:
        done = subprocess.run(
            argv,
            input=request.encode("ascii"),
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env=host_env(),
        )
    except subprocess.TimeoutExpired:
        raise TranspileError(f"the TypeScript transpiler took over {TIMEOUT:g} s") from None
    except OSError as exc:
        raise TranspileError(f"the TypeScript transpiler could not start: {exc}") from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        raise TranspileError(
            f"the TypeScript transpiler failed (exit code {done.returncode})"
            + (f": {said[-1][:300]}" if said else "")
        )
    try:
        answer = json.loads(done.stdout)
        files = answer["files"]
    except (ValueError, KeyError, TypeError):
        raise TranspileError("the TypeScript transpiler answered no JSON") from None
    if not isinstance(files, dict) or set(files) != set(sources):
        raise TranspileError("the TypeScript transpiler did not answer for every file")
    return {str(rel): str(text) for rel, text in files.items()}

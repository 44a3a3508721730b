"""Where Node.js and the TypeScript compiler are on this machine, for call cases of
JavaScript and TypeScript code (see `node_calls.py`).

Node.js is `node` on PATH (Debian's `nodejs` too), resolved to its real file: the
sandbox executes it by that path (`sandbox/isolation.py` binds the executable when it
lies outside the system folders, nvm's say). The TypeScript compiler is the npm package
`typescript`, found as the `tsc` check finds it: in `$CODEIF_NODE_TOOLS/node_modules` (a
folder where the tools were installed with npm, as CI does), else the package of the
`tsc` on PATH.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from pytest_codeif.tools_node.found import NODE_TOOLS_ENV, typescript_package

#: The oldest Node.js whose module loading the harness relies on (ES module syntax in a
#: `.js` file detected, `import()` of CommonJS).
OLDEST: Final = (20, 10)
#: The JavaScript heap of the Node worker, MiB (its address space is larger: see
#: `node_calls.NODE_MEMORY`).
HEAP_MIB: Final = 1024

NO_NODE: Final = (
    "Node.js (`node`) is not installed: install Node.js 20 or later to run the call "
    "cases of JavaScript and TypeScript code"
)
NO_TYPESCRIPT: Final = (
    "the TypeScript compiler (npm package `typescript`) is not found: install it with npm "
    f"and put its `tsc` on PATH, or set {NODE_TOOLS_ENV} to the folder holding its "
    "node_modules, to run the call cases of TypeScript code"
)


@dataclass(frozen=True)
class Node:
    """A Node.js executable and its version."""

    path: Path
    version: tuple[int, int, int]

    def flags(self) -> list[str]:
        """The worker's flags: its heap capped (the address space limit alone would
        abort V8 with no message), a rejected promise nobody awaits said on stderr
        instead of ending the run, no OpenSSL configuration read (the sandbox's /etc
        holds none, and one it cannot read stops Node at start), ES module syntax in a
        `.js` file detected."""
        flags = [
            f"--max-old-space-size={HEAP_MIB}",
            "--unhandled-rejections=warn",
            "--openssl-config=/dev/null",
        ]
        if self.version >= (20, 10):
            flags.append("--experimental-detect-module")
        return flags


def find_node() -> Node | None:
    """Node.js on PATH, or None (also when it is too old: see OLDEST, or fails to say
    its version)."""
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        return None
    path = Path(found).resolve()
    version = _version(str(path))
    return Node(path, version) if version is not None and version >= OLDEST else None


@cache
def _version(node: str) -> tuple[int, int, int] | None:
    try:
        done = subprocess.run(
            [node, "--version"], capture_output=True, timeout=30, check=False, env=host_env()
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.fullmatch(rb"v(\d+)\.(\d+)\.(\d+)\s*", done.stdout)
    if done.returncode != 0 or found is None:
        return None
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


def find_typescript() -> Path | None:
    """The `typescript` package folder (holding `lib/typescript.js`), or None: found as
    the `tsc` check finds it (`tools_node.found`)."""
    package = typescript_package()
    return (
        package if package is not None and (package / "lib" / "typescript.js").is_file() else None
    )


def host_env() -> dict[str, str]:
    """The environment of Node.js run on the host (its version, the transpiler): nothing
    of the user's, NODE_OPTIONS included."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}

"""How a sandboxed interpreter starts: `python -S -s -P inside.py ...` (or
`inside_server.py`), given the paths site would have set up.

Site processing costs most of an interpreter's start (an editable install's `.pth` import
hook alone imports pathlib and re). The paths it gives do not change within a session, so
one site-enabled interpreter is asked for them once, and every sandboxed interpreter
starts without site and sets them directly (see `inside.prepare_interpreter`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

INSIDE: Final = Path(__file__).with_name("inside.py")
INSIDE_SERVER: Final = Path(__file__).with_name("inside_server.py")
#: No site, no user site, no script folder on the path (`-I` would also drop every
#: PYTHON* variable, PYTHONHASHSEED=0 among them; the environment is ours entirely).
FLAGS: Final = ("-S", "-s", "-P")


@cache
def site_paths(env_items: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """sys.path, sys.prefix and sys.exec_prefix of `python -s -P` with this environment."""
    probe = "import json, sys; print(json.dumps([sys.path, sys.prefix, sys.exec_prefix]))"
    done = subprocess.run(
        [sys.executable, "-s", "-P", "-c", probe],
        env=dict(env_items),
        capture_output=True,
        check=True,
        timeout=60,
    )
    path, prefix, exec_prefix = json.loads(done.stdout)
    return {"path": path, "prefix": prefix, "exec_prefix": exec_prefix}


def interpreter_spec(env: Mapping[str, str]) -> dict[str, Any]:
    """What `inside.prepare_interpreter` needs for an interpreter started with `env`."""
    return dict(site_paths(tuple(sorted(env.items()))))


def launch_argv(spec: Mapping[str, Any], args: Sequence[str]) -> list[str]:
    """The command line running `python ARGS` through `inside.py launch`."""
    return [sys.executable, *FLAGS, str(INSIDE), "launch", json.dumps(dict(spec)), "--", *args]


def serve_argv(spec: Mapping[str, Any]) -> list[str]:
    """The command line of a fork server (`inside_server.py`)."""
    return [sys.executable, *FLAGS, str(INSIDE_SERVER), json.dumps(dict(spec))]

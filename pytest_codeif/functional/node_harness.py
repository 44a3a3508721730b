"""Sandboxed harness of call cases for JavaScript and TypeScript: the supervisor of
`harness.py` (the one process holding the result channel, not dumpable, deaf to the
worker's signals), whose worker executes Node.js on `node_harness.mjs` instead of
importing Python code. Standard library only.

The worker is forked by `supervisor.Supervisor.start`, so it has closed the channel and
waited for the supervisor to shield itself before it executes `node`: Node inherits the
run's rlimits, seccomp filter, namespaces and uid, the two pipes of the protocol, and a
memory file holding the request (read and closed by the Node side before the code
loads). The supervisor's side is `harness.supervise`, unchanged: one request per case,
one bounded reply of the same shapes, nothing unasked.

Usage: python node_harness.py --channel FD < REQUEST.json (see `node_calls.py`).
"""

import importlib.util
import json
import os
import sys
from typing import Any

#: Modules beside this file that it loads (a fork server loads them once, ahead).
BESIDE = ("supervisor", "harness")


def _beside(name: str) -> Any:
    """The module `name` beside this file: the one a fork server loaded ahead (see
    BESIDE), else loaded by path now (the package is not on the sandbox's path)."""
    module = sys.modules.get("_codeif_" + name)
    if module is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
        spec = importlib.util.spec_from_file_location("_codeif_" + name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules["_codeif_" + name] = module
        spec.loader.exec_module(module)
    return module


def execute_node(request: dict[str, Any], link: Any) -> None:
    """In the worker (the channel closed, the supervisor shielded): become Node.js on the
    harness script, with the protocol's pipes and the request in a memory file."""
    requests, replies = link.descriptors()
    for fd in (requests, replies):
        os.set_inheritable(fd, True)
    memo = os.memfd_create("codeif-node-request", 0)  # no MFD_CLOEXEC: Node reads it
    data = memoryview(json.dumps(request).encode())
    while data:
        data = data[os.write(memo, data) :]
    os.lseek(memo, 0, os.SEEK_SET)
    node = request["node"]
    argv = [node, *request["flags"], request["script"], str(memo), str(requests), str(replies)]
    os.execv(node, argv)  # noqa: S606 - the host's own Node, by its path


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    supervising = _beside("supervisor")
    harness = _beside("harness")
    supervisor = supervising.Supervisor(int(sys.argv[sys.argv.index("--channel") + 1]))
    supervisor.start(lambda link: execute_node(request, link))
    try:
        harness.supervise(request, supervisor, supervising.ProtocolError)
    except supervising.ProtocolError as exc:
        supervisor.stop(exc)
    supervisor.stop()


if __name__ == "__main__":
    main()

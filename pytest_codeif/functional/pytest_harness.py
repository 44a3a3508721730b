"""Sandboxed harness of a `pytest:` file: a supervisor that holds the result channel, and
a worker it forks that runs pytest on the test file (which imports the code under
evaluation) with the reporting plugin of `child_report.py`. See `supervisor.py`.

The supervisor gives the worker a fresh signing key before pytest starts, and writes to
the channel only outcome lines signed with it, each checked for shape and cut to size, at
most MAX_RECORDS of them; anything else written to the worker's pipe ends the run as a
`protocol` error. It exits with the worker's exit status.

Usage: python pytest_harness.py --channel FD < REQUEST.json, the request naming the child
pytest's arguments (`args`).
"""

import hmac
import importlib.util
import json
import os
import sys
from typing import Any

import pytest

#: Modules beside this file that it loads (a fork server loads them once, ahead).
BESIDE = ("supervisor", "child_report")
#: Outcome lines written to the channel at most (a test file with more parametrized
#: cases than this is cut, and the run is a protocol error).
MAX_RECORDS = 10_000
MAX_MESSAGE = 2000  # child_report's MESSAGE_CHARACTERS and its marker fit
OUTCOMES = frozenset({"passed", "failed", "error", "skipped", "collect-error"})


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
        spec.loader.exec_module(module)
    return module


def work(args: list[str], reporting: Any, link: Any) -> None:
    """The worker: run pytest with the signing reporter; exit with pytest's status."""
    asked = link.receive()
    key = bytes.fromhex(asked["key"])
    writer = reporting.Writer(link.send, key)  # with the fixtures codeif_service_url...
    raise SystemExit(int(pytest.main(args, plugins=[writer])))


def checked(record: Any) -> dict[str, str] | None:
    """An outcome line as the channel takes it, or None when it is not one."""
    if not isinstance(record, dict) or set(record) != {"nodeid", "outcome", "message"}:
        return None
    nodeid, outcome, message = record["nodeid"], record["outcome"], record["message"]
    if not (isinstance(nodeid, str) and isinstance(message, str) and outcome in OUTCOMES):
        return None
    return {"nodeid": nodeid[:500], "outcome": outcome, "message": message[:MAX_MESSAGE]}


def supervise(supervisor: Any, reporting: Any, key: bytes, protocol_error: type) -> None:
    """Write each signed, well-formed outcome line; stop at the first other one."""
    written = 0
    while True:
        reply = supervisor.reply()
        if reply is None:
            return
        payload, signature = reply.get("record"), reply.get("sig")
        if (
            set(reply) != {"record", "sig"}
            or not isinstance(payload, str)
            or not isinstance(signature, str)
            or not hmac.compare_digest(reporting.sign(key, payload), signature)
        ):
            raise protocol_error("the code wrote a test outcome of its own to the harness's pipe")
        try:
            record = checked(json.loads(payload))
        except (ValueError, RecursionError):
            record = None
        if record is None:
            raise protocol_error("a signed outcome line of the wrong shape")
        written += 1
        if written > MAX_RECORDS:
            raise protocol_error(f"more than {MAX_RECORDS} test outcomes")
        supervisor.emit(record)


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    supervising, reporting = _beside("supervisor"), _beside("child_report")
    supervisor = supervising.Supervisor(int(sys.argv[sys.argv.index("--channel") + 1]))
    supervisor.start(lambda link: work([str(a) for a in request["args"]], reporting, link))
    key = os.urandom(32)
    supervisor.ask({"key": key.hex()})
    try:
        supervise(supervisor, reporting, key, supervising.ProtocolError)
    except supervising.ProtocolError as exc:
        supervisor.stop(exc)
    supervisor.stop()


if __name__ == "__main__":
    main()

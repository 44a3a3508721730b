"""Sandboxed harness of call cases: a supervisor that holds the result channel, and a
worker it forks that imports the code under evaluation and makes one call per request.
Standard library only (see `supervisor.py` for what each side may do).

The worker answers each request with the call's value, encoded by its exact type
(`type(x) is int`, never `isinstance`), so a subclass with a patched `__eq__`, or any
object that is not plain data, is reported as unsupported instead of reaching the
comparison; or with the exception it raised, named by class identity: a built-in class
by its name only when it is the built-in itself (captured before the code is imported),
any other class as `module.qualname`, along its real bases. Expected values are never
sent here: the host compares. The supervisor writes to the channel only the replies it
asked for, one per case, in order, bounded in size.

Usage: python harness.py --channel FD < REQUEST.json (run by `sandbox/inside.py`, in a
fresh interpreter or in a child of a fork server, which has imported this file's imports).
The request comes on stdin, which is then replaced by /dev/null (the code reads EOF).
"""

import builtins
import importlib
import importlib.util
import json
import math
import os
import sys
from typing import Any

#: Modules beside this file that it loads (a fork server loads them once, ahead).
BESIDE = ("supervisor",)
MAX_DEPTH = 50
MAX_ITEMS = 100_000
#: Characters of an exception's message kept (the worker cuts; the supervisor enforces).
MAX_MESSAGE = 500
#: Exception classes named along a raised exception's bases, at most.
MAX_NAMES = 64

# Captured when the harness starts, before anything of the code runs: the code may
# rebind the names later, not these references.
_TYPE = type
_BASES = type.__dict__["__bases__"].__get__
_NAME = type.__dict__["__name__"].__get__
_QUALNAME = type.__dict__["__qualname__"].__get__
_MODULE = type.__dict__["__module__"].__get__
_BUILTIN_EXCEPTIONS = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


class _TooBig(Exception):
    """The value is too large or too deep to send back."""


def encode(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """Plain, tagged JSON for `value`; anything else becomes {"$unsupported": type}."""
    budget = budget if budget is not None else [MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise _TooBig()
    kind = _TYPE(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$float": repr(value)}
    if kind is list:
        return [encode(v, depth + 1, budget) for v in value]
    if kind is tuple:
        return {"$tuple": [encode(v, depth + 1, budget) for v in value]}
    if kind is set or kind is frozenset:
        return {"$set": [encode(v, depth + 1, budget) for v in value]}
    if kind is dict:
        return {
            "$dict": [
                [encode(k, depth + 1, budget), encode(v, depth + 1, budget)]
                for k, v in value.items()
            ]
        }
    if kind is bytes:
        return {"$bytes": value.hex()}
    return {"$unsupported": _class_name(kind)}


def _class_name(cls: type) -> str:
    try:
        return f"{_MODULE(cls)}.{_QUALNAME(cls)}"[:200]
    except BaseException:  # a class with no readable name
        return "an object"


def _safe_text(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_MESSAGE]
    except BaseException:  # a hostile __str__ must not stop the harness
        return "(message unavailable)"


def exception_names(exc: BaseException) -> list[str]:
    """The raised exception's class and its bases, by identity: a built-in exception by
    its bare name only when it is that built-in object, any other class as
    `module.qualname` (a class of the code named `ValueError` is not `ValueError`).
    Bases are read from the classes themselves, not from an `mro()` a metaclass wrote."""
    names: list[str] = []
    seen: set[int] = set()
    todo: list[type] = [_TYPE(exc)]
    while todo and len(names) < MAX_NAMES:
        cls = todo.pop(0)
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        name = _NAME(cls)
        names.append(name if _BUILTIN_EXCEPTIONS.get(name) is cls else _class_name(cls))
        todo.extend(_BASES(cls))
    return names


def work(request: dict[str, Any], link: Any) -> None:
    """The worker: import the code, then answer each request for a case."""
    sys.path.insert(0, request["root"])
    try:
        module = importlib.import_module(request["module"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        failure: dict[str, Any] = {"import_error": _TYPE(exc).__name__, "message": _safe_text(exc)}
        if isinstance(exc, ModuleNotFoundError) and isinstance(exc.name, str):
            failure["missing"] = exc.name[:200]  # the host checks it is really not installed
        link.send(failure)
        return
    link.send({"imported": True})
    namespace = vars(module)
    cases = request["cases"]
    while True:
        asked = link.receive()
        if not isinstance(asked, dict) or "case" not in asked:
            return
        case = cases[asked["case"]]
        try:
            if case.get("expression") is not None:
                value = eval(case["expression"], namespace)  # the case text is the task's own
            else:
                value = getattr(module, case["function"])(*case["args"], **case["kwargs"])
        except BaseException as exc:
            link.send({"raised": exception_names(exc), "message": _safe_text(exc)})
            continue
        try:
            link.send({"value": encode(value)})
        except _TooBig:
            link.send({"value": {"$unsupported": "a value too large or deep to compare"}})
        except BaseException as exc:
            link.send({"value": {"$unsupported": "unencodable: " + _safe_text(exc)}})


def _checked_reply(reply: dict[str, Any]) -> dict[str, Any]:
    """A case's reply as the channel takes it: a value, or an exception's names and
    message (cut to size); anything else is a protocol error (raised by the caller)."""
    if set(reply) == {"value"}:
        return reply
    raised, message = reply.get("raised"), reply.get("message")
    if (
        set(reply) == {"raised", "message"}
        and isinstance(raised, list)
        and all(isinstance(n, str) for n in raised)
        and isinstance(message, str)
    ):
        return {"raised": [n[:200] for n in raised[:MAX_NAMES]], "message": message[:MAX_MESSAGE]}
    return {}


def supervise(request: dict[str, Any], supervisor: Any, protocol_error: type) -> None:
    """The supervisor's side: ask for each case in turn, write each reply it asked for."""
    reply = supervisor.reply()
    if reply is None:
        return  # the worker died importing the code: the host reads its exit status
    if "import_error" in reply:
        failure = {
            "import_error": str(reply.get("import_error"))[:200],
            "message": str(reply.get("message"))[:MAX_MESSAGE],
        }
        if isinstance(reply.get("missing"), str):
            failure["missing"] = reply["missing"][:200]
        supervisor.emit(failure)
        return
    if reply != {"imported": True}:
        raise protocol_error("the code wrote to the harness's pipe while it was imported")
    supervisor.emit({"imported": True})
    for index in range(len(request["cases"])):
        supervisor.ask({"case": index})
        reply = supervisor.reply()
        if reply is None:
            return  # the worker ended: the cases left have no result
        record = _checked_reply(reply)
        if not record:
            raise protocol_error(f"an answer to case {index} that is not one")
        supervisor.emit({"case": index, **record})
    supervisor.finish()
    supervisor.emit({"done": True})


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


def main() -> None:
    request = json.load(sys.stdin)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    supervising = _beside("supervisor")
    supervisor = supervising.Supervisor(int(sys.argv[sys.argv.index("--channel") + 1]))
    supervisor.start(lambda link: work(request, link))
    try:
        supervise(request, supervisor, supervising.ProtocolError)
    except supervising.ProtocolError as exc:
        supervisor.stop(exc)
    supervisor.stop()


if __name__ == "__main__":
    main()

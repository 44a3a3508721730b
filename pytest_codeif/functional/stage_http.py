"""HTTP in the stage (`stage_harness.py`): `${name}` substitution, one request to the
service with its answer kept within bounds, values captured from a JSON answer, and the
readiness probe. Standard library only; loaded by file path inside the sandbox.

The service is hostile: every wait has a hard deadline (a timer signal, not only socket
timeouts, so a service that dribbles a byte a second cannot stretch a request), the
body is read up to MAX_BODY bytes, headers are counted and cut, and nothing of the
answer is ever evaluated: it is data for the host to judge.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import signal
import socket

TYPE_CHECKING = False  # typing itself is not imported: the stage starts without it
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from types import FrameType
    from typing import Any, Final

#: Bytes of a response body kept (and read: the rest is left unread).
MAX_BODY: Final = 1 << 20
MAX_HEADERS: Final = 100
MAX_HEADER_NAME: Final = 200
MAX_HEADER_VALUE: Final = 8192
#: Seconds one readiness probe may take.
PROBE_SECONDS: Final = 2.0
HOST: Final = "127.0.0.1"
_VARIABLE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: A capture's path, as `json_expect.at_path` reads one: `user.token`, `articles[0].slug`.
_STEP: Final = re.compile(r"\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]")
_MISSING: Final = object()


class UnknownVariable(Exception):
    """A `${name}` no variable answers (never captured, or not a known name)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown variable ${{{name}}} (never captured, and not a known name)")
        self.name = name


class StepTimeout(Exception):
    """The step's time ran out."""


class NoAnswer(Exception):
    """No answer came (its message says why, in words)."""


def as_text(value: Any) -> str:
    """A variable's value inside a string: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def substitute_text(text: str, variables: Mapping[str, Any]) -> str:
    """`text` with every `${name}` replaced by its variable's value as text."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise UnknownVariable(name)
        return as_text(variables[name])

    return _VARIABLE.sub(value, text)


def substitute(value: Any, variables: Mapping[str, Any]) -> Any:
    """A JSON value with `${name}` replaced in every string in it (not in object keys);
    a string that is nothing but one `${name}` becomes the variable's value itself, so a
    captured number stays a number."""
    if isinstance(value, str):
        whole = _VARIABLE.fullmatch(value)
        if whole is not None:
            if whole.group(1) not in variables:
                raise UnknownVariable(whole.group(1))
            return variables[whole.group(1)]
        return substitute_text(value, variables)
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, variables) for key, item in value.items()}
    return value


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise StepTimeout in the block once `seconds` have passed (a real-time timer:
    the stage is single-threaded, and only its own code runs in the block)."""

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise StepTimeout(f"timed out after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def request(
    port: int,
    *,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes | None,
    timeout: float,
) -> dict[str, Any]:
    """Send one request to the service and return what came back: `status`, `headers`
    ([name, value] pairs, counted and cut), `body` (text, cut at MAX_BODY bytes) and
    `truncated`. Raises NoAnswer."""
    try:
        return _request(port, method=method, path=path, headers=headers, body=body, timeout=timeout)
    except (OSError, http.client.HTTPException, ValueError, StepTimeout) as exc:
        raise NoAnswer(failure(exc)) from None


def _request(
    port: int,
    *,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes | None,
    timeout: float,
) -> dict[str, Any]:
    with deadline(timeout):
        connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=dict(headers))
            response = connection.getresponse()
            pairs = [
                [name[:MAX_HEADER_NAME], value[:MAX_HEADER_VALUE]]
                for name, value in response.getheaders()[:MAX_HEADERS]
            ]
            data = _read_body(response)
        finally:
            connection.close()
    return {
        "status": response.status,
        "headers": pairs,
        "body": data[:MAX_BODY].decode("utf-8", "replace"),
        "truncated": len(data) > MAX_BODY,
    }


def _read_body(response: http.client.HTTPResponse) -> bytes:
    """At most MAX_BODY + 1 bytes of the body (one more tells it was cut)."""
    data = bytearray()
    while len(data) <= MAX_BODY:
        chunk = response.read(min(1 << 16, MAX_BODY + 1 - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def failure(exc: BaseException) -> str:
    """Why no answer came, in words (the exception's own text is bounded)."""
    if isinstance(exc, StepTimeout):
        return str(exc)
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (nothing listens on the service's port)"
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out waiting for the service"
    if isinstance(exc, http.client.HTTPException | ValueError):
        said = f"{type(exc).__name__}: {str(exc)[:300]}"
        return f"not an HTTP answer, or a request that cannot be sent: {said}"
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def capture(body: str, paths: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The values at `paths` (name -> path) in the JSON `body`, and the names whose path
    found nothing (or whose body is no JSON)."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        document = _MISSING
    captured: dict[str, Any] = {}
    missing: list[str] = []
    for name, path in paths.items():
        value = _MISSING if document is _MISSING else _at_path(document, path)
        if value is _MISSING:
            missing.append(name)
        else:
            captured[name] = value
    return captured, missing


def _at_path(document: Any, path: str) -> Any:
    current = document
    for match in _STEP.finditer(path):
        key, index = match.group(1), match.group(2)
        if key is not None:
            if not isinstance(current, dict) or key not in current:
                return _MISSING
            current = current[key]
        else:
            position = int(index)
            if not isinstance(current, list) or position >= len(current):
                return _MISSING
            current = current[position]
    return current


def probe(port: int, ready: str, seconds: float) -> bool:
    """Whether the service is ready: `tcp`, a connection is accepted; else a GET of the
    path `ready` is answered with a status below 500."""
    seconds = max(0.05, min(seconds, PROBE_SECONDS))
    try:
        if ready == "tcp":
            with deadline(seconds), socket.create_connection((HOST, port), timeout=seconds):
                return True
        return bool(
            request(port, method="GET", path=ready, headers={}, body=None, timeout=seconds)[
                "status"
            ]
            < 500
        )
    except (OSError, NoAnswer, StepTimeout):
        return False


def tcp_open(port: int, seconds: float) -> bool:
    """Whether something accepts connections on `port` (a database's)."""
    return probe(port, "tcp", seconds)

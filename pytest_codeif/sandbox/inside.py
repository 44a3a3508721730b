"""The first Python code that runs inside the sandbox; standard library only.

Started as `python -S -s -P inside.py launch SPEC -- ARGS`, without site processing: the
paths site would have given (probed once by the parent, see `startup.py`) are set
directly, and `.pth` import hooks (editable installs' finders, setuptools' distutils shim)
are not run, which saves most of an interpreter's start. It sets the rlimits, installs
the seccomp filter of every run (`seccomp.py`: no kernel keyrings, per-uid state that
would outlive the run), then runs ARGS as `python ARGS` would (a script, or `-m module`):
one process per run (`process.py`). The fork server (`inside_server.py`) runs its runs
with the same helpers. This file is kept small: a script is compiled afresh at every
start.
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import signal
import site
import sys
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_codeif.sandbox import seccomp

#: What a run's descriptors become: stdin, stdout, stderr, then the result channel.
CHANNEL_FD = 3
#: Exit status of a run whose sandbox could not be set up (bubblewrap uses 1 and 125+).
SETUP_FAILED = 125
MAX_MESSAGE = 1 << 20
#: The system call sets (see `seccomp.py`) every run is denied: a uid's kernel keyrings
#: outlive its processes, so what a run put there would reach a later run of its uid.
DENIED = ("keyrings",)


def set_limits(pairs: Sequence[Sequence[int]]) -> None:
    """Set each (resource, limit) as both soft and hard limit: the code cannot raise it."""
    for which, value in pairs:
        resource.setrlimit(which, (value, value))


def prepare_interpreter(spec: dict[str, Any]) -> None:
    """Give this `-S` interpreter what site would have: the same sys.path and prefixes,
    and the `exit`, `quit`, `help`, `copyright` builtins that code calls (under -S,
    importing site ran nothing)."""
    sys.path[:] = [str(p) for p in spec["path"]]
    sys.prefix, sys.exec_prefix = str(spec["prefix"]), str(spec["exec_prefix"])
    site.setquit()
    site.setcopyright()
    site.sethelper()


def load_sibling(name: str, filename: str) -> ModuleType:
    """A module of this folder, by path and under `name` (this interpreter has no site,
    so the package is not importable); from its cached bytecode when there is one."""
    from importlib.machinery import SourceFileLoader  # noqa: PLC0415 - when first needed

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), filename)
    module = ModuleType(name)
    module.__file__ = path
    SourceFileLoader(name, path).exec_module(module)
    return module


def run_filter() -> seccomp.Filter | None:
    """The seccomp filter denying `DENIED`, built once per process; None on an
    architecture the filter does not know (`Isolation.gaps` names the promise lost)."""
    module: Any = sys.modules.get("_codeif_seccomp")
    if module is None:
        module = sys.modules["_codeif_seccomp"] = load_sibling("_codeif_seccomp", "seccomp.py")
    return module.prepare(DENIED) if module.supported() else None


def compile_script(path: str) -> CodeType:
    """The code of a script (trusted: the harnesses), compiled as `python PATH` would."""
    with open(path, "rb") as handle:
        return compile(handle.read(), path, "exec", dont_inherit=True)


def run_target(argv: Sequence[str], script: CodeType | None = None) -> None:
    """Run ARGV as `python ARGV` would: a script as `__main__`, or `-m module`."""
    if argv[0] == "-m":
        import runpy  # noqa: PLC0415 - only `-m` needs it

        sys.argv = [argv[1], *argv[2:]]  # run_module puts the module's path first
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    main = ModuleType("__main__")
    main.__file__ = argv[0]
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    sys.argv = list(argv)
    exec(script or compile_script(argv[0]), main.__dict__)  # noqa: S102 - the harness


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent (pytest) dies: the `process`
    backend has no pid namespace that dies with bubblewrap."""
    import ctypes  # noqa: PLC0415 - only the `process` backend pays for it

    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(SETUP_FAILED)


def _deny_kernel_state() -> None:
    """Install `run_filter`; a run that cannot have it does not start."""
    try:
        denied = run_filter()
        if denied is not None:
            denied.install()
    except OSError as exc:
        sys.stderr.write(f"codeif sandbox setup failed: seccomp: {exc}\n")
        sys.stderr.flush()
        os._exit(SETUP_FAILED)


def launch(spec: dict[str, Any], argv: Sequence[str]) -> None:
    """One run in this process: rlimits and the seccomp filter first, before anything of
    the code is imported."""
    set_limits(spec["limits"])
    if spec.get("parent"):
        _die_with_parent(int(spec["parent"]))
    _deny_kernel_state()
    prepare_interpreter(spec)
    run_target(argv)


def main() -> None:
    mode, spec = sys.argv[1], json.loads(sys.argv[2])
    if mode != "launch" or sys.argv[3] != "--":
        raise SystemExit("usage: inside.py launch SPEC -- ARGS")
    launch(spec, sys.argv[4:])


if __name__ == "__main__":
    main()

"""System calls a sandboxed process may not make, denied by a seccomp filter; standard
library only, and loadable by file path (as `inside.py` loads it: the sandbox's
interpreters run without the package on sys.path).

API:
- `install(deny)`: deny the named sets of system calls to this thread and everything it
  starts afterwards, for good (a filter cannot be removed, and `no_new_privs` is set).
  Call it before any code under evaluation runs, and before starting threads.
- `prepare(deny)`: the same filter built ahead (a `Filter`; `Filter.install()`), so that
  a forked child pays for two `prctl` calls only. Filters are cached per set of names.
- `supported()`: whether this machine's architecture is one the filter knows; `install`
  raises `Unsupported` elsewhere (the filter would kill every system call there).

The sets (`SETS`):
- `keyrings`: add_key, request_key and keyctl fail with EPERM. A uid's user keyring
  (`@u`) is the kernel's, not a process's: what a run adds there would outlive it and be
  read by the next run of that uid; request_key may also make the kernel start a helper
  on the host.
- `processes`: fork, vfork and clone without CLONE_THREAD fail with EPERM, clone3 with
  ENOSYS (glibc then falls back to clone): threads can be started, processes cannot.

The filter knows x86_64 and aarch64; a system call made through any other ABI (i386's
`int 0x80`, x32) kills the process.
"""

from __future__ import annotations

import errno
import os
import struct

TYPE_CHECKING = False  # typing itself is not imported: a run's start would pay for it
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from typing import Any, Final

    #: One instruction: (code, jump-if-true label, jump-if-false label, k).
    _Op = tuple[int, str | None, str | None, int]

KEYRINGS: Final = "keyrings"
PROCESSES: Final = "processes"
SETS: Final = (KEYRINGS, PROCESSES)

_AUDIT_ARCH_X86_64: Final = 0xC000003E
_AUDIT_ARCH_AARCH64: Final = 0xC00000B7
_X32_SYSCALL_BIT: Final = 0x40000000
_CLONE_THREAD: Final = 0x00010000
#: Each architecture's numbers of the calls the sets name (aarch64 has no fork, vfork).
_NUMBERS: Final[dict[int, dict[str, int]]] = {
    _AUDIT_ARCH_X86_64: {
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "fork": 57,
        "vfork": 58,
        "clone": 56,
        "clone3": 435,
    },
    _AUDIT_ARCH_AARCH64: {
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "clone3": 435,
    },
}
_MACHINES: Final = {"x86_64": _AUDIT_ARCH_X86_64, "aarch64": _AUDIT_ARCH_AARCH64}

# Classic BPF (linux/filter.h, linux/seccomp.h): the program reads `struct seccomp_data`
# {u32 nr; u32 arch; u64 instruction_pointer; u64 args[6]}, little-endian on both.
_LD_ABS: Final = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ: Final = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE: Final = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET: Final = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET: Final = 0x06  # BPF_RET | BPF_K
_NR, _ARCH, _ARG0_LOW = 0, 4, 16
_KILL: Final = 0x80000000  # SECCOMP_RET_KILL_PROCESS
_ALLOW: Final = 0x7FFF0000
_ERRNO: Final = 0x00050000
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, _PR_SET_NO_NEW_PRIVS = 22, 2, 38

#: A rule: deny with an errno, or (CLONE) deny unless the call starts a thread.
_CLONE: Final = -1
_RULES: Final[dict[str, dict[str, int]]] = {
    KEYRINGS: {"add_key": errno.EPERM, "request_key": errno.EPERM, "keyctl": errno.EPERM},
    PROCESSES: {
        "fork": errno.EPERM,
        "vfork": errno.EPERM,
        "clone": _CLONE,
        "clone3": errno.ENOSYS,
    },
}


class Unsupported(OSError):
    """This machine's architecture (or a 32-bit interpreter) is not one the filter knows."""


def supported() -> bool:
    """Whether `install` can work here: a 64-bit interpreter on x86_64 or aarch64."""
    return os.uname().machine in _MACHINES and struct.calcsize("P") == 8


def program(deny: Collection[str]) -> bytes:
    """The filter denying the sets named in `deny`, as `struct sock_filter` entries."""
    unknown = set(deny) - set(SETS)
    if unknown:
        raise ValueError(f"unknown system call sets: {sorted(unknown)} (known: {SETS})")
    rules: dict[str, int] = {}
    for name in SETS:
        if name in deny:
            rules.update(_RULES[name])
    ops: list[_Op | str] = [  # a str: a label
        (_LD_ABS, None, None, _ARCH),
        (_JEQ, "x86_64", None, _AUDIT_ARCH_X86_64),
        (_JEQ, "aarch64", "kill", _AUDIT_ARCH_AARCH64),
    ]
    for arch, label in ((_AUDIT_ARCH_X86_64, "x86_64"), (_AUDIT_ARCH_AARCH64, "aarch64")):
        ops += [label, (_LD_ABS, None, None, _NR)]
        if arch == _AUDIT_ARCH_X86_64:  # x32's calls: same arch, numbers with this bit
            ops.append((_JGE, "kill", None, _X32_SYSCALL_BIT))
        for call, action in rules.items():
            number = _NUMBERS[arch].get(call)
            if number is not None:
                target = "clone" if action == _CLONE else f"errno-{action}"
                ops.append((_JEQ, target, None, number))
        ops.append((_RET, None, None, _ALLOW))
    ops += ["clone", (_LD_ABS, None, None, _ARG0_LOW)]
    ops += [(_JSET, "allow", f"errno-{errno.EPERM}", _CLONE_THREAD), "allow"]
    ops.append((_RET, None, None, _ALLOW))
    for code in sorted({errno.EPERM, errno.ENOSYS}):
        ops += [f"errno-{code}", (_RET, None, None, _ERRNO | code)]
    ops += ["kill", (_RET, None, None, _KILL)]
    return _assemble(ops)


def _assemble(ops: Sequence[_Op | str]) -> bytes:
    """Resolve labels into the forward jump offsets BPF takes (none else: no loops)."""
    where: dict[str, int] = {}
    count = 0
    for op in ops:
        if isinstance(op, str):
            where[op] = count
        else:
            count += 1
    out: list[bytes] = []
    for op in ops:
        if isinstance(op, str):
            continue
        code, if_true, if_false, k = op
        here = len(out)
        jumps = [0 if label is None else where[label] - here - 1 for label in (if_true, if_false)]
        if not all(0 <= jump < 256 for jump in jumps):
            raise ValueError("a filter jump out of reach")
        out.append(struct.pack("=HBBI", code, jumps[0], jumps[1], k))
    return b"".join(out)


class Filter:
    """A filter ready to install (its program and the libc calls resolved once)."""

    def __init__(self, code: bytes) -> None:
        import ctypes  # noqa: PLC0415 - loaded where a filter is built, not at import

        class SockFprog(ctypes.Structure):
            _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))

        self.code = code
        self._ctypes = ctypes
        self._code = ctypes.create_string_buffer(code, len(code))
        self._fprog = SockFprog(len(code) // 8, ctypes.addressof(self._code))
        self._prctl = ctypes.CDLL(None, use_errno=True).prctl
        # prctl(option, arg2, arg3, arg4, arg5): unused arguments must be 0.
        self._prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
        self._prctl.argtypes += [ctypes.c_ulong, ctypes.c_ulong]
        self._prctl.restype = ctypes.c_int

    def install(self) -> None:
        """Set no_new_privs (what lets an unprivileged process install a filter), then
        the filter itself."""
        ctypes: Any = self._ctypes
        self._call(_PR_SET_NO_NEW_PRIVS, 1, None)
        self._call(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(self._fprog))

    def _call(self, option: int, value: int, pointer: int | None) -> None:
        if self._prctl(option, value, pointer, 0, 0) != 0:
            code = self._ctypes.get_errno()
            raise OSError(code, f"prctl({option}): {os.strerror(code)}")


_PREPARED: dict[frozenset[str], Filter] = {}


def prepare(deny: Collection[str]) -> Filter:
    """The filter denying the sets in `deny`, built once per process."""
    key = frozenset(deny)
    if key not in _PREPARED:
        if not supported():
            raise Unsupported(f"no seccomp filter for {os.uname().machine} here")
        _PREPARED[key] = Filter(program(key))
    return _PREPARED[key]


def install(deny: Collection[str]) -> None:
    """Deny the sets named in `deny` to this thread and all it starts from now on."""
    prepare(deny).install()

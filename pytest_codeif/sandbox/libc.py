"""The namespace, mount, capability and prctl calls Python 3.11's os module lacks, through
ctypes; standard library only, and loadable by file path (the fork server,
`inside_server.py`, and the stage harness, `functional/stage_harness.py`, run in
interpreters without the package on sys.path).

A `Libc` resolves its functions once, in the process that later forks: children forked
from it call them without loading anything.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is not imported: a sandboxed start would pay for it
if TYPE_CHECKING:
    from typing import Final

CLONE_NEWNS: Final = 0x00020000
CLONE_NEWIPC: Final = 0x08000000
CLONE_NEWPID: Final = 0x20000000
MS_RDONLY: Final = 1
MS_NOSUID: Final = 2
MS_NODEV: Final = 4
MS_NOEXEC: Final = 8
MS_REMOUNT: Final = 32
MS_BIND: Final = 4096
MS_REC: Final = 16384
MS_PRIVATE: Final = 1 << 18
_CAPABILITY_VERSION_3: Final = 0x20080522


class Libc:
    """The calls, resolved once."""

    def __init__(self) -> None:
        import ctypes  # noqa: PLC0415 - loaded by the processes that need it only

        self._ctypes = ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        self._unshare = libc.unshare
        self._capset = libc.capset
        self._prctl = libc.prctl
        self._fflush = libc.fflush
        self._mount = libc.mount
        self._umount2 = libc.umount2
        self._umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        self._mount.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
            ctypes.c_char_p,
        ]

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            errno = self._ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    def unshare(self, flags: int) -> None:
        self._check(self._unshare(flags), "unshare")

    def flush_c_stdio(self) -> None:
        """fflush(NULL): what C's exit() would have written."""
        self._fflush(None)

    def not_dumpable(self) -> None:
        """No core dump, no ptrace and no /proc access by others of the same uid."""
        pr_set_dumpable = 4
        self._check(self._prctl(pr_set_dumpable, 0, 0, 0, 0), "prctl")

    def die_with_parent(self) -> None:
        """Be sent SIGKILL when the parent dies (kept across execve, not across fork)."""
        pr_set_pdeathsig, sigkill = 1, 9
        self._check(self._prctl(pr_set_pdeathsig, sigkill, 0, 0, 0), "prctl")

    def subreaper(self) -> None:
        """Become the parent of orphaned descendants (the runs' inits)."""
        pr_set_child_subreaper = 36
        self._check(self._prctl(pr_set_child_subreaper, 1, 0, 0, 0), "prctl")

    def mount(
        self, source: str | None, target: str, kind: str | None, flags: int, data: str = ""
    ) -> None:
        def raw(text: str | None) -> bytes | None:
            return None if text is None else text.encode()

        result = self._mount(raw(source), raw(target), raw(kind), flags, raw(data or None))
        self._check(result, f"mount {target}")

    def detach(self, target: str) -> None:
        """Unmount `target` and everything under it (lazily, as `umount -l`)."""
        mnt_detach = 2
        self._check(self._umount2(target.encode(), mnt_detach), f"umount {target}")

    def drop_capabilities(self) -> None:
        """Clear the ambient, effective, permitted and inheritable sets (the bounding set
        is bwrap's: with no_new_privs set, nothing can be regained from it)."""
        ctypes = self._ctypes
        pr_cap_ambient, pr_cap_ambient_clear_all = 47, 4
        self._check(self._prctl(pr_cap_ambient, pr_cap_ambient_clear_all, 0, 0, 0), "prctl")
        header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
        data = (ctypes.c_uint32 * 6)()  # two {effective, permitted, inheritable}, all zero
        self._check(self._capset(header, data), "capset")

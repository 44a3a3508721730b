"""Where code under evaluation runs: isolated by bubblewrap or a bare process
(`isolation.py`), one process per run (`process.py`) or forked by a warmed server
(`fork_server.py`, `inside_server.py`), with its descriptors in memory (`streams.py`),
system calls filtered (`seccomp.py`) and waits woken by the kernel (`wait.py`)."""

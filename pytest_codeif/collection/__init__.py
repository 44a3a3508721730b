"""Where a task file becomes pytest items: reading task files into items (`items.py`),
how many items a task becomes (`items_mode.py`), which items' work to plan and when to
begin it (`planning.py`), and whole tasks per pytest-xdist worker (`xdist_scheduling.py`)."""

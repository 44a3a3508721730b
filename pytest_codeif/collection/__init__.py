"""Where a task file becomes pytest items: task files read into items, one per
constraint or one per task (`items.py`), which items' work to plan and when to begin it
(`planning.py`), and whole tasks per pytest-xdist worker (`xdist_scheduling.py`)."""

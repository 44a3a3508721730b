"""The CI gate's filters: judge only the code changed since a git ref
(`--codeif-changed-since`), and accept the findings a baseline file records
(`--codeif-baseline`). Applied where each item turns its verdict into a record
(`collection/items.py`), so that a pytest-xdist worker decides its items' outcomes; the
controller only sums the records."""
